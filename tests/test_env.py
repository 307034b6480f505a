"""The PettingZoo environment: PettingZoo's own API and seed tests, every decision type reachable through the
action set, rewards that add up to each agent's chips, and no thread: the environment steps the game's state."""

from __future__ import annotations

import collections
import threading

import numpy as np
import pytest

from treasure_sim import RuleSet
from treasure_sim.env import CALL_ACTION, CARD_BASE, FOLD_ACTION, N_ACTIONS, NO, PHASES, YES, bet_action, env, raw_env

pettingzoo_test = pytest.importorskip("pettingzoo.test")

CONFIGS = [
    dict(learners=1, bots=("equity", "treasure_hunter", "rock"), rules=RuleSet(max_hands=30)),
    dict(learners=2, bots=("random", "rock"), rules=RuleSet(max_hands=60)),
    dict(learners=3, bots=(), rules=RuleSet(betting="fixed-limit", max_hands=40)),
    dict(learners=1, bots=("calling_station",), rules=RuleSet.holdem(betting="pot-limit", max_hands=40)),
]


def threads() -> list[threading.Thread]:
    return threading.enumerate()


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['learners']}-learners-{c['rules'].betting}")
def test_pettingzoo_api_and_seed_tests(config):
    environment = env(**config)
    pettingzoo_test.api_test(environment, num_cycles=1000)
    environment.close()
    before = threads()
    pettingzoo_test.seed_test(lambda: env(**config), num_cycles=500)
    assert threads() == before


def coverage_policy(rng: np.random.Generator):
    """Folds often when it is free (to collect Treasures), otherwise calls; always goes on and draws."""

    def choose(obs: dict, info: dict) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        phase = info["phase"]
        if phase == "bet":
            return FOLD_ACTION if rng.random() < 0.35 else CALL_ACTION
        if phase in ("keep_playing", "hearts"):
            return YES
        if phase == "steal_card":
            return int(legal[-1])
        return int(rng.choice(legal))

    return choose


def test_every_decision_type_is_reached_and_answered_and_rewards_add_up_to_the_chips():
    rules = RuleSet(max_hands=80, zone_limit=3, at_limit="choose")  # a full zone asks make_room too
    environment = raw_env(learners=3, bots=("calling_station",), rules=rules)
    choose = coverage_policy(np.random.default_rng(0))
    seen: collections.Counter = collections.Counter()
    for game in range(30):
        environment.reset(seed=game)
        returns: collections.Counter = collections.Counter()
        for agent in environment.agent_iter():
            obs, reward, terminated, truncated, info = environment.last()
            returns[agent] += reward
            if terminated or truncated:
                environment.step(None)
                continue
            assert obs["action_mask"].shape == (N_ACTIONS,) and obs["action_mask"].any()
            assert info["observation"].seat == int(agent.split("_")[1])
            seen[info["phase"]] += 1
            environment.step(choose(obs, info))
        money = environment.result.final_money
        assert all(returns[f"player_{s}"] == money[s] - 100 for s in range(3)), (returns, money)
        assert not any(environment.result.errors), environment.result.errors  # every answer was legal
        if len(seen) == len(PHASES):
            break
    environment.close()
    assert set(seen) == set(PHASES), seen


def test_an_illegal_action_is_refused_with_the_legal_ones():
    environment = raw_env(learners=1, bots=("rock",))
    environment.reset(seed=3)
    obs, *_ = environment.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"not legal for player_0 now \(bet; legal: 0, 1"):
        environment.step(illegal)
    for not_an_int in ("1", 1.0, 1.5, True, np.True_, None):  # docs/env.md: an action is an int
        with pytest.raises(ValueError, match="not legal for player_0"):
            environment.step(not_an_int)
    environment.step(np.int64(CALL_ACTION))  # numpy's ints are ints (a Discrete space samples them)
    environment.close()


def test_raise_sizes_follow_the_pot_and_stay_within_the_limits():
    environment = raw_env(learners=1, bots=("calling_station",))
    environment.reset(seed=1)
    info = environment.infos["player_0"]
    obs = info["observation"]
    assert info["phase"] == "bet" and obs.to_call == 0 and obs.pot == 2
    assert bet_action(2, obs).amount == obs.min_raise_to == 1
    assert bet_action(3, obs).amount == 1  # half of a $2 pot
    assert bet_action(4, obs).amount == 2 and bet_action(5, obs).amount == 4
    assert bet_action(6, obs).amount == obs.max_raise_to == 99
    assert bet_action(CALL_ACTION, obs).kind == "check" and bet_action(FOLD_ACTION, obs).kind == "fold"
    environment.close()


def test_no_thread_runs_the_game():
    before = threads()
    environment = raw_env(learners=2, bots=("random",))
    for seed in range(5):
        environment.reset(seed=seed)
        environment.step(int(np.flatnonzero(environment.observe(environment.agent_selection)["action_mask"])[0]))
        assert threads() == before
    environment.close()


def test_games_are_the_seeds_and_the_actions():
    """Two environments given the same seed and actions see the same game, step for step."""

    def episode() -> list:
        environment = raw_env(learners=2, bots=("random", "equity"), rules=RuleSet(max_hands=20))
        environment.reset(seed=11)
        rng = np.random.default_rng(0)
        seen = []
        for agent in environment.agent_iter():
            obs, reward, terminated, truncated, _ = environment.last()
            seen.append((agent, obs["observation"].tobytes(), reward))
            legal = np.flatnonzero(obs["action_mask"])
            environment.step(None if terminated or truncated else int(rng.choice(legal)))
        return seen + [environment.result.final_money]

    assert episode() == episode()


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="2 to 10 with at least one learner"):
        raw_env(learners=0, bots=("rock",))
    with pytest.raises(ValueError, match="unknown strategy 'nope'"):
        raw_env(bots=("nope",))
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="video")


def test_card_actions_name_cards():
    assert CARD_BASE + 51 == N_ACTIONS - 1 and NO == 8


def test_the_docs_example_trains_and_evaluates():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "examples" / "env_policy.py"
    spec = importlib.util.spec_from_file_location("env_policy_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scores = module.main(["--games", "30"])
    assert set(scores) == {"learned", "uniform over legal actions"}
