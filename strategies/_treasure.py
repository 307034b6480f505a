"""What a Treasure card is worth, in chips, to a given seat for the rest of the game.

Why a model: the New Treasure goes to the last folder, not the pot winner, so a bot must weigh
a card against its share of the pot. The model prices each ability by how often it fires:

- Clubs X (wild rank) and Hearts X (extra draws) fire when an X lands among a player's ~7 cards;
  the chance is 7 * (naturals of rank X outside every zone) / (cards that circulate). Their value
  per hand times the hands left (the deck shrinks by about one card a hand as zones fill;
  ``horizon`` caps it), times a survival factor when a rival holds a Diamond that could steal it.
- Spades X: a one-time extra card, ``spade_chips``.
- Diamonds X: a one-time steal of the best card of value <= X in another zone (``steal_share``
  of that card's value), or a small option value ``diamond_option`` * X / 14 if none is in reach.
"""

from __future__ import annotations

from dataclasses import dataclass

from treasure_sim.game.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    RANK,
    SPADES,
    SUIT,
    SUIT_NAMES,
    card_id,
    is_joker,
    value_of,
)
from treasure_sim.game.strategy import Observation


@dataclass(frozen=True, slots=True)
class TreasureModel:
    """The knobs of the valuation (chips per hand per expected wild / draw, one-time values)."""

    wild_chips: float = 1.5
    draw_chips: float = 0.4
    spade_chips: float = 1.0
    steal_share: float = 0.8
    diamond_option: float = 1.0
    horizon: float = 25.0
    steal_risk: float = 0.4
    cards_seen: float = 7.0

    def hands_left(self, obs: Observation) -> float:
        """Hands the game may still last: the hand cap, and the deck shrinking as zones fill."""
        rules = obs.rules
        by_cap = rules.max_hands - obs.hand_no
        if not rules.new_treasure:
            return float(max(by_cap, 0))
        players = sum(obs.in_hand)
        in_zones = sum(len(z) for z in obs.treasures)
        spare = 52 + rules.jokers - in_zones - (2 * players + 6)
        return float(max(min(by_cap, spare + 1), 0))

    def at(self, obs: Observation) -> Valuer:
        """A memoizing valuer for the table as ``obs`` shows it (reuse it while the zones stay put)."""
        return Valuer(self, obs)


class Valuer:
    """Values of cards to seats for one state of the zones; each (card, seat) is computed once."""

    def __init__(self, model: TreasureModel, obs: Observation) -> None:
        self.model = model
        self.rules = rules = obs.rules
        self.me, self.barred = obs.seat, obs.restricted  # the powers I may not use are worth nothing to me
        self.zones = obs.treasures
        self.zoned = {c for z in obs.treasures for c in z}
        self.hands_left = model.hands_left(obs)
        ace = rules.ace_value
        # per seat, the highest Diamond value it holds (0: none): the reach of its steals
        self.reach = [
            max((value_of(c, ace) for c in z if SUIT[c] == DIAMONDS), default=0) if rules.diamonds else 0
            for z in obs.treasures
        ]
        self._memo: dict[tuple[int, int], float] = {}

    def value(self, card: int, seat: int) -> float:
        """Chips ``card`` in ``seat``'s zone is worth to that seat (0 for a Joker or a switched-off suit)."""
        key = (card, seat)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._value(card, seat, steals=True)
        return got

    def _value(self, card: int, seat: int, steals: bool) -> float:
        if is_joker(card):
            return 0.0
        m, rules = self.model, self.rules
        suit, rank = SUIT[card], RANK[card]
        if self.barred and seat == self.me and SUIT_NAMES[suit] in self.barred:  # suit names are power names
            return 0.0
        left = self.hands_left
        if suit in (CLUBS, HEARTS):
            if (suit == CLUBS and not rules.clubs) or (suit == HEARTS and not rules.hearts):
                return 0.0
            zoned = self.zoned
            others = sum(1 for s in range(4) if card_id(rank, s) not in zoned and card_id(rank, s) != card)
            circulating = max(52 + rules.jokers - len(zoned) - (card not in zoned), 10)
            per_hand = (m.wild_chips if suit == CLUBS else m.draw_chips) * m.cards_seen * others / circulating
            return per_hand * min(left, m.horizon) * self._survival(card, seat)
        if suit == SPADES:
            return m.spade_chips if rules.spades and left > 0 else 0.0
        # Diamonds: the best steal it could make now (a Diamond stolen is worth nothing more here),
        # else an option on later ones.
        if not rules.diamonds or not steals:
            return 0.0
        ace = rules.ace_value
        reach = value_of(card, ace)
        best = 0.0
        for victim, zone in enumerate(self.zones):
            if victim != seat:
                for c in zone:
                    if c != card and SUIT[c] != DIAMONDS and value_of(c, ace) <= reach:
                        best = max(best, self.value(c, seat))
        return max(m.steal_share * best, m.diamond_option * reach / 14.0)

    def _survival(self, card: int, seat: int) -> float:
        """Discount a lasting card a rival's Diamond could steal."""
        need = value_of(card, self.rules.ace_value)
        threatened = any(r >= need for s, r in enumerate(self.reach) if s != seat)
        return 1.0 - self.model.steal_risk if threatened else 1.0
