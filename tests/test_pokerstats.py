"""Poker statistics per bot: the pooled-ratio interval covers planted rates, and the table matches the seats."""

from __future__ import annotations

import numpy as np
import pytest

from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.study import pokerstats
from treasure_sim.study.stats import ratio_interval


@pytest.mark.parametrize("rate", [0.05, 0.3])
def test_the_ratio_interval_covers_a_planted_rate(rate):
    """Deals with very different numbers of chances (as hands per game vary): coverage near 95%."""
    rng = np.random.default_rng(7)
    covered, repeats = 0, 600
    for _ in range(repeats):
        chances = rng.integers(1, 200, size=60)
        events = rng.binomial(chances, rate)
        iv = ratio_interval(events, chances)
        covered += iv.low <= rate <= iv.high
    assert abs(covered / repeats - 0.95) < 0.03


def test_the_ratio_interval_on_edge_cases():
    assert ratio_interval([], []).n == 0 and np.isnan(ratio_interval([], []).mean)
    one = ratio_interval([3], [10])
    assert one.mean == 0.3 and np.isnan(one.low)
    assert ratio_interval([0, 0, 1], [0, 5, 5]).n == 2  # a deal without chances adds nothing
    assert ratio_interval([0, 0], [4, 6]).note == "no variance"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("ps") / "out"
    exp = parse_toml("""
name = "ps"
deals = 8
table_size = 3
[[entrants]]
strategy = "calling_station"
[[entrants]]
strategy = "maniac"
[[entrants]]
strategy = "random"
[rules]
max_hands = 40
""")
    run_experiment(exp, out, workers=1, progress=False)
    return out


def test_the_statistics_are_the_seats_table_counted(played):
    counts = pokerstats.seat_counts(played)
    stats = pokerstats.poker_stats(counts).set_index(["entrant", "statistic"])
    for entrant, mine in counts.groupby("entrant"):
        assert stats.loc[(entrant, "VPIP"), "value"] == pytest.approx(mine["vpip"].mean())
        assert stats.loc[(entrant, "steals / hand"), "value"] == pytest.approx(mine["steals"].mean())
        shown = mine[mine["showdown"]]
        if len(shown):
            assert stats.loc[(entrant, "W$SD"), "value"] == pytest.approx((shown["won"] > 0).mean())
    # what the bots are built to do
    assert stats.loc[("calling_station", "PFR"), "value"] == 0 and stats.loc[("calling_station", "aggression"),
                                                                           "value"] == 0
    assert stats.loc[("maniac", "PFR"), "value"] > 0.8 and stats.loc[("maniac", "VPIP"), "ci_high"] <= 1.0
    assert stats.attrs["method"].startswith("pooled ratio")
    table = pokerstats.wide(pokerstats.poker_stats(counts), ["random", "maniac"])
    assert list(table.index) == ["random", "maniac"] and list(table.columns) == list(pokerstats.STATISTICS)


def test_the_report_has_the_poker_statistics(played):
    from treasure_sim.study.report import run_report

    text = run_report(played).read_text()
    section = text[text.index("## Poker statistics per bot"):]
    assert "| entrant | VPIP | PFR | aggression | WTSD | W$SD | fold for a Treasure |" in section
    assert "| maniac |" in section and "pooled ratio" in section
