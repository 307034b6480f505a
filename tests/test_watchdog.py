"""In-process bots that tamper with the engine, hang or kill their process: caught, named, and the run goes on.

Integrity (`treasure_sim.bots.integrity`): chips and cards conserved and the engine's code unchanged after every
hand, else the game is voided naming the entrant (a strict run stops). The watchdog (`treasure_sim.run.watchdog`):
a task with an in-process bot that is not built in runs in a game process the worker watches; a bot stuck past the
limit (its alarm switched off, a C call that never returns) or whose process died (``os._exit``, a segfault, its
parent killed) is named, and the task is played again with that bot benched from the call that never finished.
"""

from __future__ import annotations

import textwrap
import time

import pytest

from treasure_sim import Game, RuleSet, load_strategy
from treasure_sim.bots.integrity import Tampering, engine_tampered
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.run.store import read_games
from treasure_sim.run.tournament import BotFailure

BOTS = '''
import ctypes, gc, itertools, os, signal, sys, time
from treasure_sim import Action, Strategy

def _table(obs):
    """The live game's table (a finished game's may still wait for the garbage collector)."""
    from treasure_sim.game.state import Table
    return next(o for o in gc.get_objects() if type(o) is Table and o.hand_no == obs.hand_no
                and tuple(o.money) == obs.money and o.zone_tuples == obs.treasures)

class LateTamperer(Strategy):
    """Plays honestly; once its game is over (dropped: ``__del__``) it makes the worst hand win every pot."""
    def act(self, obs):
        return Action.call()

    def __del__(self):
        import treasure_sim.game.gamestate as gs
        if getattr(gs.split_pots, "_evil", False):
            return
        real = gs.split_pots
        def evil(committed, contenders, scores, order):
            return real(committed, contenders, {s: -v for s, v in scores.items()}, order)
        evil._evil = True
        gs.split_pots = evil

class Honest(Strategy):
    """Calls: an outside in-process bot that tampers with nothing."""
    def act(self, obs):
        return Action.call()

class ChipThief(Strategy):
    """Adds 1,000 chips to its own stack before each decision."""
    def act(self, obs):
        _table(obs).money[obs.seat] += 1000
        return Action.call()

class ThiefFromHand5(Strategy):
    """Adds 1,000 chips to its own stack once, in hand 5."""
    def act(self, obs):
        if obs.hand_no == 5 and not getattr(self, "done", False):
            self.done = True
            _table(obs).money[obs.seat] += 1000
        return Action.call()

class HugeStack(Strategy):
    """Leaves its stack at 2**40."""
    def act(self, obs):
        _table(obs).money[obs.seat] = 2 ** 40
        return Action.call()

class CardForger(Strategy):
    """Turns a card of the deck into a copy of an Ace."""
    def act(self, obs):
        t = _table(obs)
        if t._deck:
            t._deck[0] = t._deck[-1]
        return Action.call()

def _win(rows, wild_ranks):
    return [1 << 23] * len(rows)

class EvaluatorPatcher(Strategy):
    """Monkeypatches the evaluator so that every hand ties at the best score."""
    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        import treasure_sim.game.evaluator as ev
        ev.score_rows = _win

class BadScore(Strategy):
    """Makes the showdown scores garbage."""
    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        import treasure_sim.game.evaluator as ev
        ev.score_rows = lambda rows, wild: ["x"] * len(rows)

class PotPatcher(Strategy):
    """Replaces the engine's pot splitter (a slice of the watched code, found by the game's end at the latest)."""
    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        import treasure_sim.game.gamestate as gamestate
        original = gamestate.split_pots
        gamestate.split_pots = lambda *args: original(*args)

class SilentSleeper(Strategy):
    """Switches the alarm off, then sleeps at its 5th decision."""
    n = 0
    def act(self, obs):
        self.n += 1
        if self.n == 5:
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            signal.setitimer(signal.ITIMER_REAL, 0)
            time.sleep(3600)
        return Action.call()

class CLoop(Strategy):
    """A C call that never returns to the interpreter, at its 3rd decision."""
    n = 0
    def act(self, obs):
        self.n += 1
        if self.n == 3:
            sum(itertools.count())
        return Action.call()

class Exiter(Strategy):
    def act(self, obs):
        os._exit(3)

class Segfault(Strategy):
    def act(self, obs):
        ctypes.string_at(0)

class ParentKiller(Strategy):
    def act(self, obs):
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(5)

BUILT = [0]

class LateConstructorFailure(Strategy):
    """Builds for the first two games of each process, then fails."""
    def __init__(self):
        BUILT[0] += 1
        if BUILT[0] > 2:
            raise RuntimeError("out of licences")
'''


