"""Results on disk: the Parquet schemas (one place), row building, part files, the manifest, resume."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from ..game.history import GameResult, HandRecord
    from .experiment import Entrant, Experiment

FORMAT_VERSION = 1
_STR = pa.dictionary(pa.int32(), pa.string())  # low-cardinality strings: categorical in pandas

# docs/results-schema.md documents every column; keep the two in step.
GAMES_SCHEMA = pa.schema([
    ("experiment", _STR),
    ("game_id", pa.int64()),
    ("deal_id", pa.int32()),
    ("rotation", pa.int8()),
    ("table_id", pa.int32()),
    ("seat", pa.int8()),
    ("n_players", pa.int8()),
    ("entrant_id", pa.int16()),
    ("entrant", _STR),
    ("strategy", _STR),
    ("params", _STR),
    ("final_money", pa.int32()),
    ("net", pa.int32()),
    ("win_share", pa.float64()),
    ("rank", pa.int8()),
    ("hands_played", pa.int32()),
    ("end_reason", _STR),
    ("decisions", pa.int32()),
    ("errors", pa.int32()),
    ("first_error", pa.string()),
    ("treasures", pa.string()),
    ("treasures_spades", pa.int8()),
    ("treasures_clubs", pa.int8()),
    ("treasures_hearts", pa.int8()),
    ("treasures_diamonds", pa.int8()),
    ("decision_time", pa.float32()),
])
HANDS_SCHEMA = pa.schema([
    ("experiment", _STR),
    ("game_id", pa.int64()),
    ("hand_no", pa.int32()),
    ("dealer", pa.int8()),
    ("players_in_hand", pa.int8()),
    ("pot", pa.int32()),
    ("players_at_showdown", pa.int8()),
    ("winners", pa.list_(pa.int8())),
    ("winning_category", _STR),
    ("last_folder", pa.int8()),
    ("new_treasure", pa.string()),
    ("treasure_taken", pa.string()),
    ("spades_moved", pa.int8()),
    ("hearts_drawn", pa.int8()),
    ("steals", pa.int8()),
    ("deck_size", pa.int8()),
    ("void", pa.bool_()),
    ("deck_ran_out", pa.bool_()),
    ("bot_errors", pa.int16()),
    ("money_after", pa.list_(pa.int32())),
])
WALL_CLOCK_COLUMNS = ("decision_time",)  # differ between runs of the same games
GAME_KEY = ("game_id", "seat")
HAND_KEY = ("game_id", "hand_no")
_SUIT_COLUMNS = {"s": "treasures_spades", "c": "treasures_clubs", "h": "treasures_hearts", "d": "treasures_diamonds"}
_MAX_MESSAGE = 300


class ResultsError(RuntimeError):
    """The results folder cannot be used as asked (another config's results, locked, damaged)."""


# ----- rows ------------------------------------------------------------------------------------------------
Columns = dict[str, list[Any]]


def new_columns() -> tuple[Columns, Columns]:
    """Empty column lists for (games, hands): workers append plain Python values, then `to_tables`."""
    return {n: [] for n in GAMES_SCHEMA.names}, {n: [] for n in HANDS_SCHEMA.names}


def game_rows(cols: Columns, experiment: str, game_id: int, deal: int, rotation: int, table_id: int,
              seats: Sequence[int], entrants: Sequence[Entrant], result: GameResult, starting_money: int) -> None:
    """Append one row per seat of a finished game."""
    money = result.final_money
    for seat, e_id in enumerate(seats):
        e = entrants[e_id]
        errs = result.errors[seat]
        held = result.treasures[seat]
        suits = {c: 0 for c in _SUIT_COLUMNS}
        for card in held:
            suits[card[-1]] += 1
        row = {
            "experiment": experiment, "game_id": game_id, "deal_id": deal, "rotation": rotation,
            "table_id": table_id, "seat": seat, "n_players": len(seats), "entrant_id": e_id, "entrant": e.label,
            "strategy": e.strategy, "params": e.params_json, "final_money": money[seat],
            "net": money[seat] - starting_money, "win_share": result.win_shares[seat],
            "rank": 1 + sum(m > money[seat] for m in money), "hands_played": result.hands_played,
            "end_reason": result.end_reason, "decisions": result.decisions[seat], "errors": len(errs),
            "first_error": errs[0][:_MAX_MESSAGE] if errs else None, "treasures": " ".join(held),
            "decision_time": result.decision_time[seat],
        }
        for suit, name in _SUIT_COLUMNS.items():
            row[name] = suits[suit]
        for name, value in row.items():
            cols[name].append(value)


def hand_rows(cols: Columns, experiment: str, game_id: int, hands: Sequence[HandRecord]) -> None:
    """Append one row per hand of a game."""
    for h in hands:
        categories = {s.seat: s.category for s in h.shown}
        main_winners = h.pots[0].winners if h.pots else ()
        row = {
            "experiment": experiment, "game_id": game_id, "hand_no": h.hand_no, "dealer": h.dealer,
            "players_in_hand": sum(h.in_hand), "pot": h.pot, "players_at_showdown": len(h.shown),
            "winners": list(h.winners),
            "winning_category": categories.get(main_winners[0]) if main_winners else None,
            "last_folder": h.last_folder, "new_treasure": h.new_treasure, "treasure_taken": h.treasure_taken,
            "spades_moved": sum(map(len, h.spades_moved)), "hearts_drawn": sum(map(len, h.drawn)),
            "steals": len(h.steals), "deck_size": h.deck_size_after, "void": h.void,
            "deck_ran_out": h.deck_ran_out, "bot_errors": len(h.errors), "money_after": list(h.money_after),
        }
        for name, value in row.items():
            cols[name].append(value)


def to_tables(games: Columns, hands: Columns) -> tuple[pa.Table, pa.Table]:
    """Typed Arrow tables (cheap to pickle back to the parent, written as they are)."""
    return pa.Table.from_pydict(games, schema=GAMES_SCHEMA), pa.Table.from_pydict(hands, schema=HANDS_SCHEMA)


# ----- the results folder ---------------------------------------------------------------------------------
_PART = re.compile(r"^part-(\d{9})-(\d{9})\.parquet$")


def part_name(first_deal: int, end_deal: int) -> str:
    """A part holds all games of deals [first_deal, end_deal); the name is how resume knows them."""
    return f"part-{first_deal:09d}-{end_deal:09d}.parquet"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ResultsDir:
    """DIR/: games/ and hands/ Parquet datasets (one part per task), manifest.json, run.log.

    A part is written to a hidden temp name and renamed into place, hands before games, so a part
    in games/ means the deals are complete in both; readers skip the hidden names.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.games = self.path / "games"
        self.hands = self.path / "hands"
        self.manifest_path = self.path / "manifest.json"
        self.log_path = self.path / "run.log"

    # --- state ---
    def read_manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:
            raise ResultsError(f"{self.manifest_path} is unreadable ({err}); use --overwrite to start over") from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        _atomic_write(self.manifest_path, json.dumps(manifest, indent=2).encode())

    def done(self) -> list[tuple[int, int]]:
        """Deal ranges [start, end) whose games are on disk, sorted."""
        if not self.games.is_dir():
            return []
        return sorted((int(m[1]), int(m[2])) for f in os.listdir(self.games) if (m := _PART.match(f)))

    def games_done(self, rotations: int) -> int:
        return sum(end - start for start, end in self.done()) * rotations

    # --- preparing a run ---
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Refuse a second run into the same folder while this one is going."""
        if self.path.exists() and not self.path.is_dir():
            raise ResultsError(f"{self.path} is a file, not a results folder; give --out a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".lock", "w") as fh:
            try:
                import fcntl

                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except ImportError:  # not POSIX: no lock, as before
                pass
            except OSError:
                raise ResultsError(f"another run is writing to {self.path}; wait for it or use another --out") from None
            yield

    def prepare(self, exp: Experiment, *, overwrite: bool) -> list[tuple[int, int]]:
        """Check the folder holds this config's results (or none), tidy it, and return the pending deals."""
        old = self.read_manifest()
        if overwrite:
            self.clear()
        elif old is not None:
            if old.get("fingerprint") != exp.fingerprint():
                raise ResultsError(
                    f"{self.path} holds results of a different config (differs in: "
                    f"{', '.join(_differences(old.get('config', {}), exp.to_dict())) or 'format'}); "
                    f"use --overwrite to replace them or --out to write elsewhere")
        elif self.done():
            raise ResultsError(f"{self.path} holds result parts but no manifest.json; "
                               f"use --overwrite to replace them or --out to write elsewhere")
        self._tidy()
        done = self.done()
        if done and done[-1][1] > exp.deals:
            raise ResultsError(f"{self.path} already holds deals up to {done[-1][1]}, more than the {exp.deals} "
                               f"asked; ask for at least that many deals, or use --overwrite or another --out")
        self.games.mkdir(parents=True, exist_ok=True)
        self.hands.mkdir(parents=True, exist_ok=True)
        return _gaps(done, exp.deals)

    def clear(self) -> None:
        """Remove this tool's files (only them: DIR may hold other things)."""
        for sub in (self.games, self.hands):
            shutil.rmtree(sub, ignore_errors=True)
        for f in (self.manifest_path, self.log_path):
            f.unlink(missing_ok=True)

    def _tidy(self) -> None:
        """Drop what a crash left: temp files, and hands parts whose games part was never renamed in."""
        done = {part_name(a, b) for a, b in self.done()}
        for sub in (self.games, self.hands):
            if sub.is_dir():
                for f in os.listdir(sub):
                    if f.startswith(".") or (sub == self.hands and _PART.match(f) and f not in done):
                        (sub / f).unlink(missing_ok=True)

    # --- writing ---
    def write_part(self, first_deal: int, end_deal: int, games: pa.Table, hands: pa.Table) -> None:
        name = part_name(first_deal, end_deal)
        for table, folder in ((hands, self.hands), (games, self.games)):
            tmp = folder / f".{name}.tmp"
            pq.write_table(table, tmp, compression="zstd")
            os.replace(tmp, folder / name)


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _gaps(done: list[tuple[int, int]], deals: int) -> list[tuple[int, int]]:
    """The deal ranges in [0, deals) that no part covers."""
    gaps, at = [], 0
    for start, end in done:
        if start > at:
            gaps.append((at, min(start, deals)))
        at = max(at, end)
    if at < deals:
        gaps.append((at, deals))
    return [(a, b) for a, b in gaps if a < b]


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    keys = [k for k in ("name", "seed", "table_size", "rotate", "entrants") if old.get(k) != new.get(k)]
    old_rules, new_rules = old.get("rules", {}), new.get("rules", {})
    keys += [f"rules.{k}" for k in sorted(set(old_rules) | set(new_rules)) if old_rules.get(k) != new_rules.get(k)]
    return keys


def new_manifest(exp: Experiment, version: str, old: dict[str, Any] | None) -> dict[str, Any]:
    """The manifest of a run starting now; a resumed run keeps the first start time and the run history."""
    return {
        "format": FORMAT_VERSION,
        "experiment": exp.name,
        "fingerprint": exp.fingerprint(),
        "config": exp.to_dict(),
        "rules": exp.rules.to_dict(),
        "seed": exp.seed,
        "deals": exp.deals,
        "games": exp.games,
        "package_version": version,
        "python": sys.version.split()[0],
        "source": exp.source,
        "started": (old or {}).get("started", now()),
        "finished": None,
        "status": "running",
        "games_done": 0,
        "runs": list((old or {}).get("runs", [])),
    }


def iter_parts(path: str | Path, table: str, columns: Sequence[str]) -> Iterator[pa.Table]:
    """Each finished part of ``games`` or ``hands`` in deal order, read one file at a time.

    Lighter than a dataset scan (no scanner, no read-ahead): what the parent uses after a run.
    """
    folder = Path(path) / table
    for name in sorted(f for f in os.listdir(folder) if _PART.match(f)):
        yield pq.ParquetFile(folder / name).read(columns=list(columns), use_threads=False)


def read_games(path: str | Path, columns: Sequence[str] | None = None) -> pa.Table:
    """The games dataset of a results folder (hidden temp files are skipped)."""
    return pq.read_table(Path(path) / "games", columns=list(columns) if columns else None)


def read_hands(path: str | Path, columns: Sequence[str] | None = None) -> pa.Table:
    return pq.read_table(Path(path) / "hands", columns=list(columns) if columns else None)
