"""The search player (strategies/search.py): legal and deterministic, spends nothing on forced answers, and on
stacked positions uses a power where using it clearly wins, declines it where declining clearly wins, and bets
sanely."""

from __future__ import annotations

import numpy as np
from conftest import stacked

from strategies.search import SearchBot
from treasure_sim import Action, Game, GameState, Mixed, RuleSet, load_strategy
from treasure_sim.game.cards import format_card, make_deck, parse_cards

SEED = 11


def searcher(n: int, rules: RuleSet, iterations: int = 64, seat: int = 0) -> SearchBot:
    bot = SearchBot(iterations=iterations)
    bot.setup(seat, n, rules, np.random.default_rng(SEED))
    return bot


def reach(state: GameState, kind: str, seat: int = 0, answers: dict | None = None):
    """Step ``state`` until ``seat`` is asked ``kind``: bets checked or called unless ``answers`` (a per-seat list of
    Actions, used in order) says otherwise; every other question gets its default."""
    answers = {s: list(a) for s, a in (answers or {}).items()}
    while (d := state.decision()) is not None:
        if d.kind == kind and d.seat == seat:
            return d
        if d.kind == "bet":
            mine = answers.get(d.seat)
            state.apply(mine.pop(0) if mine else Action.check() if d.limits.to_call == 0 else Action.call())
        else:
            state.apply(d.default if d.kind != "spades" else [])
    raise AssertionError(f"seat {seat} was never asked {kind}")


def chance(answer, kind: str) -> float:
    """The chance a betting answer (an Action or a Mixed) gives actions of ``kind``."""
    if isinstance(answer, Action):
        return float(answer.kind == kind)
    return sum(p for a, p in zip(answer.actions, answer.chances, strict=True) if a.kind == kind)


# ----- legal, deterministic, cheap where nothing is at stake -----------------------------------------------------
def test_it_plays_whole_games_legally_and_the_same_game_twice_for_a_seed() -> None:
    rules = RuleSet(max_hands=20)
    results = []
    for _ in range(2):
        bots = [load_strategy("search"), load_strategy("equity", rollouts=16),
                load_strategy("treasure_hunter", rollouts=16), load_strategy("maniac")]
        result = Game(bots, rules, seed=5, strict=True).play()
        assert all(not e for e in result.errors)
        results.append((result.final_money, [r.actions for r in result.hands]))
        assert bots[0].searches >= 5
    assert results[0] == results[1]


def test_it_plays_every_question_under_variants() -> None:
    """Zones full, steals, Jokers, fixed and pot limit: every question answered, nothing illegal (strict games)."""
    rng = np.random.default_rng(4)
    asked: set[str] = set()
    for g in range(6):
        rules = RuleSet(max_hands=10, zone_limit=2 if g % 2 else 0, at_limit="choose",
                        betting=("no-limit", "pot-limit", "fixed-limit")[g % 3], starting_money=30)
        cards = rng.permutation(52)[:12].tolist()
        treasures = {s: [format_card(c) for c in cards[3 * s: 3 * s + (2 if g % 2 else 3)]] for s in range(4)}
        bots = [SearchBot(iterations=8), SearchBot(iterations=8), load_strategy("treasure_hunter", rollouts=8),
                load_strategy("maniac")]
        result = Game(bots, rules, seed=g, treasures=treasures, strict=True).play()
        assert all(not e for e in result.errors)
        for bot in bots[:2]:
            asked.update(bot.asked)
    assert {"act", "move_spades", "draw_heart", "steal"} <= asked, asked


def test_its_bets_are_mixed_chances_over_legal_actions() -> None:
    state = GameState.new(3, RuleSet(), 2)
    d = reach(state, "bet", 0)
    answer = searcher(3, state.rules).act(state.observation(d))
    assert isinstance(answer, Mixed) and abs(sum(answer.chances) - 1) < 1e-9
    state.clone().apply(answer)  # legal: the state checks it


