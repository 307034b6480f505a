"""Attacks on the sandbox of isolated bots (`treasure_sim.bots.sandbox`, `isolated`): each one tried, each one fails.

The sandbox needs Linux, root (CI and these sessions run as root) and util-linux's ``unshare`` and ``setpriv``;
elsewhere the tests that need it are skipped and the ones about the protocol still run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from treasure_sim import Game, RuleSet, load_strategy
from treasure_sim.bots import sandbox
from treasure_sim.bots.isolated import MAX_STDERR, IsolatedBot, python_command, stop_all
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.run.store import read_games

needs_sandbox = pytest.mark.skipif(sandbox.available() is not None, reason=f"no sandbox here: {sandbox.available()}")

BOTS = '''
import glob, json, os, signal, socket, subprocess, sys, time
from treasure_sim import Action, Strategy

def refuse(why):
    """An answer the engine refuses, naming what the bot managed to do: the test reads it from the errors."""
    return Action("BREACH: " + why)

class Escaper(Strategy):
    """Tries to reach the engine, the network and the rest of the machine; calls if everything failed."""
    def act(self, obs):
        for sig_target in (os.getppid(), -1):
            try:
                if sig_target > 0:
                    os.kill(sig_target, signal.SIGKILL)
                    return refuse(f"signalled its parent {sig_target}")
            except OSError:
                pass
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=1).close()
            return refuse("reached the network")
        except OSError:
            pass
        others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
        for pid in others:
            try:
                open(f"/proc/{pid}/environ", "rb").read()
                return refuse(f"read the environment of process {pid}")
            except OSError:
                pass
        for path in ("/root/.bash_history", "/etc/shadow"):
            try:
                open(path, "rb").read(1)
                return refuse(f"read {path}")
            except OSError:
                pass
        for folder in ("/work", "/usr", os.path.dirname(__file__)):
            try:
                with open(os.path.join(folder, "owned.txt"), "w") as out:
                    out.write("x")
                return refuse(f"wrote into {folder}")
            except OSError:
                pass
        if os.getuid() == 0 or os.geteuid() == 0:
            return refuse("runs as root")
        return Action.call()

class KillAll(Strategy):
    """Kills its parent, then every process it may signal (kill(-1)), then its own process group."""
    def act(self, obs):
        for target in (os.getppid(), -1, 0):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError:
                pass
        return Action.call()

class Forker(Strategy):
    """Leaves children behind: a sleep, one in a session of its own, one double-forked (each ``sleep 123N.<tag>``)."""
    def __init__(self, tag="0"):
        self.tag = tag
    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        subprocess.Popen(["sleep", f"1234.{self.tag}"])
        subprocess.Popen(["sleep", f"1235.{self.tag}"], start_new_session=True)
        if os.fork() == 0:
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", f"1236.{self.tag}"])
            os._exit(0)

class FileMemory(Strategy):
    """Remembers the first flop of every game in files (its scratch and its home); says so when a game's first flop
    was seen before (the same deal again)."""
    done = False
    def act(self, obs):
        if obs.hand_no == 1 and obs.round == 1 and not self.done:
            self.done = True
            key = "-".join(map(str, (obs.new_treasure, *obs.shared)))
            folders = ("/tmp", os.path.expanduser("~"), "/var/tmp", "/dev/shm")
            for folder in folders:
                if os.path.exists(os.path.join(folder, "seen-" + key)):
                    return refuse("remembered a deal through " + folder)
            for folder in folders:
                try:
                    open(os.path.join(folder, "seen-" + key), "w").close()
                except OSError:
                    pass
        return Action.call()

class Printer(Strategy):
    """Prints to stdout and stderr at every decision."""
    def act(self, obs):
        print("thinking out loud", obs.hand_no)
        print("a log line", file=sys.stderr)
        return Action.call()

class Shouter(Strategy):
    """Writes 8 MB to stderr at every decision."""
    def act(self, obs):
        sys.stderr.write("x" * (8 << 20))
        sys.stderr.flush()
        return Action.call()

class Deaf(Strategy):
    """Stops reading its input: sleeps through everything after setup."""
    def act(self, obs):
        time.sleep(3600)
'''

ERROR_BOT = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] in ("hello", "setup", "hand_end"):
        print(json.dumps({"id": msg["id"]}), flush=True)
    else:
        print(json.dumps({"id": msg["id"], "error": "I give up"}), flush=True)
'''


@pytest.fixture(scope="module")
def bot_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sandbox_bots") / "sandbox_bots.py"
    path.write_text(BOTS)
    yield path
    stop_all()


def _game(bot, hands: int = 10, timeout: float = 2.0):
    result = Game([bot, load_strategy("calling_station"), load_strategy("calling_station")], RuleSet(max_hands=hands),
                  seed=3, decision_timeout=timeout).play()
    bot.close()
    return result


def _experiment(bot_file, bot: str, *, deals: int = 2, timeout: float = 1.0, hands: int = 10, params: str = "{}"):
    return parse_toml(textwrap.dedent(f"""
        name = "sandbox"
        deals = {deals}
        table_size = 2
        decision_timeout = {timeout}
        [[entrants]]
        strategy = "{bot_file}:{bot}"
        params = {params}
        isolate = true
        label = "attacker"
        [[entrants]]
        strategy = "calling_station"
        [rules]
        max_hands = {hands}
    """))


@needs_sandbox
def test_a_sandboxed_bot_cannot_reach_the_engine_the_network_or_the_machine(bot_file):
    result = _game(IsolatedBot(python_command(f"{bot_file}:Escaper", {})))
    assert result.decisions[0] > 0
    assert not [e for e in result.errors[0] if "BREACH" in e], result.errors[0]
    assert result.errors[0] == ()


@needs_sandbox
def test_a_bot_that_kills_its_parent_or_everything_kills_only_itself(bot_file, tmp_path):
    report = run_experiment(_experiment(bot_file, "KillAll"), tmp_path / "out", workers=1, progress=False)
    assert report.status == "complete"  # this process, the worker and the other bots lived
    games = read_games(tmp_path / "out").to_pandas()
    assert len(games) == 2 * 2 * 2  # (as PID 1 of its namespace, the bot cannot even kill itself with kill(0))


def _sleepers(tag: str) -> list[str]:
    """The command lines of the Forker's sleeps tagged ``tag`` still running anywhere on the machine (the tag: unique
    to the test, so another test's Forker, on another xdist worker at the same time, is not counted)."""
    wanted = [f"123{k}.{tag}".encode() for k in (4, 5, 6)]
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if args[:1] == [b"sleep"] and args[1:2] in ([w] for w in wanted):
            found.append(" ".join(a.decode() for a in args if a))
    return found


