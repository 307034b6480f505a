"""The results store: part files with checksums, verification, readers (records: `manifest.py`; schemas: `schema.py`).

A results folder holds one Parquet dataset per table (``games/``, ``hands/``, ``seats/``, ``mixed/``), each cut
into parts that cover whole deals, plus ``manifest.json`` and ``parts.jsonl`` (a sweep folder holds ``sweep.json``
and one results folder per variant). Every part file is written under a hidden temporary name and renamed into
place; then one line with its size, row count and SHA-256 is appended to ``parts.jsonl`` (an append-only
journal, so a long run does not rewrite a growing file), and ``manifest.json`` is replaced atomically, with
the number of parts the journal holds. So the journal is the truth, and it guards itself: readers verify
every part they read against it, and a missing, truncated or changed part, a garbled or cut journal line, a
journal shorter than the manifest says (lines or the whole file deleted) and a part file the journal does not
know (a crash between the writes) are each named in a `DamagedResults` error by every reader and by `verify`,
and the next run replays exactly the deals they held. While a run is writing the folder (its lock names a
live process), its newest part may be on disk a moment before its journal line: that is not damage.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .manifest import (  # noqa: F401  (re-exported: the store's readers and writers import them from here)
    _CUT,
    FORMAT_VERSION,
    PARTS_JOURNAL,
    RUN_MANIFEST,
    STATUSES,
    SWEEP_MANIFEST,
    DamagedResults,
    Invocation,
    Manifest,
    Part,
    PartFile,
    ResultsError,
    VariantEntry,
    _journal_line,
    atomic_write,
    is_sweep_dir,
    now,
    part_name,
    read_journal,
    read_manifest,
    write_manifest,
)
from .schema import (  # noqa: F401  (the schemas, re-exported: readers import them from here)
    END_REASONS,
    GAME_KEY,
    GAMES_SCHEMA,
    HAND_KEY,
    HANDS_SCHEMA,
    MIXED_SCHEMA,
    SCHEMAS,
    SEATS_SCHEMA,
    SUIT_COLUMNS,
    TABLES,
    WALL_CLOCK_COLUMNS,
)

HISTORIES_DIR = "histories"  # PHH hand histories of some games (run --histories): beside the tables, not journalled
STDERR_DIR = "stderr"  # what isolated bots write to stderr, one bounded file per entrant (`isolated`); not journalled
DERIVED_FILES = ("luck.parquet",)  # caches the study side writes into a results folder (study.luck.CACHE_FILE)
REPORT_DIR = "report"  # `treasure-sim report` writes its pages and the files they link here; `replay`, replays/
REPORT_PAGES = ("report.md", "designer.md", "verdict.txt")  # a run's or sweep's page, a study's page, its verdict
_REPLAY_PAGE = re.compile(r"game-\d+\.html$")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


# ----- part files --------------------------------------------------------------------------------------------
_PART = re.compile(r"^part-(\d{9})-(\d{9})\.parquet$")
_HISTORY = re.compile(r"^game-\d{9}\.phhs$")  # histories.history_path
_STDERR = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*\.log$")  # tournament.stderr_path: <label>.log


def _parquet_bytes(table: pa.Table) -> bytes:
    """A part file: zstd, without column statistics (min/max per column chunk: nothing here filters by them, and
    leaving them out saves ~20% of the encoding, the parent's main work during a run; readers that filter still
    filter, reading a little more)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", write_statistics=False)
    return sink.getvalue().to_pybytes()


def _damage(folder: Path, part: Part, table: str) -> str | None:
    """Why the part's file of ``table`` does not match the manifest, or None."""
    recorded = part.file(table)
    path = folder / table / part.name
    if recorded is None:
        return f"{table}/{part.name} is not in the manifest"
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return f"{table}/{part.name} is missing"
    if size < recorded.size:
        return f"{table}/{part.name} is truncated ({size} of {recorded.size} bytes)"
    if size != recorded.size or _sha256(path) != recorded.sha256:
        return f"{table}/{part.name} has changed since it was written (checksum mismatch)"
    return None


