"""The decision catalogue is the one definition of every question: the bot API, the line protocol and its docs agree."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from treasure_sim import Action, Mixed, Steal, Strategy
from treasure_sim.bots import protocol
from treasure_sim.game.questions import BY_METHOD, QUESTIONS

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
