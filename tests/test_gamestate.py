"""The steppable state: stepped by hand it plays the engine's games; answers are checked; clones are independent;
``sample_hidden`` redraws exactly what a seat cannot see, uniformly, and leaks nothing of the true cards."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from treasure_sim import Action, GameState, IllegalAnswer, Mixed, RuleSet, Steal, load_strategy, play_game
from treasure_sim.game.cards import make_deck, parse_card
from treasure_sim.game.observe import observe, observe_between
from treasure_sim.game.questions import QUESTIONS
from treasure_sim.game.seeding import derive, root_key

METHOD_ARGS = {"bet": (), "keep_playing": (), "spades": (), "hearts": ()}


def ask_bot(bot, state: GameState, d):
    """What an in-process bot answers to ``d`` (trusted test bots: no seat in between)."""
    obs = state.observation(d)
    method = getattr(bot, QUESTIONS[d.kind].method)
    if d.kind in ("joker_treasure", "steal"):
        return method(obs, tuple(o for o in d.options if o is not None))
    if d.kind == "make_room":
        return method(obs, d.treasure)
    return method(obs)


def random_answer(d, rng: np.random.Generator):
    """A uniformly random legal answer (raises: a random legal total)."""
    if d.kind == "bet":
        kind = d.options[rng.integers(len(d.options))]
        if kind == "raise":
            low, high = d.limits.min_raise_to, d.limits.max_raise_to
            return Action.raise_to(int(rng.integers(low, high + 1)))
        return Action(kind)
    if d.kind == "spades":
        return [c for c in d.options if rng.random() < 0.5]
    return d.options[rng.integers(len(d.options))]


def cards_in_play(state: GameState) -> Counter:
    """Every card the state holds somewhere: the deck, the zones, the hands, the board, the New Treasure, removed."""
    t, h = state.table, state.hand
    held = Counter(t.deck_list()) + Counter(c for z in t.treasures for c in z) + Counter(t.removed)
    if h is not None and state.phase not in ("hand_over",):
        held += Counter(c for hand in h.hands for c in hand) + Counter(h.shared)
        if h.new_treasure is not None and h.taken != h.new_treasure:
            held[h.new_treasure] += 1  # not taken, or a Joker: in play until step 17
            if h.taken is not None:
                held[h.taken] -= 1  # a Joker's stand-in: in the zone and still in a hand or on the board
        held += Counter(parse_card(name) for _, name in h.given_up)  # out of a full zone: back at step 17
    return held


def test_stepped_by_hand_it_plays_the_engines_games() -> None:
    """The engine is a driver over the state: a caller stepping the state with the same bots gets the same games."""
    rules = RuleSet(max_hands=40)
    for seed in range(6):
        names = ("equity", "treasure_hunter", "random", "rock")[: 2 + seed % 3]
        result = play_game([load_strategy(n) for n in names], rules, seed=seed)
        bots = [load_strategy(n) for n in names]
        key = root_key(seed)
        for s, bot in enumerate(bots):
            bot.setup(s, len(bots), rules, np.random.default_rng(derive(key, "bot", s)))
        state = GameState.new(len(bots), rules, seed)
        while not state.over:
            d = state.decision(through_hands=False)
            if d is not None:
                state.apply(ask_bot(bots[d.seat], state, d))
            elif state.phase == "hand_over":  # the engine tells its bots what happened
                for s in state.hand.order:
                    bots[s].on_hand_end(state.record.public(s))
        assert tuple(state.table.money) == result.final_money
        assert state.end_reason == result.end_reason
        assert state.table.hand_no == result.hands_played


def test_a_driver_told_every_decision_plays_the_same_games_and_tells_what_a_stepper_meets() -> None:
    """``Game(on_decision=...)`` (a replay's count of decisions) is told exactly the decisions a caller stepping the
    state meets, the questions whose default a bot keeps included, and the games do not change."""
    from treasure_sim import Game

    rules = RuleSet(max_hands=30)
    for seed in range(4):
        names = ("random", "rock", "treasure_hunter", "calling_station")[: 2 + seed % 3]
        told: list[tuple] = []

        def tell(state, d, told=told):
            told.append((state.table.hand_no, d.seat, d.kind, d.options))

        game = Game([load_strategy(n) for n in names], rules, seed, on_decision=tell)
        result = game.play()
        assert result.final_money == play_game([load_strategy(n) for n in names], rules, seed=seed).final_money
        bots = [load_strategy(n) for n in names]
        key = root_key(seed)
        for s, bot in enumerate(bots):
            bot.setup(s, len(bots), rules, np.random.default_rng(derive(key, "bot", s)))
        state, met = GameState.new(len(bots), rules, seed), []
        while not state.over:
            d = state.decision(through_hands=False)
            if d is not None:
                met.append((state.table.hand_no, d.seat, d.kind, d.options))
                state.apply(ask_bot(bots[d.seat], state, d))
            elif state.phase == "hand_over":
                for s in state.hand.order:
                    bots[s].on_hand_end(state.record.public(s))
        assert told == met and {kind for *_, kind, _ in told} >= {"bet", "keep_playing"}


def zone_views(table) -> tuple:
    """What the table derives from its zones for observations, the evaluator and the Treasure steps."""
    return (table.zone_tuples, table.zone_names, table.wilds, list(table.suits_held), list(table._tuples),
            [[table.zone_suit(s, suit) for suit in range(4)] for s in range(table.n)])


def rebuilt_zone_views(table) -> tuple:
    """The same, rebuilt from the zones alone (on a copy)."""
    fresh = table.copy()
    fresh._zones_changed(*range(fresh.n))
    return zone_views(fresh)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 6), clubs=st.booleans(), zone_limit=st.sampled_from([0, 2]),
       at_limit=st.sampled_from(["choose", "refuse", "discard_oldest"]), betting=st.sampled_from(
           ["no-limit", "pot-limit", "fixed-limit"]), barred=st.booleans())
def test_random_legal_answers_conserve_chips_and_cards(seed: int, n: int, clubs: bool, zone_limit: int,
                                                        at_limit: str, betting: str, barred: bool) -> None:
    """Chips and cards are conserved at every step, and the views of the zones the table keeps up to date as cards
    come and go (the wild ranks, the suits held, the tuples observations share) are what rebuilding them gives."""
    rules = RuleSet(max_hands=25, clubs=clubs, zone_limit=zone_limit, at_limit=at_limit, betting=betting)
    state = GameState.new(n, rules, seed, restrict={0: {"clubs"}} if barred else None)
    rng = np.random.default_rng(seed)
    deck = Counter(make_deck(rules.jokers))
    chips = n * rules.starting_money
    steps = 0
    while (d := state.decision()) is not None:
        if d.kind == "keep_playing":  # before a hand: in = able to play on, all in = in with no chips (never, so far)
            seen = state.observation(d)
            assert seen.in_hand == tuple(not out for out in state.table.out)
            assert seen.all_in == tuple(i and not m for i, m in zip(seen.in_hand, seen.money, strict=True))
        elif d.kind == "bet":  # the chips and flags a bettor sees (kept between changes) are the hand's as they are now
            seen, h = state.observation(d), state.hand
            assert (seen.money, seen.bets, seen.committed, seen.folded, seen.all_in) == (
                tuple(state.table.money), tuple(h.bets), tuple(h.committed), tuple(h.folded), tuple(h.all_in))
        state.apply(d.default if rng.random() < 0.1 else random_answer(d, rng))  # every default is a legal answer
        steps += 1
        h = state.hand
        paid = h is None or state.phase in ("joker_treasure", "make_room", "steal", "hand_over")
        assert sum(state.table.money) + (0 if paid else h.pot) == chips
        assert cards_in_play(state) == deck
        assert zone_views(state.table) == rebuilt_zone_views(state.table)
        assert steps < 20_000
    assert state.over and sum(state.table.money) == chips


def illegal(d) -> list:
    """Answers that are not legal for ``d``."""
    if d.kind == "bet":
        wrong = [Action.raise_to(10**9), "call", None, Mixed((Action.fold(),), (0.5,)), Action("shove")]
        if "check" not in d.options:
            wrong.append(Action.check())
        return wrong
    if d.kind in ("keep_playing", "hearts"):
        return [1, "yes", None]
    if d.kind == "spades":
        return [[53], "As", [*d.options, *d.options][:2] if d.options else [0, 0]]
    return [999, "x", Steal(52, 0, 53)]


def test_illegal_answers_are_refused_by_name_and_change_nothing() -> None:
    rules = RuleSet(max_hands=30, zone_limit=2, at_limit="choose")
    state = GameState.new(4, rules, 3)
    rng = np.random.default_rng(3)
    refused = Counter()
    while (d := state.decision()) is not None:
        before = snapshot(state)
        for answer in illegal(d):
            if d.kind == "spades" and answer == [*d.options, *d.options][:2] and len(set(answer)) == len(answer):
                continue
            with pytest.raises(IllegalAnswer, match=d.kind):
                state.apply(answer)
            refused[d.kind] += 1
        assert snapshot(state) == before
        state.apply(random_answer(d, rng))
    assert refused["bet"] > 100 and refused["keep_playing"] > 10


def snapshot(state: GameState) -> tuple:
    """Everything about a state that playing on could change."""
    t, h = state.table, state.hand
    hand = None if h is None else (tuple(h.hands), h.shared, tuple(h.bets), tuple(h.committed), tuple(h.folded),
                                   h.actions, h.pot, h.revealed, tuple(h.steals), tuple(h.mixed))
    return (state.phase, state.end_reason, tuple(t.money), tuple(map(tuple, t.treasures)), tuple(t.deck_list()),
            t.dealer, t.hand_no, tuple(t.out), tuple(t.removed), hand, state.decision())


def test_each_voter_sees_what_a_fresh_observation_shows_also_on_a_clone_and_in_the_next_vote() -> None:
    """The votes before a hand change nothing, so every voter's observation is built once per vote: each must equal
    the one built for it alone, in every vote of a game and on a clone taken mid-vote."""
    state = GameState.new(4, RuleSet(), seed=3)
    rng = np.random.default_rng(3)
    votes = 0
    while (d := state.decision()) is not None:
        if d.kind == "keep_playing":
            fresh = observe_between(state.table, (d.seat,))[0]
            assert state.observation(d) == fresh
            clone = state.clone()
            assert clone.observation(clone.decision()) == fresh
            votes += 1
        state.apply(True if d.kind == "keep_playing" else random_answer(d, rng))
    assert votes > 20


def test_playing_on_a_clone_never_changes_the_original() -> None:
    checked = 0
    for state in positions(60, 11, RuleSet(zone_limit=2, at_limit="choose")):
        before = snapshot(state)
        clone = state.clone()
        assert snapshot(clone) == before
        other = np.random.default_rng(checked)
        while (c := clone.decision()) is not None:
            clone.apply(random_answer(c, other))
        assert snapshot(state) == before
        checked += 1
    assert checked > 20


def test_a_clone_given_the_same_answers_plays_the_same_game() -> None:
    """Its streams are copies: shuffles of later hands and Mixed draws come out the same."""
    state = next(positions(1, 5, RuleSet(max_hands=40)))
    clone = state.clone()
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    mixed = Mixed((Action.fold(), Action.call()), (0.3, 0.7))
    for s, rng in ((state, a), (clone, b)):
        while (d := s.decision()) is not None:
            s.apply(mixed if d.kind == "bet" and rng.random() < 0.5 else random_answer(d, rng))
    assert snapshot(state) == snapshot(clone)


def test_a_clone_taken_between_two_mixed_draws_draws_what_the_original_draws() -> None:
    """A seat's Mixed draws come from its stream a block at a time: a clone taken after some draws copies what is
    left of each block, so, given the same answers, it draws the same numbers as the original, which its play leaves
    untouched (a block shared, or drawn afresh, would give other games)."""
    def answer(d, rng):
        if d.kind == "keep_playing":
            return True
        if d.kind == "bet" and rng.random() < 0.8:  # fold 30%, else check or call
            return Mixed((Action.fold(), Action.call() if d.limits.to_call else Action.check()), (0.3, 0.7))
        return random_answer(d, rng)

    for seed in range(4):
        state, rng, drawn = GameState.new(3, RuleSet(max_hands=30), seed), np.random.default_rng(seed), 0
        while drawn < 7 and (d := state.decision()) is not None:  # seven draws: every seat's block part used
            drawn += d.kind == "bet"
            state.apply(answer(d, rng))
        clone = state.clone()
        for s in (clone, state):
            answers = np.random.default_rng(99)
            while (d := s.decision()) is not None:
                s.apply(answer(d, answers))
        assert drawn == 7 and snapshot(state) == snapshot(clone) and state.table.hand_no > 3
        assert state.record is not None and clone.record is not None and state.record.mixed == clone.record.mixed


def positions(n_states: int, seed: int, rules: RuleSet | None = None):
    """Random positions (states waiting for a decision), from random legal play."""
    rng = np.random.default_rng(seed)
    for k in range(n_states):
        state = GameState.new(int(rng.integers(2, 6)), rules or RuleSet(), seed * 10_000 + k)
        stop = int(rng.integers(0, 60))
        for _ in range(stop):
            d = state.decision()
            if d is None:
                break
            state.apply(random_answer(d, rng))
        if state.decision() is not None:
            yield state


def seen_by(state: GameState, seat: int) -> tuple:
    """What ``seat`` sees now: its observation (as the engine builds it) minus nothing."""
    return observe(state.table, state.hand, seat, "bet") if state.hand is not None else None


def test_sample_hidden_keeps_all_a_seat_sees_and_redraws_the_rest() -> None:
    rng = np.random.default_rng(1)
    for state in positions(150, 1):
        seat = state.decision().seat
        sample = state.sample_hidden(seat, rng)
        assert seen_by(sample, seat) == seen_by(state, seat)  # every field of its observation, exactly
        assert sample.decision() == state.decision()
        assert cards_in_play(sample) == cards_in_play(state)
        assert sorted(sample.table.deck_list()) == sorted(state.table.deck_list()) or state.hand is not None
        assert snapshot(sample)[2:4] == snapshot(state)[2:4]  # money and zones


def hidden_slots(state: GameState, seat: int) -> list[int]:
    """The cards ``seat`` cannot see in the true state: other hole cards not face up, then the deck, top first."""
    h = state.hand
    cards = []
    if h is not None:
        for o in range(state.table.n):
            if o != seat and h.hole[o] and not (h.revealed and h.in_hand[o] and not h.folded[o]):
                cards.extend(h.hole[o])
    return cards + state.table.deck_list()[::-1]


def test_sample_hidden_leaks_nothing_of_the_true_cards() -> None:
    """Over many positions: the resampled opponent card and next card are independent of the true ones (chi-square
    on suit x suit), are never a card the seat has seen, and are uniform over the cards it has not."""
    rng = np.random.default_rng(7)
    pairs, uniform = [], Counter()
    for state in positions(1500, 2):
        seat = state.decision().seat
        true = hidden_slots(state, seat)
        sample = state.sample_hidden(seat, rng)
        drawn = hidden_slots(sample, seat)
        assert sorted(drawn) == sorted(true)  # the same unseen cards, redrawn among the same slots
        seen = set(observe(state.table, state.hand, seat, "bet").hand) if state.hand is not None else set()
        assert not seen & set(drawn)
        pairs.append((true[0] % 4 if true[0] < 52 else 4, drawn[0] % 4 if drawn[0] < 52 else 4))
        uniform[true.index(drawn[0]) * 10 // len(true)] += 1  # where the drawn card sat among the unseen
    table = np.zeros((5, 5))
    for a, b in pairs:
        table[a, b] += 1
    table = table[table.sum(1) > 0][:, table.sum(0) > 0]
    assert stats.chi2_contingency(table).pvalue > 0.001
    assert stats.chisquare([uniform[k] for k in range(10)]).pvalue > 0.001
    assert sum(a == b for a, b in pairs) < 0.4 * len(pairs)  # suits agree about as often as chance (~25%)


def test_play_bets_asks_through_ask_or_acts_and_refuses_neither():
    """Both ways of answering the betting loop play the same bets; given neither, a clear error."""
    from treasure_sim.bots.seats import Seat
    from treasure_sim.game.strategy import Strategy

    class Caller(Strategy):
        def act(self, obs):
            return Action.check() if "check" in obs.legal else Action.call()

    played = []
    for way in ("ask", "acts"):
        state = GameState.new(3, RuleSet(max_hands=2), 4)
        seats = [Seat(i, Caller(), state.table) for i in range(3)]
        while state.phase != "bet":
            d = state.decision()
            state.apply(d.default)
        with pytest.raises(TypeError, match="needs ask"):
            state.play_bets()
        if way == "acts":
            state.play_bets(acts=[seat.act for seat in seats])
        else:
            state.play_bets(lambda s, lim, my_bet, legal, state=state, seats=seats: seats[s].act(
                observe(state.table, state.hand, s, "bet", lim[0], lim[1], lim[2], legal), lim, my_bet))
        played.append(state.hand.actions)
    assert played[0] == played[1] and len(played[0]) >= 3


def playing_on(d, rng: np.random.Generator):
    """A random legal answer, except that every vote goes on (random votes end most games in a few hands)."""
    return True if d.kind == "keep_playing" else random_answer(d, rng)


@pytest.mark.parametrize(("seed", "zone_limit", "every_kind"),
                         [(3, 0, True), (9, 0, False), (14, 0, False), (21, 0, True), (10, 2, True), (11, 2, True)])
def test_the_answering_loop_asks_what_a_stepper_meets_and_questions_false_stops_where_one_may_wait(
        seed, zone_limit, every_kind):
    """`GameState.play_answers` puts to each seat the Decision and the observation a caller stepping the state meets,
    in the same order, through that seat's own answering function, and plays the same game; ``decision(questions=
    False)`` never makes a Decision: it stops (None) where a question may wait (a bet, a vote, a Treasure step), or at
    the end. With full zones (``zone_limit=2``), make_room too."""
    rules = RuleSet(max_hands=60, zone_limit=zone_limit, at_limit="choose")
    stepped, looped = GameState.new(3, rules, seed), GameState.new(3, rules, seed)
    met, asked = [], []
    rng = np.random.default_rng(seed)
    while (d := stepped.decision()) is not None:
        met.append((d, stepped.observation(d)))
        stepped.apply(playing_on(d, rng))
    rng = np.random.default_rng(seed)

    def answering(seat: int):
        def answer(d, look):
            assert d.seat == seat  # each question goes to its own seat's function
            asked.append((d, look(d)))
            return playing_on(d, rng)
        return answer

    while True:
        assert looped.decision(questions=False) is None
        if looped.over:
            break
        if looped.phase == "bet":  # the bets one by one, as the stepper answers them
            d = looped.decision()
            if d is not None:  # None: the round was over, and with it the game
                asked.append((d, looped.observation(d)))
                looped.apply(playing_on(d, rng))
        else:
            looped.play_answers([answering(seat) for seat in range(3)])
    every = set(QUESTIONS) if zone_limit else set(QUESTIONS) - {"make_room"}
    assert asked == met and {d.kind for d, _ in met} >= (every if every_kind else {"keep_playing", "bet"})
    assert looped.table.money == stepped.table.money and looped.end_reason == stepped.end_reason


@pytest.mark.parametrize("stoppers", [{1}, {0, 1, 2}])
def test_every_voter_stopping_ends_the_game_in_the_answering_loop(stoppers):
    """The votes through `GameState.play_answers` end as a stepper's: all stopping ends the game."""
    rules = RuleSet(max_hands=3)
    stepped, looped = GameState.new(3, rules, 9), GameState.new(3, rules, 9)
    while (d := stepped.decision()) is not None and d.kind == "keep_playing":
        stepped.apply(d.seat not in stoppers)
    assert looped.decision(questions=False) is None and looped.phase == "vote"
    looped.play_answers([lambda d, look: d.seat not in stoppers] * 3)
    if stoppers == {0, 1, 2}:
        assert looped.over and stepped.over and looped.end_reason == stepped.end_reason == "all_stopped"
    else:
        assert looped.phase == "ready" and looped.decision() == d  # the first bet, as the stepper met it