def _sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _unrecorded(folder: Path, manifest: Manifest) -> list[str]:
    """Part files on disk that the journal does not list (written just before a crash, or their line lost)."""
    known = {p.name for p in manifest.parts or ()}
    return [f"{t}/{f}" for t in TABLES if (folder / t).is_dir()
            for f in sorted(os.listdir(folder / t)) if _PART.match(f) and f not in known]


def writer(folder: Path) -> int | None:
    """The pid of the live run writing ``folder`` (its lock file names it), or None."""
    try:
        text = (folder / ".lock").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    if pid == os.getpid():
        return pid if folder.resolve() in _HELD else None
    return pid if _alive(pid) else None


def _unrecorded_words(names: Sequence[str]) -> list[str]:
    """One phrase per unrecorded part (all its tables at once)."""
    by_part: dict[str, list[str]] = {}
    for name in names:
        table, _, part = name.partition("/")
        by_part.setdefault(part, []).append(table)
    return [f"{part} ({', '.join(tables)}) is on disk but not recorded in {PARTS_JOURNAL}"
            for part, tables in by_part.items()]


def journal_problems(folder: str | Path, manifest: Manifest) -> list[str]:
    """What is wrong with a results folder's journal, beyond its parts' checksums: garbled or cut lines, lines
    or the whole file removed, part files it does not record. A live run's newest part is not counted."""
    folder = Path(folder)
    if manifest.parts is None:
        return []
    problems = list(manifest.journal_damage)
    unrecorded = _unrecorded(folder, manifest)
    in_flight = (problems and problems[-1].endswith(_CUT)) or unrecorded
    if in_flight and writer(folder) is not None:  # being written: a part may precede its line, a line be half there
        return [p for p in problems if not p.endswith(_CUT)]
    return problems + _unrecorded_words(unrecorded)


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of checking every part of a folder against its manifest and journal."""

    path: Path
    manifest: Manifest
    damaged: tuple[tuple[Part, str], ...] = ()  # (part, what is wrong)
    unrecorded: tuple[str, ...] = ()  # part files (table/name) the journal does not record
    unverifiable: bool = False  # format 1: no checksums to compare
    journal: tuple[str, ...] = ()  # what is wrong with the journal itself, and the unrecorded parts, in words

    @property
    def ok(self) -> bool:
        return not self.damaged and not self.journal

    @property
    def damaged_games(self) -> int:
        rotations = self.manifest.rotations
        return sum(p.end_deal - p.first_deal for p in {p for p, _ in self.damaged}) * rotations

    def describe(self) -> str:
        m = self.manifest
        parts = len(m.parts or ())
        if self.unverifiable:
            head = f"{self.path}: {m.games_done} games; written before checksums (format 1): parts not verified"
        elif self.ok:
            head = f"{self.path}: ok, {parts} parts verified, {m.games_done} of {m.games} games, status {m.status}"
            if self.unrecorded:
                head += f"; a run is writing it: {len(self.unrecorded)} part file(s) not yet recorded"
        else:
            words = [w for _, w in self.damaged] + list(self.journal)
            head = (f"{self.path}: DAMAGED, {len({p for p, _ in self.damaged})} of {parts} recorded parts "
                    f"({self.damaged_games} games)" + (" and its journal" if self.journal else "") + ": "
                    + "; ".join(words) + ". Run the same command again to replay exactly the affected deals")
        return head


def verify(folder: str | Path) -> Verification:
    """Check every part of a results folder against the manifest (checksums, sizes) without reading rows."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    if manifest is None or manifest.kind != "run":
        raise ResultsError(f"{folder} is not a results folder ({RUN_MANIFEST} is missing)")
    if manifest.parts is None:
        return Verification(folder, manifest, unverifiable=True)
    damaged = tuple((p, why) for p in manifest.parts for f in p.files if (why := _damage(folder, p, f.table)))
    return Verification(folder, manifest, damaged, tuple(_unrecorded(folder, manifest)),
                        journal=tuple(journal_problems(folder, manifest)))


