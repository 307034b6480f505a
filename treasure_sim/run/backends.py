"""Where tasks run: a local process pool or a dask cluster, and the run's logging; the parent only writes.

The parent plans tasks, keeps a few in flight per worker, writes each result as a Parquet part the
moment it arrives, and updates the manifest; the workers only play games. A worker that dies (out of
memory, killed) costs the tasks it had in flight, which are run again.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import itertools
import logging
import multiprocessing
import os
import signal
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pyarrow as pa
from tqdm import tqdm

from ..bots.processes import exit_with_parent
from .tournament import Task, TaskResult, run_task

log = logging.getLogger("treasure_sim")
EXECUTORS = ("process", "dask")
MAX_ATTEMPTS = 3  # a task whose worker died this often is not the victim but the cause
TASKS_PER_WORKER = 24  # tasks per worker over a run: keeps the tail short and the progress bar moving
MAX_GAMES_PER_TASK = 250  # bounds what one crash loses and what the parent holds at once


class RunError(RuntimeError):
    """The run cannot go on (workers keep dying, the cluster is unreachable); written parts stay valid."""


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def deals_per_task(pending_deals: int, rotations: int, workers: int) -> int:
    """Many games per task (start-up and pickling paid rarely), but enough tasks to keep every worker busy."""
    games = pending_deals * rotations // (workers * TASKS_PER_WORKER)
    return max(1, min(games, MAX_GAMES_PER_TASK) // rotations)


# ----- the process pool ------------------------------------------------------------------------------------
def _fork_context() -> multiprocessing.context.BaseContext:
    """'fork': workers start at once with the parent's imports, and multiprocessing-logging needs it."""
    if multiprocessing.get_start_method() == "fork":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()  # elsewhere: the platform default; worker logs go to their stderr


def _ignore_sigint() -> None:
    """Ctrl-C is the parent's to handle: it stops the workers itself, with no traceback from each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _init_worker(parent: int) -> None:
    _ignore_sigint()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's "SIGTERM = Ctrl-C" is not for workers
    exit_with_parent(parent)
    _tell_pyarrow_no_pandas()  # before the freeze: pyarrow's first conversion, and what it set up, frozen too
    gc.freeze()  # what the worker inherits (modules, classes) is never traversed by a collection again: ~10% a task
    gc.set_threshold(5000, 20, 50)  # a game makes few cycles: a tenth as many collections, ~1/3 less time in them


class _NoPandas:
    """A finder that fails the import of pandas (in place only while `_tell_pyarrow_no_pandas` runs)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas":
            raise ImportError("a worker converts no pandas objects")


def _tell_pyarrow_no_pandas() -> None:
    """pyarrow imports pandas at its first conversion of a list (only to ask whether the list is a pandas object):
    in a worker that is ~0.3 s of CPU and ~40 MB of its peak memory (measured: 135–139 → 91–94 MB) for rows that
    are plain lists. Its first conversion here runs with pandas' import failing, so pyarrow notes "no pandas" and
    never imports it for a conversion. ``to_pandas`` and
    ``from_pandas`` still import it when called (and pyarrow then uses it again); until one of them is, a pandas
    object given to ``pa.array`` in this worker would be read as a plain sequence (nothing here gives it one)."""
    if "pandas" in sys.modules:
        pa.array([0])
        return
    sys.meta_path.insert(0, _NoPandas)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(_NoPandas)


