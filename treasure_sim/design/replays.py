"""Games played again for the reports: replay pages of sample games and the decisions they hold
(`treasure_sim.study.dynamics_report.Replayer`, passed to `treasure_sim.study.report.run_report` by the CLI).

It lives here, not in the study layer, because it plays games (`treasure_sim.run.replay`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..run.replay import replay_game, replay_games
from ..run.store import ResultsError
from ..run.tournament import BotFailure
from ..study.replay import write_replay

REPLAYS = "replays"  # the pages' folder inside a report folder


class Replays:
    """Replays games of results folders for a report (`Replayer`). A game that cannot be replayed (a bot that is
    not deterministic, or cannot be built here) gets one line saying why instead of a page."""

    def pages(self, folder: Path, games: Mapping[str, int], out: Path, stem: str = "") -> dict[str, Path | str]:
        written: dict[str, Path | str] = {}
        for label, game_id in games.items():
            name = f"{stem}-game-{game_id}.html" if stem else f"game-{game_id}.html"
            try:
                game = replay_game(folder, game_id)
            except (ResultsError, BotFailure) as err:
                written[label] = f"not replayed: {err}"
                continue
            title = f"{game.experiment}, game {game_id} (deal {game.deal}, rotation {game.rotation}): {label}"
            written[label] = write_replay(out / REPLAYS / name, game.result, game.entrants, game.rules, title)
        return written

    def decisions(self, folder: Path, game_ids: Sequence[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
        rows, played = [], []
        try:
            for game in replay_games(folder, game_ids, decisions=True):
                assert game.decisions is not None  # asked for
                rows += [{"deal_id": game.deal, "game_id": game.game_id, **d._asdict()} for d in game.decisions]
                played.append({"deal_id": game.deal, "game_id": game.game_id,
                               "hands_played": game.result.hands_played})
        except (ResultsError, BotFailure):
            return pd.DataFrame(), pd.DataFrame()
        return pd.DataFrame(rows), pd.DataFrame(played)