@pytest.mark.parametrize(("seed", "zone_limit"), [(3, 0), (21, 0), (10, 2)])
def test_play_asks_every_question_a_stepper_meets_and_stops_where_decision_false_stops(seed, zone_limit):
    """`GameState.play` puts each bet to that seat's ``acts`` (with the observation, limits and bet a stepper's
    Decision has) and every other question to its ``answers``, in the stepper's order, and returns at the end of
    each hand, of each vote and of the game, where ``decision(through_hands=False)`` stops; the games end the same."""
    from types import SimpleNamespace

    from treasure_sim.game.questions import plain_bet

    rules = RuleSet(max_hands=40, zone_limit=zone_limit, at_limit="choose")
    stepped, looped = GameState.new(3, rules, seed), GameState.new(3, rules, seed)
    met, stops, asked, paused = [], [], [], []
    rng = np.random.default_rng(seed)
    while True:
        d = stepped.decision(through_hands=False)
        if d is None:
            stops.append((stepped.phase, stepped.table.hand_no))
            if stepped.over:
                break
            continue
        met.append((d.seat, d.kind, stepped.observation(d)))
        stepped.apply(playing_on(d, rng))
    rng = np.random.default_rng(seed)

    def acting(seat: int):
        def act(obs, lim, my_bet):
            assert obs.seat == seat
            asked.append((seat, "bet", obs))
            return plain_bet(random_answer(SimpleNamespace(kind="bet", options=obs.legal, limits=lim), rng), lim,
                             my_bet)
        return act

    def answering(seat: int):
        def answer(d, look):
            assert d.seat == seat
            asked.append((seat, d.kind, look(d)))
            return playing_on(d, rng)
        return answer

    acts, answers = [acting(s) for s in range(3)], [answering(s) for s in range(3)]
    while True:
        looped.play(acts, answers)
        paused.append((looped.phase, looped.table.hand_no))
        if looped.over:
            break
    assert asked == met and {kind for _, kind, _ in met} >= {"keep_playing", "bet", "steal"}
    assert paused == stops and {phase for phase, _ in stops} == {"ready", "hand_over", "over"}
    assert looped.table.money == stepped.table.money and looped.end_reason == stepped.end_reason


