"""Full hand histories of the first games of a run, as PHH beside the Parquet tables (``run --histories N``).

Why beside and not inside: the tables are what analyses read and what ``verify`` checks against the journal;
a hand history is for a person or a poker tool to follow one game through. These files are not journalled
(``verify`` does not check them); the same game always writes the same file, and ``--overwrite`` removes
them with the rest of the results (`store.ResultsDir.clear`). ``docs/phh.md`` documents the format.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .store import HISTORIES_DIR, atomic_write

if TYPE_CHECKING:
    from .experiment import Experiment

__all__ = ["HISTORIES_DIR", "history_path", "replay_histories", "write_histories"]


def history_path(folder: str | Path, game_id: int) -> Path:
    """Where the history of game ``game_id`` (as in the games table) of the results in ``folder`` goes."""
    return Path(folder) / HISTORIES_DIR / f"game-{game_id:09d}.phhs"


def write_histories(folder: str | Path, histories: Iterable[tuple[int, str]]) -> None:
    """Write each (game_id, PHH text) to its file, atomically (a reader never sees half a history)."""
    for game_id, text in histories:
        path = history_path(folder, game_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode())


def replay_histories(exp: Experiment, folder: str | Path, n: int) -> tuple[int, int]:
    """Write the history of every game on disk with game_id < ``n`` that has none, by replaying its deal.

    A game depends only on (config, deal, rotation) (`tournament`), so replaying a deal gives its games again; each
    replayed game is checked against the games table (final money of every seat) before its history is written.
    Returns (histories written now, histories of those games on disk in all).
    """
    from .store import ResultsError, read_games
    from .tournament import plan_tasks, run_task

    games = read_games(folder, ["game_id", "deal_id", "seat", "final_money"]).to_pandas()
    games = games[games["game_id"] < n]
    on_disk = sorted(set(games["game_id"].tolist()))
    missing = [g for g in on_disk if not history_path(folder, g).exists()]
    deals = sorted(set(games.loc[games["game_id"].isin(missing), "deal_id"].tolist()))
    stored = {(int(g), int(s)): int(m) for g, s, m in games[["game_id", "seat", "final_money"]].itertuples(index=False)}
    written = 0
    for deal in deals:
        for task in plan_tasks(exp, [(deal, deal + 1)], 1, histories=n):
            result = run_task(task)
            replayed = result.tables["games"].select(["game_id", "seat", "final_money"]).to_pylist()
            for row in replayed:
                want = stored.get((row["game_id"], row["seat"]))
                if want is not None and want != row["final_money"]:
                    raise ResultsError(f"{folder}: replaying game {row['game_id']} (deal {deal}) did not give the "
                                       f"game on disk (seat {row['seat']}: {row['final_money']} chips, not {want}); "
                                       f"a bot that does not play the same way twice cannot be replayed")
            todo = [(g, text) for g, text in result.histories if g in missing]
            write_histories(folder, todo)
            written += len(todo)
    return written, sum(history_path(folder, g).exists() for g in on_disk)
