"""AIVAT's action correction: the luck of a betting decision the engine drew from chances a bot declared.

At such a decision (``strategy.Mixed``; the ``mixed`` table) each seat's luck is its net value after the action drawn
minus the mean over the draw: (folded - fold chance) x (net value if the seat folds - net value if it goes on). Its
expectation given the state is zero because the engine, not the bot, drew the action with exactly those chances. With
the pot-share value (`luck_values`) every way of going on is worth a call (a raise's excess goes back until someone
answers it), so only the chance of folding matters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .luck_hands import Hands, bits
from .luck_values import States, deal_shuffles, values

if TYPE_CHECKING:
    from .luck import Settings

SHARED_BEFORE_ROUND = (0, 2, 4, 5)  # shared cards dealt before each betting round
KIND = "action"


def action_states(h: Hands, idx: np.ndarray, budget: int) -> tuple[dict, dict, np.ndarray]:
    """For every decision drawn from declared chances in hands ``idx``: the state if the seat folds and the state
    if it goes on (a check, call or raise: with the pot-share value a raise is worth a call until it is answered,
    its excess going back), each as the board stood at that betting round; and the rows of `Decisions`."""
    d = h.decisions
    rows = np.flatnonzero(np.isin(d.hand, idx) & (d.fold_chance > 0) & (d.fold_chance < 1))
    g, seat = d.hand[rows], d.seat[rows]
    e, n = len(rows), h.n_seats
    shared = h.shared[g]
    shared = np.where(np.arange(5) < np.array(SHARED_BEFORE_ROUND)[d.round[rows]][:, None], shared, -1)
    deck = h.deck0[g] & ~bits(h.hole[g].reshape(e, 2 * n)) & ~bits(h.new_treasure[g][:, None]) & ~bits(shared)
    still_in = d.still_in[rows][:, :n]
    commit = d.committed[rows][:, :n]
    base = dict(order=h.order[g], wild=h.wild[g], hearts=h.hearts[g], owed=np.full((e, n), -1, np.int64),
                budget=np.full(e, budget, np.int64), deal_holes=np.zeros(e, bool), burn=np.zeros(e, np.int64),
                deck=deck, known=h.hole[g], shared=shared)
    mine = np.arange(n)[None, :] == seat[:, None]
    fold = dict(base, contender=still_in & ~mine, commit=commit)
    go_on = dict(base, contender=still_in, commit=commit + mine * d.to_call[rows][:, None])
    return fold, go_on, rows


def action_luck(h: Hands, rows: np.ndarray, fold_value: np.ndarray, go_on_value: np.ndarray) -> np.ndarray:
    """AIVAT's action correction: each seat's net value after the action drawn minus its mean over the draw,
    (folded - fold chance) x (net value if the seat folds - net value if it goes on). The two differ in the
    chips the seat puts in to go on, which count against its own net value."""
    d = h.decisions
    mine = np.arange(h.n_seats)[None, :] == d.seat[rows][:, None]
    difference = fold_value - go_on_value + mine * d.to_call[rows][:, None]
    return (d.folded[rows] - d.fold_chance[rows])[:, None] * difference


def action_events(h: Hands, idx: np.ndarray, settings: Settings, code: int) -> tuple[np.ndarray, ...]:
    """(hand, kind, pot, luck) of the action corrections of the decisions in hands ``idx`` (pots of at least
    ``min_pot``). Their Monte Carlo shuffles come from a stream of their own, so the chance events' stay as they
    were."""
    fold, go_on, rows = action_states(h, idx, settings.hearts_budget)
    pot = fold["commit"].sum(axis=1)
    big = pot >= settings.min_pot
    fold, go_on = {k: v[big] for k, v in fold.items()}, {k: v[big] for k, v in go_on.items()}
    rows, pot = rows[big], pot[big]
    hand = h.decisions.hand[rows]
    if not len(rows):
        return hand, hand, pot, np.zeros((0, h.n_seats))
    k = settings.samples(pot)
    perms, start = deal_shuffles(h, hand, k, "luck action shuffles")
    luck = action_luck(h, rows, values(States(hand=start, samples=k, **fold), perms, h.rules),
                        values(States(hand=start, samples=k, **go_on), perms, h.rules))
    return hand, np.full(len(rows), code), pot, luck


