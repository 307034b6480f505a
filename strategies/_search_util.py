"""Helpers of the search player (strategies/search.py): the rollout policy's greedy steal, each seat's final hand
category in a determinization, the least category a rollout opponent calls with, and whether a hand just played
ends the game."""

from __future__ import annotations

from treasure_sim.game import evaluator
from treasure_sim.game.gamestate import GameState
from treasure_sim.game.strategy import Steal

from ._treasure import Valuer


def greedy_steal(valuer: Valuer, seat: int, options: tuple) -> Steal | None:
    """The steal with the largest gain to ``seat`` (the card's worth to it plus the victim's loss, less its
    Diamond), or None when none gains."""
    best, gain = None, 0.0
    for o in options:
        if o is None:
            continue
        g = valuer.value(o.card, seat) + valuer.value(o.card, o.victim) - valuer.value(o.diamond, seat)
        if g > gain:
            best, gain = o, g
    return best


def final_categories(state: GameState) -> list[int]:
    """Per seat, the category (0 high card .. 9 five of a kind) of its hand with the whole board of this
    determinization (the shared cards still to come are the top of its deck); -1 for a seat with no cards."""
    h, t = state.hand, state.table
    if h is None:
        return [-1] * t.n
    board = h.shared + t.deck_top_first()[:5 - len(h.shared)]
    seats = [s for s in range(t.n) if h.hands[s]]
    scores = evaluator.score_rows([h.hands[s] + board for s in seats], [t.wilds[s] for s in seats])
    strength = [-1] * t.n
    for s, c in zip(seats, evaluator.category(scores).tolist(), strict=True):
        strength[s] = c
    return strength


def needed(share: float) -> int:
    """The least final category a rollout opponent calls with, facing a bet that is ``share`` of the pot after
    the call: anything to a fifth, a pair to 35%, two pair to a half, three of a kind beyond."""
    return 0 if share <= 0.2 else 1 if share <= 0.35 else 2 if share <= 0.5 else 3


def ends_game(state: GameState) -> bool:
    """The hand just played ends the game (rulings §7): the deck ran out, the hand cap, or fewer than two can pay
    the next ante."""
    h, t = state.hand, state.table
    if state.over or h is None:
        return True
    if h.void or h.ran_out or t.hand_no >= state.rules.max_hands:
        return True
    ante = state.rules.ante_at(t.hand_no + 1)
    return sum(1 for s in range(t.n) if not t.out[s] and t.money[s] >= ante) < 2

