"""The strategy API: what a bot sees (`Observation`), what it answers (`Action`, `Steal`), its base class."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, NamedTuple

import numpy as np

from .cards import value_of
from .history import ActionEvent, ShownHand
from .rules import RuleSet

if TYPE_CHECKING:
    from .history import HandRecord

FOLD, CHECK, CALL, RAISE = "fold", "check", "call", "raise"
ACTION_KINDS = (FOLD, CHECK, CALL, RAISE)
POWERS = ("spades", "clubs", "hearts", "diamonds", "new_treasure")
"""What a seat may be barred from using (``Game(restrict=...)``; seeds/rulings.md, "Restricted play"), in this order
in ``Observation.restricted``."""


@dataclass(frozen=True, slots=True)
class Action:
    """A betting decision. ``amount`` is the bet/raise *total* for this round (raise only)."""

    kind: str
    amount: int = 0

    @staticmethod
    def fold() -> Action:
        return _FOLD

    @staticmethod
    def check() -> Action:
        return _CHECK

    @staticmethod
    def call() -> Action:
        return _CALL

    @staticmethod
    def raise_to(total: int) -> Action:
        """Bet or raise so that this round's bet is ``total``; all in is ``raise_to(obs.max_raise_to)``."""
        return Action(RAISE, int(total))

    def __str__(self) -> str:
        return f"raise to {self.amount}" if self.kind == RAISE else self.kind


_FOLD, _CHECK, _CALL = Action(FOLD), Action(CHECK), Action(CALL)

MAX_CHOICES = 64
"""The most actions one `Mixed` answer may name."""


class Mixed(NamedTuple):
    """A mixed betting decision: the engine draws one of ``actions`` with the given ``chances``.

    Why let the engine draw: the analysis can then take the luck of the draw out of the results (AIVAT's action
    correction, docs/luck.md), and that is fair only if the chances are the ones the action really came from.
    The draw uses a stream of the engine's own, separate for each seat, that no bot can read or predict.
    ``chances`` are non-negative and add up to 1; every action must be legal. Build one with `Mixed.of`.
    """

    actions: tuple[Action, ...]
    chances: tuple[float, ...]

    @staticmethod
    def of(choices: dict[Action, float]) -> Mixed:
        """``Mixed.of({Action.fold(): 0.25, Action.call(): 0.75})``."""
        return Mixed(tuple(choices), tuple(float(p) for p in choices.values()))


class Steal(NamedTuple):
    """A Diamonds steal: spend my Diamonds Treasure ``diamond``, take ``card`` from seat ``victim``'s zone.

    A NamedTuple: nothing, not even ``object.__setattr__``, can change one once made.
    """

    diamond: int
    victim: int
    card: int


class Observation(NamedTuple):
    """An immutable snapshot of exactly what rulings §10 lets ``seat`` see.

    A NamedTuple rather than a dataclass because the engine builds one per decision: tuples of ints
    are cheap to make, cannot be mutated, and share nothing with the engine's state.
    Per-seat fields are tuples indexed by seat number. ``revealed``: hands are revealed at the start
    of step 12 (rulings §6), so from then on (Hearts draws, the Joker Treasure, steals) it holds the
    hand of every seat still in — hole cards, Spades moved, cards drawn with Hearts so far — and
    None for the others; before step 12 every entry is None. ``restricted``: the powers this seat may not
    use this game (``POWERS`` names, in that order; () for a seat with none barred). It is told to the seat
    alone: nothing in an observation says whether another seat is restricted.
    """

    phase: str  # "bet", "spades", "hearts", "joker_treasure", "make_room", "steal" or "keep_playing"
    seat: int
    n_players: int
    hand_no: int  # this hand (keep_playing: the hand just played, 0 before the first)
    dealer: int
    hand: tuple[int, ...]  # my hand: hole cards, plus Spades moved and Hearts drawn
    shared: tuple[int, ...]  # shared cards dealt so far
    new_treasure: int | None  # this hand's New Treasure, face up (None before step 3 or when the rules deal none)
    treasures: tuple[tuple[int, ...], ...]  # every Treasure Zone
    money: tuple[int, ...]  # chips behind, not yet committed this hand
    bets: tuple[int, ...]  # chips bet in the current betting round
    committed: tuple[int, ...]  # chips put in this hand (antes and all bets)
    pot: int  # all chips committed this hand
    folded: tuple[bool, ...]
    in_hand: tuple[bool, ...]  # dealt into this hand (could pay the ante)
    all_in: tuple[bool, ...]
    deck_size: int
    round: int  # betting round 0..3 (steps 4, 6, 8, 10); 3 after betting
    to_call: int
    min_raise_to: int  # 0 when raising is not legal
    max_raise_to: int
    legal: tuple[str, ...]  # legal action kinds at a betting decision, else ()
    history: tuple[ActionEvent, ...]  # this hand's betting actions so far
    last_folder: int | None
    wild_ranks: int  # 13-bit mask of ranks wild for me (my Clubs Treasures)
    showdowns: tuple[ShownHand, ...]  # hands shown at earlier showdowns this game
    revealed: tuple[tuple[int, ...] | None, ...]  # from step 12 on, the hand of every seat still in, else None
    rules: RuleSet  # this bot's own copy
    restricted: tuple[str, ...] = ()  # the powers I may not use this game (restricted play)

    @property
    def my_treasures(self) -> tuple[int, ...]:
        return self.treasures[self.seat]

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still in this hand (dealt in, not folded)."""
        return tuple(s for s in range(self.n_players) if self.in_hand[s] and not self.folded[s])


class Strategy:
    """Base class for bots. Override only the decisions you care about; each default is sensible.

    The engine calls :meth:`setup` at the start of every game with the bot's own seeded
    ``numpy.random.Generator`` (use ``self.rng``, never the global ``random``).
    """

    name: ClassVar[str | None] = None

    seat: int
    n_players: int
    rules: RuleSet
    rng: np.random.Generator

    def setup(self, seat: int, n_players: int, rules: RuleSet, rng: np.random.Generator) -> None:
        self.seat, self.n_players, self.rules, self.rng = seat, n_players, rules, rng

    def act(self, obs: Observation) -> Action | Mixed:
        """A betting decision, or a `Mixed` one for the engine to draw. Default: check when free, else fold."""
        return Action.check() if CHECK in obs.legal else Action.fold()

    def move_spades(self, obs: Observation) -> list[int]:
        """Step 11: which of my Spades Treasures to move to my hand. Default: keep them."""
        return []

    def draw_heart(self, obs: Observation) -> bool:
        """Step 12: draw the next Hearts card? Default: yes (a card never lowers a hand)."""
        return True

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        """Step 15: which card (from my hole cards or the shared cards) becomes my Treasure.

        Default: the highest-value card.
        """
        return max(options, key=lambda c: value_of(c, obs.rules.ace_value))

    def make_room(self, obs: Observation, treasure: int) -> int | None:
        """Steps 14–15 when my zone is full (``rules.zone_limit``, ``at_limit = "choose"``): one of my Treasures
        (``obs.my_treasures``) to give up so that ``treasure`` can enter my zone, or None to let ``treasure`` go.

        Default: let it go (my zone stays as it is).
        """
        return None

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        """Step 16: one steal from ``options`` or None to stop; asked again after each steal."""
        return None

    def keep_playing(self, obs: Observation) -> bool:
        """Before each hand: go on (True) or vote to stop the game."""
        return True

    def on_hand_end(self, record: HandRecord) -> None:
        """Told the hand's public record (unshown hands hidden) when a hand ends."""

    def __repr__(self) -> str:
        return self.name or type(self).__name__
