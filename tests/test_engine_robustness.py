"""Misbehaving bots: every error is recorded against the seat and the game goes on (check if free, else
fold); strict games raise StrategyError naming the seat; nothing a bot mutates can change the game."""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import pytest
from conftest import ScriptedBot, stacked

from strategies.random_bot import RandomBot
from treasure_sim import Action, Game, RuleSet, Steal, Strategy, StrategyError, play_game
from treasure_sim.game.cards import parse_card


class Boom(Exception):
    pass


class Garbage(ScriptedBot):
    """Answers ``answer`` (or raises it, if it is an exception) to ``method``; a ScriptedBot otherwise."""

    def __init__(self, method, answer, **kw):
        super().__init__(**kw)
        self.method, self.answer = method, answer

    def __getattribute__(self, name):
        if name == object.__getattribute__(self, "method"):
            answer = object.__getattribute__(self, "answer")

            def misbehave(*args):
                object.__getattribute__(self, "calls").append((name, 0, "garbage"))
                if isinstance(answer, BaseException):
                    raise answer
                return answer
            return misbehave
        return object.__getattribute__(self, name)


BAD_ACTIONS = [
    None, "call", 3, Action("raise", 5.5), Action("raise", "7"), Action("raise", True), Action("bogus"),
    Action.raise_to(10**6), Action.raise_to(0), Boom("act blew up"),
]


@pytest.mark.parametrize("answer", BAD_ACTIONS, ids=repr)
def test_a_bad_action_is_recorded_and_checks_when_free(answer):
    players = [ScriptedBot(), Garbage("act", answer), ScriptedBot()]
    game = Game(players)
    rec = game.play_hand()
    mine = [a for a in rec.actions if a.seat == 1]
    assert mine and all(a.kind == "check" for a in mine) and not rec.folded[1]
    assert rec.errors and {s for s, _ in rec.errors} == {1}
    assert sum(game.money) == 300
    assert game.play().errors[1]  # and the game goes on to its end


@pytest.mark.parametrize("answer", [*BAD_ACTIONS, Action.check()], ids=repr)
def test_a_bad_action_facing_a_bet_folds(answer):
    players = [ScriptedBot(), ScriptedBot(["raise 5"]), Garbage("act", answer)]
    rec = Game(players).play_hand()
    assert rec.folded[2] and [a.kind for a in rec.actions if a.seat == 2] == ["fold"]
    assert {s for s, _ in rec.errors} == {2}


def test_a_raise_when_raising_is_not_legal_is_refused():
    rules = RuleSet(betting="fixed-limit", raise_cap=1)
    players = [ScriptedBot(), ScriptedBot(["raise 1"]), ScriptedBot(["raise 2"])]
    rec = Game(players, rules).play_hand()
    assert rec.folded[2] and "raising is not legal" in rec.errors[0][1]


@pytest.mark.parametrize("answer", [None, "7s", [1.5], [parse_card("As")], [parse_card("7h")],
                                    [parse_card("7s")] * 2, Boom("spades")], ids=repr)
def test_bad_spades_moves_change_nothing(answer):
    game = Game([Garbage("move_spades", answer), ScriptedBot()], treasures={0: "7s 7h", 1: "As"})
    rec = game.play_hand()
    assert rec.spades_moved == ((), ()) and game.treasures == (("7s", "7h"), ("As",)) and rec.errors[0][0] == 0


def test_numpy_card_ids_are_fine():
    game = Game([ScriptedBot(spades=[]), ScriptedBot()], treasures={0: "7s"})
    game.strategies[0].move_spades = lambda obs: np.array([parse_card("7s")])
    rec = game.play_hand()
    assert rec.spades_moved[0] == ("7s",) and rec.errors == ()


@pytest.mark.parametrize("answer", [None, "BJ", parse_card("RJ"), parse_card("Ah"), True, 99, Boom("joker")],
                         ids=repr)
def test_a_bad_joker_treasure_choice_is_recorded_without_naming_the_hole_cards(answer):
    hole = {0: "Kd 5c", 1: "2d 3d"}
    players = [Garbage("choose_joker_treasure", answer, actions=["fold"]), ScriptedBot()]
    game = Game(players, deck=stacked(2, hole, dealer=1, new="RJ"), dealer=1)
    rec = game.play_hand()
    assert rec.last_folder == 0 and game.treasures[0] == ("Kd",)  # the default: the highest value
    assert rec.errors[0][0] == 0
    assert "Kd" not in rec.errors[0][1] and "5c" not in rec.errors[0][1]  # the hole cards stay hidden
    if answer is not None and not isinstance(answer, Exception):
        assert "not one of its options" in rec.errors[0][1]


@pytest.mark.parametrize("answer", [(0, 1, 2), "steal", Steal(parse_card("Td"), 0, parse_card("Jh")),
                                    Steal(parse_card("Td"), 1, parse_card("Td")), Boom("steal")], ids=repr)
