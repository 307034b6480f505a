"""Scheduling a tournament: balanced round-robin tables, duplicate deals, seat rotations, seeds, and tasks.

A *deal* is one stream of cards (`game_seeds`); with ``rotate`` it is played once per
rotation of the seats, so every entrant of the table plays every seat with the same cards to start from:
seat advantage cancels (card luck hardly does: the games diverge within a few hands). Each game depends only
on (config, deal, rotation): how the games are cut into tasks, how many workers run them and in which order
never changes a result.
"""

from __future__ import annotations

import inspect
import logging
import re
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..bots.driver import Game, StrategyError
from ..bots.integrity import Tampering, engine_tampered
from ..bots.isolated import IsolatedBot
from ..bots.loader import outside_code_loaded
from ..game.gamestate import GameState
from ..game.history import GameResult
from ..game.phh import game_to_phhs
from ..game.questions import Decision
from ..game.rules import RuleSet
from ..game.seeding import derive, hardened_root_key
from ..game.strategy import Strategy
from . import watchdog
from .experiment import Entrant, Experiment, load_strategy
from .rows import game_rows, hand_rows, mixed_rows, new_columns, seat_rows, to_tables
from .schedule import round_robin, seating
from .watchdog import Guard

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GameSeeds:
    """A game's streams, each from a keyed hash of the experiment's hardened root key (`treasure_sim.game.seeding`).

    ``cards`` depends on the deal alone, so every rotation (and every variant of a sweep) sees the same cards. ``bots``
    (one per seat) say nothing about the cards or another bot's stream. ``draws`` (one per seat, for drawing `Mixed`
    answers) are fresh in every game of a deal, keyed by deal, rotation and seat: a bot that remembers its draws in
    one rotation learns nothing about its draws in the next. Like the cards and the bots' streams, they are the same
    in every variant of a sweep, so an unchanged variant plays exactly the same games.
    """

    cards: np.random.SeedSequence
    bots: tuple[np.random.SeedSequence, ...]
    draws: tuple[np.random.SeedSequence, ...]

    @property
    def deal_key(self) -> int:
        """A number naming the cards (the same in every rotation and variant of the deal): no isolated bot's
        process plays them twice (`IsolatedBot`)."""
        entropy = self.cards.entropy
        assert isinstance(entropy, int)  # seeding.derive makes one 256-bit int
        return entropy


def game_seeds(seed: int, deal: int, rotation: int, seats: int) -> GameSeeds:
    """The streams of game (``deal``, ``rotation``) of an experiment run with ``seed``."""
    key = hardened_root_key(seed)
    return GameSeeds(derive(key, "cards", deal), tuple(derive(key, "bot", deal, rotation, s) for s in range(seats)),
                     tuple(derive(key, "draws", deal, rotation, s) for s in range(seats)))


# ----- tasks -----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Task:
    """A chunk of whole deals (all their rotations) for one worker; small to pickle."""

    experiment: str
    seed: int
    rules: RuleSet
    entrants: tuple[Entrant, ...]
    tables: tuple[tuple[int, ...], ...]
    rotations: int
    first_deal: int
    end_deal: int  # exclusive
    decision_timeout: float | None = None
    strict: bool = False  # stop at a bot's first error (BotFailure) instead of playing the default answer
    histories: int = 0  # games with a smaller game_id also come back as PHH hand histories
    cycle: bool = False  # rotate = "cycle": one game per deal, in rotation ``deal % table size``
    stderr_dir: str | None = None  # isolated bots' stderr goes to <stderr_dir>/<label>.log

    @property
    def games(self) -> int:
        return (self.end_deal - self.first_deal) * self.rotations


@dataclass(frozen=True, slots=True)
class TaskResult:
    """What a worker sends back: compact columns for both tables, never one Python object per hand."""

    first_deal: int
    end_deal: int
    n_games: int
    tables: dict[str, pa.Table]  # by table name (games, hands)
    seconds: float
    bot_errors: int
    histories: tuple[tuple[int, str], ...] = ()  # (game_id, PHH text) of the games asked for (Task.histories)


class BotFailure(RuntimeError):
    """A bot could not be built, or broke a strict run: one line naming the entrant, the game and what failed (and
    where in the bot's own code); ``bot_traceback`` is the bot's traceback as text (it survives the trip from a
    worker process, which the exception's own traceback does not)."""

    def __init__(self, message: str, bot_traceback: str = "") -> None:
        super().__init__(message, bot_traceback)

    def __str__(self) -> str:
        return str(self.args[0])

    @property
    def bot_traceback(self) -> str:
        return str(self.args[1]) if len(self.args) > 1 else ""


