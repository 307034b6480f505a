"""Mixed betting answers: the bot declares chances, the engine draws the action from a stream of its own.

Why it matters: the luck analysis subtracts the luck of that draw (docs/luck.md), which is fair only if the
chances are the ones the action came from. So the draw must follow the chances, no bot may see or steer it,
a malformed answer is refused like any bad action, and the record says exactly what was declared and drawn.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from strategies.random_bot import RandomBot
from treasure_sim import Action, Game, Mixed, RuleSet, Strategy, play_game
from treasure_sim.bots import protocol
from treasure_sim.game.strategy import CHECK, FOLD, MAX_CHOICES


class Declares(Strategy):
    """Folds with chance ``fold`` (else checks or calls) through a Mixed answer; ``pure`` returns the same
    decision as a plain Action when one chance is 1."""

    def __init__(self, fold: float) -> None:
        self.fold = fold

    def act(self, obs):
        go_on = Action.check() if CHECK in obs.legal else Action.call()
        return Mixed.of({Action.fold(): self.fold, go_on: 1 - self.fold})


class Plain(Strategy):
    """What `Declares` does when its fold chance is 0 or 1, as a plain Action."""

    def __init__(self, fold: bool) -> None:
        self.fold = fold

    def act(self, obs):
        if self.fold:
            return Action.fold()
        return Action.check() if CHECK in obs.legal else Action.call()


def _play(bots, seed=1, hands=40):
    return play_game(bots, RuleSet(max_hands=hands), seed=seed)


def test_the_engine_draws_with_the_declared_chances():
    """Binomial test of the folds drawn against the declared chance, over many decisions."""
    for chance in (0.1, 0.5, 0.8):
        drawn = [m.folded for seed in range(30) for h in _play([Declares(chance), RandomBot()], seed).hands
                 for m in h.mixed if m.seat == 0]
        assert len(drawn) > 100
        assert stats.binomtest(sum(drawn), len(drawn), chance).pvalue > 0.001, (chance, np.mean(drawn))


@pytest.mark.parametrize("fold", [False, True])
def test_a_certain_mixed_answer_plays_exactly_as_the_plain_action(fold):
    """The draw comes from a stream of its own: a Mixed answer whose chance is 1 changes neither the cards nor
    any bot's stream, so the game is the one the plain action gives."""
    mixed = _play([Declares(float(fold)), RandomBot(), RandomBot()], seed=4)
    plain = _play([Plain(fold), RandomBot(), RandomBot()], seed=4)
    assert [h.shared for h in mixed.hands] == [h.shared for h in plain.hands]
    assert [h.actions for h in mixed.hands] == [h.actions for h in plain.hands]
    assert mixed.final_money == plain.final_money and mixed.errors == plain.errors == ((),) * 3


class Peeker(Strategy):
    """Tries to predict the engine's draw from its own generator (it cannot: the draw is not from that stream)."""

    def act(self, obs):
        twin = np.random.default_rng(self.rng.bit_generator.seed_seq)
        self.guess = twin.random() < 0.5
        return Mixed.of({Action.fold(): 0.5, Action.check() if CHECK in obs.legal else Action.call(): 0.5})


def test_a_bot_cannot_predict_its_draws_from_its_own_stream():
    bot = Peeker()
    right = total = 0
    for seed in range(20):
        game = Game([bot, RandomBot()], RuleSet(max_hands=30), seed)
        while not game.over:
            for m in game.play_hand().mixed:
                if m.seat == 0:
                    right += m.folded == bot.guess
                    total += 1
    assert total > 50 and stats.binomtest(right, total, 0.5).pvalue > 0.001


def _first_fold(**seeds) -> bool:
    game = Game([Declares(0.5), Declares(0.5)], RuleSet(max_hands=1), **seeds)
    return game.play_hand().mixed[0].folded


