"""betting.py (rulings §4): bet limits per structure, the uncalled bet, side pots and the odd chip."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_sim import RuleSet
from treasure_sim.game.betting import BetLimits, bet_limits, split_pots, uncalled_bet

NL, PL, FL = RuleSet(), RuleSet(betting="pot-limit"), RuleSet(betting="fixed-limit")


def limits(rules, *, rnd=0, high=0, my_bet=0, stack=100, largest=0, raises=0, pot=4, answer=True):
    return bet_limits(rules, rnd, high, my_bet, stack, largest, raises, pot, answer)


# ----- no-limit --------------------------------------------------------------------------------------------
def test_no_limit_opening_bet_is_min_bet_to_all_in():
    assert limits(NL) == BetLimits(0, 1, 100)
    assert limits(RuleSet(min_bet=5)) == BetLimits(0, 5, 100)


def test_no_limit_min_raise_is_the_largest_bet_or_raise_so_far():
    # a bet of 5: the next raise is to at least 10
    assert limits(NL, high=5, largest=5, raises=1, pot=9) == BetLimits(5, 10, 100)
    # 5 raised to 15 (a raise of 10): at least 25
    assert limits(NL, high=15, largest=10, raises=2, pot=24) == BetLimits(15, 25, 100)
    # then a player who bet 5 faces it: to call 10, the same minimum total
    assert limits(NL, high=15, my_bet=5, largest=10, raises=2, pot=24, stack=95) == BetLimits(10, 25, 100)
    # a min_bet larger than the largest raise still rules
    assert limits(RuleSet(min_bet=8), high=15, largest=3, raises=2).min_raise_to == 23


def test_all_in_for_less_than_a_min_raise_is_allowed():
    lim = limits(NL, high=15, largest=10, raises=2, stack=20)  # all in = 20 < min raise 25
    assert lim == BetLimits(15, 20, 20)


def test_no_raise_when_covered_or_nobody_can_answer():
    assert limits(NL, high=30, stack=30).max_raise_to == 0  # calling is all in
    assert limits(NL, high=30, stack=20) == BetLimits(20, 0, 0)  # calling for less
    assert limits(NL, high=5, largest=5, answer=False) == BetLimits(5, 0, 0)


# ----- pot-limit -------------------------------------------------------------------------------------------
def test_pot_limit_maximum_is_the_pot_after_calling():
    assert limits(PL, pot=3) == BetLimits(0, 1, 3)  # three antes in, no bet: bet the pot
    # facing a bet of 3 into 3 (pot 6): call 3 makes 9, so raise by 9 to 12
    assert limits(PL, high=3, largest=3, raises=1, pot=6) == BetLimits(3, 6, 12)
    # having bet 3 and facing a raise to 12 (pot 3 + 3 + 12 = 18): call 9 makes 27, raise to 39
    assert limits(PL, high=12, my_bet=3, largest=9, raises=2, pot=18, stack=97) == BetLimits(9, 21, 39)
    assert limits(PL, high=3, largest=3, raises=1, pot=6, stack=8) == BetLimits(3, 6, 8)  # capped by the stack


def test_pot_limit_still_allows_a_minimum_bet_into_an_empty_pot():
    assert limits(RuleSet(betting="pot-limit", ante=0), pot=0) == BetLimits(0, 1, 1)
    assert limits(RuleSet(betting="pot-limit", min_bet=5), pot=2) == BetLimits(0, 5, 5)


# ----- fixed-limit -----------------------------------------------------------------------------------------
def test_fixed_limit_sizes_small_then_big():
    for rnd in (0, 1):
        assert limits(FL, rnd=rnd) == BetLimits(0, 1, 1)
        assert limits(FL, rnd=rnd, high=3, raises=3) == BetLimits(3, 4, 4)
    for rnd in (2, 3):
        assert limits(FL, rnd=rnd) == BetLimits(0, 2, 2)
        assert limits(FL, rnd=rnd, high=4, raises=2) == BetLimits(4, 6, 6)
    custom = RuleSet(betting="fixed-limit", small_bet=5, big_bet=10)
    assert limits(custom, rnd=1, high=5, raises=1).min_raise_to == 10
    assert limits(custom, rnd=3, high=10, raises=1).min_raise_to == 20


def test_fixed_limit_raise_cap_and_short_all_in():
    assert limits(FL, high=4, raises=4) == BetLimits(4, 0, 0)
    assert limits(FL.replace(raise_cap=6), high=4, raises=4).max_raise_to == 5
    assert limits(FL, rnd=2, high=2, raises=1, stack=3) == BetLimits(2, 3, 3)


# ----- the uncalled bet ------------------------------------------------------------------------------------
def test_uncalled_bet():
    assert uncalled_bet([1, 51, 1]) == (1, 50)
    assert uncalled_bet([31, 51, 101]) == (2, 50)
    assert uncalled_bet([51, 51, 1]) is None
    assert uncalled_bet([0, 0]) is None


# ----- pots ------------------------------------------------------------------------------------------------
def test_three_all_ins_of_different_sizes():
    # seats 0..3 put in 10, 20, 30 (all in) and 30; the shortest has the best hand, then the middle...
    committed = [10, 20, 30, 30]
    pots = split_pots(committed, [0, 1, 2, 3], {0: 4, 1: 3, 2: 2, 3: 1}, [0, 1, 2, 3])
    assert [(p.amount, p.eligible, p.winners) for p in pots] == [
        (40, (0, 1, 2, 3), (0,)), (30, (1, 2, 3), (1,)), (20, (2, 3), (2,))]


def test_folded_chips_stay_in_the_pot_and_odd_chips_go_in_turn_order():
    # seat 3 folded after putting in 7; seats 2, 0, 1 (turn order 2, 0, 1) tie for 3 + 3 + 3 + 7 = 16
    pots = split_pots([3, 3, 3, 7], [0, 1, 2], {0: 5, 1: 5, 2: 5}, [2, 3, 0, 1])
    assert len(pots) == 1 and pots[0].amount == 16
    assert pots[0].winners == (2, 0, 1) and pots[0].shares == (6, 5, 5)
    pots = split_pots([3, 3, 3, 1], [0, 1, 2], {0: 5, 1: 5, 2: 5}, [2, 3, 0, 1])  # 10 = 4 + 3 + 3
    assert pots[0].shares == (4, 3, 3)
    pots = split_pots([4, 4, 4, 4, 4], [0, 1, 2], {0: 5, 1: 5, 2: 5}, [1, 2, 3, 4, 0])  # 20 = 7 + 7 + 6
    assert pots[0].winners == (1, 2, 0) and pots[0].shares == (7, 7, 6)


def test_a_lone_contender_needs_no_score():
    pots = split_pots([1, 1, 6], [2], {}, [0, 1, 2])
    assert sum(p.amount for p in pots) == 8 and {w for p in pots for w in p.winners} == {2}


def reference_payouts(committed, contenders, scores, order):
    """Chip by chip: each chip layer goes to the best eligible contenders; layers with the same
    eligible seats form one pot; chips nobody still in covered join the highest pot."""
    pots: list[list] = []  # [eligible, amount]
    for level in range(1, max(committed) + 1):
        chips = sum(1 for c in committed if c >= level)
        eligible = tuple(s for s in order if s in contenders and committed[s] >= level)
        if not eligible or (pots and pots[-1][0] == eligible):
            pots[-1][1] += chips
        else:
            pots.append([eligible, chips])
    won = [0] * len(committed)
    for eligible, amount in pots:
        best = max(scores.get(s, 0) for s in eligible)
        winners = [s for s in eligible if scores.get(s, 0) == best]
        for i, s in enumerate(winners):
            won[s] += amount // len(winners) + (i < amount % len(winners))
    return won


@st.composite
def pot_cases(draw):
    n = draw(st.integers(2, 10))
    committed = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    contenders = draw(st.lists(st.sampled_from(range(n)), min_size=1, max_size=n, unique=True))
    scores = {s: draw(st.integers(0, 3)) for s in contenders}  # few values: many ties
    shift = draw(st.integers(0, n - 1))
    return committed, contenders, scores, [(shift + i) % n for i in range(n)]


@settings(max_examples=300)
@given(pot_cases())
def test_pots_property(case):
    committed, contenders, scores, order = case
    back = uncalled_bet(committed)
    after = list(committed)
    if back:
        after[back[0]] -= back[1]
        assert after[back[0]] == sorted(committed)[-2]  # returned down to the second largest commitment
    pots = split_pots(after, sorted(contenders), scores, order)
    assert sum(p.amount for p in pots) == sum(committed) - (back[1] if back else 0)
    won = [0] * len(committed)
    for p in pots:
        assert set(p.winners) <= set(p.eligible) <= set(contenders)
        assert sum(p.shares) == p.amount and max(p.shares) - min(p.shares) <= 1
        assert list(p.shares) == sorted(p.shares, reverse=True)  # odd chips to the first in turn order
        assert list(p.eligible) == sorted(p.eligible, key=order.index)
        best = max(scores[s] for s in p.eligible)
        assert all(scores[s] == best for s in p.winners) or len(p.eligible) == 1
        for w, c in zip(p.winners, p.shares, strict=True):
            won[w] += c
    if len(contenders) > 1:
        assert won == reference_payouts(after, set(contenders), scores, order)
    else:
        assert won[contenders[0]] == sum(after)
