"""Calling station: checks when it can, calls every bet, never raises, never folds.

The classic losing player who pays off strong hands: a baseline that punishes bluffs and
rewards value bets. Off the betting it takes every free improvement: it moves its Spades,
draws every Hearts card, steals the highest-value card it can reach and never votes to stop.
"""

from __future__ import annotations

from treasure_sim.game.strategy import Action, Observation, Steal, Strategy

from ._util import my_spades, passive, steal_highest


class CallingStation(Strategy):
    name = "calling_station"

    def __init__(self, move_spades: bool = True, steal: bool = True) -> None:
        self.use_spades = move_spades
        self.use_steals = steal

    def act(self, obs: Observation) -> Action:
        return passive(obs)

    def move_spades(self, obs: Observation) -> list[int]:
        return my_spades(obs) if self.use_spades else []

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        return steal_highest(obs, options) if self.use_steals else None
