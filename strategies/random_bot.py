"""Random: uniform over the legal action kinds, then over the legal sizes; a coin for every choice.

Its betting answers are `Mixed`: it picks a raise size, then declares an equal chance for every legal kind and lets
the engine draw, so the luck analysis can take the luck of that draw out of everyone's results (docs/luck.md).

The baseline every other bot must beat, and the engine's fuzzer: it reaches every legal path.
Knobs: ``stop_chance`` (vote to stop before a hand), ``draw_chance`` (take each Hearts draw).
"""

from __future__ import annotations

from functools import lru_cache

from treasure_sim.game.cards import SPADES, SUIT
from treasure_sim.game.strategy import CALL, CHECK, FOLD, RAISE, Action, Mixed, Observation, Steal, Strategy

_PLAIN = {FOLD: Action.fold(), CHECK: Action.check(), CALL: Action.call()}
_EVEN = {n: (1 / n,) * n for n in range(1, 5)}  # an equal chance for each of n legal kinds
_raise_to = lru_cache(maxsize=1 << 12)(Action.raise_to)  # one Action per size: it is immutable
_new = tuple.__new__  # Mixed(actions, chances) without its Python-level __new__: one is made per bet


class RandomBot(Strategy):
    name = "random"

    def __init__(self, stop_chance: float = 0.0, draw_chance: float = 0.9) -> None:
        self.stop_chance = stop_chance
        self.draw_chance = draw_chance

    def act(self, obs: Observation) -> Mixed:
        legal = obs.legal
        if RAISE in legal:
            size = _raise_to(int(self.rng.integers(obs.min_raise_to, obs.max_raise_to + 1)))
            return _new(Mixed, (tuple([size if kind == RAISE else _PLAIN[kind] for kind in legal]), _EVEN[len(legal)]))
        return _new(Mixed, (tuple([_PLAIN[kind] for kind in legal]), _EVEN[len(legal)]))

    def pick(self, obs: Observation) -> Action:
        """The same choice drawn from the bot's own stream: for a subclass that wants to look at the action."""
        kind = obs.legal[int(self.rng.integers(len(obs.legal)))]
        if kind == RAISE:
            return Action.raise_to(int(self.rng.integers(obs.min_raise_to, obs.max_raise_to + 1)))
        return Action(kind)

    def move_spades(self, obs: Observation) -> list[int]:
        return [c for c in obs.my_treasures if SUIT[c] == SPADES and self.rng.random() < 0.5]

    def draw_heart(self, obs: Observation) -> bool:
        return bool(self.rng.random() < self.draw_chance)

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        return options[int(self.rng.integers(len(options)))]

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        return options[int(self.rng.integers(len(options)))] if self.rng.random() < 0.5 else None

    def keep_playing(self, obs: Observation) -> bool:
        return bool(self.rng.random() >= self.stop_chance)
