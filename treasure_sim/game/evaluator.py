"""Hand evaluation: one comparable score per Treasure Poker hand (any size, Jokers, wild ranks)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from . import _eval_tables as _t
from .cards import RANK, RANK_BIT, RANK_NAMES, SUIT, card_id, format_card, is_joker, parse_cards

CATEGORY_NAMES = (
    "high card", "one pair", "two pair", "three of a kind", "straight",
    "flush", "full house", "four of a kind", "straight flush", "five of a kind",
)  # fmt: skip
BLOCK = 16384
SMALL = 16  # up to this many rows, plain Python ints beat numpy's per-call overhead (a showdown)

_T = _t.build()
_ONE, _HBIT, _FIVE, _SH5, _FULL5, _SPREAD = (_T[x] for x in ("ONE", "HBIT", "FIVE", "SH5", "FULL5", "SPREAD"))
_GROUP, _KICK, _FHT, _ST, _FS = (_T[x] for x in ("GROUP", "KICK", "FHT", "ST", "FS"))
_U64 = np.uint64
_LOW61, _NATURAL, _JOKERS, _REPEAT = (_U64(x) for x in (_t.LOW61, _t.NATURAL_BITS, _t.JOKER_BITS, _t.SUIT_REPEAT))
_MASK13 = _U64(_t.ALL_RANKS)


def _fail(row: int, why: str) -> NoReturn:
    raise ValueError(f"row {row}: {why}")


def _as_rows(cards: object) -> np.ndarray:
    """The hands as an (n, k) integer array; a string or 1-D array is one hand."""
    if isinstance(cards, str):
        try:
            return parse_cards(cards)[None, :]
        except ValueError as err:
            raise ValueError(f"row 0: {err}") from None
    try:
        arr = np.asarray(cards)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"cards must be a rectangular array padded with -1: {err}") from None
    if arr.ndim == 1 and arr.dtype.kind in "UO" and arr.size:
        try:
            return parse_cards(arr.tolist())[None, :]
        except (ValueError, TypeError) as err:
            raise ValueError(f"row 0: {err}") from None
    if arr.dtype.kind not in "iu":
        raise ValueError(f"cards must be integer card ids (or a card string), got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"cards must be one hand (1-D) or rows of hands (2-D), got shape {arr.shape}")
    return arr


def _check_ids(arr: np.ndarray) -> None:
    """Every id in -1..53 (two whole-array reductions; a row is searched only on failure)."""
    if arr.size and (arr.min() < -1 or arr.max() > 53):
        bad = (arr < -1) | (arr > 53)
        row, col = np.argwhere(bad)[0]
        _fail(int(row), f"card id {int(arr[row, col])} at column {int(col)} is out of range -1..53")


def _diagnose(arr: np.ndarray, local: int, row0: int) -> NoReturn:
    """Say why a row failed the cheap bitset check: too few cards or a card twice."""
    ids, row = [int(c) for c in arr[local]], row0 + local
    seen: dict[int, int] = {}
    for col, c in enumerate(ids):
        if c == -1:
            continue
        if c in seen:
            _fail(row, f"card {format_card(c)} appears twice (columns {seen[c]} and {col})")
        seen[c] = col
    _fail(row, f"only {len(seen)} real cards; a hand needs at least 5")


def _wild_masks(wild_ranks: object, n: int) -> int | np.ndarray:
    """An int applied to every row, or an (n,) uint16 array of per-row 13-bit rank masks."""
    if isinstance(wild_ranks, (int, np.integer)) and not isinstance(wild_ranks, bool):
        w = int(wild_ranks)
        if not 0 <= w <= _t.ALL_RANKS:
            raise ValueError(f"wild_ranks={w} (every row) is outside the 13-bit range 0..8191")
        return w
    arr = np.asarray(wild_ranks)
    if arr.ndim == 0 and arr.dtype.kind in "iu":
        return _wild_masks(int(arr), n)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"wild_ranks must be an int or an integer array, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"wild_ranks must be an int or have shape ({n},) like the rows, got {arr.shape}")
    if n and (arr.min() < 0 or arr.max() > _t.ALL_RANKS):
        row = int(np.flatnonzero((arr < 0) | (arr > _t.ALL_RANKS))[0])
        _fail(row, f"wild_ranks mask {int(arr[row])} is outside the 13-bit range 0..8191")
    return arr.astype(np.uint16)


def evaluate(cards: npt.ArrayLike | str, wild_ranks: npt.ArrayLike = 0, *, validate: bool = True) -> np.ndarray:
    """Score each hand (row of card ids, -1 pads anywhere): higher is better, equal exactly on a tie.

    ``cards`` is an (n, k) integer array, or one hand as a 1-D array / card string (then the result
    has shape (1,)). ``wild_ranks`` is a 13-bit rank mask (bit r: rank r is wild) for every row, or
    an (n,) array of them; Jokers are always wild. Returns an (n,) int64 array laid out as
    ``category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5`` (ranks 0..12, see describe).
    ``validate=False`` skips input checks for trusted hot callers (bad input then gives garbage).
    """
    arr = _as_rows(cards)
    n = arr.shape[0]
    if n <= SMALL:
        return np.array(_score_small(arr, wild_ranks, validate), dtype=np.int64)
    wild = _wild_masks(wild_ranks, n)
    if validate:
        _check_ids(arr)
    if arr.dtype != np.int8:
        arr = arr.astype(np.int8)
    out = np.empty(n, np.int64)
    for lo in range(0, n, BLOCK):
        hi = min(n, lo + BLOCK)
        out[lo:hi] = _score_block(arr[lo:hi], wild if isinstance(wild, int) else wild[lo:hi], validate, lo)
    return out


# How a block of rows is scored (the tables are built in _eval_tables):
# 1. A card bitset per row: natural (rank r, suit s) is bit 16 * s + r, Jokers sit in spare bits, pads
#    count on top. A card given twice makes a carry, which the validity check sees as a lost bit.
# 2. Wild cards (Jokers, and naturals whose rank is in the row's mask) leave the natural bits; w counts them.
# 3. A uint16 view gives the four suit masks; bit logic gives the count classes m1..m4 (ranks held at
#    least 1..4 times), packed side by side in one uint64.
# 4. Candidates, each the best hand of one pattern; their max is the score, since when a pattern's
#    best hand is really of a higher category, that category is a candidate too:
#    - five of a kind: the highest rank held >= 5 - w times (aces when w >= 5);
#    - straight (<= w gaps filled) and, per suit, flush / straight flush from (w, mask) tables; in a
#      flush every wild is an ace (a wild may copy a card present), which is best rank by rank;
#    - rank groups: if five of a kind is out of reach, all wilds join the best group (the highest rank
#      among those held most): that gives the largest group possible, and splitting wilds never helps
#      (w = 1 makes two pair a full house, w = 2 makes a pair quads, w = 3 makes a single quads). The
#      top group then indexes GROUP, kickers come from m1, and a full house adds the best other pair.
def _score_block(cards: np.ndarray, wild: int | np.ndarray, validate: bool, row0: int) -> np.ndarray:
    """The vectorized kernel for one block of rows (int8 ids); see the steps above."""
    n, k = cards.shape
    ids = cards.view(np.uint8)  # -1 pads read as 255: non-negative indices take faster
    bits: np.ndarray | None = None
    pads: np.ndarray | None = None
    for lo in range(0, k, _t.PAD_GROUP):  # bitset; pads counted on top, one group at a time
        part = _ONE.take(ids[:, lo])
        for j in range(lo + 1, min(k, lo + _t.PAD_GROUP)):
            part += _ONE.take(ids[:, j])
        if bits is None:
            bits = part
        else:
            pads = part >> _U64(_t.PAD_SHIFT) if pads is None else pads + (part >> _U64(_t.PAD_SHIFT))
            bits += part & _LOW61
    assert bits is not None  # k >= 5 columns: the loop ran
    if validate:  # a card twice makes a carry, and every carry lowers this count below k
        pads = bits >> _U64(_t.PAD_SHIFT) if pads is None else pads + (bits >> _U64(_t.PAD_SHIFT))
        ok = (np.bitwise_count(bits & _LOW61) + pads == k) & (pads <= k - 5)
        if not ok.all():
            _diagnose(cards, int(np.flatnonzero(~ok)[0]), row0)

    wmask: np.uint64 | np.ndarray
    if isinstance(wild, int):
        wmask = _U64(wild * _t.SUIT_REPEAT | _t.JOKER_BITS)
        nat = bits & (_NATURAL & ~wmask)
    else:
        wmask = wild.astype(np.uint64) * _REPEAT | _JOKERS
        nat = bits & ~wmask & _NATURAL
    w = np.bitwise_count(bits & wmask)

    suits = nat.view(np.uint16).reshape(n, 4)  # the four 13-bit suit masks of natural (non-wild) cards
    sa, sb, sc, sd = suits[:, 0], suits[:, 1], suits[:, 2], suits[:, 3]
    # Count classes: ranks held >= 1, 2, 3, 4 times, packed as 16-bit fields of one uint64 per row.
    classes = np.empty((n, 4), np.uint16)
    m1, m2, m3, m4 = classes[:, 0], classes[:, 1], classes[:, 2], classes[:, 3]
    ab_or, ab_and, cd_or, cd_and = sa | sb, sa & sb, sc | sd, sc & sd
    np.bitwise_or(ab_or, cd_or, out=m1)
    np.bitwise_or(ab_and | cd_and, ab_or & cd_or, out=m2)
    np.bitwise_or(ab_and & cd_or, cd_and & ab_or, out=m3)
    np.bitwise_and(ab_and, cd_and, out=m4)
    mm = classes.view(np.uint64).reshape(n)

    wilds = bool(w.any())
    if wilds:  # five of a kind; then the wilds join the best group (see _eval_tables.SPREAD)
        w5 = np.minimum(w, 5)
        five = _FIVE.take(((mm >> _SH5.take(w5)) & _MASK13) | _FULL5.take(w5))
        c1m1 = (mm > 0xFFFF).view(np.uint8) + (mm > 0xFFFFFFFF).view(np.uint8) + (
            mm > 0xFFFFFFFFFFFF).view(np.uint8)
        top = (mm >> (c1m1 << 4).astype(np.uint64)) & _MASK13
        mm |= _HBIT.take(top) * _SPREAD.take((c1m1 << 3) | np.minimum(w, 7))
        base = np.minimum(w, _t.MAX_WILD_TABLE).astype(np.uint16) << np.uint16(13)
        best = _ST.take(m1 | base)
        for col in (sa, sb, sc, sd):
            np.maximum(best, _FS.take(col | base), out=best)
        np.maximum(best, five, out=best)
    else:
        best = _ST.take(m1)
        for col in (sa, sb, sc, sd):
            np.maximum(best, _FS.take(col), out=best)

    # The best group: top count class c and its mask index GROUP; kickers come from m1.
    mmi = mm.view(np.int64)
    c1m1 = (mmi > 0xFFFF).view(np.uint8) + (mmi > 0xFFFFFFFF).view(np.uint8) + (
        mmi > 0xFFFFFFFFFFFF).view(np.uint8)
    shift = c1m1.astype(np.int64) << 4
    g = _GROUP.take(((mmi >> shift) & _t.ALL_RANKS) | (shift << 9)).view(np.int32).reshape(n, 2)
    head, info = g[:, 0], g[:, 1]
    np.maximum(best, head + _KICK.take(m1 ^ info), out=best)
    np.maximum(best, head + _FHT.take(m2 ^ info), out=best)
    return best


def category_name(score: int) -> str:
    """The category name of one score (``"two pair"``)."""
    return CATEGORY_NAMES[score >> _t.CAT_SHIFT]


def category(scores: npt.ArrayLike) -> np.ndarray | np.int8:
    """Category 0 (high card) .. 9 (five of a kind) of each score; a scalar gives an int8 scalar."""
    return (np.asarray(scores, dtype=np.int64) >> _t.CAT_SHIFT).astype(np.int8)[()]


def _plural(rank: int) -> str:
    name = RANK_NAMES[rank]
    return name + "es" if name.endswith("x") else name + "s"


def _fields(score: int) -> list[int]:
    return [(score >> shift) & 15 for shift in _t.FIELD]


def describe(score: int | np.integer) -> str:
    """A score in words: "full house, kings over sevens", "straight, five-high", "flush, ace-high"."""
    score = int(score)
    cat, (a, b, *_) = score >> _t.CAT_SHIFT, _fields(score)
    if not 0 <= cat <= 9 or score < 0:
        raise ValueError(f"{score} is not an evaluator score")
    name = CATEGORY_NAMES[cat]
    if cat in (0, 4, 5, 8):
        return f"{name}, {RANK_NAMES[a]}-high"
    if cat == 6:
        return f"{name}, {_plural(a)} over {_plural(b)}"
    if cat == 2:
        return f"{name}, {_plural(a)} and {_plural(b)}"
    return f"{name}, {_plural(a)}"


def _ranks_played(score: int) -> list[int]:
    """The five ranks a score's quintet shows (with repeats), from its category and fields."""
    cat, f = score >> _t.CAT_SHIFT, _fields(score)
    if cat in (4, 8):
        top = f[0]
        return [3, 2, 1, 0, 12] if top == 3 else list(range(top, top - 5, -1))
    shape = {9: (5,), 7: (4, 1), 6: (3, 2), 3: (3, 1, 1), 2: (2, 2, 1), 1: (2, 1, 1, 1)}.get(cat, (1,) * 5)
    return [r for r, times in zip(f, shape, strict=False) for _ in range(times)]


