"""The hands of a results folder as card and chip arrays: what the luck adjustment (`luck`) walks through.

Cards are integer ids (`treasure_sim.game.cards`); a set of cards is a 54-bit mask in a uint64. One row per hand,
one column per seat. The deck at the start of a hand is a uniform shuffle of every card in no Treasure Zone, so the
luck adjustment needs every zone, including those of seats out of the game, which the seats table does not list.
`_decks` rebuilds them from the record (see its docstring); a hand whose deck it cannot pin down exactly is marked
``deck_known = False`` and left uncorrected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..game.cards import format_card
from ..run.store import read_games, read_hands, read_manifest, read_seats, read_table

NAMES = pa.array([format_card(c) for c in range(54)])
RANK_BITS = np.zeros(256, np.uint16)  # 1 << rank by card id (int8 ids read as uint8: -1 -> 255 -> 0; Jokers 0)
RANK_BITS[:52] = 1 << (np.arange(52) // 4)
ONE = np.uint64(1)
DIAMONDS = sum(1 << (4 * r + 3) for r in range(13))
NOT_FOLDED = 4  # ``folded`` of a seat that never folded (rounds are 0..3)

SEAT_COLUMNS = ["game_id", "hand_no", "seat", "stack", "hole", "treasures_before", "put_in", "folded_round",
                "spades_moved", "hearts_drawn", "net", "won", "steals", "treasure_taken"]
HAND_COLUMNS = ["game_id", "hand_no", "dealer", "players_in_hand", "shared", "new_treasure", "treasure_taken",
                "steals", "deck_size", "void", "hearts_drawn"]
MIXED_COLUMNS = ["game_id", "hand_no", "seat", "round", "fold_chance", "committed", "still_in", "to_call", "folded"]
GAME_COLUMNS = ["experiment", "game_id", "deal_id", "table_id", "seat", "n_players", "entrant", "net", "final_money"]


@dataclass(frozen=True)
class Decisions:
    """The betting decisions drawn from a bot's declared chances (the ``mixed`` table), one row each, hand order."""

    hand: np.ndarray  # the row of its hand in `Hands`
    seat: np.ndarray
    round: np.ndarray
    fold_chance: np.ndarray
    committed: np.ndarray  # [decision, seat] chips in just before it
    still_in: np.ndarray  # [decision, seat] bool
    to_call: np.ndarray
    folded: np.ndarray  # bool: what the engine drew

    @staticmethod
    def none(n_seats: int) -> Decisions:
        empty = np.zeros(0, np.int64)
        return Decisions(empty, empty, empty, np.zeros(0), np.zeros((0, n_seats), np.int64),
                         np.zeros((0, n_seats), bool), empty, np.zeros(0, bool))

    def __len__(self) -> int:
        return len(self.hand)


@dataclass(frozen=True)
class Hands:
    """Every hand of a folder as arrays: ``[hand]`` per hand, ``[hand, seat]`` per seat, cards padded with -1."""

    rules: dict[str, Any]
    game: np.ndarray  # game_id
    deal: np.ndarray  # deal_id
    hand_no: np.ndarray
    dealer: np.ndarray
    order: np.ndarray  # [hand, k]: the seats dealt in, in turn order (from left of the dealer), then -1
    in_hand: np.ndarray  # [hand, seat] bool
    hole: np.ndarray  # [hand, seat, 2] int8
    zone: np.ndarray  # [hand, seat] uint64: the seat's Treasure Zone when the hand began
    wild: np.ndarray  # [hand, seat] uint16: ranks wild for the seat (its Clubs, when the rules have them)
    hearts: np.ndarray  # [hand, seat] uint16: its Hearts ranks (0 when the rules have no Hearts)
    put_in: np.ndarray  # [hand, seat, 5] chips: ante, then the four betting rounds
    folded: np.ndarray  # [hand, seat] the round it folded in, NOT_FOLDED if it did not
    spades: np.ndarray  # [hand, seat, k] Spades moved to its hand at step 11
    draws: np.ndarray  # [hand, seat, k] its Hearts draws, in order
    stack: np.ndarray  # [hand, seat] chips before the ante
    net: np.ndarray  # [hand, seat] chips won or lost
    won: np.ndarray  # [hand, seat] chips won from the pots
    shared: np.ndarray  # [hand, 5] int8
    new_treasure: np.ndarray  # [hand] int8, -1 if none
    void: np.ndarray  # [hand] bool
    deck0: np.ndarray  # [hand] uint64: the cards the hand was dealt from
    deck_known: np.ndarray  # [hand] bool: deck0 is exact (see `_decks`)
    seed: int | None = None  # the run's seed: with the deal id it seeds the luck adjustment's own shuffles
    decisions: Decisions = field(default_factory=lambda: Decisions.none(0))  # drawn from declared chances

    @property
    def n_hands(self) -> int:
        return len(self.game)

    @property
    def n_seats(self) -> int:
        return self.in_hand.shape[1]


