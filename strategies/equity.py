"""Equity: tight-aggressive poker on Monte Carlo equity against the seats still in.

Each betting decision estimates my pot share by ``rollouts`` random completions in one batched
evaluator call (see ``_montecarlo``): my Clubs wilds, the Jokers, the Spades I could move and
the Hearts I would draw all count, and so do every opponent's (their zones are face up). The
estimate is cached for the rest of the betting round, so a hand costs at most four of them.

Facing a bet it calls when equity beats the pot odds by ``call_margin``; it bets or raises when
its *strength* — equity above a fair share 1/(players in), scaled to 0..1 — passes
``bet_strength`` (``raise_strength`` over a bet), sized from ``min_fraction`` to ``max_fraction``
of the pot as strength grows. It ignores the New Treasure: that is ``treasure_hunter``'s game.
"""

from __future__ import annotations

from treasure_sim.game.strategy import CHECK, RAISE, Action, Observation, Steal, Strategy

from ._montecarlo import equity_scores, shares
from ._util import made_category, my_spades, pot_raise_to, raise_or, steal_highest


class EquityBot(Strategy):
    name = "equity"

    def __init__(
        self,
        rollouts: int = 200,
        call_margin: float = 0.03,
        bet_strength: float = 0.3,
        raise_strength: float = 0.5,
        min_fraction: float = 0.5,
        max_fraction: float = 1.2,
        hearts_max: int = 3,
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {rollouts}")
        if not 0.0 <= bet_strength <= 1.0 or not 0.0 <= raise_strength <= 1.0:
            raise ValueError("bet_strength and raise_strength must be in 0..1")
        self.rollouts = rollouts
        self.call_margin = call_margin
        self.bet_strength = bet_strength
        self.raise_strength = raise_strength
        self.min_fraction = min_fraction
        self.max_fraction = max_fraction
        self.hearts_max = hearts_max
        self._cache: tuple | None = None

    # ----- equity ------------------------------------------------------------------------------
    def equity(self, obs: Observation) -> float:
        """My pot share now. One estimate per betting round: its rollout scores are kept, so when a
        player folds the equity against the seats left is re-read from them, not re-simulated."""
        key = (obs.hand_no, obs.round, len(obs.hand), len(obs.shared))
        if self._cache is None or self._cache[0] != key:
            seats, scores = equity_scores(obs, self.rng, self.rollouts, hearts_max=self.hearts_max)
            self._cache = (key, seats, scores)
        _, seats, scores = self._cache
        against = [j for j, s in enumerate(seats) if not obs.folded[s]]
        if scores is None:
            return 1.0 / (len(against) + 1)
        return float(shares(scores, 1, against)[0])

    @staticmethod
    def strength(eq: float, players_in: int) -> float:
        """Equity above a fair share, scaled so 0 = fair share and 1 = a lock."""
        fair = 1.0 / max(players_in, 1)
        return (eq - fair) / (1.0 - fair) if fair < 1.0 else 1.0

    def sized_raise(self, obs: Observation, strength: float, threshold: float) -> Action:
        """Bet or raise a pot fraction that grows with strength above ``threshold``."""
        t = (strength - threshold) / max(1.0 - threshold, 1e-9)
        fraction = self.min_fraction + (self.max_fraction - self.min_fraction) * min(max(t, 0.0), 1.0)
        return raise_or(obs, pot_raise_to(obs, fraction))

    # ----- betting -----------------------------------------------------------------------------
    def act(self, obs: Observation) -> Action:
        free = CHECK in obs.legal
        if free and RAISE not in obs.legal:
            return Action.check()  # nothing to decide: no equity needed
        eq = self.equity(obs)
        return self.bet_on_equity(obs, eq)

    def bet_on_equity(self, obs: Observation, eq: float) -> Action:
        """The tight-aggressive rule: value-bet strength, call on pot odds, fold the rest."""
        s = self.strength(eq, len(obs.active))
        free = CHECK in obs.legal
        if free:
            if s >= self.bet_strength and RAISE in obs.legal:
                return self.sized_raise(obs, s, self.bet_strength)
            return Action.check()
        if s >= self.raise_strength and RAISE in obs.legal:
            return self.sized_raise(obs, s, self.raise_strength)
        pot_odds = obs.to_call / (obs.pot + obs.to_call)
        return Action.call() if eq >= pot_odds + self.call_margin else Action.fold()

    # ----- the other decisions -----------------------------------------------------------------
    def move_spades(self, obs: Observation) -> list[int]:
        """Move my Spades only when they improve my made hand (else keep them for a later pot)."""
        spades = my_spades(obs)
        return spades if made_category(obs, spades) > made_category(obs) else []

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        return steal_highest(obs, options)
