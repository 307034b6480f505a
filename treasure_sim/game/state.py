"""The state of a game: the table between hands, the hand in progress, and snapshots of it for bots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .cards import CLUBS, RANK_BIT, SUIT, format_card, is_joker, parse_cards, value_of
from .history import ActionEvent, HandRecord, PotResult, ShownHand, StealEvent
from .rules import RuleSet
from .strategy import Observation

NAMES = tuple(format_card(c) for c in range(54))
"""Card names by id, for records built on the hot path (``NAMES[c]`` beats ``format_card``)."""

_new_observation = tuple.__new__  # Observation(*values) checks arity; the engine builds them in field order


def names(cards: Sequence[int]) -> tuple[str, ...]:
    """Card ids (plain ints, no padding) as names."""
    return tuple([NAMES[c] for c in cards])


class DeckEmpty(Exception):
    """A card had to be drawn and the deck was empty (the game ends, RULES.md section 7)."""


class Table:
    """What lasts between hands: stacks, Treasure Zones, the deck, the button, who is out.

    The deck and the zones change only through the methods here, so every card stays accounted for
    and the zones' snapshot (:meth:`zones`) is rebuilt exactly when a zone changed.
    """

    __slots__ = ("_deck", "_zones", "_zones_version", "bot_rules", "dealer", "full_deck", "hand_no", "money", "n",
                 "out", "rules", "showdowns", "treasures", "values", "zones_version")

    def __init__(self, n: int, rules: RuleSet, full_deck: tuple[int, ...], money: list[int],
                 treasures: list[list[int]], dealer: int) -> None:
        self.n = n
        self.rules = rules
        # each seat's own copy of the rules, handed to its bot (setup, observations); never read by the engine
        self.bot_rules = tuple(rules.replace() for _ in range(n))
        self.full_deck = full_deck
        self.money = money
        self.treasures = treasures  # read freely; changed only by add_treasure / remove_treasure
        self.out = [False] * n
        self.dealer = dealer
        self.hand_no = 0
        self._deck: list[int] = []  # the top of the deck is the END of the list
        self.showdowns: tuple[ShownHand, ...] = ()
        self.values = tuple(value_of(c, rules.ace_value) for c in range(52))  # Diamonds steal values
        self.zones_version = 0  # bumped whenever a zone changes, to refresh cached snapshots
        self._zones: tuple[tuple[int, ...], ...] = ()
        self._zones_version = -1

    # ----- the deck ----------------------------------------------------------------------------------
    @property
    def deck_size(self) -> int:
        return len(self._deck)

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
        held = {c for z in self.treasures for c in z}
        held.update(stacked)
        rest = [c for c in self.full_deck if c not in held]
        rng.shuffle(rest)
        self._deck = rest + list(stacked)[::-1]

    # ----- the Treasure Zones ------------------------------------------------------------------------
    def add_treasure(self, seat: int, card: int) -> None:
        self.treasures[seat].append(card)
        self.zones_version += 1

    def remove_treasure(self, seat: int, card: int) -> None:
        self.treasures[seat].remove(card)
        self.zones_version += 1

    def zones(self) -> tuple[tuple[int, ...], ...]:
        """The Treasure Zones as tuples, rebuilt only when a zone has changed."""
        if self._zones_version != self.zones_version:
            self._zones = tuple([tuple(z) for z in self.treasures])
            self._zones_version = self.zones_version
        return self._zones

    def zone_suit(self, seat: int, suit: int) -> list[int]:
        """``seat``'s Treasures of one suit (zones never hold a Joker)."""
        return [c for c in self.treasures[seat] if SUIT[c] == suit]

    def turn_order(self, dealer: int) -> list[int]:
        """Every seat, starting left of the dealer and going round once."""
        return [(dealer + 1 + i) % self.n for i in range(self.n)]

    def wild_mask(self, seat: int) -> int:
        """Ranks wild for ``seat``: one bit per Clubs Treasure in its zone (when Clubs are on)."""
        if not self.rules.clubs:
            return 0
        mask = 0
        for c in self.treasures[seat]:
            if SUIT[c] == CLUBS:
                mask |= RANK_BIT[c]
        return mask

    def zones_as_names(self) -> tuple[tuple[str, ...], ...]:
        return tuple([names(z) for z in self.treasures])


