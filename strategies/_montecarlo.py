"""Monte Carlo equity for Treasure Poker in ONE batched evaluator call per estimate.

Why batched: a numpy call costs microseconds whatever its size, so every rollout of every
player (and every variant of my own hand, e.g. with or without a Spade moved) is one row of a
single ``evaluate`` call. Sampling is vectorized too: each rollout is a row of random keys over
the unseen cards, and ``argsort`` turns the rows into independent random orders.

A rollout deals the rest of the shared cards, two hole cards per opponent still in, and the
Hearts draws each player is owed (with the chain rule), from the cards this player cannot see.
Each player's Clubs make their own ranks wild; each may add the Spades they could move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from treasure_sim.game import evaluator
from treasure_sim.game.cards import CLUBS, HEARTS, SPADES, SUIT, make_deck
from treasure_sim.game.cards import RANK_BIT as CARD_RANK_BIT
from treasure_sim.game.strategy import Observation

# RANK_BIT[card] = 1 << rank for naturals, 0 for Jokers and for the padding id -1 (the last entry).
RANK_BIT = np.array((*CARD_RANK_BIT, 0), dtype=np.int64)

_FULL_DECKS = {j: frozenset(make_deck(j)) for j in (0, 1, 2)}


class Player(NamedTuple):
    """What a rollout needs about one opponent: wild ranks, Hearts ranks, Spades they may move."""

    wild: int
    hearts: int
    extra: tuple[int, ...]


def seat_masks(zone: Sequence[int], rules) -> tuple[int, int, tuple[int, ...]]:
    """(wild-rank mask, Hearts-rank mask, Spades cards) of one Treasure Zone under ``rules``."""
    wild = hearts = 0
    spades = []
    for c in zone:  # a Joker (never in a zone) would match no suit
        suit, bit = SUIT[c], CARD_RANK_BIT[c]
        if suit == CLUBS and rules.clubs:
            wild |= bit
        elif suit == HEARTS and rules.hearts:
            hearts |= bit
        elif suit == SPADES and rules.spades:
            spades.append(c)
    return wild, hearts, tuple(spades)


def unseen_cards(obs: Observation) -> np.ndarray:
    """The full deck minus every card this seat can see: its hand, shared, every zone, New Treasure."""
    seen = set(obs.hand)
    seen.update(obs.shared)
    for zone in obs.treasures:
        seen.update(zone)
    if obs.new_treasure is not None:
        seen.add(obs.new_treasure)
    return np.array(sorted(_FULL_DECKS[obs.rules.jokers] - seen), dtype=np.int8)


def _drawn(known: np.ndarray, slots: np.ndarray, hearts: int) -> np.ndarray:
    """Which Hearts slots are really drawn: owed = matches among known cards, +1 per matching draw."""
    match = (RANK_BIT & hearts) != 0  # per card id (and -1), does it match a Hearts rank
    owed = match[known].sum(axis=1)
    hit = match[slots]
    drawn = np.empty(slots.shape, dtype=bool)
    drawn[:, 0] = owed >= 1
    for t in range(1, slots.shape[1]):
        owed = owed + hit[:, t - 1]
        drawn[:, t] = drawn[:, t - 1] & (owed >= t + 1)
    return drawn


def rollout_scores(
    rng: np.random.Generator,
    *,
    mine: Sequence[int],
    shared: Sequence[int],
    unseen: np.ndarray,
    wild: int,
    hearts: int,
    opponents: Sequence[Player],
    rollouts: int,
    variants: Sequence[Sequence[int]] = ((),),
    hearts_max: int = 3,
) -> np.ndarray | None:
    """Scores, shape (rollouts, len(variants) + len(opponents)): my variants first, then each opponent.

    ``mine`` are my hand cards and each variant adds extra cards (e.g. Spades moved); all are
    scored against the same sampled boards and opponents. None when the deck could not deal.
    A row is laid out [hand, shared, rest of board, extras, Hearts draws]; -1 pads.
    """
    n_var, k = len(variants), len(opponents)
    n_shared = len(shared)
    n_board = 5 - n_shared
    with_hearts = [bool(hearts)] + [bool(p.hearts) for p in opponents]
    n_hearts = sum(with_hearts)
    base = n_board + 2 * k
    m = len(unseen)
    if base > m:  # the deck would run out while dealing (a void hand): nothing to estimate
        return None
    h_max = min(hearts_max, (m - base) // n_hearts) if n_hearts else 0
    r = int(rollouts)
    sample = unseen[rng.random((r, m), dtype=np.float32).argsort(axis=1)[:, : base + h_max * n_hearts]]
    board = sample[:, :n_board]

    n_mine = len(mine) + n_shared
    width_me = n_mine + n_board + max(len(v) for v in variants) + (h_max if hearts else 0)
    width_opp = 2 + n_shared + n_board + max((len(p.extra) for p in opponents), default=0)
    width_opp += h_max if any(with_hearts[1:]) else 0
    cards = np.full((r, n_var + k, max(width_me, width_opp)), -1, dtype=np.int8)
    cards[:, :n_var, : len(mine)] = mine
    cards[:, :n_var, len(mine) : n_mine] = shared
    cards[:, :n_var, n_mine : n_mine + n_board] = board[:, None, :]
    cards[:, n_var:, :2] = sample[:, n_board:base].reshape(r, k, 2)
    cards[:, n_var:, 2 : 2 + n_shared] = shared
    cards[:, n_var:, 2 + n_shared : 7] = board[:, None, :]
    slot = base
    for v, extra in enumerate(variants):
        if extra:
            cards[:, v, n_mine + n_board : n_mine + n_board + len(extra)] = extra
    if hearts and h_max:
        slots = sample[:, slot : slot + h_max]
        slot += h_max
        for v, extra in enumerate(variants):
            known = n_mine + n_board + len(extra)
            row = cards[:, v]
            row[:, known : known + h_max] = np.where(_drawn(row[:, :known], slots, hearts), slots, -1)
    for j, p in enumerate(opponents):
        row = cards[:, n_var + j]
        known = 7 + len(p.extra)
        if p.extra:
            row[:, 7:known] = p.extra
        if p.hearts and h_max:
            slots = sample[:, slot : slot + h_max]
            slot += h_max
            row[:, known : known + h_max] = np.where(_drawn(row[:, :known], slots, p.hearts), slots, -1)
    masks = np.array([wild] * n_var + [p.wild for p in opponents], dtype=np.int64)
    flat = cards.reshape(r * (n_var + k), cards.shape[2])
    return evaluator.evaluate(flat, _tiled(masks, r), validate=False).reshape(r, n_var + k)


def _tiled(masks: np.ndarray, r: int) -> np.ndarray:
    """The per-row wild masks: ``masks`` repeated for each rollout."""
    return np.broadcast_to(masks, (r, len(masks))).reshape(-1)


def shares(scores: np.ndarray, n_var: int, against: Sequence[int] | None = None) -> np.ndarray:
    """Each variant's mean pot share (win 1, k-way tie 1/k) against the opponent columns ``against``."""
    if against is None or len(against) == scores.shape[1] - n_var:
        opp = scores[:, n_var:]
    else:
        opp = scores[:, [n_var + j for j in against]]
    if opp.shape[1] == 0:
        return np.ones(n_var)
    best = opp.max(axis=1)
    out = np.empty(n_var)
    for v in range(n_var):
        me = scores[:, v]
        tie = me == best
        share = float(np.count_nonzero(me > best))
        if tie.any():
            share += float((1.0 / (1 + (opp[tie] == me[tie, None]).sum(axis=1))).sum())
        out[v] = share / len(me)
    return out


