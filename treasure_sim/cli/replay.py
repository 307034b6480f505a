"""`replay`: one game of a results folder as a self-contained HTML page (docs/replay.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import UsageError

REPLAYS_DIR = Path("report") / "replays"  # under the results folder: where `replay` and the reports put pages


def add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay", help="one game as an HTML page that steps through it hand by hand and action by action",
        description="Play game ID of a results folder again from its seeds (checked against the recorded "
                    "money of every hand) and write one self-contained HTML page that steps through it: "
                    "seats and money, Treasure Zones and what each card does, hole cards, board, bets and "
                    "pots, every power used, and money over the hands (docs/replay.md).")
    p.add_argument("dir", type=Path, metavar="DIR", help="a results folder written by `treasure-sim run` (for a "
                                                         "sweep, one variant's folder)")
    p.add_argument("--game", type=int, required=True, metavar="ID", help="the game_id, as in the games table")
    p.add_argument("--out", type=Path, default=None, metavar="FILE",
                   help="where to write the page (default: DIR/report/replays/game-ID.html)")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from ..run.replay import replay_game
    from ..study.replay import write_replay

    if args.game < 0:
        raise UsageError(f"--game must be a game_id >= 0, got {args.game}")
    game = replay_game(args.dir, args.game)
    out = args.out if args.out is not None else args.dir / REPLAYS_DIR / f"game-{args.game}.html"
    title = f"{game.experiment}, game {game.game_id} (deal {game.deal}, rotation {game.rotation})"
    path = write_replay(out, game.result, game.entrants, game.rules, title)
    print(f"replay of game {args.game} ({game.result.hands_played} hands, ended by {game.result.end_reason}) "
          f"written to {path}")
    return 0