@pytest.fixture(scope="module")
def bot_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("attack_bots") / "attack_bots.py"
    path.write_text(BOTS)
    return path


def _experiment(bot_file, bot: str, *, deals: int = 2, timeout: float = 0.3, hands: int = 30, extra: str = ""):
    return parse_toml(textwrap.dedent(f"""
        name = "attack"
        deals = {deals}
        table_size = 2
        decision_timeout = {timeout}
        [[entrants]]
        strategy = "{bot_file}:{bot}"
        label = "attacker"
        [[entrants]]
        strategy = "calling_station"
        [rules]
        max_hands = {hands}
        {extra}
    """))


def _games(path):
    games = read_games(path).to_pandas()
    return games, games[games.entrant == "attacker"]


@pytest.mark.parametrize(("bot", "message"), [
    ("ChipThief", r"its stack is .* chips where the hand left it"),
    ("HugeStack", r"its stack is 1,099,511,627,7\d\d chips"),
    ("CardForger", r"not distinct cards|not the deck"),
    ("EvaluatorPatcher", r"evaluator.score_rows was replaced"),
])
def test_tampering_voids_the_game_and_names_the_entrant(bot_file, tmp_path, bot, message):
    # a generous limit: walking gc.get_objects() takes a while on a busy machine
    run_experiment(_experiment(bot_file, bot, timeout=10.0), tmp_path / "out", workers=1, progress=False)
    games, attacker = _games(tmp_path / "out")
    assert (games.end_reason == "void").all() and (games.net == 0).all() and (games.win_share == 0.5).all()
    assert attacker.first_error.str.contains(message).all(), attacker.first_error.tolist()


def test_a_strict_run_stops_at_tampering_in_one_line(bot_file, tmp_path):
    with pytest.raises(BotFailure, match=r"^entrant 'attacker' in game 0 \(deal 0\): seat \d \(ChipThief\): hand 1: "
                                         r"integrity: its stack is"):
        run_experiment(_experiment(bot_file, "ChipThief", timeout=10.0), tmp_path / "out", workers=1, progress=False,
                       strict=True)


def test_tampering_is_caught_in_a_bare_game_too(bot_file):
    from treasure_sim.bots.loader import load_strategy as load

    with pytest.raises(Tampering, match=r"seat 0 \(ChipThief\): hand 1: integrity: its stack is [\d,]+ chips where the "
                                        r"hand left it"):
        Game([load(f"{bot_file}:ChipThief"), load_strategy("calling_station")], seed=1).play()


def test_replaced_engine_code_is_found_and_the_game_voided(bot_file, tmp_path):
    import treasure_sim.game.evaluator as evaluator
    import treasure_sim.game.gamestate as gamestate

    original_split, original_score = gamestate.split_pots, evaluator.score_rows
    try:
        for bot, message in (("PotPatcher", "gamestate.split_pots was replaced"), ("BadScore", "score_rows")):
            run_experiment(_experiment(bot_file, bot, deals=1, timeout=10.0), tmp_path / bot, workers=1,
                           progress=False)
            games, attacker = _games(tmp_path / bot)
            assert (games.end_reason == "void").all(), games.end_reason.tolist()
            assert attacker.first_error.str.contains(message).all(), attacker.first_error.tolist()
    finally:  # the game process played them: this process is untouched
        assert gamestate.split_pots is original_split and evaluator.score_rows is original_score
    assert engine_tampered() is None


