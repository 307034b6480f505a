"""Exhaustive oracles for the evaluator: published category counts over every 5- and 7-card hand."""

from __future__ import annotations

import numpy as np
import pytest

from treasure_sim.game.evaluator import category, evaluate

HIGH_TO_LOW = (9, 8, 7, 6, 5, 4, 3, 2, 1, 0)  # five of a kind .. high card


def colex_combinations(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) as int8 rows in colex order, so those of range(m) are a prefix."""
    rows = np.arange(n, dtype=np.int8)[:, None]
    for _ in range(2, k + 1):
        counts = [len(rows[rows[:, -1] < t]) for t in range(n)]  # subsets of range(t), a prefix
        rows = np.concatenate(
            [np.hstack([rows[:c], np.full((c, 1), t, np.int8)]) for t, c in enumerate(counts) if c]
        )
    return rows


def counts_by_category(scores: np.ndarray) -> list[int]:
    per_cat = np.bincount(category(scores), minlength=10)
    return [int(per_cat[c]) for c in HIGH_TO_LOW]


def test_colex_combinations_prefix_property():
    rows = colex_combinations(8, 3)
    assert len(rows) == 56 and len({tuple(r) for r in rows.tolist()}) == 56
    assert (np.diff(rows, axis=1) > 0).all()
    assert rows[:20].max() == 5  # the C(6, 3) subsets of range(6) come first


@pytest.mark.parametrize(
    ("deck", "wild", "expected"),
    [
        (52, 0, [0, 40, 624, 3_744, 5_108, 10_200, 54_912, 123_552, 1_098_240, 1_302_540]),
        (53, 0, [13, 204, 3_120, 6_552, 7_804, 20_532, 137_280, 123_552, 1_268_088, 1_302_540]),
        (52, 1, [672, 2_552, 31_552, 12_672, 14_472, 62_232, 355_080, 95_040, 1_225_008, 799_680]),
    ],
    ids=["52-natural", "53-one-joker", "52-deuces-wild"],
)
def test_every_five_card_hand(deck, wild, expected):
    scores = evaluate(colex_combinations(deck, 5), wild)
    assert counts_by_category(scores) == expected


def test_7462_distinct_five_card_values():
    assert np.unique(evaluate(colex_combinations(52, 5))).size == 7_462


@pytest.mark.slow
def test_every_seven_card_hand():
    """All 133,784,560 hands: first two cards fixed in a loop, the other five from a colex table."""
    five = colex_combinations(50, 5)
    totals = np.zeros(10, np.int64)
    block = np.empty((len(five), 7), np.int8)
    for a in range(52):
        for b in range(a + 1, 47):
            m = int(np.searchsorted(five[:, 4], 51 - b))
            rows = block[:m]
            rows[:, 0], rows[:, 1] = a, b
            np.add(five[:m], b + 1, out=rows[:, 2:])
            totals += np.bincount(category(evaluate(rows, validate=False)), minlength=10)
    assert int(totals.sum()) == 133_784_560
    assert [int(totals[c]) for c in HIGH_TO_LOW] == [
        0, 41_584, 224_848, 3_473_184, 4_047_644, 6_180_020, 6_461_620, 31_433_400, 58_627_800, 23_294_460,
    ]  # fmt: skip
