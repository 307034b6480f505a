"""The state of a game: the table between hands and the hand in progress (what a seat sees of it: `observe`)."""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from operator import sub
from types import MappingProxyType

import numpy as np

from .cards import CLUBS, RANK_BIT, SUIT, format_card, value_of
from .history import ActionEvent, HandRecord, MixedDecision, PotResult, ShownHand, StealEvent
from .rules import RuleSet

NAMES = tuple(format_card(c) for c in range(54))
"""Card names by id, for records built on the hot path (``NAMES[c]`` beats ``format_card``)."""

_new_event = tuple.__new__  # ActionEvent(...) and HandRecord(...) check arity; the engine builds them in order
_SUIT_BIT = tuple(1 << s for s in SUIT[:52])  # per card id: its suit's bit in ``Table.suits_held``
_CLUB_RANK_BIT = tuple(RANK_BIT[c] if SUIT[c] == CLUBS else 0 for c in range(52))  # a Clubs card's rank bit, else 0
_VALUES = MappingProxyType({ace: tuple(value_of(c, ace) for c in range(52)) for ace in (1, 14)})


class _FewNames(dict):
    """Names of card tuples of at most two cards (hole cards, moved Spades, Hearts draws), each made once."""

    def __missing__(self, cards: tuple[int, ...]) -> tuple[str, ...]:
        value = names(cards)
        if len(cards) <= 2:  # at most 54 * 53 + 54 + 1 keys
            self[cards] = value
        return value


_few_names = _FewNames().__getitem__
"""``_few_names(cards)``: the names of a tuple of card ids, kept for tuples of up to two cards."""


def names(cards: Sequence[int]) -> tuple[str, ...]:
    """Card ids (plain ints, no padding) as names."""
    return tuple([NAMES[c] for c in cards])  # a comprehension: map over a tuple's __getitem__ is slower


class DeckEmpty(Exception):
    """A card had to be drawn and the deck was empty (the game ends, rulings §7)."""


