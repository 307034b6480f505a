"""The decision time limit costs no system call per decision (a watchdog thread, timeouts.py), and still
interrupts on time: after a long call, in a forked worker, and with setup's own longer limit."""

from __future__ import annotations

import multiprocessing
import signal
import time

import pytest
from conftest import ScriptedBot

from strategies.random_bot import RandomBot
from treasure_sim import RuleSet, play_game
from treasure_sim.bots import timeouts
from treasure_sim.bots.timeouts import Alarm, AlarmScope, DecisionTimeout, alarm_usable

needs_alarm = pytest.mark.skipif(not alarm_usable(), reason="SIGALRM on the main thread only")


class Sleeper(ScriptedBot):
    def act(self, obs):
        time.sleep(3600)


@needs_alarm
def test_no_timer_is_set_per_decision(monkeypatch):
    calls = []
    for name in ("setitimer", "alarm"):
        real = getattr(signal, name)
        monkeypatch.setattr(signal, name, lambda *a, _real=real, _name=name: (calls.append(_name), _real(*a))[1])
    result = play_game([RandomBot() for _ in range(4)], RuleSet(max_hands=30), seed=3, decision_timeout=5.0)
    assert sum(result.decisions) > 100 and result.errors == ((),) * 4
    assert calls == []


@needs_alarm
def test_a_call_after_a_long_one_is_interrupted_at_its_own_deadline():
    slow = Alarm(30.0)  # the watchdog may be sleeping for this call's deadline ...
    assert slow.call(lambda: time.sleep(0.05) or 1) == 1
    short = Alarm(0.1)
    start = time.monotonic()
    with AlarmScope(), pytest.raises(DecisionTimeout):
        slow.call(short.call, time.sleep, 3600)  # ... when a shorter one starts inside it
    assert time.monotonic() - start < 2


def _someone_elses_signal_during_a_call() -> tuple[bool, list[int], list[int]]:
    """Someone else's SIGALRM raised inside a bot's call: (what the call saw, what rang during it, after it)."""
    rang: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: rang.append(1))
    try:
        with AlarmScope():
            alarm = Alarm(5.0)
            saw = alarm.call(lambda: (signal.raise_signal(signal.SIGALRM), rang == [])[1])
            during = list(rang)
            timeouts.ring_overdue()
            return saw and alarm.fired == 0, during, rang
    finally:
        signal.signal(signal.SIGALRM, previous)


@needs_alarm
def test_someone_elses_signal_during_a_call_is_theirs_and_rings_after_it():
    assert _someone_elses_signal_during_a_call() == (True, [], [1])


@needs_alarm
def test_someone_elses_signal_still_rings_after_a_bot_switched_the_alarm_off():
    # the watchdog's signals for that call went to the bot's SIG_IGN: none may be taken for ours later
    with AlarmScope():
        Alarm(0.05).call(lambda: (signal.signal(signal.SIGALRM, signal.SIG_IGN), time.sleep(0.3)))
        assert timeouts._SENT[0] is not None  # the watchdog did send for that call, and it never reached us
    assert _someone_elses_signal_during_a_call() == (True, [], [1])


class SlowSetup(ScriptedBot):
    def setup(self, seat, n_players, rules, rng):
        time.sleep(0.3)  # over the decision limit, within setup's (SETUP_TIME_FACTOR times longer)
        super().setup(seat, n_players, rules, rng)


@needs_alarm
def test_setup_has_its_longer_limit_and_the_seat_is_alarmed_after_it():
    result = play_game([SlowSetup(), Sleeper(), ScriptedBot()], RuleSet(max_hands=2), decision_timeout=0.1)
    assert result.errors[0] == () and result.timeouts == (0, 3, 0)


def _child(queue):
    result = play_game([Sleeper(), ScriptedBot()], RuleSet(max_hands=2), decision_timeout=0.1)
    queue.put(result.timeouts)


@needs_alarm
@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="fork only")
def test_a_forked_process_starts_its_own_watchdog():
    play_game([Sleeper(), ScriptedBot()], RuleSet(max_hands=1), decision_timeout=0.1)  # the parent's is running
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=30) == (3, 0)
    finally:
        child.join(30)
        if child.is_alive():
            child.kill()


@needs_alarm
@pytest.mark.parametrize("scoped", [False, True])
def test_someone_elses_handler_raising_as_an_alarm_starts_leaves_no_handler_of_ours_behind(monkeypatch, scoped):
    """Another SIGALRM handler that raises while a call or a scope is being set up (here: while the watchdog is
    woken) leaves the previous handler in place and no scope open: later signals are still the user's."""
    class Raised(Exception):
        pass

    def raising() -> None:
        raise Raised

    def mine(signum, frame):
        pass

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        monkeypatch.setattr(timeouts._WATCHDOG, "ensure", raising)
        with pytest.raises(Raised):
            if scoped:
                with AlarmScope():
                    pass
            else:
                Alarm(5.0).call(lambda: None)
        assert signal.getsignal(signal.SIGALRM) is mine and timeouts._OUTER == []
    finally:
        signal.signal(signal.SIGALRM, previous)
