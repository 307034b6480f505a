"""Rows of the results tables, built in the workers from game records: plain column lists, then Arrow."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..game.history import GameResult, HandRecord
from ..game.rules import RuleSet
from .experiment import Entrant
from .store import SCHEMAS, SUIT_COLUMNS

MAX_MESSAGE = 300  # characters of a bot's first error kept in the games table

Columns = dict[str, list[Any]]


def new_columns() -> dict[str, Columns]:
    """Empty column lists per table: workers append plain Python values, then `to_tables`."""
    return {table: {n: [] for n in schema.names} for table, schema in SCHEMAS.items()}


def eliminations(result: GameResult, rules: RuleSet) -> list[int | None]:
    """Per seat, the hand after which it could no longer pay the ante (its last hand; 0 if it never played),
    or None for a seat still able to pay the next hand's ante (which may have risen) when the game ended."""
    last = [0] * result.n_players
    for h in result.hands:
        for s, dealt in enumerate(h.in_hand):
            if dealt:
                last[s] = h.hand_no
    ante = rules.ante_at(result.hands_played + 1)
    return [last[s] if m < ante else None for s, m in enumerate(result.final_money)]


def finishing_order(money: Sequence[int], eliminated: Sequence[int | None]) -> list[int]:
    """Finishing places, 1 = best: more final money first, then the later elimination (a survivor beats any
    eliminated player); seats equal on both share the best place of their group (1, 1, 3, ...)."""
    keys = [(m, float("inf") if e is None else e) for m, e in zip(money, eliminated, strict=True)]
    return [1 + sum(other > key for other in keys) for key in keys]


MAX_KINDS = 10  # distinct error messages kept per seat and game; the rest are counted under OTHER
OTHER = "(other messages)"


def error_kinds(messages: Sequence[str]) -> dict[str, list]:
    """A seat's errors in one game as distinct messages (without their ``hand N:`` prefix) and their counts."""
    counts = Counter(re.sub(r"^hand \d+: ", "", m)[:MAX_MESSAGE] for m in messages)
    kinds = counts.most_common()
    if len(kinds) > MAX_KINDS:
        kinds = [*kinds[:MAX_KINDS - 1], (OTHER, sum(n for _, n in kinds[MAX_KINDS - 1:]))]
    return {"error_messages": [m for m, _ in kinds], "error_counts": [n for _, n in kinds]}


def game_rows(cols: Columns, experiment: str, game_id: int, deal: int, rotation: int, table_id: int,
              seats: Sequence[int], entrants: Sequence[Entrant], result: GameResult, rules: RuleSet) -> None:
    """Append one row per seat of a finished game."""
    money = result.final_money
    eliminated = eliminations(result, rules)
    finish = finishing_order(money, eliminated)
    for seat, e_id in enumerate(seats):
        e = entrants[e_id]
        errs = result.errors[seat]
        held = result.treasures[seat]
        suits = dict.fromkeys(SUIT_COLUMNS, 0)
        for card in held:
            suits[card[-1]] += 1
        row = {
            "experiment": experiment, "game_id": game_id, "deal_id": deal, "rotation": rotation,
            "table_id": table_id, "seat": seat, "n_players": len(seats), "entrant_id": e_id, "entrant": e.label,
            "strategy": e.strategy, "params": e.params_json, "final_money": money[seat],
            "net": money[seat] - rules.starting_money, "win_share": result.win_shares[seat],
            "rank": 1 + sum(m > money[seat] for m in money), "eliminated_hand": eliminated[seat],
            "finish": finish[seat], "hands_played": result.hands_played,
            "end_reason": result.end_reason, "decisions": result.decisions[seat], "errors": len(errs),
            "failed_decisions": result.failed_decisions[seat] if result.failed_decisions else
            min(len(errs), result.decisions[seat]),
            "timeouts": result.timeouts[seat],
            "first_error": errs[0][:MAX_MESSAGE] if errs else None, **error_kinds(errs), "treasures": " ".join(held),
            "decision_time": result.decision_time[seat],
        }
        for suit, name in SUIT_COLUMNS.items():
            row[name] = suits[suit]
        for name, value in row.items():
            cols[name].append(value)


