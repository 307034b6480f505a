"""Reading a bot's answer into plain values, once, without running any of the bot's code.

Why: a bot is an adversary. An answer object may be a subclass whose fields change each time they are
read, an ``int`` subclass that equals anything, a ``str`` subclass whose ``__eq__`` lies, an object
whose ``__repr__`` raises or never returns. So every answer is read exactly once, field by field,
through the base class's own slots, and kept only if each value is of an exact built-in type
(``type(x) is int``: never ``bool`` nor an ``int`` subclass; exact numpy integers are converted).
The engine then checks those plain values against its own options. Nothing here calls a method the
bot could have defined: not ``__eq__``, ``__hash__``, ``__int__``, ``__iter__``, ``__repr__`` nor ``__str__``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .strategy import ACTION_KINDS, MAX_CHOICES, Action, Mixed, Steal

NUMPY_INTS = frozenset(np.dtype(code).type for code in np.typecodes["AllInteger"])
NUMPY_FLOATS = frozenset(np.dtype(code).type for code in np.typecodes["Float"])
CHANCE_TOLERANCE = 1e-6
"""How far from 1 the chances of a `Mixed` answer may add up (rounding)."""
_KINDS = frozenset(ACTION_KINDS)
_SEQUENCES = frozenset((tuple, list))
_ACTION_KIND, _ACTION_AMOUNT = Action.__dict__["kind"], Action.__dict__["amount"]  # the slots themselves
_TYPE_NAME = type.__dict__["__name__"]  # a metaclass cannot override what this reads
_ARGS = BaseException.__dict__["args"]  # nor can an exception class override this
_STR_COPY = str.__str__  # an exact str copy of a str subclass, running none of its methods
_PLAIN: frozenset[type] = frozenset((int, float, str, bool, type(None)))
_MAX_TEXT = 200
_MAX_INT_TEXT = 10**60  # a larger int is described by its size: ``repr`` of a huge one is slow or refused


def _one_of(kind: type, kinds: frozenset[type]) -> bool:
    """Whether ``kind`` is one of ``kinds``. Only a class made by plain ``type`` can be: checking that first means
    a bot's metaclass ``__eq__`` or ``__hash__`` never runs (``kind in kinds`` alone would call both)."""
    return type(kind) is type and kind in kinds


class BadAnswer(Exception):
    """An answer that is not of the required form; the message says why without running bot code."""


def exact_int(value: Any) -> int | None:
    """``value`` as an int if it is exactly an int or an exact numpy integer; else None (bools too)."""
    kind = type(value)
    if kind is int:
        return value
    if _one_of(kind, NUMPY_INTS):
        return int(value)
    return None


def read_action(answer: Any) -> tuple[str, Any]:
    """(kind, amount) of an `Action` (or subclass) read once from its slots: kind an exact str, amount as stored.

    Raises `BadAnswer` when the answer is not an Action or its kind is not one of the four kinds.
    """
    try:
        kind = _ACTION_KIND.__get__(answer, Action)
        amount = _ACTION_AMOUNT.__get__(answer, Action)
    except Exception:  # not an Action at all (the slot refuses other types), or a slot never set
        raise BadAnswer(f"act returned {safe_repr(answer)}, not an Action") from None
    if type(kind) is not str or kind not in _KINDS:
        raise BadAnswer(f"act: unknown action kind {safe_repr(kind)}")
    return kind, amount


def exact_chance(value: Any) -> float | None:
    """``value`` as a float if it is exactly a float, int or numpy float or integer, finite and from 0 to 1."""
    kind = type(value)
    if kind is int:  # compared as an int: float() of a huge one would overflow
        return float(value) if 0 <= value <= 1 else None
    if kind is float or _one_of(kind, NUMPY_FLOATS) or _one_of(kind, NUMPY_INTS):
        number = float(value)  # a huge numpy float becomes inf and fails below
        return number if 0.0 <= number <= 1.0 else None  # NaN fails both comparisons
    return None


def read_mixed(answer: Any) -> list[tuple[str, Any, float]]:
    """(kind, amount, chance) of every choice of a `Mixed` answer, read once from the tuples themselves; else
    `BadAnswer`. The chances must add up to 1 (within ``CHANCE_TOLERANCE``)."""
    if not issubclass(type(answer), Mixed) or tuple.__len__(answer) != 2:
        raise BadAnswer(f"act returned {safe_repr(answer)}, not an Action or a Mixed")
    actions, chances = tuple.__getitem__(answer, 0), tuple.__getitem__(answer, 1)
    if not _one_of(type(actions), _SEQUENCES) or not _one_of(type(chances), _SEQUENCES):
        raise BadAnswer("act: a Mixed answer's actions and chances must be tuples or lists")
    actions, chances = tuple(actions), tuple(chances)  # exact tuples or lists: copying runs no bot code
    if not 1 <= len(actions) <= MAX_CHOICES or len(chances) != len(actions):
        raise BadAnswer(f"act: a Mixed answer needs 1 to {MAX_CHOICES} actions and one chance each, got "
                        f"{len(actions)} actions and {len(chances)} chances")
    choices = []
    for action, value in zip(actions, chances, strict=True):
        try:
            kind, amount = read_action(action)
        except BadAnswer:
            raise BadAnswer(f"act: a Mixed answer holds {safe_repr(action)}, not an Action") from None
        chance = exact_chance(value)
        if chance is None:
            raise BadAnswer(f"act: the chance of {kind} in a Mixed answer is {safe_repr(value)}, not a number "
                            f"from 0 to 1")
        choices.append((kind, amount, chance))
    total = sum(c for _, _, c in choices)
    if abs(total - 1.0) > CHANCE_TOLERANCE:
        raise BadAnswer(f"act: the chances of a Mixed answer add up to {total:.9g}, not 1")
    return choices