def test_it_spends_nothing_on_forced_answers_and_less_on_small_pots() -> None:
    rules = RuleSet(new_treasure=False)
    state = GameState.new(2, rules, 1, money=[100, 5], dealer=1)  # seat 1 can only go all in for 4
    d = reach(state, "bet", 1, answers={0: [Action.raise_to(50)]})
    bot = searcher(2, rules, seat=1)
    bot.act(state.observation(d))
    assert bot.rollouts > 0  # fold or call: a real question
    small = GameState.new(3, RuleSet(), 2)
    bot = searcher(3, small.rules)
    bot.act(small.observation(reach(small, "bet", 0)))
    cheap = bot.rollouts
    big = GameState.new(3, RuleSet(), 2)
    d = reach(big, "bet", 0, answers={1: [Action.raise_to(30)], 2: [Action.call()]})  # seat 0 acts after both
    bot = searcher(3, big.rules)
    bot.act(big.observation(d))
    assert cheap < bot.rollouts
    # nothing to decide: no raise possible, nothing to win by folding
    forced = GameState.new(2, rules, 1, money=[100, 1], dealer=1)  # seat 1 is all in with its ante
    d = reach(forced, "bet", 0)
    assert d.options == ("fold", "check")
    bot = searcher(2, rules)
    assert bot.act(forced.observation(d)) == Action.check() and bot.rollouts == 0


# ----- stacked positions: the powers ---------------------------------------------------------------------------
def test_it_moves_a_spade_that_makes_its_hand_and_keeps_one_that_adds_nothing() -> None:
    rules = RuleSet()
    hole = {0: "Ah 7c", 1: "Kd Kc"}
    # a pair of aces with the As (the board gives it nothing), in a pot of 42
    deck = stacked(2, hole, dealer=1, new="6d", shared="2c 5h 9s Jd 3d")
    state = GameState.new(2, rules, 3, deck=deck, treasures={0: "As"}, dealer=1)
    d = reach(state, "spades", 0, answers={0: [Action.raise_to(20)]})
    assert searcher(2, rules).move_spades(state.observation(d)) == [parse_cards("As")[0]]
    # a royal flush already: the As adds nothing, and keeping it keeps a Treasure
    deck = stacked(2, {0: "Kh Qh", 1: "Kd Kc"}, dealer=1, new="6d", shared="Ah Jh Th 2c 3d")
    state = GameState.new(2, rules, 3, deck=deck, treasures={0: "As"}, dealer=1)
    d = reach(state, "spades", 0, answers={0: [Action.raise_to(20)]})
    assert searcher(2, rules).move_spades(state.observation(d)) == []


def test_it_draws_a_hearts_card_that_can_only_help() -> None:
    rules = RuleSet()
    deck = stacked(2, {0: "7c 9c", 1: "Ks Qd"}, dealer=1, new="6d", shared="Kd 9d 4c Jh 3s")
    state = GameState.new(2, rules, 3, deck=deck, treasures={0: "7h"}, dealer=1)
    d = reach(state, "hearts", 0, answers={0: [Action.raise_to(20)]})
    assert searcher(2, rules).draw_heart(state.observation(d)) is True


def empty_deck_position(money: list[int]) -> tuple[GameState, object]:
    """Heads-up, no Jokers, every card not in this hand in a Treasure Zone (the Hearts in seat 0's): the deck is
    empty when Hearts draws begin, so a draw ends the game (rulings §7) and declining lets it go on."""
    rules = RuleSet(jokers=0)
    hole = {0: "7c 2d", 1: "Ks Qd"}
    board = "Kd 9d 4c Jh 3s"
    deck = stacked(2, hole, dealer=1, new="6d", shared=board)
    used = set(parse_cards(deck).tolist())
    rest = [c for c in make_deck(0) if c not in used]
    hearts = [c for c in rest if format_card(c)[1] == "h"]  # all its own: seat 1 has no Hearts turn to end it
    treasures = {0: [format_card(c) for c in hearts], 1: [format_card(c) for c in rest if c not in hearts]}
    state = GameState.new(2, rules, 3, deck=deck, treasures=treasures, money=money, dealer=1)
    d = reach(state, "hearts", 0)
    assert state.table.deck_size == 0
    return state, d


def test_it_declines_a_hearts_draw_that_would_end_the_game_while_it_is_behind() -> None:
    state, d = empty_deck_position([60, 140])
    assert searcher(2, state.rules).draw_heart(state.observation(d)) is False
    state, d = empty_deck_position([140, 60])  # ahead: ending the game now wins it
    assert searcher(2, state.rules).draw_heart(state.observation(d)) is True


