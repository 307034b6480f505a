"""The value function of the luck adjustment: each seat's expected chips from the pots, all cards known.

A *state* is a moment of a hand just before or just after a chance event: the cards each seat holds, the shared
cards so far, the cards still in the deck, who is still in, the chips each has put in. Its value for a seat is the
chips it would win from the pots (main and side pots, as the engine splits them) if nobody bet or folded again: the
rest of the shared cards come off the deck, then every seat still in makes all the Hearts draws the rules give it
(with chains, up to a budget of draws per hand), then the best quintets win, each seat's own Clubs ranks and the
Jokers wild. Later betting, Spades moves and declined draws are not modelled: the correction stays unbiased
whatever the value function (see `luck`).

Values are estimated in one batch for many states: exactly when at most one card is missing (every possible card
in turn), else by Monte Carlo over uniform shuffles of the state's deck. The shuffles come from `permutations` per
hand (common random numbers: the states of a hand read the same shuffles, so an event's before and after values
differ by the event, not by sampling noise), drawn independently of the game's cards.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ..game.evaluator import evaluate
from ..game.seeding import derive, root_key
from .luck_hands import ONE, RANK_BITS, Hands


@dataclass
class States:
    """A batch of S states for n seats; cards are int8 ids padded with -1."""

    hand: np.ndarray  # (S,) row of `permutations` each state's shuffles start at
    samples: np.ndarray  # (S,) Monte Carlo shuffles to use (exact enumeration ignores it)
    deck: np.ndarray  # (S,) uint64 mask of the cards that can still come
    deal_holes: np.ndarray  # (S,) bool: the hole cards are still to be dealt (two to each seat still in)
    order: np.ndarray  # (S, n) seats in turn order, -1 padded
    known: np.ndarray  # (S, n, w) cards each seat holds (hole, Spades moved, Hearts drawn so far)
    shared: np.ndarray  # (S, 5) shared cards, -1 for those still to come
    contender: np.ndarray  # (S, n) bool: still in the hand
    wild: np.ndarray  # (S, n) uint16 Clubs ranks
    hearts: np.ndarray  # (S, n) uint16 Hearts ranks of seats that will still draw (0 for the others)
    owed: np.ndarray  # (S, n) int: draws left of a seat already drawing, -1 = counted when its turn comes
    budget: np.ndarray  # (S,) Hearts draws the model may still make in this hand, all seats together
    commit: np.ndarray  # (S, n) chips each seat has put in
    burn: np.ndarray | None = None  # (S,) cards that leave the deck unseen before the shared cards (the New Treasure)

    def __len__(self) -> int:
        return len(self.hand)


def permutations(rng: np.random.Generator, rows: int, n_cards: int = 54) -> np.ndarray:
    """``rows`` independent uniform shuffles of the card ids 0..n_cards-1 (int8)."""
    return rng.permuted(np.broadcast_to(np.arange(n_cards, dtype=np.int8), (rows, n_cards)), axis=1)


def first_in_deck(perm: np.ndarray, deck: np.ndarray, length: np.ndarray | int) -> np.ndarray:
    """Per row, the first ``length`` cards of the shuffle that are in the row's deck (-1 past its end).

    Deleting the cards not in the deck from a uniform shuffle leaves a uniform shuffle of the deck. Whole-array
    steps (a Python loop of fancy indexing per column took ~1.7x as long): each shuffled card's place among its row's
    deck cards is a running count, kept column-major so every step of it reads contiguous memory.
    """
    rows, width = perm.shape
    length = np.broadcast_to(np.asarray(length, np.int64), (rows,))
    out = np.full((rows, max(int(length.max(initial=0)), 1)), -1, np.int8)
    if not rows:
        return out
    in_deck = np.unpackbits(np.ascontiguousarray(deck, "<u8").view(np.uint8), bitorder="little").view(bool)
    index = np.int32 if 64 * rows <= np.iinfo(np.int32).max else np.int64  # int32 adds and takes faster
    inside = np.ascontiguousarray(in_deck.take(np.add(perm, np.arange(0, 64 * rows, 64, dtype=index)[:, None],
                                                      dtype=index)).T)  # (width, rows)
    place = np.empty((width, rows), np.int8)  # 1 + how many deck cards come before, in the row's shuffle
    place[0] = inside[0]
    for col in range(1, width):
        np.add(place[col - 1], inside[col], out=place[col])
    take = np.flatnonzero(inside & (place <= np.minimum(length, width).astype(np.int8)))  # column-major positions
    column, row = np.divmod(take, rows)
    out.ravel()[row * out.shape[1] + place.ravel()[take] - 1] = np.ascontiguousarray(perm).ravel()[row * width + column]
    return out


def uncalled(commit: np.ndarray) -> np.ndarray:
    """Per seat, the chips of the largest commitment that nobody matched: the engine gives them back to their owner
    at the end of the hand, whether or not it is still in (`treasure_sim.game.betting.uncalled_bet`)."""
    top = commit.max(axis=1, initial=0)
    leaders = (commit == top[:, None]).sum(axis=1)
    second = np.sort(commit, axis=1)[:, -2] if commit.shape[1] > 1 else np.zeros(len(commit), commit.dtype)
    back = np.where(leaders == 1, top - second, 0)
    return np.where(commit == top[:, None], back[:, None], 0)


def pots(commit: np.ndarray, contender: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Main and side pots as the engine splits them: (amount (S, n), eligible (S, n, n)), pot k by seat.

    ``commit`` must not hold the uncalled bet (see `uncalled`). Pot k is capped by the k-th smallest commitment
    among the seats still in; the last takes every chip above the one before. Repeated levels give empty pots.
    """
    s, n = commit.shape
    big = np.iinfo(np.int64).max
    levels = np.sort(np.where(contender, commit, big), axis=1)
    m = contender.sum(axis=1)
    amount = np.zeros((s, n))
    eligible = np.zeros((s, n, n), bool)
    floor = np.zeros(s, np.int64)
    for k in range(n):
        real = k < m
        last = k == m - 1
        level = np.where(real, levels[:, k], floor)
        below = np.minimum(commit, level[:, None]).sum(axis=1) - np.minimum(commit, floor[:, None]).sum(axis=1)
        above = np.maximum(commit - floor[:, None], 0).sum(axis=1)
        amount[:, k] = np.where(last, above, np.where(real, below, 0))
        eligible[:, k] = contender & (commit >= level[:, None]) & real[:, None]
        floor = level
    return amount, eligible