def hand_rows(cols: Columns, experiment: str, game_id: int, hands: Sequence[HandRecord]) -> None:
    """Append one row per hand of a game."""
    for h in hands:
        categories = {s.seat: s.category for s in h.shown}
        main_winners = h.pots[0].winners if h.pots else ()
        row = {
            "experiment": experiment, "game_id": game_id, "hand_no": h.hand_no, "dealer": h.dealer,
            "players_in_hand": sum(h.in_hand), "pot": h.pot, "players_at_showdown": len(h.shown),
            "winners": list(h.winners),
            "winning_category": categories.get(main_winners[0]) if main_winners else None,
            "last_folder": h.last_folder, "new_treasure": h.new_treasure, "treasure_taken": h.treasure_taken,
            "treasure_taker": h.treasure_taker if h.treasure_taken is not None else None,
            "spades_moved": sum(map(len, h.spades_moved)), "hearts_drawn": sum(map(len, h.drawn)),
            "steals": len(h.steals), "deck_size": h.deck_size_after, "void": h.void,
            "deck_ran_out": h.deck_ran_out, "bot_errors": len(h.errors), "money_after": list(h.money_after),
            "shared": list(h.shared), "given_up": [card for _, card in h.given_up], "removed": list(h.removed),
        }
        for name, value in row.items():
            cols[name].append(value)


def seat_rows(cols: Columns, experiment: str, game_id: int, hands: Sequence[HandRecord]) -> None:
    """Append one row per seat dealt into each hand: what it held, put in, did and won (poker statistics,
    and the chance events that luck adjustment needs)."""
    for h in hands:
        n = len(h.in_hand)
        put_in = [[0, 0, 0, 0] for _ in range(n)]
        bets, calls, checks = [0] * n, [0] * n, [0] * n
        folded_round: list[int | None] = [None] * n
        for a in h.actions:
            put_in[a.seat][a.round] += a.added
            if a.kind == "raise":
                bets[a.seat] += 1
            elif a.kind == "call":
                calls[a.seat] += 1
            elif a.kind == "check":
                checks[a.seat] += 1
            else:
                folded_round[a.seat] = a.round
        vpip = {a.seat for a in h.actions if a.round == 0 and a.kind in ("call", "raise")}
        pfr = {a.seat for a in h.actions if a.round == 0 and a.kind == "raise"}
        shown = {s.seat for s in h.shown}
        won = [0] * n
        for pot in h.pots:
            for w, chips in zip(pot.winners, pot.shares, strict=True):
                won[w] += chips
        stole = [sum(1 for s in h.steals if s.seat == seat) for seat in range(n)]
        robbed = [sum(1 for s in h.steals if s.victim == seat) for seat in range(n)]
        saw = len(h.shared) > 0
        for seat in range(n):
            if not h.in_hand[seat]:
                continue
            folded = folded_round[seat]
            row = {
                "experiment": experiment, "game_id": game_id, "hand_no": h.hand_no, "seat": seat,
                "stack": h.money_after[seat] - h.payouts[seat], "net": h.payouts[seat],
                "hole": list(h.hole[seat] or ()),
                "treasures_before": list(h.treasures_before[seat]) if h.treasures_before else [],
                "put_in": [h.antes[seat], *put_in[seat]], "folded_round": folded,
                "bets": bets[seat], "calls": calls[seat], "checks": checks[seat], "vpip": seat in vpip,
                "pfr": seat in pfr, "saw_shared": saw and (folded is None or folded > 0),
                "showdown": seat in shown, "won": won[seat], "last_folder": h.last_folder == seat,
                "treasure_taken": h.treasure_taken if h.treasure_taker == seat else None,
                "spades_moved": list(h.spades_moved[seat]), "hearts_drawn": list(h.drawn[seat]),
                "steals": stole[seat], "stolen_from": robbed[seat],
                "errors": sum(1 for s, _ in h.errors if s == seat),
            }
            for name, value in row.items():
                cols[name].append(value)


def mixed_rows(cols: Columns, experiment: str, game_id: int, hands: Sequence[HandRecord]) -> None:
    """Append one row per betting decision drawn from a bot's declared chances: what the action correction reads."""
    for h in hands:
        for m in h.mixed:
            row = {"experiment": experiment, "game_id": game_id, "hand_no": h.hand_no, "seat": m.seat,
                   "round": m.round, "fold_chance": m.fold_chance, "committed": list(m.committed),
                   "still_in": list(m.still_in), "to_call": m.to_call, "folded": m.folded}
            for name, value in row.items():
                cols[name].append(value)


def to_tables(columns: dict[str, Columns]) -> dict[str, pa.Table]:
    """Typed Arrow tables (cheap to pickle back to the parent, written as they are)."""
    return {table: pa.Table.from_pydict(cols, schema=SCHEMAS[table]) for table, cols in columns.items()}
