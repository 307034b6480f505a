"""Cards: integer ids, the notation of rulings §1, and the decks."""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "schd"  # spades, clubs, hearts, diamonds: suit_index 0..3
SUIT_NAMES = ("spades", "clubs", "hearts", "diamonds")
SPADES, CLUBS, HEARTS, DIAMONDS = range(4)
RANK_NAMES = (
    "deuce", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "jack", "queen", "king", "ace",
)  # fmt: skip
RED_JOKER, BLACK_JOKER = 52, 53
JOKERS = (RED_JOKER, BLACK_JOKER)
PAD = -1
N_CARDS = 54

_JOKER_TOKENS = MappingProxyType({"RJ": RED_JOKER, "BJ": BLACK_JOKER})
_NAMES = tuple(r + s for r in RANKS for s in SUITS) + ("RJ", "BJ")


def card_id(rank_index: int, suit_index: int) -> int:
    """The id of a natural card: ``rank_index * 4 + suit_index``."""
    return rank_index * 4 + suit_index


RANK: tuple[int, ...] = tuple(c // 4 for c in range(52)) + (-1, -1)
"""Rank index by card id (``RANK[c]``, the fast form of :func:`rank_of`): 0 deuce .. 12 ace; -1 for a Joker."""
SUIT: tuple[int, ...] = tuple(c % 4 for c in range(52)) + (-1, -1)
"""Suit index by card id (``SUIT[c]``, the fast form of :func:`suit_of`): 0..3 (s c h d); -1 for a Joker."""
RANK_BIT: tuple[int, ...] = tuple(1 << r if r >= 0 else 0 for r in RANK)
"""``1 << rank`` by card id, 0 for a Joker: a card against a 13-bit rank mask (Clubs wilds, Hearts ranks)."""


def rank_of(card: int) -> int:
    """Rank index 0 (deuce) .. 12 (ace); -1 for a Joker, which has no rank."""
    return RANK[card]


def suit_of(card: int) -> int:
    """Suit index 0..3 (s c h d); -1 for a Joker."""
    return SUIT[card]


def is_joker(card: int) -> bool:
    return card >= RED_JOKER


def value_of(card: int, ace_value: int = 14) -> int:
    """A card's value for Diamonds steals: 2..10, J=11, Q=12, K=13, A=ace_value (14 or 1)."""
    if is_joker(card):
        raise ValueError(f"a Joker has no value: {format_card(card)}")
    rank = RANK[card]
    return ace_value if rank == 12 else rank + 2


def make_deck(jokers: int = 2) -> tuple[int, ...]:
    """The ids of a fresh deck: the 52 naturals, then RJ, then BJ, as many Jokers as asked."""
    if jokers not in (0, 1, 2):
        raise ValueError(f"jokers must be 0, 1 or 2, got {jokers!r}")
    return tuple(range(52 + jokers))


DECK = MappingProxyType({52 + j: make_deck(j) for j in (0, 1, 2)})
"""The deck by size: ``DECK[52]``, ``DECK[53]`` (one Joker, RJ), ``DECK[54]``."""


def format_card(card: int) -> str:
    if not 0 <= card < N_CARDS:
        raise ValueError(f"card id {card!r} is out of range 0..53")
    return _NAMES[card]


def format_cards(cards: Iterable[int]) -> str:
    """``"As Th RJ"``; padding (-1) is skipped."""
    return " ".join(_NAMES[c] for c in (int(c) for c in cards) if c != PAD)


def card_names(cards: Iterable[int]) -> tuple[str, ...]:
    """The cards as a tuple of strings, for records."""
    return tuple(_NAMES[int(c)] for c in cards if int(c) != PAD)


def parse_card(token: str) -> int:
    """One card: ``As``, ``td``, ``10h``, ``RJ``/``BJ``. Raises ValueError naming the token."""
    tok = token.strip()
    joker = _JOKER_TOKENS.get(tok.upper())
    if joker is not None:
        return joker
    if len(tok) == 3 and tok[:2] == "10":
        tok = "T" + tok[2]
    if len(tok) != 2:
        raise ValueError(f"bad card token {token!r}: expected rank+suit like 'As', 'Td', '10h', or RJ/BJ")
    rank = RANKS.find(tok[0].upper())
    suit = SUITS.find(tok[1].lower())
    if rank < 0:
        raise ValueError(f"bad card token {token!r}: rank {tok[0]!r} is not one of {RANKS}")
    if suit < 0:
        raise ValueError(f"bad card token {token!r}: suit {tok[1]!r} is not one of {SUITS}")
    return card_id(rank, suit)


def parse_cards(cards: str | Iterable[str | int], *, distinct: bool = False) -> np.ndarray:
    """Cards from a string ``"As 10h RJ"`` (or commas), a list of tokens, or ids, as int8 ids.

    With ``distinct=True`` a card given twice is an error naming it and both positions.
    """
    items = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
    ids = []
    for pos, item in enumerate(items):
        if isinstance(item, str):
            try:
                ids.append(parse_card(item))
            except ValueError as err:
                raise ValueError(f"{err} (position {pos})") from None
        else:
            value = int(item)
            if not 0 <= value < N_CARDS:
                raise ValueError(f"card id {item!r} at position {pos} is out of range 0..53")
            ids.append(value)
    if distinct:
        seen: dict[int, int] = {}
        for pos, c in enumerate(ids):
            if c in seen:
                raise ValueError(f"card {_NAMES[c]} appears twice (positions {seen[c]} and {pos})")
            seen[c] = pos
    return np.asarray(ids, dtype=np.int8)


def rank_mask(ranks: Iterable[int | str]) -> int:
    """A 13-bit mask of ranks (bit r = rank index r), from indexes or rank characters."""
    mask = 0
    for r in ranks:
        index = RANKS.find(r.upper()) if isinstance(r, str) else int(r)
        if not 0 <= index < 13:
            raise ValueError(f"bad rank {r!r}: expected one of {RANKS} or an index 0..12")
        mask |= 1 << index
    return mask
