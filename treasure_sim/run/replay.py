"""One game of a results folder played again, exactly, from its seeds (`treasure-sim replay`, the reports' samples).

Why replay rather than read: the results tables keep a row per player per game, per hand and per seat in a hand,
but not every betting action, who stole what from whom, or what a bot was asked. Every game depends only on the
config, the deal and the rotation (`tournament.game_seeds`), so playing it again with the config the manifest
holds gives the same records. The replay is checked against the tables (every hand's money after it, the final
money) and refused if it differs: a bot that is not deterministic, or one that hit its time limit in the run,
does not replay.

The replay can also record every decision a seat faced (`Decision`): its kind and how many answers it had, as the
game state puts it (`Game`'s ``on_decision``); a question whose fixed default a bot keeps is counted too (the
default answers it, as in the run), so the count is the game's, not the bot's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa
import pyarrow.compute as pc

from ..game.gamestate import GameState
from ..game.history import GameResult
from ..game.questions import QUESTIONS
from ..game.questions import Decision as GameDecision
from ..game.rules import RuleSet
from .experiment import ConfigError, parse_experiment
from .schedule import round_robin
from .store import ResultsError, is_sweep_dir, read_games, read_hands, read_manifest
from .tournament import Task, play_one

DECISION_KINDS = tuple(kind for kind in QUESTIONS if kind != "keep_playing")
"""The decisions inside a hand, in the card's order (steps 4–10, 11, 12, 15, 14–15, 16): the catalogue's questions
but the vote before a hand (``keep_playing``)."""
TREASURE_KINDS = DECISION_KINDS[1:]
"""The decisions about Treasures: every kind but betting."""


class Decision(NamedTuple):
    """One decision a seat faced: its hand, its kind (`DECISION_KINDS`) and how many answers it had (a record of a
    replay; the state's own question is `questions.Decision`).

    Options: at a bet, the legal action kinds (fold, check, call, raise; every raise size counts as one); Spades,
    every subset of the seat's Spades Treasures (2^k); Hearts, draw or not (2); the Joker Treasure, the cards it may
    choose from; making room, each Treasure it may give up or none; a steal, each steal offered or none.
    """

    hand_no: int
    seat: int
    kind: str
    options: int


class ReplayedGame(NamedTuple):
    """A game played again: who sat where, under which rules, its full record, and (if asked) its decisions."""

    folder: Path
    experiment: str
    game_id: int
    deal: int
    rotation: int
    entrants: tuple[str, ...]  # the entrant's label, by seat
    rules: RuleSet
    result: GameResult
    decisions: tuple[Decision, ...] | None  # None: not asked for


def _note(log: list[Decision]) -> Callable[[GameState, GameDecision], None]:
    """What `Game` tells of each decision, noted as (hand, seat, kind, how many answers); the vote before a hand is
    not noted. Spades may move any subset of the seat's Spades Treasures: 2^k answers."""
    def note(state: GameState, d: GameDecision) -> None:
        if d.kind != "keep_playing":
            answers = 2 ** len(d.options) if d.kind == "spades" else len(d.options)
            log.append(Decision(state.table.hand_no, d.seat, d.kind, answers))
    return note


def run_folder(folder: str | Path) -> Path:
    """``folder`` if it is one run's results folder, else a `ResultsError` in one line saying what to name."""
    folder = Path(folder)
    if is_sweep_dir(folder):
        manifest = read_manifest(folder)
        names = ", ".join(str(folder / v.dir) for v in (manifest.variants if manifest else ())[:3])
        raise ResultsError(f"{folder} is a sweep folder: name one variant's results folder, e.g. {names}")
    manifest = read_manifest(folder)
    if manifest is None or manifest.kind != "run":
        raise ResultsError(f"{folder} is not a results folder (no manifest.json of a run)")
    return folder


def replay_game(folder: str | Path, game_id: int, *, decisions: bool = False) -> ReplayedGame:
    """Game ``game_id`` (as in the games table) of the results in ``folder``, played again and checked against the
    tables; with ``decisions``, every decision its in-process bots faced. One-line `ResultsError` if the folder
    is not a run's results, the game is not in it, or the replay differs from what was recorded."""
    return next(replay_games(folder, [game_id], decisions=decisions))


def replay_games(folder: str | Path, game_ids: Iterable[int], *, decisions: bool = False) -> Iterator[ReplayedGame]:
    """`replay_game` for each of ``game_ids`` in turn, reading the folder's tables once."""
    folder = run_folder(folder)
    manifest = read_manifest(folder)
    assert manifest is not None
    try:
        config = {k: v for k, v in manifest.config.items() if k != "code"}  # the bots' code hashes: a record only
        exp = parse_experiment(config, str(folder / "manifest.json"), check_strategies=False)
    except ConfigError as err:
        raise ResultsError(f"{folder}: the config in its manifest cannot be played again: {err}") from None
    wanted = sorted(set(game_ids))
    games = read_games(folder, ["game_id", "deal_id", "rotation", "table_id", "seat", "entrant_id", "final_money",
                                "hands_played"]).to_pandas()
    hands = read_hands(folder, ["game_id", "hand_no", "money_after"])
    hands = hands.filter(pc.is_in(hands["game_id"], value_set=pa.array(wanted, pa.int64()))).to_pandas()
    tables = round_robin(len(exp.entrants), exp.table_size)
    for game_id in game_ids:
        rows = games[games["game_id"] == game_id].sort_values("seat")
        if rows.empty:
            known = games["game_id"]
            span = f"game ids {known.min()}..{known.max()}" if len(known) else "no games yet"
            raise ResultsError(f"{folder} holds no game {game_id} ({span})")
        first = rows.iloc[0]
        deal, rotation = int(first["deal_id"]), int(first["rotation"])
        seats = tuple(int(e) for e in rows["entrant_id"])
        task = Task(exp.name, exp.seed, exp.rules, exp.entrants, tables, exp.rotations, deal, deal + 1,
                    exp.decision_timeout, False, 0, exp.rotate == "cycle")
        log: list[Decision] = []
        result = play_one(task, game_id, deal, rotation, seats, on_decision=_note(log) if decisions else None)
        recorded = hands[hands["game_id"] == game_id].sort_values("hand_no")
        _check(folder, game_id, result, [list(m) for m in recorded["money_after"]],
               [int(m) for m in rows["final_money"]])
        yield ReplayedGame(folder, exp.name, game_id, deal, rotation, tuple(exp.entrants[e].label for e in seats),
                           exp.rules, result, tuple(log) if decisions else None)


def _check(folder: Path, game_id: int, result: GameResult, money_after: Sequence[list[int]],
           final: list[int]) -> None:
    """The replay must be the game recorded: the same money after every hand and at the end."""
    if len(result.hands) != len(money_after):
        raise ResultsError(f"{folder}: game {game_id} replays to {len(result.hands)} hands, but {len(money_after)} "
                           "were recorded (a bot that is not deterministic, or that hit its time limit in the run)")
    for h, recorded in zip(result.hands, money_after, strict=True):
        if list(h.money_after) != recorded:
            raise ResultsError(f"{folder}: game {game_id} replays differently from hand {h.hand_no} on (money "
                               f"{list(h.money_after)}, recorded {recorded}): a bot that is not deterministic, or "
                               "that hit its time limit in the run")
    if list(result.final_money) != final:
        raise ResultsError(f"{folder}: game {game_id} replays to final money {list(result.final_money)}, recorded "
                           f"{final}")
