"""Balance metrics: known answers on synthetic data, paired differences, and the sweep report on a real sweep."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treasure_sim.run.execute import run_sweep
from treasure_sim.run.sweep import parse_sweep_toml
from treasure_sim.study import analysis, stats
from treasure_sim.study import balance as bal

SUITS = list(bal.SUIT_COLUMNS.values())


# ----- the regression ------------------------------------------------------------------------------------------
def _clustered_sample(rng, clusters=300, size=6):
    """Regressors and errors that both share a cluster component: naive standard errors are far too small."""
    g = np.repeat(np.arange(clusters), size)
    x = rng.normal(size=(clusters, 2))[g] + rng.normal(size=(clusters * size, 2))
    y = 1.0 + x @ np.array([3.0, -2.0]) + 2.0 * rng.normal(size=clusters)[g] + rng.normal(size=clusters * size)
    return np.column_stack([np.ones(len(y)), x]), y, g


def test_clustered_ols_recovers_coefficients_and_its_intervals_cover():
    rng = np.random.default_rng(5)
    covered, crit = 0, stats.t_quantile(0.95, 299)
    for _ in range(200):
        x, y, g = _clustered_sample(rng)
        beta, se, df = bal.ols_clustered(x, y, g)
        assert df == 299
        assert abs(beta[1] - 3.0) < 6 * se[1]
        covered += abs(beta[1] - 3.0) <= crit * se[1]
    assert 0.90 <= covered / 200 <= 0.99  # naive OLS errors cover about 75% here
    x, y, g = _clustered_sample(rng)
    naive = np.sqrt(np.diag(np.linalg.inv(x.T @ x)) * np.var(y - x @ np.linalg.lstsq(x, y, rcond=None)[0]))
    assert bal.ols_clustered(x, y, g)[1][1] > 1.4 * naive[1]


def test_a_regressor_without_variation_has_no_coefficient():
    x, y, g = _clustered_sample(np.random.default_rng(1), clusters=20)
    beta, se, _ = bal.ols_clustered(np.column_stack([x, np.zeros(len(y))]), y, g)
    assert np.isnan(beta[3]) and np.isnan(se[3]) and abs(beta[1] - 3.0) < 0.5


def test_one_cluster_has_coefficients_but_no_interval():
    """A sweep of one deal: the fit says what it can (the coefficients) and claims no interval, never a crash."""
    x, y, _ = _clustered_sample(np.random.default_rng(2), clusters=1, size=40)
    beta, se, df = bal.ols_clustered(x, y, np.zeros(len(y)))
    assert df == 0 and np.isnan(se).all() and np.allclose(beta, np.linalg.lstsq(x, y, rcond=None)[0])


def _games(rng, coefs, entrant_effect, deals=400, deal_luck=None):
    """Player-games whose final money is planted: intercept + suit coefficients + entrant effect + noise."""
    n = deals * 4
    counts = rng.poisson(1.0, size=(n, 4))
    entrant = np.tile(["a", "b", "c", "d"], deals)
    luck = (deal_luck if deal_luck is not None else rng.normal(0, 5, deals)).repeat(4)
    money = 100 + counts @ np.asarray(coefs, float) + pd.Series(entrant).map(entrant_effect).to_numpy() + luck
    money = money + rng.normal(0, 3, n)
    frame = pd.DataFrame({"deal_id": np.arange(deals).repeat(4), "entrant": entrant, "final_money": money,
                          "win_share": (money > 110).astype(float)})
    return frame.assign(**{c: counts[:, i] for i, c in enumerate(SUITS)})


def test_suit_values_recover_planted_coefficients_and_their_difference():
    rng = np.random.default_rng(2)
    luck = rng.normal(0, 20, 400)  # shared by both variants: deal-level common random numbers
    effects = {"a": 0.0, "b": 15.0, "c": -10.0, "d": 4.0}
    games = {"base": _games(rng, [5, 10, 0, -3], effects, deal_luck=luck),
             "no-clubs": _games(rng, [5, 0, 0, -3], effects, deal_luck=luck)}
    out = bal.suit_values(games, "base")
    money = out[out["group"] == "value_money"].set_index(["variant", "metric"])
    for suit, truth in zip(bal.SUITS.values(), [5, 10, 0, -3], strict=True):
        row = money.loc[("base", suit)]
        assert row["ci_low"] < truth < row["ci_high"] and row["ci_high"] - row["ci_low"] < 4
    clubs = money.loc[("no-clubs", "♣ clubs")]
    assert clubs["ci_low"] < 0 < clubs["ci_high"] and clubs["flag"] == "▼"
    assert clubs["diff_low"] < -10 < clubs["diff_high"] and clubs["diff_high"] < -7
    assert money.loc[("no-clubs", "♠ spades"), "flag"] == ""
    assert np.isnan(money.loc[("base", "♠ spades"), "diff"])  # the baseline has no difference to itself


# ----- per-deal values and paired differences ---------------------------------------------------------------------
def test_paired_differences_see_what_unpaired_intervals_cannot():
    rng = np.random.default_rng(3)
    luck = rng.normal(0, 10, 60)
    base = pd.DataFrame({"deal_id": np.arange(60), "group": "skill", "metric": "eq − random", "value": luck})
    variant = base.assign(value=luck + 0.5 + rng.normal(0, 0.1, 60)).iloc[:50]  # 10 deals not played yet
    out = bal.compare({"base": base, "v": variant}, "base").set_index("variant")
    assert out.loc["v", "ci_low"] < out.loc["base", "mean"] < out.loc["v", "ci_high"]  # unpaired: no difference
    expected = tuple(stats.mean_interval(variant["value"].to_numpy() - luck[:50]))
    assert out.loc["v", ["diff", "diff_low", "diff_high"]].tolist() == pytest.approx(expected)
    assert out.loc["v", "flag"] == "▲" and 0.45 < out.loc["v", "diff"] < 0.55
    assert out.loc["v", "deals"] == 50 and out.loc["base", "flag"] == ""
    with pytest.raises(KeyError, match="baseline 'nope'"):
        bal.compare({"base": base}, "nope")


def test_skill_gap_is_the_per_deal_difference_in_mean_net():
    games = pd.DataFrame({
        "deal_id": [0] * 6 + [1] * 6, "entrant": ["eq", "rnd", "eq", "rnd", "hunter", "hunter"] * 2,
        "strategy": ["equity", "random", "equity", "random", "treasure_hunter", "treasure_hunter"] * 2,
        "net": [10, -20, 30, -40, 5, 5, 0, 0, 50, -50, 1, 3]})
    gap = bal.skill_gap(games).set_index(["metric", "deal_id"])["value"]
    assert gap[("eq − random", 0)] == 20 - (-30) and gap[("eq − random", 1)] == 25 - (-25)
    assert gap[("hunter − random", 0)] == 35 and gap[("hunter − random", 1)] == 27
    assert bal.skill_gap(games[games["strategy"] != "random"]).empty  # no reference, nothing to measure against


def test_hand_values_count_pots_abilities_and_the_last_folders_chips():
    games = pd.DataFrame({"game_id": [0, 0, 0], "deal_id": [7, 7, 7], "final_money": [95, 102, 103],
                          "net": [-5, 2, 3]})
    hands = pd.DataFrame({
        "game_id": [0, 0, 0], "hand_no": [2, 1, 3], "players_at_showdown": [2, 0, 0],
        "winning_category": ["flush", None, None], "last_folder": [1.0, 2.0, np.nan],
        "treasure_taker": [1.0, 2.0, np.nan],
        "new_treasure": ["RJ", "Kc", None], "treasure_taken": ["7h", "Kc", None], "spades_moved": [1, 0, 0],
        "hearts_drawn": [3, 0, 0], "steals": [0, 1, 0], "void": [False, False, True],
        "money_after": [[95, 102, 103], [99, 103, 98], [95, 102, 103]]})
    out = bal.hand_values(games, hands)
    assert set(out["deal_id"]) == {7}
    v = out.set_index(["group", "metric"])["value"]
    assert v[("fold", "all")] == 1.5  # hand 1: seat 2 went 100 -> 98; hand 2: seat 1 went 103 -> 102
    assert v[("fold", "♣ clubs")] == 2 and v[("fold", "♥ hearts")] == 1 and v[("fold", "New Treasure a Joker")] == 1
    assert ("fold", "♠ spades") not in v.index
    assert v[("showdown", "no showdown")] == 0.5 and v[("showdown", "flush")] == 0.5  # the void hand is no pot
    assert v[("showdown", "five of a kind")] == 0 and v["showdown"].sum() == 1
    assert v[("ability", "Hearts cards drawn")] == 1.5 and v[("ability", "hands with a Hearts draw")] == 0.5
    assert v[("ability", "Hearts chain (cards drawn when any)")] == 3 and v[("ability", "steals")] == 0.5
    assert v[("ability", "Spades moved")] == 0.5 and v[("ability", "Treasures taken")] == 1


# ----- a real sweep -----------------------------------------------------------------------------------------------
SWEEP = """
name = "bal"
seed = 2
deals = 4
table_size = 3
[[entrants]]
strategy = "calling_station"
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "rock"
[rules]
max_hands = 30
[[variants]]
name = "base"
[[variants]]
name = "same"
[[variants]]
name = "no-jokers"
rules = { jokers = 0 }
"""


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("bal") / "bal"
    assert run_sweep(parse_sweep_toml(SWEEP), out, workers=1, progress=False).status == "complete"
    return out


def test_per_deal_values_agree_with_the_analysis_module(sweep_dir):
    res = analysis.load(sweep_dir / "base")
    values = bal.deal_values(*bal.read_variant(sweep_dir / "base"))
    ours = bal.compare({"base": values}, "base").set_index(["group", "metric"])
    seats = analysis.seat_advantage(res.games)
    for r in seats.itertuples():
        assert ours.loc[("seat", f"seat {r.seat}"), ["mean", "ci_low", "ci_high"]].tolist() == pytest.approx(
            [r.mean, r.ci_low, r.ci_high])
    length = analysis.game_length(res.games).iloc[0]
    assert ours.loc[("length", "hands per game"), "mean"] == pytest.approx(length["mean"])
    assert ours.loc[("length", "hands per game"), "ci_high"] == pytest.approx(length["ci_high"])


def test_an_unchanged_variant_differs_by_exactly_nothing(sweep_dir):
    result = bal.sweep_balance(sweep_dir)
    assert result.variants == ("base", "same", "no-jokers") and result.baseline == "base"
    same = result.compared[result.compared["variant"] == "same"]
    assert len(same) > 30 and (same["diff"] == 0).all() and (same["flag"] == "").all()
    values = result.values[result.values["variant"] == "same"]
    assert np.allclose(values["diff"].dropna(), 0, atol=1e-9)
    groups = set(result.compared["group"])
    assert {"length", "end", "seat", "skill", "showdown", "ability", "fold"} <= groups
    assert set(result.compared.loc[result.compared["group"] == "skill", "metric"]) == {
        "calling_station − random", "rock − random"}
    assert set(result.fold["variant"]) == {"base", "same", "no-jokers"}


def test_the_report_command_on_a_sweep_folder_compares_the_variants(sweep_dir, tmp_path, capsys):
    from treasure_sim.cli import main

    assert main(["report", str(sweep_dir), "--out", str(tmp_path / "rep")]) == 0  # a sweep: variants compared
    path = tmp_path / "rep" / "report.md"
    assert str(path) in capsys.readouterr().out
    text = path.read_text()
    assert text.startswith("# Treasure Poker rules sweep: bal")
    pngs = sorted(p.name for p in path.parent.glob("*.png"))
    assert {"sweep_length.png", "sweep_seat.png", "sweep_skill.png", "sweep_showdown.png", "sweep_ability.png",
            "sweep_value_money.png", "sweep_fold_value.png"} <= set(pngs)
    for name in pngs:
        assert (path.parent / name).read_bytes()[:4] == b"\x89PNG" and f"]({name})" in text
    head = text[text.index("## Headline"):text.index("## Game length")]
    assert head.index("| base |") < head.index("| same |") < head.index("| no-jokers |")
    assert "| metric | same − base | no-jokers − base |" in text
    assert "paired by deal" in text and "common random numbers" in text and "clustered by deal" in text
    assert "`no-jokers`: jokers = 0" in text

    assert "**Multiplicity:** ▲/▼ mark a p-value below 0.05 after Holm" in text and "family of" in text
    assert "Joint test per variant" in text and "F(2, 3)" in text
    table = pd.read_csv(path.parent / "comparisons.csv")
    assert {"p", "p_adjusted", "flag", "diff", "variant", "metric"} <= set(table.columns)
    assert (table["p_adjusted"].dropna() >= table.loc[table["p_adjusted"].notna(), "p"] - 1e-12).all()
    assert main(["report", str(sweep_dir), "--out", str(tmp_path / "bh"), "--multiplicity", "bh"]) == 0
    assert "Benjamini–Hochberg" in (tmp_path / "bh" / "report.md").read_text()


def test_flags_on_a_null_sweep_are_adjusted_for_the_whole_family():
    """210 null cells (3 variants x 70 metrics, no real difference): raw intervals exclude 0 here and there,
    the Holm-adjusted flags do not."""
    rng = np.random.default_rng(8)
    deals = np.arange(40)
    values = {}
    for variant in ("base", "v1", "v2", "v3"):
        values[variant] = pd.concat([pd.DataFrame({"deal_id": deals, "group": "ability", "metric": f"m{m}",
                                                   "value": rng.normal(0, 1, 40)}) for m in range(70)])
    out = bal.compare(values, "base")
    tested = out[out["variant"] != "base"]
    raw = ((tested["diff_low"] > 0) | (tested["diff_high"] < 0)).sum()
    assert raw >= 3 and (tested["p"] < 0.05).sum() == raw  # the raw test matches the interval
    assert (tested["flag"] == "").all() and out.attrs["family"] == 210
    assert (tested["p_adjusted"] >= tested["p"]).all()


def test_paired_half_widths_watch_the_headline_or_a_named_metric(sweep_dir):
    widths = bal.paired_half_widths(sweep_dir)
    assert "hands per game: no-jokers − base" in widths and "steals: same − base" in widths
    assert not any(k.endswith("base − base") for k in widths)
    assert widths["hands per game: same − base"] == 0  # the same rules: identical games, no spread
    one = bal.paired_half_widths(sweep_dir, "seat 0")
    assert set(one) == {"seat 0: same − base", "seat 0: no-jokers − base"}
    with pytest.raises(KeyError, match="no metric 'seat 9'"):
        bal.paired_half_widths(sweep_dir, "seat 9")


def test_the_sweep_report_opens_with_a_verdict_and_calls_the_treasure_regressions_an_association(sweep_dir, tmp_path):
    from treasure_sim.study.sweep_report import run_sweep_report

    text = run_sweep_report(sweep_dir, tmp_path / "rep").read_text()
    verdict = text[text.index("## Verdict"):text.index("Data: ")]
    assert text.index("## Verdict") < text.index("## Headline")
    assert "- same: hands a game +0 in every deal; games that hit the cap" in verdict
    assert "- no-jokers: " in verdict and "- base:" not in verdict
    assert "family of" in verdict  # the flags' adjustment is named
    assert "What a Treasure is worth" not in text
    assert "### Treasures held at the end and final money (an association, not a value)" in text


def test_a_verdict_line_reads_the_paired_differences_and_their_flags():
    from treasure_sim.study import verdict

    rows = [("length", "hands per game", "base", 140, 130, 150, np.nan, np.nan, np.nan, ""),
            ("length", "hands per game", "no-clubs", 50, 45, 55, -90, -105, -75, "▼"),
            ("end", "hand_limit", "base", 0.38, 0.3, 0.46, np.nan, np.nan, np.nan, ""),
            ("end", "hand_limit", "no-clubs", 0.01, 0.0, 0.03, -0.37, -0.45, -0.29, "▼"),
            ("skill", "equity − random", "no-clubs", 100, 80, 120, -3, -9, 3, ""),
            ("length", "hands per game", "wide", 145, 120, 170, 5, -1, 11, ""),
            ("end", "hand_limit", "wide", 0.4, 0.3, 0.5, 0.02, -0.05, 0.09, ""),
            ("skill", "equity − random", "wide", 60, 40, 80, -40, -60, -20, "▼")]
    compared = pd.DataFrame(rows, columns=["group", "metric", "variant", "mean", "ci_low", "ci_high", "diff",
                                           "diff_low", "diff_high", "flag"])
    assert verdict.change_line(compared, "no-clubs", "base") == (
        "no-clubs: 90 fewer hands a game [75, 105]; games that hit the cap 38% → 1% (−37 points [−45, −29]); "
        "skill gap: no change significant after adjustment")
    assert verdict.change_line(compared, "wide", "base") == (
        "wide: hands a game +5 [−1, +11] (not significant after adjustment); games that hit the cap 38% → 40% "
        "(+2 points [−5, +9], not significant after adjustment); skill gap equity − random −40 [−60, −20] chips")