class Table:
    """What lasts between hands: stacks, Treasure Zones, the deck, the button, who is out.

    The deck and the zones change only through the methods here, so every card stays accounted for.
    The zones are read far more often than they change (every observation shows them), so each change
    updates their snapshots at once: ``zone_tuples`` (for bots), ``zone_names`` (for records), ``wilds`` (each
    seat's Clubs ranks), ``suits_held`` and each seat's cards of each suit (`zone_suit`).
    """

    __slots__ = ("_after", "_by_suit", "_clubs", "_deck", "_names", "_outside", "_remove_spent", "_tuples", "_wilds",
                 "ante", "bot_rules", "dealer", "full_deck", "hand_no", "money", "n", "nobody", "orders", "out",
                 "removed", "restricted", "rules", "showdowns", "suits_held", "treasures", "values", "wilds",
                 "zone_names", "zone_tuples")

    def __init__(self, n: int, rules: RuleSet, full_deck: tuple[int, ...], money: list[int],
                 treasures: list[list[int]], dealer: int,
                 restricted: Sequence[tuple[str, ...]] | None = None) -> None:
        self.n = n
        self.rules = rules
        self.ante = rules.ante  # the ante of the hand about to start (or being played): RuleSet.ante_at
        # per seat, the powers it may not use (restricted play; () for none), as its observations show them
        self.restricted: tuple[tuple[str, ...], ...] = tuple(restricted) if restricted else ((),) * n
        self._clubs = [rules.clubs and "clubs" not in barred for barred in self.restricted]  # Clubs wild for it
        self._remove_spent = rules.spent_diamonds == "removed"
        self.removed: list[int] = []  # cards out of the game for good (spent Diamonds when so ruled), in order
        # each seat's own copy of the rules, handed to its bot (setup, observations); never read by the engine
        self.bot_rules = tuple(rules.copy() for _ in range(n))
        self.full_deck = full_deck
        self.money = money
        self.treasures = treasures  # read freely; changed only by add_treasure / remove_treasure
        self.out = [False] * n
        self.dealer = dealer
        self.hand_no = 0
        self._deck: list[int] = []  # the top of the deck is the END of the list
        self.showdowns: tuple[ShownHand, ...] = ()
        self.values = _VALUES[rules.ace_value]  # Diamonds steal values
        self.nobody: tuple[None, ...] = (None,) * n  # a per-seat tuple of nothing (no hand revealed)
        self.orders = tuple(tuple((d + 1 + i) % n for i in range(n)) for d in range(n))  # turn order by dealer
        self._after: dict[tuple[int, ...], dict[int, list[int]]] = {}
        held = {c for z in treasures for c in z}
        self._outside = [c for c in full_deck if c not in held]  # the cards in no zone, in id order
        self.suits_held = [0] * n  # per seat, a bit (1 << suit) for each suit among its Treasures
        self._tuples: list[tuple[int, ...]] = [()] * n
        self._names: list[tuple[str, ...]] = [()] * n
        self._wilds = [0] * n
        self._by_suit: list[list[tuple[int, ...]]] = [[(), (), (), ()] for _ in range(n)]  # per seat and suit, in order
        self.zone_tuples: tuple[tuple[int, ...], ...] = ()
        self.zone_names: tuple[tuple[str, ...], ...] = ()
        self.wilds: tuple[int, ...] = ()
        self._zones_changed(*range(n))

    def copy(self) -> Table:
        """An independent copy (for `GameState.clone`): every list copied, the immutable snapshots shared."""
        new = Table.__new__(Table)
        for name in ("_after", "ante", "bot_rules", "dealer", "full_deck", "hand_no", "n", "nobody", "orders",
                     "restricted", "rules", "showdowns", "values", "wilds", "zone_names", "zone_tuples",
                     "_clubs", "_remove_spent"):
            setattr(new, name, getattr(self, name))
        for name in ("_deck", "_names", "_outside", "_tuples", "_wilds", "money", "out", "removed", "suits_held"):
            setattr(new, name, list(getattr(self, name)))
        new.treasures = [list(z) for z in self.treasures]
        new._by_suit = [list(suits) for suits in self._by_suit]
        return new

    # ----- the deck ----------------------------------------------------------------------------------
    @property
    def deck_size(self) -> int:
        return len(self._deck)

    @property
    def removes_spent(self) -> bool:
        """Spent Diamonds leave the game (``spent_diamonds = "removed"``) instead of going under the deck."""
        return self._remove_spent

    def deck_list(self) -> list[int]:
        """The deck as a new list, bottom card first (for `GameState.sample_hidden`)."""
        return list(self._deck)

    def set_deck(self, cards: list[int]) -> None:
        """Replace the deck (bottom card first) by as many cards, some swapped with hidden hole cards
        (`GameState.sample_hidden`, which keeps every card accounted for)."""
        if len(cards) != len(self._deck):
            raise ValueError(f"set_deck: {len(cards)} cards for a deck of {len(self._deck)}")
        self._deck = cards

    def rebuild(self, deck: Sequence[int], removed: Sequence[int]) -> None:
        """Set the deck (bottom card first) and the cards out of the game for good, for a state rebuilt from what
        one seat sees (`resample.state_from_observation`); the caller keeps every card accounted for."""
        self._deck = list(deck)
        self.removed = list(removed)
        gone = set(removed)
        self._outside = [c for c in self._outside if c not in gone]

    def deck_top_first(self) -> tuple[int, ...]:
        """The deck, top card first (for tests and what-ifs; never shown to a bot)."""
        return tuple(self._deck[::-1])

    def draw(self) -> int:
        """The top card; `DeckEmpty` if there is none."""
        if not self._deck:
            raise DeckEmpty
        return self._deck.pop()

    def put_under(self, card: int) -> None:
        """A card to the bottom of the deck (a Diamond spent on a steal)."""
        self._deck.insert(0, card)

    def reshuffle(self, rng: np.random.Generator, stacked: Sequence[int] = ()) -> None:
        """Step 17: every card not in a Treasure Zone back into the deck, shuffled; ``stacked`` on top."""
        if stacked:
            held = {c for z in self.treasures for c in z}
            held.update(stacked)
            held.update(self.removed)
            rest = [c for c in self.full_deck if c not in held]
            rng.shuffle(rest)
            self._deck = rest + list(stacked)[::-1]
            return
        self._deck = rest = self._outside.copy()  # the same cards in the same order as filtering the full deck
        rng.shuffle(rest)

    # ----- the Treasure Zones ------------------------------------------------------------------------
    def add_treasure(self, seat: int, card: int) -> None:
        self._outside.remove(card)
        self._put(seat, card)
        self._publish()

    def remove_treasure(self, seat: int, card: int) -> None:
        self._take(seat, card)
        insort(self._outside, card)
        self._publish()

    def steal(self, thief: int, diamond: int, victim: int, card: int) -> None:
        """Step 16: ``thief``'s Diamond to the bottom of the deck (or out of the game, when the rules say so),
        ``card`` from ``victim``'s zone to its own."""
        self._take(thief, diamond)
        if self._remove_spent:
            self.removed.append(diamond)  # never back in the deck: not in ``_outside``
        else:
            insort(self._outside, diamond)
            self.put_under(diamond)
        self._take(victim, card)
        self._put(thief, card)
        self._publish()

    # A card in or out of a zone updates the zone's views in place (a zone holds up to dozens of cards, changed a card
    # at a time): `_zones_changed` rebuilds them from the zones, as a test checks these updates do.
    def _put(self, seat: int, card: int) -> None:
        self.treasures[seat].append(card)
        self._tuples[seat] += (card,)
        self._names[seat] += (NAMES[card],)
        self._by_suit[seat][SUIT[card]] += (card,)
        self.suits_held[seat] |= _SUIT_BIT[card]
        if self._clubs[seat]:
            self._wilds[seat] |= _CLUB_RANK_BIT[card]

    def _take(self, seat: int, card: int) -> None:
        zone = self.treasures[seat]
        i = zone.index(card)
        del zone[i]
        held, names, by_suit, suit = self._tuples[seat], self._names[seat], self._by_suit[seat], SUIT[card]
        self._tuples[seat], self._names[seat] = held[:i] + held[i + 1:], names[:i] + names[i + 1:]
        by_suit[suit] = tuple([c for c in by_suit[suit] if c != card])  # at most 13
        if not by_suit[suit]:
            self.suits_held[seat] &= ~_SUIT_BIT[card]
        self._wilds[seat] &= ~_CLUB_RANK_BIT[card]  # one Clubs card per rank: its rank is no longer wild here

    def _publish(self) -> None:
        self.zone_tuples, self.zone_names, self.wilds = tuple(self._tuples), tuple(self._names), tuple(self._wilds)

    def _zones_changed(self, *seats: int) -> None:
        clubs = self._clubs
        for seat in seats:
            zone = self.treasures[seat]
            self._tuples[seat] = tuple(zone)
            self._names[seat] = tuple([NAMES[c] for c in zone])
            by_suit: list[list[int]] = [[], [], [], []]
            wild = suits = 0
            for c in zone:
                by_suit[SUIT[c]].append(c)
                suits |= _SUIT_BIT[c]
                wild |= _CLUB_RANK_BIT[c]
            self._by_suit[seat] = [tuple(cards) for cards in by_suit]
            self._wilds[seat] = wild if clubs[seat] else 0
            self.suits_held[seat] = suits
        self._publish()

    def zone_suit(self, seat: int, suit: int) -> list[int]:
        """``seat``'s Treasures of one suit (zones never hold a Joker)."""
        return list(self._by_suit[seat][suit])

    def after(self, order: list[int]) -> dict[int, list[int]]:
        """Per seat of ``order`` (a hand's turn order), everyone else in it, from the next seat round (kept)."""
        key = tuple(order)
        rotations = self._after.get(key)
        if rotations is None:
            rotations = self._after[key] = {s: order[k + 1:] + order[:k] for k, s in enumerate(order)}
        return rotations

    def wild_mask(self, seat: int) -> int:
        """Ranks wild for ``seat``: one bit per Clubs Treasure in its zone (when Clubs are on and it may use them)."""
        return self.wilds[seat]

    def zones_as_names(self) -> tuple[tuple[str, ...], ...]:
        return self.zone_names


