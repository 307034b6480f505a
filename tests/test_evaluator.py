"""Evaluator oracles: a brute-force reference with wilds, eval7/treys order, properties, errors, words."""

from __future__ import annotations

from itertools import combinations, product

import eval7
import numpy as np
import pytest
import treys
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_sim.game.cards import parse_cards, rank_mask
from treasure_sim.game.evaluator import (
    CATEGORY_NAMES,
    SMALL,
    Quintet,
    best_quintet,
    category,
    category_name,
    describe,
    evaluate,
    score_rows,
)

RNG_SEED = 20240611


def random_hands(rng: np.random.Generator, n: int, k: int, deck: int = 54, pads: int = 0) -> np.ndarray:
    """n distinct-card hands of k cards from the first `deck` ids, with `pads` -1s mixed in anywhere."""
    hands = np.argsort(rng.random((n, deck)), axis=1)[:, :k].astype(np.int8)
    if pads:
        hands = np.concatenate([hands, np.full((n, pads), -1, np.int8)], axis=1)
        hands = np.take_along_axis(hands, np.argsort(rng.random(hands.shape), axis=1), axis=1)
    return hands


def random_masks(rng: np.random.Generator, n: int) -> np.ndarray:
    """Per-row wild masks: mostly none or one or two ranks, sometimes anything."""
    one = np.int64(1) << rng.integers(0, 13, n)
    two = one | (np.int64(1) << rng.integers(0, 13, n))
    pick = rng.integers(0, 4, n)
    return np.choose(pick, [np.zeros(n, np.int64), one, two, rng.integers(0, 8192, n)])


# --- an independent reference: five explicit cards (duplicates allowed), every interpretation -----


def reference_five(ranks: np.ndarray, suits: np.ndarray) -> np.ndarray:
    """Score (m, 5) explicit cards the textbook way, in the evaluator's layout, allowing repeats."""
    m = len(ranks)
    counts = np.zeros((m, 13), np.int64)
    np.add.at(counts, (np.repeat(np.arange(m), 5), ranks.ravel()), 1)
    per_card = np.take_along_axis(counts, ranks, axis=1)
    order = np.argsort(-(per_card * 16 + ranks), axis=1, kind="stable")
    by_group = np.take_along_axis(ranks, order, axis=1)  # ranks by (count, rank) descending
    desc = -np.sort(-ranks, axis=1)
    pattern = -np.sort(-counts, axis=1)[:, :2]
    flush = (suits == suits[:, :1]).all(axis=1)
    distinct = (np.diff(desc, axis=1) != 0).all(axis=1)
    wheel = distinct & (desc == [12, 3, 2, 1, 0]).all(axis=1)
    straight = distinct & ((desc[:, 0] - desc[:, 4] == 4) | wheel)
    top = np.where(wheel, 3, desc[:, 0])

    group_fields = np.zeros(m, np.int64)  # distinct ranks in (count, rank) order, packed from the top
    filled = np.zeros(m, np.int64)
    for j in range(5):
        new = (j == 0) | (by_group[:, j] != by_group[:, max(j - 1, 0)])
        group_fields |= np.where(new, by_group[:, j] << (16 - 4 * filled), 0)
        filled += new
    all_fields = sum(desc[:, j] << (16 - 4 * j) for j in range(5))

    a, b = pattern[:, 0], pattern[:, 1]
    cases = [  # (applies, category, fields), highest category first
        (a == 5, 9, ranks[:, 0] << 16),
        (straight & flush, 8, top << 16),
        (a == 4, 7, group_fields),
        ((a == 3) & (b == 2), 6, group_fields),
        (flush, 5, all_fields),
        (straight, 4, top << 16),
        (a == 3, 3, group_fields),
        ((a == 2) & (b == 2), 2, group_fields),
        (a == 2, 1, group_fields),
    ]
    score = all_fields.copy()
    for applies, cat, fields in reversed(cases):
        score = np.where(applies, (cat << 20) | fields, score)
    return score


