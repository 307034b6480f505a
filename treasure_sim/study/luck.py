"""Luck-adjusted results: control variates over the chance events of every hand and the drawn actions (AIVAT).

At each chance event of a hand (the hole cards, the New Treasure, the shared cards 2-2-1, each Hearts draw) the
luck of a seat is its value just after the event minus the mean of that value over every outcome the event could
have had (every card that could have come, given everything dealt before it). Its expectation given the past is
exactly zero whatever the value function, so ``net - luck`` has the same expected value as ``net`` (unbiased), and
a smaller spread when the value tracks what the cards did to the seat's chips. The value (`luck_values`) is the seat's
all-cards-known share of the pots as they stand, by exact enumeration or by Monte Carlo over shuffles drawn
independently of the game's cards (unbiased either way). Events in small pots are left uncorrected (their luck is
a few chips at most; leaving an event out, decided before it happens, keeps the estimator unbiased).

At a betting decision the engine drew from chances a bot declared (``Mixed``) the luck is that of the draw:
AIVAT's action correction (`luck_actions`), the event kind "action".

Luck sums to zero over the seats of each event. It is subtracted times a *chip value* per entrant and lineup,
cross-fitted on other deals (`chip_values`), so that a bot that loses everything anyway is not charged luck it
never kept. See docs/luck.md for the method, its validation and its effect.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Generator, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..run.store import DamagedResults, Part, read_games, read_manifest, read_part
from .luck_actions import action_events
from .luck_hands import (
    GAME_COLUMNS,
    HAND_COLUMNS,
    MIXED_COLUMNS,
    NOT_FOLDED,
    RANK_BITS,
    SEAT_COLUMNS,
    Hands,
    bits,
    build,
)
from .luck_values import States, deal_shuffles, shuffle_key, values  # noqa: F401  (shuffle_key: luck's own API)

KINDS = ("hole", "treasure", "flop", "turn", "river", "hearts", "action")
"""The chance events, in the hand's order, then "action": the draws from chances a bot declared (``Mixed``)."""
LUCK_COLUMNS = tuple(f"luck_{k}" for k in KINDS)


@dataclass(frozen=True)
class Settings:
    """How hard to work: which events to correct and how many Monte Carlo shuffles per state."""

    min_pot: int = 8  # events with fewer chips in the pot than this are not corrected
    samples_per_chip: float = 1.0  # Monte Carlo shuffles per chip in the pot, rounded to a power of two ...
    min_samples: int = 32  # ... within these bounds
    max_samples: int = 256
    hearts_budget: int = 8  # Hearts draws per hand the value function simulates (0: it ignores draws to come)
    kinds: tuple[str, ...] = KINDS
    chunk_hands: int = 1000  # hands per batch, in whole deals: memory only (the values are the same whatever the size)

    def samples(self, pot: np.ndarray) -> np.ndarray:
        want = np.maximum(np.asarray(pot, float) * self.samples_per_chip, 1)
        return np.clip(2 ** np.round(np.log2(want)), self.min_samples, self.max_samples).astype(np.int64)


@dataclass
class Events:
    """One row per corrected chance event: the hand, the kind, the pot at the event, each seat's luck."""

    hand: np.ndarray
    kind: np.ndarray
    pot: np.ndarray
    luck: np.ndarray  # (events, seats)
    skipped: dict[str, int] = field(default_factory=dict)


def _usable(h: Hands) -> np.ndarray:
    """Hands whose deck is known and large enough to finish the shared cards (else the hand could turn void)."""
    players = h.in_hand.sum(axis=1)
    need = 2 * players + (h.new_treasure >= 0) + 5
    return h.deck_known & ~h.void & (np.bitwise_count(h.deck0).astype(np.int64) >= need)


