"""Hand and game records: what happened, JSON-safe, and printable as a hand history.

The events inside a record (`ActionEvent`, `ShownHand`, `PotResult`, `StealEvent`) are NamedTuples:
truly immutable (no ``object.__setattr__`` reaches a tuple's items), so the engine can hand the very
same objects to bots without a bot being able to rewrite what happened.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import evaluator
from .cards import card_names

if TYPE_CHECKING:
    from .rules import RuleSet

END_REASONS = ("deck_empty", "all_stopped", "too_few_players", "hand_limit")
ROUND_NAMES = ("pre-flop (step 4)", "after 2 shared (step 6)", "after 4 shared (step 8)", "river (step 10)")


class ActionEvent(NamedTuple):
    """One betting action. ``to`` is the seat's bet total this round after it; ``added`` the chips put in."""

    round: int
    seat: int
    kind: str
    to: int = 0
    added: int = 0
    all_in: bool = False


class MixedDecision(NamedTuple):
    """A betting decision the engine drew from chances a bot declared (`strategy.Mixed`), as the luck analysis needs
    it: the action correction compares folding with going on (docs/luck.md)."""

    round: int
    seat: int
    fold_chance: float  # the declared chance of folding
    committed: tuple[int, ...]  # every seat's chips in this hand just before the decision
    still_in: tuple[bool, ...]  # every seat dealt in and not folded just before the decision
    to_call: int  # what going on (a check, call or raise, until someone answers it) puts in: at most the stack
    folded: bool  # what the engine drew


class ShownHand(NamedTuple):
    """A hand revealed at showdown (step 12) and the quintet it plays (step 13).

    The quintet is named only when someone asks (``quintet``, ``wilds``: ``best_quintet`` costs about
    0.1 ms a hand and a tournament never reads it); ``board`` and ``wild_ranks`` are what it needs.
    """

    hand_no: int
    seat: int
    cards: tuple[str, ...]  # the player's hand
    score: int = 0
    category: str = ""
    board: tuple[str, ...] = ()  # the shared cards it played with
    wild_ranks: int = 0  # the ranks wild for this player (its Clubs)

    @property
    def quintet(self) -> tuple[str, ...]:
        """The five cards it plays (wild cards as themselves; see ``wilds``)."""
        return name_quintet(self.cards + self.board, self.wild_ranks)[0]

    @property
    def wilds(self) -> tuple[tuple[str, str], ...]:
        """(wild card, the card it stands for) for each wild card in the quintet."""
        return name_quintet(self.cards + self.board, self.wild_ranks)[1]

    @property
    def description(self) -> str:
        return evaluator.describe(self.score)