# ----- stacked positions: betting ------------------------------------------------------------------------------
def river(hole0: str, shove: bool) -> tuple[GameState, object]:
    """Heads-up on the river, seat 0 to act: facing an all-in of 99 into a pot of 2, or checked to. No New Treasure:
    with one, a bet that makes the other fold hands it the card, which in a pot of 2 is worth more than the pot."""
    rules = RuleSet(new_treasure=False)
    deck = stacked(2, {0: hole0, 1: "9c 8c"}, dealer=1, shared="Ah Jh Th 2c 3d")
    state = GameState.new(2, rules, 3, deck=deck, dealer=1)
    for _ in range(3):  # rounds 0-2: both check
        reach(state, "bet", 1)
        state.apply(Action.check())
    d = reach(state, "bet", 0)
    if shove:
        state.apply(Action.check())
        d = state.decision()
        state.apply(Action.raise_to(99))
        d = reach(state, "bet", 0)
    return state, d


def test_it_calls_with_the_nuts_and_folds_junk_to_a_huge_bet() -> None:
    state, d = river("Kh Qh", shove=True)  # a royal flush
    assert chance(searcher(2, state.rules).act(state.observation(d)), "call") > 0.99
    state, d = river("7c 4s", shove=True)  # seven high, no draw left
    assert chance(searcher(2, state.rules).act(state.observation(d)), "fold") > 0.9


def test_it_bets_the_nuts_when_checked_to() -> None:
    state, d = river("Kh Qh", shove=False)
    assert chance(searcher(2, state.rules).act(state.observation(d)), "raise") > 0.9


# ----- the range model -------------------------------------------------------------------------------------------
def test_resample_gives_hidden_seats_the_hole_cards_asked_for() -> None:
    state = GameState.new(3, RuleSet(), 2)
    d = reach(state, "bet", 0)
    obs = state.observation(d)
    unseen = [c for c in range(54) if c not in obs.hand and c != obs.new_treasure]
    holes = {1: (unseen[0], unseen[1]), 2: (unseen[2], unseen[3])}
    from treasure_sim.game.resample import state_from_observation
    rebuilt = state_from_observation(obs, np.random.default_rng(1), holes=holes)
    assert rebuilt.hand.hole[1] == holes[1] and rebuilt.hand.hole[2] == holes[2]
    assert rebuilt.observation(rebuilt.decision()) == obs
    import pytest
    with pytest.raises(ValueError):
        state_from_observation(obs, np.random.default_rng(1), holes={1: (obs.hand[0], unseen[0])})


def test_a_raise_moves_the_range_towards_strong_hands() -> None:
    """After the other seat raises, the hole cards the search samples for it are stronger than uniform ones."""
    from strategies._ranges import BoardScores
    rules = RuleSet(new_treasure=False)
    state = GameState.new(2, rules, 7, dealer=0)  # seat 1 acts first
    d = reach(state, "bet", 0, answers={1: [Action.raise_to(6)]})
    obs = state.observation(d)
    bot = searcher(2, rules)
    ranges = bot._ranges(obs, {})
    assert ranges is not None and ranges.seats == [1]
    board = BoardScores((), [c for c in range(54) if c not in obs.hand], obs.hand, np.random.default_rng(0), 12)
    strength = board.strength(0, 0)[board.index[ranges.pa, ranges.pb]]
    weighted = float((ranges.weights[1] * strength).sum())
    assert weighted > float(strength.mean()) + 0.1
    draws = [ranges.sample(np.random.default_rng(i))[1] for i in range(50)]
    assert all(len(set(h) | set(obs.hand)) == 4 for h in draws)  # never my cards


