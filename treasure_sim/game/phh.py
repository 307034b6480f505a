"""Hand records as Poker Hand History (PHH): the TOML format of ``uoftcprg/phh-std`` that pokerkit reads and writes.

Why: the poker world's tools read PHH, and a hand history a bot writer can load in pokerkit is worth more
than one only this project prints. ``docs/phh.md`` documents the mapping; in short:

- the players are the seats dealt into the hand in turn order (p1 left of the button, the button last),
  with ``seats`` (1-based, as PHH counts them) and ``players`` naming them; antes as the engine charges
  them, no blinds; the variant is ``NT`` for no-limit and pot-limit (every pot-limit bet is a legal
  no-limit bet, so the file replays exactly; ``_rules`` says which it was) and ``FT`` for fixed-limit;
- Treasure Poker deals the shared cards 2, 2 and 1 where Hold'em deals 3, 1 and 1, and PHH has no
  variant for that: the third shared card is written in the first ``d db`` (with a commentary saying it
  came one round later), so the file replays in Hold'em readers with the same chips, and
  ``_shared_streets`` holds the true order. A hand that ended with two shared cards writes ``??`` there;
- a player the engine asks while alone with chips (everyone else all in) checks in a no-op
  commentary (``# p3 checks``): Hold'em readers do not ask that player. If that player folds instead
  (legal here: the players all in then take the pot), the fold is written as it happened, and a Hold'em
  reader refuses the hand;
- everything Hold'em has no word for is in user fields (``_`` prefix): the rules, Jokers (written ``??``
  in the dealing actions, by name in ``_hole`` and ``_shared_streets``), the Treasure Zones before and
  after, the New Treasure and who took it, Spades moved, Hearts draws, the shown hands with their
  quintets, the pots, steals and bot errors; the Treasure steps also appear in order as no-op
  commentaries in ``actions``, so the actions read as the whole hand.

With ``RuleSet.holdem()`` a hand is plain PHH: pokerkit replays it to the recorded ``finishing_stacks``
(tested), except where Hold'em conventions differ from our rulings (see ``docs/phh.md``).
This module builds text only; writing files is the caller's business.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .rules import RuleSet

if TYPE_CHECKING:
    from .history import GameResult, HandRecord

VARIANTS = {"no-limit": "NT", "pot-limit": "NT", "fixed-limit": "FT"}
"""The PHH variant code per betting structure (PHH has no pot-limit Texas hold'em; see the module docstring)."""
UNKNOWN = "??"  # PHH's unknown card: a Joker in the dealing actions, a hidden hole card, a card never dealt
_JOKERS = ("RJ", "BJ")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def hand_to_phh(record: HandRecord, rules: RuleSet = RuleSet(), players: Sequence[str] | None = None, *,
                event: str | None = None, table: str | int | None = None) -> str:
    """One hand as a PHH document (TOML text).

    ``rules``: the rules the hand was played under (the record does not hold them). ``players``: a name per
    seat of the table (all seats, dealt in or not); default ``seat N``. ``event`` and ``table`` fill the
    PHH fields of those names.
    """
    return _dump(hand_fields(record, rules, players, event=event, table=table))


def game_to_phhs(result: GameResult, players: Sequence[str] | None = None, *, event: str | None = None,
                 table: str | int | None = None) -> str:
    """Every hand of a game as one PHH collection (``.phhs``: one TOML table per hand, ``[1]``, ``[2]``, ...),
    which ``pokerkit.HandHistory.loads_all`` reads. Players default to the game's strategy names."""
    rules = RuleSet.from_dict(result.rules)
    names = list(players) if players is not None else list(result.strategies)
    return "\n\n".join(f"[{rec.hand_no}]\n" + hand_to_phh(rec, rules, names, event=event, table=table)
                       for rec in result.hands) + "\n"


def hand_fields(record: HandRecord, rules: RuleSet = RuleSet(), players: Sequence[str] | None = None, *,
                event: str | None = None, table: str | int | None = None) -> dict[str, Any]:
    """The PHH fields of one hand, in the order they are written (None: left out)."""
    rec = record
    n = len(rec.in_hand)
    order = [s for s in ((rec.dealer + 1 + i) % n for i in range(n)) if rec.in_hand[s]]
    label = {s: f"p{i + 1}" for i, s in enumerate(order)}
    names = list(players) if players is not None else [f"seat {s}" for s in range(n)]
    if len(names) != n:
        raise ValueError(f"players must name all {n} seats, got {len(names)} names")
    start = [rec.money_after[s] - rec.payouts[s] for s in range(n)]
    won = [0] * n
    for pot in rec.pots:
        for w, chips in zip(pot.winners, pot.shares, strict=True):
            won[w] += chips
    fixed = rules.betting == "fixed-limit"
    fields: dict[str, Any] = {
        "variant": VARIANTS[rules.betting],
        "antes": [rec.antes[s] for s in order],
        "blinds_or_straddles": [0] * len(order),
        "min_bet": None if fixed else rules.min_bet,
        "small_bet": rules.small_bet if fixed else None,
        "big_bet": rules.big_bet if fixed else None,
        "starting_stacks": [start[s] for s in order],
        "actions": _actions(rec, order, label, start),
        "event": event,
        "hand": rec.hand_no,
        "seats": [s + 1 for s in order],
        "seat_count": n,
        "table": table,
        "players": [names[s] for s in order],
        "finishing_stacks": [rec.money_after[s] for s in order],
        "winnings": [won[s] for s in order],
        "currency_symbol": "$",
    }
    fields.update(_treasure_fields(rec, rules, order))
    return fields


# ----- the actions -----------------------------------------------------------------------------------------
def _cards(cards: Sequence[str] | None, count: int = 2) -> tuple[str, str | None]:
    """(PHH card text, the true names when a Joker had to be written as ``??``)."""
    if cards is None:
        return UNKNOWN * count, None
    text = "".join(UNKNOWN if c in _JOKERS else c for c in cards)
    return text, (" ".join(cards) if any(c in _JOKERS for c in cards) else None)


def _with_note(action: str, note: str | None) -> str:
    return f"{action} # {note}" if note else action


def _actions(rec: HandRecord, order: list[int], label: dict[int, str], start: list[int]) -> list[str]:
    out = []
    for s in order:
        text, real = _cards(rec.hole[s])
        out.append(_with_note(f"d dh {label[s]} {text}", real))
    chips = {s: start[s] - rec.antes[s] for s in order}  # behind, as the hand goes
    folded: set[int] = set()
    shared = rec.shared
    for rnd in range(4):
        if rnd and len(shared) > (0, 2, 4)[rnd - 1]:
            out.append(_board_deal(rnd, shared))
        high = 0  # the round's bet to match
        for a in rec.actions:
            if a.round != rnd:
                continue
            # asked while alone with chips and nothing to call: Hold'em would not ask this player at all
            unasked = a.to >= high and all(chips[o] == 0 for o in order if o != a.seat and o not in folded)
            if a.kind == "check" and unasked:
                out.append(f"# {label[a.seat]} checks (alone with chips: Hold'em does not ask)")
                continue
            chips[a.seat] -= a.added
            high = max(high, a.to)
            if a.kind == "fold":
                folded.add(a.seat)
                out.append(f"{label[a.seat]} f" + (" # alone with chips: Hold'em would not ask; the players all in "
                                                   "take the pot" if unasked else ""))
            elif a.kind == "raise":
                out.append(f"{label[a.seat]} cbr {a.to}")
            else:
                out.append(f"{label[a.seat]} cc")
    if rec.void:
        out.append("# the deck ran out while dealing: the hand is void, every chip goes back")
        return out
    out.extend(_treasure_steps(rec, {s: f"{label[s]} (seat {s})" for s in order}, label))
    return out


def _board_deal(rnd: int, shared: tuple[str, ...]) -> str:
    """The ``d db`` before betting round ``rnd`` (1..3) in Hold'em's 3-1-1 cut of our 2-2-1 deal."""
    if rnd == 1:
        cards = list(shared[:3]) + [UNKNOWN] * (3 - len(shared[:3]))
        text, real = _cards(cards)
        note = f"step 5 deals {' '.join(shared[:2])}"
        if len(shared) > 2:
            note += f"; {shared[2]} comes at step 7, after this round"
        else:
            note += "; the hand ended before step 7"
        return _with_note(f"d db {text}", note if real is None else f"{note} (Jokers: {real})")
    # round 2: the 4th card (the 3rd went out with the flop); round 3: the 5th; unknown if a void deal stopped short
    card = shared[rnd + 1] if len(shared) > rnd + 1 else UNKNOWN
    text, real = _cards([card])
    note = f"step 7 deals {' '.join(shared[2:4])}" if rnd == 2 else "step 9"
    return _with_note(f"d db {text}", note + (f" (Joker: {real})" if real else ""))


def _treasure_steps(rec: HandRecord, who: dict[int, str], label: dict[int, str]) -> list[str]:
    """Steps 11-16 in order: Spades, Hearts, the showdown (``sm``, with the quintet), the Treasure, steals.

    ``who`` names a seat dealt in as "p2 (seat 3)"; a seat out of the game (a steal's victim) is "seat N".
    """
    out = []
    for seat, cards in enumerate(rec.spades_moved):
        if cards:
            out.append(f"# step 11: {who[seat]} moves Spades to hand: {' '.join(cards)}")
    for seat, cards in enumerate(rec.drawn):
        if cards:
            out.append(f"# step 12: {who[seat]} draws with Hearts: {' '.join(cards)}")
    if rec.deck_ran_out:
        out.append("# step 12: the deck ran out during Hearts draws: this is the game's last hand")
    for sh in rec.shown:
        text, _ = _cards(rec.hole[sh.seat] if rec.hole[sh.seat] is not None else sh.cards[:2])
        wilds = f", wild: {', '.join(f'{w} as {c}' for w, c in sh.wilds)}" if sh.wilds else ""
        out.append(f"{label[sh.seat]} sm {text} # {' '.join(sh.cards)} plays {' '.join(sh.quintet)}{wilds}: "
                   f"{sh.description}")
    if rec.last_folder is not None and rec.treasure_taken:
        how = "for the Joker Treasure" if rec.treasure_taken != rec.new_treasure else "the New Treasure"
        out.append(f"# step 14: last folder {who[rec.last_folder]} takes {rec.treasure_taken} ({how})")
    for st in rec.steals:
        out.append(f"# step 16: {who[st.seat]} puts {st.diamond} under the deck and steals {st.card} "
                   f"from {who.get(st.victim, f'seat {st.victim}')}")
    return out


# ----- the user-defined fields --------------------------------------------------------------------------------
def _treasure_fields(rec: HandRecord, rules: RuleSet, order: list[int]) -> dict[str, Any]:
    """The ``_`` fields (``docs/phh.md``). Per-seat lists are indexed by treasure-sim seat (0-based, every seat
    of the table): out players are not PHH players but their zones can be robbed."""
    shared = rec.shared
    fields: dict[str, Any] = {
        "_rules": rules.to_dict(),
        "_dealer": rec.dealer,
        "_shared_streets": [list(shared[:2]), list(shared[2:4]), list(shared[4:5])][: (len(shared) + 1) // 2],
    }
    if any(c in _JOKERS for h in rec.hole if h for c in h) or any(c in _JOKERS for c in shared):
        fields["_hole"] = [list(h) if h else [] for h in rec.hole]
    if rec.new_treasure is not None:
        fields["_new_treasure"] = rec.new_treasure
    if rec.last_folder is not None:
        fields["_last_folder"] = rec.last_folder
    if rec.treasure_taken is not None:
        fields["_treasure_taken"] = rec.treasure_taken
    if any(rec.treasures_before) or any(rec.treasures_after):
        fields["_zones_before"] = [list(z) for z in rec.treasures_before]
        fields["_zones_after"] = [list(z) for z in rec.treasures_after]
    if any(rec.spades_moved):
        fields["_spades_moved"] = [list(c) for c in rec.spades_moved]
    if any(rec.drawn):
        fields["_hearts_drawn"] = [list(c) for c in rec.drawn]
    if rec.shown:
        fields["_shown"] = [{"seat": sh.seat, "cards": list(sh.cards), "quintet": list(sh.quintet),
                             "wilds": [f"{w} as {c}" for w, c in sh.wilds], "description": sh.description}
                            for sh in rec.shown]
    fields["_pots"] = [{"amount": p.amount, "eligible": list(p.eligible), "winners": list(p.winners),
                        "shares": list(p.shares)} for p in rec.pots]
    if rec.returned:
        fields["_returned"] = {"seat": rec.returned[0], "chips": rec.returned[1]}
    if rec.steals:
        fields["_steals"] = [{"seat": st.seat, "diamond": st.diamond, "victim": st.victim, "card": st.card}
                             for st in rec.steals]
    if rec.void:
        fields["_void"] = True
    if rec.deck_ran_out:
        fields["_deck_ran_out"] = True
    if rec.errors:
        fields["_errors"] = [{"seat": seat, "message": message} for seat, message in rec.errors]
    return fields


# ----- TOML ----------------------------------------------------------------------------------------------------
# The standard library reads TOML but does not write it; PHH needs only these value types.
def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None) + "}"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key)


def _dump(fields: dict[str, Any]) -> str:
    lines = []
    for key, value in fields.items():
        if value is None:
            continue
        if key == "actions":  # one action a line: the part a person reads
            lines.append("actions = [\n" + "".join(f"  {_value(a)},\n" for a in value) + "]")
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    return "\n".join(lines)
