"""The treasure-sim command end to end: a run and its summary, resume, refusals, and bad input (exit 2)."""

from __future__ import annotations

import json

import pytest

from treasure_sim.cli import main

CONFIG = """
name = "clitest"
seed = 5
deals = 5
table_size = 3
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "random"
label = "drawer"
params = { draw_chance = 1.0 }
[[entrants]]
strategy = "random"
label = "stopper"
params = { stop_chance = 0.2 }
[rules]
max_hands = 10
"""


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "clitest.toml"
    path.write_text(CONFIG)
    return path


def test_run_prints_the_summary_and_resumes(config, tmp_path, capsys):
    assert main(["run", str(config), "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "clitest: 15 games (5 deals x 3 rotations, 3 seats, 3 entrants) in results/clitest" in out
    assert "this run: 15 games in" in out and "on 2 process workers" in out
    header = next(line for line in out.splitlines() if line.startswith("strategy"))
    for col in ("games", "win share (95% CI)", "net $ per game (95% CI)", "bot errors"):
        assert col in header
    rows = {line.split()[0]: line.split() for line in out.splitlines()[5:8]}  # after the header and rule
    assert set(rows) == {"random", "drawer", "stopper"}
    assert all(r[1] == "15" and r[3] == "±" for r in rows.values())
    assert "95% CI: 95% Student-t interval over per-deal means" in out
    assert "all rotations of one deal = one sample" in out
    manifest = json.loads((tmp_path / "results" / "clitest" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["games_done"] == 15

    assert main(["run", str(config), "--deals", "6", "--workers", "1"]) == 0  # extends: one more deal
    out = capsys.readouterr().out
    assert "clitest: 18 games" in out and "this run: 3 games" in out
    assert main(["run", str(config), "--deals", "6"]) == 0
    assert "nothing to do" in capsys.readouterr().out


def test_changed_config_is_refused_then_overwritten(config, capsys):
    assert main(["run", str(config), "--out", "r", "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["run", str(config), "--out", "r", "--seed", "6"]) == 2
    err = capsys.readouterr().err
    assert "holds results of a different config (differs in: seed)" in err and "--overwrite" in err
    assert "Traceback" not in err
    assert main(["run", str(config), "--out", "r", "--seed", "6", "--overwrite", "--workers", "1"]) == 0
    assert json.loads((config.parent / "r" / "manifest.json").read_text())["seed"] == 6


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "missing.toml"], "cannot read experiment config missing.toml"),
    (["run", "bad.toml"], "unknown key 'dealz'"),
    (["run", "{config}", "--workers", "0"], "expected a whole number >= 1"),
    (["run", "{config}", "--deals", "x"], "expected a whole number, got 'x'"),
    (["run", "{config}", "--executor", "slurm"], "invalid choice: 'slurm'"),
    (["run", "{config}", "--scheduler", "tcp://h:1"], "--scheduler needs --executor dask"),
    (["run", "{config}", "--out", "bad.toml"], "bad.toml is a file, not a results folder"),
    (["bench", "nope"], "no benchmark named 'nope'"),
    (["bench", "../x"], "no benchmark named '../x'"),
    ([], "required: COMMAND"),
    (["fly"], "invalid choice: 'fly'"),
])
def test_bad_input_exits_2_with_a_message(config, capsys, argv, message):
    (config.parent / "bad.toml").write_text(CONFIG.replace("deals = 5", "dealz = 5"))
    assert main([a.replace("{config}", str(config)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_default_experiment_runs_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--deals", "2", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("default: 8 games (2 deals x 4 rotations, 4 seats")
    assert (tmp_path / "results" / "default" / "games").is_dir()


def test_help_exits_0(capsys):
    assert main(["run", "--help"]) == 0
    assert "--executor" in capsys.readouterr().out


def test_summary_statistics_match_pandas(config, tmp_path):
    import math

    import pandas as pd

    from treasure_sim.study.stats import t_quantile
    from treasure_sim.study.summary import entrant_stats

    assert main(["run", str(config), "--out", "s", "--workers", "2"]) == 0
    games = pd.read_parquet(tmp_path / "s" / "games")
    games["entrant"] = games["entrant"].astype(str)
    per_deal = games.groupby(["entrant", "deal_id"])[["win_share", "net"]].mean().groupby("entrant")
    for row in entrant_stats(tmp_path / "s"):
        deals = per_deal.get_group(row["entrant"])
        assert row["games"] == (games.entrant == row["entrant"]).sum() and row["deals"] == len(deals)
        for name, col in (("win", "win_share"), ("net", "net")):
            assert math.isclose(row[name].mean, deals[col].mean())
            half = t_quantile(0.95, len(deals) - 1) * deals[col].std() / math.sqrt(len(deals))
            assert math.isclose(row[name].half_width, half)


def test_run_does_not_load_the_report_stack():
    """`report` and `sweep` load pandas and matplotlib: only when they run, not for every `run` or worker."""
    import subprocess
    import sys

    code = ("import sys; from treasure_sim.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