# ----- the rollout policy ----------------------------------------------------------------------------------------
def rollout_actions(bot: SearchBot, hole1: str, **knobs) -> list:
    """Heads-up preflop, seat 0 (the searcher, 2 3 offsuit) checks; the rollout plays the hand on with seat 1 holding
    ``hole1`` on a board (Ah Ad As Kd 7c) that gives it at least three aces: seat 1's bets and raises, by round."""
    for k, v in knobs.items():
        setattr(bot, k, v)
    rules = RuleSet(new_treasure=False)
    deck = stacked(2, {0: "2s 3c", 1: hole1}, dealer=1, shared="Ah Ad As Kd 7c")
    state = GameState.new(2, rules, 3, deck=deck, dealer=1)
    d = reach(state, "bet", 0)
    obs = state.observation(d)
    bot._values(obs, [Action.check()], 1)  # sets up the valuer and the spread for this decision
    ranges = bot._ranges(obs, {})
    state.apply(Action.check())
    bot._rollout(state, 0, ranges)
    return [a.round for a in state.hand.actions if a.seat == 1 and a.kind == "raise"]


def test_rollout_opponents_bet_strong_made_hands_in_later_rounds() -> None:
    """A rollout opponent with four aces by the river bets in the later rounds (at most once a round) unless
    ``later_bets`` is off."""
    bot = searcher(2, RuleSet(new_treasure=False))
    bets = rollout_actions(bot, "Ac 9h")
    assert bets and min(bets) >= 1 and len(bets) == len(set(bets))
    assert not [r for r in rollout_actions(searcher(2, RuleSet(new_treasure=False)), "Ac 9h", later_bets=False)
                if r >= 1]


def test_a_cards_model_worth_fades_in_the_last_hands() -> None:
    """With ``fade_all`` a zone's worth shrinks as the deck nears its end; without it, only the flat part does."""
    rules = RuleSet(new_treasure=False)
    treasures = {1: ["Ts", "9s", "8s", "7s", "6s"]}
    state = GameState.new(2, rules, 3, dealer=1, treasures=treasures)
    d = reach(state, "bet", 0)
    obs = state.observation(d)
    worths = {}
    for fade in (True, False):
        bot = searcher(2, rules)
        bot.fade_all = fade
        bot._values(obs, [Action.check()], 1)
        bot._late = 0.2  # as if two hands were left
        worths[fade] = bot._value(state.clone(), 0)
    assert worths[True] > worths[False]  # the other seat's Spades count less, so my chance to win is higher


# ----- several opponents (issue 27: multiway play) ---------------------------------------------------------------
OLD_KNOBS = dict(objective="win", multiway=False, call_later="equity", quiet_after_fold=False, late_folds=False,
                 free_fold_margin=0.0)


NEW_KNOBS = dict(late_share=True, nt_calls=True)  # off by default (issue 27, the three-seat screens)


def test_the_multiway_knobs_leave_heads_up_play_unchanged() -> None:
    """Every multiway knob acts only with two or more other seats in the hand: heads-up, the same game."""
    results = []
    for knobs in ({}, OLD_KNOBS, NEW_KNOBS):
        bots = [load_strategy("search", iterations=24, **knobs), load_strategy("treasure_hunter", rollouts=16)]
        result = Game(bots, RuleSet(max_hands=25), seed=4).play()
        results.append((result.final_money, [r.actions for r in result.hands]))
    assert results[0] == results[1] == results[2]


def three_seats(money: tuple[int, ...], **knobs) -> tuple[SearchBot, GameState]:
    """Three seats with ``money``, hand 1 over (no New Treasure), the searcher in seat 0 set up for that state."""
    rules = RuleSet(new_treasure=False)
    state = GameState.new(3, rules, 3, money=money)
    d = reach(state, "bet", 0)
    bot = searcher(3, rules)
    for k, v in knobs.items():
        setattr(bot, k, v)
    bot._values(state.observation(d), [Action.check()], 1)
    return bot, state


def test_the_ahead_objective_rewards_second_place_where_the_win_objective_does_not() -> None:
    """``objective = "ahead"``: the value counts the other seats it ends ahead of; "win" only the chance of being
    first, so far behind the leader, passing the third seat is worth nothing more than its chips."""
    values = {}
    for objective in ("win", "ahead"):
        for mine in (60, 90):  # behind the third seat (80), or ahead of it
            bot, state = three_seats((mine, 400, 80), objective=objective)
            bot._spread = 5.0  # a few hands left: leads are nearly sure
            values[objective, mine] = bot._value(state, 0) - mine
    assert values["win", 90] - values["win", 60] < 1.0
    assert values["ahead", 90] - values["ahead", 60] > 0.3 * bot.win_value / 2