def bits(ids: np.ndarray) -> np.ndarray:
    """Card masks of id arrays (-1 pads count for nothing), ORed over the last axis."""
    ids = np.asarray(ids)
    one = np.where(ids >= 0, ONE << np.maximum(ids, 0).astype(np.uint64), np.uint64(0))
    return np.bitwise_or.reduce(one, axis=-1) if one.ndim else one


def suit_ranks(mask: np.ndarray, suit: int) -> np.ndarray:
    """The 13-bit rank mask of the cards of one suit in card masks."""
    out = np.zeros(np.shape(mask), np.uint16)
    for r in range(13):
        out |= (((mask >> np.uint64(4 * r + suit)) & ONE) << np.uint64(r)).astype(np.uint16)
    return out


def _card_lists(column: pa.ChunkedArray | pa.Array, width: int | None = None) -> np.ndarray:
    """A list<string> column of card names as a [row, k] int8 array padded with -1."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    lengths = pc.fill_null(pc.list_value_length(column), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    ids = pc.index_in(pc.list_flatten(column), value_set=NAMES).to_numpy(zero_copy_only=False)
    width = int(lengths.max(initial=0)) if width is None else width
    out = np.full((len(lengths), max(width, 1)), -1, np.int8)
    if ids.size:
        row = np.repeat(np.arange(len(lengths)), lengths)
        pos = np.arange(ids.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[row, pos] = ids
    return out


def _card(column: pa.ChunkedArray) -> np.ndarray:
    """A string column of card names (nullable) as int8 ids, -1 for null."""
    return pc.fill_null(pc.index_in(column, value_set=NAMES), -1).to_numpy(zero_copy_only=False).astype(np.int8)


def load(path: str | Path) -> tuple[Hands, pa.Table]:
    """The hands of a results folder (every part verified by the store's readers) and its games table."""
    manifest = read_manifest(path)
    if manifest is None:
        raise FileNotFoundError(f"{path} is not a results folder")
    seats = read_seats(path, SEAT_COLUMNS)
    hands = read_hands(path, HAND_COLUMNS)
    games = read_games(path, GAME_COLUMNS)
    mixed = read_table(path, "mixed", MIXED_COLUMNS)
    return build(seats, hands, games, manifest.rules, manifest.seed, mixed), games


def build(seats: pa.Table, hands: pa.Table, games: pa.Table, rules: dict[str, Any], seed: int | None = None,
          mixed: pa.Table | None = None) -> Hands:
    """`Hands` from the three tables (any order of rows), the run's rules and its seed; with ``mixed`` (the table
    of decisions drawn from declared chances) also its `Decisions`."""
    hands = hands.sort_by([("game_id", "ascending"), ("hand_no", "ascending")])
    game = hands["game_id"].to_numpy().astype(np.int64)
    hand_no = hands["hand_no"].to_numpy().astype(np.int64)
    span = int(hand_no.max(initial=0)) + 1
    key = game * span + hand_no
    g_game = games["game_id"].to_numpy().astype(np.int64)
    n = int(pc.max(games["n_players"]).as_py() or 0) if games.num_rows else 0
    deal_of = dict(zip(g_game.tolist(), games["deal_id"].to_numpy().tolist(), strict=True))
    h = len(game)

    s_key = seats["game_id"].to_numpy().astype(np.int64) * span + seats["hand_no"].to_numpy().astype(np.int64)
    row = np.searchsorted(key, s_key)
    if (len(key) == 0 and len(s_key)) or (len(s_key) and (row.max() >= h or (key[row] != s_key).any())):
        raise ValueError("the seats table has a hand that the hands table lacks")
    seat = seats["seat"].to_numpy().astype(np.int64)

    def per_seat(values: np.ndarray, fill: Any, dtype: Any) -> np.ndarray:
        out = np.full((h, n, *values.shape[1:]), fill, dtype)
        out[row, seat] = values
        return out

    clubs, hearts_on = rules.get("clubs", True), rules.get("hearts", True)
    zone_rows = bits(_card_lists(seats["treasures_before"]))
    zone = per_seat(zone_rows, 0, np.uint64)
    folded = pc.fill_null(seats["folded_round"], NOT_FOLDED).to_numpy(zero_copy_only=False).astype(np.int8)
    dealer = hands["dealer"].to_numpy().astype(np.int64)
    in_hand = per_seat(np.ones(len(seat), bool), False, bool)
    rel = (np.arange(n)[None, :] - dealer[:, None] - 1) % max(n, 1)  # turn position of each seat
    rel = np.where(in_hand, rel, n + np.arange(n)[None, :])
    order = np.argsort(rel, axis=1, kind="stable")
    order = np.where(np.take_along_axis(in_hand, order, axis=1), order, -1)

    out = Hands(
        rules=rules, game=game, deal=np.array([deal_of.get(g, -1) for g in game.tolist()], np.int64),
        hand_no=hand_no, dealer=dealer, order=order, in_hand=in_hand,
        hole=per_seat(_card_lists(seats["hole"], 2), -1, np.int8),
        zone=zone,
        wild=suit_ranks(zone, 1) if clubs else np.zeros((h, n), np.uint16),
        hearts=suit_ranks(zone, 2) if hearts_on else np.zeros((h, n), np.uint16),
        put_in=per_seat(_card_put_in(seats["put_in"]), 0, np.int64),
        folded=per_seat(folded, NOT_FOLDED, np.int8),
        spades=per_seat(_card_lists(seats["spades_moved"]), -1, np.int8),
        draws=per_seat(_card_lists(seats["hearts_drawn"]), -1, np.int8),
        stack=per_seat(seats["stack"].to_numpy().astype(np.int64), 0, np.int64),
        net=per_seat(seats["net"].to_numpy().astype(np.int64), 0, np.int64),
        won=per_seat(seats["won"].to_numpy().astype(np.int64), 0, np.int64),
        shared=_card_lists(hands["shared"], 5),
        new_treasure=_card(hands["new_treasure"]),
        void=hands["void"].to_numpy(zero_copy_only=False).astype(bool),
        deck0=np.zeros(h, np.uint64), deck_known=np.zeros(h, bool), seed=seed,
        decisions=_decisions(mixed, key, span, n) if mixed is not None else Decisions.none(n),
    )
    _decks(out, hands, seats, row, seat)
    return out


def _decisions(mixed: pa.Table, key: np.ndarray, span: int, n: int) -> Decisions:
    """The mixed table's rows as `Decisions`, each placed at its hand's row (``key``: game_id * span + hand_no)."""
    mixed = mixed.sort_by([("game_id", "ascending"), ("hand_no", "ascending")])
    m_key = mixed["game_id"].to_numpy().astype(np.int64) * span + mixed["hand_no"].to_numpy().astype(np.int64)
    row = np.searchsorted(key, m_key)
    if len(m_key) and (row.max() >= len(key) or (key[row] != m_key).any()):
        raise ValueError("the mixed table has a hand that the hands table lacks")

    def per_seat(column: str, dtype: Any) -> np.ndarray:
        lists = mixed[column].combine_chunks()
        flat = pc.list_flatten(lists).to_numpy(zero_copy_only=False).astype(dtype)
        lengths = pc.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)
        out = np.zeros((len(lengths), n), dtype)
        out[np.repeat(np.arange(len(lengths)), lengths), np.arange(flat.size) - np.repeat(
            np.cumsum(lengths) - lengths, lengths)] = flat
        return out

    column = lambda name, dtype: mixed[name].to_numpy(zero_copy_only=False).astype(dtype)  # noqa: E731
    return Decisions(hand=row, seat=column("seat", np.int64), round=column("round", np.int64),
                     fold_chance=column("fold_chance", float), committed=per_seat("committed", np.int64),
                     still_in=per_seat("still_in", bool), to_call=column("to_call", np.int64),
                     folded=column("folded", bool))