def test_an_honest_game_passes_every_check():
    bots = [load_strategy(s) for s in ("equity", "treasure_hunter", "random", "rock")]
    for rules in (RuleSet(), RuleSet(spent_diamonds="removed", zone_limit=2, at_limit="choose")):
        Game(bots, rules, seed=3).play()
    assert engine_tampered() is None


def test_a_table_of_trusted_bots_skips_the_code_watch_and_checks_chips_at_every_16th_hand(bot_file, monkeypatch):
    """``watch_code=False`` (every bot ours or isolated: nothing can tamper) checks chips and cards at hands 1, 17,
    33, ... and at the game's end only, and no longer looks for replaced engine code; with it on, chips are checked
    after every hand and a replaced engine function voids the game."""
    import functools

    import treasure_sim.game.gamestate as gamestate
    from treasure_sim.bots.integrity import TRUSTED_EVERY
    from treasure_sim.bots.loader import load_strategy as load

    with pytest.raises(Tampering, match="hand 1: integrity: its stack is"):
        Game([load(f"{bot_file}:ChipThief"), load_strategy("calling_station")], seed=1, watch_code=False).play()
    for watched, caught_at in ((True, 5), (False, TRUSTED_EVERY + 1)):  # a chip lost or made stays so: found later
        with pytest.raises(Tampering, match=f"hand {caught_at}: integrity: (its stack|the table holds)"):
            Game([load(f"{bot_file}:ThiefFromHand5"), load_strategy("calling_station")], RuleSet(max_hands=40),
                 seed=1, watch_code=watched).play()
    with pytest.raises(Tampering, match="after hand 10: integrity: at the end of the game the table holds"):
        Game([load(f"{bot_file}:ThiefFromHand5"), load_strategy("calling_station")], RuleSet(max_hands=10),
             seed=1, watch_code=False).play()  # no 16th hand after the theft: found when the game is over
    original = gamestate.split_pots
    monkeypatch.setattr(gamestate, "split_pots", functools.wraps(original)(lambda *a, **k: original(*a, **k)))
    rules = RuleSet(max_hands=70)  # past 64 hands: every slice of the watched code is looked at
    bots = [load_strategy("calling_station"), load_strategy("calling_station")]
    assert Game(bots, rules, seed=2, watch_code=False).play().hands_played == 70
    with pytest.raises(Tampering, match=r"gamestate\.split_pots was replaced"):
        Game(bots, rules, seed=2).play()