_QUINTETS: dict[tuple[tuple[str, ...], int], tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {}
_QUINTETS_MAX = 4096
_IDS = MappingProxyType({name: card for card, name in enumerate(card_names(range(54)))})


def name_quintet(cards: tuple[str, ...], wild_ranks: int) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(quintet, wilds) of a shown hand, remembered for the last few thousand hands asked about."""
    key = (cards, wild_ranks)
    named = _QUINTETS.get(key)
    if named is None:
        if len(_QUINTETS) >= _QUINTETS_MAX:
            _QUINTETS.clear()
        q = evaluator.best_quintet(np.array([_IDS[c] for c in cards], dtype=np.int8), wild_ranks)
        named = _QUINTETS[key] = (q.cards, q.wilds)
    return named


class PotResult(NamedTuple):
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[int, ...]  # chips each winner got, in the order of ``winners``


class StealEvent(NamedTuple):
    seat: int
    diamond: str
    victim: int
    card: str


_JSON_FIELDS: Mapping[type, tuple[str, ...]] = MappingProxyType({
    ShownHand: ("hand_no", "seat", "cards", "quintet", "wilds", "score", "category", "description")})
"""What a record shows of a NamedTuple when it is not simply its fields (a shown hand: its names, as always)."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # the records' NamedTuples
        silent = _SILENT_DEFAULTS.get(type(value))
        fields = _JSON_FIELDS.get(type(value), value._fields)
        if silent:
            fields = tuple(f for f in fields if f not in silent or getattr(value, f) != silent[f])
        return {f: _jsonable(getattr(value, f)) for f in fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


class HandRecord(NamedTuple):
    """Everything that happened in one hand. Cards are strings (``"As"``, ``"RJ"``); per-seat tuples.

    A NamedTuple, like the events inside it: immutable, and cheap to make once a hand.
    """

    hand_no: int
    dealer: int
    in_hand: tuple[bool, ...]
    antes: tuple[int, ...]
    hole: tuple[tuple[str, ...] | None, ...]  # None where hidden (public view, unshown hand)
    new_treasure: str | None
    actions: tuple[ActionEvent, ...]
    shared: tuple[str, ...]
    folded: tuple[bool, ...]
    last_folder: int | None
    treasure_taken: str | None  # the card that entered the last folder's zone (Joker case: their choice)
    spades_moved: tuple[tuple[str, ...], ...]
    drawn: tuple[tuple[str, ...], ...]
    shown: tuple[ShownHand, ...]
    pots: tuple[PotResult, ...]
    returned: tuple[int, int] | None  # (seat, chips) of an uncalled bet given back
    payouts: tuple[int, ...]  # net chips per seat this hand
    steals: tuple[StealEvent, ...]
    treasures_after: tuple[tuple[str, ...], ...]
    money_after: tuple[int, ...]
    deck_size_after: int
    void: bool = False
    deck_ran_out: bool = False
    errors: tuple[tuple[int, str], ...] = ()
    treasures_before: tuple[tuple[str, ...], ...] = ()
    # Written only when they say something (`_SILENT_DEFAULTS`): the records of games without these rules stay as
    # they were.
    treasure_passed_to: int | None = None  # restricted play: the folder who took it, the last folder being barred
    given_up: tuple[tuple[int, str], ...] = ()  # (seat, card): Treasures given up at the zone limit, back in the deck
    removed: tuple[str, ...] = ()  # cards out of the game for good this hand (spent Diamonds, if so ruled)
    mixed: tuple[MixedDecision, ...] = ()  # decisions drawn from declared chances; not in the public record

    @property
    def pot(self) -> int:
        return sum(p.amount for p in self.pots)

    @property
    def treasure_taker(self) -> int | None:
        """The seat whose zone ``treasure_taken`` entered: the last folder, or the folder it passed to (restricted
        play, seeds/rulings.md)."""
        if self.treasure_taken is None:
            return None
        return self.last_folder if self.treasure_passed_to is None else self.treasure_passed_to

    @property
    def winners(self) -> tuple[int, ...]:
        seen: dict[int, None] = {}
        for p in self.pots:
            seen.update(dict.fromkeys(p.winners))
        return tuple(seen)

    def public(self, seat: int | None = None) -> HandRecord:
        """The record as every player may see it: hole cards of unshown hands hidden (rulings §10), no bot's
        declared chances (``mixed``).

        A new record each call. With ``seat``, as that seat's bot is told it: only its own errors.
        """
        shown = {s.seat for s in self.shown}
        hole = tuple([h if s in shown else None for s, h in enumerate(self.hole)])
        errors = self.errors if seat is None else tuple([e for e in self.errors if e[0] == seat])
        return self._replace(hole=hole, errors=errors, mixed=())  # declared chances are each bot's own business

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(self)

    def to_phh(self, rules: RuleSet | None = None, players: Sequence[str] | None = None) -> str:
        """This hand as Poker Hand History (PHH) text, under ``rules`` (default: the default rules); ``phh.py``."""
        from .phh import hand_to_phh

        return hand_to_phh(self, rules, players) if rules is not None else hand_to_phh(self, players=players)

    def __str__(self) -> str:
        return format_hand(self)


_SILENT_DEFAULTS: Mapping[type, Mapping[str, Any]] = MappingProxyType({
    HandRecord: MappingProxyType({"treasure_passed_to": None, "given_up": (), "removed": (), "mixed": ()})})
"""Fields a record writes only when they differ from these values: added with later rules (restricted play, the
zone limit, spent Diamonds removed), so a game that does not use those rules is written exactly as before."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one game, with every hand's record."""

    n_players: int
    strategies: tuple[str, ...]
    seed: int | None
    rules: dict[str, Any]
    final_money: tuple[int, ...]
    win_shares: tuple[float, ...]
    end_reason: str
    hands_played: int
    treasures: tuple[tuple[str, ...], ...]
    errors: tuple[tuple[str, ...], ...]  # per seat, messages of the bot's errors
    decisions: tuple[int, ...]  # per seat, how many times the bot was asked
    decision_time: tuple[float, ...]  # per seat, mean seconds per decision
    hands: tuple[HandRecord, ...] = field(default=(), repr=False)
    timeouts: tuple[int, ...] = ()  # per seat, how many of its errors were the decision time limit
    failed_decisions: tuple[int, ...] = ()  # per seat, decisions answered with an error (<= decisions)

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(self)

    def to_phh(self, players: Sequence[str] | None = None) -> str:
        """Every hand as one PHH collection (``.phhs``), players named by strategy unless ``players``; ``phh.py``."""
        from .phh import game_to_phhs

        return game_to_phhs(self, players)


def format_hand(rec: HandRecord) -> str:
    """A hand history a person can follow step by step (the numbers are the card's steps)."""
    seats = [s for s, dealt in enumerate(rec.in_hand) if dealt]
    order = sorted(seats, key=lambda s: (s - rec.dealer - 1) % len(rec.in_hand))
    start = [m - p for m, p in zip(rec.money_after, rec.payouts, strict=True)]
    out = [f"Hand #{rec.hand_no}, dealer seat {rec.dealer}, turn order: {', '.join(map(str, order))}"]
    out.append("   stacks: " + ", ".join(f"seat {s} ${start[s]}" for s in range(len(start))))
    if rec.treasures_before:
        out.append("   zones: " + _zones(rec.treasures_before))
    out.append(" 1 antes: " + ", ".join(f"seat {s} ${rec.antes[s]}" for s in order))
    out.append(" 2 hole cards: " + "; ".join(f"seat {s} [{' '.join(h) if (h := rec.hole[s]) is not None else '? ?'}]"
                                            for s in order))
    if rec.new_treasure:
        out.append(f" 3 New Treasure: {rec.new_treasure}")
    dealt = (0, 2, 4, 5)
    for rnd in range(4):
        if rnd and len(rec.shared) > dealt[rnd - 1]:
            out.append(f"{2 * rnd + 3:2d} shared: {' '.join(rec.shared[: dealt[rnd]])}")
        acts = [a for a in rec.actions if a.round == rnd]
        if acts:
            out.append(f"{2 * rnd + 4:2d} betting: " + _format_actions(acts))
    if rec.void:
        out.append("   the deck ran out while dealing: the hand is void, every chip goes back")
        return "\n".join(out)
    for seat, cards in enumerate(rec.spades_moved):
        if cards:
            out.append(f"11 seat {seat} moves Spades to hand: {' '.join(cards)}")
    for seat, cards in enumerate(rec.drawn):
        if cards:
            out.append(f"12 seat {seat} draws with Hearts: {' '.join(cards)}")
    if rec.deck_ran_out:
        out.append("   the deck ran out during Hearts draws: this is the last hand")
    for sh in rec.shown:
        wilds = f" (wild: {', '.join(f'{w} as {c}' for w, c in sh.wilds)})" if sh.wilds else ""
        quintet = f" -> {' '.join(sh.quintet)}" if sh.quintet else ""
        out.append(f"13 seat {sh.seat} shows {' '.join(sh.cards)}{quintet}{wilds}: {sh.description}")
    if rec.returned:
        out.append(f"   uncalled ${rec.returned[1]} returned to seat {rec.returned[0]}")
    for i, p in enumerate(rec.pots):
        label = "pot" if len(rec.pots) == 1 else "main pot" if i == 0 else f"side pot {i}"
        if len(p.winners) == 1:
            won = f"to seat {p.winners[0]}" + ("" if rec.shown else " (unshown)")
        else:
            won = "split: " + ", ".join(f"seat {w} ${c}" for w, c in zip(p.winners, p.shares, strict=True))
        out.append(f"14 {label} ${p.amount} {won}")
    taker = f"last folder seat {rec.last_folder}"
    if rec.treasure_passed_to is not None:
        taker = f"seat {rec.treasure_passed_to} (last folder seat {rec.last_folder} may not take it)"
    if rec.last_folder is None:
        if rec.new_treasure:
            out.append("14 nobody folded: the New Treasure goes back into the deck")
    elif rec.treasure_taken and rec.treasure_taken != rec.new_treasure:
        out.append(f"15 {taker} puts {rec.treasure_taken} in their zone for the Joker Treasure")
    elif rec.treasure_taken:
        out.append(f"14 {taker} takes the New Treasure {rec.treasure_taken}")
    elif rec.new_treasure in ("RJ", "BJ") and rec.treasure_passed_to is None:
        out.append(f"15 the New Treasure is a Joker: last folder seat {rec.last_folder} gains nothing")
    elif rec.new_treasure:
        out.append(f"14 nobody takes the New Treasure {rec.new_treasure}: it goes back into the deck")
    for seat, card in rec.given_up:
        out.append(f"   seat {seat}'s zone was full: {card} went back into the deck to make room")
    for st in rec.steals:
        spent = "removes {} from the game" if st.diamond in rec.removed else "puts {} under the deck"
        out.append(f"16 seat {st.seat} {spent.format(st.diamond)} and steals {st.card} from seat {st.victim}")
    out.append("   net: " + ", ".join(f"seat {s} {rec.payouts[s]:+d}" for s in order))
    out.append("   zones after: " + _zones(rec.treasures_after))
    for seat, message in rec.errors:
        out.append(f"   error, seat {seat}: {message}")
    return "\n".join(out)


def _zones(zones: tuple[tuple[str, ...], ...]) -> str:
    return "; ".join(f"seat {s} [{' '.join(z)}]" for s, z in enumerate(zones))


def _format_actions(acts: list[ActionEvent]) -> str:
    """One round's actions: the first raise of a round is a bet."""
    parts, opened = [], False
    for a in acts:
        text = f"seat {a.seat} {a.kind}"
        if a.kind == "raise":
            text = f"seat {a.seat} {'raises to' if opened else 'bets'} {a.to}"
            opened = True
        elif a.kind == "call":
            text += f" {a.added}"
        parts.append(text + (" (all in)" if a.all_in else ""))
    return "; ".join(parts)