@dataclass(frozen=True, slots=True)
class Quintet:
    """The five cards a hand plays, and what each wild among them stands for."""

    ids: tuple[int, ...]
    wild_ids: tuple[tuple[int, int], ...]  # (wild card id, id of the card it stands for)
    score: int
    category: int
    description: str

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(format_card(c) for c in self.ids)

    @property
    def wilds(self) -> tuple[tuple[str, str], ...]:
        return tuple((format_card(a), format_card(b)) for a, b in self.wild_ids)

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES[self.category]


def best_quintet(cards: npt.ArrayLike | str, wild_ranks: int = 0) -> Quintet:
    """The best five of one hand: scores every 5-subset in one batched call (for showdowns/records).

    Among equally good quintets it takes the one using fewest wilds, then the first in hand order;
    ``evaluate(result.ids, wild_ranks)`` always equals ``evaluate(cards, wild_ranks)``.
    """
    arr = _as_rows(cards)
    if arr.shape[0] != 1:
        raise ValueError(f"best_quintet takes one hand, got {arr.shape[0]} rows")
    wild = _wild_masks(wild_ranks, 1)
    wild = int(wild if isinstance(wild, int) else wild[0])
    target = int(evaluate(arr, wild)[0])
    real = arr[0][arr[0] >= 0].astype(np.int8)
    subsets = real[np.array(list(combinations(range(real.size), 5)), dtype=np.intp)]
    scores = evaluate(subsets, wild, validate=False)
    is_wild = (subsets >= 52) | ((wild >> (subsets.astype(np.int64) >> 2)) & 1).astype(bool)
    cost = np.where(scores == target, is_wild.sum(axis=1), 99)
    chosen = subsets[int(np.argmin(cost))].tolist()
    wilds = [c for c in chosen if is_joker(c) or wild & RANK_BIT[c]]
    naturals = [c for c in chosen if c not in wilds]
    missing = _ranks_played(target)
    for c in naturals:
        missing.remove(RANK[c])
    cat = target >> _t.CAT_SHIFT
    taken = set(naturals)
    stands = []
    for rank in sorted(missing, reverse=True):
        if cat in (5, 8):  # flush, straight flush: the suit of the naturals
            suit = SUIT[naturals[0]] if naturals else 0
        else:  # any suit will do; prefer a card not already shown
            suit = next((s for s in range(4) if card_id(rank, s) not in taken), 0)
        taken.add(card_id(rank, suit))
        stands.append(card_id(rank, suit))
    return Quintet(tuple(chosen), tuple(zip(wilds, stands, strict=True)), target, cat, describe(target))


