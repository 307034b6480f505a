"""The state of a game: the table between hands, the hand in progress, and snapshots of it for bots."""

from __future__ import annotations

from .cards import CLUBS, card_names
from .history import ActionEvent, ShownHand
from .rules import RuleSet
from .strategy import Observation


class DeckEmpty(Exception):
    """A card had to be drawn and the deck was empty (the game ends, RULES.md section 7)."""


class Table:
    """What lasts between hands: stacks, Treasure Zones, the deck, the button, who is out."""

    __slots__ = (
        "dealer",
        "deck",
        "full_deck",
        "hand_no",
        "money",
        "n",
        "out",
        "rules",
        "showdowns",
        "treasures",
    )

    def __init__(self, n: int, rules: RuleSet, full_deck: tuple[int, ...], money: list[int],
                 treasures: list[list[int]], dealer: int) -> None:
        self.n = n
        self.rules = rules
        self.full_deck = full_deck
        self.money = money
        self.treasures = treasures
        self.out = [False] * n
        self.dealer = dealer
        self.hand_no = 0
        self.deck: list[int] = []  # the top of the deck is the END of the list
        self.showdowns: tuple[ShownHand, ...] = ()

    def draw(self) -> int:
        if not self.deck:
            raise DeckEmpty
        return self.deck.pop()

    def turn_order(self, dealer: int) -> list[int]:
        """Every seat, starting left of the dealer and going round once."""
        return [(dealer + 1 + i) % self.n for i in range(self.n)]

    def wild_mask(self, seat: int) -> int:
        """Ranks wild for ``seat``: one bit per Clubs Treasure in its zone (when Clubs are on)."""
        if not self.rules.clubs:
            return 0
        mask = 0
        for c in self.treasures[seat]:
            if c & 3 == CLUBS and c < 52:
                mask |= 1 << (c >> 2)
        return mask

    def zones_as_names(self) -> tuple[tuple[str, ...], ...]:
        return tuple(card_names(z) for z in self.treasures)


class Hand:
    """One hand in progress. Per-seat lists are indexed by seat."""

    __slots__ = ("actions", "bets", "committed", "drawn", "folded", "hands", "hole", "in_hand",
                 "last_folder", "new_treasure", "order", "round", "shared", "spades_moved")

    def __init__(self, table: Table) -> None:
        n = table.n
        self.in_hand = [not o for o in table.out]
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

    def contenders(self) -> list[int]:
        """Seats still in the hand, in turn order."""
        return [s for s in self.order if not self.folded[s]]


def observe(table: Table, hand: Hand, seat: int, phase: str, *, to_call: int = 0, min_raise_to: int = 0,
            max_raise_to: int = 0, legal: tuple[str, ...] = ()) -> Observation:
    """A snapshot for ``seat``: only what RULES.md section 8 allows, sharing nothing mutable."""
    money = table.money
    return Observation(
        phase=phase,
        seat=seat,
        n_players=table.n,
        hand_no=table.hand_no,
        dealer=table.dealer,
        hand=tuple(hand.hands[seat]),
        shared=tuple(hand.shared),
        new_treasure=hand.new_treasure,
        treasures=tuple(tuple(z) for z in table.treasures),
        money=tuple(money),
        bets=tuple(hand.bets),
        committed=tuple(hand.committed),
        pot=sum(hand.committed),
        folded=tuple(hand.folded),
        in_hand=tuple(hand.in_hand),
        all_in=tuple(hand.in_hand[s] and not hand.folded[s] and money[s] == 0 for s in range(table.n)),
        deck_size=len(table.deck),
        round=hand.round,
        to_call=to_call,
        min_raise_to=min_raise_to,
        max_raise_to=max_raise_to,
        legal=legal,
        history=tuple(hand.actions),
        last_folder=hand.last_folder,
        wild_ranks=table.wild_mask(seat),
        showdowns=table.showdowns,
        rules=table.rules,
    )