def test_its_rollout_equity_against_several_is_the_chance_to_beat_them_all() -> None:
    from strategies._ranges import Ranges
    ranges = Ranges(np.zeros(0), np.zeros(0))
    ranges.mine = {1: 0.6, 2: 0.5}
    bot = searcher(3, RuleSet())
    assert bot._my_equity(ranges, [False] * 3) == 0.3
    assert bot._my_equity(ranges, [False, False, True]) == 0.6  # seat 2 folded
    bot.multiway = False
    assert bot._my_equity(ranges, [False] * 3) == 0.5


def multiway_rollout(hole1: str, hole2: str, mine: str = "2s 3c", shared: str = "Ah Ad As Kd 7c",
                     answers: tuple = (Action.check(),), **knobs) -> GameState:
    """Three seats, the searcher (seat 0) answers ``answers`` preflop; a rollout plays the hand on with the others
    holding ``hole1`` and ``hole2``: the hand as the rollout played it."""
    rules = RuleSet(new_treasure=False)
    deck = stacked(3, {0: mine, 1: hole1, 2: hole2}, dealer=2, shared=shared)
    state = GameState.new(3, rules, 3, deck=deck, dealer=2)
    d = reach(state, "bet", 0)
    obs = state.observation(d)
    bot = searcher(3, rules)
    for k, v in knobs.items():
        setattr(bot, k, v)
    bot._values(obs, [answers[0]], 1)
    ranges = bot._ranges(obs, {})
    state.apply(answers[0])
    bot._rollout(state, 0, ranges)
    return state


def test_rollout_opponents_stay_quiet_once_the_searcher_has_folded() -> None:
    """Seat 1 will hold four aces; once the searcher has folded, it bets nothing (``quiet_after_fold``)."""
    def raises(**knobs) -> list:
        hand = multiway_rollout("Ac 9h", "Qs Jd", answers=(Action.fold(),), **knobs).hand
        return [a.round for a in hand.actions if a.seat == 1 and a.kind == "raise" and a.round >= 1]
    assert raises() == []
    assert raises(quiet_after_fold=False)


def test_against_several_it_calls_a_later_bet_only_with_the_best_category() -> None:
    """Seat 1 will hold four aces and bets the later rounds; the searcher (aces full of kings: better than
    ``value_category``, worse than four aces) calls under "category" but folds under "best" and "auto" (three
    seats dealt in)."""
    def folded(call_later: str) -> bool:
        hand = multiway_rollout("Ac 9h", "4d 6c", mine="Ks 3c", call_later=call_later).hand
        return hand.folded[0]
    assert not folded("category")
    assert folded("best") and folded("auto")


def test_a_seat_racing_for_the_new_treasure_waits_for_the_river_with_several_in() -> None:
    """With ``late_folds``, a seat seen folding for New Treasures folds for one at the river or when only two are
    left, not at its first free decision; and the searcher itself, with nothing, folds for it on the river too
    (seat 1 folds after it there, so in this rollout seat 1 wins the race)."""
    rules = RuleSet()
    deck = stacked(3, {0: "2s 3c", 1: "7d 8d", 2: "4d 6c"}, dealer=2, new="Kc", shared="4h 5h 9s Td 2d")
    for late, first in ((True, 3), (False, 0)):
        state = GameState.new(3, rules, 3, deck=deck, dealer=2)
        d = reach(state, "bet", 0)
        obs = state.observation(d)
        bot = searcher(3, rules)
        bot.late_folds = late
        bot._values(obs, [Action.check()], 1)
        ranges = bot._ranges(obs, {})
        state.apply(Action.check())
        bot._rollout(state, 0, ranges, folding=(1,))
        folds = [a.round for a in state.hand.actions if a.seat == 1 and a.kind == "fold"]
        assert folds and folds[0] == first
        assert state.hand.folded[0] == late


