"""RuleSet: every field of the rulings with its default, validation naming the field, dict round-trips."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treasure_sim import RuleSet
from treasure_sim.game.rules import LENGTH_KNOBS

# the rulings (seeds/rulings.md), field by field: the default and every other value the rulings allow.
RULES_MD = {
    "jokers": (2, [0, 1]),
    "ace_value": (14, [1]),
    "starting_money": (100, [1, 5000]),
    "ante": (1, [0, 3]),
    "betting": ("no-limit", ["pot-limit", "fixed-limit"]),
    "min_bet": (1, [2]),
    "small_bet": (1, [3]),
    "big_bet": (2, [6]),
    "raise_cap": (4, [1, 10]),
    "hearts_chain": (True, [False]),
    "joker_treasure": ("choose", ["discard"]),
    "max_hands": (200, [1, 10_000]),
    "ante_growth": ("none", ["double", "add"]),
    "ante_step": (1, [5]),
    "ante_every": (10, [1, 50]),
    "spent_diamonds": ("under_deck", ["removed"]),
    "zone_limit": (0, [1, 8]),
    "at_limit": ("refuse", ["discard_oldest", "choose"]),
    "hearts_cap": (0, [1, 3]),
}
SWITCHES = ("new_treasure", "spades", "clubs", "hearts", "diamonds")

BAD = [
    ("jokers", 3, "0..2"), ("jokers", -1, "0..2"), ("jokers", 1.0, "whole number"),
    ("ace_value", 13, "14, 1"), ("ace_value", True, "whole number"), ("ace_value", "14", "whole number"),
    ("starting_money", 0, ">= 1"), ("ante", -1, ">= 0"), ("betting", "limit", "'no-limit', 'pot-limit'"),
    ("min_bet", 0, ">= 1"), ("small_bet", 0, ">= 1"), ("big_bet", None, "whole number"),
    ("raise_cap", 0, ">= 1"), ("hearts_chain", 1, "true or false"), ("joker_treasure", "keep", "'choose'"),
    ("max_hands", 0, ">= 1"), ("spades", "yes", "true or false"), ("new_treasure", None, "true or false"),
    ("ante_growth", "triple", "'none', 'double', 'add'"), ("ante_step", 0, ">= 1"), ("ante_every", 0, ">= 1"),
    ("spent_diamonds", "burned", "'under_deck', 'removed'"), ("zone_limit", -1, ">= 0"),
    ("at_limit", "swap", "'refuse', 'discard_oldest', 'choose'"), ("hearts_cap", 1.5, "whole number"),
]


def test_defaults_are_the_rulings():
    rules = RuleSet()
    for name, (default, _) in RULES_MD.items():
        assert getattr(rules, name) == default, name
    for name in SWITCHES:
        assert getattr(rules, name) is True, name
    assert set(RuleSet.fields()) == set(RULES_MD) | set(SWITCHES)


@pytest.mark.parametrize("name", list(RULES_MD))
def test_every_allowed_value_is_accepted(name):
    for value in RULES_MD[name][1]:
        assert getattr(RuleSet(**{name: value}), name) == value


@pytest.mark.parametrize(("name", "value", "accepts"), BAD)
def test_bad_value_names_the_field_and_what_it_accepts(name, value, accepts):
    with pytest.raises(ValueError, match=rf"RuleSet\.{name} must be") as err:
        RuleSet(**{name: value})
    assert accepts in str(err.value)
    with pytest.raises(ValueError, match=rf"RuleSet\.{name}"):
        RuleSet.from_dict({name: value})


def test_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        RuleSet().ante = 2  # type: ignore[misc]


def test_holdem_turns_every_treasure_rule_off():
    h = RuleSet.holdem()
    assert h.jokers == 0 and not h.new_treasure
    assert not (h.spades or h.clubs or h.hearts or h.diamonds)
    assert RuleSet.holdem(betting="pot-limit").betting == "pot-limit"


def test_unknown_fields_are_named():
    with pytest.raises(ValueError, match=r"unknown RuleSet field.*antee.*known: jokers"):
        RuleSet.from_dict({"antee": 2})
    with pytest.raises(ValueError, match=r"unknown RuleSet field.*bogus"):
        RuleSet().replace(bogus=1)
    with pytest.raises(ValueError, match="table of RuleSet fields"):
        RuleSet.from_dict(["ante", 1])  # type: ignore[arg-type]


rulesets = st.builds(
    RuleSet,
    jokers=st.integers(0, 2), ace_value=st.sampled_from([1, 14]), starting_money=st.integers(1, 10_000),
    ante=st.integers(0, 10), betting=st.sampled_from(["no-limit", "pot-limit", "fixed-limit"]),
    min_bet=st.integers(1, 20), small_bet=st.integers(1, 20), big_bet=st.integers(1, 40),
    raise_cap=st.integers(1, 10), hearts_chain=st.booleans(), joker_treasure=st.sampled_from(["choose", "discard"]),
    max_hands=st.integers(1, 1000), new_treasure=st.booleans(), spades=st.booleans(), clubs=st.booleans(),
    hearts=st.booleans(), diamonds=st.booleans(), ante_growth=st.sampled_from(["none", "double", "add"]),
    ante_step=st.integers(1, 5), ante_every=st.integers(1, 50),
    spent_diamonds=st.sampled_from(["under_deck", "removed"]), zone_limit=st.integers(0, 8),
    at_limit=st.sampled_from(["refuse", "discard_oldest", "choose"]),
    hearts_cap=st.integers(0, 4),
)


@given(rulesets)
def test_dict_and_json_round_trip(rules):
    data = rules.to_dict()
    assert RuleSet.from_dict(data) == rules
    assert RuleSet.from_dict(json.loads(json.dumps(data))) == rules
    assert rules.replace() == rules and hash(rules) == hash(RuleSet.from_dict(data))


@given(rulesets)
def test_the_dict_and_the_copy_are_the_dataclass_s_own(rules):
    """`to_dict` and `copy` skip dataclasses' deep copies (every field is an int, str or bool): the dict is
    `dataclasses.asdict`'s, in field order, with only the game-length knobs off their defaults dropped; the copy is
    a separate RuleSet with every field the same object."""
    default = RuleSet()
    oracle = {name: value for name, value in dataclasses.asdict(rules).items()
              if name not in LENGTH_KNOBS or value != getattr(default, name)}
    assert list(rules.to_dict().items()) == list(oracle.items())
    twin = rules.copy()
    assert twin == rules and twin is not rules
    assert all(getattr(twin, name) is getattr(rules, name) for name in RuleSet.fields())


def test_replace_validates():
    assert RuleSet().replace(ante=5).ante == 5
    with pytest.raises(ValueError, match=r"RuleSet\.ante"):
        RuleSet().replace(ante=-2)
