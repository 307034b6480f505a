"""The `RuleSet`: every variant of the rules a designer may flip (seeds/rulings.md names each field)."""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

BETTING_STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")
JOKER_TREASURE_RULES = ("choose", "discard")
ANTE_GROWTH = ("none", "double", "add")
SPENT_DIAMONDS = ("under_deck", "removed")
AT_LIMIT = ("refuse", "discard_oldest", "choose")


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"RuleSet.{name} must be a whole number, got {value!r}")
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"RuleSet.{name} must be {allowed}, got {value!r}")


def _check_choice(name: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"RuleSet.{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one game. Defaults are the card plus the rulings; each field is a balancing knob."""

    jokers: int = 2
    starting_money: int = 100
    ante: int = 1
    betting: str = "no-limit"
    min_bet: int = 1
    small_bet: int = 1
    big_bet: int = 2
    raise_cap: int = 4
    ace_value: int = 14
    hearts_chain: bool = True
    joker_treasure: str = "choose"
    max_hands: int = 200
    new_treasure: bool = True
    spades: bool = True
    clubs: bool = True
    hearts: bool = True
    diamonds: bool = True
    # game length (issue 17): rising antes, where a spent Diamond goes, a limit per zone, a cap on Hearts draws
    ante_growth: str = "none"
    ante_step: int = 1
    ante_every: int = 10
    spent_diamonds: str = "under_deck"
    zone_limit: int = 0
    at_limit: str = "refuse"
    hearts_cap: int = 0

    def __post_init__(self) -> None:
        _check_int("jokers", self.jokers, 0, 2)
        _check_int("starting_money", self.starting_money, 1)
        _check_int("ante", self.ante, 0)
        _check_choice("betting", self.betting, BETTING_STRUCTURES)
        _check_int("min_bet", self.min_bet, 1)
        _check_int("small_bet", self.small_bet, 1)
        _check_int("big_bet", self.big_bet, 1)
        _check_int("raise_cap", self.raise_cap, 1)
        _check_int("ace_value", self.ace_value, 1, 14)
        _check_choice("ace_value", self.ace_value, (14, 1))
        _check_choice("joker_treasure", self.joker_treasure, JOKER_TREASURE_RULES)
        _check_int("max_hands", self.max_hands, 1)
        for name in ("hearts_chain", "new_treasure", "spades", "clubs", "hearts", "diamonds"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"RuleSet.{name} must be true or false, got {getattr(self, name)!r}")
        _check_choice("ante_growth", self.ante_growth, ANTE_GROWTH)
        _check_int("ante_step", self.ante_step, 1)
        _check_int("ante_every", self.ante_every, 1)
        _check_choice("spent_diamonds", self.spent_diamonds, SPENT_DIAMONDS)
        _check_int("zone_limit", self.zone_limit, 0)
        _check_choice("at_limit", self.at_limit, AT_LIMIT)
        _check_int("hearts_cap", self.hearts_cap, 0)

    def ante_at(self, hand_no: int) -> int:
        """The ante of hand ``hand_no`` (the first hand is 1): ``ante``, raised every ``ante_every`` hands by
        ``ante_growth`` (doubled, or ``ante_step`` more). Who can pay it is decided with this, before the hand."""
        try:
            number = -1 if isinstance(hand_no, bool) else operator.index(hand_no)  # numpy integers too
        except TypeError:
            number = -1
        if number < 1:
            raise ValueError(f"hand_no must be a whole number >= 1 (the first hand is 1), got {hand_no!r}")
        growth = self.ante_growth
        if growth == "none":
            return self.ante
        raises = (number - 1) // self.ante_every
        return self.ante << raises if growth == "double" else self.ante + self.ante_step * raises

    @classmethod
    def holdem(cls, **overrides: Any) -> RuleSet:
        """Plain Hold'em with antes: no Jokers, no New Treasure, no abilities (for cross-checks)."""
        base = dict(jokers=0, new_treasure=False, spades=False, clubs=False, hearts=False, diamonds=False)
        return cls(**(base | overrides))

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        return _FIELDS

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Build from a TOML/JSON table; an unknown key is an error naming it and the known ones."""
        if not isinstance(data, dict):
            raise ValueError(f"rules must be a table of RuleSet fields, got {type(data).__name__}")
        unknown = sorted(set(data) - set(cls.fields()))
        if unknown:
            raise ValueError(f"unknown RuleSet field(s) {', '.join(unknown)}; known: {', '.join(cls.fields())}")
        return cls(**data)

    def playability_problems(self) -> list[str]:
        """Why a game under these rules could not be played as meant (empty when it can), field by field.

        Each field is valid on its own (checked on construction); these are combinations that a config
        should refuse, though a scenario may still build them on purpose.
        """
        problems = []
        behind = self.starting_money - self.ante
        if self.ante >= self.starting_money:
            problems.append(f"ante ({self.ante}) must be smaller than starting_money ({self.starting_money}): "
                            f"nobody could bet after paying it")
        if self.betting == "fixed-limit" and self.small_bet > self.big_bet:
            problems.append(f"small_bet ({self.small_bet}) is larger than big_bet ({self.big_bet}) under fixed-limit "
                            f"betting; the later rounds' bet must be at least the early rounds'")
        if self.betting != "fixed-limit" and behind > 0 and self.min_bet > behind:
            problems.append(f"min_bet ({self.min_bet}) is more than any stack holds after the ante "
                            f"({self.starting_money} - {self.ante} = {behind}): no one could make a full bet")
        if self.ante_growth == "double" and self.ante == 0:
            problems.append("ante_growth = 'double' with ante 0: the ante would never rise; start it at 1 or more")
        if self.ante_growth != "none" and self.ante_every >= self.max_hands:
            problems.append(f"ante_every ({self.ante_every}) is not below max_hands ({self.max_hands}): "
                            f"the ante would never rise")
        return problems

    def to_dict(self) -> dict[str, Any]:
        """Every field, but the game-length knobs (`LENGTH_KNOBS`) only where they differ from their defaults.

        Why: a RuleSet that does not use them then has the same dict as before they existed, so the records,
        config fingerprints and results folders written before stay identical and resumable.
        """
        # `dataclasses.asdict` without its deep copy of each value (22 us a game, for its result): ints, strs and bools
        data = dict(zip(_FIELDS, _values(self), strict=True))  # (checked when made), which need none
        for name, default in _LENGTH_DEFAULTS.items():
            if data[name] == default:
                del data[name]
        return data

    def copy(self) -> RuleSet:
        """An equal RuleSet that is a separate object (each bot gets its own), made without validating again."""
        twin = object.__new__(RuleSet)
        for name, value in zip(_FIELDS, _values(self), strict=True):
            _set(twin, name, value)
        return twin

    def replace(self, **changes: Any) -> RuleSet:
        unknown = sorted(set(changes) - set(self.fields()))
        if unknown:
            raise ValueError(f"unknown RuleSet field(s) {', '.join(unknown)}; known: {', '.join(self.fields())}")
        return dataclasses.replace(self, **changes)


_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))
_values = operator.attrgetter(*_FIELDS)  # every field's value, in field order
_set = object.__setattr__  # a frozen dataclass's fields, set once in `copy`
LENGTH_KNOBS = ("ante_growth", "ante_step", "ante_every", "spent_diamonds", "zone_limit", "at_limit", "hearts_cap")
"""The knobs added for game length (issue 17): written by `RuleSet.to_dict` only when not at their defaults."""
_LENGTH_DEFAULTS = MappingProxyType({f.name: f.default for f in dataclasses.fields(RuleSet) if f.name in LENGTH_KNOBS})
