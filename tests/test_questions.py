"""The decision catalogue is the one definition of every question: the bot API, the line protocol and its docs agree."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from treasure_sim import Action, Mixed, Steal, Strategy
from treasure_sim.bots import protocol
from treasure_sim.game.questions import BY_METHOD, QUESTIONS, Decision, check_answer, strategy_args

DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"


def test_every_decision_method_of_the_bot_api_is_a_question() -> None:
    """A Strategy method that answers something (not setup, not being told a record) is in the catalogue, with the
    arguments the catalogue says it is asked with."""
    methods = {name for name, _ in inspect.getmembers(Strategy, inspect.isfunction)
               if not name.startswith("_") and name not in ("setup", "on_hand_end")}
    assert methods == set(BY_METHOD)
    for q in QUESTIONS.values():
        params = list(inspect.signature(getattr(Strategy, q.method)).parameters)
        assert params == ["self", "obs", *([q.asked_with] if q.asked_with else [])], q.method


def test_the_protocol_docs_name_each_questions_field() -> None:
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \| (?:[^|]*) \| ([^\n]*)$", DOCS.read_text(), re.M)}
    for q in QUESTIONS.values():
        assert q.method in rows, f"docs/protocol.md has no row for {q.method}"
        assert f"`{q.wire}`" in rows[q.method], f"docs/protocol.md: {q.method} answers with `{q.wire}`"


STEALS = (Steal(3, 1, 7), Steal(3, 2, 11))
ANSWERS = {
    "act": [Action.call(), Action.raise_to(12), Mixed((Action.fold(), Action.call()), (0.25, 0.75))],
    "move_spades": [[], [0, 4]],
    "draw_heart": [True, False],
    "keep_playing": [True, False],
    "choose_joker_treasure": [51, 0],
    "make_room": [None, 8],
    "steal": [None, STEALS[1]],
}


@pytest.mark.parametrize("method", sorted(BY_METHOD))
def test_every_answer_goes_over_the_wire_and_back_unchanged(method: str) -> None:
    options = STEALS if method == "steal" else ()
    for answer in ANSWERS[method]:
        wire = protocol.answer_to_json(method, answer, options)
        assert protocol.answer_from_json(method, wire, options) == answer


DECISIONS = {  # one decision of each kind that is not a bet, as the state makes them
    "keep_playing": Decision(0, "keep_playing", (True, False), True),
    "spades": Decision(0, "spades", (0, 4), ()),
    "hearts": Decision(0, "hearts", (True, False), True),
    "joker_treasure": Decision(0, "joker_treasure", (12, 25), 25),
    "make_room": Decision(0, "make_room", (5, 6, None), None, treasure=40),
    "steal": Decision(0, "steal", (*STEALS, None), None),
}


@pytest.mark.parametrize("kind", sorted(DECISIONS))
def test_a_seat_reads_and_checks_every_question_as_the_catalogue_says(kind: str) -> None:
    """The bots layer asks each question through one generic method: a legal answer is played as the state's own
    check reads it, an illegal one is the catalogue's fallback with an error naming the method, and a bot that does
    not answer a question with a fixed default is not asked."""
    from treasure_sim.bots.seats import Seat
    from treasure_sim.game.gamestate import GameState

    q, d = QUESTIONS[kind], DECISIONS[kind]
    asked: list[tuple] = []

    def answering(value):
        class Bot(Strategy):
            def act(self, obs):
                return Action.call()

        setattr(Bot, q.method, lambda self, obs, *args: asked.append(args) or value)
        return Bot()

    table = GameState.new(2).table
    legal = {"keep_playing": False, "spades": [4], "hearts": False, "joker_treasure": 12, "make_room": 6,
             "steal": STEALS[1]}[kind]
    seat = Seat(0, answering(legal), table)
    seat.setup(2, table.bot_rules[0], np.random.default_rng(0))
    assert seat.answer(d, lambda _: None) == check_answer(d, q.read(legal) if q.read else legal) and not seat.errors
    assert asked == [strategy_args(d)]
    seat = Seat(0, answering(object()), table)
    seat.setup(2, table.bot_rules[0], np.random.default_rng(0))
    fallback = d.default if q.on_error == "default" else q.on_error
    assert seat.answer(d, lambda _: None) == fallback
    assert len(seat.errors) == 1 and seat.errors[0].split(": ", 1)[1].startswith(f"{q.method} returned")
    if q.skippable:
        plain = Seat(0, answering(object()), table)  # Bot overrides the method; a Strategy that does not is not asked
        plain.bot = Strategy()
        plain.setup(2, table.bot_rules[0], np.random.default_rng(0))
        asked.clear()
        assert plain.answer(d, lambda _: None) == d.default and not asked and not plain.errors


def test_a_steal_answer_that_lies_about_its_class_runs_no_bot_code_and_is_refused():
    """Reading a steal answer asks its real type, never its ``__class__`` (which isinstance reads, running a property
    or ``__getattribute__`` of the bot's, outside the time limit): one that claims to be a Steal is refused by name,
    and the game plays on (it crashed on ``tuple.__len__`` before; found by a review)."""
    from treasure_sim import Game, RuleSet

    ran: list[str] = []

    class ClassLiar:
        @property
        def __class__(self):
            ran.append("__class__")
            return Steal

    class Spy:
        def __getattribute__(self, name):
            ran.append(name)
            return object.__getattribute__(self, name)

    class Thief(Strategy):
        def __init__(self, answer) -> None:
            self.answer = answer

        def steal(self, obs, options):
            return self.answer

    for answer in (ClassLiar(), Spy()):
        game = Game([Thief(answer), Strategy()], RuleSet(max_hands=1), seed=1, treasures={0: "Ad", 1: "2c"})
        game.play()
        assert ran == [] and game.errors[0] and all("steal returned <" in e and "not a Steal" in e
                                                    for e in game.errors[0])
