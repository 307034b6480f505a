"""Balance studies: a designer's interventional experiments, written as one sweep of *arms* on common deals.

A balance config is an experiment TOML (name, seed, deals, table_size, rotate, [[entrants]], [rules]) plus a
``[balance]`` table with any of three studies, and optionally the rule ``[[variants]]`` the skill ladder is
climbed under (as in a sweep config)::

    [balance.powers]              # restricted play: each entrant below barred from one power at a time
    entrants = ["equity", "treasure_hunter"]
    powers = ["spades", "clubs", "hearts", "diamonds", "new_treasure"]   # the default: all five

    [balance.endowments]          # each deal also played with one card in the entrant's zone at the start
    entrant = "treasure_hunter"
    cards = ["As", "Kc"]          # the default: all 52 (Jokers never enter a zone)
    deals = 400                   # at most this many of the base's deals per card

    [balance.ladder]              # the same bot at rising strength against the rest of the field
    entrant = "equity"
    param = "rollouts"
    values = [3, 10, 30, 100]
    deals = 500

The arms are sweep variants (`treasure_sim.run.sweep.Variant`) named ``base``, ``power.<entrant>.<power>``,
``endow.<entrant>.<card>`` and ``ladder.<rules variant>.<param>-<value>``. Every arm plays deal ``d`` from the
same seed with the same opponents in the same seats (common random numbers), so each intervention is read
as a paired difference per deal (`treasure_sim.study.causal`).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from ..game.cards import format_card, make_deck, parse_card
from ..game.strategy import POWERS
from .experiment import TOP_KEYS, ConfigError, Experiment, check_keys, parse_experiment, read_toml
from .sweep import Sweep, Variant, listed_variants, parse_sweep

BALANCE_KEYS = ("powers", "endowments", "ladder")
STUDY_KEYS = {
    "powers": ("entrants", "powers"),
    "endowments": ("entrant", "cards", "deals"),
    "ladder": ("entrant", "param", "values", "deals"),
}
BASE = "base"  # the arm that plays the base experiment itself: every comparison's reference


def load_balance(path: str | Path, *, check_strategies: bool = True) -> Sweep:
    """Read a balance config and return its arms as a sweep (baseline: the ``base`` arm)."""
    return parse_balance(read_toml(path, "balance"), str(path), check_strategies=check_strategies)


def parse_balance(data: dict[str, Any], source: str = "<memory>", *, check_strategies: bool = True) -> Sweep:
    where = f"{source}: "
    check_keys(data, (*TOP_KEYS, "balance", "variants"), where)
    data = dict(data)
    study, rule_variants = data.pop("balance", None), data.pop("variants", None)
    if not isinstance(study, dict) or not study:
        raise ConfigError(f"{where}no studies: give [balance.powers], [balance.endowments] or [balance.ladder]")
    check_keys(study, BALANCE_KEYS, f"{where}[balance]: ")
    base = parse_experiment(data, source, check_strategies=check_strategies)
    arms = [Variant(BASE)]
    for kind, table in study.items():
        at = f"{where}[balance.{kind}]: "
        if not isinstance(table, dict):
            raise ConfigError(f"{at}must be a table with keys {', '.join(STUDY_KEYS[kind])}, got {table!r}")
        check_keys(table, STUDY_KEYS[kind], at)
        labels = [e.label for e in base.entrants]
        if kind == "powers":
            arms += power_arms(table, labels, base, at)
        elif kind == "endowments":
            arms += endowment_arms(table, labels, base, at)
        else:
            rules = listed_variants(rule_variants, where) if rule_variants is not None else []
            arms += ladder_arms(table, labels, rules, at)
    if rule_variants is not None and "ladder" not in study:
        raise ConfigError(f"{where}[[variants]] are the rules the skill ladder is climbed under: add "
                          f"[balance.ladder], or remove them")
    sweep = {"variants": [_as_table(a) for a in arms], "baseline": BASE}
    return parse_sweep(data | sweep, source, check_strategies=check_strategies)


def _as_table(arm: Variant) -> dict[str, Any]:
    table: dict[str, Any] = {"name": arm.name, "rules": arm.rules, "entrants": arm.entrants}
    if arm.deals:
        table["deals"] = arm.deals
    return table


def _label(value: Any, labels: list[str], at: str, key: str) -> str:
    if value not in labels:
        close = difflib.get_close_matches(str(value), labels, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"{at}{key}: {value!r} is not an entrant's label{hint}; labels: {', '.join(labels)}")
    return value


def _deals(table: dict[str, Any], at: str) -> int | None:
    deals = table.get("deals")
    if deals is not None and (isinstance(deals, bool) or not isinstance(deals, int) or deals < 1):
        raise ConfigError(f"{at}deals must be a whole number >= 1, got {deals!r}")
    return deals


def _untouched(label: str, base: Experiment, at: str) -> str:
    """An entrant an intervention is measured on must play the base unrestricted and unendowed: an arm changes
    one thing, so its difference from the base is that thing's effect."""
    entrant = next(e for e in base.entrants if e.label == label)
    if entrant.restrict or entrant.treasures:
        raise ConfigError(f"{at}entrant {label!r} is already restricted or endowed in the base experiment; a study "
                          f"measures one change against the base, so give it neither restrict nor treasures")
    return label


