"""Tuning rules towards targets: a planted problem is solved within the budget, reruns agree, bad configs fail."""

from __future__ import annotations

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
