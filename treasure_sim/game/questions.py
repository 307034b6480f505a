"""The decision catalogue: every question the game puts to a player, defined once.

Each `Question` names the `Decision` kind, the `Strategy` method that answers it, whether its default is fixed
(a bot that does not override the method is not asked), and what its default answer is. `check_answer` is the one
place an answer is checked against a decision's options; the state (`GameState.apply`) calls it on everything a
caller answers, so an environment, a terminal player or a search player cannot play an illegal move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from .answers import exact_int, read_bool, read_cards, read_steal, safe_repr
from .betting import BetLimits, action_problem
from .strategy import CALL, CHECK, FOLD, MAX_CHOICES, RAISE, Action, Mixed, Steal


class Decision(NamedTuple):
    """What the state waits for: ``seat`` answers the question ``kind`` (a `questions.QUESTIONS` name).

    ``options``: the legal answers where they are few (bet: the legal action kinds; spades: the Spades Treasures
    that may move, any subset; joker_treasure, make_room and steal: the cards or `Steal`s, make_room and steal also
    None, last; hearts and keep_playing: True, False). ``default`` is the answer of a seat that does not answer.
    Bets also carry ``limits`` (to call, least and most raise totals) and ``my_bet`` (the seat's bet this round);
    make_room carries the ``treasure`` that would enter the zone.
    """

    seat: int
    kind: str
    options: tuple
    default: Any
    limits: BetLimits | None = None
    my_bet: int = 0
    treasure: int | None = None


class IllegalAnswer(ValueError):
    """An answer that is not one of the decision's legal answers; the message says why (and names no hidden card).
    ``why``: the reason alone ("not one of its options"), for a message that names the answer its own way."""

    def __init__(self, message: str, why: str | None = None) -> None:
        super().__init__(message)
        self.why = why if why is not None else message


def _illegal(kind: str, answer: Any, why: str) -> IllegalAnswer:
    return IllegalAnswer(f"{kind}: {safe_repr(answer)} is {why}", why)


class Question(NamedTuple):
    name: str  # the Decision kind and the Observation phase
    method: str  # the Strategy method that answers it
    skippable: bool  # the default is fixed: a bot that does not override the method is not asked
    default: str  # the default answer, in words
    answer: str  # what an answer is, in words
    asked_with: str  # what the method is given besides the observation: "", "options" or "treasure"
    wire: str  # the line protocol: the field of the answer (docs/protocol.md)
    shape: str  # the line protocol: how the answer is written ("action", "cards", "bool", "card", "option")
    read: Callable[[Any], Any] | None = None  # reads an in-process bot's answer into plain values (`answers.py`)
    on_error: Any = "default"  # what a failed or illegal answer counts as ("default": the decision's default)


QUESTIONS: Mapping[str, Question] = MappingProxyType({q.name: q for q in (
    Question("keep_playing", "keep_playing", True, "go on (True)",
             "before each hand: True to go on, False to vote to stop", "", "keep", "bool", read_bool),
    Question("bet", "act", False, "check when free, else fold",
             "an Action (fold, check, call, raise_to(total)) or a Mixed of legal Actions with chances", "", "action",
             "action"),
    Question("spades", "move_spades", True, "move none",
             "step 11: the Spades Treasures to move to the hand (any subset of the options)", "", "cards", "cards",
             read_cards),
    Question("hearts", "draw_heart", True, "draw (True)", "step 12: True to draw the next Hearts card", "", "draw",
             "bool", read_bool, on_error=False),  # a broken answer declines (the default draws)
    Question("joker_treasure", "choose_joker_treasure", False, "the highest-value option",
             "step 15: one of the options (hole or shared cards) to become a Treasure", "options", "card", "card"),
    Question("make_room", "make_room", True, "let the New Treasure go (None)",
             "steps 14-15, zone full: one of the zone's Treasures to give up, or None", "treasure", "card", "card"),
    Question("steal", "steal", True, "no steal (None)", "step 16: one of the Steal options, or None to stop",
             "options", "steal", "option", read_steal),
)})
"""Every question, by `Decision` kind (read-only: the engine's integrity watch sees a replaced one)."""

BY_METHOD: Mapping[str, Question] = MappingProxyType({q.method: q for q in QUESTIONS.values()})
"""The questions by the `Strategy` method that answers them."""


def check_answer(decision: Decision, answer: Any) -> Any:
    """``answer`` to a decision that is not a bet, as the state plays it; `IllegalAnswer` if it is not legal."""
    kind, options = decision.kind, decision.options
    if kind in ("keep_playing", "hearts"):
        if answer is True or answer is False:
            return answer
        raise _illegal(kind, answer, "not True or False")
    if kind == "spades":
        if type(answer) is not tuple and type(answer) is not list:  # identity: no metaclass __eq__ runs
            raise _illegal(kind, answer, "not a tuple or list of cards")
        cards = [exact_int(c) for c in answer]
        if any(c is None or c not in options for c in cards) or len(set(cards)) != len(cards):
            raise _illegal(kind, answer, "not distinct Spades Treasures of the seat's own")
        return tuple(cards)
    if answer is None and options and options[-1] is None:  # None, where it is an option, comes last
        return None
    if kind == "steal":
        if type(answer) is Steal:  # our own: most answers are one of the options themselves
            for option in options:
                if option is answer:
                    return option
        if (type(answer) is tuple or type(answer) is Steal) and len(answer) == 3:
            diamond, victim, card = answer  # an exact tuple (or our own Steal): unpacking runs no bot code
            wanted = (diamond, victim, card) if type(diamond) is type(victim) is type(card) is int else tuple(
                [exact_int(x) for x in answer])
            if None not in wanted:  # the options are our own Steals (and None): compared as plain tuples
                for option in options:
                    if option == wanted and option is not None:
                        return option
        raise _illegal(kind, answer, f"not one of the {len(options) - 1} options nor None")
    card = exact_int(answer)
    if card is None or card not in options:
        raise _illegal(kind, answer, "not one of its options" + (" nor None" if None in options else ""))
    return card


def plain_bet(answer: Any, lim: BetLimits, my_bet: int) -> tuple[str, int] | list[tuple[str, Any, float]]:
    """A betting answer (an `Action`, or a `Mixed` of them) checked against ``lim``: (kind, this round's bet after
    it), or for a `Mixed` the list of (kind, raise total, chance) to draw from; `IllegalAnswer` otherwise."""
    if type(answer) is Action:
        return _plain_action(answer, lim, my_bet)
    if type(answer) is Mixed:
        actions, chances = answer
        if not 0 < len(actions) == len(chances) <= MAX_CHOICES:
            raise IllegalAnswer(f"bet: a Mixed of {len(actions)} actions and {len(chances)} chances")
        choices = []
        for action, chance in zip(actions, chances, strict=True):
            if type(action) is not Action:
                raise IllegalAnswer(f"bet: {safe_repr(action)} in a Mixed is not an Action")
            _plain_action(action, lim, my_bet)
            if type(chance) not in (float, int) or not 0 <= chance <= 1:
                raise IllegalAnswer(f"bet: chance {safe_repr(chance)} is not a number from 0 to 1")
            choices.append((action.kind, exact_int(action.amount) if action.kind == RAISE else 0, float(chance)))
        if abs(sum(c for _, _, c in choices) - 1.0) > 1e-6:
            raise IllegalAnswer("bet: the chances of a Mixed do not add up to 1")
        return choices
    raise IllegalAnswer(f"bet: {safe_repr(answer)} is not an Action or a Mixed")


def _plain_action(action: Action, lim: BetLimits, my_bet: int) -> tuple[str, int]:
    kind, amount = action.kind, action.amount
    problem = action_problem(kind, amount, lim) if kind in (FOLD, CHECK, CALL, RAISE) else "unknown kind"
    if problem is not None:
        raise IllegalAnswer(f"bet: {safe_repr(action)}: {problem}")
    return bet_total(kind, exact_int(amount) if kind == RAISE else 0, lim, my_bet)  # type: ignore[arg-type]


def bet_total(kind: str, amount: int, lim: BetLimits, my_bet: int) -> tuple[str, int]:
    """A legal betting action as (kind, this round's bet after it): a call of nothing is a check."""
    if kind == RAISE:
        return RAISE, amount
    if kind == FOLD:
        return FOLD, my_bet
    return (CALL, my_bet + lim.to_call) if lim.to_call else (CHECK, my_bet)


def strategy_args(decision: Decision) -> tuple:
    """What the question's `Strategy` method is given besides the observation (``Question.asked_with``): the options
    (None, the option to answer nothing, left out), or the ``treasure`` waiting for room."""
    asked_with = QUESTIONS[decision.kind].asked_with
    if asked_with == "options":
        options = decision.options
        return (options[:-1] if options and options[-1] is None else options,)  # None, an option, comes last
    if asked_with == "treasure":
        return (decision.treasure,)
    return ()
