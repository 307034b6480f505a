"""The line protocol between the engine and a bot in another process: JSON objects, one per line.

``docs/protocol.md`` is the reference for bot writers. This module turns what the engine hands a bot
(an `Observation`, the options of a decision, a hand record) into plain JSON values with cards as
names (``"As"``, ``"RJ"``), and a bot's JSON answer back into the plain Python answer the engine
validates — and, for the Python host that runs a `Strategy` in the other process, the reverse.
Anything malformed raises `ProtocolError` naming the field, which the engine records as the bot's error.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..game.cards import format_card, parse_card
from ..game.history import ActionEvent, HandRecord, MixedDecision, PotResult, ShownHand, StealEvent
from ..game.questions import BY_METHOD
from ..game.rules import RuleSet
from ..game.strategy import ACTION_KINDS, Action, Mixed, Observation, Steal

PROTOCOL_VERSION = 1
METHODS = ("setup", "act", "move_spades", "draw_heart", "choose_joker_treasure", "make_room", "steal",
           "keep_playing", "hand_end")
_CARD_FIELDS = ("hand", "shared", "new_treasure", "treasures", "revealed")  # Observation fields holding card ids


class ProtocolError(ValueError):
    """A message that does not follow the protocol; the text names the field."""


# ----- engine -> bot ---------------------------------------------------------------------------------------
def _names(value: Any) -> Any:
    """Card ids (nested in tuples, None kept) as names."""
    if value is None:
        return None
    if isinstance(value, tuple | list):
        return [_names(v) for v in value]
    return format_card(value)


def _plain(value: Any) -> Any:
    if isinstance(value, ActionEvent):
        return {"round": value.round, "seat": value.seat, "kind": value.kind, "to": value.to, "added": value.added,
                "all_in": value.all_in}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def observation_to_json(obs: Observation) -> dict[str, Any]:
    """Every field of the observation but ``showdowns``; cards as names, records as objects, the rules as a table.

    The hands shown at earlier showdowns reach the bot once, in each ``hand_end`` record: sending the
    whole list with every question would make each message grow with the game.
    """
    out: dict[str, Any] = {}
    for name, value in zip(obs._fields, obs, strict=True):
        if name in _CARD_FIELDS:
            out[name] = _names(value)
        elif name == "rules":
            out[name] = obs.rules.to_dict()
        elif name != "showdowns":
            out[name] = _plain(value)
    return out


def options_to_json(method: str, options: tuple) -> list[Any]:
    """The options of a decision: card names (Joker Treasure) or [diamond, victim, card] triples (steal)."""
    if method == "steal":
        return [[format_card(s.diamond), s.victim, format_card(s.card)] for s in options]
    return [format_card(c) for c in options]


def record_to_json(record: HandRecord) -> dict[str, Any]:
    """The record as ``HandRecord.to_dict`` writes it (shown hands with their quintets named), plus each shown
    hand's board and wild ranks, so that the Python host rebuilds exactly the record an in-process bot gets."""
    data = record.to_dict()
    for shown, out in zip(record.shown, data["shown"], strict=True):
        out.update(board=list(shown.board), wild_ranks=shown.wild_ranks)
    return data


def message(method: str, ident: int, **fields: Any) -> dict[str, Any]:
    return {"type": method, "id": ident, **fields}


# ----- bot -> engine ---------------------------------------------------------------------------------------
def _card(value: Any, where: str) -> int:
    if type(value) is not str:
        raise ProtocolError(f"{where} must be a card name such as \"As\", got {value!r}")
    try:
        return parse_card(value)
    except ValueError as err:
        raise ProtocolError(f"{where}: {err}") from None


def _field(reply: dict[str, Any], name: str, method: str) -> Any:
    if name not in reply:
        raise ProtocolError(f"the answer to {method} has no {name!r} field: {reply!r}"[:300])
    return reply[name]


def _action_from_json(reply: Any) -> Action:
    if type(reply) is not dict:
        raise ProtocolError(f"an action must be an object with an 'action' field, got {reply!r}"[:300])
    kind, amount = _field(reply, "action", "act"), reply.get("amount", 0)
    if type(kind) is not str or kind not in ACTION_KINDS:
        raise ProtocolError(f"action must be one of {', '.join(ACTION_KINDS)}, got {kind!r}")
    if type(amount) is not int:
        raise ProtocolError(f"amount must be a whole number, got {amount!r}")
    return Action(kind, amount)


def _mixed_from_json(choices: Any) -> Mixed:
    """``[{"action": ..., "amount": ..., "chance": ...}, ...]`` as a `Mixed` (its chances checked by the engine)."""
    if type(choices) is not list:
        raise ProtocolError(f"mixed must be a list of actions with a chance each, got {choices!r}"[:300])
    chances = []
    for choice in choices:
        chance: Any = choice.get("chance") if type(choice) is dict else None
        if type(chance) not in (int, float):
            raise ProtocolError(f"every action in mixed needs a numeric 'chance', got {choice!r}"[:300])
        chances.append(chance)  # as parsed: the engine reads it (float() of a huge int would overflow here)
    return Mixed(tuple(_action_from_json(c) for c in choices), tuple(chances))


