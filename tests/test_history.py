"""Records: JSON-safe dicts, the public view of a hand, and a hand history that follows the card's steps."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ScriptedBot, stacked

from strategies.random_bot import RandomBot
from treasure_sim import Game, HandRecord, RuleSet, play_game


def full_hand() -> tuple[Game, HandRecord]:
    """Every step happens: a fold, Spades, a Hearts chain, a showdown, a side pot, a New Treasure, a steal."""
    hole = {0: "7s 2d", 1: "Ks Kd", 2: "9c 9d"}
    players = [ScriptedBot(spades=["As"]), ScriptedBot(["raise 20"], steals=[("Qd", 0, "7h")]),
               ScriptedBot(["call", "check", "fold"])]
    game = Game(players, treasures={0: "7h As", 1: "Qd"}, money=[10, 100, 100],
                deck=stacked(3, hole, new="5c", shared="7d 3c Jh 4s 8h", then="2c 7c Th"))
    return game, game.play_hand()


def test_a_full_hand_history_follows_the_steps():
    _, rec = full_hand()
    text = str(rec)
    assert rec.spades_moved[0] == ("As",) and rec.drawn[0] == ("2c", "7c", "Th") and rec.steals
    steps = [int(m) for m in re.findall(r"^ ?(\d+) ", text, flags=re.M)]
    assert steps == sorted(steps) and {1, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14, 16} <= set(steps)
    for line in ["Hand #1, dealer seat 0, turn order: 1, 2, 0",
                 "stacks: seat 0 $10, seat 1 $100, seat 2 $100",
                 "zones: seat 0 [7h As]; seat 1 [Qd]; seat 2 []",
                 " 2 hole cards: seat 1 [Ks Kd]; seat 2 [9c 9d]; seat 0 [7s 2d]",
                 " 3 New Treasure: 5c",
                 " 4 betting: seat 1 bets 20; seat 2 call 20; seat 0 call 9 (all in)",
                 " 5 shared: 7d 3c",
                 "11 seat 0 moves Spades to hand: As",
                 "12 seat 0 draws with Hearts: 2c 7c Th",
                 "14 last folder seat 2 takes the New Treasure 5c",
                 "16 seat 1 puts Qd under the deck and steals 7h from seat 0",
                 "zones after: seat 0 []; seat 1 [7h]; seat 2 [5c]"]:
        assert line in text, line
    assert "14 main pot $30 to seat 0\n14 side pot 1 $22 to seat 1\n" in text
    assert "13 seat 0 shows 7s 2d As 2c 7c Th -> " in text


def test_records_are_frozen_and_json_safe():
    result = play_game([RandomBot() for _ in range(4)], RuleSet(starting_money=20), seed=5)
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["hands"][0]["hand_no"] == 1 and isinstance(data["hands"][0]["actions"][0], dict)
    with pytest.raises(AttributeError):  # a NamedTuple: not even object.__setattr__ changes it
        object.__setattr__(result.hands[0], "payouts", ())
    assert all(str(rec).startswith(f"Hand #{rec.hand_no}") for rec in result.hands)
    # the engine builds records without the constructor's arity check: every one has every field, each its own type
    assert all(len(rec) == len(HandRecord._fields) and type(rec) is HandRecord for rec in result.hands)
    assert all(isinstance(rec.mixed, tuple) and isinstance(rec.payouts, tuple) for rec in result.hands)


def test_the_public_view_hides_unshown_hands_only():
    _, rec = full_hand()
    public = rec.public()
    shown = {s.seat for s in rec.shown}
    assert shown == {0, 1}
    assert public.hole == (("7s", "2d"), ("Ks", "Kd"), None) and rec.hole[2] == ("9c", "9d")
    assert public._replace(hole=rec.hole) == rec
    assert "seat 2 [? ?]" in str(public)


def test_pot_and_winners():
    _, rec = full_hand()
    assert rec.pot == sum(p.amount for p in rec.pots) == 52
    assert set(rec.winners) == {w for p in rec.pots for w in p.winners}
    assert sum(rec.payouts) == 0
