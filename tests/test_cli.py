"""The treasure-sim command end to end: a run and its summary, resume, refusals, and bad input (exit 2)."""

from __future__ import annotations

import json
import re

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
    lines = out.splitlines()
    assert lines[3].startswith("Ranked by strength (a model of who finishes ahead of whom")
    header = lines[6]
    for col in ("#", "entrant", "strength [95% CI]", "ahead of next", "win share", "net $/game"):
        assert col in header
    assert "errors" not in header  # no bot erred
    rows = {line.split()[1]: line for line in lines[8:11]}  # after the header and rule
    assert set(rows) == {"random", "drawer", "stopper"}
    assert all("±" in r for r in rows.values())
    flat = " ".join(out.split())  # the notes are wrapped
    assert "Observed P(row finished ahead of column)" in out and "bootstrap over deals" in flat
    assert "In plain words:" in flat and "15 games each" in flat
    assert max(map(len, lines)) <= 100
    assert "win share and net: 95% Student-t interval over per-deal means" in flat
    assert "all rotations of one deal = one sample" in flat
    assert "*" not in header  # one lineup: the raw columns are comparable
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

    from treasure_sim.study import analysis
    from treasure_sim.study.stats import t_quantile
    from treasure_sim.study.summary import run_summary

    assert main(["run", str(config), "--out", "s", "--workers", "2"]) == 0
    games = pd.read_parquet(tmp_path / "s" / "games")
    games["entrant"] = games["entrant"].astype(str)
    per_deal = games.groupby(["entrant", "deal_id"])[["win_share", "net"]].mean().groupby("entrant")
    summary = run_summary(tmp_path / "s")
    for row in summary.rows:
        deals = per_deal.get_group(row.entrant)
        assert row.games == (games.entrant == row.entrant).sum() and row.deals == len(deals)
        for iv, col in ((row.win, "win_share"), (row.net, "net")):
            assert math.isclose(iv.mean, deals[col].mean())
            half = t_quantile(0.95, len(deals) - 1) * deals[col].std() / math.sqrt(len(deals))
            assert math.isclose(iv.half_width, half)
    # the streamed strengths are those of the pandas path, resample for resample
    full = analysis.fit(games.assign(strategy=games["entrant"]))
    streamed = summary.strengths
    assert list(streamed.names) == ["random", "drawer", "stopper"] and sorted(full.names) == sorted(streamed.names)
    for name in full.names:
        assert math.isclose(full.theta[full.names.index(name)], streamed.theta[streamed.names.index(name)],
                            abs_tol=1e-6)


def test_run_does_not_load_the_report_stack():
    """`report` and `sweep` load pandas and matplotlib: only when they run, not for every `run` or worker."""
    import subprocess
    import sys

    code = ("import sys; from treasure_sim.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


BROKEN_BOT = """
from treasure_sim import Strategy


class Broken(Strategy):
    def act(self, obs):
        raise RuntimeError("this bot is broken")
"""


def test_a_broken_bot_is_marked_in_the_summary(config, tmp_path, capsys):
    (tmp_path / "broken.py").write_text(BROKEN_BOT)
    broken = f'[[entrants]]\nstrategy = "{tmp_path / "broken.py"}:Broken"\nlabel = "broken"\n[rules]'
    config.write_text(CONFIG.replace("[rules]", broken).replace("table_size = 3", "table_size = 4"))
    assert main(["run", str(config), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    ranking = out[:out.index("Not ranked")]
    assert not any(line.split()[1:2] == ["broken"] for line in ranking.splitlines() if line.strip())
    flat = " ".join(out.split())
    # nearly every decision failed (Hearts draws have no act()): listed under the ranking with its first error
    assert re.search(r"Not ranked: bots that failed more than 1% of their decisions \(--max-error-share 0.01\): "
                     r"broken: \d+ bot errors, 9\d\.\d% of \d+ decisions failed; first: hand \d+: act raised "
                     r"RuntimeError: this bot is broken", flat)
    assert not any(" ⚠" in line for line in out.splitlines() if " random " in line)
    assert main(["run", str(config), "--workers", "1", "--max-error-share", "1"]) == 0  # ranked, marked
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if " broken " in line)
    assert re.search(r" \d+ ⚠$", row) and "Not ranked" not in out
    assert re.search(r"⚠ broken: \d+ bot errors; 9\d\.\d% of its decisions failed: its results reflect the "
                     r"engine's fallback answers \(check, else fold\), not the bot's own play", " ".join(out.split()))


def test_until_ci_grows_the_run_until_every_interval_is_narrow(config, tmp_path, capsys):
    assert main(["run", str(config), "--out", "u", "--workers", "2", "--until-ci", "0.12", "--metric",
                 "win_share"]) == 0
    captured = capsys.readouterr()
    assert "until-ci: 100 deals: widest win share half-width" in captured.err
    last = captured.out.splitlines()[-1]
    assert last.startswith("stopped at ") and "every win share interval has half-width <= 0.12" in last
    deals = int(last.split()[2])
    manifest = json.loads((tmp_path / "u" / "manifest.json").read_text())
    assert manifest["deals"] == deals >= 100 and manifest["status"] == "complete"
    assert f"clitest: {3 * deals} games ({deals} deals x 3 rotations" in captured.out
    from treasure_sim.study.summary import run_summary

    assert max(run_summary(tmp_path / "u").half_widths("win_share").values()) <= 0.12
    # a target out of reach stops at --max-deals and says so
    assert main(["run", str(config), "--out", "u", "--workers", "2", "--until-ci", "0.001", "--max-deals",
                 str(deals + 20)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(f"stopped at {deals + 20} deals, the --max-deals limit, before the target")


@pytest.mark.parametrize(("argv", "message"), [
    (["--max-deals", "10"], "--max-deals and --metric go with --until-ci W"),
    (["--until-ci", "0"], "expected a number > 0"),
    (["--until-ci", "x"], "expected a number, got 'x'"),
    (["--until-ci", "0.1", "--metric", "mu"], "--metric must be one of strength, win_share, net"),
])
def test_until_ci_bad_input(config, capsys, argv, message):
    assert main(["run", str(config), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