def _base(h: Hands, idx: np.ndarray, rounds: int, fold_after: int, budget: int) -> dict:
    """Fields shared by the states of the board events of hands ``idx`` after ``rounds`` chip entries."""
    m, n = len(idx), h.n_seats
    contender = h.in_hand[idx] & (h.folded[idx] >= fold_after)
    return dict(order=h.order[idx], contender=contender, wild=h.wild[idx], hearts=h.hearts[idx],
                owed=np.full((m, n), -1, np.int64), budget=np.full(m, budget, np.int64),
                commit=h.put_in[idx, :, :rounds].sum(axis=2), deal_holes=np.zeros(m, bool), burn=np.zeros(m, np.int64))


def _board_events(h: Hands, idx: np.ndarray, kind: str, budget: int) -> tuple[dict, dict, np.ndarray]:
    """Before and after states of one board event kind in hands ``idx`` (those where it happened)."""
    holes = bits(h.hole[idx].reshape(len(idx), -1))
    nt = bits(h.new_treasure[idx][:, None])
    shared = h.shared[idx]
    blank = np.full_like(shared, -1)
    known = h.hole[idx]
    if kind in ("hole", "treasure"):
        base = _base(h, idx, 1, 0, budget)
        after_holes = dict(base, deck=h.deck0[idx] & ~holes, known=known, shared=blank)
        if kind == "hole":
            before = dict(base, deck=h.deck0[idx], known=np.full_like(known, -1), shared=blank,
                          deal_holes=np.ones(len(idx), bool))
            return before, after_holes, np.ones(len(idx), bool)
        # before the New Treasure the model deals it face down first: with a short deck, the card it takes could
        # otherwise still have come as a Hearts draw, and the value before would not be the mean of the value after
        before_nt = dict(after_holes, burn=np.ones(len(idx), np.int64))
        return before_nt, dict(after_holes, deck=after_holes["deck"] & ~nt), h.new_treasure[idx] >= 0
    first, last, rounds = {"flop": (0, 2, 2), "turn": (2, 4, 3), "river": (4, 5, 4)}[kind]
    base = _base(h, idx, rounds, rounds - 1, budget)
    deck = h.deck0[idx] & ~holes & ~nt & ~bits(shared[:, :first])
    before = dict(base, deck=deck, known=known, shared=np.where(np.arange(5) < first, shared, -1))
    after = dict(base, deck=deck & ~bits(shared[:, first:last]), known=known,
                 shared=np.where(np.arange(5) < last, shared, -1))
    return before, after, shared[:, last - 1] >= 0


