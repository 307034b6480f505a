"""Tampering caught where it is cheap to catch: after every hand, the engine checks its own state and its code
(where nothing can tamper: at every 16th hand and at the game's end).

An in-process bot runs in the engine's interpreter: through ``gc`` or ``sys._getframe`` it can reach the table
and change it, or replace a function of the engine. Nothing in-process can stop that (isolate a bot you do not
trust: ``docs/protocol.md``), but the engine notices what such tampering leaves behind. After every hand
(`check_hand`, one call as the driver keeps a hand's record; but see ``watch_code`` below):

- **chips**: every stack is a whole number >= 0; the chips on the table are the chips the game started with;
  each seat's stack is its stack before the hand, less what it put in, plus what the pots paid it;
- **cards**: the cards in zones, out of the game and outside the zones are the deck exactly, each once; the deck
  and the cards dealt this hand are distinct cards outside the zones; every shown score is a real score;
- **code**: the showdown's scoring function is the one loaded, with its code; and a 64th of the engine's own
  functions, classes and tables (`WATCHED`), in turn, are the objects it loaded with the code they were loaded
  with, and no name was added to their namespaces (which would hide a base class's method or a builtin) (all of
  them every 64 hands; `engine_tampered` checks all at once, and the functions' defaults, as a
  tournament does after every game); the evaluator's tables cannot be changed in place (tuples, read-only
  arrays). The code is watched unless the game says no outside code could have changed it (``Game.watch_code``:
  a tournament process that has loaded no bot from outside the ``strategies`` package).

Where no code but ours has run (``watch_code`` off), nothing can tamper: the chips and cards are then checked at the
first hand and every `TRUSTED_EVERY`-th after it (hands 1, 17, 33, ...) and once the game is over (`check_game_end`),
a tripwire for an engine bug (a lost chip or card stays lost, so the next check finds it), instead of after every
hand (7% of the instructions of a tournament task of four random bots, cachegrind).

A violation raises `Tampering` (a `StrategyError`), naming the seat whose stack is wrong or else the seat whose
turn it was last in the hand; the tournament voids the game and names the entrant, and a strict run stops.
Costs 13–18 µs per hand of four mixed bots (``treasure-sim bench engine``, its integrity line).
"""

from __future__ import annotations

import sys
from importlib import import_module
from itertools import chain
from operator import attrgetter, is_not, itemgetter, sub
from types import FunctionType, MappingProxyType
from typing import TYPE_CHECKING, Any

from .seats import StrategyError

if TYPE_CHECKING:
    from ..game.history import HandRecord
    from ..game.state import Hand
    from .driver import Game

__all__ = ["Tampering", "check_game_end", "check_hand", "engine_tampered"]

WATCHED = MappingProxyType({
    "game": ("gamestate", "questions", "betting_steps", "treasure_steps", "evaluator", "_eval_tables", "betting",
             "powers", "state", "observe", "answers", "history", "cards", "strategy", "rules", "seeding", "scenario",
             "resample"),
    "bots": ("driver", "seats", "timeouts", "integrity")})
"""The modules of ``treasure_sim.game`` and ``treasure_sim.bots`` whose globals (and the methods of the classes they
define) are watched: the rules and the code that asks bots."""
_ROOT = __package__.rpartition(".")[0]  # treasure_sim
MAX_SCORE = 1 << 24  # every evaluator score is below (category << 20, ten categories)
TRUSTED_EVERY = 16
"""With ``Game.watch_code`` off (only our code in the process), the chips and cards are checked at hands 1, 17, 33..."""


class Tampering(StrategyError):
    """The engine's state or code was changed behind its back (``seat``: the seat named, or None)."""

    def __init__(self, message: str, seat: int | None, exact: bool = False) -> None:
        super().__init__(message)
        self.seat = seat
        self.exact = exact  # the seat's own stack is wrong (else: only whose turn it was last)


_code = attrgetter("__code__")
_defaults = attrgetter("__defaults__")
_kwdefaults = attrgetter("__kwdefaults__")


SLICES = 64
"""The watched objects are checked a 64th at a time, one slice per hand (all of them every 64 hands; a tournament
that watches the code checks all of them after every game, `engine_tampered`), the showdown's scoring function at
every hand: checking every one of them after every hand would cost more than a hand."""