class ProcessBackend:
    """A local ``ProcessPoolExecutor``; a broken pool (a worker died) is rebuilt and its lost tasks rerun."""

    name = "process"

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def __enter__(self) -> ProcessBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=_fork_context(), initializer=_init_worker,
                                   initargs=(os.getpid(),))

    def run(self, tasks: Iterable[Task]) -> Generator[TaskResult, None, None]:
        """Run ``tasks`` (drawn lazily: a run of 10**12 deals plans as it goes) and yield their results."""
        source = iter(tasks)
        pending: deque[Task] = deque()  # tasks drawn from the source but not yet submitted (or to rerun)
        attempts: Counter[int] = Counter()
        in_flight: dict[Future, Task] = {}
        pool = self._pool()
        finished = False
        try:
            while True:
                while len(in_flight) < 2 * self.workers:
                    task = pending.popleft() if pending else next(source, None)
                    if task is None:
                        break
                    try:
                        in_flight[pool.submit(run_task, task)] = task
                    except BrokenProcessPool:  # a worker died before this submit; the futures below say whose
                        pending.appendleft(task)
                        break
                if not in_flight and not pending:
                    break
                if not in_flight:  # broken with nothing in flight: nothing was lost, start a fresh pool
                    pool.shutdown(wait=True, cancel_futures=True)
                    pool = self._pool()
                    continue
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
                    done, _ = wait(in_flight)  # a broken pool fails every future at once
                lost = []
                for fut in sorted(done, key=lambda f: in_flight[f].first_deal):  # errors in deal order
                    task = in_flight.pop(fut)
                    if isinstance(fut.exception(), BrokenProcessPool):
                        lost.append(task)
                    else:
                        yield fut.result()
                if lost:
                    pool.shutdown(wait=True, cancel_futures=True)
                    for task in lost:
                        attempts[task.first_deal] += 1
                        if attempts[task.first_deal] >= MAX_ATTEMPTS:
                            raise RunError(f"worker processes died {MAX_ATTEMPTS} times while playing deals "
                                           f"{task.first_deal}-{task.end_deal - 1} (out of memory? a bot that "
                                           f"crashes the interpreter?); see run.log")
                    log.warning("a worker process died (out of memory or killed?); restarting the pool and "
                                "rerunning the %d task(s) it had in flight", len(lost))
                    pending.extendleft(reversed(lost))
                    pool = self._pool()
            pool.shutdown(wait=True)  # let idle workers exit and flush their log records
            finished = True
        finally:
            if not finished:
                _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop at once: tasks still running are lost anyway (the parent writes only whole tasks).

    A worker stopped while it wrote a result leaves part of it in the pool's result pipe, and the pool's thread
    reading that pipe waited for the rest for ever: the parent holds the pipe's write end too, so the read never
    ended (4 of 31 runs stopped by SIGTERM with both cores busy hung so). With the parent's end closed, the read
    ends once the stopped workers are gone, the pool counts as broken, and the shutdown below returns."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):  # no public terminate before 3.14
        if proc.is_alive():
            proc.terminate()
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)  # nothing writes results from here
    if writer is not None:
        writer.close()
    pool.shutdown(wait=True, cancel_futures=True)


# ----- dask ------------------------------------------------------------------------------------------------
async def _ignore_sigint_on_loop() -> None:
    """Run on a worker's event loop, which is its main thread: the only place a signal handler can be set."""
    _ignore_sigint()


def _run_task_on_dask(task: Task) -> TaskResult:
    """run_task, letting the worker's INFO records through so that they are forwarded to run.log."""
    logging.getLogger("treasure_sim").setLevel(logging.INFO)
    return run_task(task)


class DaskBackend:
    """The same tasks on dask.distributed: a LocalCluster of processes, or the scheduler at ``address``.

    Dask reruns the tasks of a worker that died (up to ``distributed.scheduler.allowed-failures``).
    Workers must be able to import treasure_sim and every strategy the config names.
    """

    name = "dask"

    def __init__(self, workers: int, address: str | None = None) -> None:
        self.workers = workers  # replaced by the cluster's thread count once connected
        self.address = address
        self._client: Any = None
        self._cluster: Any = None

    def __enter__(self) -> DaskBackend:
        from distributed import Client, LocalCluster

        if self.address:
            try:
                self._client = Client(self.address, timeout="10s")
            except OSError as err:
                raise RunError(f"cannot reach the dask scheduler at {self.address}: {err}") from None
        else:
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                         dashboard_address=None)
            self._client = Client(self._cluster)
            self._client.run(_ignore_sigint_on_loop)  # our workers: Ctrl-C is the parent's (no tracebacks)
        self._client.forward_logging("treasure_sim", level=logging.INFO)
        info = self._client.scheduler_info()["workers"].values()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info))
        log.info("dask: %d worker thread(s) at %s", self.workers, self._client.scheduler.address)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def run(self, tasks: Iterable[Task]) -> Generator[TaskResult, None, None]:
        from distributed import as_completed

        client = self._client
        source = iter(tasks)
        stream = as_completed()
        for task in itertools.islice(source, 2 * self.workers):
            stream.add(client.submit(_run_task_on_dask, task, pure=False))
        for fut in stream:
            result = fut.result()
            fut.release()
            following = next(source, None)
            if following is not None:
                stream.add(client.submit(_run_task_on_dask, following, pure=False))
            yield result