def _hearts_events(h: Hands, idx: np.ndarray, chain: bool, budget: int) -> tuple[dict, dict, np.ndarray, int]:
    """Before and after states of every Hearts draw in hands ``idx``; also how many draws were left out (the record
    says the seat had no draw left: never, when the record is read right).

    Before a draw the model may make ``budget`` minus the draws made so far in the hand, and at least this one;
    after it, one fewer: so the value before is exactly the mean of the value after over the card drawn."""
    hand, seat, j = np.nonzero(h.draws[idx] >= 0)
    e = len(hand)
    n = h.n_seats
    if e == 0:
        return {}, {}, np.zeros(0, bool), 0
    g = idx[hand]
    order = h.order[g]
    position = np.full((e, n), n)  # seat -> its turn position (n for a seat not dealt in)
    for t in range(n):
        dealt = order[:, t] >= 0
        position[np.flatnonzero(dealt), order[dealt, t]] = t
    pos_s = position[np.arange(e), seat]
    draws = h.draws[g]
    before_me = position < pos_s[:, None]
    col = np.arange(draws.shape[2])
    seen = np.where(before_me[:, :, None] | ((np.arange(n)[None, :, None] == seat[:, None, None])
                                             & (col[None, None, :] < j[:, None, None])), draws, -1)
    shared = h.shared[g]
    hand_cards = np.concatenate([h.hole[g], h.spades[g]], axis=2)
    owed0 = ((RANK_BITS[np.concatenate([hand_cards, np.broadcast_to(shared[:, None, :], (e, n, 5))], axis=2)
                        .view(np.uint8)] & h.hearts[g][:, :, None]) != 0).sum(axis=2)
    matches = ((RANK_BITS[seen.view(np.uint8)] & h.hearts[g][:, :, None]) != 0).sum(axis=2) * chain
    rows = np.arange(e)
    before_budget = np.maximum(budget - (seen >= 0).sum(axis=(1, 2)), 1)
    owed_me = owed0[rows, seat] - j + matches[rows, seat]
    contender = h.in_hand[g] & (h.folded[g] == NOT_FOLDED)
    later = position > pos_s[:, None]
    hearts = np.where(later & (owed0 > 0), h.hearts[g], 0).astype(np.uint16)
    hearts[rows, seat] = h.hearts[g][rows, seat]
    owed = np.where(later, owed0, 0)
    owed[rows, seat] = owed_me
    deck = (h.deck0[g] & ~bits(h.hole[g].reshape(e, -1)) & ~bits(h.new_treasure[g][:, None]) & ~bits(shared)
            & ~bits(seen.reshape(e, -1)))
    base = dict(order=order, contender=contender, wild=h.wild[g], commit=h.put_in[g].sum(axis=2),
                deal_holes=np.zeros(e, bool), shared=shared, burn=np.zeros(e, np.int64))
    before = dict(base, deck=deck, known=np.concatenate([hand_cards, seen], axis=2), hearts=hearts, owed=owed,
                  budget=before_budget)
    card = draws[rows, seat, j]
    seen_after = seen.copy()
    seen_after[rows, seat, j] = card
    owed_after = owed.copy()
    owed_after[rows, seat] = owed_me - 1 + chain * ((RANK_BITS[card.view(np.uint8)] & h.hearts[g][rows, seat]) != 0)
    hearts_after = hearts.copy()
    hearts_after[rows, seat] = np.where(owed_after[rows, seat] > 0, hearts[rows, seat], 0)
    after = dict(base, deck=deck & ~bits(card[:, None]), known=np.concatenate([hand_cards, seen_after], axis=2),
                 hearts=hearts_after, owed=owed_after, budget=before_budget - 1)
    ok = (owed_me >= 1) & contender[rows, seat]
    take = lambda d: {k: v[ok] for k, v in d.items()}  # noqa: E731
    return take(before), take(after), hand[ok], int((~ok).sum())


def _stack(parts: list[dict]) -> dict:
    """Concatenate state dicts, padding the per-seat card arrays to one width."""
    width = max(p["known"].shape[2] for p in parts)
    out = {}
    for key in parts[0]:
        arrays = [p[key] for p in parts]
        if key == "known":
            arrays = [np.pad(a, ((0, 0), (0, 0), (0, width - a.shape[2])), constant_values=-1) for a in arrays]
        out[key] = np.concatenate(arrays)
    return out


def _chunks(h: Hands, usable: np.ndarray, size: int) -> Iterator[np.ndarray]:
    """Usable hand indices in batches of whole deals (so every deal's shuffles are drawn the same way)."""
    idx = np.flatnonzero(usable)
    if not len(idx):
        return
    deals = h.deal[idx]
    cuts = np.flatnonzero(np.diff(deals)) + 1
    start = 0
    for cut in [*cuts.tolist(), len(idx)]:
        if cut - start >= size or cut == len(idx):
            yield idx[start:cut]
            start = cut


