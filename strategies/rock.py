"""Rock: tight-passive. Plays only strong hands, checks when free, calls with them, folds the rest.

It almost never puts chips in first: it raises only with a monster (``raise_category``). A
premium start is a pair of ``min_pair`` or better, two cards of ``min_high`` or better, or any
wild card; after the flop it continues with a made ``call_category`` (two pair) or better, or
with one pair while the bet is at most ``small_bet_fraction`` of the pot. Cheap by design: one
tiny evaluator call per decision, no simulation.
"""

from __future__ import annotations

from treasure_sim.game.cards import RANK, RANKS
from treasure_sim.game.strategy import CHECK, Action, Observation, Steal, Strategy

from ._util import made_category, my_spades, raise_or, steal_highest, wild_count


class Rock(Strategy):
    name = "rock"

    def __init__(
        self,
        min_pair: str = "9",
        min_high: str = "Q",
        call_category: int = 2,
        raise_category: int = 6,
        small_bet_fraction: float = 0.25,
    ) -> None:
        if min_pair.upper() not in RANKS or min_high.upper() not in RANKS:
            raise ValueError(f"min_pair and min_high must be rank characters of {RANKS}")
        self.min_pair = RANKS.index(min_pair.upper())
        self.min_high = RANKS.index(min_high.upper())
        self.call_category = call_category
        self.raise_category = raise_category
        self.small_bet_fraction = small_bet_fraction

    def _premium(self, obs: Observation) -> bool:
        hole = obs.hand[:2]
        if wild_count(obs, hole):
            return True
        a, b = (RANK[c] for c in hole)
        return (a == b and a >= self.min_pair) or min(a, b) >= self.min_high

    def act(self, obs: Observation) -> Action:
        free = CHECK in obs.legal
        if not obs.shared:
            if self._premium(obs):
                return Action.check() if free else Action.call()
            return Action.check() if free else Action.fold()
        cat = made_category(obs, my_spades(obs))
        if cat >= self.raise_category:
            return raise_or(obs, max(obs.bets) + (obs.pot + obs.to_call) / 2)
        if free:
            return Action.check()
        if cat >= self.call_category or (cat >= 1 and obs.to_call <= self.small_bet_fraction * obs.pot):
            return Action.call()
        return Action.fold()

    def move_spades(self, obs: Observation) -> list[int]:
        return my_spades(obs)

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        return steal_highest(obs, options)
