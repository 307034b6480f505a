"""Analysis: intervals with known answers, per-deal grouping, paired head-to-head, seats, strengths, loading."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from results_helpers import write_results

from treasure_sim.study import analysis as an
from treasure_sim.study import stats


def make_games(n_deals: int = 40, skills: dict[str, float] | None = None, rotate: bool = True, seed: int = 0,
               luck: float = 1.0, experiment: str = "exp") -> pd.DataFrame:
    """A games table in the runner's schema: skill + seat-position card luck shared by a deal's rotations."""
    skills = skills or {"strong": 1.0, "middle": 0.0, "weak": -1.0}
    names = list(skills)
    n = len(names)
    rng = np.random.default_rng(seed)
    rows, game_id = [], 0
    for deal in range(n_deals):
        seat_luck = rng.normal(0, luck, n)
        for rot in range(n if rotate else 1):
            score = np.array([skills[names[i]] + seat_luck[(i + rot) % n] + rng.normal(0, 0.3) for i in range(n)])
            money = np.round(100 * n * np.exp(score) / np.exp(score).sum()).astype(int)
            ranks = pd.Series(-money).rank(method="min").astype(int).to_numpy()
            best = money == money.max()
            for i, name in enumerate(names):
                rows.append(dict(
                    experiment=experiment, game_id=game_id, deal_id=deal, rotation=rot, table_id=0,
                    seat=(i + rot) % n, strategy=name, params=json.dumps({}), final_money=int(money[i]),
                    net=int(money[i]) - 100, win_share=float(best[i] / best.sum()), rank=int(ranks[i]),
                    finish=int(ranks[i]), hands_played=int(rng.integers(20, 60)), end_reason="deck_empty",
                    errors=0, decisions=50,
                    treasures_spades=0, treasures_clubs=0, treasures_hearts=0, treasures_diamonds=0,
                    decision_time=1e-5))
            game_id += 1
    return pd.DataFrame(rows)


def make_hands(games: pd.DataFrame, n_hands: int = 5, seed: int = 0) -> pd.DataFrame:
    """A hands table whose money_after walks from the start to each game's final money."""
    rng = np.random.default_rng(seed)
    rows = []
    for gid, g in games.sort_values("seat").groupby("game_id"):
        final = g["final_money"].to_numpy()
        start = final - g["net"].to_numpy()
        for h in range(1, n_hands + 1):
            money = start + (final - start) * h // n_hands if h == n_hands else start + rng.integers(-5, 6, len(g))
            rows.append(dict(game_id=gid, hand_no=h, dealer=(h - 1) % len(g), pot=10, players_at_showdown=2,
                             winners=[0], winning_category="pair", last_folder=None, new_treasure="7h",
                             spades_moved=0, hearts_drawn=0, steals=0, deck_size=30, void=False,
                             money_after=[int(m) for m in money]))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- the t interval


@pytest.mark.parametrize(("df", "expected"), [(1, 12.7062), (2, 4.3027), (3, 3.1824), (10, 2.2281),
                                              (30, 2.0423), (1000, 1.9623)])
