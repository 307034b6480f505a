"""Full hand histories of the first games of a run, as PHH beside the Parquet tables (``run --histories N``).

Why beside and not inside: the tables are what analyses read and what ``verify`` checks against the journal;
a hand history is for a person or a poker tool to follow one game through. These files are not journalled
(``verify`` does not check them); the same game always writes the same file, and ``--overwrite`` removes
them with the rest of the results (`store.ResultsDir.clear`). ``docs/phh.md`` documents the format.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .store import HISTORIES_DIR, atomic_write


def history_path(folder: str | Path, game_id: int) -> Path:
    """Where the history of game ``game_id`` (as in the games table) of the results in ``folder`` goes."""
    return Path(folder) / HISTORIES_DIR / f"game-{game_id:09d}.phhs"


def write_histories(folder: str | Path, histories: Iterable[tuple[int, str]]) -> None:
    """Write each (game_id, PHH text) to its file, atomically (a reader never sees half a history)."""
    for game_id, text in histories:
        path = history_path(folder, game_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode())
