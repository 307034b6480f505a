"""Rows of the results tables, built in the workers from game records: each table's values in one flat list, row
after row in the order of its schema (a row is appended as one tuple, ``list.extend``), turned into columns and
Arrow once per task (`to_tables`).

Why flat: a row is one tuple built and appended, whatever its width, and the tuple is freed at once; the record's own
tuples (hole cards, committed chips) go in as they are, uncopied. A column is then a slice (``values[i::width]``, in
C). Kept rows as tuples would be objects the garbage collector traverses again and again while a task plays
(measured: 8% of a task's CPU went to collections, 6% after), and making columns of them took an iterator a row."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import numpy as np
import pyarrow as pa

from ..game.history import GameResult, HandRecord
from ..game.rules import RuleSet
from .experiment import Entrant
from .store import SCHEMAS, SUIT_COLUMNS

MAX_MESSAGE = 300  # characters of a bot's first error kept in the games table
_amount = attrgetter("amount")

Columns = list[Any]  # a table's rows so far, flat: row after row, each in the order of its schema's columns


def new_columns() -> dict[str, Columns]:
    """Empty flat row lists per table: workers extend them by one tuple per row, then `to_tables`."""
    return {table: [] for table in SCHEMAS}


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
    n_players = len(seats)
    for seat, e_id in enumerate(seats):
        e = entrants[e_id]
        errs = result.errors[seat]
        held = result.treasures[seat]
        suits = dict.fromkeys(SUIT_COLUMNS, 0)
        for card in held:
            suits[card[-1]] += 1
        mine = money[seat]
        cols.extend((
            experiment, game_id, deal, rotation, table_id, seat, n_players, e_id, e.label, e.strategy,
            e.params_json, mine, mine - rules.starting_money, result.win_shares[seat],
            1 + sum(m > mine for m in money), eliminated[seat], finish[seat], result.hands_played,
            result.end_reason, result.decisions[seat], len(errs),
            result.failed_decisions[seat] if result.failed_decisions else min(len(errs), result.decisions[seat]),
            result.timeouts[seat], errs[0][:MAX_MESSAGE] if errs else None, *error_kinds(errs).values(),
            " ".join(held),
            suits["s"], suits["c"], suits["h"], suits["d"], result.decision_time[seat],
        ))


def hand_rows(cols: Columns, experiment: str, game_id: int, hands: Sequence[HandRecord]) -> None:
    """Append one row per hand of a game."""
    add = cols.extend
    for h in hands:
        pots = h.pots
        category = None
        if pots:
            first = pots[0].winners[0] if pots[0].winners else None
            for shown in h.shown:
                if shown.seat == first:
                    category = shown.category
                    break
        taken = h.treasure_taken
        add((
            experiment, game_id, h.hand_no, h.dealer, sum(h.in_hand), sum(map(_amount, pots)), len(h.shown),
            h.winners, category, h.last_folder, h.new_treasure, taken,
            h.treasure_taker if taken is not None else None,
            sum(map(len, h.spades_moved)), sum(map(len, h.drawn)), len(h.steals), h.deck_size_after, h.void,
            h.deck_ran_out, len(h.errors), h.money_after, h.shared, tuple([card for _, card in h.given_up]), h.removed,
        ))


_NONE = [[0] * n for n in range(11)]  # per table size: a count of 0 for every seat (never written to)


def seat_rows(cols: Columns, experiment: str, game_id: int, hands: Sequence[HandRecord]) -> None:
    """Append one row per seat dealt into each hand: what it held, put in, did and won (poker statistics,
    and the chance events that luck adjustment needs)."""
    add = cols.extend
    for h in hands:
        in_hand = h.in_hand
        n = len(in_hand)
        put_in = []  # per seat: the ante, then each betting round
        for ante in h.antes:  # a loop, not a comprehension (a function call in 3.11): once per hand
            put_in.append([ante, 0, 0, 0, 0])
        bets, calls, checks, won = [0] * n, [0] * n, [0] * n, [0] * n
        folded_round: list[int | None] = [None] * n
        vpip, pfr = [False] * n, [False] * n
        for rnd, seat, kind, _, added, _ in h.actions:
            put_in[seat][rnd + 1] += added
            if kind == "raise":
                bets[seat] += 1
                if rnd == 0:
                    vpip[seat] = pfr[seat] = True
            elif kind == "call":
                calls[seat] += 1
                if rnd == 0:
                    vpip[seat] = True
            elif kind == "check":
                checks[seat] += 1
            else:
                folded_round[seat] = rnd
        shown = [False] * n
        for hand in h.shown:
            shown[hand.seat] = True
        for pot in h.pots:
            for w, chips in zip(pot.winners, pot.shares, strict=True):
                won[w] += chips
        stole = robbed = errors = _NONE[n]  # read only: a list of its own only where something happened
        if h.steals:
            stole, robbed = [0] * n, [0] * n
            for steal in h.steals:
                stole[steal.seat] += 1
                robbed[steal.victim] += 1
        if h.errors:
            errors = [0] * n
            for erred, _ in h.errors:
                errors[erred] += 1
        saw = len(h.shared) > 0
        hand_no, hole, before, payouts, money = h.hand_no, h.hole, h.treasures_before, h.payouts, h.money_after
        last, taken, taker = h.last_folder, h.treasure_taken, h.treasure_taker
        moved, drawn = h.spades_moved, h.drawn
        for seat in range(n):
            if not in_hand[seat]:
                continue
            folded = folded_round[seat]
            add((
                experiment, game_id, hand_no, seat, money[seat] - payouts[seat], payouts[seat], hole[seat] or (),
                before[seat] if before else (), tuple(put_in[seat]), folded, bets[seat], calls[seat], checks[seat],
                vpip[seat], pfr[seat], saw and (folded is None or folded > 0), shown[seat], won[seat],
                last == seat, taken if taker == seat else None, moved[seat], drawn[seat], stole[seat],
                robbed[seat], errors[seat],
            ))


def mixed_rows(cols: Columns, experiment: str, game_id: int, hands: Sequence[HandRecord]) -> None:
    """Append one row per betting decision drawn from a bot's declared chances: what the action correction reads."""
    add = cols.extend
    for h in hands:
        hand_no = h.hand_no
        for rnd, seat, fold_chance, committed, still_in, to_call, folded in h.mixed:
            add((experiment, game_id, hand_no, seat, rnd, fold_chance, committed, still_in, to_call, folded))


def to_tables(columns: dict[str, Columns]) -> dict[str, pa.Table]:
    """Typed Arrow tables (cheap to pickle back to the parent, written as they are)."""
    tables = {}
    for table, values in columns.items():
        schema = SCHEMAS[table]
        width = len(schema)
        if len(values) % width:
            raise ValueError(f"the {table} rows are not all {width} values wide")
        arrays = [_array(values[i::width], field.type) for i, field in enumerate(schema)]
        tables[table] = pa.Table.from_arrays(arrays, schema=schema)
    return tables


def _array(column: list[Any], kind: pa.DataType) -> pa.Array:
    """``pa.array(column, kind)``; a dictionary column of one value throughout (the experiment's name) without
    hashing every row's string."""
    if (column and column[0] is not None and pa.types.is_dictionary(kind) and kind.index_type == pa.int32()
            and column.count(column[0]) == len(column)):  # list.count: in C, identity first
        # the indices made an Arrow array first: from_arrays given numpy indices takes ~20 ms for 20,000 rows
        return pa.DictionaryArray.from_arrays(pa.array(np.zeros(len(column), np.int32)),
                                              pa.array(column[:1], kind.value_type))
    return pa.array(column, kind)