def make_backend(executor: str, workers: int, scheduler: str | None = None) -> ProcessBackend | DaskBackend:
    if executor == "process":
        return ProcessBackend(workers)
    if executor == "dask":
        return DaskBackend(workers, scheduler)
    raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")


# ----- logging -------------------------------------------------------------------------------------------
_WAKE = "treasure_sim_wake"
"""A record with this attribute (the pid of the process that closes) says nothing: it stops a `_PromptHandler`'s
reader, which hands it to no handler."""


class _TqdmHandler(logging.StreamHandler):
    """Console warnings printed above the progress bar instead of through it."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:
            self.handleError(record)


def _prompt_handler_class() -> Any:
    """multiprocessing-logging's handler, closed at once. Closing sends a record that says nothing (`_WAKE`, with the
    closing process's pid), and the handler's reader stops when that record comes: every record this process wrote
    before it has been handled, and every record of a worker that ended before it (a run closes its logging only once
    its workers are gone). A wake from another process (a forked worker or game process whose code closed its copy of
    the handler: ``logging.shutdown``, ``logging.config.dictConfig``) is skipped. The library's reader instead stopped
    once the queue's count of records was zero, looking only between records, and waited up to 0.2 s for one: every
    run waited that long at its end, once per handler (run.log's, then the console's; up to 0.4 s of a 7 s run). And
    a worker killed while a record it logged was still in its buffer (Ctrl-C, a crash) left that count above zero for
    good: closing then waited out its 5 s join, once per handler."""
    import multiprocessing_logging

    class _PromptHandler(multiprocessing_logging.MultiProcessingHandler):
        _is_closed: bool

        def _ours(self) -> bool:
            """The library still has what this class relies on (else its own reader and close are used)."""
            return all(hasattr(self, a) for a in ("_is_closed", "_receive_thread", "queue", "sub_handler"))

        def _receive(self) -> None:
            if not self._ours():
                super()._receive()
                return
            queue, handler, pid = self.queue, self.sub_handler, os.getpid()
            while True:
                try:
                    record = queue.get()
                except (EOFError, OSError):  # the queue is gone
                    break
                wake = getattr(record, _WAKE, None)
                if wake == pid:  # closed here: whatever was written before it has been read
                    break
                if wake is None:
                    handler.emit(record)
            queue.close()
            queue.join_thread()

        def close(self) -> None:
            if not self._ours():
                super().close()  # the library changed: its own close, which waits out the reader's poll
                return
            if self._is_closed:
                return
            self._is_closed = True
            self.queue.put_nowait(logging.makeLogRecord({"msg": "", _WAKE: os.getpid()}))
            self._receive_thread.join(5.0)  # it handles the records written before the wake, then stops
            self.sub_handler.close()
            logging.Handler.close(self)

    return _PromptHandler


class _ReleasedOnDeath:
    """A lock between processes that the kernel releases when its holder dies: a POSIX record lock (``lockf``)
    on a file the forked workers inherit. Such locks belong to a process, not a thread; that is enough here, as in
    each process only the queue's one feeder thread takes it.

    The kernel's deadlock check sees processes, not threads: with two queues (run.log's and the console's), a
    process whose one feeder holds its lock while the other waits looks deadlocked with a process doing the same
    the other way round, and the wait fails with EDEADLK (a reviewer's run lost 4,108 of 9,000 warnings from three
    processes that way). No such deadlock is real (a feeder holds its lock only while it writes one record), so
    the wait is simply tried again."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (open as long as the queue lives)

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        import fcntl  # POSIX only: this lock is made only where workers are forked

        while True:
            try:
                fcntl.lockf(self._file, fcntl.LOCK_EX)
                return True
            except OSError as err:
                if err.errno != errno.EDEADLK:
                    raise
                time.sleep(0.0002)

    def release(self) -> None:
        import fcntl

        fcntl.lockf(self._file, fcntl.LOCK_UN)

    def close(self) -> None:
        """Once the queue is closed: else its file is left to the garbage collector, whose ResourceWarning lands in
        whatever module runs then (an engine module's new ``__warningregistry__``, which the integrity watch
        allows)."""
        self._file.close()


