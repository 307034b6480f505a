"""The Treasure steps of a hand as phases of the steppable state: 11 Spades, 12 Hearts, 14–15 the New Treasure
(and room in a full zone), 16 Diamonds.

Why apart from `gamestate.GameState`: these are the rules a designer varies most (the suit switches, the zone
limit, the Hearts cap, where a spent Diamond goes) and the ones restricted play bars a seat from; the state's
main line (the game, the showdown) and its betting (`betting_steps`) stay readable beside them. Each step has a
``_<step>_decision`` (the question it waits for, or None after playing on) and an answer method; ``barred`` holds,
per power, the seats restricted from it (seeds/rulings.md, "Restricted play").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import DIAMONDS, HEARTS, RANK, SPADES, is_joker
from .history import StealEvent
from .powers import latest_folder_not_in
from .questions import Decision
from .state import NAMES, DeckEmpty, Hand, Table
from .strategy import Steal

if TYPE_CHECKING:
    from .rules import RuleSet

_new = tuple.__new__
_YES_NO = (True, False)


class TreasureSteps:
    """The Treasure steps, mixed into `gamestate.GameState` (which holds the attributes declared here)."""

    __slots__ = ("_hearts", "_held", "_i", "_in", "_waiting", "phase")  # what the steps keep between questions
    table: Table
    hand: Hand
    rules: RuleSet
    asks: list[frozenset[str]]
    barred: dict[str, frozenset[int]]
    phase: str  # the phase the state is in (gamestate.py lists them)
    _i: int  # the index of whoever is to answer in the phase's list (voters, contenders, turn order)
    _in: list[int]  # from step 11 on: the seats still in the hand, in turn order (nobody folds any more)
    _hearts: list[Any]  # a Hearts turn: [ranks, owed, room]
    _held: dict[int, list[int]]  # Diamonds held when step 16 began, per seat that may steal
    _waiting: int | None  # make_room: the card waiting to enter a full zone

    def _showdown(self) -> None:
        raise NotImplementedError

    def _hand_over(self) -> None:
        raise NotImplementedError

    def _spades_decision(self) -> Decision | None:
        t = self.table
        contenders = self._in
        barred = self.barred["spades"]
        held, asks = t.suits_held, self.asks  # a bit per suit among a seat's Treasures: most seats hold no Spades
        i, end = self._i, len(contenders)  # the index kept in a local, stored only where a question waits
        while i < end:
            s = contenders[i]
            if held[s] >> SPADES & 1 and s not in barred and "spades" in asks[s]:
                self._i = i
                return _new(Decision, (s, "spades", tuple(t.zone_suit(s, SPADES)), (), None, 0, None))
            i += 1
        self._reveal()
        return None

    def _spades(self, cards: tuple[int, ...]) -> None:
        s = self._in[self._i]
        for card in cards:
            self.hand.move_spade(self.table, s, card)
        self._i += 1

    def _reveal(self) -> None:
        """Step 12 begins by revealing the hands still in (rulings §6); then Hearts draws."""
        self.hand.revealed = True
        self._i = 0
        self._hearts = []
        if self.rules.hearts:
            self.phase = "hearts"
        else:
            self._showdown()

    def _hearts_decision(self) -> Decision | None:
        """Step 12: Hearts draws, in turn order, one optional card at a time (at most ``hearts_cap`` a player)."""
        h, t, rules = self.hand, self.table, self.rules
        contenders = self._in
        barred, held = self.barred["hearts"], t.suits_held
        i, end = self._i, len(contenders)  # the index kept in a local, stored only where a question waits
        while i < end:
            s = contenders[i]
            if not self._hearts:
                if not held[s] >> HEARTS & 1 or s in barred:
                    i += 1
                    continue
                ranks = {RANK[c] for c in t.zone_suit(s, HEARTS)}
                owed = 0  # cards in hand and shared of a Hearts Treasure's rank: one draw each
                for c in h.hands[s] + h.shared:
                    if RANK[c] in ranks:
                        owed += 1
                self._hearts = [ranks, owed, rules.hearts_cap or 1 << 30]
            ranks, owed, room = self._hearts
            if owed > 0 and room > 0:
                if "hearts" in self.asks[s]:
                    self._i = i
                    return _new(Decision, (s, "hearts", _YES_NO, True, None, 0, None))
                if self._draw_heart(s):
                    return None  # the deck ran out: on to the showdown
                continue
            self._hearts = []
            i += 1
        self._showdown()
        return None

    def _hearts_answer(self, draw: bool) -> None:
        s = self._in[self._i]
        if not draw:  # declining gives up the rest
            self._hearts = []
            self._i += 1
            return
        self._draw_heart(s)

    def _draw_heart(self, s: int) -> bool:
        """One Hearts draw for ``s``; True (and on to the showdown) if the deck ran out (rulings §7)."""
        h = self.hand
        try:
            card = h.draw_heart(self.table, s)
        except DeckEmpty:
            h.ran_out = True
            self._showdown()
            return True
        hearts = self._hearts
        hearts[1] -= 1
        hearts[2] -= 1
        if self.rules.hearts_chain and RANK[card] in hearts[0]:
            hearts[1] += 1
        return False

    def _new_treasure(self) -> None:
        """Steps 14–15: the last folder takes the New Treasure (a Joker: a card of their choice), if it can."""
        h, t, rules = self.hand, self.table, self.rules
        card, taker = h.new_treasure, h.last_folder
        if card is None or taker is None:
            self._diamonds()
            return
        barred = self.barred["new_treasure"]
        if taker in barred:  # restricted play: the latest folder before it who may take it
            taker = latest_folder_not_in(h.actions, barred)
            if taker is None:
                self._diamonds()
                return
            h.passed_to = taker
        limit = rules.zone_limit
        if limit > 0 and len(t.treasures[taker]) >= limit and rules.at_limit == "refuse":
            self._diamonds()
            return
        self._i = taker
        if is_joker(card):
            if rules.joker_treasure == "discard" or not self._joker_options(taker):
                self._diamonds()
                return
            self.phase = "joker_treasure"
            return
        self._take(card)

    def _joker_options(self, taker: int) -> tuple[int, ...]:
        h = self.hand
        return tuple(c for c in h.hole[taker] + h.shared if not is_joker(c))

    def _joker_decision(self) -> Decision:
        options = self._joker_options(self._i)
        values = self.table.values
        return _new(Decision, (self._i, "joker_treasure", options, max(options, key=lambda c: values[c]), None, 0,
                               None))

    def _take(self, card: int) -> None:
        """The New Treasure (or the card chosen for a Joker) enters the taker's zone, room made if it is full."""
        t, rules, taker = self.table, self.rules, self._i
        limit = rules.zone_limit
        if limit > 0 and len(t.treasures[taker]) >= limit:
            if rules.at_limit == "discard_oldest":
                self._make_room(card, t.treasures[taker][0])  # zones keep their cards in the order they entered
                return
            self._waiting = card
            self.phase = "make_room"
            return
        t.add_treasure(taker, card)
        self.hand.taken = card
        self._diamonds()

    def _room_decision(self) -> Decision | None:
        taker = self._i
        if "make_room" not in self.asks[taker]:
            self._make_room(self._waiting, None)
            return None
        zone = tuple(self.table.treasures[taker])
        return _new(Decision, (taker, "make_room", (*zone, None), None, None, 0, self._waiting))

    def _make_room(self, card: int | None, out: int | None) -> None:
        t, h, taker = self.table, self.hand, self._i
        if out is None:
            h.taken = None
        else:
            t.remove_treasure(taker, out)
            h.given_up.append((taker, NAMES[out]))
            t.add_treasure(taker, card)  # type: ignore[arg-type]  # the card waiting for room
            h.taken = card
        self._diamonds()

    def _diamonds(self) -> None:
        """Step 16 begins: the Diamonds each seat holds now may each buy one steal, in turn order."""
        t, h = self.table, self.hand
        if not self.rules.diamonds:
            self._hand_over()
            return
        barred = self.barred["diamonds"]
        self._held = {s: t.zone_suit(s, DIAMONDS) for s in h.order
                      if t.suits_held[s] >> DIAMONDS & 1 and "steal" in self.asks[s] and s not in barred}
        self._i = 0
        self.phase = "steal"

    def _steal_options(self, s: int) -> list[Steal]:
        """Per Diamond ``s`` still holds, in order held: every card of another zone (seats in order) worth no more."""
        t = self.table
        zones, values = t.treasures, t.values
        mine = zones[s]
        options: list[Steal] = []
        add = options.append  # plain loops: faster here than a comprehension (a function call in 3.11) or map chains
        for d in self._held[s]:
            if d in mine:
                top = values[d]
                for v in range(t.n):
                    if v != s:
                        for c in zones[v]:
                            if values[c] <= top:
                                add(_new(Steal, (d, v, c)))
        return options

    def _steal_decision(self) -> Decision | None:
        order, held = self.hand.order, self._held
        i, end = self._i, len(order)  # the index kept in a local, stored only where a question waits
        while i < end:
            s = order[i]
            if held.get(s):
                options = self._steal_options(s)
                if options:
                    self._i = i
                    return _new(Decision, (s, "steal", (*options, None), None, None, 0, None))  # no steal: None, last
            i += 1
        self._hand_over()
        return None

    def _steal(self, choice: Steal | None) -> None:
        s = self.hand.order[self._i]
        if choice is None:
            self._i += 1
            return
        diamond, victim, card = choice
        self.table.steal(s, diamond, victim, card)
        self.hand.steals.append(_new(StealEvent, (s, NAMES[diamond], victim, NAMES[card])))