_PACKAGE = str(Path(__file__).resolve().parent.parent)  # the engine's frames are not the bot's


def bot_frames(err: BaseException | None) -> list[traceback.FrameSummary]:
    """The frames of ``err``'s traceback in the bot's own code (outside treasure_sim)."""
    if err is None or err.__traceback__ is None:
        return []
    return [f for f in traceback.extract_tb(err.__traceback__) if not f.filename.startswith(_PACKAGE)]


def bot_location(bot: object, message: str, err: BaseException | None) -> str:
    """Where in the bot it went wrong: the innermost of its own frames of ``err``, else the method that answered
    (named at the start of ``message``, after ``hand N:``); '' when neither is found."""
    frames = bot_frames(err)
    if frames:
        return f" (at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})"
    method = re.search(r"hand \d+: (\w+) ", message)
    target = getattr(type(bot), method[1], None) if method else None
    try:
        code = inspect.unwrap(target).__code__ if target is not None else None
    except (AttributeError, ValueError):
        code = None
    if code is None or code.co_filename.startswith(_PACKAGE):
        return ""
    return f" (its {method[1] if method else 'method'} at {code.co_filename}:{code.co_firstlineno})"


def bot_traceback(err: BaseException | None) -> str:
    """The bot's exception with only its own frames, as text (empty without one)."""
    frames = bot_frames(err)
    if err is None or not frames:
        return ""
    return "".join(["Traceback of the bot (its own frames):\n", *traceback.format_list(frames),
                    *traceback.format_exception_only(err)])


def plan_tasks(exp: Experiment, pending: list[tuple[int, int]], size: int, *, strict: bool = False,
               histories: int = 0, stderr_dir: str | None = None) -> Iterator[Task]:
    """Cut the pending deal ranges [start, end) into tasks of at most ``size`` deals, as they are needed
    (a run of 10**12 deals starts at once and plans in constant memory). Games with a game_id below
    ``histories`` come back with their PHH hand histories too."""
    tables = round_robin(len(exp.entrants), exp.table_size)
    for start, end in pending:
        for first in range(start, end, size):
            yield Task(exp.name, exp.seed, exp.rules, exp.entrants, tables, exp.rotations, first,
                       min(end, first + size), exp.decision_timeout, strict, histories, exp.rotate == "cycle",
                       stderr_dir)


def stderr_log(stderr_dir: str, label: str) -> str:
    """The file an isolated entrant's stderr is kept in: ``<stderr_dir>/<label>.log`` (the label made a file name)."""
    return str(Path(stderr_dir) / (re.sub(r"[^A-Za-z0-9._-]+", "_", label).lstrip(".") + ".log"))


def make_bot(entrant: Entrant, deal_key: int | None = None, stderr_dir: str | None = None) -> Strategy:
    """A fresh bot for one game: in this process, or a proxy to its own process when isolated (one that has never
    played the cards ``deal_key`` names: a bot cannot remember a deal from one rotation or variant to the next;
    its stderr kept in ``stderr_dir``)."""
    if entrant.isolate:
        return IsolatedBot(entrant.process_command, label=entrant.label, memory_mb=entrant.memory_mb,
                           deal_key=deal_key,
                           stderr_log=stderr_log(stderr_dir, entrant.label) if stderr_dir else None)
    return load_strategy(entrant.strategy, **entrant.params)


def games_of(task: Task, deal: int) -> Iterator[tuple[int, int]]:
    """(game_id, rotation) of each game of a deal: every rotation, or with ``cycle`` the deal's own one."""
    if task.cycle:
        yield deal, deal % len(task.tables[deal % len(task.tables)])
        return
    for rotation in range(task.rotations):
        yield deal * task.rotations + rotation, rotation


def entrant_setup(task: Task, seats: tuple[int, ...]) -> dict:
    """The `Game` keywords for entrants with restricted powers or starting Treasures, by seat."""
    restrict = {s: task.entrants[e].restrict for s, e in enumerate(seats) if task.entrants[e].restrict}
    treasures = {s: task.entrants[e].treasures for s, e in enumerate(seats) if task.entrants[e].treasures}
    return {"restrict": restrict or None, "treasures": treasures or None}


class _Unbuilt(Strategy):
    """The seat of an entrant whose bot could not be built for this game: its setup fails with why, so the seat is
    benched (every decision the default answer) and the error recorded; the other games go on."""

    def __init__(self, why: str) -> None:
        self.why = why

    def setup(self, seat: int, n_players: int, rules: RuleSet, rng: np.random.Generator) -> None:
        raise RuntimeError(self.why)

    def __repr__(self) -> str:
        return "unbuilt"