class Hand:
    """One hand in progress. Per-seat lists are indexed by seat.

    Cards reach a hand only through :meth:`deal_hole`, :meth:`deal_shared`, :meth:`move_spade` and
    :meth:`draw_heart`, chips only through :meth:`commit`, so the record agrees with the table.
    """

    __slots__ = ("actions", "bets", "committed", "drawn", "errors_before", "folded", "hands", "hole", "in_hand",
                 "last_folder", "new_treasure", "order", "pots", "ran_out", "returned", "revealed", "round", "shared",
                 "shown", "spades_moved", "start_money", "steals", "taken", "void", "zones_before")

    def __init__(self, table: Table) -> None:
        n = table.n
        self.in_hand = tuple([not o for o in table.out])
        self.order = [s for s in table.turn_order(table.dealer) if self.in_hand[s]]
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.hole: list[tuple[int, ...]] = [() for _ in range(n)]
        self.shared: list[int] = []
        self.new_treasure: int | None = None
        self.bets = [0] * n
        self.committed = [0] * n
        self.folded = [False] * n
        self.last_folder: int | None = None
        self.actions: list[ActionEvent] = []
        self.round = 0
        self.spades_moved: list[tuple[int, ...]] = [() for _ in range(n)]
        self.drawn: list[list[int]] = [[] for _ in range(n)]
        self.revealed = False  # step 12 has begun: the hands still in are face up
        # the outcome, filled in as the steps go, for the record
        self.start_money: list[int] = []
        self.zones_before: tuple[tuple[str, ...], ...] = ()
        self.errors_before: list[int] = []
        self.returned: tuple[int, int] | None = None
        self.pots: list[PotResult] = []
        self.shown: list[ShownHand] = []
        self.steals: list[StealEvent] = []
        self.taken: int | None = None
        self.void = self.ran_out = False

    def contenders(self) -> list[int]:
        """Seats still in the hand, in turn order."""
        return [s for s in self.order if not self.folded[s]]

    def revealed_hands(self, n: int) -> tuple[tuple[int, ...] | None, ...]:
        """Per seat, its hand if revealed (step 12 on, still in), else None."""
        if not self.revealed:
            return (None,) * n
        return tuple([tuple(self.hands[s]) if self.in_hand[s] and not self.folded[s] else None for s in range(n)])

    # ----- cards -------------------------------------------------------------------------------------
    def deal_hole(self, table: Table) -> None:
        """Step 2: two cards each, one at a time in turn order."""
        draw = table.draw
        for _ in range(2):
            for s in self.order:
                self.hands[s].append(draw())
        for s in self.order:
            self.hole[s] = tuple(self.hands[s])

    def deal_new_treasure(self, table: Table) -> None:
        """Step 3: the New Treasure, face up."""
        self.new_treasure = table.draw()

    def deal_shared(self, table: Table, count: int) -> None:
        """Steps 5, 7, 9: ``count`` shared cards."""
        self.shared.extend(table.draw() for _ in range(count))

    def move_spade(self, table: Table, seat: int, card: int) -> None:
        """Step 11: a Spades Treasure from ``seat``'s zone to its hand (an ordinary card from now on)."""
        table.remove_treasure(seat, card)
        self.hands[seat].append(card)
        self.spades_moved[seat] += (card,)

    def draw_heart(self, table: Table, seat: int) -> int:
        """Step 12: one Hearts draw into ``seat``'s hand; `DeckEmpty` if the deck is out."""
        card = table.draw()
        self.hands[seat].append(card)
        self.drawn[seat].append(card)
        return card

    # ----- chips -------------------------------------------------------------------------------------
    def commit(self, table: Table, seat: int, chips: int) -> None:
        """``seat`` puts ``chips`` from its stack into this hand (an ante, a bet, a call)."""
        table.money[seat] -= chips
        self.committed[seat] += chips

    def give_back(self, table: Table, seat: int, chips: int) -> None:
        """Chips committed by ``seat`` go back to its stack (an uncalled bet, a void hand)."""
        self.committed[seat] -= chips
        table.money[seat] += chips

    # ----- the record --------------------------------------------------------------------------------
    def record(self, t: Table, errors: Sequence[Sequence[str]]) -> HandRecord:
        """The hand's record (cards as names), with the errors bots made since it began."""
        n = t.n
        return HandRecord(
            hand_no=t.hand_no,
            dealer=t.dealer,
            in_hand=self.in_hand,
            antes=tuple([t.rules.ante if self.in_hand[s] else 0 for s in range(n)]),
            hole=tuple([names(c) for c in self.hole]),
            new_treasure=NAMES[self.new_treasure] if self.new_treasure is not None else None,
            actions=tuple(self.actions),
            shared=names(self.shared),
            folded=tuple(self.folded),
            last_folder=self.last_folder,
            treasure_taken=NAMES[self.taken] if self.taken is not None else None,
            spades_moved=tuple([names(m) for m in self.spades_moved]),
            drawn=tuple([names(d) for d in self.drawn]),
            shown=tuple(self.shown),
            pots=tuple(self.pots),
            returned=self.returned,
            payouts=tuple([t.money[s] - self.start_money[s] for s in range(n)]),
            steals=tuple(self.steals),
            treasures_after=t.zones_as_names(),
            money_after=tuple(t.money),
            deck_size_after=t.deck_size,
            void=self.void,
            deck_ran_out=self.ran_out,
            errors=tuple([(s, e) for s in range(n) for e in errors[s][self.errors_before[s]:]]),
            treasures_before=self.zones_before,
        )


