"""The `RuleSet`: every variant of the rules a designer may flip (RULES.md names each field)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

BETTING_STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")
JOKER_TREASURE_RULES = ("choose", "discard")


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
    """The rules of one game. Defaults are the card plus RULES.md; each field is a balancing knob."""

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
        return problems

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def copy(self) -> RuleSet:
        """An equal RuleSet that is a separate object (each bot gets its own), made without validating again."""
        twin = object.__new__(RuleSet)
        for name in _FIELDS:
            object.__setattr__(twin, name, object.__getattribute__(self, name))
        return twin

    def replace(self, **changes: Any) -> RuleSet:
        unknown = sorted(set(changes) - set(self.fields()))
        if unknown:
            raise ValueError(f"unknown RuleSet field(s) {', '.join(unknown)}; known: {', '.join(self.fields())}")
        return dataclasses.replace(self, **changes)


_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))
