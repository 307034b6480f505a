"""Bots in their own processes: untrusted code that cannot reach the engine, hang it or eat its memory.

An `IsolatedBot` is a `Strategy` whose every decision is a JSON line to a child process and one JSON
line back (`protocol`, ``docs/protocol.md``). The child may be any program (``command``), or a Python
`Strategy` run by ``python -m treasure_sim.bots.bot_host SPEC``. Limits, per child:

- the sandbox (`sandbox`, where the platform allows it: Linux, the engine as root): a user of its own, its own
  session and PID, mount, network and IPC namespaces, rlimits, a private scratch tmpfs wiped before each game,
  no network, and every process it starts killed with it; elsewhere, its own session and the limits below;
- time: each answer must come within the decision limit the engine gives (``decision_timeout``), and writing the
  question to the child has the same deadline (a child that stops reading its input cannot block the engine);
  past it the child is killed and `DecisionTimeout` raised, so the engine plays the default answer
  and records the error. The next decision starts a fresh child (set up again for this game); after
  ``max_restarts`` kills in one game the bot is retired for the rest of it (each decision an error);
- memory: ``RLIMIT_AS`` of ``memory_mb`` megabytes (the child fails to allocate, and dies);
- output: what it writes to stderr is read as it comes and only the last ``MAX_STDERR`` bytes are kept;
- life: the child gets SIGKILL when its parent dies (`processes.exit_with_parent`).

An answer ``{"id": N, "error": ...}`` is the bot's own error: recorded, the default answer played, the child kept.
Children are kept between games of one worker (a pool per command), so a tournament pays for starting
a bot once per worker, not once per game: each game begins with a ``setup`` message that resets it.
A bot may still remember, and duplicate deals replay the same cards (every rotation of a deal, every variant
of a sweep): so a game that names its card stream (``deal_key``) gets a child that has never played it, and a
bot never meets the same cards twice (docs/protocol.md).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..game.cards import format_card
from ..game.history import HandRecord
from ..game.questions import BY_METHOD
from ..game.rules import RuleSet
from ..game.strategy import Action, Observation, Steal, Strategy
from . import protocol, sandbox
from .processes import exit_with_parent
from .timeouts import DecisionTimeout

STARTUP_TIMEOUT = 30.0  # seconds for a child to start and answer its first message
MAX_LINE = 1 << 20  # a reply longer than this is an error (a bot must not flood the engine's memory)
MAX_STDERR = 1 << 16  # bytes of a child's stderr kept (the last ones): the rest is read and dropped
STDERR_CAP = 1 << 20  # bytes of a bot's stderr appended to its log in the results folder (the first ones)


class BotProcessError(RuntimeError):
    """The child crashed, closed its output, or broke the protocol; the text says which, with its stderr."""


class BotReportedError(RuntimeError):
    """The child answered ``{"error": ...}``: its own error, recorded like an exception of an in-process bot (the
    default answer is played and the child kept)."""


def python_command(spec: str, params: dict[str, Any]) -> tuple[str, ...]:
    """The command that runs the Python strategy ``spec`` (with ``params``) in its own process."""
    return (sys.executable, "-m", "treasure_sim.bots.bot_host", spec, json.dumps(params, sort_keys=True))


def split_command(command: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(shlex.split(command) if isinstance(command, str) else command)


def _limits(memory_mb: int | None, parent: int) -> None:
    """In the child, outside a sandbox, before it runs the bot: its memory cap, a new session, death with the
    parent."""
    os.setsid()  # Ctrl-C at the terminal is the engine's to handle
    if memory_mb is not None:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    exit_with_parent(parent)


class BotProcess:
    """One child process speaking the protocol; ``ask`` sends a message and waits for its answer."""

    def __init__(self, command: tuple[str, ...], memory_mb: int | None = None, trusted: bool = False) -> None:
        self.command = command
        self.memory_mb = memory_mb
        self.trusted = trusted  # the person at the table's own program: no sandbox (it talks on their terminal)
        if not command or (shutil.which(command[0]) is None and not os.path.exists(command[0])):
            raise BotProcessError(f"cannot start {shlex.join(command)}: no such program")
        parent = os.getpid()
        self.sandboxed = not trusted and sandbox.available() is None
        self._bound: list[str] = []  # what the sandbox bound into the scratch space: kept when it is wiped
        if self.sandboxed:
            argv, preexec, env, self._bound = sandbox.wrap(command, memory_mb, parent)
        else:
            argv, env = list(command), None

            def preexec() -> None:
                _limits(memory_mb, parent)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         preexec_fn=preexec, env=env, close_fds=True)
        except OSError as err:
            raise BotProcessError(f"cannot start {shlex.join(command)}: {err.strerror or err}") from None
        except subprocess.SubprocessError as err:
            raise BotProcessError(f"cannot start {shlex.join(command)} in its sandbox: {err}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self._in, self._out, self._err = self.proc.stdin.fileno(), self.proc.stdout.fileno(), self.proc.stderr.fileno()
        os.set_blocking(self._in, False)  # writes have a deadline too
        os.set_blocking(self._err, False)
        self._buffer = b""
        self._stderr = bytearray()  # the last MAX_STDERR bytes the child wrote to stderr
        self.stderr_bytes = 0  # how many it wrote in all
        self._err_open = True
        self._next_id = 0
        self.deals: set[int] = set()  # the card streams (deal_key) this child has played
        self.stderr_log: str | None = None  # a file its stderr is appended to as it is read (`_log_stderr`)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def ask(self, method: str, timeout: float | None, **fields: Any) -> dict[str, Any]:
        """Send one message and return the bot's answer; `DecisionTimeout` past ``timeout`` seconds (writing the
        message and reading the answer; without a limit, writing still must end within ``STARTUP_TIMEOUT``)."""
        ident = self._next_id
        self._next_id += 1
        line = json.dumps(protocol.message(method, ident, **fields), separators=(",", ":")) + "\n"
        now = time.monotonic()
        deadline = None if timeout is None else now + timeout
        self._write(line.encode(), now + STARTUP_TIMEOUT if deadline is None else deadline)
        reply = self._read_line(deadline)
        try:
            data = json.loads(reply)
        except (ValueError, RecursionError):  # RecursionError: nested too deep to read (e.g. 200,000 brackets)
            raise BotProcessError(f"answered {reply[:200]!r}, not a JSON object") from None
        if not isinstance(data, dict) or data.get("id") != ident:
            raise BotProcessError(f"answered {reply[:200]!r}: not an object with \"id\": {ident}")
        if "error" in data:
            raise BotReportedError(f"answered with an error: {str(data['error'])[:300]}")
        return data

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._in, view):]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                raise BotProcessError(self._died("stopped reading its input")) from None
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise DecisionTimeout  # it stopped reading its input: the engine does not wait for it
            ready, _, _ = select.select([self._err] if self._err_open else [], [self._in], [], wait)
            if ready:
                self._drain_stderr()

    def _drain_stderr(self) -> None:
        """Read what the child wrote to stderr; keep only the last MAX_STDERR bytes."""
        while True:
            try:
                chunk = os.read(self._err, 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                self._err_open = False  # closed: select must not wake for it again
                return
            self.stderr_bytes += len(chunk)
            self._log_stderr(chunk)
            self._stderr += chunk
            if len(self._stderr) > MAX_STDERR:
                del self._stderr[:len(self._stderr) - MAX_STDERR]

    def _log_stderr(self, chunk: bytes) -> None:
        """Append ``chunk`` to ``stderr_log``, which never grows past `STDERR_CAP` bytes (a line says where it was
        cut); a failing disk never stops the game."""
        if self.stderr_log is None:
            return
        try:
            have = os.path.getsize(self.stderr_log) if os.path.exists(self.stderr_log) else 0
            if have >= STDERR_CAP:
                return
            os.makedirs(os.path.dirname(self.stderr_log) or ".", exist_ok=True)
            room = STDERR_CAP - have
            cut = b"" if len(chunk) <= room else \
                f"\n[stderr cut here: this file keeps the first {STDERR_CAP} bytes]\n".encode()
            with open(self.stderr_log, "ab") as log:
                log.write(chunk[:room] + cut)
        except OSError:
            pass

    def _read_line(self, deadline: float | None) -> str:
        fd = self._out
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                raise BotProcessError(f"sent a line longer than {MAX_LINE} bytes")
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd, self._err] if self._err_open else [fd], [], [], wait)
            if not ready:
                raise DecisionTimeout
            if self._err in ready:
                self._drain_stderr()
                if fd not in ready:
                    continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise BotProcessError(self._died("closed its output"))
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace")

    def _died(self, what: str) -> str:
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._drain_stderr()
        how = "" if code is None else f" (exit code {code})" if code >= 0 else f" (killed by signal {-code})"
        return f"{what}{how}{self.stderr_tail()}"

    def stderr_tail(self) -> str:
        """The end of what the child wrote to stderr, for error messages."""
        tail = bytes(self._stderr[-400:]).decode(errors="replace").strip()
        return f"; its stderr ends: {tail[-300:]!r}" if tail else ""

    def wipe(self) -> None:
        """Before a new game: empty the child's scratch space (in its sandbox)."""
        if self.sandboxed and self.alive:
            sandbox.wipe(self.proc.pid, self._bound)

    def kill(self) -> None:
        """Kill the child and every process it started: in a sandbox its PID namespace dies with it; else its
        process group (children that started a session of their own escape that)."""
        if self.alive:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGKILL)
        if not self.sandboxed:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # it leads a session (and group) of its own
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


