"""Tuning rules towards targets: a planted problem is solved within the budget, reruns agree, bad configs fail."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from treasure_sim.cli import main
from treasure_sim.design.tune import parse_tuning, read_tune, tune
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import ConfigError, toml_table
from treasure_sim.study import targets
from treasure_sim.study.targets import Estimate, Target

# Two calling stations never bet: every hand is antes and a showdown, so a game lasts until the hand cap.
# Mean hands per game between 15 and 25 is met by max_hands = 20 alone.
PLANTED = """
name = "planted"
seed = 3
table_size = 2
rotate = false
[[entrants]]
strategy = "calling_station"
[[entrants]]
strategy = "calling_station"
label = "other"
[tune]
budget = 150
[tune.knobs]
max_hands = [5, 10, 20, 40, 80]
[[tune.targets]]
metric = "mean_hands"
between = [15, 25]
[[tune.targets]]
metric = "natural_end"
at_most = 0.5
"""


def _play(exp, folder):
    run_experiment(exp, folder, workers=1, progress=False)


def test_the_planted_answer_is_found_within_the_budget_and_a_rerun_agrees(tmp_path):
    tuning = parse_tuning(toml_table(PLANTED))
    plan = tuning.rounds()
    assert [n for n, _ in plan] == [5, 2, 1]
    spent = sum(n * (d - (plan[i - 1][1] if i else 0)) for i, (n, d) in enumerate(plan))
    assert spent <= tuning.budget
    first = tune(tuning, tmp_path / "t", play=_play)
    assert first.status == "complete" and first.rounds[-1][0].name == "max_hands-20"
    from treasure_sim.design.tune_report import front, recommended

    assert [m.name for m in recommended(first)] == ["max_hands-20"]
    assert [m.name for m in front(first.final)] == ["max_hands-20"]
    again = tune(tuning, tmp_path / "t", play=_play)  # resumes: every folder is complete already
    assert [[(m.name, m.shortfall) for m in r] for r in again.rounds] == \
        [[(m.name, m.shortfall) for m in r] for r in first.rounds]
    assert read_tune(tmp_path / "t").final[0].name == "max_hands-20"


def test_the_command_and_its_report(tmp_path, capsys):
    config = tmp_path / "tune.toml"
    config.write_text(PLANTED.replace("budget = 150", "budget = 60"))
    assert main(["tune", str(config), "--out", str(tmp_path / "o"), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 meet every target: max_hands-20" in out
    text = (tmp_path / "o" / "report.md").read_text()
    assert "## Recommended rule sets" in text and "`max_hands-20`: max_hands = 20" in text
    assert main(["report", str(tmp_path / "o")]) == 0


@pytest.mark.parametrize(("change", "message"), [
    ("[[tune.targets]]\nmetric = \"mean_hands\"\nbetween = [15, 25]\n[[tune.targets]]\nmetric = \"natural_end\"\n"
     "at_most = 0.5\n", None),
    ("metric = \"natural_end\"", "metric must be one of"),
    ("between = [15, 25]", "give exactly one of"),
    ("at_most = 0.5", "at_most must be a number"),
])
def test_bad_targets_are_named(change, message):
    if message is None:
        assert len(parse_tuning(toml_table(PLANTED)).targets) == 2
        return
    bad = {"metric = \"natural_end\"": PLANTED.replace('metric = "natural_end"', 'metric = "fun"'),
           "between = [15, 25]": PLANTED.replace("between = [15, 25]", "between = [15, 25]\nat_least = 3"),
           "at_most = 0.5": PLANTED.replace("at_most = 0.5", 'at_most = "half"')}[change]
    with pytest.raises(ConfigError, match=message):
        parse_tuning(toml_table(bad))


def test_a_tuning_needs_targets_and_a_budget():
    with pytest.raises(ConfigError, match="needs at least one"):
        parse_tuning(toml_table(PLANTED.split("[[tune.targets]]")[0]))
    with pytest.raises(ConfigError, match=r"\[tune\].budget must be a whole number >= 1"):
        parse_tuning(toml_table(PLANTED.replace("budget = 150", "budget = 0")))
    with pytest.raises(ConfigError, match="skill_gap needs better and worse"):
        parse_tuning(toml_table(PLANTED + '[[tune.targets]]\nmetric = "skill_gap"\nat_least = 1\nbetter = "x"\n'))


def test_verdicts_and_shortfalls():
    between = Target("mean_hands", 60, 120)
    assert between.verdict(Estimate(90, 80, 100, 50, "")) == "met"
    assert between.verdict(Estimate(130, 125, 140, 50, "")) == "missed"
    assert between.verdict(Estimate(118, 110, 126, 50, "")) == "uncertain"
    assert between.shortfall(Estimate(90, 80, 100, 50, "")) == 0
    assert between.shortfall(Estimate(132, 125, 140, 50, "")) == pytest.approx(12 / 120)
    assert Target("natural_end", 0.95).label == "natural_end ≥ 0.95"
    assert math.isinf(Target("x").high)


def test_the_median_interval_covers_a_planted_median(monkeypatch):
    """Deals of several games each, the games of a deal correlated: the bootstrap over deals covers ~95%."""
    monkeypatch.setattr(targets, "BOOTSTRAP", 500)
    rng = np.random.default_rng(4)
    covered, repeats = 0, 150
    truth = 100.0  # median of a deal effect N(0, 20) plus a game effect N(0, 20), around 100
    for _ in range(repeats):
        deal = np.repeat(np.arange(40), 4)
        hands = truth + rng.normal(0, 20, 40)[deal] + rng.normal(0, 20, len(deal))
        games = pd.DataFrame({"game_id": np.arange(len(deal)), "deal_id": deal, "hands_played": hands})
        e = targets.median_hands(games, seed=int(rng.integers(1 << 30)))
        covered += e.low <= truth <= e.high
    assert abs(covered / repeats - 0.95) < 0.06


def test_too_small_a_budget_is_warned_about_with_what_would_do():
    """The issue's case: 13 candidates on a budget of 80 get 2 deals each in round 1, and 8 are dropped on that."""
    from pathlib import Path

    from treasure_sim.design.tune import MIN_FIRST_DEALS, load_tuning

    ending = load_tuning(Path(__file__).parent.parent / "experiments" / "tune_ending.toml", check_strategies=False)
    assert ending.warning() is None  # its own budget, 1,500 deals: 28 deals a candidate in round 1
    small = dataclasses.replace(ending, budget=80)
    warning = small.warning()
    assert warning is not None and "13 candidates" in warning and "each on 2 deals" in warning
    assert "drops 8 of them" in warning
    need = int(warning.rsplit("--budget ", 1)[1].rstrip(")"))
    assert dataclasses.replace(ending, budget=need).rounds()[0][1] >= MIN_FIRST_DEALS
    assert dataclasses.replace(ending, budget=need).warning() is None


