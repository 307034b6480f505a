"""A new game's scenario arguments (`Game`'s and `GameState.new`'s ``deck=``, ``treasures=``, ``money=``) checked
and read, each error naming the argument and the culprit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .cards import format_card, is_joker, parse_cards

__all__ = ["check_money", "check_stacked_deck", "check_treasures"]


def check_money(money: Sequence[int] | None, n: int, starting: int) -> list[int]:
    """The stacks: ``starting`` each, or one whole number >= 0 per seat."""
    if money is None:
        return [starting] * n
    if len(money) != n or any(isinstance(m, bool) or not isinstance(m, int | np.integer) or m < 0
                              for m in money):
        raise ValueError(f"money must be {n} whole numbers >= 0, one per seat; got {list(money)!r}")
    return [int(m) for m in money]


def check_treasures(treasures: Mapping | None, n: int, limit: int = 0) -> list[list[int]]:
    """Pre-filled Treasure Zones, ``{seat: "7c Kh"}``: distinct cards, no Jokers, at most ``limit`` a zone (0: any)."""
    zones: list[list[int]] = [[] for _ in range(n)]
    seen: dict[int, int] = {}
    for seat, cards in (treasures or {}).items():
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < n:
            raise ValueError(f"treasures: seat {seat!r} is not a seat 0..{n - 1}")
        for c in parse_cards(cards, distinct=True).tolist():
            if is_joker(c):
                raise ValueError(f"treasures: seat {seat} has {format_card(c)}; Jokers never enter a zone")
            if c in seen:
                raise ValueError(f"treasures: {format_card(c)} is in the zones of seats {seen[c]} and {seat}")
            seen[c] = int(seat)
            zones[int(seat)].append(c)
        if limit and len(zones[int(seat)]) > limit:
            raise ValueError(f"treasures: seat {seat} has {len(zones[int(seat)])} Treasures, more than the "
                             f"rules' zone_limit of {limit}")
    return zones


def check_stacked_deck(deck: str | Sequence | None, zones: list[list[int]], full: tuple[int, ...]) -> list[int]:
    """Cards to put on top of the first deck, in deal order: distinct, in this deck, in no zone."""
    if deck is None:
        return []
    stacked = parse_cards(deck, distinct=True).tolist()
    in_zone = {c for z in zones for c in z}
    for c in stacked:
        if c not in full:
            raise ValueError(f"deck: {format_card(c)} is not in a deck with these rules' Jokers")
        if c in in_zone:
            raise ValueError(f"deck: {format_card(c)} is also in a Treasure Zone")
    return stacked
