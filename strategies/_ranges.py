"""Hand ranges for the search player: how strong each possible hole pair is, and how likely each is given a seat's
bets so far.

- `BoardScores`: for a board (0, 2, 4 or 5 shared cards), every pair of unseen cards scored on ``samples`` random
  completions of the board (the same completions for every pair, one batched evaluator call per wild-rank mask).
  A pair's *strength* for a seat is its equity against one random hand of another seat (each with its own Clubs
  wilds), averaged over the completions: what the seat itself could know when it acted (no future cards).
- `ActionModel`: per seat, how often it raises (of its bet decisions) and how often it folds facing a bet, counted
  from the hands it has played (with a prior). A seat that raises a share ``f`` of the time is taken to raise with
  the top ``f`` of its range; one that folds a share ``g`` facing bets, to call with the rest above the bottom
  ``g``; a check when free says its hand is mostly below its raising range. The likelihood of a pair is the
  product over the seat's actions this hand (soft steps, never 0: every bot bluffs or slow-plays sometimes).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from treasure_sim.game import evaluator
from treasure_sim.game.history import ActionEvent, HandRecord
from treasure_sim.game.strategy import CALL, CHECK, FOLD, RAISE

BOARD_AT_ROUND = (0, 2, 4, 5)  # shared cards showing in betting rounds 0..3


def pairs_of(cards: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (a, b), a before b in ``cards``, as two index arrays of card ids."""
    arr = np.asarray(cards, dtype=np.int64)
    i, j = np.triu_indices(len(arr), 1)
    return arr[i], arr[j]


class BoardScores:
    """Every pair of unseen cards (and my own hole cards, the last column), scored on ``samples`` random completions
    of one board (the same completions for every pair), per wild-rank mask on demand (one batched evaluator call
    each). ``index[a, b]``: the column of the pair (a, b), -1 if not a pair here."""

    def __init__(self, board: Sequence[int], unseen: Sequence[int], mine: Sequence[int], rng: np.random.Generator,
                 samples: int) -> None:
        cards = np.asarray(unseen, dtype=np.int64)
        self.pa, self.pb = pa, pb = pairs_of(cards)
        self.n = n = len(pa)
        self.index = np.full((54, 54), -1, dtype=np.int64)
        self.index[pa, pb] = self.index[pb, pa] = np.arange(n)
        need = 5 - len(board)
        m = samples if need > 0 else 1
        if need > len(cards) - 2:  # too few cards to complete the board: the board as it is
            need, m = 0, 1
        width = 2 + len(board) + need
        rows = np.full((m, n + 1, width), -1, dtype=np.int8)
        rows[:, :n, 0], rows[:, :n, 1] = pa, pb
        rows[:, n, :2] = tuple(mine[:2])
        rows[:, :, 2:2 + len(board)] = board
        self.valid = np.ones((m, n), dtype=bool)
        if need:
            comps = cards[rng.random((m, len(cards))).argsort(axis=1)[:, :need]]
            rows[:, :, 2 + len(board):] = comps[:, None, :]
            for k in range(need):
                self.valid &= (pa[None, :] != comps[:, k:k + 1]) & (pb[None, :] != comps[:, k:k + 1])
        self.rows = rows.reshape(-1, width)
        self.m = m
        self._scores: dict[int, np.ndarray] = {}
        self._strength: dict[tuple[int, int], np.ndarray] = {}

    def scores(self, wild: int) -> np.ndarray:
        """(samples, pairs + 1) scores for a seat with wild ranks ``wild``."""
        got = self._scores.get(wild)
        if got is None:
            if self.n == 0:
                got = np.zeros((self.m, 1), dtype=np.int64)
            else:
                got = evaluator.evaluate(self.rows, wild, validate=False).reshape(self.m, self.n + 1)
            self._scores[wild] = got
        return got

    def strength(self, wild: int, against: int) -> np.ndarray:
        """Per pair held by a seat with wild ranks ``wild``: the share of the pairs a seat with ``against`` could
        hold that it beats (ties half), averaged over the completions: its equity against one random hand."""
        key = (wild, against)
        got = self._strength.get(key)
        if got is None:
            mine, ref = self.scores(wild)[:, :self.n], self.scores(against)[:, :self.n]
            total, count = np.zeros(self.n), np.zeros(self.n)
            for i in range(self.m):
                ok = self.valid[i]
                sorted_ref = np.sort(ref[i][ok])
                if len(sorted_ref) == 0:
                    continue
                s = mine[i][ok]
                lo = np.searchsorted(sorted_ref, s, "left")
                hi = np.searchsorted(sorted_ref, s, "right")
                total[ok] += (lo + hi) / 2 / len(sorted_ref)
                count[ok] += 1
            got = self._strength[key] = np.where(count > 0, total / np.maximum(count, 1), 0.5)
        return got

    def mine_against(self, wild: int, their_wild: int, weights: np.ndarray) -> float:
        """My equity (hole cards, wild ranks ``wild``) against one seat's range: ``weights`` per column."""
        me = self.scores(wild)[:, self.n]
        them = self.scores(their_wild)[:, :self.n]
        total = 0.0
        for i in range(self.m):
            w = weights * self.valid[i]
            sw = w.sum()
            if sw <= 0:
                continue
            total += (w[them[i] < me[i]].sum() + 0.5 * w[them[i] == me[i]].sum()) / sw
        return total / self.m