def test_replaying_a_deal_seed_with_another_game_seed_draws_afresh():
    """Rotations played as in docs/writing-a-bot.md (one deal_seed, a seed per game) do not repeat their draws;
    explicit ``draw_seeds`` decide the draws and nothing else does."""
    fresh = [_first_fold(seed=rotation, deal_seed=deal) == _first_fold(seed=rotation + 100, deal_seed=deal)
             for deal in range(40) for rotation in range(2)]
    assert 0.25 < np.mean(fresh) < 0.75  # 1/2 expected; 1 if the draws followed the card seed
    draws = [np.random.SeedSequence(7), np.random.SeedSequence(8)]
    same = [_first_fold(seed=s, deal_seed=s + 1000, draw_seeds=draws) for s in range(20)]
    assert len(set(same)) == 1  # the first draw of seat 0 comes from its draw seed alone
    with pytest.raises(ValueError, match="draw_seeds must be 2 seeds"):
        Game([Declares(0.5), Declares(0.5)], draw_seeds=draws[:1])


def test_the_record_holds_the_state_before_each_drawn_decision():
    """An oracle replay: for every drawn decision, the chips and seats still in agree with the actions before
    it, the fold chance with the declaration, and ``folded`` with the action the seat then took."""
    hands = [h for seed in range(1, 6)
             for h in _play([RandomBot(), Declares(0.3), RandomBot(), RandomBot()], seed=seed, hands=60).hands]
    checked = 0
    for h in hands:
        drawn = iter(h.mixed)
        committed, still_in = list(h.antes), list(h.in_hand)
        for a in h.actions:
            m = next(drawn)  # every seat here answers Mixed
            assert (m.round, m.seat) == (a.round, a.seat)
            assert m.committed == tuple(committed) and m.still_in == tuple(still_in)
            assert m.folded == (a.kind == FOLD)
            expected = (0.3,) if a.seat == 1 else (1 / 2, 1 / 3)  # random: one chance per legal kind
            assert any(math.isclose(m.fold_chance, e) for e in expected)
            committed[a.seat] += a.added
            if a.kind == FOLD:
                still_in[a.seat] = False
            else:
                assert a.added == m.to_call or a.kind == "raise"
            checked += 1
        assert next(drawn, None) is None
    assert checked > 200


class Malformed(Strategy):
    def __init__(self, answer) -> None:
        self.answer = answer

    def act(self, obs):
        return self.answer() if callable(self.answer) else self.answer


class LyingMixed(Mixed):
    """A Mixed subclass whose fields claim something other than what is stored."""

    @property
    def chances(self):
        return (1.0,)


@pytest.mark.parametrize(("answer", "message"), [
    (Mixed((Action.fold(), Action.call()), (0.5, 0.6)), "add up to 1.1"),
    (Mixed((Action.fold(), Action.call()), (float("nan"), 1.0)), "nan"),
    (Mixed((Action.fold(), Action.call()), (-0.5, 1.5)), "-0.5"),
    (Mixed((Action.fold(), Action.call()), (True, False)), "True"),
    (Mixed((Action.fold(),), (0.5, 0.5)), "1 actions and 2 chances"),
    (Mixed((), ()), "0 actions"),
    (Mixed((Action.fold(),) * (MAX_CHOICES + 1), (1 / (MAX_CHOICES + 1),) * (MAX_CHOICES + 1)), "1 to 64"),
    (Mixed((Action.raise_to(10_000), Action.call()), (0.5, 0.5)), "outside"),
    (Mixed(("fold", "call"), (0.5, 0.5)), "not an Action"),
    (Mixed({Action.fold(): 1.0}, (1.0,)), "tuples or lists"),
    (LyingMixed((Action.fold(), Action.call()), (0.5, 0.7)), "add up to 1.2"),
])
def test_a_malformed_mixed_answer_is_refused_and_named(answer, message):
    result = play_game([Malformed(answer), RandomBot()], RuleSet(max_hands=3), seed=1)
    errors = result.errors[0]
    assert errors and message in errors[0] and ": act" in errors[0]
    assert result.errors[1] == ()
    assert not any(m.seat == 0 for h in result.hands for m in h.mixed)  # refused: nothing drawn, nothing recorded


RAN: list[str] = []  # what a bot's metaclass did, if the engine ever let it run


class Watched(type):
    """A metaclass that claims to equal every class and records each time Python asks it anything."""

    def __eq__(cls, other):
        RAN.append("__eq__")
        return True

    def __hash__(cls):
        RAN.append("__hash__")
        return hash(tuple)


class Sneaky(tuple, metaclass=Watched):
    pass


class SneakyFloat(float, metaclass=Watched):
    pass


class SneakyInt(int, metaclass=Watched):
    pass


class Loud(Exception):
    pass


