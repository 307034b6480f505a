"""The process backend survives a pool that breaks between two submits (a worker killed under load)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from types import SimpleNamespace

from treasure_sim.run import backends


class FlakyPool:
    """A pool that breaks after its first submit: that future fails, and the next submit raises."""

    def __init__(self, broken_after: int | None) -> None:
        self.broken_after = broken_after
        self.submitted: list[int] = []

    def submit(self, fn, task):
        if self.broken_after is not None and len(self.submitted) >= self.broken_after:
            raise BrokenProcessPool("a child process terminated abruptly")
        self.submitted.append(task.first_deal)
        future: Future = Future()
        if self.broken_after is not None:
            future.set_exception(BrokenProcessPool("a child process terminated abruptly"))
        else:
            future.set_result(fn(task))
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def test_a_pool_broken_at_submit_is_rebuilt_and_every_task_still_runs(monkeypatch):
    pools = [FlakyPool(broken_after=1), FlakyPool(broken_after=None)]
    made = iter(pools)
    monkeypatch.setattr(backends.ProcessBackend, "_pool", lambda self: next(made))
    monkeypatch.setattr(backends, "run_task", lambda task: task.first_deal)
    tasks = [SimpleNamespace(first_deal=d, end_deal=d + 1) for d in range(5)]
    results = list(backends.ProcessBackend(workers=2).run(tasks))
    assert sorted(results) == [0, 1, 2, 3, 4]  # the lost task and the unsubmitted ones all ran, once each
    assert pools[0].submitted == [0]
    assert sorted(pools[1].submitted) == [0, 1, 2, 3, 4]


def test_a_worker_converts_rows_without_importing_pandas_and_pandas_still_works_when_asked():
    """pyarrow would import pandas at a worker's first rows (~0.3 s, ~40 MB) only to ask whether they are pandas
    objects; after `_tell_pyarrow_no_pandas` it does not, and to_pandas/from_pandas still import and use it."""
    code = """if True:
        import sys
        from treasure_sim.run import backends
        assert "pandas" not in sys.modules, "importing the backends imported pandas"
        backends._tell_pyarrow_no_pandas()
        import pyarrow as pa
        rows = pa.array([(1, 2), (3,)], pa.list_(pa.int32()))
        assert "pandas" not in sys.modules and rows.to_pylist() == [[1, 2], [3]]
        frame = pa.table({"a": [1.5, None]}).to_pandas()
        import pandas as pd
        assert isinstance(frame, pd.DataFrame)
        assert pa.array(pd.Series([1.5, None])).null_count == 1  # pandas objects are pandas objects again
        assert pa.Table.from_pandas(frame).column("a").null_count == 1
        print("ok")
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