def hand_events(h: Hands, settings: Settings = Settings()) -> Events:
    """Every corrected chance event of every hand, with each seat's luck (see the module docstring)."""
    chain = bool(h.rules.get("hearts_chain", True))
    usable = _usable(h)
    order = np.lexsort((h.hand_no, h.game, h.deal))
    if not (np.diff(order) > 0).all():
        raise ValueError("hands must be sorted by deal, game and hand")
    out_hand: list[np.ndarray] = []
    out_kind: list[np.ndarray] = []
    out_pot: list[np.ndarray] = []
    out_luck: list[np.ndarray] = []
    skipped = {"hands with an unknown or short deck": int((~usable).sum()), "Hearts draws the record cannot explain": 0}
    for idx in _chunks(h, usable, settings.chunk_hands):
        befores, afters, hands_of, kinds = [], [], [], []
        for code, kind in enumerate(KINDS):
            if kind not in settings.kinds or kind == "action":  # the actions: `_add_actions`
                continue
            if kind == "hearts":
                before, after, which, dropped = _hearts_events(h, idx, chain, settings.hearts_budget)
                skipped["Hearts draws the record cannot explain"] += dropped
                if not len(which):
                    continue
                hand = idx[which]
            else:
                before, after, happened = _board_events(h, idx, kind, settings.hearts_budget)
                before = {k: v[happened] for k, v in before.items()}
                after = {k: v[happened] for k, v in after.items()}
                hand = idx[happened]
            pot = before["commit"].sum(axis=1)
            big = pot >= settings.min_pot
            befores.append({k: v[big] for k, v in before.items()})
            afters.append({k: v[big] for k, v in after.items()})
            hands_of.append(hand[big])
            kinds.append(np.full(int(big.sum()), code))
        if "action" in settings.kinds and len(h.decisions):
            parts = action_events(h, idx, settings, KINDS.index("action"))
            for out, part in zip((out_hand, out_kind, out_pot, out_luck), parts, strict=True):
                out.append(part)
        if not hands_of or not sum(map(len, hands_of)):
            continue
        hand = np.concatenate(hands_of)
        pre, post = _stack(befores), _stack(afters)
        pot = pre["commit"].sum(axis=1)
        k = settings.samples(pot)
        perms, start = deal_shuffles(h, hand, k)
        luck = (values(States(hand=start, samples=k, **post), perms, h.rules)
                - values(States(hand=start, samples=k, **pre), perms, h.rules))
        out_hand.append(hand)
        out_kind.append(np.concatenate(kinds))
        out_pot.append(pot)
        out_luck.append(luck)
    n = h.n_seats
    if not out_hand:
        return Events(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros((0, n)), skipped)
    return Events(np.concatenate(out_hand), np.concatenate(out_kind), np.concatenate(out_pot),
                  np.concatenate(out_luck), skipped)


def game_luck(h: Hands, events: Events) -> pd.DataFrame:
    """Per game and seat: the luck of each event kind (``luck_hole`` ... ``luck_hearts``) and their sum ``luck``."""
    games = np.unique(h.game)
    n = h.n_seats
    table = np.zeros((len(games), n, len(KINDS)))
    g = np.searchsorted(games, h.game[events.hand])
    for k in range(len(KINDS)):
        mine = events.kind == k
        np.add.at(table[:, :, k], g[mine], events.luck[mine])
    out = pd.DataFrame({"game_id": np.repeat(games, n), "seat": np.tile(np.arange(n), len(games))})
    for k, name in enumerate(LUCK_COLUMNS):
        out[name] = table[:, :, k].ravel()
    out["luck"] = table.sum(axis=2).ravel()
    return out


