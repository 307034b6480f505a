"""Experiment configs: parsing, defaults, labels, and errors that name the key, the value and what is allowed."""

from __future__ import annotations

import pytest

from treasure_sim.game.rules import RuleSet
from treasure_sim.run.experiment import ConfigError, default_experiment, load_experiment, parse_toml

BASE = """
name = "t"
seed = 1
deals = 10
table_size = 4
[[entrants]]
strategy = "random"
"""


def top(line: str) -> str:
    """BASE with a top-level line (TOML keys after [[entrants]] would belong to the entrant)."""
    return BASE.replace("table_size = 4", f"table_size = 4\n{line}")


def test_parse_minimal_and_defaults():
    exp = parse_toml('[[entrants]]\nstrategy = "random"\n')
    assert (exp.name, exp.seed, exp.deals, exp.table_size, exp.rotate) == ("experiment", 0, 100, 4, True)
    assert exp.rules == RuleSet()
    assert exp.rotations == 4 and exp.games == 400


def test_rules_and_params_and_rotate():
    exp = parse_toml(BASE.replace('strategy = "random"', 'strategy = "random"\nparams = { draw_chance = 0.5 }')
                     + '[rules]\nbetting = "pot-limit"\nmax_hands = 7\n')
    assert exp.rules.betting == "pot-limit" and exp.rules.max_hands == 7
    assert exp.entrants[0].params == {"draw_chance": 0.5}
    assert exp.entrants[0].params_json == '{"draw_chance":0.5}'
    assert parse_toml(top("rotate = false")).games == 10


def test_labels_default_to_strategy_and_are_made_unique():
    text = BASE + '[[entrants]]\nstrategy = "random"\n[[entrants]]\nstrategy = "random"\nlabel = "lucky"\n'
    text += '[[entrants]]\nstrategy = "random"\n'
    assert [e.label for e in parse_toml(text).entrants] == ["random", "random-2", "lucky", "random-3"]


def test_explicit_duplicate_labels_are_an_error():
    text = BASE.replace('strategy = "random"', 'strategy = "random"\nlabel = "x"')
    text += '[[entrants]]\nstrategy = "random"\nlabel = "x"\n'
    with pytest.raises(ConfigError, match="label 'x' is given to 2 entrants"):
        parse_toml(text)


@pytest.mark.parametrize(("text", "expected"), [
    (top("tabel_size = 3"), ["unknown key 'tabel_size'", "did you mean 'table_size'", "allowed: name, seed"]),
    (BASE.replace("deals = 10", "deals = 0"), ["deals must be a whole number >= 1, got 0"]),
    (BASE.replace("table_size = 4", "table_size = 11"), ["table_size must be a whole number 2..10, got 11"]),
    (BASE.replace("seed = 1", "seed = -3"), ["seed must be a whole number >= 0, got -3"]),
    (BASE.replace("deals = 10", "deals = true"), ["deals must be a whole number"]),
    (top("rotate = 1"), ["rotate must be true (every seat rotation", "or \"cycle\"", "got 1"]),
    (BASE.replace('name = "t"', 'name = "a/b"'), ["name must be a word", "'a/b'"]),
    (BASE + '[rules]\nbetting = "no-lmit"\n', ["[rules]", "RuleSet.betting must be one of", "'no-lmit'"]),
    (BASE + "[rules]\nmax_hand = 3\n", ["[rules]", "unknown RuleSet field(s) max_hand", "known: jokers"]),
    (BASE.replace('strategy = "random"', 'strategy = "randon"'),
     ["entrants[0] (randon)", "unknown strategy 'randon'", "did you mean 'random'", "available:", "random"]),
    (BASE.replace('strategy = "random"', 'strategy = "random"\nparms = {}'),
     ["entrants[0]: unknown key 'parms'", "did you mean 'params'", "allowed: strategy, params, label"]),
    (BASE.replace('strategy = "random"', 'strategy = "random"\nparams = { nope = 1 }'),
     ["entrants[0] (random)", "failed to load", "nope"]),
    (BASE.replace('strategy = "random"', 'strategy = "no_such_module:Bot"'), ["entrants[0] (Bot)", "failed to load"]),
    (BASE.replace('strategy = "random"', "strategy = 3"), ["entrants[0]: strategy must be a name", "got 3"]),
    (BASE.replace('strategy = "random"', 'strategy = "random"\nparams = 5'), ["params must be a table", "got 5"]),
    ('name = "x"\n', ["entrants must be a non-empty array"]),
    ("name = \n", ["not valid TOML"]),
])
def test_errors_name_the_problem(text, expected):
    with pytest.raises(ConfigError) as info:
        parse_toml(text, "cfg.toml")
    message = str(info.value)
    assert message.startswith("cfg.toml: ")
    for part in expected:
        assert part in message, (part, message)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match=r"cannot read experiment config .*nope\.toml"):
        load_experiment(tmp_path / "nope.toml")