def test_a_tournament_watches_the_code_only_at_tables_with_outside_in_process_bots(bot_file, monkeypatch):
    import treasure_sim.run.tournament as tournament
    from treasure_sim.run.tournament import plan_tasks

    seen: list[bool] = []

    class Spy(Game):
        def __init__(self, *args, **kwargs):
            seen.append(kwargs["watch_code"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(tournament, "Game", Spy)
    import treasure_sim.bots.loader as loader

    monkeypatch.setattr(loader, "_OUTSIDE", [False])  # as in a process that never loaded a bot from outside
    builtin = parse_toml('name = "b"\ndeals = 1\ntable_size = 2\n[[entrants]]\nstrategy = "random"\n'
                         '[[entrants]]\nstrategy = "calling_station"\n[rules]\nmax_hands = 5\n')
    for make, expected in ((lambda: builtin, False), (lambda: _experiment(bot_file, "Honest", deals=1, hands=5), True)):
        exp = make()  # the outside bot's file is loaded (checked) only now
        seen.clear()
        for task in plan_tasks(exp, [(0, exp.deals)], exp.deals, stderr_dir=None):
            tournament._play_task(task)
        assert seen and all(w is expected for w in seen), (exp.name, seen)
    assert loader.outside_code_loaded()  # and from now on this process watches every table


def test_code_replaced_after_an_outside_bots_game_voids_the_later_games_of_built_in_bots(bot_file, monkeypatch):
    """An outside bot that replaces engine code once its own game is over (``__del__``) cannot change the games of
    later tables in the same process, built-in bots only: they are watched too, voided, and nobody of theirs blamed."""
    import treasure_sim.game.gamestate as gamestate
    from treasure_sim.run.tournament import _play_task, plan_tasks

    monkeypatch.setattr(gamestate, "split_pots", gamestate.split_pots)  # whatever the attack does is undone after
    exp = parse_toml(textwrap.dedent(f"""
        name = "late"
        deals = 6
        table_size = 2
        [[entrants]]
        strategy = "{bot_file}:LateTamperer"
        label = "late"
        [[entrants]]
        strategy = "random"
        [[entrants]]
        strategy = "calling_station"
        [rules]
        max_hands = 20
        """))
    rows = [row for task in plan_tasks(exp, [(0, exp.deals)], exp.deals, stderr_dir=None)
            for row in _play_task(task).tables["games"].to_pylist()]
    late = {r["game_id"] for r in rows if r["entrant"] == "late"}
    after = [r for r in rows if r["game_id"] not in late and r["game_id"] > min(late)]
    assert after and all(r["end_reason"] == "void" for r in after), [(r["game_id"], r["end_reason"]) for r in after]
    assert not any(r["errors"] for r in after)  # no built-in bot is named for it


@pytest.mark.parametrize(("bot", "message"), [
    ("SilentSleeper", r"ran past .* s \(the watchdog killed it\)"),
    ("CLoop", r"ran past .* s \(the watchdog killed it\)"),
    ("Exiter", r"its process ended during a call to the bot \(exit code 3"),
    ("Segfault", r"its process ended during a call to the bot \(signal 11"),
    ("ParentKiller", r"its process ended during a call to the bot \(signal 9"),
])
def test_a_stuck_or_dying_bot_is_named_benched_and_the_run_goes_on(bot_file, tmp_path, bot, message):
    start = time.perf_counter()
    report = run_experiment(_experiment(bot_file, bot, deals=2, hands=20), tmp_path / "out", workers=1,
                            progress=False)
    assert report.status == "complete" and time.perf_counter() - start < 60
    games, attacker = _games(tmp_path / "out")
    assert len(games) == 2 * 2 * 2  # every game, each played to its end
    assert attacker.first_error.str.contains(message).all(), attacker.first_error.tolist()
    assert (attacker.errors == 1).all()  # benched: asked nothing more after the call that never finished
    log = (tmp_path / "out" / "run.log").read_text()
    assert "bot 'attacker' game 0: seat" in log


def test_the_replayed_games_are_the_games_of_a_clean_run(bot_file, tmp_path):
    """Games before the stuck call come out exactly as without it: the task is replayed from its seeds."""
    run_experiment(_experiment(bot_file, "Exiter", deals=3, hands=20), tmp_path / "a", workers=1, progress=False)
    run_experiment(_experiment(bot_file, "Exiter", deals=3, hands=20), tmp_path / "b", workers=2, progress=False)
    a = read_games(tmp_path / "a").to_pandas().sort_values(["game_id", "seat"]).reset_index(drop=True)
    b = read_games(tmp_path / "b").to_pandas().sort_values(["game_id", "seat"]).reset_index(drop=True)
    cols = ["game_id", "seat", "final_money", "hands_played", "errors", "first_error"]
    assert a[cols].equals(b[cols])


def test_a_stuck_bot_stops_a_strict_run_naming_it(bot_file, tmp_path):
    with pytest.raises(BotFailure, match=r"^entrant 'attacker' in game 0: its process ended"):
        run_experiment(_experiment(bot_file, "Exiter"), tmp_path / "out", workers=1, progress=False, strict=True)


def test_a_constructor_that_fails_on_a_later_game_benches_the_bot_and_the_run_goes_on(bot_file, tmp_path):
    report = run_experiment(_experiment(bot_file, "LateConstructorFailure", deals=3), tmp_path / "out", workers=1,
                            progress=False)
    assert report.status == "complete"
    games, attacker = _games(tmp_path / "out")
    assert len(games) == 3 * 2 * 2
    failed = attacker[attacker.errors > 0]
    assert len(failed) >= 1
    assert failed.first_error.str.contains("could not be built: RuntimeError: out of licences").all()


def test_a_constructor_failure_stops_a_strict_run(bot_file, tmp_path):
    with pytest.raises(BotFailure, match=r"entrant 'attacker' .* could not be built for game \d+: RuntimeError"):
        run_experiment(_experiment(bot_file, "LateConstructorFailure", deals=3), tmp_path / "out", workers=1,
                       progress=False, strict=True)


def test_the_watchdog_works_under_dask_too(bot_file, tmp_path):
    pytest.importorskip("distributed")
    report = run_experiment(_experiment(bot_file, "CLoop", deals=1, hands=10), tmp_path / "out", workers=1,
                            executor="dask", progress=False)
    assert report.status == "complete"
    _, attacker = _games(tmp_path / "out")
    assert attacker.first_error.str.contains("the watchdog killed it").all()


NOT_WATCHED = {
    "game": {"__init__", "phh"},  # hand histories (written from records)
    "bots": {"__init__", "bot_host", "isolated", "loader", "processes", "protocol", "sandbox"},  # isolated bots; loader
}


def test_every_module_that_plays_a_hand_is_watched_and_a_new_one_must_be_placed():
    """A module added to ``game`` or ``bots`` (as ``betting_steps`` was, split out of ``gamestate``) is either in
    `integrity.WATCHED` or named here: a hot loop that nobody watches would let a bot replace it unseen."""
    import pathlib

    import treasure_sim
    from treasure_sim.bots.integrity import WATCHED, _snapshot

    root = pathlib.Path(treasure_sim.__file__).parent
    for layer in ("game", "bots"):
        modules = {p.stem for p in (root / layer).glob("*.py")}
        assert modules == set(WATCHED[layer]) | NOT_WATCHED[layer], layer
        assert not set(WATCHED[layer]) & NOT_WATCHED[layer]
    watched = {space[0] for part in _snapshot().slices for space in part.spaces}
    assert watched >= {name for names in WATCHED.values() for name in names}  # listed and loaded: really watched


def test_a_replaced_function_of_a_module_loaded_on_demand_is_found(monkeypatch):
    """`resample` is imported by nothing the engine plays, only by `GameState.sample_hidden` when a search calls it:
    the snapshot loads it, so a bot that replaces its redraw (to rig another bot's search) is still caught."""
    import functools

    import treasure_sim.game.resample as resample

    original = resample.redraw_hidden
    monkeypatch.setattr(resample, "redraw_hidden", functools.wraps(original)(lambda *a, **k: original(*a, **k)))
    bots = [load_strategy("calling_station"), load_strategy("calling_station")]
    with pytest.raises(Tampering, match=r"resample\.redraw_hidden was replaced"):
        Game(bots, RuleSet(max_hands=70), seed=2, watch_code=True).play()


def test_a_replaced_betting_step_is_found(monkeypatch):
    import functools

    import treasure_sim.game.betting_steps as betting_steps

    original = betting_steps.bet_limits
    monkeypatch.setattr(betting_steps, "bet_limits", functools.wraps(original)(lambda *a, **k: original(*a, **k)))
    bots = [load_strategy("calling_station"), load_strategy("calling_station")]
    with pytest.raises(Tampering, match=r"betting_steps\.bet_limits was replaced"):
        Game(bots, RuleSet(max_hands=70), seed=2).play()


def test_a_method_added_to_the_state_class_to_hide_its_base_classes_one_is_found():
    """``GameState.play_bets = f`` does not replace `BettingSteps.play_bets`: it hides it. A name added to a watched
    namespace is caught as such (a module global would hide a builtin the same way)."""
    from treasure_sim.game import gamestate
    from treasure_sim.game.gamestate import GameState

    bots = [load_strategy("calling_station"), load_strategy("calling_station")]
    real = GameState.play_bets
    GameState.play_bets = lambda self, *a, **k: real(self, *a, **k)  # type: ignore[method-assign]
    try:
        with pytest.raises(Tampering, match=r"gamestate\.GameState\.play_bets was added"):
            Game(bots, RuleSet(max_hands=70), seed=2).play()
    finally:
        del GameState.play_bets
    gamestate.len = len  # type: ignore[attr-defined]
    try:
        assert engine_tampered() == "gamestate.len was added"
    finally:
        del gamestate.len  # type: ignore[attr-defined]
    import typing

    typing.get_type_hints(GameState.decision)  # Python itself adds __annotations__ to namespaces on first access,
    _ = GameState.__annotations__, gamestate.__annotations__
    import copy
    import warnings

    copy.copy(GameState.new(2))  # __slotnames__ to a slotted class it copies or pickles,
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec("__import__('warnings').warn('seen')", vars(gamestate))  # __warningregistry__ where code warns
    assert {"__slotnames__", "__annotations__"} <= set(vars(GameState)) and "__warningregistry__" in vars(gamestate)
    assert Game(bots, RuleSet(max_hands=70), seed=2).play().hands_played == 70 and engine_tampered() is None


def test_the_code_behind_a_cached_function_and_the_dispatch_tables_are_watched():
    from treasure_sim.game import gamestate, questions, seeding

    wrapped = seeding.hardened_root_key.__wrapped__
    code = wrapped.__code__
    wrapped.__code__ = (lambda seed: b"\0" * 32).__code__
    seeding.hardened_root_key.cache_clear()
    try:
        assert engine_tampered() == "the code of treasure_sim.game.seeding.hardened_root_key was replaced"
    finally:
        wrapped.__code__ = code
        seeding.hardened_root_key.cache_clear()
    for table in (gamestate._ASKING, gamestate._ANSWER, questions.QUESTIONS):
        with pytest.raises(TypeError):
            table["bet"] = None  # type: ignore[index]
    real = gamestate._ASKING
    gamestate._ASKING = dict(real)  # type: ignore[assignment]
    try:
        assert engine_tampered() == "gamestate._ASKING was replaced"
    finally:
        gamestate._ASKING = real
    assert engine_tampered() is None


MUTABLE_STATE = {  # caches and the state of the timers: changed as games are played, so not watched
    "game.evaluator": {"_T", "_L"},  # except these: watched on their own (arrays made read-only; values compared)
    "game.history": {"_QUINTETS"},
    "bots.seats": {"OVERDUE", "_CHANCES_READ", "_CLASS_ASKS", "_CLASS_OWN_LIMIT"},
    "bots.timeouts": {"OVERDUE", "_SENT", "_OUTER", "_SHORTEST"},
    "bots.integrity": {"_SNAPSHOT"},
}


def test_the_watched_modules_keep_their_tables_read_only():
    """The watch sees a table replaced, not changed in place (it skips lists, dicts and sets: caches change), so
    every table of the engine's is a tuple or a read-only mapping, and the only mutable globals are named state."""
    import sys

    from treasure_sim.bots.integrity import WATCHED

    for layer, names in WATCHED.items():
        for name in names:
            module = sys.modules[f"treasure_sim.{layer}.{name}"]
            mutable = {k for k, v in vars(module).items() if isinstance(v, list | dict | set) and k[:2] != "__"}
            assert mutable == MUTABLE_STATE.get(f"{layer}.{name}", set()), f"{layer}.{name}"


def test_an_allowed_name_swapped_for_a_hiding_one_and_a_table_changed_through_gc_are_found():
    """Python may add ``__slotnames__`` to a class: a bot that removes it again and adds a hiding name keeps the
    count of names, but not the names. A read-only table's dict is still reachable through ``gc``: its contents are
    compared with what was loaded."""
    import gc

    from treasure_sim.game import gamestate, state
    from treasure_sim.game.gamestate import GameState

    GameState.__slotnames__ = []  # type: ignore[attr-defined]  # as copy or pickle leave it
    assert engine_tampered() is None
    del GameState.__slotnames__  # type: ignore[attr-defined]
    GameState.play_bets = GameState.play_bets  # type: ignore[method-assign]
    try:
        assert engine_tampered() == "gamestate.GameState.play_bets was added"
    finally:
        del GameState.play_bets
    for name, table, key in (("gamestate._ASKING", gamestate._ASKING, "bet"), ("state._VALUES", state._VALUES, 14)):
        inside = gc.get_referents(table)[0]
        real = inside[key]
        inside[key] = None
        try:
            assert engine_tampered() == f"the table {name} was changed"
        finally:
            inside[key] = real
    assert engine_tampered() is None