def _functions_in(value: Any) -> list[FunctionType]:
    """The plain functions behind a watched value: itself, a class- or static method's function, a property's
    accessors, or the function a wrapper (``functools.lru_cache``, ``wraps``) calls; their code is watched too."""
    if type(value) is FunctionType:
        return [value]
    inner: list[Any]
    if isinstance(value, classmethod | staticmethod):
        inner = [value.__func__]
    elif isinstance(value, property):
        inner = [value.fget, value.fset, value.fdel]
    elif callable(value) and not isinstance(value, type):
        inner = [getattr(value, "__wrapped__", None)]
    else:
        return []
    return [f for f in inner if type(f) is FunctionType]


_ADDED_BY_PYTHON = frozenset({"__annotations__", "__annotations_cache__", "__annotate_func__", "__slotnames__",
                              "__warningregistry__"})
"""Names Python itself adds to a namespace as it runs: annotations read for the first time (3.14 caches them under
the two other names), a slotted class's slot names cached by ``copy`` and ``pickle``, a module's record of the
warnings its code gave."""


class _Slice:
    """Some watched names, per namespace: its name, the namespace, an itemgetter of the names, the values as loaded,
    an itemgetter of every name it had and those names, and which names Python may still add (`_ADDED_BY_PYTHON`):
    any other name added to a class hides its bases' one, to a module a builtin. Some functions with their code and
    defaults as loaded. The read-only tables among the values (`MappingProxyType`: the dict behind one can still be
    reached through ``gc``), with their keys and values as loaded."""

    __slots__ = ("codes", "defaults", "functions", "kwdefaults", "spaces", "tables")

    def __init__(self, entries: list[tuple[str, Any, str, Any]]) -> None:
        by_space: dict[int, tuple[str, Any, list[str]]] = {}
        for where, space, key, _ in entries:
            by_space.setdefault(id(space), (where, space, []))[2].append(key)
        self.spaces = tuple((where, space, keys, itemgetter(*keys), tuple(space[k] for k in keys),
                             itemgetter(*space), frozenset(space), tuple(_ADDED_BY_PYTHON - space.keys()))
                            for where, space, keys in by_space.values())
        self.functions = tuple(chain.from_iterable(_functions_in(v) for *_, v in entries))
        self.codes = tuple(map(_code, self.functions))
        self.defaults = tuple(map(_defaults, self.functions))  # the same objects each time they are read
        self.kwdefaults = tuple(map(_kwdefaults, self.functions))
        tables = [(f"{where}.{key}", v) for where, _, key, v in entries if type(v) is MappingProxyType]
        for name, table in tables:  # a table of tables: each watched (history._SILENT_DEFAULTS)
            tables.extend((f"{name}[{k!r}]", v) for k, v in table.items() if type(v) is MappingProxyType)
        self.tables = tuple((name, t, tuple(t), tuple(t.values())) for name, t in tables)

    def problem(self, every: bool = False) -> str | None:
        """What was replaced, or None; ``every``: the functions' defaults too."""
        for where, space, keys, get, values, get_all, loaded, may_add in self.spaces:
            try:
                now = get(space)
                get_all(space)
            except KeyError as err:
                return f"{where}.{err.args[0]} was deleted"
            if len(space) != len(loaded) + sum(map(space.__contains__, may_add)):  # every old name is there
                return f"{where}.{min(set(space) - loaded - _ADDED_BY_PYTHON)} was added"
            if len(keys) == 1:
                now = (now,)
            if any(map(is_not, now, values)):
                for key, was, new in zip(keys, values, now, strict=True):
                    if new is not was:
                        return f"{where}.{key} was replaced"
        for name, table, loaded_keys, loaded_values in self.tables:
            if len(table) != len(loaded_keys) or any(map(is_not, table, loaded_keys)) or any(
                    map(is_not, table.values(), loaded_values)):
                return f"the table {name} was changed"
        if any(map(is_not, map(_code, self.functions), self.codes)):
            for f, code in zip(self.functions, self.codes, strict=True):
                if f.__code__ is not code:
                    return f"the code of {f.__module__}.{f.__qualname__} was replaced"
        if every and (any(map(is_not, map(_defaults, self.functions), self.defaults))
                      or any(map(is_not, map(_kwdefaults, self.functions), self.kwdefaults))):
            return "the defaults of an engine function were replaced"
        return None


