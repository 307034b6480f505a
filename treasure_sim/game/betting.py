"""Betting and pots: bet-size limits per structure, the uncalled bet, side pots and the odd chip."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .answers import exact_int, safe_repr
from .history import PotResult
from .rules import RuleSet
from .strategy import CALL, CHECK, FOLD

_limits = _pot = tuple.__new__  # BetLimits(*values), PotResult(*values) check arity


class BetLimits(NamedTuple):
    to_call: int  # chips needed to call (capped at the stack: calling for less is all in)
    min_raise_to: int  # 0 when no raise is legal
    max_raise_to: int  # 0 when no raise is legal


def bet_limits(
    rules: RuleSet,
    round_index: int,
    high: int,
    my_bet: int,
    stack: int,
    largest_raise: int,
    raises: int,
    pot: int,
    can_be_answered: bool,
) -> BetLimits:
    """Legal amounts for a player whose round bet is ``my_bet`` facing a round high of ``high``.

    ``largest_raise`` is the largest bet or raise increment so far this round, ``raises`` the
    number of bets and raises so far, ``pot`` every chip committed this hand including this
    round's bets, ``can_be_answered`` whether another player still in could put in more than
    ``high`` (if not, a raise could only come back as an uncalled bet).
    A player may always go all in, even for less than a full raise.
    """
    # one call per decision: conditionals rather than min/max calls, and the tuple built directly
    to_call = high - my_bet
    if to_call > stack:
        to_call = stack
    all_in_to = my_bet + stack
    if not can_be_answered or all_in_to <= high:
        return _limits(BetLimits, (to_call, 0, 0))
    betting = rules.betting
    if betting == "fixed-limit":
        if raises >= rules.raise_cap:
            return _limits(BetLimits, (to_call, 0, 0))
        target = high + (rules.small_bet if round_index < 2 else rules.big_bet)
        if target > all_in_to:
            target = all_in_to
        return _limits(BetLimits, (to_call, target, target))
    full_min = high + (largest_raise if largest_raise > rules.min_bet else rules.min_bet)
    max_to = all_in_to
    if betting == "pot-limit":  # the pot after calling, but never below a minimum raise
        max_to = min(all_in_to, max(full_min, high + pot + (high - my_bet)))
    return _limits(BetLimits, (to_call, full_min if full_min < max_to else max_to, max_to))


def action_problem(kind: str, amount: Any, lim: BetLimits) -> str | None:
    """Why the answer ``kind`` (one of the four kinds), ``amount`` (as the bot gave it) is not legal under
    ``lim``, or None. A raise amount must be an exact whole number (`answers.exact_int`)."""
    if kind in (FOLD, CALL) or (kind == CHECK and lim.to_call == 0):
        return None
    if kind == CHECK:
        return f"cannot check facing a bet of {lim.to_call}"
    if not lim.max_raise_to:
        return "raising is not legal here"
    total = exact_int(amount)
    if total is None:
        return f"raise amount {safe_repr(amount)} is not a whole number"
    if not lim.min_raise_to <= total <= lim.max_raise_to:
        return f"raise to {safe_repr(total)} is outside {lim.min_raise_to}..{lim.max_raise_to}"
    return None


def uncalled_bet(committed: Sequence[int]) -> tuple[int, int] | None:
    """(seat, chips) of the part of the largest commitment nobody matched, to go back to its owner."""
    top = second = 0
    leader = -1
    for seat, chips in enumerate(committed):
        if chips > top:
            top, second, leader = chips, top, seat
        elif chips > second:
            second = chips
    if top == second:  # two or more matched the top (or nobody put anything in)
        return None
    return leader, top - second


def split_pots(
    committed: Sequence[int],
    contenders: Sequence[int],
    scores: dict[int, int],
    order: Sequence[int],
) -> list[PotResult]:
    """Main and side pots from each seat's chips committed, awarded to the best ``scores``.

    ``contenders`` are the seats not folded, ``order`` the turn order (the odd chips of a
    split go one each to the winners in turn order). A lone contender needs no score.
    The uncalled bet must already have been taken out of ``committed``.
    """
    total: int = sum(committed)
    if len(contenders) == 1:  # all but one folded: every chip of the hand, side pots included (rulings §4)
        return [_pot(PotResult, (total, tuple(contenders), tuple(contenders), (total,)))] if total else []
    put_in = set()  # loops and filters, not comprehensions (each a function call in 3.11): once per hand
    for s in contenders:
        if committed[s] > 0:
            put_in.add(committed[s])
    levels = sorted(put_in)
    if len(levels) == 1:  # no side pot (the common case): one pot of every chip, for every contender
        return [_award(total, tuple([s for s in order if s in contenders]), scores)]
    pots: list[PotResult] = []
    floor = 0
    for i, level in enumerate(levels):
        last = i == len(levels) - 1
        amount = sum([min(c, level) - min(c, floor) if not last else max(c - floor, 0) for c in committed])
        eligible = tuple(s for s in order if s in contenders and committed[s] >= level)
        pots.append(_award(amount, eligible, scores))
        floor = level
    if not levels and total:  # every contender put in nothing (ante 0): the pot still has an owner
        pots.append(_award(total, tuple(s for s in order if s in contenders), scores))
    return pots


def _award(amount: int, eligible: tuple[int, ...], scores: dict[int, int]) -> PotResult:
    winners: tuple[int, ...]
    if len(eligible) == 1:
        return _pot(PotResult, (amount, eligible, eligible, (amount,)))
    best = max(map(scores.__getitem__, eligible))
    tied = []
    for s in eligible:
        if scores[s] == best:
            tied.append(s)
    winners = tuple(tied)
    if len(winners) == 1:
        return _pot(PotResult, (amount, eligible, winners, (amount,)))
    share, odd = divmod(amount, len(winners))
    shares = tuple([share + (1 if i < odd else 0) for i in range(len(winners))])
    return _pot(PotResult, (amount, eligible, winners, shares))
