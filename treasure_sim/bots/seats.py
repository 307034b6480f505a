"""The door between the engine and a bot: one `Seat` per player asks, counts, times, checks and records.

Why one place: a bot is untrusted code. Every question the engine puts to it goes through its seat,
which calls the bot under the decision time limit, counts and times the decision, reads the answer
once into plain values (``answers.py``), checks them against the options the engine itself computed (the
questions other than bets: one generic `Seat.answer`, read and checked as the catalogue `questions.QUESTIONS` says),
falls back to the default answer when the bot fails, and records the error against the seat (or
raises `StrategyError` in a strict game). The engine's steps then read as rules: "ask seat s for a
betting action within these limits" returns an already legal answer.

Methods a bot does not override (``keep_playing``, ``move_spades``, ``draw_heart``, ``make_room``, ``steal``,
``on_hand_end``) have a fixed default answer, so the bot is not asked and no observation is built:
those questions take a ``look(decision)`` that builds the observation only when it is needed.

A bot whose ``setup`` failed, or that ran out of time ``max_timeouts`` times, is *benched*: it is
asked nothing more this game and every decision of its seat is the default answer. Every error
message starts with the method it concerns; all are one line and name no hidden card.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from operator import is_
from threading import get_ident
from time import perf_counter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..game.answers import (
    CHANCE_TOLERANCE,
    BadAnswer,
    describe_exception,
    exact_int,
    read_action,
    read_mixed,
    safe_repr,
    type_name,
)
from ..game.betting import BetLimits, action_problem
from ..game.questions import QUESTIONS, Decision, IllegalAnswer, check_answer, strategy_args
from ..game.strategy import (
    ACTION_KINDS,
    CALL,
    CHECK,
    FOLD,
    MAX_CHOICES,
    RAISE,
    Action,
    Mixed,
    Observation,
    Strategy,
)
from .timeouts import ALARM_THREAD, OVERDUE, Alarm, DecisionTimeout, alarm_usable, ring_overdue

if TYPE_CHECKING:
    from ..game.history import HandRecord
    from ..game.rules import RuleSet
    from ..game.state import Table

SKIPPABLE = ("keep_playing", "move_spades", "draw_heart", "make_room", "steal", "on_hand_end")
"""Methods whose base-class answer is fixed (go on, keep, draw, let the Treasure go, no steal, nothing): not asked
unless overridden."""
SETUP_TIME_FACTOR = 10
"""``setup`` may take this many times the decision time limit (a bot may load a model there)."""
BACKSTOP_FACTOR, BACKSTOP_SECONDS = 10, 10.0
"""A bot that enforces its own limit is still stopped at ``limit * BACKSTOP_FACTOR + BACKSTOP_SECONDS``."""

_KINDS = frozenset(ACTION_KINDS)
_FAILED = object()  # what a call returns when the bot failed (the error is already recorded)


def _plain_choices(answer: Any, lim: BetLimits) -> list[tuple[str, Any, float]] | None:
    """The common case read fast: an exact `Mixed` of exact tuples of our own `Action`s and floats, every action
    legal, the chances adding up to 1. Only exact built-in types are read, so no bot code runs; anything else is
    None, for `answers.read_mixed` to read (and name what is wrong)."""
    if type(answer) is not Mixed or tuple.__len__(answer) != 2:  # tuple.__new__ can make one of any length
        return None
    actions, chances = answer  # an exact NamedTuple of ours: unpacking it runs no bot code
    if type(actions) is not tuple or type(chances) is not tuple or not 0 < len(actions) == len(chances) <= MAX_CHOICES:
        return None
    read = _CHANCES_READ.get(id(chances))
    if read is None or read[0] is not chances or not all(map(is_, chances, read[1])):  # read before: not again
        total = 0.0
        for chance in chances:
            if type(chance) is not float or not 0.0 <= chance <= 1.0:
                return None
            total += chance
        if abs(total - 1.0) > CHANCE_TOLERANCE:
            return None
        if len(_CHANCES_READ) >= _CHANCES_KEPT:
            _CHANCES_READ.clear()
        _CHANCES_READ[id(chances)] = chances, list(chances)  # and its items, in case they were swapped (ctypes)
    choices = []
    to_call, low, high = lim
    for i, action in enumerate(actions):  # not zip(..., strict=True): a keyword makes that call slow
        if type(action) is not Action:
            return None
        try:
            kind, amount = action.kind, action.amount
        except AttributeError:  # a slot never set: for read_mixed to name
            return None
        if kind is RAISE:
            if type(amount) is not int or not high or not low <= amount <= high:
                return None
        elif not (kind is FOLD or kind is CALL or (kind is CHECK and not to_call)):
            return None
        choices.append((kind, amount, chances[i]))  # lengths checked above
    return choices


def _question_plans(asks: frozenset[str]) -> Mapping[str, tuple]:
    """Per question (`questions.QUESTIONS`), what `Seat.answer` reads of it, as one plain tuple (read at every question
    a seat is asked; a NamedTuple's fields are slower to read): whether the bot is asked (it answers the method itself,
    or the default is not fixed), the method, ``asked_with``, ``on_error``, a True/False answer, ``read``."""
    return {q.name: (not q.skippable or q.method in asks, q.method, q.asked_with, q.on_error, q.shape == "bool",
                     q.read) for q in QUESTIONS.values()}


_ASKS_NOTHING = MappingProxyType(_question_plans(frozenset()))  # a seat not set up, or whose setup failed


_CHANCES_READ: dict[int, tuple[tuple, list]] = {}  # chances `_plain_choices` found sound lately, by id (bots reuse
# one tuple per shape; the tuple kept, so its id is not reused), and their items as they were then
_CHANCES_KEPT = 16


class StrategyError(RuntimeError):
    """A bot misbehaved and the game is strict (``Game(..., strict=True)``): one line naming seat, bot,
    hand, method and what went wrong."""


def overrides(bot: Strategy, method: str) -> bool:
    """Whether a bot answers ``method`` itself (a subclass or an instance attribute replaced it).

    Read statically (`inspect.getattr_static`), so no code of the bot runs.
    """
    return inspect.getattr_static(bot, method, None) is not Strategy.__dict__[method]


_CLASS_ASKS: dict[type, frozenset[str]] = {}


def asked_methods(bot: Strategy) -> frozenset[str]:
    """The `SKIPPABLE` methods ``bot`` answers itself: its class's (found once per class), and any it set on
    the instance."""
    cls = type(bot)
    asks = _CLASS_ASKS.get(cls)
    if asks is None:
        asks = _CLASS_ASKS[cls] = frozenset(m for m in SKIPPABLE if overrides(cls, m))  # type: ignore[arg-type]
    try:
        own = object.__getattribute__(bot, "__dict__")
    except AttributeError:  # a bot with __slots__ only
        return asks
    if type(own) is dict and not own.keys().isdisjoint(SKIPPABLE):
        return frozenset(m for m in SKIPPABLE if overrides(bot, m))
    return asks


_CLASS_OWN_LIMIT: dict[type, bool] = {}


def _declares_own_limit(bot: Strategy) -> bool:
    """Whether ``bot`` (its class, or the instance itself) sets ``enforces_own_timeout = True``, read statically."""
    try:
        own = object.__getattribute__(bot, "__dict__")
    except AttributeError:
        own = {}
    if type(own) is dict and "enforces_own_timeout" in own:
        return own["enforces_own_timeout"] is True
    cls = type(bot)
    declared = _CLASS_OWN_LIMIT.get(cls)
    if declared is None:
        declared = _CLASS_OWN_LIMIT[cls] = inspect.getattr_static(cls, "enforces_own_timeout", False) is True
    return declared


def _invoke(bot: Strategy, method: str, args: tuple) -> Any:
    return getattr(bot, method)(*args)


class Seat:
    """One seat's bot, asked only through here.

    Keeps ``decisions`` (times asked), ``seconds`` (spent answering), ``errors`` (messages),
    ``failed`` (decisions answered with an error: at most one per decision, never an error while told something
    or set up, so ``failed <= decisions``) and ``timeouts`` (how many of the errors were the time limit).
    """

    __slots__ = ("_alarm", "_failed_at", "_plans", "asks", "benched", "bot", "decisions", "errors", "failed", "index",
                 "label", "limit", "max_timeouts", "own_limit", "passes", "plain", "seconds", "strict", "table",
                 "timeouts")

    def __init__(self, index: int, bot: Strategy, table: Table, *, strict: bool = False,
                 limit: float | None = None, max_timeouts: int | None = 3,
                 ends_game: tuple[type[BaseException], ...] = (KeyboardInterrupt,)) -> None:
        self.index = index
        self.passes = ends_game  # what a call lets through: Ctrl-C at a terminal, a trusted seat's stop
        self.bot = bot
        self.table = table  # read for the hand number that errors name
        self.strict = strict
        self.limit = limit
        self.max_timeouts = max_timeouts
        self.decisions = 0
        self.seconds = 0.0
        self.errors: list[str] = []
        self.failed = 0
        self._failed_at = 0  # ``decisions`` when the last failed decision was counted (or the bot last told)
        self.timeouts = 0
        self.asks: frozenset[str] = frozenset()
        self._plans: Mapping[str, tuple] = _ASKS_NOTHING
        self.benched = False
        self.plain = limit is None  # no time limit and not benched: act is called inline
        self.own_limit = False
        self.label = type_name(bot)
        self._alarm = Alarm(limit) if limit is not None else None

    def __repr__(self) -> str:
        return f"Seat({self.index}, {self.label})"

    # ----- calling the bot -------------------------------------------------------------------------
    def _ask(self, method: str, *args: Any) -> Any:
        """A decision: counted and timed; ``_FAILED`` (the error recorded) if the bot failed or is benched."""
        if self.plain:  # no time limit: the call inlined
            self.decisions += 1
            start = perf_counter()
            try:
                answer = getattr(self.bot, method)(*args)
            except BaseException as err:
                self._raised(method, err)
                answer = _FAILED
            self.seconds += perf_counter() - start
            return answer
        if self.benched:
            return _FAILED
        self.decisions += 1
        start = perf_counter()
        if self.own_limit or get_ident() != ALARM_THREAD:  # `alarm_usable`, inline
            answer = self._call(method, args, self.limit, start)
            self.seconds += perf_counter() - start
            return answer
        try:  # the common timed case, inlined: the seat's alarm (no system call: timeouts.py)
            answer = self._alarm.ask(self.bot, method, args, start)  # type: ignore[union-attr]
        except DecisionTimeout:
            self._timed_out(method, self.limit)
            answer = _FAILED
        except BaseException as err:
            self._raised(method, err)
            answer = _FAILED
        took = perf_counter() - start
        self.seconds += took
        if took > self.limit and answer is not _FAILED:  # type: ignore[operator]
            self._timed_out(method, self.limit)  # measured: the bot switched the alarm off
            answer = _FAILED
        if OVERDUE[0]:  # `ring_overdue`, inline
            ring_overdue()
        return answer

    def _tell(self, method: str, *args: Any) -> Any:
        """Tell the bot something (not a decision: not counted), under the same limit."""
        self._failed_at = self.decisions  # an error now is not the last decision's
        return _FAILED if self.benched else self._call(method, args, self.limit)

    def _call(self, method: str, args: tuple, limit: float | None, start: float | None = None) -> Any:
        """Call the bot under ``limit`` seconds; its answer, or ``_FAILED`` with the error recorded."""
        answer = self._call_bot(method, args, limit, start)
        if limit is not None:
            ring_overdue()
        return answer

    def _call_bot(self, method: str, args: tuple, limit: float | None, start: float | None) -> Any:
        if start is None:
            start = perf_counter()
        try:
            if limit is None:
                answer = _invoke(self.bot, method, args)
            elif self.own_limit:  # a proxy that stops itself; the alarm is only a backstop against a lie
                object.__setattr__(self.bot, "decision_timeout", limit)
                answer = self._alarmed(Alarm(limit * BACKSTOP_FACTOR + BACKSTOP_SECONDS), method, args)
            else:  # setup has a longer limit than the seat's alarm
                answer = self._alarmed(self._alarm if limit == self.limit else Alarm(limit), method, args)  # type: ignore[arg-type]
        except DecisionTimeout:
            self._timed_out(method, limit)
            return _FAILED
        except BaseException as err:
            self._raised(method, err)
            return _FAILED
        if limit is not None and not self.own_limit and perf_counter() - start > limit:
            self._timed_out(method, limit)  # measured: no alarm here, or the bot switched it off
            return _FAILED
        return answer

    def _alarmed(self, alarm: Alarm, method: str, args: tuple) -> Any:
        if alarm_usable():
            return alarm.ask(self.bot, method, args, perf_counter())
        return _invoke(self.bot, method, args)  # the time is measured by _call

    def _timed_out(self, method: str, limit: float | None) -> None:
        self.timeouts += 1
        message = f"{method} timed out after {limit:g} s"
        if self.max_timeouts is not None and self.timeouts >= self.max_timeouts:
            self.benched, self.plain = True, False
            message += f" ({self.timeouts} timeouts: not asked again this game)"
        self.error(message, DecisionTimeout())

    def _raised(self, method: str, err: BaseException) -> None:
        """The bot raised ``err``: its error, whatever the class (GeneratorExit, its own BaseException), except
        the ``ends_game`` types (Ctrl-C, a trusted seat's stop), which go on up."""
        if issubclass(type(err), self.passes):  # the real class: isinstance would read a __class__ property
            raise err
        self.error(f"{method} raised {describe_exception(err)}", err)

    def error(self, message: str, cause: BaseException | None = None) -> None:
        """Record a misstep (strict games raise `StrategyError` instead). ``message`` starts with the method."""
        text = f"hand {self.table.hand_no}: {message}"
        if self.strict:
            raise StrategyError(f"seat {self.index} ({self.label}): {text}") from cause
        self.errors.append(text)
        if self.decisions != self._failed_at:  # the decision just asked failed (counted once)
            self.failed += 1
            self._failed_at = self.decisions

    # ----- the questions ---------------------------------------------------------------------------
    def setup(self, n_players: int, rules: RuleSet, rng: np.random.Generator) -> None:
        """Start of the game: the bot learns its seat, the table size, its copy of the rules and its generator.

        If it fails, the bot is benched for the game (every decision of its seat is the default).
        """
        try:
            self.own_limit = self.limit is not None and _declares_own_limit(self.bot)
            if self.own_limit and self.limit is not None:
                object.__setattr__(self.bot, "decision_timeout", self.limit)
        except BaseException as err:
            if issubclass(type(err), self.passes):
                raise
            self.error(f"setup could not give the bot its time limit ({describe_exception(err)})", err)
        limit = None if self.limit is None else self.limit * SETUP_TIME_FACTOR
        if self._call("setup", (self.index, n_players, rules, rng), limit) is _FAILED:
            self.benched, self.plain = True, False
            return
        self.label = self._describe_bot()
        self.asks = asked_methods(self.bot)  # after setup: it may add methods
        self._plans = _question_plans(self.asks)

    def _describe_bot(self) -> str:
        """The bot's repr for records, if it gives a plain one-line string in time; else its class name."""
        text = self._call("__repr__", (), self.limit)
        if type(text) is not str:
            if text is not _FAILED:
                self.error(f"__repr__ returned {safe_repr(text)}, not a string")
            return type_name(self.bot)
        return " ".join(text[:1000].split())[:100] or type_name(self.bot)  # cut first: the text may be huge

    def act(self, obs: Observation, lim: BetLimits, my_bet: int) -> tuple[str, int] | list[tuple[str, Any, float]]:
        """A betting decision as (kind, this round's bet after it), legal under ``lim``; for a `Mixed` answer, the
        list of its (kind, bet after it, chance), for the state to draw from.

        An illegal answer is recorded and the seat checks if that is free, else folds. A call of
        nothing is a check.
        """
        answer: Any
        if self.plain:  # the common case, inlined: count, time, call
            self.decisions += 1
            start = perf_counter()
            try:
                answer = self.bot.act(obs)
            except BaseException as err:
                self._raised("act", err)
                answer = _FAILED
            self.seconds += perf_counter() - start
        else:
            answer = self._ask("act", obs)
        if type(answer) is Action:  # our own class: its slots can be read directly, once
            try:
                kind, amount = answer.kind, answer.amount
            except AttributeError:  # made with object.__new__: a slot never set
                return self._refuse_action(f"act returned {safe_repr(answer)}, not an Action", lim, my_bet)
            to_call = lim[0]
            if kind is CALL or (kind is CHECK and not to_call):  # the common cases, fast (interned names)
                return (CALL, my_bet + to_call) if to_call else (CHECK, my_bet)
            if kind is FOLD:
                return FOLD, my_bet
            if kind is RAISE and type(amount) is int and lim[1] <= amount <= lim[2] and lim[2]:
                return RAISE, amount
            if type(kind) is not str or kind not in _KINDS:
                return self._refuse_action(f"act: unknown action kind {safe_repr(kind)}", lim, my_bet)
        elif answer is _FAILED:
            return self._refuse_action(None, lim, my_bet)
        elif issubclass(type(answer), Mixed):
            return _plain_choices(answer, lim) or self._draw(answer, lim, my_bet)  # the common case read at once
        else:
            try:
                kind, amount = read_action(answer)
            except BadAnswer as bad:
                return self._refuse_action(str(bad), lim, my_bet)
        problem = action_problem(kind, amount, lim)
        if problem is not None:
            return self._refuse_action(f"act: {problem}", lim, my_bet)
        if kind == RAISE:
            return RAISE, exact_int(amount)  # type: ignore[return-value]  # checked by action_problem
        if kind == FOLD:
            return FOLD, my_bet
        return (CALL, my_bet + lim.to_call) if lim.to_call else (CHECK, my_bet)

    def _draw(self, answer: Mixed, lim: BetLimits, my_bet: int) -> tuple[str, int] | list[tuple[str, Any, float]]:
        """A `Mixed` answer that is not of our own exact types throughout (`_plain_choices` read the rest), read the
        careful way and checked, as (kind, raise total, chance) for the state to draw one from its own stream for this
        seat (nothing the bot can see or seed decides the draw); an illegal one is refused."""
        try:
            choices = read_mixed(answer)
        except BadAnswer as bad:
            return self._refuse_action(str(bad), lim, my_bet)
        for kind, amount, _ in choices:
            problem = action_problem(kind, amount, lim)
            if problem is not None:
                return self._refuse_action(f"act: {problem} (in a Mixed answer)", lim, my_bet)
        return [(kind, exact_int(amount) if kind == RAISE else 0, chance) for kind, amount, chance in choices]

    def _refuse_action(self, problem: str | None, lim: BetLimits, my_bet: int) -> tuple[str, int]:
        """The fallback for an illegal answer: check if that is free, else fold (the error recorded)."""
        if problem is not None:
            self.error(problem)
        return (CHECK, my_bet) if lim.to_call == 0 else (FOLD, my_bet)

    def answer(self, d: Decision, look: Callable[[Decision], Observation]) -> Any:
        """A question that is not a bet, as the catalogue defines it (`questions.QUESTIONS`): the bot's answer read
        into plain values (``Question.read``) and checked against ``d``'s options (`questions.check_answer`, the
        state's own check); on any error the question's ``on_error`` answer (else ``d.default``), the error
        recorded. A bot that does not answer a question whose default is fixed is not asked: ``d.default``.
        ``look(d)`` builds the observation only if the bot is asked."""
        asked, method, asked_with, on_error, yes_no, read = self._plans[d[1]]  # d.kind
        if not asked:
            return d.default
        got = self._ask(method, look(d), *strategy_args(d)) if asked_with else self._ask(method, look(d))
        if (got is True or got is False) and yes_no:  # what reading and checking it would give
            return got
        fallback = d.default if on_error == "default" else on_error
        if got is _FAILED:
            return fallback
        if got is None and d.options and d.options[-1] is None:  # None, where it is an option, comes last
            return None
        try:
            return check_answer(d, read(got) if read is not None else got)
        except BadAnswer as bad:
            self.error(f"{method} returned {bad}")
        except IllegalAnswer as bad:  # the options may include hidden hole cards: the message names none
            self.error(f"{method} returned {safe_repr(got)}, {bad.why}")
        return fallback

    def questions(self) -> frozenset[str]:
        """The questions (`questions.QUESTIONS` names) this seat's bot is asked: those whose default is not fixed, and
        those whose method it answers itself; the others get their default."""
        return frozenset(name for name, plan in self._plans.items() if plan[0])

    def on_hand_end(self, record: HandRecord) -> None:
        """Tell the bot the hand's public record, a copy of its own (being told is not a decision: not counted)."""
        if "on_hand_end" in self.asks:
            self._tell("on_hand_end", record.public(self.index))