def reference_hand(hand: list[int], wild_mask: int) -> int:
    """Best over every 5-subset and every rank for each wild in it (wilds take the naturals' suit)."""
    best = -1
    for five in combinations(hand, 5):
        wild = [c for c in five if c >= 52 or (wild_mask >> (c >> 2)) & 1]
        nat = [c for c in five if c not in wild]
        suit = nat[0] & 3 if nat else 0
        choices = np.array(list(product(range(13), repeat=len(wild))), np.int64).reshape(13 ** len(wild), -1)
        ranks = np.hstack([np.tile([c >> 2 for c in nat], (len(choices), 1)), choices])
        suits = np.hstack([np.tile([c & 3 for c in nat], (len(choices), 1)), np.full(choices.shape, suit)])
        best = max(best, int(reference_five(ranks.astype(np.int64), suits).max()))
    return best


def test_reference_agrees_with_itself_on_known_hands():
    def ref(text, mask=0):
        return reference_hand(parse_cards(text).tolist(), mask)

    assert ref("As Ks 9s 4s RJ") == (5 << 20) | (12 << 16) | (12 << 12) | (11 << 8) | (7 << 4) | 2  # A-A-K-9-4
    assert ref("2c 2d 2h 7s RJ BJ") == (9 << 20) | (0 << 16)  # five deuces beat anything else here
    assert ref("2s 3d 4c 5h As") < ref("2s 3d 4c 5h 6s")
    assert ref("Kh Kd Ks 7c 7d") > ref("Ah Kh 9h 4h 2h")


def test_brute_force_reference_with_wilds():
    """Random 5-8 card hands rich in wilds against the brute-force reference."""
    rng = np.random.default_rng(RNG_SEED)
    hands, masks, expected = [], [], []
    while len(hands) < 240:
        k = int(rng.integers(5, 9))
        hand = rng.choice(54, k, replace=False).tolist()
        mask = int(rng.choice([0, 1 << rng.integers(13), (1 << rng.integers(13)) | (1 << rng.integers(13))]))
        wilds = sum(c >= 52 or (mask >> (c >> 2)) & 1 for c in hand)
        if wilds > 4 or (wilds == 0 and rng.random() < 0.7):
            continue
        hands.append(hand + [-1] * (8 - k))
        masks.append(mask)
        expected.append(reference_hand(hand, mask))
    got = evaluate(np.array(hands * 8, np.int8), np.array(masks * 8))  # block path
    assert got.tolist() == expected * 8
    assert [int(evaluate(h, m)[0]) for h, m in zip(hands, masks, strict=True)] == expected  # small path


def test_random_five_card_hands_match_reference():
    rng = np.random.default_rng(RNG_SEED + 1)
    hands = random_hands(rng, 2000, 5, deck=54)
    masks = random_masks(rng, 2000)
    expected = [reference_hand(h, int(m)) for h, m in zip(hands[:200].tolist(), masks[:200], strict=True)]
    assert evaluate(hands, masks)[:200].tolist() == expected


def test_any_size_is_the_best_five_card_subset():
    """6-13 card hands with wilds: the score is the max over all 5-subsets (five-card scoring is
    checked above against the brute force and exhaustively in test_evaluator_exhaustive)."""
    rng = np.random.default_rng(RNG_SEED + 8)
    for k in range(6, 14):
        hands = random_hands(rng, 300, k)
        masks = random_masks(rng, 300)
        subsets = hands[:, np.array(list(combinations(range(k), 5)))]  # (40, C(k, 5), 5)
        per_subset = evaluate(subsets.reshape(-1, 5), np.repeat(masks, subsets.shape[1]))
        assert (evaluate(hands, masks) == per_subset.reshape(300, -1).max(axis=1)).all()


# --- natural hands against eval7 and treys ---------------------------------------------------------


