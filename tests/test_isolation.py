"""Isolated bots: the line protocol, a bot in another language, and limits on time, memory and crashes."""

from __future__ import annotations

import ast
import sys
import textwrap
import time
from pathlib import Path

import pytest

from treasure_sim import Game, RuleSet, Strategy, play_game
from treasure_sim.bots import protocol
from treasure_sim.bots.isolated import IsolatedBot, python_command, stop_all
from treasure_sim.bots.loader import load_strategy
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import ConfigError, parse_toml
from treasure_sim.run.store import read_games

LINE_BOT = Path(__file__).parents[1] / "docs" / "examples" / "line_bot.py"

BOTS = '''
import os, sys, time
from treasure_sim import Action, Strategy

class Sleeper(Strategy):
    def act(self, obs):
        time.sleep(3600)

class Crasher(Strategy):
    def act(self, obs):
        os._exit(3)

class Hog(Strategy):
    def act(self, obs):
        self.hoard = bytearray(2 * 1024 ** 3)  # 2 GB
        return Action.call()

class Chatty(Strategy):
    def act(self, obs):
        print("thinking...")  # on stdout: not the protocol
        return Action.call()

SEEN = set()  # what this process remembers of every game it played

class Rememberer(Strategy):
    """Calls, and remembers the first hand's New Treasure and first shared cards of every game; says so (an
    unknown action) when a game's first hand shows ones met before: the same deal again, whose cards it could know."""
    def act(self, obs):
        if obs.hand_no == 1 and obs.round == 1:
            key = (obs.new_treasure, obs.shared)
            if key in SEEN:
                return Action("seen before")
            SEEN.add(key)
        return Action.call()
'''


@pytest.fixture(scope="module")
def bot_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "bad_bots.py"
    path.write_text(BOTS)
    yield path
    stop_all()


class Recorder(Strategy):
    """Calls or checks, and keeps every observation it is shown."""

    def __init__(self):
        self.seen = []

    def act(self, obs):
        self.seen.append(obs)
        return super().act(obs) if obs.to_call == 0 else __import__("treasure_sim").Action.call()


def test_observations_survive_the_wire():
    bots = [Recorder() for _ in range(4)]
    play_game(bots, RuleSet(max_hands=30), seed=4)
    seen = [o for b in bots for o in b.seen]
    assert len(seen) > 100
    for obs in seen:
        assert protocol.observation_from_json(protocol.observation_to_json(obs), obs.showdowns) == obs
        assert "showdowns" not in protocol.observation_to_json(obs)  # they come once, in hand_end records


def test_records_survive_the_wire():
    result = play_game([Recorder() for _ in range(3)], RuleSet(max_hands=20), seed=5)
    for record in result.hands:
        public = record.public()
        assert protocol.hand_record_from_json(protocol.record_to_json(public)) == public


def test_the_example_bot_imports_nothing_of_ours():
    tree = ast.parse(LINE_BOT.read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"json", "sys"}


def test_an_isolated_python_bot_plays_exactly_as_in_process():
    rules = RuleSet(max_hands=40)
    local = play_game([load_strategy("calling_station"), load_strategy("rock")] * 2, rules, seed=9)
    remote_bots = [IsolatedBot(python_command("calling_station", {})), load_strategy("rock"),
                   load_strategy("calling_station"), IsolatedBot(python_command("rock", {}))]
    remote = play_game(remote_bots, rules, seed=9)
    for b in (remote_bots[0], remote_bots[3]):
        b.close()
    assert remote.final_money == local.final_money and remote.hands_played == local.hands_played
    assert remote.errors == ((),) * 4


def test_a_bot_in_another_language_plays_a_tournament(tmp_path):
    exp = parse_toml(f"""
name = "line"
deals = 3
table_size = 3
[[entrants]]
command = ["{sys.executable}", "{LINE_BOT}"]
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "calling_station"
[rules]
max_hands = 30
""")
    assert exp.entrants[0].label == "line_bot" and exp.entrants[0].isolate
    run_experiment(exp, tmp_path / "out", workers=1, progress=False)
    games = read_games(tmp_path / "out").to_pandas()
    mine = games[games.entrant == "line_bot"]
    assert len(mine) == 9 and mine["decisions"].sum() > 0 and mine["errors"].sum() == 0