# The same algorithm on Python ints, for showdown-sized batches where numpy's per-call overhead
# (about a microsecond a call, ~70 calls) would dominate. Tested equal to the block kernel.
_L: dict[str, Any] = {name: tuple(_T[name].tolist())  # tuples: a bot cannot change them in place (integrity.py)
                      for name in ("ONE", "HBIT", "FIVE", "GROUP", "KICK", "FHT", "ST", "FS")}


def _score_small(arr: np.ndarray, wild_ranks: object, validate: bool) -> list[int]:
    """Scores of a few rows, step for step as _score_block but branching instead of masking."""
    n, k = arr.shape
    rows = arr.tolist()
    if isinstance(wild_ranks, int) and not isinstance(wild_ranks, bool) and 0 <= wild_ranks <= 8191:
        wl = [wild_ranks] * n
    else:
        wa = np.asarray(wild_ranks)
        if wa.shape == (n,) and wa.dtype.kind in "iu":
            wl = wa.tolist()
            if validate and n and (min(wl) < 0 or max(wl) > 8191):
                _wild_masks(wa, n)
        else:
            one = _wild_masks(wild_ranks, n)
            wl = [one if isinstance(one, int) else int(one[0])] * n
    if validate and n:
        flat = [c for row in rows for c in row]
        if min(flat) < -1 or max(flat) > 53:
            _check_ids(arr)
    if validate:
        low61 = _t.LOW61
        one = _L["ONE"]
        for i, row in enumerate(rows):
            bits = sum([one[c] for c in row])  # one[-1] is the pad entry 255, as in the uint8 view
            pads = bits >> 61  # a Python int: never overflows
            if (bits & low61).bit_count() + pads != k or pads > k - 5:
                _diagnose(arr, i, 0)
    return score_rows(rows, wl)


