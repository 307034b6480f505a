"""The after-hand card check (`integrity._cards`) against a plain oracle: the cards in the zones, out of the game
and outside the zones are the deck, each once (compared sorted, as a multiset); the deck and the cards dealt are
distinct cards outside the zones. Hypothesis builds consistent tables and corrupts them."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_sim import Game, load_strategy
from treasure_sim.bots import driver
from treasure_sim.bots.integrity import _cards

DECK = frozenset(range(54))
SORTED_DECK = sorted(DECK)  # the form check_hand keeps the deck in
FOREIGN = (99, -1, "As", 3.5)


@st.composite
def tables(draw):
    """A table split of the 54 cards into outside / four zones / removed, maybe corrupted, and a hand's dealt cards
    (deck order, hole cards, board) drawn from outside, maybe corrupted too."""
    cards = draw(st.permutations(range(54)))
    cuts = sorted(draw(st.lists(st.integers(0, 54), min_size=5, max_size=5)))
    parts = [list(cards[a:b]) for a, b in zip([0, *cuts], [*cuts, 54], strict=True)]
    outside, zones, removed = parts[0], parts[1:5], parts[5]
    pools = [outside, *zones, removed]
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["duplicate", "drop", "foreign", "move"]))
        src, dst = draw(st.sampled_from(pools)), draw(st.sampled_from(pools))
        if not src:
            continue
        card = src[draw(st.integers(0, len(src) - 1))]
        if kind == "duplicate":
            dst.append(card)
        elif kind == "drop":
            src.remove(card)
        elif kind == "foreign":
            src[src.index(card)] = draw(st.sampled_from(FOREIGN))
        else:  # a move keeps the table consistent
            src.remove(card)
            dst.append(card)
    pool = [c for c in outside if type(c) is int] or [0]
    dealt = draw(st.lists(st.sampled_from(pool), max_size=12))
    if draw(st.booleans()):
        dealt.append(draw(st.sampled_from([c for z in zones for c in z] or [0])))  # maybe a zone's card
    cut1, cut2 = sorted(draw(st.lists(st.integers(0, len(dealt)), min_size=2, max_size=2)))
    table = SimpleNamespace(_outside=outside, treasures=zones, removed=removed, _deck=dealt[:cut1])
    hand = SimpleNamespace(hands=[tuple(dealt[cut1:cut2])], shared=tuple(dealt[cut2:]), taken=None,
                           new_treasure=None, shown=())
    return table, hand


def _oracle(table, hand) -> bool:
    every = [*table._outside, *(c for z in table.treasures for c in z), *table.removed]
    if Counter(map(repr, every)) != Counter(map(repr, DECK)):  # repr: 3.5 is no card, and neither is "As"
        return False
    dealt = [*table._deck, *(c for h in hand.hands for c in h), *hand.shared]
    return len(set(dealt)) == len(dealt) and set(dealt) <= set(table._outside)


@settings(max_examples=400, deadline=None)
@given(tables())
def test_the_card_check_agrees_with_a_multiset_oracle(case):
    table, hand = case
    assert (_cards(table, hand, SORTED_DECK, frozenset(SORTED_DECK)) is None) == _oracle(table, hand)


def test_the_card_check_passes_every_hand_of_a_real_game(monkeypatch):
    checked = []
    real = driver.check_hand

    def spy(game, h, record):
        checked.append(_cards(game.table, h, sorted(game.table.full_deck), frozenset(game.table.full_deck)))
        real(game, h, record)

    monkeypatch.setattr(driver, "check_hand", spy)
    Game([load_strategy("random") for _ in range(4)], seed=3).play()
    assert len(checked) > 10 and checked == [None] * len(checked)
