"""treasure_sim.bots.loader: specs by registry name, module path and file; every error names what would work."""

from __future__ import annotations

import multiprocessing
import pickle
import sys
import textwrap

import pytest

from strategies.equity import EquityBot
from strategies.rock import Rock
from strategies.treasure_hunter import TreasureHunter
from treasure_sim import RuleSet, Strategy, play_game
from treasure_sim.bots.loader import StrategyFactory, available, load_strategy, parameters, resolve, strategy_factory

BUILT_IN = ["calling_station", "equity", "maniac", "random", "rock", "treasure_hunter"]

MY_BOT = textwrap.dedent(
    '''
    """A test bot in a file of its own."""
    from treasure_sim import Action, Strategy

    class MyBot(Strategy):
        name = "my_bot"

        def __init__(self, aggression: float = 0.5) -> None:
            self.aggression = aggression

        def act(self, obs):
            return Action.check() if obs.to_call == 0 else Action.call()

    class NotABot:
        pass

    def helper():
        return 1
    '''
)


@pytest.fixture
def bot_file(tmp_path):
    path = tmp_path / "my_bot.py"
    path.write_text(MY_BOT)
    return path


def test_available_lists_every_builtin_once_sorted():
    names = available()
    assert names == sorted(names) and len(names) == len(set(names))
    assert set(BUILT_IN) <= set(names)


def test_registry_names_give_fresh_instances_with_params():
    a = load_strategy("equity", rollouts=50)
    b = load_strategy("equity")
    assert isinstance(a, EquityBot) and a.rollouts == 50 and b.rollouts == 200 and a is not b
    # a subclass imported into another module is registered once, under its own name
    assert type(load_strategy("treasure_hunter")) is TreasureHunter
    assert resolve("equity") is EquityBot


def test_module_path_and_class_objects():
    assert type(load_strategy("strategies.rock:Rock", min_pair="T")) is Rock
    assert resolve(Rock) is Rock
    assert parameters(Rock)["min_pair"] == "9"


def test_file_specs_with_and_without_the_class(bot_file):
    bot = load_strategy(f"{bot_file}:MyBot", aggression=0.9)
    assert isinstance(bot, Strategy) and bot.aggression == 0.9
    alone = load_strategy(str(bot_file))  # one Strategy class in the file: no need to name it
    assert type(alone) is type(bot)
    result = play_game([bot, load_strategy("random")], RuleSet(max_hands=5), seed=1)
    assert all(not e for e in result.errors)


def test_unknown_name_lists_what_is_available():
    with pytest.raises(ValueError, match="unknown strategy 'equty'") as err:
        load_strategy("equty")
    for name in BUILT_IN:
        assert name in str(err.value)
    assert "path/to/file.py:Class" in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"strategy file .*nope\.py.* not found"):
        load_strategy(f"{tmp_path}/nope.py:Bot")
    with pytest.raises(ValueError, match=r"strategy file 'C:\\\\bots\\\\nope\.py' not found"):
        load_strategy("C:\\bots\\nope.py")  # a drive letter's colon is not a class separator


def test_missing_class_lists_the_strategies_there(bot_file):
    with pytest.raises(ValueError, match=r"has no 'Nope'.*Strategy classes there: MyBot"):
        load_strategy(f"{bot_file}:Nope")
    with pytest.raises(ValueError, match=r"has no 'Nope'.*Strategy classes there: Rock"):
        load_strategy("strategies.rock:Nope")


def test_not_a_strategy(bot_file):
    with pytest.raises(ValueError, match=r"is a class NotABot, not a subclass of treasure_sim.Strategy"):
        load_strategy(f"{bot_file}:NotABot")
    with pytest.raises(ValueError, match="is a function, not a subclass"):
        load_strategy(f"{bot_file}:helper")
    with pytest.raises(ValueError, match="not a subclass"):
        resolve(dict)


def test_bad_module_and_broken_file(tmp_path):
    with pytest.raises(ValueError, match=r"cannot import module 'no_such_pkg.bots'"):
        load_strategy("no_such_pkg.bots:Bot")
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    with pytest.raises(ValueError, match=r"importing strategy file .*broken.py.* failed: SyntaxError"):
        load_strategy(f"{broken}:Bot")
    with pytest.raises(ValueError, match="non-empty string"):
        load_strategy("")


def test_unknown_parameter_lists_the_accepted_ones():
    with pytest.raises(ValueError, match=r"unknown parameter.*rolouts") as err:
        load_strategy("equity", rolouts=5)
    message = str(err.value)
    assert "accepted:" in message and "rollouts=200" in message and "call_margin=0.03" in message


def test_bad_parameter_value_is_a_value_error():
    with pytest.raises(ValueError, match=r"rejected parameters.*rollouts must be >= 1"):
        load_strategy("equity", rollouts=0)
    with pytest.raises(ValueError, match=r"rejected parameters.*min_pair"):
        load_strategy("rock", min_pair="Z")


def test_factory_is_picklable_checked_early_and_makes_fresh_bots():
    factory = strategy_factory("equity", {"rollouts": 64})
    clone = pickle.loads(pickle.dumps(factory))
    a, b = clone(), clone()
    assert isinstance(a, EquityBot) and a.rollouts == 64 and a is not b
    assert factory.label == "equity(rollouts=64)" and isinstance(factory, StrategyFactory)
    with pytest.raises(ValueError, match="unknown parameter"):
        strategy_factory("equity", {"bogus": 1})


def test_instances_pickle_including_file_bots(bot_file):
    bot = load_strategy(f"{bot_file}:MyBot", aggression=0.25)
    module = type(bot).__module__
    data = pickle.dumps(bot)
    del sys.modules[module]  # as in a fresh worker: the module is found again from its encoded path
    clone = pickle.loads(data)
    assert clone.aggression == 0.25 and type(clone).__name__ == "MyBot"
    assert pickle.loads(pickle.dumps(load_strategy("rock"))).min_pair == Rock().min_pair


def _build_in_worker(factory: StrategyFactory) -> str:
    return repr(factory())


def test_factory_builds_in_a_spawned_worker(bot_file):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        names = pool.map(_build_in_worker, [strategy_factory("maniac"), strategy_factory(f"{bot_file}:MyBot")])
    assert names == ["maniac", "my_bot"]