def observe(table: Table, hand: Hand, seat: int, phase: str, to_call: int = 0, min_raise_to: int = 0,
            max_raise_to: int = 0, legal: tuple[str, ...] = ()) -> Observation:
    """A snapshot for ``seat``: only what RULES.md section 8 allows, sharing nothing mutable.

    Built positionally in ``Observation`` field order: one is made per decision, so it is hot.
    """
    money = table.money
    folded = hand.folded
    in_hand = hand.in_hand
    committed = hand.committed
    return _new_observation(Observation, (
        phase,
        seat,
        table.n,
        table.hand_no,
        table.dealer,
        tuple(hand.hands[seat]),
        tuple(hand.shared),
        hand.new_treasure,
        table.zones(),
        tuple(money),
        tuple(hand.bets),
        tuple(committed),
        sum(committed),
        tuple(folded),
        in_hand,
        tuple([in_hand[s] and not folded[s] and not money[s] for s in range(table.n)]),
        table.deck_size,
        hand.round,
        to_call,
        min_raise_to,
        max_raise_to,
        legal,
        tuple(hand.actions),
        hand.last_folder,
        table.wild_mask(seat),
        table.showdowns,
        hand.revealed_hands(table.n),
        table.bot_rules[seat],
    ))


# ----- scenario set-up (Game's deck=, treasures=, money= arguments) ---------------------------------------
def check_money(money: Sequence[int] | None, n: int, starting: int) -> list[int]:
    """The stacks: ``starting`` each, or one whole number >= 0 per seat."""
    if money is None:
        return [starting] * n
    if len(money) != n or any(isinstance(m, bool) or not isinstance(m, int | np.integer) or m < 0
                              for m in money):
        raise ValueError(f"money must be {n} whole numbers >= 0, one per seat; got {list(money)!r}")
    return [int(m) for m in money]


def check_treasures(treasures: Mapping | None, n: int) -> list[list[int]]:
    """Pre-filled Treasure Zones, ``{seat: "7c Kh"}``: distinct cards, no Jokers."""
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