def rank01(values: np.ndarray) -> np.ndarray:
    """Each value's rank among ``values``, scaled to 0..1 (its percentile in the range)."""
    if len(values) < 2:
        return np.full(len(values), 0.5)
    return values.argsort(kind="stable").argsort() / (len(values) - 1)


def _step(x: np.ndarray, soft: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x / soft))


class ActionModel:
    """Per seat: raises per bet decision, and folds per decision facing a bet, counted over the hands played, with a
    prior of ``prior`` decisions at ``raise_rate`` and ``fold_rate``."""

    def __init__(self, n: int, raise_rate: float = 0.25, fold_rate: float = 0.3, prior: float = 8.0,
                 soft: float = 0.08, floor: float = 0.08) -> None:
        self.raise_rate, self.fold_rate, self.prior = raise_rate, fold_rate, prior
        self.soft, self.floor = soft, floor
        self.raises = [0] * n
        self.decisions = [0] * n
        self.folds = [0] * n
        self.facing = [0] * n
        self.hands = [0] * n  # hands it was dealt into
        self.free_folds = [0] * n  # hands it folded in while checking was free (for the New Treasure)
        self.late_free = [0] * n  # free decisions on the river or with two left (where a New Treasure fold is last)
        self.late_folds = [0] * n  # folds among them

    def update(self, record: HandRecord) -> None:
        for seat, dealt in enumerate(record.in_hand):
            self.hands[seat] += dealt
        live = sum(record.in_hand)
        for seat, kind, facing, rnd in _replay(record.actions):
            if not facing and (rnd == 3 or live == 2):
                self.late_free[seat] += 1
                self.late_folds[seat] += kind == FOLD
            if kind == FOLD:
                live -= 1
                if not facing:
                    self.free_folds[seat] += 1
            self.decisions[seat] += 1
            self.raises[seat] += kind == RAISE
            if facing:
                self.facing[seat] += 1
                self.folds[seat] += kind == FOLD

    def raise_share(self, seat: int) -> float:
        return (self.raises[seat] + self.prior * self.raise_rate) / (self.decisions[seat] + self.prior)

    def fold_share(self, seat: int) -> float:
        return (self.folds[seat] + self.prior * self.fold_rate) / (self.facing[seat] + self.prior)

    def free_fold_share(self, seat: int) -> float:
        """The share of hands in which ``seat`` folded when it could check (prior: 3% of 10 hands)."""
        return (self.free_folds[seat] + 0.3) / (self.hands[seat] + 10.0)

    def late_fold_share(self, seat: int) -> float:
        """The share of its free decisions on the river or with two left that ``seat`` folded (prior: 3% of 10)."""
        return (self.late_folds[seat] + 0.3) / (self.late_free[seat] + 10.0)

    def likelihood(self, seat: int, actions: Sequence[ActionEvent], strength: dict[int, np.ndarray],
                   n_pairs: int) -> np.ndarray:
        """Per pair, the chance of ``seat``'s actions this hand: ``strength`` maps a betting round to the pairs'
        percentiles on that round's board."""
        w = np.ones(n_pairs)
        top = 1.0 - self.raise_share(seat)
        bottom = self.fold_share(seat)
        soft, floor = self.soft, self.floor
        for s, kind, _facing, rnd in _replay(actions):
            if s != seat or kind == FOLD:
                continue
            q = strength[rnd]
            if kind == RAISE:
                w = w * (floor + (1 - floor) * _step(q - top, soft))
            elif kind == CALL:
                w = w * (floor + (1 - floor) * _step(q - bottom, soft))
            elif kind == CHECK:
                w = w * (1.0 - 0.8 * _step(q - top, soft))
        return w


