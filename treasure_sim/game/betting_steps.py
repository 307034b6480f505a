"""The betting steps of a hand as phases of the steppable state: rounds 4, 6, 8 and 10, and the shared cards dealt
between them (5, 7, 9).

Why apart from `gamestate.GameState`: betting is the engine's hot loop (`play_bets` answers a whole round without
making a `Decision` for each bet) and the one place a `Mixed` answer is drawn from a seat's own stream
(`bet_drawn`); the state's main line (the game, the showdown, copies) stays readable beside it.

``_bet`` holds the round in play as a list (read in the hot loop by index):
0. queue: who is still to act, in turn order (those with chips behind; rebuilt after a raise), ``_i`` the next;
1. high: the round's highest bet so far; 2. the largest bet or raise increment so far; 3. bets and raises so far;
4. reach: per seat still in, its stack at the round's start (what it can bet in all this round);
5–7. the largest reach, its seat, and the second largest: whether anyone could answer a raise above ``high``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import gt
from typing import Any

import numpy as np

from .betting import BetLimits, bet_limits
from .history import MixedDecision
from .observe import observe
from .questions import Decision, bet_total
from .state import DeckEmpty
from .strategy import CALL, CHECK, FOLD, RAISE, Action, Observation
from .treasure_steps import TreasureSteps

_new = tuple.__new__
_LEGAL = tuple(tuple((FOLD, CHECK if to_call_free else CALL) + ((RAISE,) if raise_ok else ())
                     for raise_ok in (False, True)) for to_call_free in (False, True))
"""The legal action kinds at a betting decision, ``_LEGAL[nothing to call][a raise is possible]`` (bools index a
tuple as 0 and 1; tuples cannot be changed in place, only replaced, which the integrity watch sees)."""
_CHECK, _FOLD = Action.check(), Action.fold()  # a bet's default answer: check when it is free, else fold
_DEALS = (2, 2, 1, 0)  # shared cards dealt after each betting round (steps 5, 7, 9)
_MIX_BLOCK = 64  # draws from a seat's `Mixed` stream made at once (one scalar `Generator.random()` costs ~0.3 us)


class BettingSteps(TreasureSteps):
    """The betting steps, mixed into `gamestate.GameState` (which holds the attributes annotated here, beside the
    two slots of this class)."""

    __slots__ = ("_bet", "_mix_left")  # what the steps keep between decisions
    mix_rngs: list[np.random.Generator]  # per seat, the stream its `Mixed` answers are drawn from
    _shared_rngs: bool  # the streams are shared with a clone: copy them before drawing (`_own_rngs`)
    _bet: list  # a betting round: [queue, high, largest, raises, reach, top, top_seat, second]
    _mix_left: list[list[float]]  # per seat, draws made from its stream and not used yet, last first

    def _void(self) -> None:
        raise NotImplementedError

    def _finish(self) -> None:
        raise NotImplementedError

    def _own_rngs(self) -> None:
        raise NotImplementedError

    def play_bets(self, ask: Callable[[int, BetLimits, int, tuple[str, ...]], Any] | None = None, *,
                  acts: Sequence[Callable[[Observation, BetLimits, int], Any]] | None = None) -> None:
        """Answer every betting decision the state waits for in a row with ``ask(seat, limits, my_bet, legal)``, which
        returns a checked answer: (kind, this round's bet after it) or a `Mixed` answer's checked choices. Or, with
        ``acts`` (one per seat), ``acts[seat](observation, limits, my_bet)``, given what the seat sees (a driver that
        asks bots: one call less per bet than an ``ask`` that builds the observation).

        The engine's hot loop: the same decisions as `decision` gives, without making a `Decision` for each; it
        returns when the state waits for anything else.
        """
        if ask is None and acts is None:
            raise TypeError("play_bets needs ask (seat, limits, my_bet, legal) or acts (one per seat)")
        rules, table = self.rules, self.table
        money = table.money
        while self.phase == "bet":  # a round, or what is left of it, until an answer changes who is to act
            b, h = self._bet, self.hand
            queue, rnd, bets = b[0], h.round, h.bets
            i, end = self._i, len(queue)
            while i < end:  # `_bet_decision`, inline: this is the engine's hot loop
                s = queue[i]
                my_bet, stack, high = bets[s], money[s], b[1]
                lim = bet_limits(rules, rnd, high, my_bet, stack, b[2], b[3], h.pot,
                                 my_bet + stack > high and (b[7] if s == b[6] else b[5]) > high)
                to_call, low, top = lim  # unpacked once: indexing a NamedTuple is slower than a tuple
                legal = _LEGAL[to_call == 0][top > 0]
                if acts is not None:
                    answer = acts[s](observe(table, h, s, "bet", to_call, low, top, legal), lim, my_bet)
                else:
                    answer = ask(s, lim, my_bet, legal)  # type: ignore[misc]
                kind, to = self._draw(answer, lim, my_bet) if type(answer) is list else answer
                if kind is not CALL and kind is not CHECK:  # a fold or a raise: `bet` changes the queue
                    self.bet(kind, to)
                    break
                i += 1  # `bet`, inline for the common answers: the queue stays as it is
                self._i = i
                h.bet(table, rnd, s, kind, to)
            else:  # everyone asked: the round is over
                self._round_over()

    def _bet_decision(self) -> Decision | None:
        """The betting decision waited for; None (and on to the next cards or the showdown) once the round is over."""
        b = self._bet
        queue = b[0]
        if self._i >= len(queue):
            self._round_over()
            return None
        s = queue[self._i]
        h = self.hand
        my_bet, stack, high = h.bets[s], self.table.money[s], b[1]
        lim = bet_limits(self.rules, h.round, high, my_bet, stack, b[2], b[3], h.pot,
                         my_bet + stack > high and (b[7] if s == b[6] else b[5]) > high)
        free = lim[0] == 0
        return _new(Decision, (s, "bet", _LEGAL[free][lim[2] > 0], _CHECK if free else _FOLD, lim, my_bet, None))

    def bet(self, kind: str, to: int) -> None:
        """A legal betting answer, already checked against the decision's limits: ``kind`` bringing this round's bet
        of the seat ``to`` a total (fold and check: its bet as it is)."""
        h = self.hand
        b = self._bet
        queue = b[0]
        s = queue[self._i]
        self._i += 1
        if kind == FOLD:
            h.fold(h.round, s)
            reach = b[4]
            del reach[s]
            if len(reach) < 2:
                self._i = len(queue)  # the round is over
                return
            (b[5], b[6]), (b[7], _) = _best_two(reach)
            return
        h.bet(self.table, h.round, s, kind, to)
        if kind == RAISE:
            high = b[1]
            if to - high > b[2]:
                b[2] = to - high
            b[1] = to
            b[3] += 1
            folded, money = h.folded, self.table.money
            b[0] = queue = []  # everyone else still in with chips behind, from the next seat round
            for o in self.table.after(h.order)[s]:
                if not folded[o] and money[o] > 0:
                    queue.append(o)
            self._i = 0

    def bet_drawn(self, choices: list[tuple[str, Any, float]], lim: BetLimits, my_bet: int) -> None:
        """A `Mixed` betting answer, read and checked against ``lim`` (the decision's limits): (kind, raise total or
        anything, chance) per choice. One is drawn from the seat's own stream and played; the draw is recorded
        (``HandRecord.mixed``)."""
        self.bet(*self._draw(choices, lim, my_bet))

    def _draw(self, choices: list[tuple[str, Any, float]], lim: BetLimits, my_bet: int) -> tuple[str, int]:
        """`bet_drawn`'s draw, recorded, as the (kind, this round's bet after it) to play."""
        h = self.hand
        s = self._bet[0][self._i]
        total = fold = 0.0
        for kind, _, chance in choices:
            total += chance
            if kind == FOLD:
                fold += chance
        left = self._mix_left[s]
        if not left:  # the seat's next draws, a block at a time: the same numbers as one `random()` call each
            if self._shared_rngs:
                self._own_rngs()
            left.extend(reversed(self.mix_rngs[s].random(_MIX_BLOCK).tolist()))
        point = left.pop() * total
        running, picked = 0.0, None
        for choice in choices:
            chance = choice[2]
            running += chance
            if chance > 0 and point < running:
                picked = choice
                break
        if picked is None:  # rounding left the point past the last sum: the last action with a chance
            picked = next(c for c in reversed(choices) if c[2] > 0)
        kind = picked[0]
        view = h._view or h.view(self.table)  # the tuples the observation was just built from
        still = h._still  # who is still in changes only at a fold: one tuple for the decisions between two folds
        if still is None:
            still = h._still = tuple(map(gt, h.in_hand, h.folded))  # dealt and not folded (bools: True > False)
        to_call = lim[0]
        h.mixed.append(_new(MixedDecision, (h.round, s, fold / total, view[2], still, to_call, kind == FOLD)))
        return bet_total(kind, picked[1], lim, my_bet)

    def _round(self, rnd: int) -> None:
        """Betting round ``rnd`` begins (steps 4, 6, 8, 10), or, with fewer than two in, the showdown steps."""
        h = self.hand
        if rnd == 4:
            self._finish()
            return
        if h.live < 2:  # all but one folded: no more betting, no more cards
            h.start_round(3)
            self._finish()
            return
        h.start_round(rnd)
        money, folded = self.table.money, h.folded
        reach = {}  # what each seat still in can bet in all this round: its stack at the start
        queue = []  # who is asked, in turn order: those with chips behind
        top = top_seat = second = -1  # `_best_two(reach)`, in the same loop
        for s in h.order:  # one loop, not three comprehensions (each a function call in 3.11)
            if not folded[s]:
                reach[s] = stack = money[s]
                if stack > 0:
                    queue.append(s)
                if stack > top:
                    top, top_seat, second = stack, s, top
                elif stack > second:
                    second = stack
        self._bet = [queue, 0, 0, 0, reach, top, top_seat, second]
        self._i = 0
        self.phase = "bet"

    def _round_over(self) -> None:
        """The betting round is over: the next shared cards (steps 5, 7, 9), then the next round or the showdown."""
        h = self.hand
        rnd = h.round
        self._bet = []
        deal = _DEALS[rnd]
        if deal and h.live > 1:
            try:
                h.deal_shared(self.table, deal)  # steps 5, 7, 9
            except DeckEmpty:
                self._void()
                return
        self._round(rnd + 1)


def _best_two(reach: dict[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The largest and second largest (amount, seat) of ``reach`` (at least two seats)."""
    first = second = (-1, -1)
    for seat, amount in reach.items():
        if amount > first[0]:
            first, second = (amount, seat), first
        elif amount > second[0]:
            second = (amount, seat)
    return first, second
