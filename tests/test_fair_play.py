"""Fair play inside the process (issue 11): bots are adversaries. Each attack below used to work; now the
attempt fails, is recorded as the bot's error, and changes nothing else in the game (compared, where that
makes sense, with the same game played by an honest bot that gave the fallback answer)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from conftest import ScriptedBot, stacked

from treasure_sim import Action, Game, RuleSet, Steal
from treasure_sim.game.cards import parse_card
from treasure_sim.game.strategy import FOLD, RAISE


def _same_except_errors(a, b) -> None:
    """The same game (or hand) but for the bots' errors, names and timings."""
    da, db = a.to_dict(), b.to_dict()
    for d in (da, db):
        for key in ("errors", "strategies", "decision_time", "decisions", "timeouts"):
            d.pop(key, None)
    assert da == db


# ----- answers read once, as plain values of exact types -------------------------------------------------
class TwoFacedAction(Action):
    """Reads "fold" the first time its kind is looked at and "raise" after; its amount is -50."""

    __slots__ = ("reads",)

    def __getattribute__(self, name):
        if name == "kind":
            reads = object.__getattribute__(self, "reads")
            object.__setattr__(self, "reads", reads + 1)
            return FOLD if reads == 0 else RAISE
        if name == "amount":
            return -50
        return object.__getattribute__(self, name)


class TwoFacedBot(ScriptedBot):
    def act(self, obs):
        if obs.hand_no == 1 and obs.round == 0 and not self.bets:
            super().act(obs)
            action = TwoFacedAction(RAISE, -50)
            object.__setattr__(action, "reads", 0)
            return action
        return super().act(obs)


def test_an_action_that_changes_between_reads_is_refused():
    deck = stacked(3, {0: "2c 3c", 1: "4d 5d", 2: "6h 8h"}, new="Kd", shared="2d 7s 9h Js 4c")
    cheat = Game([ScriptedBot(), TwoFacedBot(), ScriptedBot()], deck=deck)
    rec = cheat.play_hand()
    honest = Game([ScriptedBot(), ScriptedBot(["check"]), ScriptedBot()], deck=deck)  # the fallback: check
    _same_except_errors(rec, honest.play_hand())
    assert cheat.money == honest.money and sum(cheat.money) == 300
    assert [s for s, _ in rec.errors] == [1] and "-50" in rec.errors[0][1]


class OddNumbers(ScriptedBot):
    """Raises by amounts of the wrong type: an int subclass, a bool, a float; then a numpy int (fine)."""

    class Sneaky(int):
        def __le__(self, other):  # claims to be within any range
            return True

        def __ge__(self, other):
            return True

    def __init__(self, amount):
        super().__init__()
        self.amount = amount

    def act(self, obs):
        super().act(obs)
        return Action(RAISE, self.amount) if obs.round == 0 and "raise" in obs.legal else Action.check()


def test_raise_amounts_must_be_exact_whole_numbers():
    for amount in (OddNumbers.Sneaky(-50), True, 5.0, "7"):
        game = Game([ScriptedBot(), OddNumbers(amount)])
        rec = game.play_hand()
        assert [s for s, _ in rec.errors] == [1] and sum(game.money) == 200, amount
        assert all(a.kind != "raise" for a in rec.actions if a.seat == 1)
    rec = Game([ScriptedBot(), OddNumbers(np.int64(7))]).play_hand()  # an exact numpy integer is a number
    assert rec.errors == () and rec.actions[0].kind == "raise" and rec.actions[0].to == 7