def test_an_isolated_bot_never_meets_the_same_cards_twice(bot_file, tmp_path):
    """Every rotation of a deal deals the same first hand; a bot process that played one must not play another
    (nor the same deal in another variant of a sweep): it could know the cards."""
    entrant = f'[[entrants]]\nstrategy = "{bot_file}:Rememberer"\nisolate = true\n'
    base = f'name = "memory"\ndeals = 6\ntable_size = 3\n{entrant * 2}[[entrants]]\nstrategy = "calling_station"\n'
    for name in ("memory", "variant"):  # a second run of the same seed: a sweep's next variant, same workers
        run_experiment(parse_toml(base.replace('"memory"', f'"{name}"') + "[rules]\nmax_hands = 3\n"),
                       tmp_path / name, workers=1, progress=False)
        games = read_games(tmp_path / name).to_pandas()
        mine = games[games.strategy.astype(str).str.contains("Rememberer")]
        assert len(mine) == 36 and mine["decisions"].sum() > 0
        assert mine["errors"].sum() == 0, mine["first_error"].dropna().unique()


def test_a_pooled_process_is_reused_only_for_cards_it_has_not_played():
    command = python_command("calling_station", {})
    pids = []
    for deal_key in (1, 1, 2, 1, None):
        bot = IsolatedBot(command, deal_key=deal_key)
        play_game([bot, load_strategy("rock")], RuleSet(max_hands=1), seed=1)
        pids.append(bot._process.proc.pid)
        bot.close()
    assert pids[1] != pids[0]  # deal 1 again: another process
    assert pids[2] == pids[1]  # deal 2: any idle one that has not played it (the latest)
    assert pids[3] not in pids[:2]  # deal 1 a third time: both that played it refused
    assert pids[4] == pids[3]  # no deal named: the latest idle one
    stop_all()


def _game_with(bot: Strategy, timeout: float = 0.3) -> tuple[object, float]:
    start = time.perf_counter()
    result = Game([bot, load_strategy("calling_station"), load_strategy("calling_station")], RuleSet(max_hands=15),
                  seed=2, decision_timeout=timeout).play()
    return result, time.perf_counter() - start


def test_a_bot_that_never_answers_is_killed_restarted_then_retired(bot_file):
    bot = IsolatedBot(python_command(f"{bot_file}:Sleeper", {}), max_restarts=1)
    result, seconds = _game_with(bot)
    bot.close()
    errors = result.errors[0]
    assert result.hands_played == 15 and seconds < 15
    assert any("timed out" in e for e in errors)
    assert result.timeouts[0] >= 1 and result.decisions[0] >= 1


def test_a_bot_that_crashes_or_breaks_the_protocol_is_recorded_and_the_game_goes_on(bot_file, tmp_path):
    garbage = tmp_path / "garbage_bot.py"
    garbage.write_text("import sys\nfor line in sys.stdin:\n    print('thinking...', flush=True)\n")
    for command, words in ((python_command(f"{bot_file}:Crasher", {}), "closed its output (exit code 3)"),
                           ((sys.executable, str(garbage)), "not a JSON object")):
        bot = IsolatedBot(command)
        result, _ = _game_with(bot)
        bot.close()
        assert result.hands_played == 15 and any(words in e for e in result.errors[0]), (command, result.errors[0])


def test_a_python_bot_that_prints_plays_isolated_without_errors(bot_file):
    """Its host keeps the protocol on descriptors of its own: print() goes to the bot's stderr (727 errors before)."""
    bot = IsolatedBot(python_command(f"{bot_file}:Chatty", {}))
    result, _ = _game_with(bot)
    bot.close()
    assert result.decisions[0] > 0 and result.errors[0] == ()


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_bot_over_its_memory_limit_dies_alone(bot_file):
    bot = IsolatedBot(python_command(f"{bot_file}:Hog", {}), memory_mb=300)
    result, _ = _game_with(bot, timeout=5.0)
    bot.close()
    assert result.hands_played == 15 and any("MemoryError" in e for e in result.errors[0])