@pytest.mark.parametrize(("answer", "message"), [
    (Mixed(Sneaky((Action.fold(), Action.call())), (0.5, 0.5)), "tuples or lists"),
    (Mixed((Action.fold(), Action.call()), Sneaky((0.5, 0.5))), "tuples or lists"),
    (Mixed((Action.fold(), Action.call()), (SneakyFloat(0.5), 0.5)), "SneakyFloat"),
    (Mixed((Action.fold(), Action.call()), (0.5, SneakyInt(0))), "SneakyInt"),
    (Mixed((Action.fold(), Action.call()), (10**400, 0)), "<int of 1329 bits>"),
    (Mixed((Action.fold(), Action.call()), (-10**400, 1)), "<int of 1329 bits>"),
    (lambda: (_ for _ in ()).throw(Loud(10**5000, SneakyInt(3))), "Loud"),
])
def test_an_answer_that_would_run_bot_code_when_read_is_refused_without_running_it(answer, message):
    RAN.clear()
    result = play_game([Malformed(answer), RandomBot()], RuleSet(max_hands=3), seed=1)
    errors = result.errors[0]
    assert errors and message in errors[0] and ": act" in errors[0]
    assert result.errors[1] == () and len(result.hands) == 3
    assert RAN == []  # neither the metaclass's __eq__ nor its __hash__ ran


def test_whole_number_chances_are_read_exactly():
    for chances in ((1, 0), (np.int64(0), np.int8(1)), (np.float32(0.25), np.float16(0.75))):
        result = play_game([Malformed(Mixed((Action.fold(), Action.call()), chances)), RandomBot()],
                           RuleSet(max_hands=3), seed=1)
        assert result.errors[0] == ()


def test_no_bot_is_told_another_bots_declared_chances():
    told = []

    class Listener(Strategy):
        def on_hand_end(self, record):
            told.append(record.mixed)

    _play([Listener(), RandomBot()], hands=10)
    assert told and all(m == () for m in told)


def test_a_mixed_answer_survives_the_wire():
    answer = Mixed((Action.fold(), Action.raise_to(12), Action.call()), (0.25, 0.25, 0.5))
    wire = protocol.answer_to_json("act", answer)
    assert protocol.answer_from_json("act", wire) == answer
    for bad in ({"mixed": "fold"}, {"mixed": [{"action": "fold"}]}, {"mixed": [{"action": "fly", "chance": 1}]}):
        with pytest.raises(protocol.ProtocolError):
            protocol.answer_from_json("act", bad)
    huge = protocol.answer_from_json("act", {"mixed": [{"action": "fold", "chance": 10**400}]})
    assert huge.chances == (10**400,)  # passed on as it came, for the engine to refuse by name


def test_random_declares_an_equal_chance_for_every_legal_kind():
    result = _play([RandomBot(), RandomBot(), RandomBot()], seed=5, hands=60)
    chances = {round(1 / m.fold_chance) for h in result.hands for m in h.mixed}
    assert chances <= {2, 3} and 3 in chances
    assert all(math.isclose(m.fold_chance, 1 / 3) or math.isclose(m.fold_chance, 1 / 2)
               for h in result.hands for m in h.mixed)


def test_an_isolated_bot_answers_mixed_over_the_wire():
    from treasure_sim.bots.isolated import IsolatedBot, python_command

    remote = IsolatedBot(python_command("random", {}))
    try:
        result = _play([remote, RandomBot()], seed=3, hands=10)
    finally:
        remote.close()
    assert result.errors == ((), ())
    assert any(m.seat == 0 for h in result.hands for m in h.mixed)


class DeclaresAsLists(Declares):
    """The same chances as `Declares`, as lists of numpy floats: read the careful way, drawn the same."""

    def act(self, obs):
        answer = super().act(obs)
        return Mixed(list(answer.actions), [np.float64(p) for p in answer.chances])


def test_every_accepted_form_of_a_mixed_answer_draws_the_same():
    plain = _play([Declares(0.4), RandomBot(), RandomBot()], seed=6)
    lists = _play([DeclaresAsLists(0.4), RandomBot(), RandomBot()], seed=6)
    assert [h.actions for h in plain.hands] == [h.actions for h in lists.hands]
    assert plain.errors == lists.errors == ((),) * 3
