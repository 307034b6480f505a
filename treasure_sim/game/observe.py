"""What a seat sees (rulings §10): the `Observation` its bot is handed at each question, built from the state.

Apart from `state` because it is the one place that decides what leaves the engine for a bot: every field is an
immutable value, and nothing hidden (other hole cards, the deck's order) is in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .state import Hand, Table
from .strategy import Observation

_new_observation = tuple.__new__  # Observation(*values) checks arity; the engine builds them in field order


def observe(table: Table, hand: Hand, seat: int, phase: str, to_call: int = 0, min_raise_to: int = 0,
            max_raise_to: int = 0, legal: tuple[str, ...] = ()) -> Observation:
    """A snapshot for ``seat``: only what rulings §10 allows, sharing nothing mutable.

    Built positionally in ``Observation`` field order: one is made per decision, so it is hot. Every
    field is an immutable value; the per-seat tuples are rebuilt from the hand's lists.
    """
    money, bets, committed, folded, all_in = hand._view or hand.view(table)
    return _new_observation(Observation, (
        phase,
        seat,
        table.n,
        table.hand_no,
        table.dealer,
        hand.hands[seat],
        hand.shared,
        hand.new_treasure,
        table.zone_tuples,
        money,
        bets,
        committed,
        hand.pot,
        folded,
        hand.in_hand,
        all_in,
        len(table._deck),
        hand.round,
        to_call,
        min_raise_to,
        max_raise_to,
        legal,
        hand.actions,
        hand.last_folder,
        table.wilds[seat],
        table.showdowns,
        hand.revealed_hands(table) if hand.revealed else table.nobody,
        table.bot_rules[seat],
        table.restricted[seat],
    ))


def observe_between(table: Table, voters: Sequence[int]) -> list[Observation]:
    """Before a hand (the vote to go on): what each of ``voters`` sees, no hand in progress."""
    n = table.n
    in_hand = tuple([not o for o in table.out])
    zeros = (0,) * n
    money = tuple(table.money)
    base = ["keep_playing", 0, n, table.hand_no, table.dealer, (), (), None, table.zone_tuples, money, zeros,
            zeros, 0, (False,) * n, in_hand, tuple([in_hand[s] and not money[s] for s in range(n)]),
            len(table._deck), 0, 0, 0, 0, (), (), None, 0, table.showdowns, table.nobody, None, ()]
    views = []
    for seat in voters:
        base[1], base[24], base[27], base[28] = seat, table.wilds[seat], table.bot_rules[seat], table.restricted[seat]
        views.append(_new_observation(Observation, base))
    return views