def showdown_values(h: Hands) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every hand shown down with a known deck: the value of its final state (every card dealt, every draw
    made) and what the seats really took from the pots (``won`` plus any uncalled bet returned). They agree to
    within the odd chips of split pots when the cards, zones, pots and rules are read right. Returns
    (hand indices, values, taken), per seat."""
    shown = _usable(h) & ((h.in_hand & (h.folded == NOT_FOLDED)).sum(axis=1) >= 2)
    idx = np.flatnonzero(shown)
    m, n = len(idx), h.n_seats
    state = States(hand=np.zeros(m, np.int64), samples=np.ones(m, np.int64), deck=h.deck0[idx],
                   deal_holes=np.zeros(m, bool), order=h.order[idx],
                   known=np.concatenate([h.hole[idx], h.spades[idx], h.draws[idx]], axis=2), shared=h.shared[idx],
                   contender=h.in_hand[idx] & (h.folded[idx] == NOT_FOLDED), wild=h.wild[idx],
                   hearts=np.zeros((m, n), np.uint16), owed=np.zeros((m, n), np.int64),
                   budget=np.zeros(m, np.int64), commit=h.put_in[idx].sum(axis=2))
    taken = h.net[idx] + h.put_in[idx].sum(axis=2)
    return idx, values(state, np.zeros((1, 54), np.int8), h.rules), taken


FOLDS = 5
COEF_BOUNDS = (0.0, 2.0)
MIN_TRAINING_DEALS = 10


def fold_of(deal: np.ndarray, folds: int = FOLDS) -> np.ndarray:
    """The cross-fitting fold of each deal: a fixed scramble of the deal id, so folds cut across lineups."""
    return ((np.asarray(deal, np.uint64) * np.uint64(0x9E3779B1)) % np.uint64(2**32) % np.uint64(folds)).astype(int)


def chip_values(games: pd.DataFrame, cells: list[list[str]], folds: int = FOLDS) -> np.ndarray:
    """Per row, the coefficient its luck is subtracted with: the chips of final net one chip of luck is worth.

    A chip won by a bot that will lose everything anyway is worth nothing at the end of the game, one won by a
    strong bot a chip or more; so per cell (an entrant in one lineup) the coefficient is the least-squares slope
    of per-deal net on per-deal luck (the control-variate coefficient), fitted on the *other* folds of deals
    only (cross-fitting): the coefficient of a deal never depends on that deal, so each correction still has
    expectation zero. ``cells`` lists the groupings from the finest down (say entrant and lineup, then entrant):
    a row takes the first whose other folds hold at least MIN_TRAINING_DEALS deals, else 1. Clipped to
    COEF_BOUNDS, so a few noisy deals cannot make it wild.
    """
    fold = fold_of(games["deal_id"].to_numpy(), folds)
    out = np.full(len(games), np.nan)
    for cell in cells:
        per = games.groupby([*cell, "deal_id"], observed=True, sort=False)[["net", "luck"]].mean().reset_index()
        per_fold = fold_of(per["deal_id"].to_numpy(), folds)
        per_cell = per[cell].astype(str).agg("|".join, axis=1).to_numpy()
        coef: dict[tuple[str, int], float] = {}
        for name in np.unique(per_cell):
            for f in range(folds):
                train = per[(per_cell == name) & (per_fold != f)]
                x = train["luck"] - train["luck"].mean()
                if len(train) >= MIN_TRAINING_DEALS and (x**2).sum() > 0:
                    slope = float((x * (train["net"] - train["net"].mean())).sum() / (x**2).sum())
                    coef[(name, f)] = float(np.clip(slope, *COEF_BOUNDS))
        rows = games[cell].astype(str).agg("|".join, axis=1).to_numpy()
        found = np.array([coef.get((c, int(f)), np.nan) for c, f in zip(rows, fold, strict=True)])
        out = np.where(np.isnan(out), found, out)
    return np.where(np.isnan(out), 1.0, out)


def adjust(games: pd.DataFrame, luck: pd.DataFrame) -> pd.DataFrame:
    """``games`` with the luck columns, ``luck_coef`` (`chip_values` per entrant and lineup, else per entrant) and
    ``net_adjusted = net - luck_coef * luck``."""
    out = games.merge(luck, on=["game_id", "seat"], how="left")
    cols = [*LUCK_COLUMNS, "luck"]
    out[cols] = out[cols].fillna(0.0)
    base = [c for c in ("run", "experiment", "entrant") if c in out.columns]
    cells = [[*base, "table_id"], base] if "table_id" in out.columns else [base]
    out["luck_coef"] = chip_values(out, cells)
    out["net_adjusted"] = out["net"] - out["luck_coef"] * out["luck"]
    return out


# ----- results folders ----------------------------------------------------------------------------------------
CACHE_FILE = "luck.parquet"  # in the results folder: the luck of every game and seat, part by part
CACHE_VERSION = "4"  # bump when the luck of a hand would change, to recompute old caches
PARALLEL_HANDS = 5000  # hands (about 0.7 ms each) before forking a process per core pays (a fork: ~0.1 s)


def folder_luck(path: str | Path, settings: Settings = Settings(), allow_damaged: bool = False) -> pd.DataFrame:
    """Per game and seat of a results folder, the luck columns (`game_luck`), computed part by part.

    Every part is read and verified by the store's readers; the results are kept in ``DIR/luck.parquet``, keyed
    by the checksum of each part's seats file and the settings, so a run grown by ``--until-ci`` computes only
    its new parts. Parts written before the seats table existed have no luck (they get no rows); so do parts that
    cannot be read intact, when ``allow_damaged`` (``attrs["damaged_deals"]`` lists their deals; else
    `DamagedResults` names them). A part already cached is not read again: its luck came from verified files.
    """
    path = Path(path)
    manifest = read_manifest(path)
    if manifest is None or manifest.kind != "run":
        raise FileNotFoundError(f"{path} is not a results folder")
    parts = [p for p in manifest.parts or () if p.file("seats") is not None]
    key = {p.name: f"{p.name}:{p.file('seats').sha256}" for p in parts}  # type: ignore[union-attr]
    settings_key = _settings_key(settings)
    cached = _read_cache(path / CACHE_FILE, settings_key)
    have = set(cached["part"]) if len(cached) else set()
    todo = {p.name for p in parts if key[p.name] not in have}
    frames = [cached[cached["part"].isin(set(key.values()))]] if len(cached) else []
    damaged = []
    work = [p for p in parts if p.name in todo]
    with closing(_part_lucks(path, work, manifest.rules, manifest.seed, settings, _luck_workers(work))) as lucks:
        for part, luck in zip(work, lucks, strict=True):  # closed on an error: its processes stop at once
            if isinstance(luck, tuple):  # what is wrong with the part: it could not be read intact
                if not allow_damaged:
                    raise DamagedResults(path, luck)
                damaged.append((part.first_deal, part.end_deal))
                continue
            frames.append(luck.assign(part=key[part.name]))
    if len(todo) > len(damaged):
        _write_cache(path / CACHE_FILE, pd.concat(frames, ignore_index=True), settings_key)
    columns = ["game_id", "seat", *LUCK_COLUMNS, "luck"]
    out = pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)
    out.attrs["damaged_deals"] = damaged  # [first, end) deal ranges of the parts left out
    return out


def _part_tables(path: Path, part: Part) -> dict[str, pa.Table]:
    """A part's tables that the luck reads, verified by the store (`DamagedResults` if one is not intact)."""
    return {t: read_part(path, part, t, cols) for t, cols in (("games", GAME_COLUMNS), ("hands", HAND_COLUMNS),
            ("seats", SEAT_COLUMNS), ("mixed", MIXED_COLUMNS)) if part.file(t) is not None}


