"""Every notebook in notebooks/ runs top to bottom without a cell error, on a small real run."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
SMALL_RUN = """
name = "notebook-test"
seed = 3
deals = 6
table_size = 3
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "random"
label = "random-stops"
params = { stop_chance = 0.05 }
[[entrants]]
strategy = "random"
label = "random-no-hearts"
params = { draw_chance = 0.0 }
[rules]
max_hands = 60
"""


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("nb") / "notebook-test"
    report = run_experiment(parse_toml(SMALL_RUN), out, workers=1, progress=False)
    assert report.status == "complete"
    return out


def test_the_notebooks_are_committed_without_outputs():
    assert NOTEBOOKS, "no notebooks found"
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
        assert not dirty, f"{path.name}: cells {dirty} hold outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, small_run, monkeypatch):
    monkeypatch.setenv("TREASURE_RESULTS", str(small_run))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    if path.name == "win_rates.ipynb":
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        assert len(images) == 7  # strength, head-to-head, win share, net, seats, planning, trajectories
        text = "".join(o.get("text", "") for o in outputs)
        assert "bootstrap over deals" in text and str(small_run) in text and "are the seats equal?" in text
