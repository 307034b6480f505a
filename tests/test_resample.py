"""A state rebuilt from one seat's observation (`resample.state_from_observation`): it shows that seat exactly what
it was shown, asks it the same question, keeps every card accounted for, hides nothing it saw, plays on legally,
and depends on nothing but the observation."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from test_gamestate import cards_in_play, random_answer, snapshot

from treasure_sim import GameState, RuleSet, load_strategy
from treasure_sim.game.cards import make_deck
from treasure_sim.game.history import ActionEvent
from treasure_sim.game.resample import state_from_observation

RULES = (
    RuleSet(max_hands=30),
    RuleSet(max_hands=30, zone_limit=2, at_limit="choose", spent_diamonds="removed"),
    RuleSet(max_hands=30, betting="fixed-limit", jokers=1),
    RuleSet(max_hands=30, betting="pot-limit", hearts_chain=False, hearts_cap=2, ante_growth="double",
            ante_every=5),
)


def what_it_knows(state: GameState, d) -> dict:
    """What a bot answering ``d`` can pass besides the observation: the make_room card and the steal options (the
    method's arguments) and the Spades it moved itself this hand."""
    known: dict = {"treasure": d.treasure}
    if d.kind == "steal":
        known["options"] = d.options
    if state.hand is not None:
        known["moved"] = {d.seat: state.hand.spades_moved[d.seat]}
    return known


def seen_cards(obs) -> set[int]:
    seen = set(obs.hand) | set(obs.shared) | {c for z in obs.treasures for c in z}
    if obs.new_treasure is not None:
        seen.add(obs.new_treasure)
    for hand in obs.revealed:
        seen.update(hand or ())
    return seen


def hidden_cards(state: GameState, seat: int) -> list[int]:
    """The deck and the hole cards of every other seat whose hand is not face up."""
    h = state.hand
    cards = list(state.table.deck_list())
    if h is not None:
        for o in range(state.table.n):
            if o != seat and h.hands[o] and not (h.revealed and h.in_hand[o] and not h.folded[o]):
                cards.extend(h.hole[o])
    return cards


def positions_from_games(n_games: int, seed: int):
    """Every decision of real games: built-in bots and random answers, under several rule variants."""
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        rules = RULES[g % len(RULES)]
        n = 2 + g % 5
        bots = [load_strategy(name, **({"rollouts": 8} if name in ("equity", "treasure_hunter") else {}))
                for name in rng.choice(["equity", "treasure_hunter", "rock", "maniac"], n)]
        for s, bot in enumerate(bots):
            bot.setup(s, n, rules, np.random.default_rng(s))
        state = GameState.new(n, rules, seed * 1000 + g)
        while (d := state.decision()) is not None:
            yield state, d
            if d.kind == "bet" and rng.random() < 0.5:
                state.apply(bots[d.seat].act(state.observation(d)))
            else:
                state.apply(random_answer(d, rng))


def test_the_rebuilt_state_shows_the_seat_what_it_saw_and_asks_the_same_question() -> None:
    rng = np.random.default_rng(0)
    kinds: Counter = Counter()
    full = Counter(make_deck(2))
    for state, d in positions_from_games(40, 1):
        obs = state.observation(d)
        rebuilt = state_from_observation(obs, rng, **what_it_knows(state, d))
        again = rebuilt.decision()
        assert again == d, (d, again)
        assert rebuilt.observation(again) == obs
        held = cards_in_play(rebuilt)
        assert held == full - Counter(c for c in full if c not in make_deck(state.rules.jokers)), "cards lost"
        hidden = hidden_cards(rebuilt, d.seat)
        leaked = seen_cards(obs) & set(hidden)
        if d.kind == "steal":  # seen and hidden too: a Diamond New Treasure spent this step (under the deck), a
            leaked -= {obs.new_treasure, rebuilt.hand.taken}  # Joker's stand-in from a folded seat's hole cards
        assert not leaked
        kinds[d.kind] += 1
    assert kinds["bet"] > 1000 and kinds["keep_playing"] > 300
    for kind in ("spades", "hearts", "joker_treasure", "make_room", "steal"):
        assert kinds[kind] >= 5, kinds


def test_it_depends_on_the_observation_only() -> None:
    """Two true states that differ only in what the seat cannot see rebuild to the same state for the same seed."""
    checked = 0
    for state, d in positions_from_games(12, 2):
        if state.hand is None or checked > 400:
            continue
        other = state.sample_hidden(d.seat, np.random.default_rng(checked))
        assert other.observation(other.decision()) == state.observation(d)
        known = what_it_knows(state, d)
        a = state_from_observation(state.observation(d), np.random.default_rng(5), **known)
        b = state_from_observation(other.observation(other.decision()), np.random.default_rng(5), **known)
        assert snapshot(a) == snapshot(b)
        checked += 1
    assert checked > 100


def test_the_unseen_cards_are_drawn_uniformly() -> None:
    """An opponent's first hole card, over many rebuilds of one position: every unseen card about equally often."""
    from scipy import stats

    state = GameState.new(4, RuleSet(), 3)
    d = state.decision()
    while d.kind != "bet":
        state.apply(True)
        d = state.decision()
    obs = state.observation(d)
    other = (d.seat + 1) % 4
    rng = np.random.default_rng(1)
    counts = Counter(state_from_observation(obs, rng).hand.hole[other][0] for _ in range(4000))
    unseen = set(make_deck(2)) - seen_cards(obs)
    assert set(counts) == unseen
    assert stats.chisquare([counts[c] for c in sorted(unseen)]).pvalue > 0.001


def test_a_rebuilt_state_plays_on_to_the_end_legally() -> None:
    rng = np.random.default_rng(3)
    played = 0
    for state, d in positions_from_games(8, 3):
        if rng.random() > 0.05:
            continue
        rebuilt = state_from_observation(state.observation(d), rng, **what_it_knows(state, d))
        chips = sum(rebuilt.table.money) + (rebuilt.hand.pot if rebuilt.hand is not None else 0)
        while (e := rebuilt.decision()) is not None:
            rebuilt.apply(random_answer(e, rng))
        assert rebuilt.over and sum(rebuilt.table.money) == chips
        played += 1
    assert played > 20


def test_an_observation_the_rules_cannot_reach_is_refused() -> None:
    state = GameState.new(3, RuleSet(), 4)
    while (d := state.decision()).kind != "bet" or not state.hand.actions:
        state.apply(random_answer(d, np.random.default_rng(0)) if d.kind == "bet" else True)
    obs = state.observation(d)
    wrong = obs._replace(history=(*obs.history, ActionEvent(obs.round, obs.seat, "call", 50, 50)))
    with pytest.raises(ValueError, match="history"):
        state_from_observation(wrong, np.random.default_rng(0))
    with pytest.raises(ValueError, match="too many cards"):
        state_from_observation(obs._replace(deck_size=60), np.random.default_rng(0))
