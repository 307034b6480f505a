"""Maniac: bets or raises at every decision where raising is legal, else calls; never folds.

Hyper-aggressive pressure: it tests whether a strategy folds too much to bets (and so hands
the pot over) or calls down correctly. Its size is a fraction of the pot (``pot_fraction``,
1.0 = pot-sized), or all in with probability ``all_in_chance``.
"""

from __future__ import annotations

from treasure_sim.game.strategy import Action, Observation, Steal, Strategy

from ._util import my_spades, pot_raise_to, raise_or, steal_highest


class Maniac(Strategy):
    name = "maniac"

    def __init__(self, pot_fraction: float = 1.0, all_in_chance: float = 0.0) -> None:
        if pot_fraction < 0:
            raise ValueError(f"pot_fraction must be >= 0, got {pot_fraction}")
        if not 0.0 <= all_in_chance <= 1.0:
            raise ValueError(f"all_in_chance must be in 0..1, got {all_in_chance}")
        self.pot_fraction = pot_fraction
        self.all_in_chance = all_in_chance

    def act(self, obs: Observation) -> Action:
        if self.all_in_chance and self.rng.random() < self.all_in_chance:
            return raise_or(obs, obs.max_raise_to)
        return raise_or(obs, pot_raise_to(obs, self.pot_fraction))

    def move_spades(self, obs: Observation) -> list[int]:
        return my_spades(obs)

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        return steal_highest(obs, options)
