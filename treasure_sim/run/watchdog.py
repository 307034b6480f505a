"""A watchdog no in-process bot can switch off: games with such bots are played in a process the worker watches.

An in-process bot can switch the decision alarm off and sleep, run a C call that never returns to the
interpreter (``sum(itertools.count())``), end its process (``os._exit``, a segfault) or kill its parent
(``os.kill(os.getppid(), SIGKILL)``). So a task with an in-process entrant that is not a built-in bot runs in a
*game process* forked for it, under a small *keeper* process, while the worker (under the process pool or dask
alike) watches from outside:

    worker (supervise: polls the stamp, reads the result)  ->  keeper (waits)  ->  game process (plays the task)

Before every call to a bot, the game process writes a *stamp* into memory shared with the worker: a counter, the
game, the seat and how many calls that seat's bot has had this game. A stamp that has not moved for longer than the
limit (``decision_timeout`` x 2 + 5 s; ``setup`` ten times that) is a stuck bot: the worker kills the keeper, and
the game process dies with it (``PR_SET_PDEATHSIG``). A game process that dies on its own (or whose keeper a bot
killed) is the bot of the last stamp, if it happens again at the same call when the task is played again (once
could be the out-of-memory killer). Either way the worker names the entrant and plays the task again from the
start: every game is a function of its seeds, so the games before come out the same, and in the game named the bot
is *benched* from the call that never finished (it is asked nothing more, every decision of its seat is the default
answer, and its errors say why). A strict run stops instead (`BotFailure`).

Limits: the stamp lives in the game process's memory, so a bot that hunts it down could fake progress; a bot with
``__slots__`` and no ``__dict__`` is not stamped (the last stamp names another seat); a bot that behaves differently
when replayed (it reads the clock) is benched at the same call count, in a game that may differ from the first.
In-process bots are trusted code: `isolate` those you do not trust (``docs/protocol.md``).
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import mmap
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..bots.processes import exit_with_parent
from ..game.strategy import Strategy

if TYPE_CHECKING:
    from ..bots.driver import Game
    from .tournament import Task, TaskResult

log = logging.getLogger("treasure_sim")

_STAMP = struct.Struct("<qqqqq")  # counter, game_id, seat, call number, limit factor (1 or the setup's)
POLL = 0.1  # seconds between looks at the stamp
SLACK = 5.0  # seconds past twice the decision limit before a stuck bot is killed
SETUP_FACTOR = 10  # setup may take ten times the decision limit (as seats.SETUP_TIME_FACTOR)
MAX_EVENTS = 50  # stuck or dead bots in one task before the task itself is given up
BOT_METHODS = ("setup", "__repr__", "act", "keep_playing", "move_spades", "draw_heart", "choose_joker_treasure",
               "make_room", "steal", "on_hand_end")


class WatchdogStop(Exception):
    """The bot is benched by the watchdog from this call on (it was stuck, or its process died, here before)."""


class Stuck(RuntimeError):
    """The task's game process was killed or died: ``game_id``, ``seat``, ``call`` say at which bot call."""

    def __init__(self, game_id: int, seat: int, call: int, what: str, died: bool = False) -> None:
        super().__init__(what)
        self.game_id, self.seat, self.call, self.what, self.died = game_id, seat, call, what, died


def is_builtin(spec: str) -> bool:
    """Whether ``spec`` names a built-in bot (the ``strategies`` package's registry)."""
    from ..bots.loader import registry

    return spec in registry()


def needed(task: Task) -> bool:
    """Whether the task has an in-process entrant that is not a built-in bot (and the platform can fork)."""
    return hasattr(os, "fork") and any(not e.isolate and not is_builtin(e.strategy) for e in task.entrants)