def _rank_matches(cards: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """How many of ``cards`` (..., k) have a rank in ``masks`` (...) (Jokers and pads never match). Column by
    column: a sum over a short last axis is slow in numpy."""
    ids = cards.view(np.uint8)
    count = np.zeros(cards.shape[:-1], np.int64)
    for j in range(cards.shape[-1]):
        count += (RANK_BITS[ids[..., j]] & masks) != 0
    return count


def _sequences(st: States, perms: np.ndarray, need: np.ndarray, exact: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The cards each row draws, in order (rows, L), and each row's state: every card of the deck in turn for an
    exact state with one card to come, a single row for one with none, else its Monte Carlo shuffles."""
    d = np.bitwise_count(st.deck).astype(np.int64)
    rows = np.maximum(np.where(exact, np.where(need == 0, 1, d), st.samples), 1)
    state = np.repeat(np.arange(len(st)), rows)
    first = np.cumsum(rows) - rows
    j = np.arange(len(state)) - first[state]
    seq = np.full((len(state), max(int(need.max(initial=0)), 1)), -1, np.int8)
    mc = np.flatnonzero(~exact[state])
    if len(mc):
        part = first_in_deck(perms[st.hand[state[mc]] + j[mc]], st.deck[state[mc]], need[state[mc]])
        seq[mc, :part.shape[1]] = part
    one = np.flatnonzero(exact[state] & (need[state] == 1))
    if len(one):  # the j-th card of the deck, in id order
        ids = np.arange(54, dtype=np.uint64)
        inside = ((st.deck[:, None] >> ids) & ONE).astype(bool)
        decks = np.argsort(~inside, axis=1, kind="stable").astype(np.int8)  # each deck's cards first, in id order
        seq[one, 0] = decks[state[one], j[one]]
    return seq, state


MAX_ROWS = 1 << 14
"""`values` works on at most about this many rows (shuffles or enumerated cards of its states) at a time: memory stays
bounded whatever the batch (the traced peak of one 4,260-hand part in 1,000-hand batches: 20 MB, 34 MB at 1 << 16),
and every state's value is the same as in one go (nothing mixes states)."""


def values(st: States, perms: np.ndarray, rules: dict, max_rows: int = MAX_ROWS) -> np.ndarray:
    """Each seat's expected chips from the pots in each state (S, n), by the model in the module docstring.

    Chips of an uncalled bet count as its owner's (the engine gives them back at the end). Computed in blocks of
    states of at most ``max_rows`` rows each (a state with exact enumeration counts as a whole deck's).
    """
    bound = np.cumsum(np.maximum(st.samples, 54))
    if not len(st) or bound[-1] <= max_rows:
        return _values(st, perms, rules)
    cuts, lo = [], 0
    while lo < len(st):  # each block: as many states as fit, at least one
        hi = max(int(np.searchsorted(bound, (bound[lo - 1] if lo else 0) + max_rows, side="right")), lo + 1)
        cuts.append((lo, hi))
        lo = hi
    return np.concatenate([_values(_states_of(st, lo, hi), perms, rules) for lo, hi in cuts])


def _states_of(st: States, lo: int, hi: int) -> States:
    """States ``lo:hi`` of a batch."""
    part: dict[str, Any] = {f.name: None if (a := getattr(st, f.name)) is None else a[lo:hi] for f in fields(States)}
    return States(**part)


def _values(st: States, perms: np.ndarray, rules: dict) -> np.ndarray:
    n = st.contender.shape[1]
    contenders = st.contender.sum(axis=1)
    unknown = (st.shared < 0).sum(axis=1)
    complete = np.flatnonzero((unknown == 0) & ~st.deal_holes)  # the board is out: count the draws owed now
    owed = st.owed.copy()
    if len(complete):
        held = np.concatenate([st.known[complete], np.broadcast_to(st.shared[complete, None, :],
                                                                   (len(complete), n, 5))], axis=2)
        owed[complete] = np.where(owed[complete] < 0, _rank_matches(held, st.hearts[complete]), owed[complete])
    st = replace(st, owed=owed)
    may_draw = (st.contender & (st.hearts != 0) & (st.owed != 0)).any(axis=1)
    capacity = np.where(may_draw, st.budget, 0)
    burn = np.zeros(len(st), np.int64) if st.burn is None else st.burn
    board_need = 2 * contenders * st.deal_holes + burn + unknown
    need = board_need + capacity
    exact = need <= 1
    seq, state = _sequences(st, perms, need, exact)
    rows = len(state)

    # hole cards (seat k in turn order among those still in gets cards 2k, 2k+1), then the shared cards
    holes = None
    deal = np.flatnonzero(st.deal_holes[state])
    if len(deal):
        holes = np.full((rows, n, 2), -1, np.int8)
        order = st.order[state[deal]]
        for t in range(n):  # before the hole cards every seat dealt in is still in: its turn position is t
            seat = order[:, t]
            ok = seat >= 0
            holes[deal[ok], seat[ok], 0] = seq[deal[ok], 2 * t]
            holes[deal[ok], seat[ok], 1] = seq[deal[ok], 2 * t + 1]
    start = (np.where(st.deal_holes, 2 * contenders, 0) + burn)[state]
    board = st.shared[state]
    u = unknown[state]
    for p in range(5):
        fill = np.flatnonzero(p >= 5 - u)
        board[fill, p] = seq[fill, start[fill] + p - (5 - u[fill])]

    draws = None
    drawing = np.flatnonzero(capacity[state] > 0)
    if len(drawing):
        draws = _draw_hearts(st, state[drawing], seq[drawing], start[drawing] + u[drawing], board[drawing],
                             None if holes is None else holes[drawing], bool(rules.get("hearts_chain", True)))

    live_row, live_seat = np.nonzero(st.contender[state])
    parts = [st.known[state[live_row], live_seat]]
    if holes is not None:
        parts.append(holes[live_row, live_seat])
    parts.append(board[live_row])
    if draws is not None:
        full = np.full((rows, n, draws.shape[2]), -1, np.int8)
        full[drawing] = draws
        parts.append(full[live_row, live_seat])
    scores = np.full((n, rows), -1, np.int64)  # seat-major: reductions over the seats then add whole rows
    scores[live_seat, live_row] = evaluate(np.concatenate(parts, axis=1), st.wild[state[live_row], live_seat],
                                           validate=False)

    back = uncalled(st.commit)
    amount, eligible = pots(st.commit - back, st.contender)
    gain = np.zeros((n, rows))
    for k in range(n):
        if not amount[:, k].any():
            continue
        elig = eligible[:, k].T.take(state, axis=1)
        best = np.where(elig, scores, -2).max(axis=0)
        win = elig & (scores == best)
        gain += win * (amount[state, k] / np.maximum(win.sum(axis=0), 1))
    value = np.ascontiguousarray(gain.T)  # the layout the sums per state below were written for
    value += back[state]
    first = np.searchsorted(state, np.arange(len(st)))  # every state has at least one row, in order
    return np.add.reduceat(value, first, axis=0) / np.diff(np.r_[first, rows])[:, None]


def _draw_hearts(st: States, state: np.ndarray, seq: np.ndarray, pointer: np.ndarray, board: np.ndarray,
                 holes: np.ndarray | None, chain: bool) -> np.ndarray:
    """Step 12 in turn order: each seat still in draws what its Hearts give it, one card at a time, chains included,
    until done, the hand's draw budget is spent, or the deck is out (then nobody draws again). Returns the draws
    (rows, n, k), -1 padded."""
    rows, n = len(state), st.contender.shape[1]
    pointer = pointer.copy()
    left = st.budget[state].astype(np.int64)
    width = seq.shape[1]
    draws = np.full((rows, n, max(int(left.max(initial=0)), 1)), -1, np.int8)
    known_matches = _rank_matches(st.known, st.hearts)  # per state and seat: fewer than the rows
    for t in range(n):
        seat = st.order[:, t]  # per state, then per row: a batch has far fewer states than rows
        s_state = np.maximum(seat, 0)
        on = np.arange(len(seat))
        may = (seat >= 0) & st.contender[on, s_state] & (st.hearts[on, s_state] != 0) & (st.owed[on, s_state] != 0)
        r = np.flatnonzero(may[state] & (left > 0))
        if not len(r):
            continue
        s_r = s_state[state[r]]
        mask = st.hearts[state[r], s_r]
        owed = st.owed[state[r], s_r].astype(np.int64)
        pending = owed < 0
        if pending.any():
            p = r[pending]
            owed[pending] = known_matches[state[p], s_r[pending]] + _rank_matches(board[p], mask[pending])
            if holes is not None:
                owed[pending] += _rank_matches(holes[p, s_r[pending]], mask[pending])
        k = 0
        while len(r):
            card = seq[r, np.minimum(pointer[r], width - 1)]
            go = (owed > 0) & (left[r] > 0) & (pointer[r] < width) & (card >= 0)
            keep = np.flatnonzero(go)  # one scan of the mask, then cheap takes
            r, owed, mask, s_r, card = r[keep], owed[keep], mask[keep], s_r[keep], card[keep]
            if not len(r):
                break
            draws[r, s_r, k] = card
            pointer[r] += 1
            left[r] -= 1
            owed -= 1
            if chain:
                owed += (RANK_BITS[card.view(np.uint8)] & mask) != 0
            k += 1
    return draws


def shuffle_key(seed: int | None, deal: int, stream: str = "luck shuffles") -> np.random.SeedSequence:
    """The seed of one deal's Monte Carlo shuffles: a keyed hash of the run's seed and the deal id
    (`game.seeding.derive`, so no two (seed, deal) pairs share a stream), never a card seed. Runs of different
    seeds number their deals alike; shuffles keyed by the deal alone would repeat in each of them, and the luck of
    runs pooled together would have correlated Monte Carlo errors. Runs of one seed (the variants of a sweep)
    share each deal's shuffles: common random numbers for their paired differences."""
    return derive(root_key("luck: no run seed" if seed is None else seed), stream, deal)


def deal_shuffles(h: Hands, hand: np.ndarray, samples: np.ndarray, stream: str = "luck shuffles"
              ) -> tuple[np.ndarray, np.ndarray]:
    """The shuffles of each hand (as many as its largest state needs) from its deal's own generator, in hand order;
    and, per state, the row where its hand's shuffles start."""
    hands, where = np.unique(hand, return_inverse=True)
    need = np.zeros(len(hands), np.int64)
    np.maximum.at(need, where, samples)
    start = np.cumsum(need) - need
    deals = h.deal[hands]
    blocks = []
    cuts = np.flatnonzero(np.diff(deals)) + 1
    for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(hands)], strict=True):
        rng = np.random.default_rng(shuffle_key(h.seed, int(deals[lo]), stream))
        blocks.append(permutations(rng, int(need[lo:hi].sum())))
    return np.concatenate(blocks), start[where]
