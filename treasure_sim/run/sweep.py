"""Sweep configs: one experiment played under several rule variants with the same seeds, one results folder each.

A sweep config is an experiment TOML (name, seed, deals, table_size, rotate, [[entrants]], [rules]) plus
the variants, either as a grid of RuleSet fields (and ``table_size``) or as a list of named variants::

    [sweep]                       # every combination: 3 x 2 = 6 variants named jokers-0_clubs-true, ...
    jokers = [0, 1, 2]
    clubs = [true, false]

    [[variants]]                  # or (and) named variants, each overriding the base rules
    name = "no-clubs"
    rules = { clubs = false }

Every variant plays the same entrants with the same seed, so deal ``d`` is shuffled from the same seed in
each (common random numbers): the first hole cards agree in every variant that deals the same deck to the
same seats, and paired differences by ``deal_id`` are valid (and much tighter) in all of them.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from itertools import product
from pathlib import Path
from typing import Any

from ..game.rules import RuleSet
from .experiment import (
    TOP_KEYS,
    ConfigError,
    Experiment,
    check_keys,
    check_loadable,
    check_name,
    parse_experiment,
    read_toml,
    toml_table,
)

DEFAULT_SWEEP = "sweep.toml"  # in treasure_sim/run/data, packaged with the wheel
SWEEP_KEYS = ("sweep", "variants", "baseline")  # top-level keys a sweep adds to an experiment config
VARIANT_KEYS = ("name", "rules", "table_size", "entrants", "deals")
ENTRANT_CHANGES = ("params", "restrict", "treasures")  # what a variant may change of an entrant, by label
AXES = (*RuleSet.fields(), "table_size")
MAX_VARIANTS = 1_000  # a sweep is a results folder per variant: beyond this, search with `treasure-sim tune`


@dataclass(frozen=True, slots=True)
class Variant:
    """A named change to the base experiment: RuleSet overrides and, optionally, another table size, changes
    to entrants (by label: ``params`` merged into theirs, ``restrict`` and ``treasures`` replaced) and at most
    ``deals`` deals (fewer if the base has fewer; the first deals of the base, so pairing by deal holds)."""

    name: str
    rules: dict[str, Any] = field(default_factory=dict)
    table_size: int | None = None
    entrants: dict[str, dict[str, Any]] = field(default_factory=dict)
    deals: int | None = None

    def changes(self) -> dict[str, Any]:
        """What this variant sets, as the config would write it (``{}`` for the base itself)."""
        return self.rules | {k: v for k, v in (("table_size", self.table_size), ("entrants", self.entrants),
                                               ("deals", self.deals)) if v}

    def describe(self) -> str:
        parts = [f"{k} = {_toml_value(v)}" for k, v in self.changes().items() if k not in ("entrants", "deals")]
        parts += [f"{label}: " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in change.items())
                  for label, change in self.entrants.items()]
        parts += [f"{self.deals} deals"] if self.deals else []
        return "; ".join(parts) or "the base rules"


@dataclass(frozen=True, slots=True)
class Sweep:
    """A validated sweep: the base experiment, its variants (in order) and the one the others are compared to."""

    base: Experiment
    variants: tuple[Variant, ...]
    baseline: str

    @property
    def name(self) -> str:
        return self.base.name

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"no variant {name!r}; variants: {', '.join(v.name for v in self.variants)}")

    def experiment(self, variant: Variant) -> Experiment:
        """The variant as a normal experiment named ``<sweep>.<variant>``: same entrants, seed and deals."""
        return variant_experiment(self.base, variant)

    def same_games(self) -> dict[str, str]:
        """Variants whose games are the first deals of an earlier variant's: name -> that variant's name.

        Same seed, rules, table, entrants and rotation: the games of deal ``d`` are identical (the experiment's
        name only labels rows), so a balance study's ladder rung that is the base itself is not played twice.
        """
        seen: list[tuple[str, dict[str, Any], int]] = []
        out: dict[str, str] = {}
        for v in self.variants:
            e = self.experiment(v)
            what = {k: x for k, x in e.to_dict().items() if k not in ("name", "deals", "decision_timeout")}
            earlier = next((name for name, w, deals in seen if w == what and deals >= e.deals), None)
            if earlier is None:
                seen.append((v.name, what, e.deals))
            else:
                out[v.name] = earlier
        return out

    def fingerprint(self, *, code: bool = True) -> str:
        """A hash of every variant's experiment fingerprint (which leaves out ``deals``: more deals extend; with
        ``code=False``, the bots' code too, as earlier versions made it)."""
        data = {"baseline": self.baseline, "variants": [[v.name, self.experiment(v).fingerprint(code=code)]
                                                        for v in self.variants]}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def replace(self, **changes: Any) -> Sweep:
        """A copy with command-line overrides of the base (``deals``, ``seed``)."""
        return Sweep(self.base.replace(**changes), self.variants, self.baseline)