def test_an_in_process_sleeper_does_not_hang_a_tournament(tmp_path, bot_file):
    exp = parse_toml(f"""
name = "sleepy"
deals = 2
table_size = 2
decision_timeout = 0.2
[[entrants]]
strategy = "{bot_file}:Sleeper"
[[entrants]]
strategy = "calling_station"
[rules]
max_hands = 10
""")
    start = time.perf_counter()
    run_experiment(exp, tmp_path / "out", workers=1, progress=False)
    assert time.perf_counter() - start < 30
    games = read_games(tmp_path / "out").to_pandas()
    sleeper = games[games.entrant == "Sleeper"]
    assert (sleeper["errors"] > 0).all() and sleeper["first_error"].str.contains("timed out").all()


def test_isolated_entrants_are_checked_at_config_time_in_one_line(bot_file):
    base = 'name = "x"\ndeals = 2\ntable_size = 2\n[[entrants]]\nstrategy = "random"\n[[entrants]]\n'
    with pytest.raises(ConfigError, match=r"either strategy .* or command .*, not both"):
        parse_toml(base + 'strategy = "random"\ncommand = ["x"]\n')
    with pytest.raises(ConfigError, match=r"entrants\[1\] \(no-such-program\): the isolated bot .* cannot start"):
        parse_toml(base + 'command = "no-such-program --fast"\n')
    with pytest.raises(ConfigError, match=r"entrants\[1\] \(Bot\): the isolated bot .*cannot load the bot: strategy "
                                          r"file 'missing.py' not found"):
        parse_toml(base + 'strategy = "missing.py:Bot"\nisolate = true\n')
    with pytest.raises(ConfigError, match="memory_mb limits an isolated bot's process: add isolate = true"):
        parse_toml(base + 'strategy = "random"\nmemory_mb = 100\n')
    exp = parse_toml(base + f'strategy = "{bot_file}:Sleeper"\nisolate = true\nmemory_mb = 200\n')
    assert exp.entrants[1].isolate and exp.entrants[1].memory_mb == 200


def test_a_strict_run_stops_at_the_first_bot_error_naming_the_entrant(tmp_path, bot_file):
    from treasure_sim.run.tournament import BotFailure

    exp = parse_toml(textwrap.dedent(f"""
        name = "strict"
        deals = 2
        table_size = 2
        decision_timeout = 0.2
        [[entrants]]
        strategy = "{bot_file}:Sleeper"
        label = "sleepy"
        [[entrants]]
        strategy = "random"
    """))
    with pytest.raises(BotFailure, match=r"entrant 'sleepy' in game 0 \(deal 0\): seat \d .*timed out"):
        run_experiment(exp, tmp_path / "out", workers=1, progress=False, strict=True)


def test_an_isolated_bot_answers_make_room_over_the_wire():
    """At the zone limit with at_limit = "choose", the question and its answer travel like the others."""
    from treasure_sim.game.strategy import Observation

    bot = IsolatedBot(python_command("treasure_hunter", {"rollouts": 20}))
    try:
        rules = RuleSet(zone_limit=2, at_limit="choose")
        result = play_game([bot, load_strategy("calling_station"), load_strategy("random")], rules, seed=11,
                           treasures={0: "2c 3d"})
        assert result.errors[0] == ()
        assert ((0, "3d"),) in [h.given_up for h in result.hands]  # asked at the limit, it gave up its 3d
        assert protocol.answer_from_json("make_room", {"card": None}) is None
        assert protocol.answer_from_json("make_room", {"card": "2c"}) == 1
        assert protocol.answer_to_json("make_room", 4) == {"card": "3s"}
        assert "make_room" in protocol.METHODS and Observation._fields.count("restricted") == 1
    finally:
        bot.close()