# ----- a results folder being written ------------------------------------------------------------------------
class ResultsDir:
    """DIR/: one Parquet dataset per table, manifest.json and run.log; see the module docstring."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / RUN_MANIFEST
        self.log_path = self.path / "run.log"

    def table_dir(self, table: str) -> Path:
        return self.path / table

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Refuse a second run into the same folder while this one is going.

        A POSIX record lock (``lockf``): the kernel drops it when its process dies, and forked workers
        do not inherit it, so a killed run never leaves the folder locked. The lock file names the
        owner's pid, so a run that finds a dead owner's name says it takes over.
        """
        if self.path.exists() and not self.path.is_dir():
            raise ResultsError(f"{self.path} is a file, not a results folder; give --out a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        key = self.path.resolve()
        if key in _HELD:  # record locks are per process: a second lock here would succeed (and closing it unlock)
            raise ResultsError(f"another run (pid {os.getpid()}) is writing to {self.path}; wait for it or use "
                               f"another --out")
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        _HELD.add(key)
        try:
            try:
                import fcntl

                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except ImportError:  # not POSIX: no lock
                pass
            except OSError:
                owner = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
                raise ResultsError(f"another run (pid {owner}) is writing to {self.path}; wait for it or use "
                                   f"another --out") from None
            previous = os.pread(fd, 64, 0).decode(errors="replace").strip()
            if previous.isdigit() and int(previous) != os.getpid() and not _alive(int(previous)):
                import logging

                logging.getLogger("treasure_sim").warning(
                    "%s: the run that last wrote here (pid %s) is no longer running; taking over its lock",
                    self.path, previous)
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            try:
                yield
            finally:
                os.ftruncate(fd, 0)  # ended (well or not): no owner to report
        finally:
            _HELD.discard(key)
            os.close(fd)

    def prepare(self, fingerprint: str, config: dict[str, Any], deals: int, *, overwrite: bool,
                on_damage: Callable[[str], None] | None = None, legacy_fingerprint: str | None = None
                ) -> tuple[Manifest | None, list[tuple[int, int]]]:
        """Check the folder holds this config's results (or none), repair it, and return (manifest, pending).

        Damaged parts (missing, truncated, changed) and unrecorded part files are removed, and their deals
        come back as pending, so the run replays exactly them; ``on_damage`` is told about each.
        ``legacy_fingerprint``: the config's fingerprint as versions that did not hash the bots' code made it;
        a folder they wrote is continued (it cannot say whether the code changed), and told.
        """
        old = read_manifest(self.path)
        if old is not None and old.kind != "run":
            raise ResultsError(f"{self.path} holds a sweep, not a single run's results; use another --out")
        if overwrite:
            self.clear()
            old = None
        elif old is not None and old.fingerprint != fingerprint and legacy_fingerprint is not None \
                and old.fingerprint == legacy_fingerprint and "code" not in old.config:
            (on_damage or (lambda _: None))(
                "written by a version that did not record the bots' code: it cannot tell whether a bot changed "
                "since; continuing, and recording the code from now on")
        elif old is not None and old.fingerprint != fingerprint:
            raise ResultsError(
                f"{self.path} holds results of a different config (differs in: "
                f"{', '.join(config_differences(old.config, config)) or 'format'}); "
                f"use --overwrite to replace them or --out to write elsewhere")
        elif old is None and any(_PART.match(f) for t in TABLES if (self.path / t).is_dir()
                                 for f in os.listdir(self.path / t)):
            raise ResultsError(f"{self.path} holds result parts but no {RUN_MANIFEST}; "
                               f"use --overwrite to replace them or --out to write elsewhere")
        if old is not None:
            old = self._repair(old, on_damage or (lambda _: None))
        done = [(p.first_deal, p.end_deal) for p in (old.parts or ())] if old else []
        if done and done[-1][1] > deals:
            raise ResultsError(f"{self.path} already holds deals up to {done[-1][1]}, more than the {deals} "
                               f"asked; ask for at least that many deals, or use --overwrite or another --out")
        for t in TABLES:
            self.table_dir(t).mkdir(parents=True, exist_ok=True)
        return old, _gaps(done, deals)

    def _repair(self, manifest: Manifest, tell: Callable[[str], None]) -> Manifest:
        """Drop temp files, unrecorded parts and damaged parts; adopt the parts of a format-1 folder."""
        for t in TABLES:
            folder = self.table_dir(t)
            if folder.is_dir():
                for f in os.listdir(folder):
                    if f.startswith("."):
                        (folder / f).unlink(missing_ok=True)
        if manifest.parts is None:  # format 1: a part is whole once its games file is in place
            manifest = self._adopt(manifest)
        journal, canonical = self.path / PARTS_JOURNAL, "".join(map(_journal_line, manifest.parts or ()))
        rewritten = False
        if journal.exists() and journal.read_bytes() != canonical.encode():
            self._rewrite_journal(manifest.parts or ())  # drop a torn last line before appending to it
            rewritten = True
        for problem in manifest.journal_damage:
            tell(f"{problem}: the deals of the parts it does not record are replayed")
        check = verify(self.path)
        for name in check.unrecorded:
            tell(f"{name} was written but never recorded (a crash mid-write): replaying its deals")
            (self.path / name).unlink(missing_ok=True)
        bad = {p for p, _ in check.damaged}
        for part, why in check.damaged:
            tell(f"{why}: replaying deals {part.first_deal}-{part.end_deal - 1}")
        for part in bad:
            for t in TABLES:
                (self.table_dir(t) / part.name).unlink(missing_ok=True)
        if bad:
            rotations = manifest.rotations
            lost = sum(p.end_deal - p.first_deal for p in bad) * rotations
            manifest = manifest.replace(parts=tuple(p for p in manifest.parts or () if p not in bad),
                                        games_done=manifest.games_done - lost)
            self._rewrite_journal(manifest.parts or ())
        if bad or rewritten or manifest.journal_damage or manifest.parts_recorded != len(manifest.parts or ()):
            manifest = manifest.replace(journal_damage=(), parts_recorded=len(manifest.parts or ()))
            write_manifest(self.path, manifest)  # the manifest counts what the journal now holds
        return manifest

    def add_part(self, first_deal: int, end_deal: int, tables: dict[str, pa.Table]) -> Part:
        """Write a part's files and then its journal line. Interrupted before the line is written (Ctrl-C,
        SIGTERM, a full disk), it removes the files it wrote, so an interrupted run leaves no unrecorded part
        behind (only a killed one can, and the next run replays it)."""
        recorded, part = False, None
        try:
            part = self.write_part(first_deal, end_deal, tables)
            self.record_part(part)
            recorded = True
            return part
        finally:
            if not recorded and not (part is not None and self._journal_ends_with(_journal_line(part))):
                name = part_name(first_deal, end_deal)
                for t in TABLES:
                    for f in (self.table_dir(t) / name, self.table_dir(t) / f".{name}.tmp"):
                        f.unlink(missing_ok=True)

    def _journal_ends_with(self, line: str) -> bool:
        data = line.encode()
        try:
            with open(self.path / PARTS_JOURNAL, "rb") as fh:
                size = fh.seek(0, os.SEEK_END)
                fh.seek(max(0, size - len(data)))
                return fh.read() == data
        except OSError:
            return False

    def record_part(self, part: Part) -> None:
        """Append ``part`` to the journal, on disk before this returns."""
        with open(self.path / PARTS_JOURNAL, "a", encoding="utf-8") as fh:
            fh.write(_journal_line(part))
            fh.flush()
            os.fsync(fh.fileno())

    def _rewrite_journal(self, parts: Sequence[Part]) -> None:
        atomic_write(self.path / PARTS_JOURNAL, "".join(_journal_line(p) for p in parts).encode())

    def _adopt(self, manifest: Manifest) -> Manifest:
        """Record checksums of a format-1 folder's complete parts (hands without games are dropped)."""
        parts = []
        games = self.table_dir("games")
        names = sorted(f for f in os.listdir(games) if _PART.match(f)) if games.is_dir() else []
        for name in names:
            m = _PART.match(name)
            assert m is not None
            files = []
            for t in TABLES:
                path = self.table_dir(t) / name
                if path.exists():
                    files.append(PartFile(t, pq.ParquetFile(path).metadata.num_rows, path.stat().st_size,
                                          _sha256(path)))
            parts.append(Part(int(m[1]), int(m[2]), tuple(files)))
        manifest = manifest.replace(parts=tuple(parts), format=FORMAT_VERSION)
        self._rewrite_journal(parts)
        write_manifest(self.path, manifest)
        return manifest

    def clear(self) -> None:
        """Remove the files this tool writes, and only them (DIR and its table folders may hold the user's
        files): part files and their temporary files, hand histories, bots' stderr logs, the manifest, the journal
        and the caches, the report's pages (`clear_report`); a folder is removed only when that leaves it empty.
        ``run.log`` stays (a run appends to it)."""
        for sub, pattern in [*((t, _PART) for t in TABLES), (HISTORIES_DIR, _HISTORY), (STDERR_DIR, _STDERR)]:
            folder = self.table_dir(sub)
            if not folder.is_dir():
                continue
            for f in os.listdir(folder):
                if pattern.match(f) or (f.startswith(".") and f.endswith(".tmp") and pattern.match(f[1:-4])):
                    (folder / f).unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty
        for name in (RUN_MANIFEST, PARTS_JOURNAL, *DERIVED_FILES):
            for path in (self.path / name, self.path / f".{name}.tmp"):
                path.unlink(missing_ok=True)
        clear_report(self.path / REPORT_DIR)

    def write_part(self, first_deal: int, end_deal: int, tables: dict[str, pa.Table]) -> Part:
        """Write one part (every table), each file atomically; returns what the manifest must record."""
        name = part_name(first_deal, end_deal)
        files = []
        for t in TABLES:
            if t not in tables:
                continue
            self.table_dir(t).mkdir(parents=True, exist_ok=True)
            data = _parquet_bytes(tables[t])
            atomic_write(self.table_dir(t) / name, data)
            files.append(PartFile(t, tables[t].num_rows, len(data), hashlib.sha256(data).hexdigest()))
        return Part(first_deal, end_deal, tuple(files))


def clear_report(folder: Path) -> None:
    """The old results' pages in ``folder``: each page (`REPORT_PAGES`) and every file it links to inside the
    folder, and replay pages; the user's own files stay, and a folder goes only when that leaves it empty."""
    pages = [folder / name for name in REPORT_PAGES]
    linked = [folder / link for page in pages if page.is_file()
              for link in _LINK.findall(page.read_text(encoding="utf-8", errors="replace"))]
    replays = folder / "replays"
    shown = [replays / f for f in os.listdir(replays) if _REPLAY_PAGE.match(f)] if replays.is_dir() else []
    for path in [*linked, *shown, *pages]:
        with contextlib.suppress(OSError):
            if path.resolve().is_relative_to(folder.resolve()) and path.is_file():
                path.unlink()
    for empty in (replays, folder):
        with contextlib.suppress(OSError):
            empty.rmdir()


_HELD: set[Path] = set()  # folders this process holds the lock of


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _gaps(done: list[tuple[int, int]], deals: int) -> list[tuple[int, int]]:
    """The deal ranges in [0, deals) that no part covers."""
    gaps, at = [], 0
    for start, end in sorted(done):
        if start > at:
            gaps.append((at, min(start, deals)))
        at = max(at, end)
    if at < deals:
        gaps.append((at, deals))
    return [(a, b) for a, b in gaps if a < b]


def config_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The config keys (``rules.<field>`` for rules) whose values differ."""
    keys = [k for k in sorted(set(old) | set(new)) if k not in ("deals", "rules", "code") and old.get(k) != new.get(k)]
    old_rules, new_rules = old.get("rules", {}), new.get("rules", {})
    keys += [f"rules.{k}" for k in sorted(set(old_rules) | set(new_rules)) if old_rules.get(k) != new_rules.get(k)]
    old_code, new_code = old.get("code") or {}, new.get("code") or {}
    for label in sorted(set(old_code) & set(new_code)):  # an entrant added or removed: "entrants" says so
        before, after = old_code[label], new_code[label]
        if isinstance(before, dict) and isinstance(after, dict) and before.get("sha256") != after.get("sha256"):
            files = ", ".join(map(str, after.get("files") or before.get("files") or [])) or "its source"
            keys.append(f"the code of entrant {label!r} ({files})")
    return keys


# ----- readers -----------------------------------------------------------------------------------------------
def iter_parts(path: str | Path, table: str, columns: Sequence[str] | None = None, *,
               allow_damaged: bool = False) -> Iterator[pa.Table]:
    """Each recorded part of ``table`` in deal order, verified against its checksum as it is read.

    A damaged part raises `DamagedResults` naming it, unless ``allow_damaged`` (then it is skipped: say so).
    """
    path = Path(path)
    manifest = read_manifest(path)
    if manifest is None or manifest.kind != "run":
        raise ResultsError(f"{path} is not a results folder: {path / RUN_MANIFEST} is missing")
    if table not in SCHEMAS:
        raise ValueError(f"table must be one of {', '.join(TABLES)}, got {table!r}")
    cols = list(columns) if columns is not None else None
    if manifest.parts is None:  # format 1: read what is there, unverified
        folder = path / table
        for name in sorted(f for f in os.listdir(folder) if _PART.match(f)) if folder.is_dir() else []:
            yield pq.ParquetFile(folder / name).read(columns=cols, use_threads=False)
        return
    problems = journal_problems(path, manifest)
    if problems and not allow_damaged:
        raise DamagedResults(path, problems)
    for part in manifest.parts:
        if part.file(table) is None:  # written by a version without this table
            continue
        try:
            yield read_part(path, part, table, cols)
        except DamagedResults:
            if not allow_damaged:
                raise


def read_part(path: str | Path, part: Part, table: str, columns: Sequence[str] | None = None) -> pa.Table:
    """One part's file of ``table``, verified against its checksum as it is read (`DamagedResults` names it)."""
    path = Path(path)
    recorded = part.file(table)
    try:
        data = (path / table / part.name).read_bytes()
    except FileNotFoundError:
        data = None
    if recorded is None or data is None or len(data) != recorded.size or \
            hashlib.sha256(data).hexdigest() != recorded.sha256:
        raise DamagedResults(path, [_damage(path, part, table) or f"{table}/{part.name} changed while read"])
    return pq.ParquetFile(pa.BufferReader(data)).read(columns=list(columns) if columns is not None else None,
                                                      use_threads=False)


def read_table(path: str | Path, table: str, columns: Sequence[str] | None = None, *,
               allow_damaged: bool = False) -> pa.Table:
    """A whole table of a results folder, every part verified (see `iter_parts`)."""
    parts = list(iter_parts(path, table, columns, allow_damaged=allow_damaged))
    schema = SCHEMAS[table]
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    return pa.concat_tables(parts) if parts else schema.empty_table()


def read_games(path: str | Path, columns: Sequence[str] | None = None, **kwargs: Any) -> pa.Table:
    """The games table of a results folder, verified."""
    return read_table(path, "games", columns, **kwargs)


def read_hands(path: str | Path, columns: Sequence[str] | None = None, **kwargs: Any) -> pa.Table:
    """The hands table of a results folder, verified."""
    return read_table(path, "hands", columns, **kwargs)


def read_seats(path: str | Path, columns: Sequence[str] | None = None, **kwargs: Any) -> pa.Table:
    """The seats table (one row per seat dealt into a hand) of a results folder, verified."""
    return read_table(path, "seats", columns, **kwargs)