def same_order(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """Same ranking with the same ties: the dense ranks of both score lists are identical."""
    return bool((np.unique(ours, return_inverse=True)[1] == np.unique(theirs, return_inverse=True)[1]).all())


def test_seven_card_order_matches_eval7():
    rng = np.random.default_rng(RNG_SEED + 2)
    hands = random_hands(rng, 100_000, 7, deck=52)
    deck = [eval7.Card("23456789TJQKA"[c >> 2] + "schd"[c & 3]) for c in range(52)]
    theirs = np.array([eval7.evaluate([deck[c] for c in row]) for row in hands.tolist()])
    assert same_order(evaluate(hands), theirs)


def test_order_matches_treys():
    rng = np.random.default_rng(RNG_SEED + 3)
    hands = random_hands(rng, 20_000, 7, deck=52)
    deck = [treys.Card.new("23456789TJQKA"[c >> 2] + "schd"[c & 3]) for c in range(52)]
    judge = treys.Evaluator()
    theirs = np.array([-judge.evaluate([deck[c] for c in r[:2]], [deck[c] for c in r[2:]]) for r in hands.tolist()])
    assert same_order(evaluate(hands), theirs)


# --- properties: hypothesis on single hands (Python path), numpy batches on the block path ---------

hands_st = st.lists(st.integers(0, 53), min_size=5, max_size=16, unique=True)
masks_st = st.one_of(st.just(0), st.sets(st.integers(0, 12), max_size=3).map(rank_mask), st.integers(0, 8191))


@settings(max_examples=300, deadline=None)
@given(hands_st, masks_st, st.randoms(use_true_random=False), st.integers(0, 4))
def test_order_and_padding_never_matter(hand, mask, rnd, pads):
    shuffled = hand + [-1] * pads
    rnd.shuffle(shuffled)
    assert evaluate(shuffled, mask)[0] == evaluate(hand, mask)[0]


@settings(max_examples=300, deadline=None)
@given(hands_st.filter(lambda h: len(h) < 16), masks_st, st.integers(0, 53))
def test_adding_a_card_never_lowers(hand, mask, extra):
    if extra not in hand:
        assert evaluate(hand + [extra], mask)[0] >= evaluate(hand, mask)[0]


@settings(max_examples=300, deadline=None)
@given(hands_st, masks_st, st.integers(0, 12))
def test_another_wild_rank_never_lowers(hand, mask, rank):
    assert evaluate(hand, mask | (1 << rank))[0] >= evaluate(hand, mask)[0]


@settings(max_examples=300, deadline=None)
@given(hands_st, masks_st, st.permutations(range(4)))
def test_suits_never_matter(hand, mask, perm):
    relabelled = [c if c >= 52 else (c & ~3) | perm[c & 3] for c in hand]
    assert evaluate(relabelled, mask)[0] == evaluate(hand, mask)[0]


@settings(max_examples=200, deadline=None)
@given(hands_st, masks_st)
def test_best_quintet_is_consistent(hand, mask):
    q = best_quintet(hand, mask)
    score = int(evaluate(hand, mask)[0])
    assert isinstance(q, Quintet) and len(q.ids) == 5 and set(q.ids) <= set(hand)
    assert int(evaluate(list(q.ids), mask)[0]) == score == q.score
    assert q.category == category(score) and q.description == describe(score)
    wilds = {c for c in q.ids if c >= 52 or (mask >> (c >> 2)) & 1}
    assert {a for a, _ in q.wild_ids} == wilds
    # The stated substitutes, as explicit cards, score exactly that (duplicates allowed).
    shown = [dict(q.wild_ids).get(c, c) for c in q.ids]
    assert int(reference_five(np.array([shown]) >> 2, np.array([shown]) & 3)[0]) == score


def test_block_path_equals_python_path_and_properties_hold_in_bulk():
    rng = np.random.default_rng(RNG_SEED + 4)
    n = 3 * 8192 + 77  # several blocks and a ragged tail
    for k, deck, pads in [(5, 54, 0), (7, 52, 0), (7, 54, 2), (12, 54, 3), (16, 54, 0)]:
        hands = random_hands(rng, n, k, deck, pads)
        masks = random_masks(rng, n)
        block = evaluate(hands, masks)
        python = np.concatenate([evaluate(hands[i : i + SMALL], masks[i : i + SMALL]) for i in range(0, 4096, SMALL)])
        assert (block[:4096] == python).all()
        shuffled = np.take_along_axis(hands, np.argsort(rng.random(hands.shape), axis=1), axis=1)
        assert (evaluate(shuffled, masks) == block).all()
        perm = rng.permutation(4)
        relabelled = np.where(hands >= 52, hands, (hands & ~3) | perm[hands & 3]).astype(np.int8)
        relabelled[hands < 0] = -1
        assert (evaluate(relabelled, masks) == block).all()
        assert (evaluate(hands, masks | (1 << rng.integers(0, 13, n))) >= block).all()
        assert (evaluate(hands, masks, validate=False) == block).all()


def test_score_rows_on_ragged_lists_equals_the_block_kernel():
    # the engine's showdown path: lists of ids of any lengths, no numpy, no padding needed
    rng = np.random.default_rng(RNG_SEED + 9)
    for k in (5, 7, 8, 11):
        hands = random_hands(rng, 2000, k)
        masks = random_masks(rng, 2000)
        want = evaluate(hands, masks).tolist()
        lengths = rng.integers(5, k + 1, 2000)
        rows = [row[:length] for row, length in zip(hands.tolist(), lengths.tolist(), strict=True)]
        ragged = [int(evaluate(np.array(r, dtype=np.int8), int(m))[0])
                  for r, m in zip(rows[:50], masks[:50], strict=True)]
        assert score_rows(rows[:50], masks[:50].tolist()) == ragged
        assert score_rows(hands.tolist(), masks.tolist()) == want
        assert [category_name(x) for x in want[:50]] == [CATEGORY_NAMES[c] for c in category(want[:50])]


def test_int_and_array_masks_agree_and_dtypes_are_accepted():
    rng = np.random.default_rng(RNG_SEED + 5)
    hands = random_hands(rng, 5000, 9)
    expected = evaluate(hands, 0b1000000001)
    assert (evaluate(hands, np.full(5000, 0b1000000001, np.int64)) == expected).all()
    for dtype in (np.int16, np.int32, np.int64):
        assert (evaluate(hands.astype(dtype), np.uint16(0b1000000001)) == expected).all()
    assert evaluate(hands[:0]).shape == (0,)


# --- bad input: a ValueError naming the row ----------------------------------------------------------


@pytest.mark.parametrize("n", [4, 40_000], ids=["python-path", "block-path"])
@pytest.mark.parametrize(
    ("bad_row", "why"),
    [
        ([0, 1, 2, 3, -1, -1, -1], "only 4 real cards"),
        ([0, 1, 2, 3, 54, -1, -1], "card id 54 at column 4 is out of range"),
        ([0, 1, 2, 3, 4, -2, -1], "card id -2 at column 5 is out of range"),
        ([0, 1, 2, 3, 4, 3, -1], "card 2d appears twice (columns 3 and 5)"),
        ([0, 53, 2, 3, 4, 53, -1], "card BJ appears twice (columns 1 and 5)"),
    ],
)
def test_bad_rows_are_named(n, bad_row, why):
    rng = np.random.default_rng(RNG_SEED + 6)
    hands = random_hands(rng, n, 7)
    row = n - 3
    hands[row] = bad_row
    with pytest.raises(ValueError, match=rf"^row {row}: .*{why.replace('(', '.').replace(')', '.')}"):
        evaluate(hands)


@pytest.mark.parametrize("n", [4, 40_000], ids=["python-path", "block-path"])
def test_bad_wild_masks_are_named(n):
    hands = random_hands(np.random.default_rng(RNG_SEED + 7), n, 7)
    masks = np.zeros(n, np.int64)
    masks[n - 2] = 8192
    with pytest.raises(ValueError, match=rf"^row {n - 2}: wild_ranks mask 8192 is outside"):
        evaluate(hands, masks)
    masks[n - 2] = -1
    with pytest.raises(ValueError, match=rf"^row {n - 2}: wild_ranks mask -1"):
        evaluate(hands, masks)
    with pytest.raises(ValueError, match=rf"shape \({n},\)"):
        evaluate(hands, masks[:-1])
    with pytest.raises(ValueError, match="13-bit"):
        evaluate(hands, 1 << 13)
    with pytest.raises(ValueError, match="integer"):
        evaluate(hands, masks.astype(float))


@pytest.mark.parametrize("n", [3, 40_000], ids=["python-path", "block-path"])
def test_wide_rows_with_many_pads(n):
    """Pads are counted seven columns at a time, so 25 pads in a 30-column row are fine."""
    hands = np.full((n, 30), -1, np.int8)
    hands[:, [0, 6, 13, 21, 29]] = parse_cards("As Ks Qs Js Ts")
    royal = score("As Ks Qs Js Ts")
    assert (evaluate(hands) == royal).all() and (evaluate(hands[:, ::-1]) == royal).all()
    hands[n - 1, 29] = -1
    with pytest.raises(ValueError, match=rf"^row {n - 1}: only 4 real cards"):
        evaluate(hands)
    hands[n - 1, 28] = hands[n - 1, 0]
    with pytest.raises(ValueError, match=rf"^row {n - 1}: card As appears twice .columns 0 and 28."):
        evaluate(hands)
    with pytest.raises(ValueError, match=r"^row 0: only 4 real cards"):
        evaluate(np.tile(np.arange(4, dtype=np.int8), (n, 1)))


def test_bad_shapes_and_types():
    with pytest.raises(ValueError, match="integer card ids"):
        evaluate(np.zeros((2, 7)))
    with pytest.raises(ValueError, match="shape"):
        evaluate(np.zeros((2, 7, 1), np.int8))
    with pytest.raises(ValueError, match="rectangular"):
        evaluate([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]])
    with pytest.raises(ValueError, match=r"^row 0: only 4 real cards"):
        evaluate("As Ks Qs Js")
    with pytest.raises(ValueError, match=r"^row 0: bad card token 'Xs'"):
        evaluate("As Ks Qs Js Xs")
    with pytest.raises(ValueError, match="one hand"):
        best_quintet(np.zeros((2, 5), np.int8))


