"""Results cannot rot unnoticed: checksummed parts, verified reads, repair by replay, killed runs, stale locks."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.run.store import (
    PARTS_JOURNAL,
    TABLES,
    WALL_CLOCK_COLUMNS,
    DamagedResults,
    ResultsDir,
    ResultsError,
    iter_parts,
    read_games,
    read_hands,
    read_manifest,
    verify,
)

CONFIG = """
name = "store"
seed = 11
deals = 12
table_size = 3
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "random"
params = { draw_chance = 0.2 }
[[entrants]]
strategy = "calling_station"
[rules]
max_hands = 25
"""


def frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both tables in a canonical order, without the wall-clock columns."""
    games = read_games(out).to_pandas().drop(columns=list(WALL_CLOCK_COLUMNS))
    hands = read_hands(out).to_pandas()
    return (games.sort_values(["game_id", "seat"]).reset_index(drop=True),
            hands.sort_values(["game_id", "hand_no"]).reset_index(drop=True))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "out"
    run_experiment(parse_toml(CONFIG), out, workers=1, progress=False)
    return out, frames(out)


@pytest.fixture
def fresh(tmp_path, reference):
    """A complete copy of the reference run, to damage."""
    out = tmp_path / "out"
    run_experiment(parse_toml(CONFIG), out, workers=1, progress=False)
    return out


def a_part(out: Path, table: str, index: int = 1) -> Path:
    return out / table / read_manifest(out).parts[index].name


def test_every_part_is_recorded_with_its_checksum(fresh):
    m = read_manifest(fresh)
    assert m.format == 2 and m.games_done == m.games == 36
    lines = (fresh / PARTS_JOURNAL).read_text().splitlines()
    assert len(lines) == len(m.parts) > 1
    for part in m.parts:
        for f in part.files:
            assert (fresh / f.table / part.name).stat().st_size == f.size and len(f.sha256) == 64
    assert verify(fresh).ok and "ok," in verify(fresh).describe()