class StrSubclass(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


def test_an_action_kind_must_be_an_exact_string():
    class Weird(ScriptedBot):
        def act(self, obs):
            super().act(obs)
            return Action(StrSubclass("raise"), 10**6)

    game = Game([ScriptedBot(), Weird()])
    rec = game.play_hand()
    assert [s for s, _ in rec.errors][:1] == [1] and sum(game.money) == 200
    assert all(a.kind == "check" for a in rec.actions if a.seat == 1)


# ----- Steal options: the engine keeps its own ----------------------------------------------------------------
class OptionForger(ScriptedBot):
    """Tries to rewrite the first Steal option it is handed so that its 3♦ takes the K♣, then answers with
    that forgery (built anew when the option cannot be written)."""

    refused: ClassVar[list] = []

    def steal(self, obs, options):
        super().steal(obs, options)
        first = options[0]
        try:
            object.__setattr__(first, "card", parse_card("Kc"))
        except AttributeError as err:
            OptionForger.refused.append(err)
            first = Steal(first.diamond, first.victim, parse_card("Kc"))
        return first


def test_a_bot_cannot_forge_a_steal_by_mutating_its_options():
    zones = {0: "Kc 2h", 1: "3d"}
    game = Game([ScriptedBot(), OptionForger()], treasures=zones)
    OptionForger.refused.clear()
    rec = game.play_hand()
    assert OptionForger.refused  # a Steal cannot be written into at all
    assert rec.steals == () and game.treasures == (("Kc", "2h"), ("3d",))
    assert [s for s, _ in rec.errors] == [1] and "not one of the 1 options" in rec.errors[0][1]
    game.play_hand()  # and again: what it forged last time is not the engine's option
    assert game.treasures == (("Kc", "2h"), ("3d",)) and len(game.errors[1]) == 2


class TwoFacedInt(int):
    """An int that equals anything, and converts to one of the options once, then to the black Joker."""

    reads = 0

    def __eq__(self, other):
        return True

    __hash__ = int.__hash__

    def __int__(self):
        TwoFacedInt.reads += 1
        return parse_card("5c") if TwoFacedInt.reads == 1 else parse_card("BJ")

    __index__ = __int__


class IntSubclassJoker(ScriptedBot):
    def choose_joker_treasure(self, obs, options):
        super().choose_joker_treasure(obs, options)
        TwoFacedInt.reads = 0
        return TwoFacedInt(parse_card("BJ"))


def test_a_joker_treasure_choice_must_be_an_exact_int_among_the_options():
    hole = {0: "Kd 5c", 1: "2d 3d"}
    game = Game([IntSubclassJoker(["fold"]), ScriptedBot()], deck=stacked(2, hole, dealer=1, new="RJ"), dealer=1)
    rec = game.play_hand()
    assert game.treasures[0] == ("Kd",) and rec.treasure_taken == "Kd"  # the default, never a Joker
    assert [s for s, _ in rec.errors] == [0] and "not one of its options" in rec.errors[0][1]


def test_a_steal_answer_with_int_subclass_fields_is_refused():
    class Forger(ScriptedBot):
        def steal(self, obs, options):
            super().steal(obs, options)
            return Steal(parse_card("3d"), 0, TwoFacedInt(parse_card("2h")))

    game = Game([ScriptedBot(), Forger()], treasures={0: "Kc 2h", 1: "3d"})
    rec = game.play_hand()
    assert rec.steals == () and game.treasures == (("Kc", "2h"), ("3d",)) and rec.errors[0][0] == 1


def test_a_make_room_answer_must_be_an_exact_int_among_its_treasures():
    class Forger(ScriptedBot):
        def make_room(self, obs, treasure):
            super().make_room(obs, treasure)
            TwoFacedInt.reads = 0
            return TwoFacedInt(parse_card("5c"))  # equals anything, converts to 5c (in the zone) once

    hole = {0: "Kd 5d", 1: "2d 3d"}
    game = Game([Forger(["fold"]), ScriptedBot()], RuleSet(zone_limit=2, at_limit="choose"),
                treasures={0: "5c 9h"}, deck=stacked(2, hole, new="Qs"))
    rec = game.play_hand()
    assert game.treasures[0] == ("5c", "9h") and rec.treasure_taken is None and rec.given_up == ()
    assert [s for s, _ in rec.errors] == [0] and "make_room returned" in rec.errors[0][1]


# ----- the rules a bot sees are its own copy -------------------------------------------------------------------
class RuleBender(ScriptedBot):
    """Rewrites every RuleSet it can reach: the one from setup and the one in each observation."""

    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        object.__setattr__(rules, "ante", 50)

    def act(self, obs):
        object.__setattr__(obs.rules, "betting", "fixed-limit")
        object.__setattr__(obs.rules, "starting_money", 1)
        object.__setattr__(obs.rules, "max_hands", 1)
        return super().act(obs)


def test_a_bot_cannot_change_the_rules():
    rules = RuleSet(max_hands=5)
    bent = Game([RuleBender(), ScriptedBot(["raise 30"])], rules).play()
    plain = Game([ScriptedBot(), ScriptedBot(["raise 30"])], rules).play()
    _same_except_errors(bent, plain)
    assert bent.hands_played == 5 and bent.rules == RuleSet(max_hands=5).to_dict()
    assert rules == RuleSet(max_hands=5)  # the caller's object too


def test_the_default_rules_cannot_be_poisoned_across_games():
    Game([RuleBender(), ScriptedBot()]).play_hand()
    result = Game([ScriptedBot(), ScriptedBot()]).play_hand()
    assert result.antes == (1, 1)
    assert RuleSet() == RuleSet(ante=1, betting="no-limit")


# ----- seeds: nothing a bot holds reveals the cards ----------------------------------------------------------
class SeedSpy(ScriptedBot):
    """Rebuilds the card generator from its own seed, as the engine used to derive it (a sibling spawn)."""

    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        mine = rng.bit_generator.seed_seq
        root = np.random.SeedSequence(mine.entropy, spawn_key=mine.spawn_key[:-1])
        cards = np.random.default_rng(root.spawn(n_players + 1)[0])
        deck = list(range(52 + rules.jokers))
        cards.shuffle(deck)
        self.predicted = {(s, i): deck[-1 - (i * n_players + (s - 1) % n_players)]
                          for s in range(n_players) for i in range(2)}  # dealer 0: seat 1 first

    def act(self, obs):
        self.guess = tuple(self.predicted[(obs.seat, i)] for i in range(2))
        return super().act(obs)


def test_a_bot_cannot_rebuild_the_card_stream_from_its_own_seed():
    for seed in range(5):
        spy = SeedSpy()
        game = Game([spy, ScriptedBot(), ScriptedBot()], seed=seed)
        game.play_hand()
        assert spy.guess != spy.bets[0].hand  # the sibling-spawn attack no longer predicts its own hole cards
        entropy = spy.rng.bit_generator.seed_seq.entropy
        assert entropy != seed and entropy.bit_length() > 200 and spy.rng.bit_generator.seed_seq.spawn_key == ()


def test_seeds_are_keyed_hashes_pinned_on_every_machine():
    from treasure_sim.game.seeding import derive, hardened_root_key, root_key

    assert derive(root_key(0), "cards").entropy == CARDS_OF_SEED_0
    assert derive(hardened_root_key(7), "bot", 3, 1, 2).entropy == BOT_3_1_2_OF_HARDENED_7
    key = root_key(0)
    paths = [("cards", 1), ("cards", 2), ("bot", 1, 0, 0), ("bot", 1, 0, 1), ("bot", "1", 0, 1), ("cards", 12)]
    assert len({derive(key, *p).entropy for p in paths}) == len(paths)
    assert hardened_root_key(7) != root_key(7) and root_key(7) != root_key("7")


def test_explicit_card_and_bot_seeds():
    from strategies.random_bot import RandomBot
    from treasure_sim.game.seeding import derive, hardened_root_key

    key = hardened_root_key(2024)

    def play(rotation):
        bots = [RandomBot() for _ in range(3)]
        game = Game(bots, RuleSet(max_hands=3), deal_seed=derive(key, "cards", 5),
                    bot_seeds=[derive(key, "bot", 5, rotation, s) for s in range(3)])
        return game.play_hand().hole, bots[0].rng.bit_generator.seed_seq.entropy

    (hole_a, bot_a), (hole_b, bot_b), (hole_c, bot_c) = play(0), play(1), play(0)
    assert hole_a == hole_b == hole_c and bot_a != bot_b and bot_a == bot_c


CARDS_OF_SEED_0 = 87394852986893707553360912581664094234594241753441335860029512824161250546588
BOT_3_1_2_OF_HARDENED_7 = 45251660945963856016997400593773327617463626260056951464580063709156619937733


# ----- the decision time limit -------------------------------------------------------------------------------
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402

from strategies.random_bot import RandomBot  # noqa: E402
from treasure_sim import StrategyError, play_game  # noqa: E402
from treasure_sim.bots.timeouts import DecisionTimeout, alarm_usable  # noqa: E402

needs_alarm = pytest.mark.skipif(not alarm_usable(), reason="SIGALRM on the main thread only")


class Sleeper(ScriptedBot):
    def act(self, obs):
        time.sleep(3600)


class Stubborn(ScriptedBot):
    """Catches every exception, forever."""

    def act(self, obs):
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass


class LateAnswer(ScriptedBot):
    """Swallows the timeout and then answers: too late all the same."""

    def act(self, obs):
        super().act(obs)
        try:
            time.sleep(3600)
        except BaseException:
            return Action.raise_to(obs.max_raise_to) if "raise" in obs.legal else Action.call()


@needs_alarm
@pytest.mark.parametrize("bot", [Sleeper, Stubborn, LateAnswer])
def test_a_bot_over_the_time_limit_gets_the_default_answer_and_is_benched(bot):
    tracer = sys.gettrace()  # a coverage tool's, say: it must be there again afterwards
    start = time.monotonic()
    result = play_game([ScriptedBot(), bot(), ScriptedBot()], RuleSet(max_hands=20), decision_timeout=0.2)
    assert time.monotonic() - start < 5 and result.hands_played == 20
    assert result.timeouts == (0, 3, 0) and result.decisions[1] == 1 + 3 and result.errors[0] == ()  # a vote, 3 acts
    assert result.errors[1][0] == "hand 1: act timed out after 0.2 s"
    assert result.errors[1][2].endswith("(3 timeouts: not asked again this game)")
    first = result.hands[0]
    assert [a.kind for a in first.actions if a.seat == 1] == ["check"] * 4  # the fallback: check when free
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert sys.exc_info() == (None, None, None) and sys.gettrace() is tracer  # nothing left behind


def test_a_time_limit_changes_nothing_for_bots_within_it():
    def play(limit):
        result = play_game([RandomBot() for _ in range(4)], RuleSet(max_hands=30), seed=3, decision_timeout=limit)
        data = result.to_dict()
        data.pop("decision_time")
        return data

    assert play(None) == play(5.0)


@needs_alarm
def test_the_previous_alarm_handler_and_timer_are_restored():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        play_game([Sleeper(), ScriptedBot()], RuleSet(max_hands=3), decision_timeout=0.05)
        assert signal.getsignal(signal.SIGALRM) is not previous and fired == []
        assert 25.0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@needs_alarm
def test_someone_elses_alarm_still_rings_while_games_run_with_a_time_limit():
    from treasure_sim.bots import timeouts

    rang = []  # per ring: did it come through the engine's handler (during a hand), not straight to this one?
    previous = signal.signal(signal.SIGALRM,
                             lambda *_: rang.append(signal.getsignal(signal.SIGALRM) is timeouts._dispatch))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)  # a profiler's or a test runner's timer, say
        start, seed = time.monotonic(), 0
        while sum(rang) < 10 and time.monotonic() - start < 10:  # most rings come during hands, ~10 in 0.13 s
            result = play_game([RandomBot() for _ in range(4)], RuleSet(max_hands=100), seed=seed, decision_timeout=5)
            assert result.timeouts == (0, 0, 0, 0) and result.errors == ((),) * 4
            seed += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert sum(rang) >= 10  # served by its own handler between (and after) the bots' decisions within hands