def test_replace_overrides_and_validates():
    exp = parse_toml(BASE)
    assert exp.replace(deals=3, seed=None).deals == 3 and exp.replace(deals=3).seed == 1
    with pytest.raises(ConfigError, match="deals must be"):
        exp.replace(deals=0)


def test_fingerprint_ignores_deals_but_not_the_rest():
    exp = parse_toml(BASE)
    assert exp.fingerprint() == exp.replace(deals=500).fingerprint()
    assert exp.fingerprint() != exp.replace(seed=2).fingerprint()
    other_rules = parse_toml(BASE + "[rules]\nante = 2\n")
    assert exp.fingerprint() != other_rules.fingerprint()


def test_embedded_default_loads_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exp = default_experiment()
    assert exp.name == "default" and len(exp.entrants) >= 2 and exp.table_size <= len(exp.entrants)


def test_example_configs_are_valid():
    from pathlib import Path

    from treasure_sim.run.sweep import load_sweep

    checked = []
    for path in sorted((Path(__file__).parents[1] / "experiments").glob("*.toml")):
        if path.name.startswith("sweep_"):
            checked.append(load_sweep(path).base.name)  # a sweep: an experiment plus its rule variants
        elif path.name.startswith("tune_"):
            from treasure_sim.design.tune import load_tuning

            checked.append(load_tuning(path).name)  # a tuning: an experiment plus its [tune] table
        elif path.name.endswith("balance.toml"):  # balance.toml, reference_balance.toml
            from treasure_sim.run.studies import load_balance

            checked.append(load_balance(path).name)  # a balance study: an experiment plus its [balance] studies
        else:
            checked.append(load_experiment(path).name)
    assert len(checked) >= 5 and {"rules", "balance", "reference_balance", "length_reference"} <= set(checked)


@pytest.mark.parametrize(("rules", "message"), [
    ("ante = 100", r"\[rules\]: ante \(100\) must be smaller than starting_money \(100\)"),
    ("ante = 150", r"ante \(150\) must be smaller"),
    ('betting = "fixed-limit"\nsmall_bet = 3\nbig_bet = 2', r"small_bet \(3\) is larger than big_bet \(2\)"),
    ("min_bet = 1000", r"min_bet \(1000\) is more than any stack holds after the ante \(100 - 1 = 99\)"),
])
def test_rules_that_cannot_be_played_are_refused_in_one_line(rules, message):
    with pytest.raises(ConfigError, match=message) as err:
        parse_toml(BASE + "[rules]\n" + rules + "\n")
    assert "\n" not in str(err.value)


def test_a_fixed_limit_min_bet_is_not_a_problem():
    assert parse_toml(BASE + '[rules]\nbetting = "fixed-limit"\nmin_bet = 1000\n').rules.min_bet == 1000


def test_entrants_who_would_never_sit_are_refused_with_the_minimum_deals():
    eleven = BASE.replace("deals = 10", "deals = 2") + '[[entrants]]\nstrategy = "random"\n' * 10
    with pytest.raises(ConfigError, match=r"deals = 2 leaves entrants without a seat: with 11 entrants at 4-seat "
                                          r"tables every entrant sits only from 3 deals on"):
        parse_toml(eleven)
    assert parse_toml(eleven.replace("deals = 2", "deals = 3")).deals == 3
    with pytest.raises(ConfigError, match="ask for at least 3"):
        parse_toml(eleven.replace("deals = 2", "deals = 3")).replace(deals=1)  # --deals goes through the same check


def test_a_bot_parameter_of_the_wrong_type_is_named():
    bad = BASE.replace('strategy = "random"', 'strategy = "equity"\nparams = { rollouts = "lots" }')
    with pytest.raises(ConfigError, match=r"rollouts must be an int, got 'lots'"):
        parse_toml(bad)
    with pytest.raises(ConfigError, match=r"rollouts must be an int, got true|rollouts must be an int, got True"):
        parse_toml(bad.replace('"lots"', "true"))
    assert parse_toml(bad.replace('"lots"', "30")).entrants[0].params == {"rollouts": 30}
    ok = BASE.replace('strategy = "random"', 'strategy = "random"\nparams = { draw_chance = 1 }')
    assert parse_toml(ok).entrants[0].params == {"draw_chance": 1}  # an int is a fine number