# --- words ---------------------------------------------------------------------------------------------


def score(text: str, wild: str = "") -> int:
    return int(evaluate(text, rank_mask(wild))[0])


@pytest.mark.parametrize(
    ("hand", "wild", "words"),
    [
        ("As 2d 3c 4h 5s", "", "straight, five-high"),
        ("As Ks 9s 4s RJ", "", "flush, ace-high"),
        ("Kh Kd Ks 7c 7d 2c 3d", "", "full house, kings over sevens"),
        ("As Ah 4c 4d Kc 9s 2d", "", "two pair, aces and fours"),
        ("6s 6h 6d 6c RJ", "", "five of a kind, sixes"),
        ("RJ BJ 2s 2c 2h", "2", "five of a kind, aces"),
        ("Th Jh Qh 2c RJ", "2", "straight flush, ace-high"),
        ("7c 7d 2h 3s 9d", "", "one pair, sevens"),
        ("7c 8d 2h 3s 9d", "", "high card, nine-high"),
        ("7c 7d 7h 3s 9d", "", "three of a kind, sevens"),
        ("7c 7d 7h 7s 9d", "", "four of a kind, sevens"),
        ("9c Td Jh Qs Kd", "", "straight, king-high"),
    ],
)
def test_describe_and_category(hand, wild, words):
    s = score(hand, wild)
    assert describe(s) == words
    assert CATEGORY_NAMES[category(s)] == words.split(",")[0]