def rollout_equity(rng: np.random.Generator, **kwargs) -> np.ndarray:
    """My pot share for each variant (see :func:`rollout_scores`); a fair share if the deck cannot deal."""
    scores = rollout_scores(rng, **kwargs)
    n_var = len(kwargs.get("variants", ((),)))
    if scores is None:
        return np.full(n_var, 1.0 / (len(kwargs["opponents"]) + 1))
    return shares(scores, n_var)


def opponents_of(obs: Observation, *, spades: bool = True) -> tuple[list[int], list[Player]]:
    """Every other seat still in this hand, and the abilities its zone gives it."""
    seats, players = [], []
    for s in obs.active:
        if s != obs.seat:
            wild, hearts, extra = seat_masks(obs.treasures[s], obs.rules)
            seats.append(s)
            players.append(Player(wild, hearts, extra if spades else ()))
    return seats, players


def equity_scores(
    obs: Observation,
    rng: np.random.Generator,
    rollouts: int,
    *,
    spades: bool = True,
    hearts: bool = True,
    hearts_max: int = 3,
    variants: Sequence[Sequence[int]] | None = None,
) -> tuple[list[int], np.ndarray | None]:
    """(opponent seats, rollout scores) for ``obs``: see :func:`rollout_scores`.

    By default my one variant adds every Spades Treasure I could still move (``spades``); my
    Clubs (``obs.wild_ranks``) and Hearts (``hearts``) count, and so do each opponent's.
    Keep the scores to re-read equity against fewer opponents (after a fold) at no cost. Powers I may not
    use (``obs.restricted``) do not count for me (my wilds already leave my barred Clubs out), and nobody
    draws more Hearts than the rules' cap.
    """
    _, my_hearts, my_spades = seat_masks(obs.my_treasures, obs.rules)
    if obs.restricted:
        my_hearts = 0 if "hearts" in obs.restricted else my_hearts
        my_spades = () if "spades" in obs.restricted else my_spades
    if obs.rules.hearts_cap:
        hearts_max = min(hearts_max, obs.rules.hearts_cap)
    if variants is None:
        variants = (my_spades if spades else (),)
    seats, players = opponents_of(obs, spades=spades)
    scores = rollout_scores(
        rng,
        mine=obs.hand,
        shared=obs.shared,
        unseen=unseen_cards(obs),
        wild=obs.wild_ranks,
        hearts=my_hearts if hearts else 0,
        opponents=players,
        rollouts=rollouts,
        variants=variants,
        hearts_max=hearts_max,
    )
    return seats, scores


def equity(obs: Observation, rng: np.random.Generator, rollouts: int, **kwargs) -> np.ndarray:
    """My pot share per variant against the seats still in (one batched evaluator call)."""
    seats, scores = equity_scores(obs, rng, rollouts, **kwargs)
    n_var = len(kwargs.get("variants") or ((),))
    if scores is None:
        return np.full(n_var, 1.0 / (len(seats) + 1))
    return shares(scores, n_var)