@dataclass
class Guard:
    """In the game process: stamps every bot call, and benches the bots named by earlier events."""

    stamp: mmap.mmap | None
    benches: dict[tuple[int, int], tuple[int, str]] = field(default_factory=dict)  # (game, seat) -> (call, why)
    counter: int = 0
    last: tuple[int, int] = (-1, -1)  # (game_id, seat) of the last call

    def wrap(self, game_id: int, bots: list[Strategy]) -> list[list[Any]]:
        """Stamp every call of each bot of game ``game_id`` (before the `Game` is built); returns, per seat, a slot
        for its `Seat` (filled by `attach`), through which a bench takes effect."""
        holders: list[list[Any]] = []
        for seat, bot in enumerate(bots):
            holder: list[Any] = [None]
            holders.append(holder)
            try:
                own = object.__getattribute__(bot, "__dict__")
            except AttributeError:
                continue  # __slots__ only: not stamped
            if type(own) is not dict:
                continue
            calls = [0]
            bench = self.benches.get((game_id, seat))
            for name in BOT_METHODS:
                if name not in ("setup", "__repr__", "act") and not _overridden(bot, name):
                    continue  # the engine does not ask it: wrapping it would make it asked
                own[name] = self._stamped(getattr(bot, name), game_id, seat, calls, bench, holder,
                                          SETUP_FACTOR if name == "setup" else 1)
        return holders

    def _stamped(self, method: Callable[..., Any], game_id: int, seat: int, calls: list[int],
                 bench: tuple[int, str] | None, holder: list[Any], factor: int) -> Callable[..., Any]:
        stamp, pack = self.stamp, _STAMP.pack_into

        def call(*args: Any) -> Any:
            calls[0] += 1
            self.counter += 1
            self.last = (game_id, seat)
            if stamp is not None:
                pack(stamp, 0, self.counter, game_id, seat, calls[0], factor)
            if bench is not None and calls[0] >= bench[0]:
                seat_obj = holder[0]
                if seat_obj is not None and hasattr(seat_obj, "benched"):
                    seat_obj.benched, seat_obj.plain = True, False  # asked nothing more this game
                raise WatchdogStop(bench[1])
            return method(*args)

        return call

    @staticmethod
    def attach(game: Game, holders: list[list[Any]]) -> None:
        for seat, holder in zip(game.seats, holders, strict=True):
            holder[0] = seat


def _overridden(bot: Strategy, name: str) -> bool:
    import inspect

    return inspect.getattr_static(bot, name, None) is not Strategy.__dict__[name]


# ----- the worker's side ------------------------------------------------------------------------------------
def supervise(task: Task, play: Callable[[Task, Guard], TaskResult]) -> TaskResult:
    """Play ``task`` with ``play`` in a watched game process; stuck or dead bots benched, the task played again."""
    from .tournament import BotFailure

    benches: dict[tuple[int, int], tuple[int, str]] = {}
    deaths: set[tuple[int, int, int]] = set()  # (game, seat, call) where the process died once already
    for _ in range(MAX_EVENTS):
        try:
            return _attempt(task, play, benches)
        except Stuck as event:
            label = task.entrants[_entrant(task, event.game_id, event.seat)].label
            message = f"game {event.game_id}: seat {event.seat} ({label}): {event.what}"
            where = (event.game_id, event.seat, event.call)
            if event.died and where not in deaths:  # killed from outside (out of memory?) or the bot's doing:
                deaths.add(where)  # played again as it was; a bot that does it again at the same call is benched
                log.warning("the game process died in %s; playing deals %d-%d again", message, task.first_deal,
                            task.end_deal - 1)
                continue
            if task.strict:
                raise BotFailure(f"entrant {label!r} in game {event.game_id}: {event.what}") from None
            log.warning("bot %r %s; the task is played again with the bot benched from that call on", label,
                        message)
            key = (event.game_id, event.seat)
            if key in benches and benches[key][0] <= event.call:  # benched, and it still stopped the process
                raise BotFailure(f"entrant {label!r} in game {event.game_id}: {event.what} even when benched") from None
            benches[key] = (event.call, f"{event.what}: not asked again this game (watchdog)")
    raise BotFailure(f"deals {task.first_deal}-{task.end_deal - 1}: {MAX_EVENTS} stuck or dead bots in one task")


def _entrant(task: Task, game_id: int, seat: int) -> int:
    from .schedule import seating
    from .tournament import games_of

    deal = game_id if task.cycle else game_id // task.rotations
    for gid, rotation in games_of(task, deal):
        if gid == game_id:
            return seating(task.tables[deal % len(task.tables)], rotation)[seat]
    raise ValueError(f"game {game_id} is not in the task")


def _limit(task: Task, factor: int) -> float | None:
    if task.decision_timeout is None:
        return None
    return task.decision_timeout * factor * 2 + SLACK