def test_rules_examples():
    # A wild in a flush is an ace, even beside the ace: A-A-K-9-4 beats the natural A-K-Q-9-4 flush.
    assert score("As Ks 9s 4s RJ") > score("As Ks Qs 9s 4s") > score("As Ks 9s 4s 3s")
    assert score("As Ks 9s 4s RJ") == score("Ah Kh 9h 4h 2c", "2")  # natural and wild hands tie
    assert score("As 2d 3c 4h 5s") < score("2d 3c 4h 5s 6s")  # the wheel is the lowest straight
    assert category(score("Qs Ks As 2d 3c")) == 0  # no wrap-around
    assert score("As Ad Ac Ah RJ") > score("Ts Js Qs Ks As")  # five of a kind tops a royal flush
    assert score("Kh Kd Ks 7c 7d") == score("Kc Kd Ks 7h 7s")  # suits never break ties
    cats = category(evaluate(np.array([parse_cards("2c 3c 4c 5c 7d RJ"), parse_cards("2c 2d 2h 2s 7d RJ")])))
    assert cats.tolist() == [8, 9] and cats.dtype == np.int8


def test_best_quintet_names_its_substitutes():
    q = best_quintet("As Ks 9s 4s RJ 2d 3h")
    assert q.cards == ("As", "Ks", "9s", "4s", "RJ") and q.wilds == (("RJ", "As"),)
    assert q.description == "flush, ace-high" and q.category_name == "flush"
    q = best_quintet("Th Jh Qh 2c RJ 5d 5s", rank_mask("2"))
    assert sorted(q.wilds) == [("2c", "Kh"), ("RJ", "Ah")] or sorted(q.wilds) == [("2c", "Ah"), ("RJ", "Kh")]
    assert best_quintet("Kh Kd Ks 7c 7d 2c 3d").wilds == ()