_IDLE: dict[tuple[tuple[str, ...], int | None, bool], list[BotProcess]] = {}  # children between games


def _take(command: tuple[str, ...], memory_mb: int | None, deal_key: int | None = None,
          trusted: bool = False) -> BotProcess:
    """An idle child of ``command`` that has never played ``deal_key``'s cards, else a new one."""
    idle = _IDLE.get((command, memory_mb, trusted), [])
    for process in [p for p in idle if not p.alive]:
        idle.remove(process)
        process.kill()
    fresh = [i for i, p in enumerate(idle) if deal_key not in p.deals]
    if fresh:
        process = idle.pop(fresh[-1])
        process.wipe()  # nothing it wrote in its last game is there in this one
    else:
        process = BotProcess(command, memory_mb, trusted)
    if deal_key is not None:
        process.deals.add(deal_key)
    return process


def _give_back(process: BotProcess) -> None:
    if process.alive:
        _IDLE.setdefault((process.command, process.memory_mb, process.trusted), []).append(process)
    else:
        process.kill()


@atexit.register
def stop_all() -> None:
    """Kill every idle child (the worker or program is ending)."""
    for processes in _IDLE.values():
        for process in processes:
            process.kill()
    _IDLE.clear()


class IsolatedBot(Strategy):
    """A bot in another process (see the module docstring); errors reach the engine as exceptions it records."""

    enforces_own_timeout: ClassVar[bool] = True  # the engine's in-process alarm is not used for this bot

    def __init__(self, command: str | Sequence[str], *, label: str | None = None, memory_mb: int | None = None,
                 max_restarts: int = 2, deal_key: int | None = None, trusted: bool = False,
                 stderr_log: str | None = None) -> None:
        self.command = split_command(command)
        self.trusted = trusted  # a program of the person at the table (play): run without the sandbox
        self.stderr_log = stderr_log  # the file its children's stderr is appended to (`BotProcess._log_stderr`)
        if not self.command:
            raise ValueError("an isolated bot needs a command to run")
        self.label = label or os.path.basename(self.command[0])
        self.memory_mb = memory_mb
        self.max_restarts = max_restarts
        self.deal_key = deal_key  # this game's card stream: played only by children that have never seen it
        self.decision_timeout: float | None = None  # set by the engine before each question
        self._process: BotProcess | None = None
        self._setup_fields: dict[str, Any] = {}
        self._restarts = 0
        self._retired: str | None = None

    def __repr__(self) -> str:
        return self.label

    # --- the child ---
    def _ask(self, method: str, startup: bool = False, **fields: Any) -> dict[str, Any]:
        if self._retired:
            raise BotProcessError(f"retired for the rest of this game ({self._retired})")
        if self._process is None or not self._process.alive:
            self._start()
        assert self._process is not None
        try:
            return self._process.ask(method, STARTUP_TIMEOUT if startup else self.decision_timeout, **fields)
        except (DecisionTimeout, BotProcessError) as err:
            self._lose(str(err) or "timed out")
            raise
        # BotReportedError: the bot's own error, like an exception in-process; its child goes on

    def _start(self) -> None:
        self._process = _take(self.command, self.memory_mb, self.deal_key, self.trusted)
        self._process._drain_stderr()  # what a pooled child wrote for another entrant goes to that one's log
        self._process.stderr_log = self.stderr_log
        if self._setup_fields:  # a fresh child in the middle of a game: set it up for this game first
            try:
                self._process.ask("setup", STARTUP_TIMEOUT, **self._setup_fields)
            except (DecisionTimeout, BotProcessError, BotReportedError) as err:
                self._lose(f"could not be set up again: {err or 'timed out'}")
                raise BotProcessError(f"could not be restarted: {err or 'timed out'}") from None

    def _lose(self, why: str) -> None:
        """Kill the child after a timeout or crash; retire the bot after too many in one game."""
        if self._process is not None:
            self._process._drain_stderr()
            self._process.kill()
            self._process = None
        self._restarts += 1
        if self._restarts > self.max_restarts:
            self._retired = f"{self._restarts} timeouts or crashes, the last: {why}"[:300]

    def close(self) -> None:
        """The game is over: keep a healthy child for the next game of this process."""
        if self._process is not None:
            self._process._drain_stderr()
            _give_back(self._process)
            self._process = None

    # --- the Strategy API ---
    def setup(self, seat: int, n_players: int, rules: RuleSet, rng: np.random.Generator) -> None:
        super().setup(seat, n_players, rules, rng)
        self._restarts, self._retired = 0, None
        self._setup_fields = {"seat": seat, "n_players": n_players, "rules": rules.to_dict(),
                              "seed": int(rng.integers(0, 2**63)), "protocol": protocol.PROTOCOL_VERSION}
        self._ask("setup", startup=True, **self._setup_fields)

    def _decide(self, method: str, obs: Observation, options: tuple = (), **extra: Any) -> Any:
        fields: dict[str, Any] = {"obs": protocol.observation_to_json(obs), **extra}
        if BY_METHOD[method].asked_with == "options":
            fields["options"] = protocol.options_to_json(method, options)
        return protocol.answer_from_json(method, self._ask(method, **fields), options)

    def act(self, obs: Observation) -> Action:
        return self._decide("act", obs)

    def move_spades(self, obs: Observation) -> list[int]:
        return self._decide("move_spades", obs)

    def draw_heart(self, obs: Observation) -> bool:
        return self._decide("draw_heart", obs)

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        return self._decide("choose_joker_treasure", obs, options)

    def make_room(self, obs: Observation, treasure: int) -> int | None:
        return self._decide("make_room", obs, treasure=format_card(treasure))

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        return self._decide("steal", obs, options)

    def keep_playing(self, obs: Observation) -> bool:
        return self._decide("keep_playing", obs)

    def on_hand_end(self, record: HandRecord) -> None:
        self._ask("hand_end", record=protocol.record_to_json(record))


def handshake(command: tuple[str, ...], memory_mb: int | None = None, timeout: float = STARTUP_TIMEOUT) -> str:
    """Start the bot once and check it answers (a config check); returns the name it gives, if any."""
    process = BotProcess(command, memory_mb)
    try:
        reply = process.ask("hello", timeout, protocol=protocol.PROTOCOL_VERSION)
        name = reply.get("name")
        return name if isinstance(name, str) else ""
    except DecisionTimeout:
        raise BotProcessError(f"did not answer within {timeout:g} s{process.stderr_tail()}") from None
    except BotReportedError as err:
        raise BotProcessError(str(err)) from None
    finally:
        process.kill()