def test_a_question_whose_answering_function_raises_in_the_loops_is_asked_again_by_decision():
    """If a seat's answering function raises inside `GameState.play` (a vote, a Treasure step), the state waits for
    that same question: `decision` gives it (the votes before it counted), and answering it there, then playing on
    with `play`, ends the game as a stepper's."""
    from types import SimpleNamespace

    from treasure_sim.game.questions import plain_bet

    rules = RuleSet(max_hands=30)
    stepped = GameState.new(3, rules, 21)
    met = []
    rng = np.random.default_rng(5)
    while (d := stepped.decision()) is not None:
        met.append(d)
        stepped.apply(playing_on(d, rng))
    rng = np.random.default_rng(5)
    looped, asked, raised = GameState.new(3, rules, 21), [], []

    def acting(obs, lim, my_bet):
        asked.append(("bet", obs.seat))
        return plain_bet(random_answer(SimpleNamespace(kind="bet", options=obs.legal, limits=lim), rng), lim, my_bet)

    def answering(d, look):
        if d.kind in ("keep_playing", "steal") and len(asked) >= 20 * (len(raised) + 1):  # every 20 questions, once
            raised.append(d)
            raise KeyboardInterrupt
        asked.append((d.kind, d.seat))
        return playing_on(d, rng)

    while not looped.over:
        try:
            looped.play([acting] * 3, [answering] * 3)
        except KeyboardInterrupt:
            d = looped.decision(through_hands=False)
            assert d == raised[-1]  # the same question waits
            asked.append((d.kind, d.seat))
            looped.apply(playing_on(d, rng))
    assert {d.kind for d in raised} == {"keep_playing", "steal"}
    assert asked == [(d.kind, d.seat) for d in met]
    assert looped.table.money == stepped.table.money and looped.end_reason == stepped.end_reason
