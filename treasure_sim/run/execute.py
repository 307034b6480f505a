"""Executing an experiment or a sweep into a results folder: plan the pending deals, run the tasks on a
backend, write each part as it arrives and record it in the manifest, resume and repair.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from tqdm import tqdm

from .backends import DaskBackend, ProcessBackend, deals_per_task, default_workers, make_backend, run_logging
from .experiment import ConfigError, Experiment
from .histories import write_histories
from .store import (
    REPORT_DIR,
    STDERR_DIR,
    Invocation,
    Manifest,
    ResultsDir,
    ResultsError,
    VariantEntry,
    clear_report,
    config_differences,
    is_sweep_dir,
    now,
    read_manifest,
    write_manifest,
)
from .sweep import Sweep
from .tournament import TaskResult, plan_tasks

log = logging.getLogger("treasure_sim")


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While a run goes on, SIGTERM (``kill``, a batch scheduler) stops it as Ctrl-C does: the parts written
    stay, the workers are stopped, the manifest says "interrupted", and a rerun continues."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


WORKERS_PER_CORE = 8  # beyond this, more workers only add memory and switching: refused
WORKER_MB = 100  # memory a worker needs, about (a forked worker playing games; isolated bots add their own)


def _available_mb() -> int | None:
    """Memory this machine can still give, in MB (MemAvailable), or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (AttributeError, ValueError, OSError):
        return None