def score_rows(rows: Sequence[Sequence[int]], wild_ranks: Sequence[int]) -> list[int]:
    """Scores of a few hands given as lists of valid card ids (any lengths >= 5, -1 padding allowed), with
    one wild-rank mask per hand: no numpy and no checks, for the engine's showdowns (ids it dealt itself)."""
    one, hbit, five_t = _L["ONE"], _L["HBIT"], _L["FIVE"]
    group, kick, fht, st, fs = _L["GROUP"], _L["KICK"], _L["FHT"], _L["ST"], _L["FS"]
    natural, jokers, repeat = _t.NATURAL_BITS, _t.JOKER_BITS, _t.SUIT_REPEAT
    out = []
    for row, wild in zip(rows, wild_ranks, strict=True):
        bits = sum([one[c] for c in row])  # one[-1] is the pad entry 255 (above every mask used here)
        wm = wild * repeat | jokers
        w = (bits & wm).bit_count()
        nat = bits & natural & ~wm
        sa, sb, sc, sd = nat & 8191, (nat >> 16) & 8191, (nat >> 32) & 8191, nat >> 48
        ab_or, ab_and, cd_or, cd_and = sa | sb, sa & sb, sc | sd, sc & sd
        m1, m2 = ab_or | cd_or, ab_and | cd_and | (ab_or & cd_or)
        m3, m4 = (ab_and & cd_or) | (cd_and & ab_or), ab_and & cd_and
        if w:
            best = five_t[8191 if w >= 5 else (0, m4, m3, m2, m1)[w]]
            c1 = 3 if m4 else 2 if m3 else 1 if m2 else 0
            b = hbit[(m1, m2, m3, m4)[c1]]  # the wilds join the best group (_eval_tables.SPREAD)
            m2 |= b if c1 < 1 <= c1 + w else 0
            m3 |= b if c1 < 2 <= c1 + w else 0
            m4 |= b if c1 < 3 <= c1 + w else 0
            base = min(w, 3) << 13
            best = max(best, st[base | m1], fs[base | sa], fs[base | sb], fs[base | sc], fs[base | sd])
        else:
            best = max(st[m1], fs[sa], fs[sb], fs[sc], fs[sd])
        g = group[3 << 13 | m4 if m4 else 2 << 13 | m3 if m3 else 1 << 13 | m2 if m2 else m1]
        head, info = g & 0xFFFFFFFF, g >> 32
        out.append(max(best, head + kick[m1 ^ info], head + fht[m2 ^ info]))
    return out
