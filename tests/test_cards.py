"""Cards (rulings §1): ids, notation both ways, values for Diamonds steals, decks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treasure_sim.game.cards import (
    BLACK_JOKER,
    RANKS,
    RED_JOKER,
    SUITS,
    card_id,
    card_names,
    format_card,
    format_cards,
    is_joker,
    make_deck,
    parse_card,
    parse_cards,
    rank_mask,
    rank_of,
    suit_of,
    value_of,
)


def test_ids_follow_rank_times_four_plus_suit():
    assert [parse_card(c) for c in ("2s", "2c", "2h", "2d", "3s", "As", "Ad")] == [0, 1, 2, 3, 4, 48, 51]
    assert (parse_card("RJ"), parse_card("BJ")) == (52, 53) == (RED_JOKER, BLACK_JOKER)
    for r in range(13):
        for s in range(4):
            c = card_id(r, s)
            assert (rank_of(c), suit_of(c), format_card(c)) == (r, s, RANKS[r] + SUITS[s])
    assert rank_of(52) == suit_of(53) == -1 and is_joker(52) and not is_joker(51)


@given(st.integers(0, 53))
def test_format_parse_round_trip(card):
    assert parse_card(format_card(card)) == card


def test_notation_is_lenient_where_the_rulings_say():
    assert parse_card("10h") == parse_card("Th") == parse_card("tH") == parse_card("th")
    assert parse_card("rj") == RED_JOKER and parse_card(" bj ") == BLACK_JOKER
    assert parse_cards("As, 10h RJ").tolist() == [48, 34, 52]
    assert format_cards([48, -1, 34, 53]) == "As Th BJ"
    assert card_names([48, -1, 52]) == ("As", "RJ")


@pytest.mark.parametrize(("token", "why"), [("1s", "rank"), ("Ax", "suit"), ("A", "expected"), ("XJ", "rank")])
def test_bad_tokens_are_named(token, why):
    with pytest.raises(ValueError, match=why):
        parse_card(token)


def test_distinct_and_range_checks():
    with pytest.raises(ValueError, match="As appears twice"):
        parse_cards("As Kd As", distinct=True)
    with pytest.raises(ValueError, match="out of range"):
        parse_cards([54])
    with pytest.raises(ValueError, match="position 1"):
        parse_cards("As Zz")


def test_values_for_steals():
    assert [value_of(parse_card(c)) for c in ["2d", "9s", "Tc", "Jh", "Qd", "Ks"]] == [2, 9, 10, 11, 12, 13]
    assert value_of(parse_card("Ad")) == 14 and value_of(parse_card("Ad"), ace_value=1) == 1
    with pytest.raises(ValueError, match="Joker has no value"):
        value_of(RED_JOKER)


def test_decks():
    assert make_deck(2) == tuple(range(54)) and make_deck(1) == tuple(range(53)) and make_deck(0) == tuple(range(52))
    assert RED_JOKER in make_deck(1) and BLACK_JOKER not in make_deck(1)
    with pytest.raises(ValueError, match="jokers"):
        make_deck(3)


def test_rank_mask():
    assert rank_mask("7A") == (1 << 5) | (1 << 12) == rank_mask([5, 12])
    with pytest.raises(ValueError, match="bad rank"):
        rank_mask([13])