def test_the_budget_flag_the_warning_and_every_round_s_drops_are_told(tmp_path, capsys):
    config = tmp_path / "tune.toml"
    config.write_text(PLANTED)
    assert main(["tune", str(config), "--out", str(tmp_path / "o"), "--workers", "1", "--budget", "20"]) == 0
    captured = capsys.readouterr()
    assert "budget 20 is too small for 5 candidates: round 1 plays each on 2 deals and drops 3" in captured.err
    assert "round 1 on 2 deals: kept max_hands-20, max_hands-10; dropped max_hands-5" in captured.err
    assert captured.out.startswith("warning: budget 20 is too small")
    assert "**Warning:** budget 20" in (tmp_path / "o" / "report.md").read_text()
    assert read_tune(tmp_path / "o").warning.startswith("budget 20")


def test_a_round_reports_its_progress_over_every_candidate(tmp_path):
    """One bar over the round's games: `on_round` hears every candidate's experiment before the round plays,
    and a shared `Progress` counts the games of all of them."""
    from treasure_sim.cli.tune import _on_disk
    from treasure_sim.run.execute import Progress

    tuning = dataclasses.replace(parse_tuning(toml_table(PLANTED)), budget=40)
    rounds, bars = [], []

    def on_round(number, jobs):
        rounds.append((number, [(exp.deals, folder.name) for exp, folder in jobs]))
        held = sum(_on_disk(folder, exp.games) for exp, folder in jobs)  # played in earlier rounds
        bars.append(Progress(f"round {number}", sum(exp.games for exp, _ in jobs), held, False))

    def play(exp, folder):
        run_experiment(exp, folder, workers=1, progress=bars[-1])

    tune(tuning, tmp_path / "t", play=play, on_round=on_round)
    assert [n for n, _ in rounds] == [1, 2, 3] and len(rounds[0][1]) == 5
    assert all(bar.done == bar.total for bar in bars) and bars[1].first > 0
