"""The search player (strategies/search.py) on the questions after a hand, stacked so one answer clearly wins:
which card it steals, and a steal it declines; which card it takes as a Joker Treasure; what it gives up for a new
Treasure when its zone is full, and a new Treasure it lets go. Each position is asked with several seeds of the
player (its determinizations differ), and every seed must give the answer that clearly wins."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import stacked
from test_search import reach, searcher

from treasure_sim import Action, GameState, RuleSet, Steal
from treasure_sim.game.cards import parse_card

SEEDS = (11, 1, 2)
BOARD = "Kh 9s 4c Jh 3s"


def seeded(n: int, rules: RuleSet, seed: int):
    bot = searcher(n, rules)
    bot.rng = np.random.default_rng(seed)
    return bot


def steal_position(n: int, zones: dict[int, str], money: list[int] | None = None, out: tuple[int, ...] = ()):
    """Seat 0 holds a Kd after a hand checked down; the zones and stacks as given."""
    deck = stacked(n, {0: "7c 2s", 1: "Ks Qd"}, dealer=1, new="6h", shared=BOARD, out=out)
    state = GameState.new(n, RuleSet(), 3, deck=deck, treasures=zones, money=money, dealer=1)
    d = reach(state, "steal", 0)
    return state, d, tuple(o for o in d.options if o is not None)


@pytest.mark.parametrize("seed", SEEDS)
def test_it_steals_the_rivals_wild_maker_not_its_small_hearts_card(seed: int) -> None:
    # the Qc makes every Queen wild for its holder; the 3h draws a card on a 3
    state, d, options = steal_position(2, {0: "Kd", 1: "Qc 3h"})
    answer = seeded(2, state.rules, seed).steal(state.observation(d), options)
    assert answer == Steal(victim=1, card=parse_card("Qc"), diamond=parse_card("Kd"))


@pytest.mark.parametrize("seed", SEEDS)
def test_it_declines_to_give_a_king_of_diamonds_for_a_deuce_nobody_in_the_game_would_miss(seed: int) -> None:
    # seat 2 is out of the game (it cannot pay the ante); its 2d may be stolen (rulings §6), but taking it costs the
    # Kd, which can steal any card up to a King, for one that steals only deuces, and no rival loses anything
    state, d, options = steal_position(3, {0: "Kd", 2: "2d"}, money=[150, 150, 0], out=(2,))
    assert [(o.victim, o.card) for o in options] == [(2, parse_card("2d"))]
    assert seeded(3, state.rules, seed).steal(state.observation(d), options) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_as_a_joker_treasure_it_takes_the_club_that_makes_aces_wild(seed: int) -> None:
    rules = RuleSet()
    deck = stacked(2, {0: "Ac 2h", 1: "Ks Qd"}, dealer=1, new="RJ", shared="3s 5d 8h 9d Ts")
    state = GameState.new(2, rules, 3, deck=deck, dealer=1)
    d = reach(state, "joker_treasure", 0, answers={1: [Action.raise_to(5)], 0: [Action.fold()]})
    assert set(d.options) == {parse_card("Ac"), parse_card("2h")}
    assert seeded(2, rules, seed).choose_joker_treasure(state.observation(d), d.options) == parse_card("Ac")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("zone", "new", "gives_up"), [
    ("2d 5s", "Ac", "2d"),  # a wild-making Ace of Clubs is worth more than a deuce of Diamonds
    ("Qc 5s", "Kc", "5s"),  # keeps its Qc, gives up the 5s for the Kc
    ("Ac Kc", "2d", None),  # lets a deuce of Diamonds go rather than give up a wild-maker
])
def test_with_a_full_zone_it_gives_up_its_least_card_or_lets_a_worse_one_go(zone: str, new: str, gives_up, seed: int):
    rules = RuleSet(zone_limit=2, at_limit="choose")
    deck = stacked(2, {0: "7c 2s", 1: "Ks Qd"}, dealer=1, new=new, shared=BOARD)
    state = GameState.new(2, rules, 3, deck=deck, treasures={0: zone}, dealer=1)
    d = reach(state, "make_room", 0, answers={1: [Action.raise_to(5)], 0: [Action.fold()]})
    assert d.treasure == parse_card(new)
    answer = seeded(2, rules, seed).make_room(state.observation(d), d.treasure)
    assert answer == (None if gives_up is None else parse_card(gives_up))
