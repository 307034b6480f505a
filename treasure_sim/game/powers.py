"""Restricted play: which seats may not use which powers (seeds/rulings.md, "Restricted play").

The Treasure steps themselves (11 Spades, 12 Hearts, 14–15 the New Treasure, 16 Diamonds) are phases of
`gamestate.GameState`; ``barred`` there is, per power, the frozenset of seats restricted from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .history import ActionEvent
from .strategy import FOLD, POWERS

Restrict = Mapping[int, Iterable[str]]
"""``Game(restrict=...)``: per seat, the powers (``POWERS`` names) it may not use."""


def check_restrict(restrict: Restrict | None, n: int) -> tuple[tuple[str, ...], ...]:
    """Per seat, the powers it is barred from, in ``POWERS`` order (``()`` for none); a clear error otherwise."""
    barred: list[tuple[str, ...]] = [()] * n
    if restrict is None:
        return tuple(barred)
    if not isinstance(restrict, Mapping):
        raise ValueError(f"restrict must be a mapping {{seat: {{power, ...}}}}, got {type(restrict).__name__}")
    for seat, powers in restrict.items():
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < n:
            raise ValueError(f"restrict: seat {seat!r} is not a seat 0..{n - 1}")
        if isinstance(powers, str) or not isinstance(powers, Iterable):
            raise ValueError(f"restrict[{seat}] must be a collection of power names such as {{'clubs'}}, "
                             f"got {powers!r}")
        names = list(powers)
        unknown = [p for p in names if p not in POWERS]
        if unknown:
            raise ValueError(f"restrict[{seat}]: unknown power(s) {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(POWERS)}")
        barred[int(seat)] = tuple(p for p in POWERS if p in names)
    return tuple(barred)


def barred_seats(restricted: Sequence[tuple[str, ...]]) -> dict[str, frozenset[int]]:
    """Per power, the seats that may not use it (an empty set for every power when nobody is restricted)."""
    return {p: frozenset(s for s, barred in enumerate(restricted) if p in barred) for p in POWERS}


def latest_folder_not_in(actions: Sequence[ActionEvent], barred: frozenset[int]) -> int | None:
    """The seat whose fold came latest in the hand among those not in ``barred``; None if there is none."""
    for action in reversed(actions):
        if action.kind == FOLD and action.seat not in barred:
            return action.seat
    return None