class Ranges:
    """The hidden hole cards' ranges at one decision: the pairs (``pa``, ``pb``); per opponent its normalized weights
    over them, its strength now per pair (``q``: equity against my possible hands; ``rank``: the same ranked within
    its range, by the column ``index``), my equity against its range (``mine``), its raising threshold in range
    rank (``top``), its fold share facing bets (``bottom``) and its share of folds for the New Treasure."""

    def __init__(self, pa: np.ndarray, pb: np.ndarray) -> None:
        self.pa, self.pb = pa, pb
        self.seats: list[int] = []
        self.weights: dict[int, np.ndarray] = {}
        self.index: np.ndarray | None = None
        self.q: dict[int, np.ndarray] = {}
        self.rank: dict[int, np.ndarray] = {}
        self.mine: dict[int, float] = {}
        self.top: dict[int, float] = {}
        self.bottom: dict[int, float] = {}
        self.free_fold: dict[int, float] = {}

    def add(self, seat: int, weights: np.ndarray, index: np.ndarray, q: np.ndarray, rank: np.ndarray, mine: float,
            top: float, bottom: float, free_fold: float) -> None:
        self.seats.append(seat)
        self.weights[seat], self.index = weights, index
        self.q[seat], self.rank[seat], self.mine[seat] = q, rank, mine
        self.top[seat], self.bottom[seat], self.free_fold[seat] = top, bottom, free_fold

    def now(self, seat: int, hole: tuple[int, ...]) -> tuple[float, float]:
        """(strength, rank in its range) of ``seat``'s hole cards now."""
        i = self.index[hole[0], hole[1]] if self.index is not None else -1
        if i < 0:
            return 0.5, 0.5
        return float(self.q[seat][i]), float(self.rank[seat][i])

    def folding(self, rng: np.random.Generator) -> tuple[int, ...]:
        """The opponents who will fold for the New Treasure in this determinization, each by its free-fold share."""
        draws = rng.random(len(self.seats))
        return tuple(s for s, u in zip(self.seats, draws, strict=True) if u < self.free_fold[s])

    def sample(self, rng: np.random.Generator) -> dict[int, tuple[int, int]]:
        """Hole cards for each opponent still in, drawn from its weights, no card twice."""
        holes: dict[int, tuple[int, int]] = {}
        used: list[int] = []
        for s in self.seats:
            w = self.weights[s]
            if used:
                clash = np.isin(self.pa, used) | np.isin(self.pb, used)
                w = np.where(clash, 0.0, w)
                total = w.sum()
                if total <= 0:
                    continue
                w = w / total
            i = min(int(np.searchsorted(np.cumsum(w), rng.random() * w.sum())), len(w) - 1)
            holes[s] = (int(self.pa[i]), int(self.pb[i]))
            used.extend(holes[s])
        return holes


def _replay(actions: Sequence[ActionEvent]):
    """(seat, kind, facing a bet, round) for each betting action, in order."""
    bets: dict[int, int] = {}
    rnd, high = -1, 0
    for a in actions:
        if a.round != rnd:
            rnd, high, bets = a.round, 0, {}
        facing = high > bets.get(a.seat, 0)
        yield a.seat, a.kind, facing, a.round
        if a.kind in (CALL, RAISE):
            bets[a.seat] = a.to
            high = max(high, a.to)
