"""Train and evaluate a small policy in the PettingZoo environment against the built-in bots.

    pip install -e '.[rl]'
    python docs/examples/env_policy.py            # a minute or two; --games N for more or fewer

One learning agent (player_0, seat 0) plays games of 30 hands against rock, calling_station and random.
Its policy is a softmax over four betting choices (fold, check/call, pot raise, all in) with a linear
score of a few features read from the raw Observation in ``infos``; every other decision (Spades, Hearts,
Joker Treasure, steals, the vote) takes a fixed sensible action. It learns by REINFORCE on the chips each
game returns, then is compared with a policy that picks uniformly among the legal actions.
"""

from __future__ import annotations

import argparse

import numpy as np

from treasure_sim import RuleSet
from treasure_sim.env import ALL_IN, CALL_ACTION, FOLD_ACTION, NO, POT, YES, raw_env

BET_CHOICES = (FOLD_ACTION, CALL_ACTION, POT, ALL_IN)


def features(obs) -> np.ndarray:
    """Bias, a pair in the hand, a high card, the price of a call, the round: from the raw Observation."""
    ranks = [c // 4 for c in obs.hand if c < 52]
    pair = float(len(ranks) != len(set(ranks)) or any(r in {s // 4 for s in obs.shared if s < 52} for r in ranks))
    high = max(ranks, default=0) / 12
    price = obs.to_call / max(obs.money[obs.seat] + obs.to_call, 1)
    return np.array([1.0, pair, high, price, obs.round / 3])


def other_decision(phase: str, legal: np.ndarray) -> int:
    if phase in ("hearts", "keep_playing"):
        return YES
    if phase in ("spades", "steal_card") and NO in legal:
        return int(legal[-1]) if phase == "steal_card" and len(legal) > 1 else NO
    return int(legal[0])  # a card: the first one offered


def play(env, weights: np.ndarray | None, rng: np.random.Generator, seed: int) -> tuple[float, list]:
    """One game; the agent's return and, for learning, its (features, choice, probabilities) at each bet."""
    env.reset(seed=seed)
    total, steps = 0.0, []
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if weights is None:
            env.step(int(rng.choice(legal)))
        elif info["phase"] == "bet":
            allowed = np.array([a in legal for a in BET_CHOICES])
            x = features(info["observation"])
            scores = np.where(allowed, weights @ x, -np.inf)
            p = np.exp(scores - scores.max())
            p /= p.sum()
            choice = int(rng.choice(len(BET_CHOICES), p=p))
            steps.append((x, choice, p))
            env.step(BET_CHOICES[choice])
        else:
            env.step(other_decision(info["phase"], legal))
    return total, steps


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="training games (evaluation: a third as many)")
    args = parser.parse_args(argv)
    env = raw_env(learners=1, bots=("rock", "calling_station", "random"), rules=RuleSet(max_hands=30))
    rng = np.random.default_rng(0)
    weights = np.zeros((len(BET_CHOICES), 5))
    baseline, rate = 0.0, 0.05
    for game in range(args.games):
        ret, steps = play(env, weights, rng, seed=game)
        baseline += 0.05 * (ret - baseline)
        for x, choice, p in steps:  # REINFORCE: push up the log-probability of what was chosen, by the advantage
            grad = -np.outer(p, x)
            grad[choice] += x
            weights += rate * (ret - baseline) / 100 * grad
    held_out = range(10**6, 10**6 + max(args.games // 3, 1))
    scores = {"learned": float(np.mean([play(env, weights, rng, seed)[0] for seed in held_out])),
              "uniform over legal actions": float(np.mean([play(env, None, rng, seed)[0] for seed in held_out]))}
    env.close()
    for name, chips in scores.items():
        print(f"{name:>28}: {chips:+7.2f} chips a game (of 100) over {len(held_out)} games")
    return scores


if __name__ == "__main__":
    main()