def test_a_bad_steal_changes_nothing(answer):
    game = Game([ScriptedBot(), Garbage("steal", answer)], treasures={0: "Jh 9c", 1: "Td"})
    rec = game.play_hand()
    assert rec.steals == () and game.treasures == (("Jh", "9c"), ("Td",)) and rec.errors[0][0] == 1


@pytest.mark.parametrize("answer", ["yes", None, 1, Boom("keep")], ids=repr)
def test_a_bad_keep_playing_answer_goes_on(answer):
    game = Game([Garbage("keep_playing", answer), ScriptedBot(keep=False)], RuleSet(max_hands=2))
    result = game.play()
    assert result.end_reason == "hand_limit" and len(result.errors[0]) == 2  # asked before hands 1 and 2


@pytest.mark.parametrize("answer", ["yes", None, Boom("draw")], ids=repr)
def test_a_bad_hearts_answer_stops_drawing(answer):
    game = Game([Garbage("draw_heart", answer), ScriptedBot()], treasures={0: "7h"},
                deck=stacked(2, {0: "7s 7d", 1: "2c 3c"}, new="8c", shared="Ks Qs Js 4d 5d"))
    rec = game.play_hand()
    assert rec.drawn == ((), ()) and rec.errors[0][0] == 0


def test_an_error_in_on_hand_end_is_recorded():
    game = Game([Garbage("on_hand_end", Boom("told")), ScriptedBot()])
    game.play_hand()
    assert game.errors[0] == ["hand 1: on_hand_end raised Boom: told"]


STRICT_CASES = [
    ("act", Boom("x"), {}), ("act", "call", {}), ("move_spades", ["7h"], {"treasures": {1: "7s 7h"}}),
    ("steal", "x", {"treasures": {1: "Td", 0: "9c"}}), ("keep_playing", "x", {}), ("on_hand_end", Boom("x"), {}),
]


@pytest.mark.parametrize(("method", "answer", "kw"), STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_strict_games_raise_naming_the_seat(method, answer, kw):
    players = [ScriptedBot(), Garbage(method, answer)]
    with pytest.raises(StrategyError, match=r"^seat 1 \(Garbage\)"):
        Game(players, strict=True, **kw).play_hand()


class Vandal(RandomBot):
    """A RandomBot that tries to change everything it is given before answering."""

    attempts = 0

    def _vandalize(self, thing):
        for attempt in (lambda: setattr(thing, "pot", 10**6), lambda: thing.treasures[0].append(0),
                        lambda: thing.money.__setitem__(0, 0), lambda: setattr(thing, "payouts", (0,)),
                        lambda: thing.shown.append(None), lambda: setattr(thing.rules, "ante", 50)):
            try:
                attempt()
            except (AttributeError, TypeError, dataclasses.FrozenInstanceError, IndexError):
                Vandal.attempts += 1

    def act(self, obs):
        self._vandalize(obs)
        return super().act(obs)

    def steal(self, obs, options):
        self._vandalize(obs)
        with contextlib.suppress(AttributeError, dataclasses.FrozenInstanceError, IndexError):
            options[0].card = 0  # type: ignore[misc]
        return super().steal(obs, options)

    def on_hand_end(self, record):
        self._vandalize(record)


def test_mutating_what_a_bot_received_cannot_change_the_game():
    rules = RuleSet(starting_money=30)
    for seed in range(5):
        plain = play_game([RandomBot() for _ in range(4)], rules, seed=seed)
        Vandal.attempts = 0
        vandals = play_game([Vandal() for _ in range(4)], rules, seed=seed)
        assert Vandal.attempts > 0
        a, b = plain.to_dict(), vandals.to_dict()
        for d in (a, b):
            d.pop("decision_time"), d.pop("strategies")
        assert a == b


def test_an_observation_is_a_snapshot():
    players = [ScriptedBot(["raise 5"]), ScriptedBot(), ScriptedBot()]
    Game(players, dealer=2).play_hand()
    first = players[0].bets[0]
    assert first.pot == 3 and first.history == () and first.bets == (0, 0, 0) and first.shared == ()


class NotAStrategy:
    def act(self, obs):
        return Action.check()


def test_only_strategies_may_play():
    with pytest.raises(ValueError, match="strategy 1 is a NotAStrategy"):
        Game([Strategy(), NotAStrategy()])  # type: ignore[list-item]


class LateThief(Strategy):
    """Gets its steal method only in setup: the engine must still ask it."""

    def setup(self, seat, n_players, rules, rng):
        super().setup(seat, n_players, rules, rng)
        self.steal = lambda obs, options: options[0]


def test_methods_a_bot_sets_up_for_itself_are_asked():
    game = Game([ScriptedBot(), LateThief()], treasures={0: "9c", 1: "Td"})
    rec = game.play_hand()
    assert [(e.seat, e.card) for e in rec.steals] == [(1, "9c")] and game.result().decisions[1] >= 1