class AlarmBreaker(ScriptedBot):
    """Switches the alarm off, then takes too long: the answer is refused all the same (measured)."""

    def act(self, obs):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(0.3)
        return super().act(obs)


@needs_alarm
def test_a_bot_that_switches_the_alarm_off_is_still_timed_and_the_next_bot_is_alarmed_again():
    result = play_game([AlarmBreaker(), Sleeper(), ScriptedBot()], RuleSet(max_hands=2), decision_timeout=0.1)
    assert result.timeouts[:2] == (3, 3) and result.errors[0][0] == "hand 1: act timed out after 0.1 s"
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


class SlowSleeper(ScriptedBot):
    def act(self, obs):
        time.sleep(0.15)
        return super().act(obs)


def test_off_the_main_thread_the_time_is_measured():
    results = []
    thread = threading.Thread(target=lambda: results.append(
        play_game([SlowSleeper(), ScriptedBot()], RuleSet(max_hands=2), decision_timeout=0.05)))
    thread.start()
    thread.join(30)
    (result,) = results
    assert result.timeouts == (3, 0) and result.errors[0][0] == "hand 1: act timed out after 0.05 s"


class Proxy(ScriptedBot):
    """Stands in for an out-of-process bot that enforces its own limit (``decision_timeout`` is set for it)."""

    enforces_own_timeout = True

    def __init__(self, delay):
        super().__init__()
        self.delay, self.limits = delay, []

    def act(self, obs):
        self.limits.append(self.decision_timeout)
        if self.delay > self.decision_timeout:
            raise DecisionTimeout
        time.sleep(self.delay)
        return super().act(obs)


