"""Answers and exceptions built to crash, stall or run code inside the engine: each is the bot's own recorded error.

Found by a review (stop 23): our own record classes made with ``tuple.__new__``/``object.__new__`` in shapes their
constructors refuse, ints too long to print, ``BaseException`` subclasses, a 30 MB exception message, a class whose
``__name__`` is a str subclass. The game must play on, name the culprit in one short line, and run no bot code.
"""

from __future__ import annotations

import tracemalloc

import pytest

from strategies.random_bot import RandomBot
from treasure_sim import Action, Game, Mixed, RuleSet, Steal, Strategy, play_game
from treasure_sim.bots.timeouts import DecisionTimeout
from treasure_sim.cli.play import LeaveTable
from treasure_sim.game import answers

RAN: list[str] = []


class Recording(str):
    """A str subclass that records every time Python formats, prints, slices or measures it."""

    def __format__(self, spec):
        RAN.append("__format__")
        return "lie"

    def __str__(self):
        RAN.append("__str__")
        return "lie"

    def __getitem__(self, index):
        RAN.append("__getitem__")
        return "lie"

    def __len__(self):
        RAN.append("__len__")
        return 3


class Own(BaseException):
    pass


class Renamed(Exception):
    pass


Renamed.__name__ = Recording("Renamed")


class Disguised(Exception):
    """Claims to be Ctrl-C to anything that asks its ``__class__`` (isinstance does)."""

    @property
    def __class__(self):
        RAN.append("__class__")
        return KeyboardInterrupt


def _raise(err: BaseException):
    raise err


class Answers(Strategy):
    """Answers every betting decision and every steal with ``make()``."""

    def __init__(self, make) -> None:
        self.make = make

    def act(self, obs):
        return self.make()

    def steal(self, obs, options):
        return self.make()


def _play(make, hands: int = 3):
    RAN.clear()
    result = play_game([Answers(make), RandomBot()], RuleSet(max_hands=hands), seed=1)
    assert len(result.hands) == hands and result.errors[1] == ()
    assert RAN == []
    return result.errors[0]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Action("raise", 10**5000), "raise to <int of 16610 bits> is outside"),
    (lambda: Mixed((Action("raise", -10**5000), Action.call()), (0.5, 0.5)), "<int of 16610 bits>"),
    (lambda: tuple.__new__(Mixed, ()), "not an Action or a Mixed"),
    (lambda: tuple.__new__(Mixed, ((Action.fold(),), (1.0,), "extra")), "not an Action or a Mixed"),
    (lambda: object.__new__(Action), "<Action object>, not an Action"),
    (lambda: Mixed((object.__new__(Action),), (1.0,)), "holds <Action object>"),
    (lambda: tuple.__new__(Steal, (1,)), "<Steal object>, not an Action"),
    (lambda: Mixed((tuple.__new__(Steal, (1,)),), (1.0,)), "holds <Steal object>"),
    (lambda: _raise(Own("mine")), "act raised Own: mine"),
    (lambda: _raise(GeneratorExit()), "act raised GeneratorExit"),
    (lambda: _raise(DecisionTimeout()), "act raised DecisionTimeout"),
    (lambda: _raise(Renamed("x")), "act raised Renamed: x"),
    (lambda: _raise(Disguised("x")), "act raised Disguised: x"),
    (lambda: _raise(LeaveTable()), "act raised LeaveTable"),  # only the game that passes it lets it through
    (lambda: _raise(ValueError("ab " * 10**7)), "act raised ValueError: ab ab"),
    (lambda: _raise(ValueError(*range(10**6))), "act raised ValueError"),
])
def test_a_hostile_betting_answer_is_the_bots_own_error(make, message):
    errors = _play(make)
    assert errors and message in errors[0] and ": act" in errors[0]
    assert all(len(e) < 300 for e in errors)  # one short line each, however long what the bot raised


def test_a_malformed_steal_is_refused_by_name():
    class Thief(RandomBot):
        def steal(self, obs, options):
            return tuple.__new__(Steal, (1,))

    found = [e for seed in range(1, 40)
             for e in play_game([Thief(draw_chance=1.0), RandomBot()], RuleSet(max_hands=30), seed=seed).errors[0]]
    assert found and all("<Steal object>, not a Steal" in e for e in found)


def test_reading_never_formats_a_bot_made_name_or_a_huge_string_whole():
    RAN.clear()
    assert answers.type_name(Renamed()) == "Renamed" and type(answers.type_name(Renamed())) is str
    assert answers.describe_exception(Renamed("x" * 10**6)).startswith("Renamed: xxx")
    assert len(answers.safe_repr("\0" * 10**6)) <= 200
    assert answers.describe_exception(ValueError(*range(13))) == "ValueError"  # too many args: the type alone
    assert RAN == []


def test_a_huge_message_is_cut_before_it_is_copied():
    """A 3 MB message or a million arguments cost the engine next to no memory (copied whole, they cost hundreds of
    MB at 30 MB): measured as peak allocation, which does not depend on the machine's speed."""
    huge, nul, many = ValueError("ab " * 10**6), "\0" * 10**6, ValueError(*range(10**6))
    for describe in (lambda: answers.describe_exception(huge), lambda: answers.safe_repr(nul),
                     lambda: answers.describe_exception(many)):
        tracemalloc.start()
        describe()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 100_000


def test_a_trusted_seat_ends_the_game_with_its_own_exception_and_ctrl_c_stops_by_default():
    def game(err, **ends_game):
        return Game([Answers(lambda: _raise(err)), RandomBot()], RuleSet(max_hands=3), **ends_game)

    with pytest.raises(LeaveTable):
        game(LeaveTable(), ends_game=(KeyboardInterrupt, LeaveTable)).play()
    with pytest.raises(KeyboardInterrupt):
        game(KeyboardInterrupt()).play()
    errors = game(KeyboardInterrupt(), ends_game=()).play().errors[0]  # as a tournament's workers play
    assert errors and "act raised KeyboardInterrupt" in errors[0]


class Interrupter(Strategy):
    def act(self, obs):
        raise KeyboardInterrupt


def test_a_bot_cannot_stop_a_tournament_by_raising_ctrl_c(tmp_path):
    """Workers ignore Ctrl-C (the parent handles it), so a KeyboardInterrupt in a tournament game is a bot's."""
    from treasure_sim.run.execute import run_experiment
    from treasure_sim.run.experiment import parse_toml
    from treasure_sim.run.store import read_games

    exp = parse_toml(f'name = "ki"\ndeals = 3\ntable_size = 2\n[[entrants]]\nstrategy = "{__file__}:Interrupter"\n'
                     '[[entrants]]\nstrategy = "random"\n[rules]\nmax_hands = 5\n')
    run_experiment(exp, tmp_path / "out", workers=1, progress=False)
    games = read_games(tmp_path / "out").to_pandas()
    mine = games[games.entrant.astype(str) == "Interrupter"]
    assert len(games) == 12 and mine["errors"].min() > 0
    assert mine["first_error"].str.contains("act raised KeyboardInterrupt").all()
