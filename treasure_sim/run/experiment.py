"""Experiment configs: TOML in, a validated frozen `Experiment` out, with errors that name what is wrong."""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..bots import loader
from ..bots.isolated import BotProcessError, handshake, python_command, split_command
from ..game.cards import format_card, is_joker, parse_card
from ..game.rules import RuleSet
from ..game.strategy import POWERS, Strategy
from . import provenance
from .schedule import deals_to_seat_everyone

DEFAULT_CONFIG = "default.toml"  # in treasure_sim/run/data, packaged with the wheel
TOP_KEYS = ("name", "seed", "deals", "table_size", "rotate", "decision_timeout", "untrusted", "entrants", "rules")
ENTRANT_KEYS = ("strategy", "params", "label", "isolate", "command", "memory_mb", "restrict", "treasures")
ROTATE = (True, False, "cycle")  # each deal in every rotation; once as seated; once, seats moved on a place a deal
DECISION_TIMEOUT = 10.0  # seconds a bot may think per decision unless the config says otherwise
TIMEOUT_RANGE = (0.001, 3600.0)  # a shorter limit is below the timer's resolution; a longer one is no limit at all
SCHEDULE_VERSION = 2  # bump when the same config would schedule different games (2: keyed-hash seeds)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class ConfigError(ValueError):
    """A bad experiment config; the message names the key, the value and what is allowed."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """One player of the tournament: a strategy spec and its constructor params (or a command to run), and a
    unique label. ``isolate``: the bot plays from its own process, through the line protocol."""

    label: str
    strategy: str
    params: dict[str, Any] = field(default_factory=dict)
    isolate: bool = False
    command: tuple[str, ...] = ()  # a program speaking the line protocol (implies isolate)
    memory_mb: int | None = None  # isolated only: the bot process's address-space limit
    restrict: tuple[str, ...] = ()  # powers (`POWERS`) this entrant may not use: restricted play (rulings §8)
    treasures: tuple[str, ...] = ()  # cards in this entrant's Treasure Zone when each game starts (an endowment)

    @property
    def process_command(self) -> tuple[str, ...]:
        """What runs this entrant when isolated: its command, or the Python host for its strategy."""
        return self.command or python_command(self.strategy, self.params)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"label": self.label, "strategy": self.strategy, "params": self.params}
        if self.isolate:
            data["isolate"] = True
        if self.command:
            data["command"] = list(self.command)
        if self.memory_mb is not None:
            data["memory_mb"] = self.memory_mb
        if self.restrict:
            data["restrict"] = list(self.restrict)
        if self.treasures:
            data["treasures"] = list(self.treasures)
        return data

    @property
    def params_json(self) -> str:
        """Canonical JSON of the params: the `params` column and part of the config fingerprint."""
        return json.dumps(self.params, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Experiment:
    """A validated tournament: who plays, how many deals, at which table size, under which rules."""

    name: str
    seed: int
    deals: int
    table_size: int
    rotate: bool | str  # True, False or "cycle" (ROTATE)
    entrants: tuple[Entrant, ...]
    rules: RuleSet = RuleSet()
    source: str = field(default="<memory>", compare=False)
    decision_timeout: float = DECISION_TIMEOUT
    untrusted: bool = False  # every entrant that is not a built-in bot plays isolated (already in ``entrants``)

    @property
    def rotations(self) -> int:
        """How often each deal is played: once per seat rotation, or once (``rotate`` false or "cycle")."""
        return self.table_size if self.rotate is True else 1

    @property
    def games(self) -> int:
        return self.deals * self.rotations

    def to_dict(self) -> dict[str, Any]:
        """The config as TOML would hold it, with the full RuleSet (for the manifest)."""
        return {
            "name": self.name, "seed": self.seed, "deals": self.deals, "table_size": self.table_size,
            "rotate": self.rotate, "decision_timeout": self.decision_timeout,
            **({"untrusted": True} if self.untrusted else {}),
            "entrants": [e.to_dict() for e in self.entrants], "rules": self.rules.to_dict(),
        }

    def code(self) -> dict[str, dict[str, Any]]:
        """Per entrant label, its source files and their hash (`provenance`): what the fingerprint covers of
        the bots' code."""
        return {e.label: provenance.code_record(e.strategy, e.command) for e in self.entrants}

    def record(self) -> dict[str, Any]:
        """The config as the manifest records it: `to_dict` and the entrants' `code`."""
        return self.to_dict() | {"code": self.code()}

    def fingerprint(self, *, code: bool = True) -> str:
        """A hash of everything that decides the games, except `deals` (more deals extend a run): the config
        and the source of every entrant's code (``code=False``: the config alone, as earlier versions
        hashed it, to recognise the folders they wrote).

        Two configs with the same fingerprint schedule identical games for every deal number,
        so a results folder may be resumed or extended only by a config with its fingerprint.
        """
        data = self.to_dict()
        del data["deals"], data["decision_timeout"]  # more deals extend; the time limit is how, not what
        data.pop("untrusted", None)  # what it changes is in the entrants (isolate)
        data["schedule_version"] = SCHEDULE_VERSION
        if code:
            data["code"] = {label: c["sha256"] for label, c in self.code().items()}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def replace(self, **changes: Any) -> Experiment:
        """A copy with command-line overrides (`deals`, `seed`), validated like the file."""
        data = self.to_dict() | {k: v for k, v in changes.items() if v is not None}
        return parse_experiment(data, self.source, check_strategies=False)