def test_part_files_carry_no_statistics_and_a_filtered_read_still_filters(reference):
    """Part files are written without min/max statistics (cheaper to encode; nothing of ours reads them): a reader
    that filters the folder (pandas, through a pyarrow dataset) still gets exactly the rows it asked for."""
    import pyarrow.parquet as pq

    out, (games, _) = reference
    for table in ("games", "hands", "seats", "mixed"):
        meta = pq.ParquetFile(a_part(out, table)).metadata
        assert meta.num_rows > 0
        assert not any(meta.row_group(0).column(i).is_stats_set for i in range(meta.num_columns))
    picked = pd.read_parquet(out / "games", filters=[("deal_id", "in", [1, 2])])
    want = games[games["deal_id"].isin([1, 2])]
    assert len(picked) == len(want) > 0 and sorted(picked["game_id"]) == sorted(want["game_id"])


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete"])
@pytest.mark.parametrize("table", ["games", "hands"])
def test_damage_is_named_by_every_reader_and_repaired_by_replay(fresh, reference, damage, table):
    path = a_part(fresh, table)
    data = path.read_bytes()
    if damage == "flip":
        i = len(data) // 2
        path.write_bytes(data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:])
    elif damage == "truncate":
        path.write_bytes(data[: len(data) // 3])
    else:
        path.unlink()
    words = {"flip": "has changed", "truncate": "is truncated", "delete": "is missing"}[damage]
    with pytest.raises(DamagedResults, match=f"{table}/{path.name} {words}") as err:
        read_games(fresh) if table == "games" else read_hands(fresh)
    assert "replay exactly the affected deals" in str(err.value) and "treasure-sim verify" in str(err.value)
    check = verify(fresh)
    assert not check.ok and check.damaged_games > 0 and "DAMAGED" in check.describe()
    # the study side: analysis refuses too, unless told to leave the part out (and then it has fewer games)
    from treasure_sim.study import analysis

    with pytest.raises(DamagedResults):
        analysis.load(fresh)
    partial = analysis.load(fresh, allow_damaged=True)
    assert partial.games["game_id"].nunique() < 36 or partial.hands["game_id"].nunique() < 36
    # rerunning replays exactly the damaged deals and gives back the very same tables
    part = read_manifest(fresh).parts[1]
    report = run_experiment(parse_toml(CONFIG), fresh, workers=1, progress=False)
    assert report.games_run == (part.end_deal - part.first_deal) * 3
    assert verify(fresh).ok
    games, hands = frames(fresh)
    pd.testing.assert_frame_equal(games, reference[1][0])
    pd.testing.assert_frame_equal(hands, reference[1][1])


def _cut_last_line(lines: list[str]) -> tuple[str, int]:
    return "".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], len(lines) - 1


def _garble(lines: list[str]) -> tuple[str, int]:
    return "".join(lines[:4]) + lines[4][:20] + "#%@" + lines[4][23:] + "".join(lines[5:]), 4


def _remove(lines: list[str]) -> tuple[str, int]:
    return "".join(lines[:6] + lines[7:]), 6


def _interleave_binary(lines: list[str]) -> tuple[str, int]:
    return "".join(lines[:2]) + "\x00\xff garbage\n" + "".join(lines[3:]), 2


JOURNAL_DAMAGE = {  # what is done to parts.jsonl -> (new text, index of the part it no longer records) and the words
    "cut": (_cut_last_line, "line 12 is cut short"),
    "garbled": (_garble, "line 5 is garbled"),
    "line removed": (_remove, "records 11 parts where the manifest records 12"),
    "line replaced": (_interleave_binary, "line 3 is garbled"),
}


@pytest.mark.parametrize("damage", [*JOURNAL_DAMAGE, "deleted"])
def test_journal_damage_is_named_by_verify_and_every_reader_and_replayed_exactly(fresh, reference, damage, capsys):
    """A garbled or cut journal line, a removed line or a deleted journal: `verify` exits 1 naming it, every
    reader refuses the folder, and the rerun replays exactly the deals of the parts the journal lost."""
    from treasure_sim.cli import main
    from treasure_sim.study import analysis

    journal = fresh / PARTS_JOURNAL
    lines = journal.read_text().splitlines(keepends=True)
    parts = read_manifest(fresh).parts
    if damage == "deleted":
        journal.unlink()
        lost, words = list(parts), "parts.jsonl is missing (the manifest records 12 parts)"
    else:
        fn, words = JOURNAL_DAMAGE[damage]
        text, index = fn(lines)
        journal.write_text(text)
        lost = [parts[index]]
    check = verify(fresh)
    assert not check.ok and words in check.describe() and "not recorded in parts.jsonl" in check.describe()
    assert ("lines were removed" in check.describe()) == (damage == "line removed")  # a garbled line is no removed one
    assert main(["verify", str(fresh)]) == 1
    assert "DAMAGED" in capsys.readouterr().out
    for read in (read_games, read_hands, lambda d: analysis.load(d)):
        with pytest.raises(DamagedResults, match="replay exactly the affected deals") as err:
            read(fresh)
        assert "parts.jsonl" in str(err.value)
    report = run_experiment(parse_toml(CONFIG), fresh, workers=1, progress=False)
    assert report.games_run == sum(p.end_deal - p.first_deal for p in lost) * 3
    assert verify(fresh).ok and not verify(fresh).unrecorded
    pd.testing.assert_frame_equal(frames(fresh)[0], reference[1][0])
    pd.testing.assert_frame_equal(frames(fresh)[1], reference[1][1])


def test_a_part_on_disk_but_not_in_the_journal_is_damage_unless_a_live_run_is_writing_it(fresh):
    """Between a part's file and its journal line a live run is mid-write: not damage. With no live run the
    same file is a crash's leftover: named, and replayed."""
    extra = "part-000000012-000000013.parquet"
    for t in TABLES:
        (fresh / t / extra).write_bytes((fresh / t / read_manifest(fresh).parts[0].name).read_bytes())
    check = verify(fresh)
    assert not check.ok and f"{extra} (games, hands, seats, mixed) is on disk but not" in check.describe()
    with pytest.raises(DamagedResults, match=extra):
        read_games(fresh)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (fresh / ".lock").write_text(str(live.pid))
        check = verify(fresh)
        assert check.ok and "a run is writing it" in check.describe()
        assert read_games(fresh).num_rows == 36 * 3
    finally:
        live.kill()
        live.wait()
    assert not verify(fresh).ok  # its writer is gone: a leftover again


def test_an_interrupted_part_leaves_no_unrecorded_file(fresh, monkeypatch):
    """Ctrl-C between a part's files and its journal line removes the files (no damage left by an interrupt)."""
    results = ResultsDir(fresh)
    table = read_games(fresh).slice(0, 3)

    def interrupted(part):
        raise KeyboardInterrupt

    monkeypatch.setattr(results, "record_part", interrupted)
    with pytest.raises(KeyboardInterrupt):
        results.add_part(40, 41, {"games": table})
    assert not (fresh / "games" / "part-000000040-000000041.parquet").exists() and verify(fresh).ok


def test_a_folder_written_before_checksums_is_read_and_adopted(fresh, reference):
    manifest = json.loads((fresh / "manifest.json").read_text())
    manifest["format"] = 1
    (fresh / "manifest.json").write_text(json.dumps(manifest))
    (fresh / PARTS_JOURNAL).unlink()
    check = verify(fresh)
    assert check.unverifiable and "not verified" in check.describe()
    assert sum(t.num_rows for t in iter_parts(fresh, "games")) == 36 * 3
    report = run_experiment(parse_toml(CONFIG), fresh, workers=1, progress=False)
    assert report.games_run == 0 and read_manifest(fresh).format == 2 and verify(fresh).ok


def test_a_manifest_that_is_not_ours_is_a_clean_error(tmp_path):
    (tmp_path / "manifest.json").write_text('{"kind": "run", "deals": "many"}')
    with pytest.raises(ResultsError, match=r"manifest.json is not a treasure-sim manifest \(deals should be int"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{half")
    with pytest.raises(ResultsError, match="not valid JSON"):
        verify(tmp_path)


RUNNER = textwrap.dedent("""
    import sys
    from treasure_sim.run.execute import run_experiment
    from treasure_sim.run.experiment import parse_toml
    run_experiment(parse_toml(sys.stdin.read()), sys.argv[1], workers=2, progress=False)
""")


def _start(out: Path, config: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(out)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    proc.stdin.write(config.encode())
    proc.stdin.close()
    return proc


def _children(pid: int) -> set[int]:
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except FileNotFoundError:
        return set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        return state != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


LONG = CONFIG.replace("deals = 12", "deals = 150").replace("max_hands = 25", "max_hands = 60")


def _wait_for_parts(out: Path, proc: subprocess.Popen, parts: int) -> None:
    """Until the run has recorded ``parts`` parts (or ended)."""
    journal = out / PARTS_JOURNAL
    while proc.poll() is None:
        if journal.exists() and journal.read_text().count("\n") >= parts:
            return
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_run_killed_at_random_points_loses_and_duplicates_nothing(tmp_path):
    out, ref = tmp_path / "killed", tmp_path / "whole"
    run_experiment(parse_toml(LONG), ref, workers=2, progress=False)
    rng = random.Random(5)
    orphans = set()
    for attempt in range(3):
        proc = _start(out, LONG)
        _wait_for_parts(out, proc, 10 * attempt + rng.randint(1, 8))
        time.sleep(rng.uniform(0, 0.05))  # anywhere: mid-task, mid-write, between the part and its journal line
        orphans |= _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait() == -signal.SIGKILL  # killed before it finished
    assert len(orphans) >= 2
    deadline = time.time() + 10
    while any(_alive(p) for p in orphans) and time.time() < deadline:
        time.sleep(0.2)
    assert not any(_alive(p) for p in orphans), "workers outlived their killed parent"
    run_experiment(parse_toml(LONG), out, workers=2, progress=False)  # no stale lock stops it
    games, hands = frames(out)
    want_games, want_hands = frames(ref)
    pd.testing.assert_frame_equal(games, want_games)
    pd.testing.assert_frame_equal(hands, want_hands)
    assert verify(out).ok and read_manifest(out).status == "complete"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_sigterm_stops_a_run_like_ctrl_c(tmp_path):
    out = tmp_path / "term"
    proc = _start(out, LONG)
    _wait_for_parts(out, proc, 3)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) != -signal.SIGTERM  # handled, not killed by the signal
    manifest = read_manifest(out)
    assert manifest.status == "interrupted" and verify(out).ok
    report = run_experiment(parse_toml(LONG), out, workers=2, progress=False)
    assert report.status == "complete" and report.games_done == 450


STOPPED_MID_RESULT = textwrap.dedent("""
    import multiprocessing, os, struct, sys, time
    from treasure_sim.run import backends
    from treasure_sim.run.execute import run_experiment
    from treasure_sim.run.experiment import parse_toml

    def writes_half_a_result(task):
        result_queue = multiprocessing.current_process()._args[1]  # concurrent.futures' _process_worker arguments
        os.write(result_queue._writer.fileno(), struct.pack("!i", 1000) + b"part")  # 1,000 bytes said, 4 sent
        open(sys.argv[2], "a").close()
        time.sleep(120)

    backends.run_task = writes_half_a_result  # what ProcessBackend submits
    report = run_experiment(parse_toml(sys.stdin.read()), sys.argv[1], workers=2, progress=False)
""")


@pytest.mark.skipif(multiprocessing.get_all_start_methods()[0] != "fork",
                    reason="the task swapped in here reaches the workers only where they are forked (the default)")
def test_a_run_stopped_while_a_worker_writes_a_result_ends(tmp_path):
    """Workers stopped (SIGTERM, Ctrl-C) while one wrote a result left part of it in the pool's result pipe, and the
    pool's reader waited for the rest for ever: the run never ended. Here every task writes part of a result and
    waits; the run stopped by SIGTERM must end, as interrupted."""
    out, started = tmp_path / "out", tmp_path / "started"
    proc = subprocess.Popen([sys.executable, "-c", STOPPED_MID_RESULT, str(out), str(started)],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None
    proc.stdin.write(CONFIG)
    proc.stdin.close()
    deadline = time.monotonic() + 60
    while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert started.exists()
    time.sleep(0.2)  # the pool's reader is in the middle of the partial result
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert read_manifest(out).status == "interrupted"


DIES_HOLDING_THE_LOG_LOCK = textwrap.dedent("""
    import logging, os, signal, sys
    from multiprocessing_logging import MultiProcessingHandler
    from treasure_sim.run import backends
    from treasure_sim.run.execute import run_experiment
    from treasure_sim.run.experiment import parse_toml
    from treasure_sim.run.tournament import run_task

    def dies_once_holding_the_log_lock(task):
        try:
            os.close(os.open(sys.argv[2], os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return run_task(task)
        for handler in logging.getLogger("treasure_sim").handlers:
            if isinstance(handler, MultiProcessingHandler):
                handler.queue._wlock.acquire()  # as a worker killed while writing a record would hold it
        os.kill(os.getpid(), signal.SIGKILL)

    backends.run_task = dies_once_holding_the_log_lock  # what ProcessBackend submits
    report = run_experiment(parse_toml(sys.stdin.read()), sys.argv[1], workers=2, progress=False)
    print(report.status, report.games_done)
""")


def test_a_worker_killed_while_writing_a_log_record_hangs_nothing(tmp_path):
    """The log queue's write lock of a killed worker used to stay held: the next workers, the parent's records
    and the parent's exit all waited on it for ever (this run never ended)."""
    out, marker = tmp_path / "out", tmp_path / "killed-once"
    proc = subprocess.run([sys.executable, "-c", DIES_HOLDING_THE_LOG_LOCK, str(out), str(marker)], input=CONFIG,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert marker.exists() and proc.stdout.split() == ["complete", "36"]
    log = (out / "run.log").read_text()
    assert "a worker process died" in log and "store: complete; 36 of 36 games on disk" in log


def test_every_record_of_processes_logging_at_once_reaches_run_log(tmp_path, capfd):
    """Workers' warnings go to two queues (run.log's and the console's), each behind a lock the kernel frees when
    its holder dies. The kernel's deadlock check, which sees processes and not threads, once failed such waits
    (EDEADLK) and the records were dropped: 6,386 of 9,000 arrived here."""
    import logging
    import multiprocessing

    from treasure_sim.run.backends import run_logging

    def warn(i: int) -> None:
        log = logging.getLogger("treasure_sim.test")
        for k in range(3000):
            log.warning("worker %d record %d", i, k)

    path = tmp_path / "run.log"
    with run_logging(path, multiprocess=True):
        workers = [multiprocessing.get_context("fork").Process(target=warn, args=(i,)) for i in range(3)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 9000 and len(set(lines)) == 9000
    assert "Resource deadlock" not in capfd.readouterr().err


def test_a_lock_held_by_a_live_process_refuses_and_a_dead_owner_is_taken_over(tmp_path, caplog):
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from treasure_sim.run.store import ResultsDir
        with ResultsDir({str(tmp_path)!r}).locked():
            print("locked", flush=True)
            time.sleep(30)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(ResultsError, match=rf"another run \(pid {holder.pid}\) is writing"), \
                ResultsDir(tmp_path).locked():
            pass
    finally:
        holder.kill()
        holder.wait()
    with ResultsDir(tmp_path).locked():  # the kernel released the dead owner's lock
        pass
    assert any(f"(pid {holder.pid}) is no longer running; taking over its lock" in r.message for r in caplog.records)


def test_without_a_terminal_a_run_says_how_far_it_is(tmp_path, capfd, monkeypatch):
    from treasure_sim.run import execute

    monkeypatch.setattr(execute.Progress, "__init__", _every_instant(execute.Progress.__init__))
    run_experiment(parse_toml(CONFIG), tmp_path / "out", workers=1)  # progress=None: stderr is not a terminal here
    err = capfd.readouterr().err
    assert "treasure-sim: store: " in err and " of 36 games (" in err and "games/s, about" in err and "left" in err
    log = (tmp_path / "out" / "run.log").read_text()
    assert "games/s, about" in log


def _every_instant(init):
    def patched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every = 0.0
    return patched


def test_run_logging_closes_without_waiting_out_its_readers_poll(tmp_path):
    """multiprocessing-logging's reader waits up to 0.2 s for a record before it looks whether its handler was
    closed, and every run waited that out at its end. Closing now sends a record of nothing, which no handler
    writes, and the reader stops at it: no wait of the reader's runs out once the handler is closed, and run.log
    holds what was logged."""
    import logging
    import queue
    import time

    import multiprocessing_logging

    from treasure_sim.run.backends import run_logging

    timed_out_closed = []
    path = tmp_path / "run.log"
    with run_logging(path, multiprocess=True):
        logger = logging.getLogger("treasure_sim")
        handlers = [h for h in logger.handlers if isinstance(h, multiprocessing_logging.MultiProcessingHandler)]
        assert len(handlers) == 2
        for handler in handlers:
            def get(*args, _get=handler.queue.get, _handler=handler, **kwargs):
                try:
                    return _get(*args, **kwargs)
                except queue.Empty:
                    if _handler._is_closed:
                        timed_out_closed.append(_handler)
                    raise
            handler.queue.get = get
        time.sleep(0.5)  # each reader's wait runs out at least once: the next one is through `get` above
        logging.getLogger("treasure_sim.test").info("the one record")
    assert not timed_out_closed
    assert not any(h._receive_thread.is_alive() for h in handlers)
    assert [line.endswith("the one record") for line in path.read_text().splitlines()] == [True]


def test_run_logging_closes_after_a_worker_died_with_a_record_unsent(tmp_path):
    """A worker killed while a record it logged is still in its buffer (Ctrl-C, a crash) counted that record in the
    queue for good, and the library's reader, which stops once the count is zero, never stopped: each close waited
    out its 5 s join and left the reader running. The reader now stops at the record closing sends."""
    import logging
    import multiprocessing
    import os

    import multiprocessing_logging

    from treasure_sim.run.backends import run_logging

    def log_and_die() -> None:
        for handler in logging.getLogger("treasure_sim").handlers:  # the record stays in this process's buffer
            handler.queue._start_thread = lambda: None
        logging.getLogger("treasure_sim.test").warning("never sent")
        os._exit(0)

    path = tmp_path / "run.log"
    with run_logging(path, multiprocess=True):
        logger = logging.getLogger("treasure_sim")
        handlers = [h for h in logger.handlers if isinstance(h, multiprocessing_logging.MultiProcessingHandler)]
        worker = multiprocessing.get_context("fork").Process(target=log_and_die)
        worker.start()
        worker.join()
        assert worker.exitcode == 0 and all(h.queue.qsize() == 1 for h in handlers)  # counted, never to come
        logging.getLogger("treasure_sim.test").warning("after the worker")
    assert not any(h._receive_thread.is_alive() for h in handlers)
    assert [line.endswith("after the worker") for line in path.read_text().splitlines()] == [True]


def test_run_logging_reads_on_when_a_forked_process_closes_its_copy(tmp_path):
    """A forked process (a worker, a game process) whose code closes the handlers it inherited (``logging.shutdown``,
    ``logging.config.dictConfig``) sends its own wake record into the shared queue: the parent's reader skips it
    and goes on reading. (Stopping at any wake lost every later record, and the run's close then raised.)"""
    import logging
    import multiprocessing

    from treasure_sim.run.backends import run_logging

    path, log = tmp_path / "run.log", logging.getLogger("treasure_sim.test")
    fork = multiprocessing.get_context("fork")
    with run_logging(path, multiprocess=True):
        log.warning("before the child")
        child = fork.Process(target=logging.shutdown)
        child.start()
        child.join()
        log.warning("after the child, parent")
        worker = fork.Process(target=log.warning, args=("after the child, worker",))
        worker.start()
        worker.join()
    assert [line.rpartition(": ")[2] for line in path.read_text().splitlines()] == [
        "before the child", "after the child, parent", "after the child, worker"]


def test_run_logging_cleans_up_every_step_when_one_fails(tmp_path, monkeypatch):
    """A Ctrl-C while a handler closes (or a close that fails) still leaves the logger as it was: the other
    handlers closed and removed, its level restored."""
    import logging

    import treasure_sim.run.backends as backends

    logger = logging.getLogger("treasure_sim")
    before, level = list(logger.handlers), logger.level
    prompt = backends._prompt_handler_class()

    class Interrupted(prompt):
        def close(self):
            super().close()
            raise KeyboardInterrupt

    monkeypatch.setattr(backends, "_prompt_handler_class", lambda: Interrupted)
    with pytest.raises(KeyboardInterrupt), backends.run_logging(tmp_path / "run.log", multiprocess=True):
        logging.getLogger("treasure_sim.test").warning("kept")
    assert logger.handlers == before and logger.level == level
    assert "kept" in (tmp_path / "run.log").read_text()
