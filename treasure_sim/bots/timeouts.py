"""A decision time limit for bots, enforced inside the process where it can be.

How: on the main thread of a process with SIGALRM (a tournament runs games on its workers' main threads),
:meth:`Alarm.call` (and :meth:`Alarm.ask`, what a seat uses) writes down the call's deadline and calls the bot: no
system call, no timer set and cancelled per decision. A *watchdog* thread (one per process, started on first use)
looks at the call in progress now and then; when a call is still running at its deadline, it sends SIGALRM to the
main thread (``signal.pthread_kill``), whose handler raises `DecisionTimeout` inside the bot's code. A
`BaseException`, so ``except Exception`` in a bot does not catch it. A bot that swallows it anyway is interrupted
again every ``repeat`` seconds, and from the second interruption on the first line or opcode it runs (the body of
the handler that caught it) raises it again, through a trace function, so ``while True: try: ... except
BaseException: pass`` is unwound too.
Whatever the bot does, an answer given after the limit is refused.

The watchdog never needs to be told that a call started: while games run it sleeps at most the
shortest limit in use, so it always wakes before the deadline of any call that began while it
slept, and then sleeps until that deadline if the call is still going (a tournament with a 10 s
limit wakes it every 10 s). Between games it waits, woken by the next hand. The SIGALRM handler is
installed for a stretch of calls (`AlarmScope`: the engine opens one per hand), put back before a
call if a bot replaced it, and the previous handler restored afterwards; meanwhile it serves any
SIGALRM that is not the watchdog's: between calls at once, during a bot's call as soon as the call
is over (`ring_overdue`). Nobody's interval timer is touched.

Limits (in-process enforcement is best effort against an adversary): code that never returns to
the interpreter (a long C call such as ``sum(itertools.count())``) cannot be interrupted, nor can
other threads; a bot may switch the alarm off (``signal.signal(SIGALRM, SIG_IGN)``; the time is
then measured once its call returns) or loop through several nested handlers, each interruption
unwinding only one of them; off the main thread, or without SIGALRM, the time is only measured once
the call returns. For bots you do not trust, run each in another process behind a proxy that
enforces its own limit (``Strategy.enforces_own_timeout``) and can be killed.
"""

from __future__ import annotations

import _signal  # the C functions: signal.getsignal/signal wrap them in enum conversions (microseconds a call)
import dis
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable
from time import perf_counter
from types import FrameType
from typing import Any

_PUSH_EXC_INFO = dis.opmap.get("PUSH_EXC_INFO", -1)
REPEAT = 0.05  # seconds between further interruptions of a bot that swallowed the first one
_HAS_ALARM = hasattr(signal, "SIGALRM") and hasattr(signal, "pthread_kill")
_SIGALRM: int = getattr(signal, "SIGALRM", 14)
_getsignal: Callable[[int], Any] = _signal.getsignal
_setsignal: Callable[[int, Any], Any] = _signal.signal


class DecisionTimeout(BaseException):
    """A bot ran past its decision time (raised inside the bot, or by a bot proxy that enforces its own)."""


_MAIN_THREAD = threading.main_thread().ident
ALARM_THREAD = _MAIN_THREAD if _HAS_ALARM else None
"""The thread whose calls an `Alarm` can interrupt (``threading.get_ident()``): the main one; None without SIGALRM."""


def alarm_usable() -> bool:
    """Whether :class:`Alarm` can interrupt here: SIGALRM exists and this is the main thread."""
    return threading.get_ident() == ALARM_THREAD


_Call = tuple["Alarm", float]  # an alarm and the deadline of its call in progress (`time.perf_counter` seconds)
_ACTIVE: deque[_Call] = deque()  # the calls in progress (main thread only; the innermost last): the watchdog reads it
# (a deque: a list emptied and filled again at every decision is reallocated each time)
OVERDUE = [False]  # someone else's SIGALRM arrived during a bot's call: `ring_overdue` lets it ring
_SENT: list[_Call | None] = [None]  # the call the watchdog sent SIGALRM for, until the handler takes it
_OUTER: list[Any] = []  # the SIGALRM handlers that open AlarmScopes replaced, innermost last
_SHORTEST = [float("inf")]  # the shortest limit of any Alarm made: the longest the watchdog may sleep


