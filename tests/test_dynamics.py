"""The designer's game-dynamics metrics, each on a planted case whose answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treasure_sim.study import dynamics
from treasure_sim.study.stats import mean_interval


def _game(game_id: int, deal: int, money: list[list[int]], winner: int) -> tuple[list[dict], list[dict]]:
    seats = len(money[0])
    games = [{"game_id": game_id, "deal_id": deal, "table_id": 0, "seat": s, "entrant": f"e{s}",
              "hands_played": len(money), "finish": 1 if s == winner else 2, "eliminated_hand": None}
             for s in range(seats)]
    hands = [{"game_id": game_id, "hand_no": i + 1, "money_after": m} for i, m in enumerate(money)]
    return games, hands


def _frames(parts: list[tuple[list[dict], list[dict]]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (pd.DataFrame([r for g, _ in parts for r in g]), pd.DataFrame([r for _, h in parts for r in h]))


def test_lead_changes_and_drama_of_one_known_game():
    money = [[100, 100], [110, 90], [90, 110], [90, 110], [100, 100], [120, 80]]
    assert dynamics.count_lead_changes(np.array(money)) == 2  # 0 leads, 1 leads, (tie: no change), 0 leads
    assert dynamics.behind_share(np.array(money), 0) == pytest.approx(2 / 6)
    assert dynamics.count_lead_changes(np.array([[100, 100, 100]])) == 0


def _alternating(changes: int, hands: int) -> list[list[int]]:
    """Two seats, seat 0 ahead first; the lead changes hands exactly ``changes`` times, seat 0 ahead at the end."""
    flips = set(np.linspace(1, hands - 2, changes, dtype=int).tolist()) if changes else set()
    assert len(flips) == changes
    lead, money = 0, []
    for i in range(hands):
        lead ^= i in flips
        money.append([110, 90] if lead == 0 else [90, 110])
    return money


def test_lead_changes_and_drama_over_deals_recover_what_was_planted():
    rng = np.random.default_rng(1)
    planted = 2 * rng.poisson(1.5, 300)  # an even number of changes: seat 0 leads at the end and wins
    parts = [_game(d, d, _alternating(int(k), 40), 0) for d, k in enumerate(planted)]
    games, hands = _frames(parts)
    iv = dynamics.lead_changes(games, hands)
    expected = mean_interval(planted)
    assert (iv.mean, iv.low, iv.high) == pytest.approx((expected.mean, expected.low, expected.high))
    behind = [np.mean([m[0] < m[1] for m in _alternating(int(k), 40)]) for k in planted]
    d = dynamics.drama(games, hands)
    assert d.mean == pytest.approx(np.mean(behind)) and d.low < np.mean(behind) < d.high


def test_a_shared_first_place_is_left_out_of_drama():
    parts = [_game(0, 0, [[110, 90], [100, 100]], 0), _game(1, 1, [[90, 110], [120, 80]], 0),
             _game(2, 2, [[90, 110], [120, 80]], 0)]
    games, hands = _frames(parts)
    games.loc[(games["game_id"] == 0) & (games["seat"] == 1), "finish"] = 1
    assert dynamics.drama(games, hands).mean == pytest.approx(0.5)
    assert dynamics.drama(games, hands).n == 2


def test_the_hazard_recovers_planted_per_hand_elimination_chances_by_seat_and_by_entrant():
    rng = np.random.default_rng(7)
    chances, hands_cap, deals = (0.01, 0.03, 0.08), 60, 400
    rows = []
    for d in range(deals):
        for s, p in enumerate(chances):
            out = int(rng.geometric(p))
            rows.append({"game_id": d, "deal_id": d, "seat": s, "entrant": f"bot{s}", "hands_played": hands_cap,
                         "eliminated_hand": out if out <= hands_cap else None})
    games = pd.DataFrame(rows)
    whole = dynamics.elimination_hazard(games, "seat", width=hands_cap)
    for s, p in enumerate(chances):
        r = whole[whole["seat"] == s].iloc[0]
        assert r["ci_low"] < p < r["ci_high"] and r["deals"] == deals
    curve = dynamics.elimination_hazard(games, "entrant", width=10)
    assert list(curve["first"].unique()) == [1, 11, 21, 31, 41, 51]
    covered = np.mean([(r.ci_low <= chances[int(r.entrant[-1])] <= r.ci_high) for r in curve.itertuples()])
    assert covered >= 0.8  # 18 bands at 95% each
    first = curve[(curve["entrant"] == "bot2") & (curve["first"] == 1)].iloc[0]
    assert first["at_risk"] == games.loc[games["seat"] == 2, "eliminated_hand"].fillna(hands_cap).clip(upper=10).sum()


def test_decision_structure_counts_what_was_planted():
    deals, hands_each = 30, 10
    rows = []
    for d in range(deals):
        for h in range(1, hands_each + 1):
            rows += [{"deal_id": d, "game_id": d, "hand_no": h, "seat": s, "kind": "bet", "options": 3}
                     for s in range(2)]
        rows.append({"deal_id": d, "game_id": d, "hand_no": 1, "seat": 0, "kind": "steal", "options": 4})
        rows.append({"deal_id": d, "game_id": d, "hand_no": 2, "seat": 0, "kind": "joker_treasure", "options": 1})
    decisions = pd.DataFrame(rows)
    hands = pd.DataFrame({"deal_id": range(deals), "hands_played": hands_each})
    out = dynamics.decision_structure(decisions, hands).set_index("metric")["value"]
    assert out["per hand: bet"] == pytest.approx(2)
    assert out["per hand: steal"] == pytest.approx(0.1)
    assert out["per hand: joker_treasure"] == 0  # one option: not a real decision
    assert out["per hand: all"] == pytest.approx(2.1)
    assert out["options per decision"] == pytest.approx((20 * 3 + 4) / 21)
    assert out["share about Treasures"] == pytest.approx(1 / 21)


def test_skill_trace_is_the_paired_gain_from_the_bottom_rung_to_the_top():
    rng = np.random.default_rng(3)
    deals = pd.Index(range(200))
    base = pd.Series(rng.uniform(0.2, 0.5, len(deals)), index=deals)
    rungs = [base, base + 0.1 + rng.normal(0, 0.05, len(deals)), base + 0.25 + rng.normal(0, 0.05, len(deals))]
    iv = dynamics.skill_trace(rungs)
    assert iv.low < 0.25 < iv.high and iv.n == 200
    flat = dynamics.skill_trace([base, base + rng.normal(0, 0.05, len(deals))])
    assert flat.low < 0 < flat.high
    assert np.isnan(dynamics.skill_trace([base]).mean)