def test_a_free_fold_with_two_others_to_beat_must_beat_checking_by_a_margin() -> None:
    """With fold and check valued alike, a free fold (for the New Treasure) with two or more others in is not drawn
    when ``free_fold_margin`` asks for a share of the pot more; heads-up, the margin does not apply."""
    for n, margin, expect_fold in ((3, 0.2, False), (3, 0.0, True), (2, 0.2, True)):
        state = GameState.new(n, RuleSet(), 3, dealer=n - 1)
        d = reach(state, "bet", 0)
        obs = state.observation(d)
        assert "check" in obs.legal and obs.new_treasure is not None
        bot = searcher(n, state.rules)
        bot.free_fold_margin = margin
        bot._values = lambda obs, answers, k: [0.0] * len(answers)  # fold and check alike, raises alike
        assert (chance(bot.act(obs), "fold") > 0.1) == expect_fold


def test_the_late_fold_share_counts_free_folds_where_a_new_treasure_fold_is_late() -> None:
    """``late_share``'s statistic: per seat, folds among its free decisions on the river or with two left. A seat that
    checks three rounds and folds on the river folds 1 of 1 such decisions (but 1 of 1 hands too); a seat that
    checks them all has 1 such decision and no fold; the fold of a third seat facing a bet is no free decision."""
    from types import SimpleNamespace

    from strategies._ranges import ActionModel
    from treasure_sim.game.history import ActionEvent
    actions = [ActionEvent(r, s, "check") for r in range(3) for s in range(3)]
    actions += [ActionEvent(3, 0, "check"), ActionEvent(3, 1, "fold"), ActionEvent(3, 2, "raise", to=2),
                ActionEvent(3, 0, "fold")]
    model = ActionModel(3)
    model.update(SimpleNamespace(in_hand=(True, True, True), actions=tuple(actions)))
    assert (model.late_free, model.late_folds) == ([1, 1, 1], [0, 1, 0])  # seat 0's fold faced a bet
    assert model.late_fold_share(1) == (1 + 0.3) / (1 + 10.0)
    assert model.late_fold_share(0) == model.late_fold_share(2) == 0.3 / 11.0


def test_with_late_share_a_seat_that_folds_for_new_treasures_on_the_river_is_expected_to() -> None:
    """Three seats dealt in: with ``late_share`` the chance a seat folds for the New Treasure in a rollout is its
    late fold share, not its share of hands; heads-up the knob does not act."""
    for n, expect_late in ((3, True), (2, False)):
        state = GameState.new(n, RuleSet(), 3, dealer=n - 1)
        obs = state.observation(reach(state, "bet", 0))
        bot = searcher(n, state.rules)
        bot.late_share = True
        bot.model.late_free[1], bot.model.late_folds[1] = 20, 19  # folds on the river nearly always
        bot.model.hands[1], bot.model.free_folds[1] = 40, 19  # in half its hands
        ranges = bot._ranges(obs, {})
        late, per_hand = bot.model.late_fold_share(1), bot.model.free_fold_share(1)
        assert ranges.free_fold[1] == (late if expect_late else per_hand)
        assert late > per_hand


def test_with_nt_calls_a_seat_racing_for_the_new_treasure_folds_to_a_bet_when_its_fold_is_last() -> None:
    """Three seats dealt in, seat 2 gone (it folded), the New Treasure there: seat 1, seen folding for it and holding
    aces, folds to the searcher's bet with ``nt_calls`` (its fold is sure to be the last), and raises it without."""
    rules = RuleSet()
    deck = stacked(3, {0: "2s 3c", 1: "Ac Ad", 2: "4d 6c"}, dealer=2, new="Kc", shared="4h 5h 9s Td 2d")
    folded = {}
    for on in (True, False):
        state = GameState.new(3, rules, 3, deck=deck, dealer=2)
        reach(state, "bet", 0)
        state.apply(Action.check())
        d = reach(state, "bet", 0, answers={2: [Action.fold()]})  # round 1: seat 2 folded preflop, two left
        obs = state.observation(d)
        assert obs.round == 1 and len(obs.active) == 2 and obs.new_treasure is not None
        bot = searcher(3, rules)
        bot.nt_calls = on
        bot._values(obs, [Action.check()], 1)
        ranges = bot._ranges(obs, {})
        state.apply(Action.raise_to(obs.min_raise_to))
        bot._rollout(state, 0, ranges, folding=(1,))
        folded[on] = next(a.kind for a in state.hand.actions if a.seat == 1 and a.round == 1)
    assert folded == {True: "fold", False: "raise"}  # without: its aces raise the bet
