"""The Treasure steps of a hand (11 Spades, 12 Hearts, 14–15 the New Treasure, 16 Diamonds) and restricted play.

Why a module of their own: these are the rules a designer varies most (the suit switches, the zone limit, the
Hearts cap, where a spent Diamond goes) and the ones restricted play bars a seat from; the engine's main loop
(betting, showdown, the game) stays readable beside them. Each step is a function of the table, the hand and
the seats; ``barred`` is the frozenset of seats restricted from that step's power (seeds/rulings.md, "Restricted play").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial

import numpy as np

from .cards import DIAMONDS, HEARTS, RANK, SPADES, is_joker
from .history import StealEvent
from .rules import RuleSet
from .seats import Seat
from .state import NAMES, DeckEmpty, Hand, Table, observe
from .strategy import FOLD, POWERS, Steal

_new_steal = _new_record = tuple.__new__  # Steal(*values) etc. check arity; the steps build them in field order

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


def move_spades(table: Table, hand: Hand, seats: Sequence[Seat], contenders: list[int], barred: frozenset[int]) -> None:
    """Step 11: in turn order, players still in may move Spades Treasures to their hand."""
    for s in contenders:
        mine = table.zone_suit(s, SPADES)
        if mine and s not in barred:
            for card in seats[s].move_spades(partial(observe, table, hand, s, "spades"), mine):
                hand.move_spade(table, s, card)


def draw_hearts(table: Table, hand: Hand, seats: Sequence[Seat], contenders: list[int], rules: RuleSet,
                barred: frozenset[int]) -> bool:
    """Step 12: Hearts draws, in turn order, one optional card at a time. True if the deck ran out.

    The deck runs out when a player chooses to draw and no card is left (rulings §7). A player draws at most
    ``hearts_cap`` cards (0: no cap); it is not asked for draws beyond the cap.
    """
    chain = rules.hearts_chain
    cap = rules.hearts_cap or 1 << 30
    for s in contenders:
        ranks = {RANK[c] for c in table.zone_suit(s, HEARTS)}
        if not ranks or s in barred:
            continue
        owed = sum(1 for c in hand.hands[s] + hand.shared if RANK[c] in ranks)  # a Joker's rank, -1, never matches
        seat, room = seats[s], cap
        while owed > 0 and room > 0:
            if not seat.draw_heart(partial(observe, table, hand, s, "hearts")):
                break  # declining gives up the rest
            try:
                card = hand.draw_heart(table, s)
            except DeckEmpty:
                return True
            owed -= 1
            room -= 1
            if chain and RANK[card] in ranks:
                owed += 1
    return False


def award_new_treasure(table: Table, hand: Hand, seats: Sequence[Seat], rules: RuleSet,
                       barred: frozenset[int]) -> int | None:
    """Steps 14–15: the last folder takes the New Treasure (a Joker: a card of their choice); the card, if any.

    A last folder barred from New Treasures passes it to the latest folder before it who is not (none: back
    into the deck). A taker whose zone is full (``zone_limit``) refuses it, gives up its oldest Treasure, or
    chooses, as ``at_limit`` says; a refused or given-up card goes back into the deck.
    """
    card, taker = hand.new_treasure, hand.last_folder
    if card is None or taker is None:
        return None
    if taker in barred:
        taker = _latest_folder_not_in(hand, barred)
        if taker is None:
            return None
        hand.passed_to = taker
    limit = rules.zone_limit
    full = limit > 0 and len(table.treasures[taker]) >= limit
    if full and rules.at_limit == "refuse":
        return None
    if is_joker(card):
        if rules.joker_treasure == "discard":
            return None
        options = tuple(c for c in hand.hole[taker] + hand.shared if not is_joker(c))
        if not options:
            return None
        default = max(options, key=lambda c: table.values[c])
        card = seats[taker].choose_joker_treasure(partial(observe, table, hand, taker, "joker_treasure"), options,
                                                  default)
    if full:
        zone = tuple(table.treasures[taker])
        if rules.at_limit == "discard_oldest":
            out = zone[0]  # zones keep their cards in the order they entered
        else:
            chosen = seats[taker].make_room(partial(observe, table, hand, taker, "make_room"), card, zone)
            if chosen is None:
                return None
            out = chosen
        table.remove_treasure(taker, out)
        hand.given_up.append((taker, NAMES[out]))
    table.add_treasure(taker, card)
    return card


def _latest_folder_not_in(hand: Hand, barred: frozenset[int]) -> int | None:
    """The seat whose fold came latest in the hand among those not in ``barred``; None if there is none."""
    for action in reversed(hand.actions):
        if action.kind == FOLD and action.seat not in barred:
            return action.seat
    return None


def steal(table: Table, hand: Hand, seats: Sequence[Seat], barred: frozenset[int]) -> list[StealEvent]:
    """Step 16: in turn order, Diamonds held when the step began may each buy one steal.

    A steal never grows the thief's zone (the Diamond leaves it first), so the zone limit never stops one.
    """
    zones, values, n = table.treasures, table.values, table.n
    held = {s: table.zone_suit(s, DIAMONDS) for s in hand.order
            if table.suits_held[s] >> DIAMONDS & 1 and "steal" in seats[s].asks and s not in barred}
    events: list[StealEvent] = []
    for s in hand.order:
        while held.get(s):
            usable = [d for d in held[s] if d in zones[s]]
            options = tuple([_new_steal(Steal, (d, v, c)) for d in usable for v in range(n) if v != s
                             for c in zones[v] if values[c] <= values[d]])
            if not options:
                break
            choice = seats[s].steal(partial(observe, table, hand, s, "steal"), options)
            if choice is None:
                break
            diamond, victim, card = choice
            table.steal(s, diamond, victim, card)
            events.append(_new_record(StealEvent, (s, NAMES[diamond], victim, NAMES[card])))
    return events