# ----- loading strategies (treasure_sim.bots.loader owns the registry; this only asks it) ----------------------
def load_strategy(spec: str, **params: Any) -> Strategy:
    """Build one bot from a spec (registry name, ``pkg.mod:Class`` or ``path/file.py:Class``)."""
    return loader.load_strategy(spec, **params)


def available_strategies() -> list[str]:
    try:
        return loader.available()
    except ValueError as err:  # a foreign 'strategies' package on sys.path, or two bots under one name
        raise ConfigError(str(err)) from err


# ----- parsing and validation ------------------------------------------------------------------------------
def read_toml(path: str | Path, what: str = "experiment") -> dict[str, Any]:
    """A TOML config file as a table; an unreadable file or bad TOML is a ConfigError naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot read {what} config {path}: {err.strerror or err}") from None
    return toml_table(text, str(path))


def toml_table(text: str, source: str = "<string>") -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: not valid TOML: {err}") from None


def load_experiment(path: str | Path, *, check_strategies: bool = True) -> Experiment:
    """Read and validate an experiment TOML file."""
    return parse_experiment(read_toml(path), str(path), check_strategies=check_strategies)


def default_experiment(*, check_strategies: bool = True) -> Experiment:
    """The embedded default: a round robin of the built-in bots (works from any folder)."""
    text = resources.files("treasure_sim.run").joinpath("data", DEFAULT_CONFIG).read_text(encoding="utf-8")
    return parse_toml(text, f"<embedded {DEFAULT_CONFIG}>", check_strategies=check_strategies)


def parse_toml(text: str, source: str = "<string>", *, check_strategies: bool = True) -> Experiment:
    return parse_experiment(toml_table(text, source), source, check_strategies=check_strategies)


def parse_experiment(data: dict[str, Any], source: str = "<memory>", *, check_strategies: bool = True) -> Experiment:
    """Validate a config table; with `check_strategies`, also build every bot once so load errors come now."""
    where = f"{source}: "
    check_keys(data, TOP_KEYS, where)
    name = check_name(data.get("name", "experiment"), f"{where}name", "results folder")
    seed = _int(data.get("seed", 0), "seed", 0, None, where)
    deals = _int(data.get("deals", 100), "deals", 1, None, where)
    table_size = _int(data.get("table_size", 4), "table_size", 2, 10, where)
    rotate = data.get("rotate", True)
    if not any(type(rotate) is type(r) and rotate == r for r in ROTATE):
        raise ConfigError(f"{where}rotate must be true (every seat rotation of each deal), false (one game per "
                          f"deal) or \"cycle\" (one game per deal, seats moved on one place a deal), got {rotate!r}")
    timeout = data.get("decision_timeout", DECISION_TIMEOUT)
    low, high = TIMEOUT_RANGE
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not low <= timeout <= high:
        raise ConfigError(f"{where}decision_timeout must be a number of seconds from {low:g} to {high:g} (an hour "
                          f"per decision), got {timeout!r}")
    untrusted = data.get("untrusted", False)
    if not isinstance(untrusted, bool):
        raise ConfigError(f"{where}untrusted must be true (every entrant that is not a built-in bot plays isolated) "
                          f"or false, got {untrusted!r}")
    try:
        rules = RuleSet.from_dict(data.get("rules", {}))
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{where}[rules]: {err}") from None
    for problem in rules.playability_problems():
        raise ConfigError(f"{where}[rules]: {problem}")
    entrants = _entrants(data.get("entrants"), where, untrusted)
    _check_treasures(entrants, rules, where)
    needed = deals_to_seat_everyone(len(entrants), table_size)
    if deals < needed:
        raise ConfigError(f"{where}deals = {deals} leaves entrants without a seat: with {len(entrants)} entrants at "
                          f"{table_size}-seat tables every entrant sits only from {needed} deals on (the round-robin "
                          f"cycle); ask for at least {needed}")
    if check_strategies:
        check_loadable(entrants, where)
    return Experiment(name, seed, deals, table_size, rotate, entrants, rules, source, float(timeout), untrusted)


def check_name(name: Any, what: str, names: str) -> str:
    """A name that becomes a folder: letters, digits, '.', '_' or '-'; else a ConfigError saying ``what``."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(f"{what} must be a word of letters, digits, '.', '_' or '-' (it names the {names}), "
                          f"got {name!r}")
    return name