def test_t_quantile_matches_tables(df, expected):
    assert stats.t_quantile(0.95, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_other_level():
    assert stats.t_quantile(0.99, 5) == pytest.approx(4.0321, abs=1e-4)
    assert math.isnan(stats.t_quantile(0.95, 0))


def test_interval_covers_a_coin_about_95_percent_of_the_time():
    # 400 independent repeats of 60 one-game deals with a p = 0.3 coin; each repeat is its own "strategy"
    rng = np.random.default_rng(12345)
    reps, deals, p = 400, 60, 0.3
    wins = rng.random((reps, deals)) < p
    games = pd.DataFrame({
        "game_id": np.arange(reps * deals), "deal_id": np.arange(reps * deals), "seat": 0,
        "strategy": np.repeat([f"r{i:03d}" for i in range(reps)], deals), "win_share": wins.ravel().astype(float),
    })
    table = an.win_rates(games)
    assert len(table) == reps and (table["deals"] == deals).all()
    covered = ((table["ci_low"] <= p) & (p <= table["ci_high"])).mean()
    tolerance = 4 * math.sqrt(0.95 * 0.05 / reps)  # binomial spread of the coverage estimate, plus t-vs-coin slack
    assert abs(covered - 0.95) < tolerance
    # and the interval is the textbook one on the first repeat
    x = wins[0].astype(float)
    half = stats.t_quantile(0.95, deals - 1) * x.std(ddof=1) / math.sqrt(deals)
    first = table.set_index("strategy").loc["r000"]
    assert first["mean"] == pytest.approx(x.mean())
    assert first["ci_high"] == pytest.approx(min(1.0, x.mean() + half))
    assert tuple(stats.mean_interval(x)) == pytest.approx((x.mean(), x.mean() - half, x.mean() + half))
    assert math.isnan(stats.mean_interval([0.5]).low) and stats.mean_interval([0.5]).note == stats.TOO_FEW


def test_intervals_average_rotations_within_a_deal_first():
    # seat 0 always wins: each strategy's rotations are perfectly anti-correlated, the per-deal mean is exactly 1/2
    rows = []
    for deal in range(30):
        for rot in range(2):
            for i, name in enumerate(["a", "b"]):
                seat = (i + rot) % 2
                rows.append(dict(game_id=2 * deal + rot, deal_id=deal, seat=seat, strategy=name,
                                 win_share=float(seat == 0), net=10 if seat == 0 else -10, rank=1 + seat))
    games = pd.DataFrame(rows)
    by_deal = an.win_rates(games).set_index("strategy")
    naive = an.win_rates(games, unit="game").set_index("strategy")
    assert (by_deal["deals"] == 30).all() and (by_deal["games"] == 60).all()
    assert by_deal.loc["a", "mean"] == pytest.approx(0.5)
    assert by_deal.loc["a", "ci_high"] - by_deal.loc["a", "ci_low"] == pytest.approx(0.0)
    assert naive.loc["a", "ci_high"] - naive.loc["a", "ci_low"] > 0.2
    net = an.mean_net(games).set_index("strategy")
    assert net.loc["b", "mean"] == pytest.approx(0.0) and net.loc["b", "ci_high"] == pytest.approx(0.0)
    assert "per-deal" in an.win_rates(games).attrs["method"]


def test_duplicate_deals_give_narrower_intervals_than_naive_on_realistic_data():
    games = make_games(n_deals=60, luck=2.0)
    deal = an.win_rates(games).set_index("strategy")
    naive = an.win_rates(games, unit="game").set_index("strategy")
    assert ((deal["ci_high"] - deal["ci_low"]) < (naive["ci_high"] - naive["ci_low"])).all()
    assert list(deal.index) == ["strong", "middle", "weak"]
    assert deal["fair"].tolist() == pytest.approx([1 / 3] * 3)


# ---------------------------------------------------------------- head-to-head and seats


def _hand_made() -> pd.DataFrame:
    # three one-game deals; ranks as listed (ties share the best rank)
    spec = [
        {"a": 1, "b": 2, "c": 3},
        {"a": 2, "b": 1, "c": 3},
        {"a": 1, "b": 1, "c": 3},  # a and b tie
    ]
    rows = []
    for gid, ranks in enumerate(spec):
        best = [s for s, r in ranks.items() if r == 1]
        for seat, (s, r) in enumerate(ranks.items()):
            rows.append(dict(game_id=gid, deal_id=gid, seat=seat, strategy=s, rank=r,
                             win_share=1 / len(best) if s in best else 0.0))
    return pd.DataFrame(rows)


def test_head_to_head_known_answers():
    h2h = an.head_to_head(_hand_made()).set_index(["strategy", "opponent"])
    assert h2h.loc[("a", "b"), "mean"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert h2h.loc[("b", "a"), "mean"] == pytest.approx((0 + 1 + 0.5) / 3)
    assert h2h.loc[("a", "c"), "mean"] == pytest.approx(1.0)
    assert h2h.loc[("c", "b"), "mean"] == pytest.approx(0.0)
    assert len(h2h) == 6 and (h2h["games"] == 3).all()
    m = an.head_to_head_matrix(h2h.reset_index())
    assert list(m.index) == list(m.columns) == ["a", "b", "c"]
    assert np.isnan(m.loc["a", "a"])
    assert (m + m.T).fillna(1).to_numpy() == pytest.approx(np.ones((3, 3)))


def test_head_to_head_pairs_net_and_finish_deal_by_deal():
    games = make_games(n_deals=25, skills={"a": 0.5, "b": 0.0, "c": -0.5})
    h2h = an.head_to_head(games).set_index(["strategy", "opponent"])
    ab = h2h.loc[("a", "b")]
    net = games.pivot_table(index=["deal_id", "game_id"], columns="strategy", values="net")
    per_deal = (net["a"] - net["b"]).groupby("deal_id").mean()
    assert ab["net_diff"] == pytest.approx(per_deal.mean()) and ab["deals"] == 25
    half = stats.t_quantile(0.95, 24) * per_deal.std() / 5
    assert ab["net_high"] - ab["net_diff"] == pytest.approx(half)
    assert h2h.loc[("b", "a"), "net_diff"] == pytest.approx(-ab["net_diff"])
    # one family of 2 tests x 3 pairs, Holm by default; raw p-values kept beside the adjusted ones
    table = an.head_to_head(games)
    assert table.attrs["family"] == 6 and table.attrs["multiplicity"] == "holm"
    assert (table["p_net_adjusted"] >= table["p_net"]).all()
    assert (an.head_to_head(games, multiplicity="bh")["p_net_adjusted"] <= table["p_net_adjusted"] + 1e-12).all()


def test_head_to_head_only_counts_games_where_both_sat():
    games = pd.concat([_hand_made(), pd.DataFrame([
        dict(game_id=9, deal_id=9, seat=0, strategy="a", rank=1, win_share=1.0),
        dict(game_id=9, deal_id=9, seat=1, strategy="d", rank=2, win_share=0.0)])], ignore_index=True)
    h2h = an.head_to_head(games).set_index(["strategy", "opponent"])
    assert h2h.loc[("a", "d"), "games"] == 1 and h2h.loc[("a", "d"), "mean"] == 1.0
    assert ("b", "d") not in h2h.index
    assert h2h.loc[("a", "b"), "games"] == 3


def test_seat_advantage_known_answers():
    seats = an.seat_advantage(_hand_made()).set_index("seat")
    assert seats.loc[0, "mean"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert seats.loc[1, "mean"] == pytest.approx((0 + 1 + 0.5) / 3)
    assert seats.loc[2, "mean"] == 0.0
    assert (seats["n_players"] == 3).all() and seats["fair"].tolist() == pytest.approx([1 / 3] * 3)


def test_seat_advantage_finds_a_seat_bias():
    games = make_games(n_deals=80, skills={"x": 0.0, "y": 0.0, "z": 0.0}, luck=0.1)
    games["win_share"] = (games["seat"] == 1).astype(float)  # seat 1 always wins
    seats = an.seat_advantage(games).set_index("seat")
    assert seats.loc[1, "mean"] == 1.0 and seats.loc[0, "mean"] == 0.0


def test_game_length_and_end_reasons():
    games = make_games(n_deals=10)
    out = an.game_length(games)
    one = games.drop_duplicates("game_id")
    assert out["mean"].iloc[0] == pytest.approx(one.groupby("deal_id")["hands_played"].mean().mean())
    assert out["ended_deck_empty"].iloc[0] == 1.0 and out["games"].iloc[0] == len(one)


# ---------------------------------------------------------------- strengths and broken bots


def test_strengths_follow_an_obvious_dominance_and_are_deterministic():
    games = make_games(n_deals=30, skills={"weak": -1.0, "strong": 1.0, "middle": 0.0}, luck=0.5)
    table = an.strengths(games)
    assert table.attrs["note"] == ""  # everyone beat and lost to someone: the plain ML estimate
    assert table["strategy"].tolist() == ["strong", "middle", "weak"]
    assert table["strength"].is_monotonic_decreasing and table["strength"].sum() == pytest.approx(0.0)
    assert (table["ci_low"] <= table["strength"]).all() and (table["strength"] <= table["ci_high"]).all()
    assert table["ahead_next"].iloc[:2].gt(0.5).all() and np.isnan(table["ahead_next"].iloc[-1])
    assert "bootstrap over deals" in table.attrs["method"] and "choix" in table.attrs["method"]
    shuffled = an.strengths(games.sample(frac=1.0, random_state=1))
    pd.testing.assert_frame_equal(table, shuffled)  # the order games are read in does not matter


def test_strengths_use_eliminations_to_break_ties_of_money():
    # two players bust with 0 chips in every game; the one eliminated later finishes ahead
    rows = []
    for g in range(20):
        for seat, (name, finish) in enumerate([("winner", 1), ("late", 2), ("early", 3)]):
            rows.append(dict(game_id=g, deal_id=g, seat=seat, strategy=name, rank=1 if name == "winner" else 2,
                             finish=finish, win_share=float(name == "winner")))
    games = pd.DataFrame(rows)
    h2h = an.head_to_head(games).set_index(["strategy", "opponent"])
    assert h2h.loc[("late", "early"), "mean"] == 1.0  # by `rank` alone they would tie at 0.5
    ahead = an.ahead_matrix(an.fit(games, replicates=50))
    assert ahead.loc["late", "early"] > 0.9


def test_broken_bots_are_marked_with_their_error_share_and_unranked_past_the_threshold():
    games = make_games(n_deals=6)
    games.loc[games["strategy"] == "weak", "errors"] = 5  # 5 of 50 decisions in every game
    games.loc[games["strategy"] == "weak", "first_error"] = "hand 1: act raised ValueError: no"
    errors = an.bot_errors(games).set_index("strategy")
    assert errors.loc["weak", "errors"] == 5 * 18 and errors.loc["weak", "error_share"] == pytest.approx(0.1)
    assert errors.loc["weak", "note"].startswith("⚠ 90 bot errors; 10.0% of its decisions failed")
    assert "fallback answers" in errors.loc["weak", "note"] and errors.loc["strong", "note"] == ""
    assert errors.loc["weak", "unranked"] and not errors.loc["strong", "unranked"]
    assert errors.loc["weak", "first_error"] == "hand 1: act raised ValueError: no"
    head = an.summary(games)  # 10% > 1%: not ranked, listed under it
    assert "weak" not in set(head["strategy"]) and head.attrs["unranked"]["strategy"].tolist() == ["weak"]
    assert "weak" not in an.fit(games).names and "weak" in an.fit(games, max_error_share=None).names
    head = an.summary(games, max_error_share=0.2).set_index("strategy")  # a laxer threshold ranks it, marked
    assert "fallback" in head.loc["weak", "note"] and head.loc["strong", "errors"] == 0


def test_an_error_share_never_exceeds_one():
    # errors outside decisions (set up, told a hand's end) are errors, not failed decisions
    games = make_games(n_deals=4).assign(errors=80, decisions=50, failed_decisions=50)
    assert (an.bot_errors(games)["error_share"] == 1.0).all()
    older = make_games(n_deals=4).assign(errors=80, decisions=50)  # a folder without failed_decisions
    assert (an.bot_errors(older)["error_share"] == 1.0).all()
    never = make_games(n_deals=4).assign(errors=1, decisions=0)  # failed its setup: never decided
    assert (an.bot_errors(never)["error_share"] == 1.0).all()


# ---------------------------------------------------------------- loading and trajectories


def _write_dir(path, games, hands):
    write_results(path, games, hands, name=path.name)


def test_load_stacks_runs_and_trajectories_start_at_the_stake(tmp_path):
    games = make_games(n_deals=3)
    hands = make_hands(games, n_hands=4)
    _write_dir(tmp_path / "one", games, hands)
    _write_dir(tmp_path / "two", games, hands)
    res = an.load([tmp_path / "one", tmp_path / "two"])
    assert len(res.games) == 2 * len(games) and set(res.games["run"]) == {"one", "two"}
    assert {k: m.name for k, m in res.manifests.items()} == {"one": "one", "two": "two"}
    # the same game ids in two runs stay apart
    assert an.win_rates(res.games)["deals"].tolist() == [6, 6, 6]
    single = an.load(tmp_path / "one")
    traj = an.trajectories(single)
    assert list(traj.columns) == ["run", "game_id", "deal_id", "rotation", "hand_no", "seat", "strategy", "money"]
    assert len(traj) == len(games) * 5  # hand 0 plus four hands, per seat
    assert (traj.loc[traj["hand_no"] == 0, "money"] == 100).all()
    last = traj[traj["hand_no"] == 4].merge(games, on=["game_id", "seat", "strategy"])
    assert (last["money"] == last["final_money"]).all()
    with pytest.raises(FileNotFoundError):
        an.load(tmp_path / "missing")


def test_summary_leads_with_strength_and_keeps_the_raw_columns():
    games = make_games(n_deals=12)
    s = an.summary(games)
    assert s["strategy"].tolist() == ["strong", "middle", "weak"] and s["strength"].is_monotonic_decreasing
    assert {"strength", "strength_low", "strength_high", "ahead_next", "win_share", "win_low", "win_high", "net",
            "net_low", "net_high", "errors", "error_share"} <= set(s)
    assert (s["win_low"] <= s["win_share"]).all() and (s["win_share"] <= s["win_high"]).all()
    assert s.attrs["lineups"] == 1


def test_entrant_labels_not_strategy_specs_name_the_rows():
    # the runner's schema: `entrant` is the unique label, `strategy` the (shared) spec, both categorical
    games = make_games(n_deals=5)
    games = games.assign(entrant=games["strategy"].astype("category"), strategy=pd.Categorical(["random"] * len(games)))
    for table in (an.win_rates(games), an.mean_net(games), an.strengths(games)):
        assert sorted(table["strategy"]) == ["middle", "strong", "weak"]
    assert len(an.head_to_head(games)) == 6


def test_trajectories_pick_different_deals_first():
    games = make_games(n_deals=4)  # 3 rotations per deal
    traj = an.trajectories(an.Results(games, make_hands(games, n_hands=2), {}), max_games=3)
    picked = traj.drop_duplicates("game_id")
    assert picked["deal_id"].tolist() == [0, 1, 2] and (picked["rotation"] == 0).all()


def test_lineups_count_who_sat_together():
    games = pd.concat([make_games(n_deals=2, skills={"a": 0, "b": 0}),
                       make_games(n_deals=1, skills={"a": 0, "c": 0}).assign(game_id=lambda d: d["game_id"] + 100)])
    out = an.lineups(games)
    assert out.to_dict("list") == {"lineup": ["a, b", "a, c"], "games": [4, 2]}


def test_the_run_summary_and_the_tables_give_the_same_stratified_intervals(tmp_path):
    """Five entrants at four seats: five lineups in a cycle, several deals to a part. The summary (reduced part by
    part) and the pandas tables must agree to the last digit, stratified, raw and adjusted; a pair that met at
    several lineups is compared within them."""
    from treasure_sim.run.execute import run_experiment
    from treasure_sim.run.experiment import parse_toml
    from treasure_sim.study.summary import run_summary

    config = "\n".join(['name = "strata"', "seed = 5", "deals = 16", "table_size = 4", "rotate = true",
                        *[f'[[entrants]]\nlabel = "{s}{i}"\nstrategy = "{s}"'
                          for i, s in enumerate(["random", "rock", "calling_station", "maniac", "random"])]])
    out = tmp_path / "run"
    run_experiment(parse_toml(config), out, workers=1, progress=False)
    from treasure_sim.run.store import read_games, read_hands

    # the same games as one part of 16 deals: the summary aligns each deal's lineup within a part
    one = write_results(tmp_path / "one", read_games(out).to_pandas(), read_hands(out).to_pandas(), seed=5)
    for folder, net in ((one, "raw"), (out, "raw"), (out, "adjusted")):
        summary = run_summary(folder, replicates=10, net=net)
        games = an.load(folder, net=net).games
        assert games.groupby("strategy")["table_id"].nunique().min() >= 2
        tables = {"win": an.win_rates(games).set_index("strategy"), "net": an.mean_net(games).set_index("strategy")}
        assert "stratified by lineup" in tables["net"].attrs["method"]
        for row in summary.rows:
            for what, iv in (("win", row.win), ("net", row.shown_net)):
                t = tables[what].loc[row.entrant]
                assert iv.df is not None and (iv.mean, iv.half_width) == pytest.approx((t["mean"], t["half_width"]))
    h2h = an.head_to_head(games)
    assert "stratified by lineup" in h2h.attrs["method"]