def test_a_bot_that_enforces_its_own_limit_is_told_it_and_not_alarmed():
    slow = Proxy(0.5)
    result = play_game([slow, ScriptedBot()], RuleSet(max_hands=1), decision_timeout=0.2)
    assert result.timeouts == (3, 0) and result.errors[0][0] == "hand 1: act timed out after 0.2 s"
    assert slow.limits == [0.2] * 3 and slow.decision_timeout == 0.2
    within = Proxy(0.12)  # just under its own limit: the engine's alarm must not interrupt it (the other seat,
    # timed by the engine, has 0.15 s: a pause of the machine under 150 ms is not its timeout)
    result = play_game([within, ScriptedBot()], RuleSet(max_hands=1), decision_timeout=0.15)
    assert result.errors == ((), ()) and len(within.limits) == 4


# ----- errors anywhere are recorded against the seat ---------------------------------------------------------
class BadSetup(RandomBot):
    def setup(self, seat, n_players, rules, rng):
        raise RuntimeError("no model file\nat line 2")


class BadRepr(RandomBot):
    def __repr__(self):
        raise ValueError("nope")


def test_a_failed_setup_is_recorded_and_the_bot_plays_the_default_answers():
    result = play_game([BadSetup(), RandomBot(), RandomBot()], RuleSet(max_hands=10), seed=1)
    assert result.errors[0] == ("hand 0: setup raised RuntimeError: no model file at line 2",)
    assert result.decisions[0] == 0 and result.hands_played >= 1 and result.strategies[0] == "BadSetup"
    acts = [a.kind for h in result.hands for a in h.actions if a.seat == 0]
    assert acts and set(acts) <= {"check", "fold"}