def _part_luck(path: Path, part: Part, rules: dict, seed: int | None,
               settings: Settings) -> pd.DataFrame | tuple[str, ...]:
    """One part's `game_luck`, or what is wrong with it (`DamagedResults.problems`) if it cannot be read intact."""
    try:
        tables = _part_tables(path, part)
    except DamagedResults as damaged:
        return damaged.problems
    h = build(tables["seats"], tables["hands"], tables["games"], rules, seed, tables.get("mixed"))
    return game_luck(h, hand_events(h, settings))


def _part_lucks(path: Path, parts: list[Part], rules: dict, seed: int | None, settings: Settings,
                workers: int = 1) -> Generator[pd.DataFrame | tuple[str, ...], None, None]:
    """`_part_luck` of each part, in order; with ``workers`` > 1, in as many forked processes (each part's luck is
    its own: its deals' shuffles are keyed by the deal, so the same values come out either way)."""
    if workers < 2:
        for part in parts:
            yield _part_luck(path, part, rules, seed, settings)
        return
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_ignore_sigint)
    try:
        futures = [pool.submit(_part_luck, path, part, rules, seed, settings) for part in parts]
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(cancel_futures=True)


def _luck_workers(parts: list[Part]) -> int:
    """Processes to compute the luck of ``parts`` in: one per core when they hold `PARALLEL_HANDS` hands or more, and
    this process can fork: on Linux, with no other start method chosen, not itself a daemonic worker (which may not
    have children), and with no Python thread but tqdm's monitor running. A fork copies the locks other threads hold,
    and a child that needs one would wait for ever; the monitor's (tqdm's, its bar's stream) are never taken by the
    children. Spawning instead would run an unguarded script's ``__main__`` again in every child. Else 1: here."""
    me = threading.current_thread()
    if (sys.platform != "linux" or multiprocessing.get_start_method(allow_none=True) not in (None, "fork")
            or multiprocessing.current_process().daemon or len(parts) < 2
            or not all(t is me or t.name == "tqdm_monitor" for t in threading.enumerate())):
        return 1
    if sum(f.rows for f in (p.file("hands") for p in parts) if f is not None) < PARALLEL_HANDS:
        return 1
    return min(len(os.sched_getaffinity(0)), len(parts))  # the cores this process may use (Linux, checked above)


