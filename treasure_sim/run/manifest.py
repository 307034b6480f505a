"""A results folder's typed manifest and its journal of parts (``manifest.json``/``sweep.json``, ``parts.jsonl``).

Apart from the store (`store`), which writes, verifies and reads the part files these records describe; the store
re-exports every name here.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FORMAT_VERSION = 2  # 1: no checksums (still readable, not verifiable)
RUN_MANIFEST, SWEEP_MANIFEST, PARTS_JOURNAL = "manifest.json", "sweep.json", "parts.jsonl"
STATUSES = ("running", "complete", "interrupted", "failed")


class ResultsError(RuntimeError):
    """The results folder cannot be used as asked (another config's results, locked, damaged)."""


class DamagedResults(ResultsError):
    """Parts of a results folder are missing, truncated or changed since they were written."""

    def __init__(self, path: Path, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        shown = "; ".join(self.problems[:5]) + (f"; and {len(self.problems) - 5} more" if len(self.problems) > 5
                                                 else "")
        super().__init__(f"{path} is damaged: {shown}. Run the same `treasure-sim run` (or sweep) command on it "
                         f"again to replay exactly the affected deals; `treasure-sim verify {path}` checks it")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# ----- the manifest ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PartFile:
    """One Parquet file of a part, as written: its table, rows, bytes and SHA-256."""

    table: str
    rows: int
    size: int
    sha256: str


@dataclass(frozen=True, slots=True)
class Part:
    """All games of deals [first_deal, end_deal), one file per table."""

    first_deal: int
    end_deal: int
    files: tuple[PartFile, ...]

    @property
    def name(self) -> str:
        return part_name(self.first_deal, self.end_deal)

    def file(self, table: str) -> PartFile | None:
        return next((f for f in self.files if f.table == table), None)


@dataclass(frozen=True, slots=True)
class Invocation:
    """One invocation of run or sweep on the folder."""

    started: str
    finished: str | None = None
    executor: str = "process"
    workers: int = 1
    games_run: int = 0


@dataclass(frozen=True, slots=True)
class VariantEntry:
    """A sweep variant: what it changes and where its results folder is (relative to the sweep folder)."""

    name: str
    dir: str
    changes: dict[str, Any]
    experiment: str
    fingerprint: str
    games: int
    status: str = "pending"
    games_done: int = 0


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a results folder (``kind = "run"``) or sweep folder (``kind = "sweep"``) holds, typed.

    ``parts`` is None for folders written before checksums (format 1): readable, not verifiable.
    """

    kind: str
    name: str
    fingerprint: str
    config: dict[str, Any]
    deals: int
    games: int
    package_version: str
    python: str
    source: str
    started: str
    updated: str
    finished: str | None = None
    status: str = "running"
    games_done: int = 0
    runs: tuple[Invocation, ...] = ()
    parts: tuple[Part, ...] | None = ()
    baseline: str = ""
    variants: tuple[VariantEntry, ...] = ()
    format: int = FORMAT_VERSION
    parts_recorded: int | None = None  # as read: how many parts the journal held when the manifest was written
    journal_damage: tuple[str, ...] = ()  # as read: what is wrong with parts.jsonl (not written)

    def replace(self, **changes: Any) -> Manifest:
        return dataclasses.replace(self, **changes)

    @property
    def rules(self) -> dict[str, Any]:
        return dict(self.config.get("rules", {}))

    @property
    def seed(self) -> int | None:
        return self.config.get("seed")

    def with_part(self, part: Part, games: int) -> Manifest:
        """The manifest after ``part`` (``games`` games) was written and journalled."""
        return self.replace(parts=(*(self.parts or ()), part), games_done=self.games_done + games, updated=now())

    @property
    def rotations(self) -> int:
        return self.games // self.deals if self.deals else 1

    def with_invocation(self, run: Invocation) -> Manifest:
        """The last invocation replaced by ``run`` (each invocation appends one entry, then updates it)."""
        return self.replace(runs=(*self.runs[:-1], run), updated=now())

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self.replace(parts=(), journal_damage=()))  # not every part copied at each write
        del data["parts"], data["journal_damage"]  # in the journal; found when read
        data["parts_recorded"] = len(self.parts) if self.parts is not None and self.kind == "run" else None
        data[self.kind if self.kind == "sweep" else "experiment"] = self.name  # the names older readers used
        if self.kind == "run":
            data.update(rules=self.rules, seed=self.seed)
            del data["baseline"], data["variants"]
        else:
            data["base"] = data.pop("config")
        return data

    @classmethod
    def from_json(cls, data: Any, source: Path) -> Manifest:
        """Parse and check a manifest; anything malformed is a ResultsError naming the file and the field."""
        try:
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            kind = data.get("kind", "run")
            config = data.get("base") if kind == "sweep" else data.get("config", {})
            return cls(
                kind=_check(kind, str, "kind"), name=_check(data.get("sweep" if kind == "sweep" else "experiment",
                                                                     data.get("name", "")), str, "name"),
                fingerprint=_check(data.get("fingerprint", ""), str, "fingerprint"),
                config=_check(config or {}, dict, "config"), deals=_check(data.get("deals", 0), int, "deals"),
                games=_check(data.get("games", 0), int, "games"),
                package_version=str(data.get("package_version", "?")), python=str(data.get("python", "?")),
                source=str(data.get("source", "")), started=str(data.get("started", "")),
                updated=str(data.get("updated", data.get("started", ""))), finished=data.get("finished"),
                status=_check(data.get("status", "running"), str, "status"),
                games_done=_check(data.get("games_done", 0), int, "games_done"),
                runs=tuple(Invocation(**r) for r in data.get("runs", [])),
                parts=None if data.get("format", 1) < 2 else (),
                baseline=str(data.get("baseline", "")),
                variants=tuple(VariantEntry(**v) for v in data.get("variants", [])),
                format=_check(data.get("format", 1), int, "format"),
                parts_recorded=None if data.get("parts_recorded") is None else
                _check(data["parts_recorded"], int, "parts_recorded"))
        except (TypeError, KeyError, ValueError) as err:
            raise ResultsError(f"{source} is not a treasure-sim manifest ({err}); use --overwrite to start "
                               f"over") from None


def _check(value: Any, kind: type, name: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise TypeError(f"{name} should be {kind.__name__}, got {value!r}")
    return value


def read_manifest(folder: str | Path) -> Manifest | None:
    """The manifest of a results or sweep folder, or None when it has none."""
    folder = Path(folder)
    for name in (SWEEP_MANIFEST, RUN_MANIFEST):
        path = folder / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except OSError as err:
            raise ResultsError(f"{path} is unreadable ({err.strerror or err})") from None
        try:
            data = json.loads(text)
        except ValueError as err:
            raise ResultsError(f"{path} is not valid JSON ({err}); use --overwrite to start over") from None
        if name == SWEEP_MANIFEST:
            data.setdefault("kind", "sweep")
        manifest = Manifest.from_json(data, path)
        if manifest.kind == "run" and manifest.parts is not None:
            parts, damage = _read_journal(folder, manifest.parts_recorded)
            manifest = manifest.replace(parts=parts, games_done=sum(p.end_deal - p.first_deal for p in parts)
                                        * manifest.rotations, journal_damage=damage)
        return manifest
    return None


_CUT = "cut short (a crash while it was written?)"  # the last line: also what a reader sees of one being written


def read_journal(folder: Path) -> tuple[Part, ...]:
    """The parts recorded in ``parts.jsonl``, in deal order (a garbled or cut line records nothing)."""
    return _read_journal(folder, None)[0]


def _read_journal(folder: Path, recorded: int | None) -> tuple[tuple[Part, ...], tuple[str, ...]]:
    """The parts of ``parts.jsonl`` in deal order, and what is wrong with it: garbled or cut lines, and fewer
    parts than the ``recorded`` number the manifest says it held (lines removed, or the file deleted)."""
    damage = []
    try:
        text = (folder / PARTS_JOURNAL).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        if recorded:
            return (), (f"{PARTS_JOURNAL} is missing (the manifest records {recorded} parts)",)
        return (), ()
    lines = text.split("\n")
    parts: dict[int, Part] = {}
    for number, line in enumerate(lines, start=1):
        last = number == len(lines)
        if last and not line:
            break  # the newline that ends the file
        try:
            p = json.loads(line)
            part = Part(_check(p["first_deal"], int, "first_deal"), _check(p["end_deal"], int, "end_deal"),
                        tuple(PartFile(**f) for f in p["files"]))
            if not (0 <= part.first_deal < part.end_deal) or not all(
                    isinstance(f.table, str) and isinstance(f.sha256, str) for f in part.files):
                raise ValueError("out of range")
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            damage.append(f"{PARTS_JOURNAL} line {number} is " + (_CUT if last else "garbled"))
            continue
        parts[part.first_deal] = part
    if recorded is not None and len(parts) + len(damage) < recorded:  # a garbled line is not a removed one
        damage.append(f"{PARTS_JOURNAL} records {len(parts)} parts where the manifest records {recorded} "
                      f"(journal lines were removed)")
    return tuple(sorted(parts.values(), key=lambda p: p.first_deal)), tuple(damage)


def _journal_line(part: Part) -> str:
    return json.dumps(dataclasses.asdict(part), separators=(",", ":")) + "\n"


def write_manifest(folder: str | Path, manifest: Manifest) -> None:
    name = SWEEP_MANIFEST if manifest.kind == "sweep" else RUN_MANIFEST
    atomic_write(Path(folder) / name, json.dumps(manifest.to_json(), indent=2).encode())


def is_sweep_dir(path: str | Path) -> bool:
    """Whether ``path`` holds a sweep (its manifest), as opposed to a single run's results."""
    return (Path(path) / SWEEP_MANIFEST).is_file()


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def part_name(first_deal: int, end_deal: int) -> str:
    """A part holds all games of deals [first_deal, end_deal)."""
    return f"part-{first_deal:09d}-{end_deal:09d}.parquet"
