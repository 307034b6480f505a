"""Lookup tables for treasure_sim.game.evaluator, built once with numpy (about 1 MB, a few ms)."""

from __future__ import annotations

import numpy as np

# Score layout: category << 20, then five 4-bit rank fields (rank index 0..12), most significant first.
CAT_SHIFT = 20
FIELD = (16, 12, 8, 4, 0)
FIVE_KIND, STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH_CARD = range(9, -1, -1)
ACE = 12
ALL_RANKS = (1 << 13) - 1

# Bitset layout, suit-major in 16-bit fields: natural card (rank r, suit s) is bit 16 * s + r, so a
# uint16 view of the bitset gives the four 13-bit suit masks; RJ, BJ sit in spare bits 13 and 29. Each
# pad adds 1 << PAD_SHIFT: summed over at most PAD_GROUP columns, bits 61..63 count the pads.
PAD_SHIFT = 61
PAD_GROUP = 7
LOW61 = (1 << PAD_SHIFT) - 1
NATURAL_BITS = 0x1FFF_1FFF_1FFF_1FFF
JOKER_BITS = 1 << 13 | 1 << 29
SUIT_REPEAT = 0x0001_0001_0001_0001  # rank mask * SUIT_REPEAT = those ranks in every suit

# Kicker variants for KICK (index = variant << 13 | rank mask).
KV_NONE, KV_QUADS, KV_TRIPS, KV_PAIR, KV_TWO_PAIR, KV_HIGH = range(6)
MAX_WILD_TABLE = 3  # flush/straight tables stop at 3 wilds: 4 or more always make five of a kind


def _popcount(a: np.ndarray) -> np.ndarray:
    return np.bitwise_count(a).astype(np.int64)


def _top_ranks(masks: np.ndarray, k: int) -> np.ndarray:
    """(len(masks), k) array of the k highest set bits of each mask, descending; -1 where missing."""
    out = np.full((masks.size, k), -1, np.int64)
    filled = np.zeros(masks.size, np.int64)
    for r in range(12, -1, -1):
        has = ((masks >> r) & 1).astype(bool) & (filled < k)
        rows = np.flatnonzero(has)
        out[rows, filled[rows]] = r
        filled += has
    return out


def _pack(ranks: np.ndarray, first_field: int) -> np.ndarray:
    """Pack rank columns into consecutive 4-bit fields starting at FIELD[first_field]; -1 packs as 0."""
    value = np.zeros(ranks.shape[0], np.int64)
    for j in range(ranks.shape[1]):
        value |= np.maximum(ranks[:, j], 0) << FIELD[first_field + j]
    return value


def _straight_tops(masks: np.ndarray, wilds: int) -> np.ndarray:
    """Best straight top (3 = five-high .. 12 = ace-high) reachable with `wilds` gaps filled, else -1."""
    best = np.full(masks.size, -1, np.int64)
    for top in range(3, 13):
        window = (1 << ACE) | 0b1111 if top == 3 else sum(1 << r for r in range(top - 4, top + 1))
        ok = _popcount(masks & window) + wilds >= 5
        best = np.where(ok, top, best)
    return best


