"""The luck adjustment's value function against the engine: the same cards, the same outcome.

`luck_values.values` is a vectorized model of the rest of a hand (the shared cards still to come, Hearts draws with
chains, quintets with each seat's Clubs and the Jokers wild, main and side pots, the uncalled bet), kept apart from
the engine because it values thousands of states per numpy call, where stepping a `GameState` per state and sample
costs about 40 times more (docs/luck.md). This oracle test keeps the two models one: from positions of real games it
plays the rest of the hand in the engine with a fixed deck (everyone checks, nobody moves Spades, every Hearts draw
is taken, the model's assumptions) and asks the model for the value of the same position with the same deck order.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from treasure_sim import Action, GameState, RuleSet
from treasure_sim.game.cards import HEARTS, RANK
from treasure_sim.study.luck_values import States, values

PAD = 12  # cards a seat may hold, padded


def round_starts(count: int, seed: int, rules: RuleSet) -> list[GameState]:
    """Positions where a betting round begins (no bet yet in it) with at least two shared cards to come."""
    rng = np.random.default_rng(seed)
    found: list[GameState] = []
    game = 0
    while len(found) < count:
        n = int(rng.integers(2, 7))
        cards = rng.permutation(52)[:2 * n]  # Treasures from the start, so Clubs and Hearts matter more often
        zones = {s: [int(c) for c in cards[2 * s:2 * s + int(rng.integers(0, 3))]] for s in range(n)}
        money = [int(m) for m in rng.integers(3, 120, n)]  # short stacks go all in: side pots
        state = GameState.new(n, rules, seed * 1000 + game, treasures=zones, money=money)
        game += 1
        while (d := state.decision()) is not None and state.table.hand_no < 30:
            h = state.hand
            if (d.kind == "bet" and h.round <= 1 and not any(h.bets) and len(h.contenders()) > 1
                    and not [a for a in h.actions if a.round == h.round] and rng.random() < 0.3):
                found.append(state.clone())
                break
            if d.kind == "bet":  # random play with small bets, so pots and side pots vary
                kind = d.options[int(rng.integers(len(d.options)))]
                top = d.limits.max_raise_to if rng.random() < 0.3 else d.limits.min_raise_to
                answer = Action.raise_to(top) if kind == "raise" else Action(kind)
            elif d.kind == "spades":
                answer = []
            else:
                answer = d.options[int(rng.integers(len(d.options)))]
            state.apply(answer)
    return found


def checked_through(state: GameState, seen: Counter) -> np.ndarray:
    """What each seat gets from the pots (and the uncalled bet) when everyone checks to the showdown."""
    state = state.clone()
    while (d := state.decision(through_hands=False)) is not None:
        state.apply({"bet": Action.check(), "spades": [], "hearts": True}.get(d.kind, d.default))
    record = state.record
    seen["Hearts draws"] += any(record.drawn)
    seen["chains"] += any(len(cards) > 1 for cards in record.drawn)
    seen["side pots"] += len(record.pots) > 1
    seen["wild Clubs"] += any(w for s, w in enumerate(state.table.wilds) if not record.folded[s])
    got = np.zeros(state.table.n)
    for pot in record.pots:
        for seat, chips in zip(pot.winners, pot.shares, strict=True):
            got[seat] += chips
    if record.returned:
        got[record.returned[0]] += record.returned[1]
    return got


def as_model_state(state: GameState) -> tuple[States, np.ndarray]:
    """The model's state of the position, and a 'shuffle' that deals exactly the engine's deck, top card first."""
    t, h = state.table, state.hand
    n = t.n
    deck = t.deck_list()[::-1]
    known = np.full((1, n, PAD), -1, np.int8)
    for s in range(n):
        known[0, s, :len(h.hands[s])] = h.hands[s]
    shared = np.full((1, 5), -1, np.int8)
    shared[0, :len(h.shared)] = h.shared
    hearts = np.array([[sum(1 << RANK[c] for c in t.zone_suit(s, HEARTS)) for s in range(n)]], np.uint16)
    contender = np.array([[h.in_hand[s] and not h.folded[s] for s in range(n)]])
    order = np.full((1, n), -1, np.int64)
    order[0, :len(h.order)] = h.order
    st = States(hand=np.zeros(1, np.int64), samples=np.ones(1, np.int64),
                deck=np.array([sum(1 << c for c in deck)], np.uint64), deal_holes=np.zeros(1, bool), order=order,
                known=known, shared=shared, contender=contender, wild=np.array([t.wilds], np.uint16),
                hearts=hearts, owed=np.full((1, n), -1, np.int64), budget=np.full(1, 40, np.int64),
                commit=np.array([h.committed], np.int64))
    perm = np.array([deck + [c for c in range(54) if c not in deck]], np.int8)
    return st, perm


def test_the_value_model_pays_what_the_engine_pays_on_the_same_cards() -> None:
    rules = RuleSet(max_hands=30)
    compared = split = 0
    seen: Counter = Counter()
    for state in round_starts(300, 1, rules):
        st, perm = as_model_state(state)
        model = values(st, perm, rules.to_dict())[0]
        engine = checked_through(state, seen)
        if np.allclose(model, engine):
            compared += 1
        else:  # a split pot: the engine gives odd chips to the first winners in turn order, the model shares evenly
            assert np.allclose(model.sum(), engine.sum()) and np.abs(model - engine).max() < 1, (model, engine)
            split += 1
    assert compared > 250
    assert seen["Hearts draws"] > 50 and seen["chains"] > 10 and seen["side pots"] > 3 and seen["wild Clubs"] > 50