class Hand:
    """One hand in progress. Per-seat lists are indexed by seat.

    Cards reach a hand only through :meth:`deal_hole`, :meth:`deal_shared`, :meth:`move_spade` and
    :meth:`draw_heart`; chips only through :meth:`pay_antes`, :meth:`bet`, :meth:`give_back` and
    :meth:`pay`; actions only through :meth:`bet` and :meth:`fold`; so the record agrees with the table.
    Each seat's hand, the shared cards and the actions are kept as tuples, ready to be shown to a bot
    without a copy.
    """

    __slots__ = ("_still", "_view", "actions", "all_in", "bets", "committed", "drawn", "errors_before", "folded",
                 "given_up", "hands", "hole", "in_hand", "last_folder", "live", "mixed", "new_treasure", "order",
                 "passed_to", "pot", "pots", "ran_out", "removed_before", "returned", "revealed", "round", "shared",
                 "shown", "spades_moved", "start_money", "steals", "taken", "void", "zones_before")

    def __init__(self, table: Table, errors_before: list[int] | None = None) -> None:
        n = table.n
        out, money = table.out, table.money
        self.in_hand = tuple([not o for o in out])
        self.order = [s for s in table.orders[table.dealer] if not out[s]]  # the seats dealt in
        self.hands: list[tuple[int, ...]] = [()] * n
        self.hole: list[tuple[int, ...]] = [()] * n
        self.shared: tuple[int, ...] = ()
        self.new_treasure: int | None = None
        self.bets = [0] * n
        self.committed = [0] * n
        self.pot = 0  # every chip committed this hand
        self.folded = [False] * n
        self.all_in = [not out[s] and not money[s] for s in range(n)]  # dealt in and nothing behind
        self.last_folder: int | None = None
        self.live = len(self.order)  # seats dealt in and not folded
        self.actions: tuple[ActionEvent, ...] = ()
        self.round = 0
        self.spades_moved: list[tuple[int, ...]] = [()] * n
        self.drawn: list[tuple[int, ...]] = [()] * n
        self.revealed = False  # step 12 has begun: the hands still in are face up
        self._view: tuple | None = None  # the chips and folds as tuples for bots; None when they changed
        self._still: tuple[bool, ...] | None = None  # per seat: dealt in and not folded; None after a fold
        # the outcome, filled in as the steps go, for the record
        self.start_money = list(money)
        self.zones_before = table.zone_names
        self.errors_before = errors_before or [0] * n  # how many errors each bot had made before the hand
        self.returned: tuple[int, int] | None = None
        self.pots: list[PotResult] = []
        self.shown: list[ShownHand] = []
        self.steals: list[StealEvent] = []
        self.taken: int | None = None
        self.passed_to: int | None = None  # restricted play: who took the New Treasure in the last folder's place
        self.given_up: list[tuple[int, str]] = []  # (seat, card) given up at the zone limit
        self.mixed: list[MixedDecision] = []  # betting decisions drawn from a bot's declared chances
        self.removed_before = len(table.removed)  # cards out of the game before this hand
        self.void = self.ran_out = False

    def copy(self) -> Hand:
        """An independent copy (for `GameState.clone`): per-seat lists copied, the tuples in them shared."""
        new = Hand.__new__(Hand)
        for name in Hand.__slots__:
            value = getattr(self, name)
            setattr(new, name, list(value) if type(value) is list else value)
        return new

    def contenders(self) -> list[int]:
        """Seats still in the hand, in turn order."""
        folded = self.folded
        return [s for s in self.order if not folded[s]]

    def revealed_hands(self, table: Table) -> tuple[tuple[int, ...] | None, ...]:
        """Per seat, its hand if revealed (step 12 on, still in), else None."""
        if not self.revealed:
            return table.nobody
        return tuple([self.hands[s] if self.in_hand[s] and not self.folded[s] else None for s in range(table.n)])

    # ----- cards -------------------------------------------------------------------------------------
    def deal_hole(self, table: Table) -> None:
        """Step 2: two cards each, one at a time in turn order."""
        draw, hands = table.draw, self.hands
        first = [draw() for _ in self.order]
        for i, s in enumerate(self.order):  # not zip(..., strict=True): its keyword makes the call slow (hot code)
            hands[s] = (first[i], draw())  # the second round of the deal
        self.hole = list(hands)

    def deal_new_treasure(self, table: Table) -> None:
        """Step 3: the New Treasure, face up."""
        self.new_treasure = table.draw()

    def deal_shared(self, table: Table, count: int) -> None:
        """Steps 5, 7, 9: ``count`` shared cards."""
        for _ in range(count):  # one at a time: if the deck runs out, the record shows what was dealt
            self.shared += (table.draw(),)

    def move_spade(self, table: Table, seat: int, card: int) -> None:
        """Step 11: a Spades Treasure from ``seat``'s zone to its hand (an ordinary card from now on)."""
        table.remove_treasure(seat, card)
        self.hands[seat] += (card,)
        self.spades_moved[seat] += (card,)

    def draw_heart(self, table: Table, seat: int) -> int:
        """Step 12: one Hearts draw into ``seat``'s hand; `DeckEmpty` if the deck is out."""
        card = table.draw()
        self.hands[seat] += (card,)
        self.drawn[seat] += (card,)
        return card

    # ----- chips and actions -------------------------------------------------------------------------
    # Every change of a stack, a bet, a commitment or a fold goes through here and drops ``_view``.
    def view(self, table: Table) -> tuple:
        """(money, bets, committed, folded, all_in) as tuples for an observation; rebuilt only after a change."""
        view = self._view
        if view is None:
            view = self._view = (tuple(table.money), tuple(self.bets), tuple(self.committed), tuple(self.folded),
                                 tuple(self.all_in))
        return view

    def start_round(self, rnd: int) -> None:
        """A betting round begins: nobody has bet in it yet."""
        self.round = rnd
        self.bets = [0] * len(self.bets)
        self._view = None

    def pay_antes(self, table: Table) -> None:
        """Step 1: everyone dealt in pays the ante."""
        money, committed, all_in, ante = table.money, self.committed, self.all_in, table.ante
        for seat in self.order:
            money[seat] -= ante
            committed[seat] += ante
            all_in[seat] = not money[seat]
        self.pot += ante * len(self.order)
        self._view = None

    def bet(self, table: Table, rnd: int, seat: int, kind: str, to: int) -> None:
        """A check, call or raise in round ``rnd`` that brings ``seat``'s bet this round ``to`` a total."""
        money = table.money
        added = to - self.bets[seat]
        if added:  # a check changes no chips
            money[seat] -= added
            self.committed[seat] += added
            self.pot += added
            self.bets[seat] = to
            self.all_in[seat] = not money[seat]
            self._view = None
        self.actions += (_new_event(ActionEvent, (rnd, seat, kind, to, added, not money[seat])),)

    def fold(self, rnd: int, seat: int) -> None:
        """``seat`` folds in round ``rnd``: out of the hand, and the last folder so far."""
        self.folded[seat] = True
        self.last_folder = seat
        self.live -= 1
        self._view = None
        self._still = None
        self.actions += (_new_event(ActionEvent, (rnd, seat, "fold", self.bets[seat], 0, False)),)

    def give_back(self, table: Table, seat: int, chips: int) -> None:
        """Chips committed by ``seat`` go back to its stack (an uncalled bet, a void hand)."""
        self.committed[seat] -= chips
        self.pot -= chips
        table.money[seat] += chips
        self.all_in[seat] = not table.money[seat] and not self.folded[seat]
        self._view = None

    def pay(self, table: Table, seat: int, chips: int) -> None:
        """``seat`` wins ``chips`` from the pots."""
        table.money[seat] += chips
        self._view = None

    # ----- the record --------------------------------------------------------------------------------
    def record(self, t: Table, errors: Sequence[Sequence[str]]) -> HandRecord:
        """The hand's record (cards as names), with the errors bots made since it began."""
        n = t.n
        start, money, before, in_hand, ante = self.start_money, t.money, self.errors_before, self.in_hand, t.ante
        removed = t.removed
        # in field order, without the constructor's arity check (a test counts the fields); maps, not comprehensions
        return _new_event(HandRecord, (
            t.hand_no,
            t.dealer,
            in_hand,
            tuple([ante if dealt else 0 for dealt in in_hand]),
            tuple(map(_few_names, self.hole)),
            NAMES[self.new_treasure] if self.new_treasure is not None else None,
            self.actions,
            names(self.shared),
            tuple(self.folded),
            self.last_folder,
            NAMES[self.taken] if self.taken is not None else None,
            tuple(map(_few_names, self.spades_moved)),
            tuple(map(_few_names, self.drawn)),
            tuple(self.shown),
            tuple(self.pots),
            self.returned,
            tuple(map(sub, money, start)),
            tuple(self.steals),
            t.zone_names,
            tuple(money),
            len(t._deck),
            self.void,
            self.ran_out,
            () if list(map(len, errors)) == before else  # none this hand, the common case
            tuple([(s, e) for s in range(n) if len(errors[s]) > before[s] for e in errors[s][before[s]:]]),
            self.zones_before,
            self.passed_to,
            tuple(self.given_up),
            names(removed[self.removed_before:]) if len(removed) > self.removed_before else (),
            tuple(self.mixed),
        ))