class _Snapshot:
    """The watched objects as loaded (`WATCHED`), in `SLICES` slices, and the evaluator's scoring code and tables."""

    def __init__(self) -> None:
        entries: list[tuple[str, Any, str, Any]] = []
        for name, layer in ((name, layer) for layer, names in WATCHED.items() for name in names):
            module = import_module(f"{_ROOT}.{layer}.{name}")  # loaded now if nothing has yet (resample: on demand)
            self._watch(name, vars(module), entries)
            for value in list(vars(module).values()):
                if isinstance(value, type) and value.__module__ == module.__name__:
                    self._watch(f"{name}.{value.__name__}", value.__dict__, entries)
        size = -(-len(entries) // SLICES)  # contiguous: each slice reads few namespaces
        self.slices = tuple(_Slice(entries[i * size:(i + 1) * size]) for i in range(SLICES))
        evaluator = sys.modules[f"{_ROOT}.game.evaluator"]
        self.evaluator = vars(evaluator)
        self.score_rows: Any = evaluator.score_rows  # the showdown's scoring: checked after every hand
        self.score_code = evaluator.score_rows.__code__
        self.tables = tuple(evaluator._T.values())
        for table in self.tables:  # the batch evaluator's tables: read-only from here on
            table.flags.writeable = False
        self.lookups = evaluator._L  # the engine's scoring tables: tuples, so only replacing one changes them
        self.lookup_values = tuple(self.lookups.values())

    @staticmethod
    def _watch(where: str, space: Any, entries: list[tuple[str, Any, str, Any]]) -> None:
        for key, value in list(space.items()):
            if key.startswith("__") and not isinstance(value, FunctionType):
                continue  # docstrings, __dict__ descriptors, the module's own bookkeeping
            if isinstance(value, list | dict | set) and key != "_L":
                continue  # mutable state (caches, registries) is not code
            entries.append((where, space, key, value))

    def problem(self, hand_no: int = 0, every: bool = False) -> str | None:
        """What was replaced since the snapshot, or None: the scoring code and this hand's slice (or ``every``)."""
        score_rows = self.score_rows
        if score_rows.__code__ is not self.score_code or self.evaluator.get("score_rows") is not score_rows:
            return "evaluator.score_rows was replaced"
        for part in self.slices if every else (self.slices[hand_no % SLICES],):
            problem = part.problem(every)
            if problem is not None:
                return problem
        if every or hand_no % SLICES == 0:
            if len(self.lookups) != len(self.lookup_values) or any(map(is_not, self.lookups.values(),
                                                                       self.lookup_values)):
                return "the evaluator's scoring tables were replaced"
            if any(t.flags.writeable for t in self.tables):
                return "the evaluator's batch tables were made writable"
        return None


_SNAPSHOT: list[_Snapshot] = []


def watch() -> None:
    """Take the snapshot of the engine as loaded (called once, when ``driver.py`` has been imported: before any bot
    code can run)."""
    if not _SNAPSHOT:
        _SNAPSHOT.append(_Snapshot())


def _snapshot() -> _Snapshot:
    watch()
    return _SNAPSHOT[0]


def engine_tampered() -> str | None:
    """What of the engine's code was replaced since it was loaded, or None (every watched object: a check for after
    a crash too)."""
    return _snapshot().problem(every=True)


def _last_seat(h: Hand | HandRecord) -> int | None:
    """The seat whose turn it was last in the hand (or its record): the last thief, else the last to bet or fold, else
    the hand's first seat."""
    if h.steals:
        return h.steals[-1].seat
    if h.actions:
        return h.actions[-1].seat
    order = getattr(h, "order", None)  # a record has none
    return order[0] if order else None


def _tampered(game: Game, seat: int | None, where: str, problem: str, exact: bool = False) -> Tampering:
    """The error naming ``seat`` (or "?") and its bot, ``where`` in the game, and the problem found."""
    label = game.seats[seat].label if seat is not None else "?"
    return Tampering(f"seat {'?' if seat is None else seat} ({label}): {where}: integrity: {problem}", seat, exact)


def check_hand(game: Game, h: Hand, record: HandRecord) -> None:
    """After a hand's record: chips, cards and (unless every bot at the table is trusted code, ``game.watch_code``)
    the engine's code as they must be; `Tampering` if not. Without ``game.watch_code``, only at every
    `TRUSTED_EVERY`-th hand (the first included)."""
    t = game.table
    if not game.watch_code and t.hand_no % TRUSTED_EVERY != 1:
        return  # nothing here can tamper: a tripwire for engine bugs at every TRUSTED_EVERY-th hand is enough
    state = game.__dict__.get("_integrity")
    if state is None:  # the first hand: the chips and cards the game has
        deck = sorted(frozenset(t.full_deck))  # every card id, in order
        state = game.__dict__["_integrity"] = (sum(h.start_money), deck, frozenset(deck),
                                               _snapshot() if game.watch_code else None)
    total, deck, deck_set, snapshot = state
    problem, seat = _chips(t.money, h, total)
    exact = seat is not None
    if problem is None:
        problem = _cards(t, h, deck, deck_set) or (snapshot.problem(t.hand_no) if snapshot is not None else None)
        seat = None if problem is None else _last_seat(h)
    if problem is not None:
        raise _tampered(game, seat, f"hand {t.hand_no}", problem, exact)


def check_game_end(game: Game) -> None:
    """When the game is over: the chips on the table and the cards as they must be (a lost or made chip or card stays
    so: this finds what the checks of the last hands would have, where only every `TRUSTED_EVERY`-th was checked);
    `Tampering` if not, naming the seat whose turn it was last. Nothing to compare with if no hand was checked."""
    state = game.__dict__.get("_integrity")
    if state is None:
        return
    total, deck, _, _ = state
    t = game.table
    chips = sum(t.money)
    problem: str | None
    if chips != total or type(chips) is not int or min(t.money) < 0:
        problem = f"at the end of the game the table holds {chips!r} chips, not {total:,}"[:200]
    else:
        problem = _every_card(t, deck, [*chain.from_iterable(t.treasures), *t.removed])
        if problem is None and sorted(t._deck) != t._outside:  # the deck, shuffled after the last hand
            problem = "the deck is not the cards outside the zones"
    if problem is not None:
        raise _tampered(game, _last_seat(game.hands[-1]) if game.hands else None, f"after hand {t.hand_no}", problem)


def _chips(money: list[int], h: Hand, total: int) -> tuple[str | None, int | None]:
    chips = sum(money)  # a float among the stacks makes it a float
    expected = list(map(sub, h.start_money, h.committed))  # a map, not a comprehension (a call in 3.11)
    for pot in h.pots:
        for winner, share in zip(pot.winners, pot.shares, strict=True):
            expected[winner] += share
    if chips == total and type(chips) is int and min(money) >= 0 and expected == money:
        return None, None
    # the seat to name: a stack that is not a whole number, else the one with the most chips it was not paid
    wrong = [(type(have) is not int, have - want if type(have) in (int, float) else 0, seat)
             for seat, (have, want) in enumerate(zip(money, expected, strict=True)) if have != want]
    if not wrong:
        return f"the table holds {chips!r} chips, not {total:,}"[:200], None
    _, _, seat = max(wrong)
    have, want = money[seat], expected[seat]
    shown = f"{have:,}" if type(have) is int else f"{have!r}"[:40]
    return f"its stack is {shown} chips where the hand left it {want:,} (the table holds {total:,} chips)", seat


def _every_card(t: Any, deck: list[int], held: list[Any]) -> str | None:
    """Whether the cards outside the zones and ``held`` (the zones' and those out of the game) are the deck, each
    once."""
    try:  # sorted (in C)
        every = sorted([*t._outside, *held])
    except TypeError:  # something that is not a card id among them
        every = None
    if every != deck:
        return "the cards in the zones, out of the game and outside the zones are not the deck, each once"
    return None


def _cards(t: Any, h: Hand, deck: list[int], deck_set: frozenset[int]) -> str | None:
    held = [*chain.from_iterable(t.treasures), *t.removed]  # in a zone or out of the game
    problem = _every_card(t, deck, held)
    if problem is not None:
        return problem
    dealt = [*t._deck, *chain.from_iterable(h.hands), *h.shared]
    taken = h.taken  # the card that entered a zone this hand (the New Treasure, or the card a Joker became)
    if h.new_treasure is not None and h.new_treasure != taken:
        dealt.append(h.new_treasure)
    if taken is not None and taken in dealt:  # a Joker's card may copy a dealt one (rulings): counted in the zones
        dealt = [c for c in dealt if c != taken]
    cards = set(dealt)  # outside the zones: with every card once outside or held (above), a card of the deck not held
    if len(cards) != len(dealt) or not cards <= deck_set or not cards.isdisjoint(held):
        return "the deck and the cards dealt are not distinct cards outside the zones"
    for shown in h.shown:
        if type(shown.score) is not int or not 0 <= shown.score < MAX_SCORE:
            return f"seat {shown.seat}'s hand was given the score {shown.score!r}"[:200]
    return None
