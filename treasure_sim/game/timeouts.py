"""A decision time limit for bots, enforced inside the process where it can be.

How: on the main thread of a process with SIGALRM (a tournament runs games on its workers' main
threads), :meth:`Alarm.call` installs a SIGALRM handler and a repeating real-time timer
(``signal.setitimer``): at the limit the handler raises `DecisionTimeout` inside the bot's code.
A `BaseException`, so ``except Exception`` in a bot does not catch it. A bot that swallows it
anyway is interrupted again every ``repeat`` seconds, and from the second interruption on the
first line or opcode it runs (the body of the handler that caught it) raises it again, through a
trace function, so ``while True: try: ... except BaseException: pass`` is unwound too. Whatever
the bot does, an answer given after the limit is refused. The previous timer and trace function
are restored after each call, the previous handler after each call or, inside an `AlarmScope`
(the engine opens one per hand), when the scope ends; meanwhile it still serves any SIGALRM that
arrives between calls.

Limits (in-process enforcement is best effort against an adversary): code that never returns to
the interpreter (a long C call such as ``sum(itertools.count())``) cannot be interrupted, nor can
other threads; a bot may switch the alarm off (``signal.signal(SIGALRM, SIG_IGN)``) or loop
through several nested handlers, each interruption unwinding only one of them; off the main
thread, or without SIGALRM, the time is only measured once the call returns. For bots you do not
trust, run each in another process behind a proxy that enforces its own limit
(``Strategy.enforces_own_timeout``) and can be killed.
"""

from __future__ import annotations

import dis
import signal
import sys
import threading
from collections.abc import Callable
from time import monotonic
from types import FrameType
from typing import Any

_PUSH_EXC_INFO = dis.opmap.get("PUSH_EXC_INFO", -1)
REPEAT = 0.05  # seconds between further interruptions of a bot that swallowed the first one
_HAS_ALARM = hasattr(signal, "SIGALRM") and hasattr(signal, "setitimer")


class DecisionTimeout(BaseException):
    """A bot ran past its decision time (raised inside the bot, or by a bot proxy that enforces its own)."""


_MAIN_THREAD = threading.main_thread().ident


def alarm_usable() -> bool:
    """Whether :class:`Alarm` can interrupt here: SIGALRM exists and this is the main thread."""
    return _HAS_ALARM and threading.get_ident() == _MAIN_THREAD


_ACTIVE: list[Alarm] = []  # the alarm of the call in progress (main thread only)
_OVERDUE = [False]  # someone else's timer came due while a bot's call had set it aside


def ring_overdue() -> None:
    """Let someone else's timer that came due during a bot's call ring now, outside that call (so whatever
    its handler raises is not taken for the bot's doing). Cheap when there is nothing to ring."""
    if _OVERDUE[0]:
        _OVERDUE[0] = False
        signal.raise_signal(signal.SIGALRM)
_OUTER: list[Any] = []  # the SIGALRM handlers that open AlarmScopes replaced, innermost last


def _dispatch(signum: int, frame: FrameType | None) -> None:
    """The SIGALRM handler: the alarm of the call in progress fires; between calls, the previous handler does."""
    if _ACTIVE:
        _ACTIVE[-1]._fire(signum, frame)
        return
    previous = _OUTER[-1] if _OUTER else None
    if callable(previous) and previous is not _dispatch:
        previous(signum, frame)
    # else no Python handler was there: ignore it (a late alarm of ours must never end the process)


class AlarmScope:
    """Keeps the alarms' SIGALRM handler installed for a stretch of calls (a hand), instead of installing and
    restoring it around each call (``signal.signal`` costs microseconds, as much as a decision of the engine).
    The previous handler is restored when the scope ends, and serves any SIGALRM between calls meanwhile;
    someone else's timer is set aside during each call and given back what is left of it after.
    Does nothing off the main thread.
    """

    __slots__ = ("_installed",)

    def __enter__(self) -> AlarmScope:
        self._installed = alarm_usable() and signal.getsignal(signal.SIGALRM) is not _dispatch  # not nested
        if self._installed:
            _OUTER.append(signal.signal(signal.SIGALRM, _dispatch))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            signal.signal(signal.SIGALRM, _OUTER.pop())


class Alarm:
    """Interrupts one call at a time after ``seconds``; :attr:`fired` says whether it had to."""

    __slots__ = ("_adapter", "_in_call", "_prev_trace", "_tracing", "fired", "repeat", "seconds")

    def __init__(self, seconds: float, repeat: float = REPEAT) -> None:
        self.seconds = seconds
        self.repeat = repeat
        self.fired = 0
        self._in_call = False
        self._tracing = False
        self._prev_trace: Any = None
        self._adapter: FrameType | None = None

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``; raises `DecisionTimeout` if it ran past the limit (even if it swallowed it).

        Only on the main thread (see :func:`alarm_usable`).
        """
        self.fired = 0
        self._adapter = sys._getframe()
        scoped = bool(_OUTER)  # inside an AlarmScope, whose handler serves (unless a bot replaced it: put it back)
        if scoped:
            if signal.getsignal(signal.SIGALRM) is not _dispatch:
                signal.signal(signal.SIGALRM, _dispatch)
            previous = None
        else:
            previous = signal.signal(signal.SIGALRM, _dispatch)
        _ACTIVE.append(self)
        prev_delay, prev_interval = signal.setitimer(signal.ITIMER_REAL, self.seconds, self.repeat)
        started = monotonic() if prev_delay else 0.0
        self._in_call = True
        try:
            answer = fn(*args)
        finally:
            self._in_call = False  # first: from here on neither the handler nor the tracer raises
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            _ACTIVE.pop()
            if not scoped:
                signal.signal(signal.SIGALRM, previous)
            if self._tracing:
                sys.settrace(self._prev_trace)
                self._tracing = False
            self._adapter = None
            if prev_delay:  # someone else's timer was running: give it back what is left of it
                left = prev_delay - (monotonic() - started)
                if left > 0:
                    signal.setitimer(signal.ITIMER_REAL, left, prev_interval)
                else:  # it came due meanwhile: it rings as soon as the bot's call is over (ring_overdue)
                    _OVERDUE[0] = True
                    if prev_interval:
                        signal.setitimer(signal.ITIMER_REAL, prev_interval, prev_interval)
        if self.fired:
            raise DecisionTimeout  # it answered, but only after the limit
        return answer

    def _fire(self, signum: int, frame: FrameType | None) -> None:
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
        while frame is not None and frame is not self._adapter:  # frames already running
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