# ----- parsing ---------------------------------------------------------------------------------------------
def load_sweep(path: str | Path, *, check_strategies: bool = True) -> Sweep:
    """Read and validate a sweep TOML file."""
    return parse_sweep(read_toml(path, "sweep"), str(path), check_strategies=check_strategies)


def default_sweep(*, check_strategies: bool = True) -> Sweep:
    """The embedded default: the built-in bots under the baseline and one variant per rule a designer flips."""
    text = resources.files("treasure_sim.run").joinpath("data", DEFAULT_SWEEP).read_text(encoding="utf-8")
    return parse_sweep_toml(text, f"<embedded {DEFAULT_SWEEP}>", check_strategies=check_strategies)


def parse_sweep_toml(text: str, source: str = "<string>", *, check_strategies: bool = True) -> Sweep:
    return parse_sweep(toml_table(text, source), source, check_strategies=check_strategies)


def parse_sweep(data: dict[str, Any], source: str = "<memory>", *, check_strategies: bool = True) -> Sweep:
    """Validate a sweep table; every variant is built once here so a bad value is named before any game."""
    where = f"{source}: "
    check_keys(data, (*TOP_KEYS, *SWEEP_KEYS), where)
    data = dict(data)
    grid, listed, baseline = data.pop("sweep", None), data.pop("variants", None), data.pop("baseline", None)
    base = parse_experiment(data, source, check_strategies=check_strategies)
    if grid is None and listed is None:
        raise ConfigError(f"{where}no variants: give a grid ([sweep] with e.g. jokers = [0, 1, 2]) or named "
                          f"variants ([[variants]] with name = \"...\" and rules = {{ ... }}), or both")
    variants = (grid_variants(grid, where) if grid is not None else []) + \
        (listed_variants(listed, where) if listed is not None else [])
    if len(variants) > MAX_VARIANTS:
        raise ConfigError(f"{where}{len(variants):,} variants, more than the {MAX_VARIANTS:,} a sweep allows (a "
                          f"results folder each); give fewer, or search them with `treasure-sim tune`")
    names = [v.name for v in variants]
    for name in dict.fromkeys(names):
        if names.count(name) > 1:
            raise ConfigError(f"{where}variant name {name!r} is used {names.count(name)} times; names must differ "
                              f"(each names a results folder)")
    experiments = [_build(base, v, where, check_strategies) for v in variants]
    if baseline is None:  # the variant that plays the base itself, else the first
        same = [v.name for v, e in zip(variants, experiments, strict=True)
                if (e.rules, e.table_size, e.entrants, e.deals) == (base.rules, base.table_size, base.entrants,
                                                                     base.deals)]
        baseline = same[0] if same else names[0]
    elif baseline not in names:
        close = difflib.get_close_matches(str(baseline), names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"{where}baseline {baseline!r} is not a variant{hint}; variants: {', '.join(names)}")
    return Sweep(base, tuple(variants), baseline)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml_value, value)) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value) if isinstance(value, str) else str(value)


def _axis_word(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def grid_variants(grid: Any, where: str, limit: int = MAX_VARIANTS, what: str = "variants") -> list[Variant]:
    """Every combination of the [sweep] axes, named ``axis-value_axis-value``; counted before any is built, and
    refused in one line above ``limit`` (9 axes of 10 values would be 10**9 of them)."""
    if not isinstance(grid, dict) or not grid:
        raise ConfigError(f"{where}[sweep] is empty: give at least one axis such as jokers = [0, 1, 2]; "
                          f"axes: {', '.join(AXES)}")
    for key, values in grid.items():
        if key not in AXES:
            close = difflib.get_close_matches(key, AXES, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}[sweep]: unknown axis {key!r}{hint}; allowed: the RuleSet fields "
                              f"{', '.join(RuleSet.fields())}, and table_size")
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{where}[sweep].{key} must be a non-empty array of values such as "
                              f"{key} = [a, b]; got {values!r}")
    size = math.prod(len(values) for values in grid.values())
    if size > limit:
        sizes = " x ".join(f"{len(values)} {key}" for key, values in grid.items())
        raise ConfigError(f"{where}the grid has {size:,} combinations ({sizes}), more than the {limit:,} {what} "
                          f"allowed; give fewer values or axes" + (", or search it with `treasure-sim tune`"
                                                                   if what == "variants" else ""))
    for key, values in grid.items():
        for v in values:
            if sum(type(v) is type(w) and v == w for w in values) > 1:
                raise ConfigError(f"{where}[sweep].{key} lists {_toml_value(v)} more than once")
    variants = []
    for combo in product(*grid.values()):
        changes = dict(zip(grid, combo, strict=True))
        name = "_".join(f"{k}-{_axis_word(v)}" for k, v in changes.items())
        table_size = changes.pop("table_size", None)
        name = check_name(name, f"{where}[sweep]: variant name", "variant's results folder")
        variants.append(Variant(name, changes, table_size))
    return variants