def power_arms(table: dict[str, Any], labels: list[str], base: Experiment, at: str) -> list[Variant]:
    """One arm per (entrant, power): the entrant barred from that power alone."""
    who = table.get("entrants")
    if not isinstance(who, list) or not who:
        raise ConfigError(f"{at}entrants must be a non-empty array of entrant labels, got {who!r}")
    powers = table.get("powers", list(POWERS))
    if not isinstance(powers, list) or not powers:
        raise ConfigError(f"{at}powers must be a non-empty array of {', '.join(POWERS)}, got {powers!r}")
    for p in powers:
        if p not in POWERS:
            raise ConfigError(f"{at}powers: unknown power {p!r}; powers: {', '.join(POWERS)}")
    return [Variant(f"power.{label}.{p}", entrants={label: {"restrict": [p]}})
            for label in (_untouched(_label(w, labels, at, "entrants"), base, at) for w in who) for p in powers]


def endowment_arms(table: dict[str, Any], labels: list[str], base: Experiment, at: str) -> list[Variant]:
    """One arm per card: the entrant starts every game with that card (alone) in its Treasure Zone."""
    label = _untouched(_label(table.get("entrant"), labels, at, "entrant"), base, at)
    cards = table.get("cards", [format_card(c) for c in make_deck(0)])
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        raise ConfigError(f"{at}cards must be a non-empty array of cards such as [\"As\", \"Kc\"], got {cards!r}")
    taken = {c for e in base.entrants for c in e.treasures}
    arms = []
    for token in cards:  # spelled as everywhere (As, Th), so the arms and the heat map agree
        try:
            card = format_card(parse_card(token))
        except ValueError as err:
            raise ConfigError(f"{at}cards: {err}") from None
        if card in taken:
            raise ConfigError(f"{at}cards: {card} already starts in an entrant's zone in the base experiment")
        arms.append(Variant(f"endow.{label}.{card}", entrants={label: {"treasures": [card]}},
                            deals=_deals(table, at)))
    return arms


def ladder_arms(table: dict[str, Any], labels: list[str], rule_variants: list[Variant], at: str) -> list[Variant]:
    """One arm per (rules, rung): the entrant's ``param`` set to each value, under the base rules and each
    rule variant; rungs must rise in strength as listed (the skill-depth count assumes it)."""
    label = _label(table.get("entrant"), labels, at, "entrant")
    param, values = table.get("param"), table.get("values")
    if not isinstance(param, str) or not param:
        raise ConfigError(f"{at}param must name one of the entrant's params, such as \"rollouts\", got {param!r}")
    if not isinstance(values, list) or len(values) < 2:
        raise ConfigError(f"{at}values must list at least two settings of {param}, weakest first, got {values!r}")
    rules = [Variant(BASE), *rule_variants]
    for v in rule_variants:
        if v.name == BASE:
            raise ConfigError(f"{at}a rule variant may not be named {BASE!r}: the ladder is always climbed under "
                              f"the base rules too")
    for v in rules:
        if v.entrants or v.deals or v.table_size:
            raise ConfigError(f"{at}rule variant {v.name!r}: the ladder's variants change rules only")
    return [Variant(f"ladder.{v.name}.{param}-{value}", rules=v.rules, entrants={label: {"params": {param: value}}},
                    deals=_deals(table, at)) for v in rules for value in values]

__all__ = ["BASE", "load_balance", "parse_balance"]