def void_result(game: Game, seat: int | None, message: str) -> GameResult:
    """A voided game: nobody wins or loses a chip (everyone ends with the starting stack, an even share), no hand is
    kept, ``end_reason`` is "void", and ``message`` is an error of ``seat``'s entrant."""
    n = game.n_players
    errors = [tuple(e) for e in game.errors]
    if seat is not None:
        errors[seat] += (message,)
    return GameResult(n_players=n, strategies=tuple(s.label for s in game.seats), seed=game.seed,
                      rules=game.rules.to_dict(), final_money=(game.rules.starting_money,) * n,
                      win_shares=(1 / n,) * n, end_reason="void", hands_played=0, treasures=((),) * n,
                      errors=tuple(errors), decisions=tuple(s.decisions for s in game.seats),
                      decision_time=tuple(s.seconds / s.decisions if s.decisions else 0.0 for s in game.seats),
                      hands=(), timeouts=tuple(s.timeouts for s in game.seats))


def play_one(task: Task, game_id: int, deal: int, rotation: int, seats: tuple[int, ...],
             guard: Guard | None = None,
             on_decision: Callable[[GameState, Decision], None] | None = None) -> GameResult:
    """One game of the task. A bot that cannot be built plays benched (an error), or in a strict run is a
    `BotFailure`; a game whose chips, cards or engine code were tampered with (`integrity`), or that broke under
    an in-process bot, is voided naming the entrant (a `BotFailure` in a strict run). ``guard``: the watchdog's
    (`watchdog.supervise`), which stamps every bot call. ``on_decision``: told every decision a seat faces (the
    replay's count of decisions, `replay.py`; `Game`)."""
    bots: list[Strategy] = []
    seeds = game_seeds(task.seed, deal, rotation, len(seats))

    def who(seat: int | None) -> str:
        return "a bot" if seat is None else repr(task.entrants[seats[seat]].label)

    def culprit(seat: int | None) -> str:
        """Who tampered, for a voided game: nobody at a table where no bot can reach the engine."""
        if able:
            return who(seat)
        if watch:
            return "none at this table (a bot from outside treasure-sim loaded in this process)"
        return "none (only treasure-sim's own code ran in this process: an engine bug, please report it)"

    def strategy_failure(err: StrategyError) -> BotFailure:
        """A strict game's stop as one line naming the entrant and where in its code (its traceback kept)."""
        seat = re.match(r"seat (\d+)", str(err))
        where = bot_location(bots[int(seat[1])], str(err), err.__cause__) if seat else ""
        return BotFailure(f"entrant {who(int(seat[1]) if seat else None)} in game {game_id} (deal {deal}): "
                          f"{err}{where}", bot_traceback(err.__cause__))

    able = [s for s, e in enumerate(seats) if not task.entrants[e].isolate
            and not watchdog.is_builtin(task.entrants[e].strategy)]  # the seats whose code could tamper

    def suspect(seat: int | None) -> int | None:
        """The seat to blame for tampering seen after ``seat``'s turn: only an in-process bot that is not built in
        can tamper, so if ``seat`` is another, the last such bot asked (or the only one at the table)."""
        if not able:
            return None  # no bot here can reach the engine: another table's, earlier in this process, did
        if seat in able:
            return seat
        last = guard.last[1] if guard is not None and guard.last[0] == game_id else None
        return last if last in able else able[0] if len(able) == 1 else seat

    try:
        for e in seats:
            entrant = task.entrants[e]
            try:
                bot = make_bot(entrant, deal_key=seeds.deal_key, stderr_dir=task.stderr_dir)
                bots.append(bot)
            except Exception as err:
                why = (f"entrant {entrant.label!r} ({entrant.strategy or ' '.join(entrant.command)}) could not be "
                       f"built for game {game_id}: {type(err).__name__}: {err}")
                if task.strict:
                    raise BotFailure(why + bot_location(None, "", err), bot_traceback(err)) from err
                log.warning("%s; it plays benched (the default answers)", why)
                bots.append(_Unbuilt(f"could not be built: {type(err).__name__}: {err}"[:500]))
        holders = guard.wrap(game_id, bots) if guard is not None else None
        # the engine's code is watched wherever code not ours has run in this process (a bot at an earlier table
        # could have replaced it as it went), with the chips and cards after every hand; else nothing can tamper,
        # and only the chips and cards are checked, at every 16th hand and at the game's end (integrity.py)
        watch = bool(able) or outside_code_loaded()
        try:  # a strict game stops at a bot's setup here
            game = Game(bots, task.rules, None, deal_seed=seeds.cards, bot_seeds=seeds.bots, draw_seeds=seeds.draws,
                        quintets=False, strict=task.strict, decision_timeout=task.decision_timeout,
                        watch_code=watch, on_decision=on_decision,
                        ends_game=(),  # workers ignore Ctrl-C: a bot raised it
                        **entrant_setup(task, seats))
        except StrategyError as err:
            raise strategy_failure(err) from err
        if guard is not None and holders is not None:
            guard.attach(game, holders)
        try:
            result = game.play()
        except Tampering as err:
            blamed = err.seat if err.exact and able else suspect(err.seat)
            if task.strict:
                raise BotFailure(f"entrant {culprit(blamed)} in game {game_id} (deal {deal}): {err}") from err
            log.warning("game %d voided: entrant %s: %s", game_id, culprit(blamed), err)
            return void_result(game, blamed, str(err))
        except StrategyError as err:
            raise strategy_failure(err) from err
        except Exception as err:
            if guard is None:
                raise  # only built-in and isolated bots: the engine's own failure, with its traceback
            last = suspect(guard.last[1] if guard.last[0] == game_id else None)
            tampered = engine_tampered()
            why = (f"hand {game.table.hand_no}: the game broke ({type(err).__name__}: {str(err)[:200]})"
                   + (f" after {tampered}" if tampered else "") + "; the bot asked last was this one")
            if task.strict:
                raise BotFailure(f"entrant {culprit(last)} in game {game_id} (deal {deal}): {why}") from None
            log.warning("game %d voided: entrant %s: %s", game_id, culprit(last), why)
            return void_result(game, last, why)
        # every watched object, once a game (check_hand looks at a slice per hand), if any code here could tamper
        tampered = engine_tampered() if watch else None
        if tampered is not None:
            last_hand = result.hands[-1] if result.hands else None
            seat_ = suspect(last_hand.actions[-1].seat if last_hand is not None and last_hand.actions else None)
            why = f"hand {result.hands_played}: integrity: {tampered}"
            if task.strict:
                raise BotFailure(f"entrant {culprit(seat_)} in game {game_id} (deal {deal}): {why}")
            log.warning("game %d voided: entrant %s: %s", game_id, culprit(seat_), why)
            return void_result(game, seat_, why)
        return result
    finally:
        for bot in bots:
            if isinstance(bot, IsolatedBot):
                bot.close()