def _card_put_in(column: pa.ChunkedArray) -> np.ndarray:
    flat = pc.list_flatten(column.combine_chunks()).to_numpy(zero_copy_only=False).astype(np.int64)
    return flat.reshape(-1, 5)


def _decks(out: Hands, hands: pa.Table, seats: pa.Table, row: np.ndarray, seat: np.ndarray) -> None:
    """Fill ``deck0`` and ``deck_known``: the cards each hand was dealt from, where the record pins them down.

    The zones' union U changes between hands only by the card the last folder took (in), the Spades moved to hands
    (out) and the Diamonds spent on steals (out, to the deck); steals move cards between zones. The seats table lists
    the zones of the seats dealt in, not of seats out of the game, so U is carried forward from the first hand (when
    every seat plays). Which Diamonds a thief spent is not recorded: they are its step-16 Diamonds that are in no zone
    of a seat dealt into the next hand. If more are missing than there were steals, one of them went to a seat that is
    out of the game and the rest of the game is marked unknown (decided from what was known when the hand began, so
    leaving those hands uncorrected keeps every correction unbiased). Each deck is then checked against the deck size
    the hands table records after the hand (the Diamonds spent go under the deck).
    """
    n_cards = 52 + int(out.rules.get("jokers", 2))
    full = (1 << n_cards) - 1
    h = out.n_hands
    in_zones = np.bitwise_or.reduce(np.where(out.in_hand, out.zone, np.uint64(0)), axis=1)
    taken = bits(_card(hands["treasure_taken"])[:, None].astype(np.int64))
    spade_rows = bits(_card_lists(seats["spades_moved"]))
    spades = np.zeros(h, np.uint64)
    np.bitwise_or.at(spades, row, spade_rows)
    thief = seats["steals"].to_numpy().astype(np.int64) > 0
    own_taken = bits(_card(seats["treasure_taken"])[:, None].astype(np.int64))
    step16 = (out.zone[row, seat] | own_taken) & ~spade_rows & np.uint64(DIAMONDS)
    spendable = np.zeros(h, np.uint64)
    np.bitwise_or.at(spendable, row[thief], step16[thief])
    steals = hands["steals"].to_numpy().astype(np.int64)
    n_players = out.in_hand.shape[1]
    everyone = out.in_hand.sum(axis=1) == n_players

    z, t, sp, sd, st, g = (a.tolist() for a in (in_zones, taken, spades, spendable, steals, out.game))
    ev = everyone.tolist()
    deck0 = [0] * h
    known = [False] * h
    union, ok = 0, False
    for i in range(h):
        if i == 0 or g[i] != g[i - 1]:
            union, ok = z[i], ev[i]
        if ok and z[i] & ~union:
            ok = False
        known[i], deck0[i] = ok, full & ~union
        if i + 1 < h and g[i + 1] == g[i] and ok:
            union = (union | t[i]) & ~sp[i]
            if st[i]:
                missing = sd[i] & ~z[i + 1]
                if missing.bit_count() == st[i]:
                    union &= ~missing
                else:
                    ok = False
    out.deck0[:] = np.array(deck0, np.uint64)
    known_arr = np.array(known, bool)
    dealt = (2 * out.in_hand.sum(axis=1) + (out.new_treasure >= 0) + (out.shared >= 0).sum(axis=1)
             + (out.draws >= 0).sum(axis=(1, 2)))
    expected = np.bitwise_count(out.deck0).astype(np.int64) - dealt + steals
    recorded = hands["deck_size"].to_numpy().astype(np.int64)
    out.deck_known[:] = known_arr & (out.void | (expected == recorded))