def read_steal(answer: Any) -> tuple[int, int, int]:
    """(diamond, victim, card) of a `Steal` (or subclass) read once from the tuple itself, as exact ints;
    else `BadAnswer`. ``tuple.__getitem__`` reads the stored items whatever a subclass overrides."""
    if type(answer) is Steal and tuple.__len__(answer) == 3:  # our own class: unpacking it runs no bot code
        diamond, victim, card = answer
        if type(diamond) is int and type(victim) is int and type(card) is int:
            return answer  # immutable, of exact ints: itself, so the check finds the option it is by identity
    if not issubclass(type(answer), Steal) or tuple.__len__(answer) != 3:  # the real type: isinstance reads __class__
        raise BadAnswer(f"{safe_repr(answer)}, not a Steal")
    fields = (tuple.__getitem__(answer, 0), tuple.__getitem__(answer, 1), tuple.__getitem__(answer, 2))
    values = tuple(exact_int(f) for f in fields)
    if None in values:
        raise BadAnswer(f"a Steal whose fields are not whole numbers ({', '.join(safe_repr(f) for f in fields)})")
    return values  # type: ignore[return-value]


def read_cards(answer: Any) -> list[int]:
    """A list or tuple of card ids (or a numpy integer array), as exact ints; else `BadAnswer`."""
    kind = type(answer)
    if kind is np.ndarray:
        if answer.dtype.kind not in "iu" or answer.ndim != 1:
            raise BadAnswer(f"an array of {answer.dtype} with shape {answer.shape}, not a list of card ids")
        return [int(c) for c in answer.tolist()]
    if kind is not list and kind is not tuple:
        raise BadAnswer(f"{safe_repr(answer)}, not a list of card ids")
    items = list(answer)  # an exact list or tuple: iterating runs no bot code
    cards = [exact_int(c) for c in items]
    if None in cards:
        raise BadAnswer(f"{safe_repr(answer)}, not a list of card ids")
    return cards  # type: ignore[return-value]


def read_bool(answer: Any) -> bool | None:
    """True or False (or a numpy bool); None for anything else."""
    if answer is True or answer is False:
        return answer
    if type(answer) is np.bool_:
        return bool(answer)
    return None


def type_name(value: Any) -> str:
    """The name of ``value``'s class as an exact, short str (a class's ``__name__`` may be set to a str subclass)."""
    return _STR_COPY(_TYPE_NAME.__get__(type(value), type))[:_MAX_TEXT]


def safe_repr(value: Any, depth: int = 0) -> str:
    """A short repr that runs no bot code: built-in plain values and containers of them, else the type name."""
    kind = type(value)
    if kind is int and not -_MAX_INT_TEXT < value < _MAX_INT_TEXT:
        text = f"<int of {value.bit_length()} bits>"
    elif kind is str:
        text = repr(value[:_MAX_TEXT])  # cut first: repr of a huge string costs time and memory
    elif _one_of(kind, _PLAIN):
        text = repr(value)
    elif _one_of(kind, NUMPY_INTS) or kind is np.bool_:
        text = repr(value.item())
    elif (kind is list or kind is tuple) and depth < 2:
        inner = ", ".join(safe_repr(v, depth + 1) for v in list(value)[:12])
        more = ", ..." if len(value) > 12 else ""
        text = f"[{inner}{more}]" if kind is list else f"({inner}{more}{',' if len(value) == 1 else ''})"
    elif kind is Steal and depth < 2 and tuple.__len__(value) == 3:  # our own class; its items may be anything
        text = f"Steal({', '.join(safe_repr(tuple.__getitem__(value, i), depth + 1) for i in range(3))})"
    elif kind is Action and depth < 2:
        try:
            fields = (_ACTION_KIND.__get__(value, kind), _ACTION_AMOUNT.__get__(value, kind))
            text = f"Action({', '.join(safe_repr(f, depth + 1) for f in fields)})"
        except AttributeError:  # a slot never set
            text = "<Action object>"
    else:
        text = f"<{type_name(value)} object>"
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT - 3] + "..."


def describe_exception(err: BaseException) -> str:
    """``Type: message`` on one line, from the exception's args only if they are plain strings or numbers."""
    args = _ARGS.__get__(err, BaseException)
    plain = [a for a in args if _one_of(type(a), _PLAIN)] if type(args) is tuple and len(args) <= 12 else []
    parts = [a[:_MAX_TEXT] if type(a) is str else safe_repr(a) for a in plain]  # each cut before joining
    message = ", ".join(parts) if len(parts) == len(args) else ""
    text = f"{type_name(err)}: {message}" if message else type_name(err)
    text = " ".join(text.split())  # one line
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT - 3] + "..."