def test_a_broken_repr_is_recorded_and_the_class_name_used():
    result = play_game([BadRepr(), RandomBot()], RuleSet(max_hands=2), seed=1)
    assert result.strategies == ("BadRepr", "random") and result.errors[0] == (
        "hand 0: __repr__ raised ValueError: nope",)


def test_strict_errors_are_one_line_naming_seat_bot_hand_method_and_exception():
    with pytest.raises(StrategyError) as info:
        Game([RandomBot(), BadSetup()], strict=True)
    assert str(info.value) == "seat 1 (BadSetup): hand 0: setup raised RuntimeError: no model file at line 2"
    with pytest.raises(StrategyError, match=r"^seat 0 \(ScriptedBot\): hand 1: act: raise to 500 is outside"):
        Game([ScriptedBot(["raise 500"]), ScriptedBot()], strict=True).play_hand()


# ----- no live engine object reaches a bot -------------------------------------------------------------------
import dataclasses  # noqa: E402

from treasure_sim import HandRecord, Observation  # noqa: E402


class Collector(RandomBot):
    """A RandomBot that keeps everything it is handed."""

    def __init__(self):
        super().__init__(stop_chance=0.01)
        self.got: list = []

    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        self.got.append(rules)

    def act(self, obs):
        self.got.append(obs)
        return super().act(obs)

    def move_spades(self, obs):
        self.got.append(obs)
        return super().move_spades(obs)

    def draw_heart(self, obs):
        self.got.append(obs)
        return super().draw_heart(obs)

    def choose_joker_treasure(self, obs, options):
        self.got += [obs, options]
        return super().choose_joker_treasure(obs, options)

    def steal(self, obs, options):
        self.got += [obs, options]
        return super().steal(obs, options)

    def make_room(self, obs, treasure):
        self.got += [obs, treasure]
        return obs.my_treasures[0] if self.rng.random() < 0.5 else None

    def keep_playing(self, obs):
        self.got.append(obs)
        return super().keep_playing(obs)

    def on_hand_end(self, record):
        self.got.append(record)