def _survive_killed_writers(queue: Any) -> None:
    """Every process writes its log records to one queue under the queue's write lock. A worker killed while it
    held that lock (Ctrl-C's stop, a pool rebuilt after a crash, the out-of-memory killer) left it held for good:
    every later record, and every process's exit (which waits to flush its records), then waited forever (1 run
    in 4 hung after SIGTERM in tests/test_store.py). With a lock the kernel releases at death, nothing waits.
    Left: a kill in the middle of writing a record longer than a pipe writes at once (4 KiB) into a full pipe
    would leave half a record, and the thread reading the queue stops at it. Set before the first record."""
    if getattr(queue, "_wlock", None) is None or getattr(queue, "_thread", None) is not None:
        raise RuntimeError("multiprocessing.Queue changed: its write lock cannot be replaced (run logging)")
    queue._wlock = _ReleasedOnDeath()


@contextlib.contextmanager
def run_logging(path: Path, *, multiprocess: bool) -> Iterator[None]:
    """INFO and up from every process to DIR/run.log; WARNING and up also to the console."""
    import multiprocessing_logging

    logger = logging.getLogger("treasure_sim")
    old_level = logger.level
    to_file = logging.FileHandler(path, encoding="utf-8")
    to_file.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s: %(message)s"))
    to_file.setLevel(logging.INFO)
    console = _TqdmHandler()
    console.setFormatter(logging.Formatter("treasure-sim: %(levelname)s: %(message)s"))
    console.setLevel(logging.WARNING)
    logger.setLevel(logging.INFO)
    logger.addHandler(to_file)
    logger.addHandler(console)
    wrapped = multiprocess and multiprocessing.get_start_method() == "fork"
    if wrapped:  # `multiprocessing_logging.install_mp_handler`, with handlers that close at once
        prompt = _prompt_handler_class()
        for i, plain in enumerate((to_file, console)):
            logger.removeHandler(plain)
            logger.addHandler(prompt(f"mp-handler-{i}", sub_handler=plain))
    ours = list(logger.handlers)
    with contextlib.ExitStack() as cleanup:  # every step runs, last first, whatever one of them raises (Ctrl-C)
        cleanup.callback(logger.setLevel, old_level)
        for plain in (to_file, console):
            cleanup.callback(plain.close)
            cleanup.callback(logger.removeHandler, plain)
        for handler in ours:  # the MultiProcessingHandler wrappers: closing drains their queues
            cleanup.callback(_close_lock, handler)
            cleanup.callback(handler.close)
        if wrapped:
            cleanup.callback(multiprocessing_logging.uninstall_mp_handler, logger)
        for handler in ours:
            if isinstance(handler, multiprocessing_logging.MultiProcessingHandler):
                _survive_killed_writers(handler.queue)
        yield


def _close_lock(handler: logging.Handler) -> None:
    """The queue's lock file, once the handler's reader has stopped (a reader still waiting, after a worker was
    killed mid-record, keeps it: its file is then left to the garbage collector)."""
    lock = getattr(getattr(handler, "queue", None), "_wlock", None)
    reader = getattr(handler, "_receive_thread", None)
    if isinstance(lock, _ReleasedOnDeath) and not (reader is not None and reader.is_alive()):
        lock.close()