@needs_sandbox
def test_every_process_a_bot_starts_dies_with_it(bot_file, tmp_path):
    tag = str(uuid.uuid4().int % 10**9)
    assert not _sleepers(tag)
    run_experiment(_experiment(bot_file, "Forker", deals=3, params=f'{{ tag = "{tag}" }}'), tmp_path / "out",
                   workers=1, progress=False)
    mine = read_games(tmp_path / "out").to_pandas().query("entrant == 'attacker'")
    assert mine.decisions.sum() > 0 and mine.errors.sum() == 0  # the Forker was built, with its tag, and played
    stop_all()
    deadline = time.monotonic() + 5
    while _sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _sleepers(tag)


@needs_sandbox
def test_an_isolated_bot_cannot_remember_deals_through_files(bot_file, tmp_path):
    """Rotations replay a deal's cards: a bot that kept files could recognise them (8 of 8 before the sandbox)."""
    base = _experiment(bot_file, "FileMemory", deals=4, hands=3)
    run_experiment(base, tmp_path / "out", workers=1, progress=False)
    games = read_games(tmp_path / "out").to_pandas()
    mine = games[games.entrant == "attacker"]
    assert mine.decisions.sum() > 0 and mine.errors.sum() == 0, mine.first_error.dropna().tolist()


def test_a_python_bot_may_print(bot_file):
    result = _game(IsolatedBot(python_command(f"{bot_file}:Printer", {})))
    assert result.decisions[0] > 0 and result.errors[0] == ()