def _plain(value, own_rules, engine_records) -> None:
    """Only ints, strings, bools, None and tuples of them; records that are the bot's own copies."""
    kind = type(value)
    if kind in (int, str, bool, type(None)):
        return
    if kind is HandRecord:  # the bot's own public copy, never the engine's record
        assert all(value is not r for r in engine_records)
    if isinstance(value, tuple):  # tuples, NamedTuples (Observation, HandRecord, ActionEvent, ...): immutable
        for item in value:
            _plain(item, own_rules, engine_records)
    elif isinstance(value, RuleSet):
        assert value is own_rules
    else:
        raise AssertionError(f"a bot was handed a {kind.__name__}: {value!r}")


@pytest.mark.parametrize(("rules", "restrict", "phases"), [
    (RuleSet(max_hands=40, starting_money=30), None, {"bet", "keep_playing", "steal", "hearts", "spades"}),
    (RuleSet(max_hands=40, starting_money=30, zone_limit=3, at_limit="choose"), {1: {"clubs", "hearts"}},
     {"bet", "keep_playing", "make_room"}),
])
def test_a_bot_is_handed_plain_values_and_its_own_copies_only(rules, restrict, phases):
    bots = [Collector() for _ in range(4)]
    game = Game(bots, rules, seed=8, treasures={0: "9s 9h Td", 1: "Jd 8c"}, restrict=restrict)
    result = game.play()
    kinds = {type(x).__name__ for b in bots for x in b.got}
    assert {"RuleSet", "Observation", "HandRecord", "tuple"} <= kinds
    assert phases <= {x.phase for b in bots for x in b.got if isinstance(x, Observation)}
    rule_copies = {id(b.rules) for b in bots} | {id(game.rules)}
    assert len(rule_copies) == 5  # one per bot, and the engine's
    for b in bots:
        for x in b.got:
            _plain(x, b.rules, result.hands)


class DeepVandal(RandomBot):
    """A RandomBot that writes, with object.__setattr__, into every object it is handed and everything inside."""

    def _vandalize(self, thing, depth=0):
        if depth > 4 or type(thing) in (int, str, bool, type(None), float):
            return
        if isinstance(thing, list):
            thing.append(None)
        names = [f.name for f in dataclasses.fields(thing)] if dataclasses.is_dataclass(thing) else []
        names += list(getattr(type(thing), "_fields", ()))
        for name in names:
            try:
                inner = getattr(thing, name)
                self._vandalize(inner, depth + 1)
                object.__setattr__(thing, name, 0)
            except (AttributeError, TypeError):
                pass
        if isinstance(thing, tuple):
            for item in thing:
                self._vandalize(item, depth + 1)

    def act(self, obs):
        answer = super().act(obs)
        self._vandalize(obs)
        return answer

    def draw_heart(self, obs):
        answer = super().draw_heart(obs)
        self._vandalize(obs)
        return answer

    def steal(self, obs, options):
        choice = super().steal(obs, options)
        answer = None if choice is None else Steal(choice.diamond, choice.victim, choice.card)
        self._vandalize(obs), self._vandalize(options)
        return answer

    def on_hand_end(self, record):
        self._vandalize(record)


def test_writing_into_what_a_bot_was_handed_changes_nothing():
    rules = RuleSet(starting_money=30, max_hands=60)
    for seed in range(4):
        plain = play_game([RandomBot() for _ in range(4)], rules, seed=seed, treasures={0: "Td 9s", 2: "8h"})
        vandals = play_game([DeepVandal() for _ in range(4)], rules, seed=seed, treasures={0: "Td 9s", 2: "8h"})
        _same_except_errors(plain, vandals)
        assert vandals.errors == ((),) * 4
