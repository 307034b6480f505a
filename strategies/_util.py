"""Small helpers the built-in bots share: legal bet sizes, cheap hand strength, opponents' habits."""

from __future__ import annotations

import numpy as np

from treasure_sim.game import evaluator
from treasure_sim.game.cards import DIAMONDS, RANK_BIT, SPADES, SUIT, is_joker, value_of
from treasure_sim.game.history import HandRecord
from treasure_sim.game.strategy import CHECK, FOLD, RAISE, Action, Observation, Steal


def passive(obs: Observation) -> Action:
    """Check when free, else call: the move that never folds and never raises."""
    return Action.check() if CHECK in obs.legal else Action.call()


def raise_or(obs: Observation, total: float, fallback: Action | None = None) -> Action:
    """Raise to ``total`` clamped to the legal range; ``fallback`` (default: check/call) if raising is illegal."""
    if RAISE not in obs.legal:
        return fallback or passive(obs)
    return Action.raise_to(int(min(max(round(total), obs.min_raise_to), obs.max_raise_to)))


def pot_raise_to(obs: Observation, fraction: float) -> float:
    """The round bet total that adds ``fraction`` of the pot (after calling) on top of a call."""
    high = max(obs.bets)
    return high + fraction * (obs.pot + obs.to_call)


def wild_count(obs: Observation, cards) -> int:
    """How many of ``cards`` are wild for me (Jokers and my Clubs ranks)."""
    w = obs.wild_ranks
    return sum(1 for c in cards if is_joker(c) or w & RANK_BIT[c])


def made_category(obs: Observation, extra=()) -> int:
    """The evaluator category (0 high card .. 9 five of a kind) of my cards now, with ``extra`` added."""
    cards = tuple(obs.hand) + tuple(extra) + tuple(obs.shared)
    if len(cards) < 5:
        return -1
    row = np.asarray([cards], dtype=np.int8)
    return int(np.asarray(evaluator.category(evaluator.evaluate(row, obs.wild_ranks)))[0])


def my_spades(obs: Observation) -> list[int]:
    return [c for c in obs.my_treasures if SUIT[c] == SPADES]


def steal_highest(obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
    """The steal of the highest-value card, spending the cheapest Diamond that reaches it."""
    ace = obs.rules.ace_value
    return max(options, key=lambda s: (value_of(s.card, ace), -value_of(s.diamond, ace), SUIT[s.card] != DIAMONDS),
               default=None)


class FoldModel:
    """Each seat's observed fold rate per betting decision, free and facing a bet, from hand records.

    A prior (``prior_folds`` in ``prior_decisions``) keeps early estimates sane; :meth:`reset` each game.
    """

    def __init__(self, prior_folds: float = 1.0, prior_decisions: float = 5.0) -> None:
        self.prior = (prior_folds, prior_decisions)
        self.counts: list[list[float]] = []  # per seat: [folds free, decisions free, folds facing, facing]

    def reset(self, n_players: int) -> None:
        self.counts = [[0.0, 0.0, 0.0, 0.0] for _ in range(n_players)]

    def update(self, record: HandRecord) -> None:
        bets: dict[int, int] = {}
        high, rnd = 0, -1
        for a in record.actions:
            if a.round != rnd:
                bets, high, rnd = {}, 0, a.round
            facing = high > bets.get(a.seat, 0)
            row = self.counts[a.seat]
            row[2 * facing + 1] += 1
            if a.kind == FOLD:
                row[2 * facing] += 1
            else:
                bets[a.seat] = a.to
                high = max(high, a.to)

    def rate(self, seat: int, facing_bet: bool) -> float:
        """Probability that ``seat`` folds at one decision (free to check, or facing a bet)."""
        f, d = self.prior
        row = self.counts[seat]
        return (row[2 * facing_bet] + f) / (row[2 * facing_bet + 1] + d)


def actions_this_round(obs: Observation) -> set[int]:
    """The seats that have acted in the current betting round."""
    return {a.seat for a in obs.history if a.round == obs.round}


def acts_again(obs: Observation, seat: int, acted: set[int]) -> bool:
    """Will ``seat`` (in the hand, not all in) get another decision this round if I do not raise?"""
    return seat not in acted or obs.bets[seat] < max(obs.bets)