def listed_variants(listed: Any, where: str) -> list[Variant]:
    if not isinstance(listed, list) or not listed:
        raise ConfigError(f"{where}variants must be a non-empty array of tables ([[variants]] with name and "
                          f"rules), got {listed!r}")
    variants = []
    for i, item in enumerate(listed):
        at = f"{where}variants[{i}]: "
        if not isinstance(item, dict):
            raise ConfigError(f"{at}must be a table with keys {', '.join(VARIANT_KEYS)}, got {item!r}")
        check_keys(item, VARIANT_KEYS, at)
        rules = item.get("rules", {})
        if not isinstance(rules, dict):
            raise ConfigError(f"{at}rules must be a table of RuleSet fields such as {{ clubs = false }}, "
                              f"got {rules!r}")
        name = check_name(item.get("name"), f"{at}variant name", "variant's results folder")
        deals = item.get("deals")
        if deals is not None and (isinstance(deals, bool) or not isinstance(deals, int) or deals < 1):
            raise ConfigError(f"{at}deals must be a whole number >= 1 (at most that many of the base's deals), "
                              f"got {deals!r}")
        variants.append(Variant(name, dict(rules), item.get("table_size"), entrant_changes(item.get("entrants", {}),
                                                                                           at), deals))
    return variants


def entrant_changes(raw: Any, at: str) -> dict[str, dict[str, Any]]:
    """A variant's ``entrants`` table: ``{ label = { params = {...}, restrict = [...], treasures = [...] } }``."""
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise ConfigError(f"{at}entrants must be a table of entrant labels, each with a table of changes such as "
                          f"{{ equity = {{ restrict = [\"clubs\"] }} }}, got {raw!r}")
    for label, change in raw.items():
        check_keys(change, ENTRANT_CHANGES, f"{at}entrants.{label}: ")
        if not isinstance(change.get("params", {}), dict):
            raise ConfigError(f"{at}entrants.{label}: params must be a table such as {{ rollouts = 300 }}, "
                              f"got {change['params']!r}")
    return {label: dict(change) for label, change in raw.items()}


def variant_experiment(base: Experiment, variant: Variant) -> Experiment:
    """``base`` with the variant's rules, table size, entrants and deals, named ``<base>.<variant>``; validated
    like a config (an unknown entrant label is a ConfigError naming the labels)."""
    entrants = [e.to_dict() for e in base.entrants]
    labels = [e["label"] for e in entrants]
    for label, change in variant.entrants.items():
        if label not in labels:
            close = difflib.get_close_matches(label, labels, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"entrants: no entrant labelled {label!r}{hint}; labels: {', '.join(labels)}")
        entry = entrants[labels.index(label)]
        entry.update({k: v for k, v in change.items() if k != "params"})
        if "params" in change:
            entry["params"] = entry["params"] | change["params"]
    deals = min(base.deals, variant.deals) if variant.deals else None
    return base.replace(name=f"{base.name}.{variant.name}", table_size=variant.table_size,
                        rules=base.rules.to_dict() | variant.rules, entrants=entrants, deals=deals)


def _build(base: Experiment, variant: Variant, where: str, check_strategies: bool = False) -> Experiment:
    """The variant's experiment, or a ConfigError naming the variant and the bad field (with
    ``check_strategies``, every entrant whose params the variant changes is built once too)."""
    at = f"{where}variant {variant.name!r}: "
    try:
        base.rules.replace(**variant.rules)
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{at}{err}") from None
    try:
        exp = variant_experiment(base, variant)
    except ConfigError as err:
        raise ConfigError(at + str(err).removeprefix(f"{base.source}: ")) from None
    if check_strategies:
        check_loadable(tuple(e for e in exp.entrants if "params" in variant.entrants.get(e.label, {})), at)
    return exp


__all__ = ["Sweep", "Variant", "default_sweep", "load_sweep", "parse_sweep", "parse_sweep_toml", "variant_experiment"]