def check_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}unknown key {key!r}{hint}; allowed: {', '.join(allowed)}")


def _int(value: Any, name: str, low: int, high: int | None, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(f"{where}{name} must be a whole number {allowed}, got {value!r}")
    return value


def _entrants(raw: Any, where: str, untrusted: bool = False) -> tuple[Entrant, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}entrants must be a non-empty array of tables ([[entrants]] with "
                          f"strategy = \"...\"), got {raw!r}")
    parsed = [_entrant(item, f"{where}entrants[{i}]: ", untrusted) for i, item in enumerate(raw)]
    explicit = [e.label for e in parsed if e.label]
    for lab in explicit:
        if explicit.count(lab) > 1:
            raise ConfigError(f"{where}label {lab!r} is given to {explicit.count(lab)} entrants; labels must differ")
    used = set(explicit)
    entrants = []
    for e in parsed:
        if not e.label:
            e = dataclasses.replace(e, label=_unique(_default_label(e.strategy or _command_name(e.command)), used))
            used.add(e.label)
        entrants.append(e)
    return tuple(entrants)


def _entrant(item: Any, at: str, untrusted: bool = False) -> Entrant:
    """One [[entrants]] table, checked; the label is empty when the config gives none. ``untrusted``: a bot
    that is not built in plays isolated, whatever its ``isolate`` says."""
    if not isinstance(item, dict):
        raise ConfigError(f"{at}must be a table with keys {', '.join(ENTRANT_KEYS)}, got {item!r}")
    check_keys(item, ENTRANT_KEYS, at)
    command = item.get("command")
    if command is not None:
        if isinstance(command, str):
            command = split_command(command)
        if not isinstance(command, list | tuple) or not command or not all(isinstance(c, str) and c for c in command):
            raise ConfigError(f"{at}command must be a program and its arguments, such as [\"python3\", "
                              f"\"my_bot.py\"], got {command!r}")
        if item.get("strategy") or item.get("params"):  # to_dict writes them empty for a command
            raise ConfigError(f"{at}give either strategy (a Python bot, with params) or command (a program "
                              f"speaking the line protocol), not both")
    spec = item.get("strategy", "")
    if command is None and (not isinstance(spec, str) or not spec.strip()):
        raise ConfigError(f"{at}strategy must be a name (see `available strategies` below), "
                          f"'pkg.module:Class' or 'path/file.py:Class'; got {spec or None!r}")
    params = item.get("params", {})
    if not isinstance(params, dict):
        raise ConfigError(f"{at}params must be a table such as {{ rollouts = 200 }}, got {params!r}")
    try:
        json.dumps(params)
    except (TypeError, ValueError):
        raise ConfigError(f"{at}params must hold only numbers, strings, booleans, arrays and tables; "
                          f"got {params!r}") from None
    label = item.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise ConfigError(f"{at}label must be a non-empty string, got {label!r}")
    isolate = item.get("isolate", command is not None)
    if not isinstance(isolate, bool) or (command is not None and not isolate):
        raise ConfigError(f"{at}isolate must be true or false (a command always runs isolated), got {isolate!r}")
    if untrusted and isinstance(spec, str) and not provenance.is_builtin(spec):
        isolate = True
    memory = item.get("memory_mb")
    if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory < 16):
        raise ConfigError(f"{at}memory_mb must be a whole number of megabytes >= 16, got {memory!r}")
    if memory is not None and not isolate:
        raise ConfigError(f"{at}memory_mb limits an isolated bot's process: add isolate = true")
    return Entrant(label or "", spec.strip(), params, isolate, tuple(command or ()), memory,
                   _restrict(item.get("restrict", []), at), _treasure_cards(item.get("treasures", []), at))