def test_stderr_is_read_as_it_comes_and_only_its_tail_kept(bot_file):
    bot = IsolatedBot(python_command(f"{bot_file}:Shouter", {}))
    bot.setup(0, 2, RuleSet(), __import__("numpy").random.default_rng(0))
    process = bot._process
    result = Game([bot, load_strategy("calling_station")], RuleSet(max_hands=5), seed=3, decision_timeout=5.0).play()
    assert result.errors[0] == ()
    assert process is not None and process.stderr_bytes >= 8 << 20 and len(process._stderr) <= MAX_STDERR
    bot.close()


def test_an_error_answer_is_recorded_and_the_default_played_without_a_restart(tmp_path):
    script = tmp_path / "error_bot.py"
    script.write_text(ERROR_BOT)
    bot = IsolatedBot([sys.executable, str(script)])
    result = Game([bot, load_strategy("calling_station")], RuleSet(max_hands=10), seed=3,
                  decision_timeout=5.0).play()
    pid = bot._process.proc.pid if bot._process else None
    bot.close()
    errors = result.errors[0]
    assert len(errors) == result.decisions[0] > 0  # one error per decision, as in-process: not killed, not retired
    assert all("I give up" in e for e in errors) and not any("retired" in e or "restart" in e for e in errors)
    assert pid is not None


@pytest.mark.parametrize("executor", ["process", "dask"])
def test_a_bot_that_stops_reading_its_input_cannot_block_the_engine(bot_file, tmp_path, executor):
    if executor == "dask":
        pytest.importorskip("distributed")
    start = time.perf_counter()
    report = run_experiment(_experiment(bot_file, "Deaf", deals=2, timeout=0.3, hands=40), tmp_path / "out",
                            workers=1, executor=executor, progress=False)
    assert report.status == "complete" and time.perf_counter() - start < 90
    games = read_games(tmp_path / "out").to_pandas()
    assert games[games.entrant == "attacker"].first_error.str.contains("timed out").all()


@needs_sandbox
def test_the_sandbox_is_what_the_docs_say(bot_file):
    """Its own user, its own PID namespace, no network, private scratch (the probe behind docs/protocol.md)."""
    argv, preexec, env, _ = sandbox.wrap([sys.executable, "-c", textwrap.dedent("""
        import os, socket
        print(os.getuid() >= 100000, os.getpid() == 1, sorted(os.listdir('/proc')).count('1'))
        try:
            socket.create_connection(('1.1.1.1', 53), timeout=1)
            print('network')
        except OSError:
            print('no network')
        open('/tmp/scratch', 'w').write('x')
        print(os.path.exists('/tmp/scratch'))
    """)], None, os.getpid())
    done = subprocess.run(argv, preexec_fn=preexec, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.split() == ["True", "True", "1", "no", "network", "True"], done.stderr
    assert not os.path.exists("/tmp/scratch")


def test_isolated_bots_outside_a_sandbox_still_play(bot_file, monkeypatch):
    monkeypatch.setattr(sandbox, "_AVAILABLE", ["switched off for this test"])
    bot = IsolatedBot(python_command("calling_station", {}))
    result = _game(bot)
    assert result.errors[0] == () and result.decisions[0] > 0
    stop_all()


@needs_sandbox
def test_an_isolated_bot_is_killed_with_its_worker(bot_file):
    """The sandbox's outer process dies with its parent, and the bot with it (a killed worker leaves no bot)."""
    tag = str(uuid.uuid4().int % 10**9)
    code = textwrap.dedent(f"""
        import time
        from treasure_sim.bots.isolated import IsolatedBot, python_command
        from treasure_sim import RuleSet
        import numpy as np
        bot = IsolatedBot(python_command("{bot_file}:Forker", {{"tag": "{tag}"}}))
        bot.setup(0, 2, RuleSet(), np.random.default_rng(0))
        print("ready", flush=True)
        time.sleep(3600)
    """)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    assert _sleepers(tag)
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 5
    while _sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _sleepers(tag)