def _attempt(task: Task, play: Callable[[Task, Guard], TaskResult],
             benches: dict[tuple[int, int], tuple[int, str]]) -> TaskResult:
    stamp = mmap.mmap(-1, _STAMP.size)
    read_end, write_end = os.pipe()
    worker = os.getpid()
    keeper = os.fork()
    if keeper == 0:  # the keeper: starts the game process, waits for it, passes on how it ended
        try:
            os.close(read_end)
            exit_with_parent(worker)
            keeper_pid = os.getpid()
            game = os.fork()
            if game == 0:
                _game_process(task, play, Guard(stamp, dict(benches)), write_end, keeper_pid)
            os.close(write_end)
            _, status = os.waitpid(game, 0)
            os._exit(os.waitstatus_to_exitcode(status) % 256 if os.WIFEXITED(status) else
                     128 + os.WTERMSIG(status))
        finally:
            os._exit(70)
    os.close(write_end)
    status, reaped = 0, False
    try:
        data = _watch(task, keeper, read_end, stamp)
        deadline = time.monotonic() + 10.0  # the game process has sent all it will: the keeper ends with it
        while not reaped and time.monotonic() < deadline:
            pid, status = os.waitpid(keeper, os.WNOHANG)
            reaped = pid != 0
            if not reaped:
                time.sleep(0.005)
    finally:
        os.close(read_end)
        if not reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(keeper, signal.SIGKILL)
            _, status = os.waitpid(keeper, 0)
    if data is None or isinstance(data, Stuck):
        counter, game_id, seat, call, _ = _STAMP.unpack_from(stamp, 0)
        if isinstance(data, Stuck):
            raise data
        code = os.waitstatus_to_exitcode(status)
        how = f"signal {-code}" if code < 0 else f"signal {code - 128}" if code > 128 else f"exit code {code}"
        if counter == 0:
            raise RuntimeError(f"the game process of deals {task.first_deal}-{task.end_deal - 1} died ({how}) "
                               f"before any bot was asked")
        raise Stuck(game_id, seat, call, f"its process ended during a call to the bot ({how}; os._exit, a crash, "
                                         f"a signal, or its parent killed)", died=True)
    kind, payload, records = data
    for level, message in records:
        log.log(level, "%s", message)
    if kind == "error":
        raise payload
    return payload


def _watch(task: Task, keeper: int, fd: int, stamp: mmap.mmap) -> Any:
    """Read the game process's answer; None if it ended without one, a `Stuck` if a bot call outlived its limit."""
    chunks: list[bytes] = []
    seen, since = -1, time.monotonic()
    while True:
        ready, _, _ = select.select([fd], [], [], POLL)
        if ready:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            continue
        counter, game_id, seat, call, factor = _STAMP.unpack_from(stamp, 0)
        now = time.monotonic()
        if counter != seen:
            seen, since = counter, now
            continue
        limit = _limit(task, factor)
        if counter and limit is not None and now - since > limit:
            with contextlib.suppress(ProcessLookupError):
                os.kill(keeper, signal.SIGKILL)
            return Stuck(game_id, seat, call, f"a call to the bot ran past {limit:g} s (the watchdog killed it)")
    try:
        return pickle.loads(b"".join(chunks)) if chunks else None
    except Exception:
        return None


def _game_process(task: Task, play: Callable[[Task, Guard], TaskResult], guard: Guard, fd: int, keeper: int) -> None:
    """Play the task and send (kind, result or error, log records) to the worker; never returns."""
    code = 0
    try:
        exit_with_parent(keeper)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        faulthandler.disable()  # a bot's crash is reported by the worker, in one line
        from ..bots import isolated

        isolated._IDLE.clear()  # the worker's bot processes are the worker's: this process starts its own
        records: list[tuple[int, str]] = []
        logger = logging.getLogger("treasure_sim")
        handler = _Collect(records)
        logger.handlers, logger.propagate = [handler], False
        try:
            out: tuple[str, Any, list[tuple[int, str]]] = ("ok", play(task, guard), records)
        except Exception as err:
            out = ("error", err, records)
        try:
            data = pickle.dumps(out)
        except Exception as err:  # an exception that does not pickle
            data = pickle.dumps(("error", RuntimeError(f"{type(err).__name__}: {err}"), records))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        isolated.stop_all()
    except BaseException:
        code = 70
    finally:
        os._exit(code)


class _Collect(logging.Handler):
    def __init__(self, records: list[tuple[int, str]]) -> None:
        super().__init__(logging.INFO)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelno, record.getMessage()))