def _restrict(value: Any, at: str) -> tuple[str, ...]:
    """The ``restrict`` key: a subset of `POWERS`, kept in that order."""
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise ConfigError(f"{at}restrict must be an array of powers from {', '.join(POWERS)}, got {value!r}")
    for p in value:
        if p not in POWERS:
            close = difflib.get_close_matches(p, POWERS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{at}restrict: unknown power {p!r}{hint}; powers: {', '.join(POWERS)}")
    return tuple(p for p in POWERS if p in value)


def _treasure_cards(value: Any, at: str) -> tuple[str, ...]:
    """The ``treasures`` key: distinct cards such as ["Kc", "7h"] (no Jokers), in canonical spelling."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ConfigError(f"{at}treasures must be an array of cards such as [\"Kc\", \"7h\"], got {value!r}")
    names = []
    for token in value:
        try:
            card = parse_card(token)
        except ValueError as err:
            raise ConfigError(f"{at}treasures: {err}") from None
        if is_joker(card):
            raise ConfigError(f"{at}treasures: {token!r} is a Joker; Jokers never enter a Treasure Zone")
        names.append(format_card(card))
    for name in names:
        if names.count(name) > 1:
            raise ConfigError(f"{at}treasures lists {name} twice")
    return tuple(names)


def _check_treasures(entrants: tuple[Entrant, ...], rules: RuleSet, where: str) -> None:
    """Starting Treasures must fit the zone limit and may not be promised to two entrants of one table."""
    holders: dict[str, str] = {}
    for e in entrants:
        if rules.zone_limit and len(e.treasures) > rules.zone_limit:
            raise ConfigError(f"{where}entrant {e.label!r}: {len(e.treasures)} starting treasures, more than "
                              f"[rules] zone_limit = {rules.zone_limit}")
        for card in e.treasures:
            if card in holders:
                raise ConfigError(f"{where}{card} is a starting treasure of both {holders[card]!r} and {e.label!r}; "
                                  f"a card can be in one zone only")
            holders[card] = e.label


def _command_name(command: tuple[str, ...]) -> str:
    """A label for a command: its script's name (``line_bot`` for ``python3 bots/line_bot.py``), else the program."""
    for part in reversed(command):
        if "/" in part or "." in part:
            name = part.rsplit("/", 1)[-1].split(".", 1)[0]
            if name:
                return name
    return command[0].rsplit("/", 1)[-1]


def _default_label(spec: str) -> str:
    """A registry name labels itself; ``x.py:Class`` and ``pkg.mod:Class`` are labelled ``Class``."""
    return spec.rsplit(":", 1)[-1] if ":" in spec else spec


def _unique(label: str, used: set[str]) -> str:
    if label not in used:
        return label
    n = 2
    while f"{label}-{n}" in used:
        n += 1
    return f"{label}-{n}"


def check_loadable(entrants: tuple[Entrant, ...], where: str) -> None:
    """Build each bot once now (an isolated one: start it and shake hands): a bot that cannot load is a
    config error, not a crash mid-run."""
    for i, e in enumerate(entrants):
        at = f"{where}entrants[{i}] ({e.label}): "
        if e.strategy.isidentifier():  # a registry name: suggest the nearest one
            names = available_strategies()
            if e.strategy not in names:
                close = difflib.get_close_matches(e.strategy, names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(f"{at}unknown strategy {e.strategy!r}{hint}; available: {', '.join(names)}; "
                                  f"or give 'package.module:Class' or 'path/to/file.py:Class'")
        if e.isolate:  # never run untrusted code in this process, not even its import or constructor
            try:
                handshake(e.process_command, e.memory_mb)
            except BotProcessError as err:
                raise ConfigError(f"{at}the isolated bot ({' '.join(e.process_command)}) {err}") from None
            continue
        try:
            bot = load_strategy(e.strategy, **e.params)
        except Exception as err:
            detail = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
            raise ConfigError(f"{at}strategy {e.strategy!r} failed to load: {detail}") from None
        if not isinstance(bot, Strategy):
            raise ConfigError(f"{at}strategy {e.strategy!r} built a {type(bot).__name__}, "
                              f"not a treasure_sim.Strategy")


__all__ = [
    "ConfigError",
    "Entrant",
    "Experiment",
    "default_experiment",
    "load_experiment",
    "load_strategy",
    "parse_experiment",
    "parse_toml",
]