def run_task(task: Task) -> TaskResult:
    """Play every game of a task and return its rows (runs in a worker process). A task with an in-process bot
    that is not built in is played in a game process the worker watches (`watchdog`)."""
    if watchdog.needed(task):
        return watchdog.supervise(task, _play_task)
    return _play_task(task)


def _play_task(task: Task, guard: Guard | None = None) -> TaskResult:
    start = time.perf_counter()
    columns = new_columns()
    errors = 0
    histories = []
    for deal in range(task.first_deal, task.end_deal):
        table_id = deal % len(task.tables)
        for game_id, rotation in games_of(task, deal):
            seats = seating(task.tables[table_id], rotation)
            result = play_one(task, game_id, deal, rotation, seats, guard)
            game_rows(columns["games"], task.experiment, game_id, deal, rotation, table_id, seats, task.entrants,
                      result, task.rules)
            hand_rows(columns["hands"], task.experiment, game_id, result.hands)
            seat_rows(columns["seats"], task.experiment, game_id, result.hands)
            mixed_rows(columns["mixed"], task.experiment, game_id, result.hands)
            if game_id < task.histories:
                labels = [task.entrants[e].label for e in seats]
                histories.append((game_id, game_to_phhs(result, labels, event=task.experiment, table=table_id)))
            for seat, messages in enumerate(result.errors):
                if messages:
                    errors += len(messages)
                    _report_bot_errors(task.entrants[seats[seat]].label, game_id, seat, messages)
    seconds = time.perf_counter() - start
    log.info("deals %d-%d: %d games in %.2f s", task.first_deal, task.end_deal - 1, task.games, seconds)
    return TaskResult(task.first_deal, task.end_deal, task.games, to_tables(columns), seconds, errors,
                      tuple(histories))


_warned: set[str] = set()  # per worker process: entrants whose errors were already shown on the console


def _report_bot_errors(label: str, game_id: int, seat: int, messages: tuple[str, ...]) -> None:
    """A bot error is data (the `errors` columns), not a failure: warn once per entrant, log the rest."""
    level = logging.INFO if label in _warned else logging.WARNING
    _warned.add(label)
    log.log(level, "bot %r (game %d, seat %d): %d error(s), first: %s%s", label, game_id, seat, len(messages),
            messages[0], "" if level == logging.INFO else " (further errors only in run.log and `errors`)")