def max_workers() -> tuple[int, str]:
    """The most local workers this machine runs, and why: ``WORKERS_PER_CORE`` per core, and ``WORKER_MB`` each of
    the memory available."""
    cores = default_workers()
    limit, why = WORKERS_PER_CORE * cores, f"{WORKERS_PER_CORE} per core on {cores} core{'s' * (cores != 1)}"
    memory = _available_mb()
    if memory is not None and memory // WORKER_MB < limit:
        limit, why = max(1, memory // WORKER_MB), f"about {WORKER_MB} MB each of the {memory:,} MB available"
    return limit, why


def check_workers(workers: int | None, executor: str = "process", scheduler: str | None = None) -> None:
    """Refuse, in one line and before anything starts, more local workers than the machine can run (100,000
    workers started at once ran a machine out of memory). An existing dask scheduler brings its own workers."""
    if workers is None or (executor == "dask" and scheduler):
        return
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be a whole number >= 1, got {workers!r}")
    limit, why = max_workers()
    if workers > limit:
        raise ConfigError(f"--workers {workers} is more than this machine can run: at most {limit} here ({why}); "
                          f"one per core ({default_workers()}) is fastest")


def _version() -> str:
    from .. import __version__

    return __version__


def _python() -> str:
    return sys.version.split()[0]


class Progress:
    """How far a run is: a bar on a terminal; without one (a CI log, nohup, a notebook) a line every
    ``every`` seconds on stderr with games done, rate and time left; the same lines always go to run.log.

    ``show``: None decides by whether stderr is a terminal; False shows nothing (run.log still gets lines).
    """

    def __init__(self, name: str, total: int, done: int, show: bool | None, every: float = 10.0) -> None:
        self.name, self.total, self.done, self.every = name, total, done, every
        self.stage = ""  # a sweep's bar, shared by its variants: which one is playing
        terminal = sys.stderr.isatty()
        self.bar = tqdm(total=total, initial=done, unit="game", desc=name, file=sys.stderr, dynamic_ncols=True,
                        smoothing=0.05, disable=not (terminal if show is None else show and terminal))
        self.lines = show is not False and not terminal
        self.start = self.last = time.perf_counter()
        self.first = done

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.bar.close()

    def update(self, games: int) -> None:
        self.done += games
        self.bar.update(games)
        now_ = time.perf_counter()
        if now_ - self.last >= self.every:
            self.last = now_
            line = self.line(now_)
            log.info(line)
            if self.lines:
                print(f"treasure-sim: {line}", file=sys.stderr, flush=True)

    def at_stage(self, stage: str) -> None:
        """Name the part now playing (``arm 3 of 28: power.equity.clubs``) on one bar over all the parts."""
        self.stage = stage
        self.bar.set_description(f"{self.name} ({stage})" if stage else self.name)

    def line(self, at: float) -> str:
        rate = (self.done - self.first) / max(at - self.start, 1e-9)
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        stage = f" (now {self.stage})" if self.stage else ""
        return (f"{self.name}: {self.done:,} of {self.total:,} games ({self.done / max(self.total, 1):.0%}), "
                f"{rate:,.1f} games/s, about {_duration(left)} left{stage}")


def _duration(seconds: float) -> str:
    if seconds == float("inf"):
        return "? s"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


@dataclass(frozen=True, slots=True)
class RunReport:
    """How a run ended: ``status`` is complete, interrupted or failed; the data on disk is valid in each."""

    out: Path
    status: str
    games_total: int
    games_done: int
    games_run: int  # played by this invocation (the rest were already on disk)
    seconds: float
    workers: int
    executor: str
    bot_errors: int


def run_experiment(exp: Experiment, out: str | Path, *, workers: int | None = None, executor: str = "process",
                   scheduler: str | None = None, overwrite: bool = False, progress: bool | Progress | None = None,
                   strict: bool = False, on_part: Callable[[TaskResult], None] | None = None,
                   histories: int = 0) -> RunReport:
    """Play every game of ``exp`` not yet in ``out``, writing parts as tasks finish.

    ``histories``: the games with game_id below it also go to ``out/histories/`` as PHH (`histories.py`).
    ``progress``: None shows the bar only on a terminal; a `Progress` is a bar shared with other runs (a sweep's
    variants, a tuning round's candidates), which this run advances. ``strict``: stop at a bot's first error with a
    `BotFailure` naming it (parts already written stay). ``on_part`` is called after each part is written
    (a test hook: raising KeyboardInterrupt there is a Ctrl-C at that moment).
    """
    check_workers(workers, executor, scheduler)
    workers = workers or default_workers()
    if executor == "process" and workers > 2 * default_workers():
        log.warning("%d workers on %d cores: each game takes longer and memory grows; one per core is fastest",
                    workers, default_workers())
    backend = make_backend(executor, workers, scheduler)
    results = ResultsDir(out)
    with sigterm_as_interrupt(), results.locked():
        old, pending = results.prepare(exp.fingerprint(), exp.record(), exp.deals, overwrite=overwrite,
                                       on_damage=lambda what: log.warning("%s: %s", results.path, what),
                                       legacy_fingerprint=exp.fingerprint(code=False))
        if old and old.package_version != _version():
            log.warning("%s was started by treasure-sim %s; continuing it with %s",
                        results.path, old.package_version, _version())
        manifest = _run_manifest(exp, old)
        with run_logging(results.log_path, multiprocess=executor == "process"), backend:
            report = _run(exp, results, manifest, pending, backend, progress, on_part, strict, histories)
    pa.default_memory_pool().release_unused()  # what writing the parts left in Arrow's pool: ~14 MB of the parent
    return report


def _run_manifest(exp: Experiment, old: Manifest | None) -> Manifest:
    """The manifest of a run starting now; a resumed run keeps its parts, first start time and history."""
    return Manifest(
        kind="run", name=exp.name, fingerprint=exp.fingerprint(), config=exp.record(), deals=exp.deals,
        games=exp.games, package_version=_version(), python=_python(), source=exp.source,
        started=old.started if old else now(), updated=now(), status="running",
        games_done=old.games_done if old else 0, runs=old.runs if old else (), parts=old.parts if old else ())


def _run(exp: Experiment, results: ResultsDir, manifest: Manifest, pending: list[tuple[int, int]],
         backend: ProcessBackend | DaskBackend, progress: bool | Progress | None,
         on_part: Callable[[TaskResult], None] | None, strict: bool, histories: int = 0) -> RunReport:
    pending_deals = sum(b - a for a, b in pending)
    size = deals_per_task(pending_deals, exp.rotations, backend.workers)
    tasks = plan_tasks(exp, pending, size, strict=strict, histories=histories,
                       stderr_dir=str(results.path / STDERR_DIR))
    n_tasks = sum(-(-(b - a) // size) for a, b in pending)
    start_done = manifest.games_done
    run = Invocation(started=now(), executor=backend.name, workers=backend.workers)
    manifest = manifest.replace(runs=(*manifest.runs, run))
    write_manifest(results.path, manifest)
    log.info("%s: %d of %d games to play in %d task(s) on %d %s worker(s) -> %s", exp.name,
             exp.games - start_done, exp.games, n_tasks, backend.workers, backend.name, results.path)
    start = time.perf_counter()
    status, errors = "failed", 0
    try:
        own: contextlib.AbstractContextManager[Progress] = contextlib.nullcontext(progress) \
            if isinstance(progress, Progress) else Progress(exp.name, exp.games, start_done, progress)
        with own as bar, contextlib.closing(backend.run(tasks)) as stream:
            for result in stream:
                write_histories(results.path, result.histories)  # before the part: a recorded part has its files
                part = results.add_part(result.first_deal, result.end_deal, result.tables)
                errors += result.bot_errors
                manifest = manifest.with_part(part, result.n_games)
                run = dataclasses.replace(run, games_run=manifest.games_done - start_done)
                manifest = manifest.with_invocation(run)
                write_manifest(results.path, manifest)
                bar.update(result.n_games)
                if on_part is not None:
                    on_part(result)
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        seconds = time.perf_counter() - start
        finished = now()
        manifest = manifest.with_invocation(dataclasses.replace(run, finished=finished,
                                                                games_run=manifest.games_done - start_done))
        manifest = manifest.replace(status=status, finished=finished if status == "complete" else None)
        write_manifest(results.path, manifest)
        log.info("%s: %s; %d of %d games on disk; this run played %d in %.1f s", exp.name, status,
                 manifest.games_done, exp.games, manifest.games_done - start_done, seconds)
    return RunReport(results.path, status, exp.games, manifest.games_done, manifest.games_done - start_done, seconds,
                     backend.workers, backend.name, errors)


# ----- sweeps ----------------------------------------------------------------------------------------------
def _games_on_disk(folder: Path, games: int) -> int:
    """Games a variant's folder already holds (at most ``games``), for the sweep's progress bar."""
    manifest = read_manifest(folder) if (folder / "manifest.json").exists() else None
    return min(manifest.games_done, games) if manifest is not None else 0


@dataclass(frozen=True, slots=True)
class SweepReport:
    """How a sweep ended, with each variant's run report (variants never started are absent)."""

    out: Path
    status: str
    runs: tuple[tuple[str, RunReport], ...]
    seconds: float


def _sweep_changes(old: Manifest, sweep: Sweep) -> str:
    """What differs between the sweep on disk and this one, in words."""
    old_fp = {v.name: v.fingerprint for v in old.variants}
    new_fp = {v.name: sweep.experiment(v).fingerprint() for v in sweep.variants}
    parts = [f"{what}: {', '.join(names)}" for what, names in (
        ("variants removed", [n for n in old_fp if n not in new_fp]),
        ("variants added", [n for n in new_fp if n not in old_fp]),
        ("variants changed", [n for n in new_fp if n in old_fp and old_fp[n] != new_fp[n]])) if names]
    base, new_base = old.config, sweep.base.record()
    keys = [k for k in ("name", "seed", "table_size", "rotate", "entrants", "rules") if base.get(k) != new_base[k]]
    keys += [d for d in config_differences(base, new_base) if d.startswith("the code of")]
    if keys:
        parts.insert(0, f"base {', '.join(keys)}")
    if old.baseline != sweep.baseline:
        parts.append(f"baseline {old.baseline!r} -> {sweep.baseline!r}")
    return "; ".join(parts) or "format"


def _sweep_manifest(sweep: Sweep, old: Manifest | None) -> Manifest:
    """The sweep manifest: what each variant changes and where its results are; resumes keep the history."""
    before = {v.name: v for v in old.variants} if old else {}
    variants = []
    same = sweep.same_games()
    for v in sweep.variants:
        e = sweep.experiment(v)
        prior = before.get(v.name)
        variants.append(VariantEntry(v.name, same.get(v.name, v.name), v.changes(), e.name, e.fingerprint(), e.games,
                                     prior.status if prior else "pending", prior.games_done if prior else 0))
    return Manifest(
        kind="sweep", name=sweep.name, fingerprint=sweep.fingerprint(), config=sweep.base.record(),
        deals=sweep.base.deals, games=sum(v.games for v in variants), package_version=_version(), python=_python(),
        source=sweep.base.source, started=old.started if old else now(), updated=now(),
        runs=old.runs if old else (), baseline=sweep.baseline, variants=tuple(variants))


def run_sweep(sweep: Sweep, out: str | Path, *, workers: int | None = None, executor: str = "process",
              scheduler: str | None = None, overwrite: bool = False, progress: bool | None = None,
              strict: bool = False) -> SweepReport:
    """Run every variant into ``out/<variant>/`` with `run_experiment` (which resumes and repairs each one).

    A variant whose games are the first deals of an earlier variant's (`Sweep.same_games`: a balance study's
    ladder rung that is the base itself) is not played again: its manifest entry points to that folder. One
    progress bar (and ETA) runs over every variant's games. A folder holding another sweep is refused unless
    ``overwrite``; then the old variants' results are removed too, so the folder holds this sweep alone.
    """
    check_workers(workers, executor, scheduler)
    out = Path(out)
    folder = ResultsDir(out)  # for its lock: one sweep at a time writes sweep.json
    with sigterm_as_interrupt(), folder.locked():
        old = read_manifest(out) if is_sweep_dir(out) else None
        if folder.manifest_path.exists():
            raise ResultsError(f"{out} holds the results of a single run, not a sweep; use another --out")
        if old is not None and overwrite:
            for v in old.variants:
                ResultsDir(out / v.dir).clear()
            clear_report(out / REPORT_DIR)
            old = None
        elif old is not None and old.fingerprint != sweep.fingerprint() and not (
                old.fingerprint == sweep.fingerprint(code=False) and "code" not in old.config):
            raise ResultsError(f"{out} holds a different sweep ({_sweep_changes(old, sweep)}); use --overwrite to "
                               f"replace it or --out to write elsewhere")
        manifest = _sweep_manifest(sweep, old)
        run = Invocation(started=now(), executor=executor, workers=workers or default_workers())
        manifest = manifest.replace(runs=(*manifest.runs, run))
        write_manifest(out, manifest)

        def set_variant(name: str, **changes: Any) -> None:
            nonlocal manifest
            manifest = manifest.replace(variants=tuple(dataclasses.replace(v, **changes) if v.name == name else v
                                                       for v in manifest.variants), updated=now())
            write_manifest(out, manifest)

        start, status, runs = time.perf_counter(), "failed", []
        same = sweep.same_games()
        played = [v for v in sweep.variants if v.name not in same]
        total = sum(sweep.experiment(v).games for v in played)
        done = 0 if overwrite else sum(_games_on_disk(out / v.name, sweep.experiment(v).games) for v in played)
        try:
            with Progress(sweep.name, total, done, progress) as bar:
                reports: dict[str, RunReport] = {}
                for variant in sweep.variants:
                    games = sweep.experiment(variant).games
                    if variant.name in same:  # its games are already on disk, in the earlier variant's folder
                        report = reports[same[variant.name]]
                        report = dataclasses.replace(report, games_total=games,
                                                     games_done=min(games, report.games_done), games_run=0)
                    else:
                        set_variant(variant.name, status="running")
                        bar.at_stage(f"{played.index(variant) + 1} of {len(played)}: {variant.name}")
                        report = run_experiment(sweep.experiment(variant), out / variant.name, workers=workers,
                                                executor=executor, scheduler=scheduler, overwrite=overwrite,
                                                progress=bar, strict=strict)
                    reports[variant.name] = report
                    runs.append((variant.name, report))
                    set_variant(variant.name, status=report.status, games_done=report.games_done)
            status = "complete"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            for entry in manifest.variants:
                if entry.status == "running":  # stopped inside this variant: count what reached the disk
                    on_disk = read_manifest(out / entry.dir)
                    set_variant(entry.name, status=status, games_done=on_disk.games_done if on_disk else 0)
            finished = now()
            manifest = manifest.with_invocation(dataclasses.replace(run, finished=finished))
            manifest = manifest.replace(status=status, finished=finished if status == "complete" else None)
            write_manifest(out, manifest)
    return SweepReport(out, status, tuple(runs), time.perf_counter() - start)