def ring_overdue() -> None:
    """Let someone else's SIGALRM that arrived during a bot's call ring now, outside that call (so whatever
    its handler raises is not taken for the bot's doing). Cheap when there is nothing to ring."""
    if OVERDUE[0]:
        OVERDUE[0] = False
        signal.raise_signal(_SIGALRM)


def _dispatch(signum: int, frame: FrameType | None) -> None:
    """The SIGALRM handler: the watchdog's signal interrupts the call it was sent for (if it is still in progress);
    anyone else's is theirs: served at once between calls, after the call during one."""
    sent = _SENT[0]
    if sent is not None:
        _SENT[0] = None
        if _ACTIVE and _ACTIVE[-1] is sent:
            sent[0]._fire(frame)
        return  # else the call it was meant for is over: nothing to do
    if _ACTIVE:
        OVERDUE[0] = True
        return
    previous = _OUTER[-1] if _OUTER else None
    if callable(previous) and previous is not _dispatch:
        previous(signum, frame)
    # else no Python handler was there: ignore it (a late alarm of ours must never end the process)


# ----- the watchdog ----------------------------------------------------------------------------------------------
class _Watchdog:
    """The thread that interrupts calls past their deadline (one per process; a forked child starts its own).

    It sleeps at most the shortest limit of any `Alarm` (``_SHORTEST``) at a time, so a call that starts while it
    sleeps is looked at by its deadline, whatever call it was sleeping for; when no game runs, it waits for one.
    """

    def __init__(self) -> None:
        self.wake = threading.Event()  # set while there may be calls to watch (a scope open, a call in progress)
        self.nudge = threading.Event()  # set when a shorter limit appears: sleep less
        self.thread: threading.Thread | None = None

    def ensure(self) -> None:
        """Started, and awake (called when a scope opens, and before a call outside any scope)."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="treasure-sim decision watchdog", daemon=True)
            self.thread.start()
        if not self.wake.is_set():
            self.wake.set()

    def _run(self) -> None:
        wake, nudge = self.wake, self.nudge
        while True:
            nudge.clear()  # before reading the limit: a shorter one set from now on cuts the next nap short
            nap = max(min(_SHORTEST[0], 60.0), 0.001)
            try:
                call = _ACTIVE[-1]  # the main thread pushes and pops meanwhile
            except IndexError:
                call = None
            if call is None:
                if not _OUTER:  # no game is running: wait for the next hand or call
                    wake.clear()
                    if not (_OUTER or _ACTIVE):  # checked after clearing: a scope opened meanwhile set it again
                        wake.wait()
                    continue
                nudge.wait(nap)
                continue
            left = call[1] - perf_counter()
            if left > 0:
                nudge.wait(min(left, nap))
                continue
            _SENT[0] = call  # still running at its deadline: interrupt it
            try:
                signal.pthread_kill(_MAIN_THREAD, _SIGALRM)  # type: ignore[arg-type]
            except (OSError, ValueError):  # the main thread is gone: the process is ending
                return
            nudge.wait(min(call[0].repeat, nap))


_WATCHDOG = _Watchdog()


def _after_fork() -> None:  # threads do not survive fork: the child starts its own watchdog when it needs one
    _WATCHDOG.__init__()  # type: ignore[misc]  # in place: the engine's integrity check watches the module's names
    _SENT[0] = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


class AlarmScope:
    """Keeps the alarms' SIGALRM handler installed for a stretch of calls (a hand), instead of installing and
    restoring it around each call (a system call each time). The previous handler is restored when the scope ends,
    and serves any SIGALRM between calls meanwhile. Does nothing off the main thread.
    """

    __slots__ = ("_installed",)

    def __enter__(self) -> AlarmScope:
        self._installed = alarm_usable() and _getsignal(_SIGALRM) is not _dispatch  # not nested
        if self._installed:
            _OUTER.append(_setsignal(_SIGALRM, _dispatch))
            try:
                _SENT[0] = None  # a signal the watchdog sent while a bot had replaced our handler never reached us
                _WATCHDOG.ensure()  # after the push: a watchdog that looks now must see a scope (else it sleeps on)
            except BaseException:  # someone else's SIGALRM handler raised meanwhile: as if never entered
                _setsignal(_SIGALRM, _OUTER.pop())
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            _setsignal(_SIGALRM, _OUTER.pop())


class Alarm:
    """Interrupts one call at a time after ``seconds``; :attr:`fired` says whether it had to."""

    __slots__ = ("_in_call", "_prev_trace", "_tracing", "fired", "repeat", "seconds")

    def __init__(self, seconds: float, repeat: float = REPEAT) -> None:
        self.seconds = seconds
        self.repeat = repeat
        self.fired = 0
        self._in_call = False
        self._tracing = False
        self._prev_trace: Any = None
        if seconds < _SHORTEST[0]:
            _SHORTEST[0] = seconds
            _WATCHDOG.nudge.set()

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``; raises `DecisionTimeout` if it ran past the limit (even if it swallowed it).

        Only on the main thread (see :func:`alarm_usable`).
        """
        return self.ask(fn, "__call__", args, perf_counter())

    def ask(self, bot: Any, method: str, args: tuple, start: float) -> Any:
        """``getattr(bot, method)(*args)`` (the lookup timed too: a bot's own ``__getattribute__`` is its code) under
        the limit from ``start`` (`time.perf_counter`, read by the caller, which times the call too), as `call`: what
        a seat asks of its bot at every decision, so kept lean."""
        if not _OUTER:  # outside an AlarmScope: one just for this call
            return self._ask_scoped(bot, method, args, start)
        if _getsignal(_SIGALRM) is not _dispatch:  # a bot replaced the scope's handler: put it back
            _setsignal(_SIGALRM, _dispatch)
            _SENT[0] = None  # sent while a bot's handler was in place: it went there, never to `_dispatch`
        self.fired = 0
        _ACTIVE.append((self, start + self.seconds))
        self._in_call = True
        try:
            answer = getattr(bot, method)(*args)
        finally:
            self._in_call = False  # first: from here on neither the handler nor the tracer raises
            _ACTIVE.pop()
            if self._tracing:
                sys.settrace(self._prev_trace)
                self._tracing = False
        if self.fired:
            raise DecisionTimeout  # it answered, but only after the limit
        return answer

    def _ask_scoped(self, bot: Any, method: str, args: tuple, start: float) -> Any:
        """`ask` with the alarms' handler installed around the one call, and the previous one put back (and
        `_OUTER` as it was, whatever someone else's SIGALRM handler raises meanwhile)."""
        depth = len(_OUTER)
        previous = _setsignal(_SIGALRM, _dispatch)
        try:
            _OUTER.append(previous)
            _WATCHDOG.ensure()  # after the push: a watchdog that looks now must see a scope (else it sleeps on)
            return self.ask(bot, method, args, start)
        finally:
            del _OUTER[depth:]
            _setsignal(_SIGALRM, previous)

    def _fire(self, frame: FrameType | None) -> None:
        if not self._in_call:
            return  # the call has returned: the adapter is tidying up
        self.fired += 1
        if self.fired > 1:
            self._trace_from(frame)
        raise DecisionTimeout

    def _trace_from(self, frame: FrameType | None) -> None:
        """The bot swallowed a timeout: the next line or opcode it runs (in its handler) raises it again.

        Python drops a trace function that raises, so this is installed again at every interruption;
        each interruption unwinds the bot past the handler that caught the one before.
        """
        if not self._tracing:
            self._prev_trace = sys.gettrace()
            self._tracing = True
        sys.settrace(self._trace)  # frames the bot calls from now on
        while frame is not None and frame.f_code is not _ASK_CODE:  # frames already running, up to our `ask`
            frame.f_trace = self._trace
            frame.f_trace_opcodes = True
            frame = frame.f_back

    def _trace(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if not self._in_call:
            return None
        # not at the very start of a handler: raising before it has saved the exception it caught would
        # unbalance the interpreter's stack of exceptions being handled (the next opcode is fine)
        if (event == "opcode" or event == "line") and frame.f_code.co_code[frame.f_lasti] != _PUSH_EXC_INFO:
            raise DecisionTimeout
        frame.f_trace_opcodes = True  # a call, an exception arriving, a return: keep watching
        return self._trace


_ASK_CODE = Alarm.ask.__code__  # the frame that calls the bot: where `_trace_from` stops (the innermost is the alarm's
# that fired: only the innermost call in progress is ever interrupted)