def build() -> dict[str, np.ndarray]:
    m = np.arange(1 << 13, dtype=np.int64)
    count = _popcount(m)
    top5 = _top_ranks(m, 5)
    hb = top5[:, 0]
    hbit = np.where(hb >= 0, 1 << np.maximum(hb, 0), 0)

    t: dict[str, np.ndarray] = {}
    # Indexed by the id's uint8 view: 0..53 are cards, 255 is the -1 pad (54..254 are never valid).
    one = np.zeros(256, np.uint64)
    one[:52] = [1 << (16 * (i & 3) + (i >> 2)) for i in range(52)]
    one[52:54] = [1 << 13, 1 << 29]
    one[255] = 1 << PAD_SHIFT
    t["ONE"] = one
    t["HBIT"] = hbit.astype(np.uint64)
    five = np.where(hb >= 0, (FIVE_KIND << CAT_SHIFT) | (np.maximum(hb, 0) << 16), 0)
    t["FIVE"] = five.astype(np.int32)

    def group(cat: int, n_ranks: int, used_top: int, kv: int, empty_kv: int) -> np.ndarray:
        """Head score (category + group ranks) | (used ranks | kicker variant << 13) << 32."""
        head = (cat << CAT_SHIFT) | _pack(top5[:, :n_ranks], 0)
        used = np.zeros(m.size, np.int64)
        for j in range(used_top):
            used |= np.where(top5[:, j] >= 0, 1 << np.maximum(top5[:, j], 0), 0)
        packed = head | ((used | (kv << 13)) << 32)
        return np.where(m == 0, empty_kv << (13 + 32), packed).astype(np.int64)

    # Pairs mask -> one pair (1 rank, 3 kickers) or two pair (top 2, 1 kicker); empty -> high card.
    pairs_one = group(PAIR, 1, 1, KV_PAIR, KV_HIGH)
    pairs_two = group(TWO_PAIR, 2, 2, KV_TWO_PAIR, KV_HIGH)
    high = np.full(m.size, KV_HIGH << (13 + 32), np.int64)
    pairs = np.where(count >= 2, pairs_two, pairs_one)
    trips = group(TRIPS, 1, 1, KV_TRIPS, KV_NONE)
    quads = group(QUADS, 1, 1, KV_QUADS, KV_NONE)
    # Indexed by (top count class - 1) << 13 | the mask of ranks held that often.
    t["GROUP"] = np.concatenate([high, pairs, trips, quads])

    kick = np.zeros((6, m.size), np.int64)
    kick[KV_QUADS] = _pack(top5[:, :1], 1)
    kick[KV_TRIPS] = _pack(top5[:, :2], 1)
    kick[KV_PAIR] = _pack(top5[:, :3], 1)
    kick[KV_TWO_PAIR] = _pack(top5[:, :1], 2)
    kick[KV_HIGH] = (HIGH_CARD << CAT_SHIFT) | _pack(top5, 0)
    t["KICK"] = kick.reshape(-1).astype(np.int32)

    # Full house = trips head (3 << 20 | t << 16) + this, indexed by (pairs mask minus t) | KV_TRIPS << 13.
    fht = np.zeros((KV_HIGH + 1, m.size), np.int64)
    fht[KV_TRIPS] = np.where(hb >= 0, ((FULL_HOUSE - TRIPS) << CAT_SHIFT) | (np.maximum(hb, 0) << 12), 0)
    t["FHT"] = fht.reshape(-1).astype(np.int32)

    # Per (wilds, mask): straight; flush / straight flush of one suit's mask (wilds count as aces).
    st = np.zeros((MAX_WILD_TABLE + 1, m.size), np.int64)
    fs = np.zeros((MAX_WILD_TABLE + 1, m.size), np.int64)
    for w in range(MAX_WILD_TABLE + 1):
        tops = _straight_tops(m, w)
        st[w] = np.where(tops >= 0, (STRAIGHT << CAT_SHIFT) | (np.maximum(tops, 0) << 16), 0)
        flush_ranks = np.concatenate([np.full((m.size, w), ACE), top5[:, : 5 - w]], axis=1)
        flush = np.where(count + w >= 5, (FLUSH << CAT_SHIFT) | _pack(flush_ranks, 0), 0)
        fs[w] = np.where(tops >= 0, (STRAIGHT_FLUSH << CAT_SHIFT) | (np.maximum(tops, 0) << 16), flush)
    t["ST"] = st.reshape(-1).astype(np.int32)
    t["FS"] = fs.reshape(-1).astype(np.int32)

    # Five of a kind: a rank held 5 - w times. Field k of the count-class word is "held > k", so
    # w = 1..4 reads field 4 - w; w = 0 shifts everything out; w >= 5 uses every rank.
    t["SH5"] = np.array([63, 48, 32, 16, 0, 0], np.uint64)
    t["FULL5"] = np.array([0, 0, 0, 0, 0, ALL_RANKS], np.uint64)

    # Wilds join the best group (highest rank among those held most): for top class c (index c - 1)
    # and w wilds, the count-class fields c .. c + w - 1 gain that rank.
    spread = np.zeros(32, np.int64)
    for c1 in range(4):
        for w in range(8):
            spread[c1 * 8 + w] = sum(1 << (16 * k) for k in range(c1 + 1, min(c1 + w, 3) + 1))
    t["SPREAD"] = spread.astype(np.uint64)
    return t