def _ignore_sigint() -> None:
    """Ctrl-C is the parent's to handle (its `KeyboardInterrupt` shuts the pool down), with no traceback from each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _settings_key(settings: Settings) -> str:
    """What a cache is keyed by: the version and every setting that decides the luck. The batch size does not (a batch
    is whole deals, each with its own shuffles), so it is keyed as 4000 whatever it is: the default when caches were
    first written, which therefore stay valid."""
    return f"{CACHE_VERSION} {replace(settings, chunk_hands=4000)!r}"


def _read_cache(file: Path, settings_key: str) -> pd.DataFrame:
    try:
        table = pq.read_table(file)
    except (OSError, pa.ArrowInvalid):
        return pd.DataFrame()
    meta = table.schema.metadata or {}
    return table.to_pandas() if meta.get(b"luck") == settings_key.encode() else pd.DataFrame()


def _write_cache(file: Path, frame: pd.DataFrame, settings_key: str) -> None:
    """Best effort (a read-only folder is simply not cached), written whole under a temporary name."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"luck": settings_key.encode()})
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, file)
    except OSError:
        tmp.unlink(missing_ok=True)


def add_adjusted(games: pd.DataFrame, path: str | Path, settings: Settings = Settings(),
                 allow_damaged: bool = False) -> pd.DataFrame:
    """``games`` (rows of one results folder, any columns with game_id, seat, deal_id, entrant, net) with the luck
    columns, ``luck_coef`` and ``net_adjusted``; games without a luck record keep ``net_adjusted = net``. A folder
    without a seats table (written by an older treasure-sim) gets no columns: its tables then say raw net. With
    ``allow_damaged``, the games of a part whose luck could not be read intact are left out (like a damaged part
    of the games table), never shown with their raw net as if adjusted."""
    luck = folder_luck(path, settings, allow_damaged)
    for first, end in luck.attrs.get("damaged_deals", []):
        games = games[~games["deal_id"].between(first, end - 1)]
    return adjust(games, luck) if len(luck) else games


def adjusted_games(path: str | Path, settings: Settings = Settings()) -> pd.DataFrame:
    """The games table of a results folder with the luck columns, ``luck_coef`` and ``net_adjusted``."""
    return add_adjusted(read_games(path, GAME_COLUMNS).to_pandas(), path, settings)