def _bool(value: Any, name: str, options: tuple) -> bool:
    if type(value) is not bool:
        raise ProtocolError(f"{name} must be true or false, got {value!r}")
    return value


def _cards(value: Any, name: str, options: tuple) -> list[int]:
    if type(value) is not list:
        raise ProtocolError(f"{name} must be a list of card names, got {value!r}")
    return [_card(c, name) for c in value]


def _card_or_none(value: Any, name: str, options: tuple) -> int | None:
    return None if value is None else _card(value, name)


def _option(value: Any, name: str, options: tuple) -> Any:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < len(options):
        raise ProtocolError(f"{name} must be null or the index of an option 0..{len(options) - 1}, got {value!r}")
    return options[value]


_READ = {"bool": _bool, "cards": _cards, "card": _card_or_none, "option": _option}
"""How an answer's field is read, by the question's ``shape`` (`treasure_sim.game.questions`)."""


def answer_from_json(method: str, reply: dict[str, Any], options: tuple = ()) -> Any:
    """A bot's JSON answer as the Python answer its `Strategy` method would return (checked again by the engine).
    The field and its form come from the decision catalogue (`treasure_sim.game.questions`)."""
    question = BY_METHOD.get(method)
    if question is None:
        return None  # setup, hand_end: an acknowledgement
    if question.shape == "action":
        if "mixed" in reply:
            return _mixed_from_json(reply["mixed"])
        return _action_from_json(reply)
    return _READ[question.shape](_field(reply, question.wire, method), question.wire, options)


# ----- the Python host's side: the same messages read back into engine values ------------------------------
def _ids(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        return tuple(_ids(v) for v in value)
    return parse_card(value)


def observation_from_json(data: dict[str, Any], showdowns: tuple[ShownHand, ...] = ()) -> Observation:
    """The `Observation` a `Strategy` in the host process is asked with (``showdowns``: from the records so far)."""
    fields: dict[str, Any] = {"showdowns": showdowns}
    for name in Observation._fields:
        if name == "showdowns":
            continue
        value = data[name]
        if name in _CARD_FIELDS:
            fields[name] = _ids(value)
        elif name == "rules":
            fields[name] = RuleSet.from_dict(value)
        elif name == "history":
            fields[name] = tuple(ActionEvent(**e) for e in value)
        else:
            fields[name] = _tuples(value)
    return Observation(**fields)


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _fields(cls: type) -> tuple[str, ...]:
    """The constructor fields of a record type (a NamedTuple or a dataclass)."""
    if hasattr(cls, "_fields"):
        return cls._fields
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


def _record(cls: type, data: dict[str, Any]) -> Any:
    names = _fields(cls)
    return cls(**{k: _tuples(v) for k, v in data.items() if k in names})


def hand_record_from_json(data: dict[str, Any]) -> HandRecord:
    """A hand record as a bot in-process would have been told it (``on_hand_end``)."""
    nested = {"actions": ActionEvent, "shown": ShownHand, "pots": PotResult, "steals": StealEvent,
              "mixed": MixedDecision}
    fields: dict[str, Any] = {}
    for name in _fields(HandRecord):
        if name in data:
            value = data[name]
            fields[name] = tuple(_record(nested[name], v) for v in value) if name in nested else _tuples(value)
    return HandRecord(**fields)


def options_from_json(method: str, options: list[Any]) -> tuple:
    if method == "steal":
        return tuple(Steal(parse_card(d), v, parse_card(c)) for d, v, c in options)
    return tuple(parse_card(c) for c in options)


def _write_cards(answer: Any, options: tuple) -> Any:
    return [format_card(int(c)) for c in answer]


def _write_card(answer: Any, options: tuple) -> Any:
    return None if answer is None else format_card(int(answer))


_WRITE = {"bool": lambda answer, options: bool(answer), "cards": _write_cards, "card": _write_card,
          "option": lambda answer, options: None if answer is None else options.index(answer)}
"""How an answer is written, by the question's ``shape``."""


def answer_to_json(method: str, answer: Any, options: tuple = ()) -> dict[str, Any]:
    """What a `Strategy`'s Python answer is on the wire (the host's reply)."""
    question = BY_METHOD.get(method)
    if question is None:
        return {}
    if question.shape == "action":
        if isinstance(answer, Mixed):
            return {"mixed": [{"action": a.kind, "amount": a.amount, "chance": float(p)}
                              for a, p in zip(answer.actions, answer.chances, strict=True)]}
        return {"action": answer.kind, "amount": answer.amount}
    return {question.wire: _WRITE[question.shape](answer, options)}
