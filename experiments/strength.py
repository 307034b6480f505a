"""Strength table: duplicate deals with every seat rotation, mean final money and 95% intervals.

Each deal is one card seed (``deal_seed``); it is played once per rotation of the lineup round
the table, so every bot gets every seat and every seat's cards: seat and card luck cancel. The
bots' own random streams (``seed``) differ per game. A deal's score for a bot is its final money
averaged over the rotations; intervals are over deals (normal, and a percentile bootstrap as a
check), for each bot's mean and for the paired difference of every two bots.

    python experiments/strength.py --deals 2000 --workers 2
    python experiments/strength.py --deals 200 --lineup equity,rock,maniac,random \\
        --params '{"equity": {"rollouts": 100}}' --rules max_hands=50
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations

import numpy as np

from treasure_sim import Game, RuleSet
from treasure_sim.bots.loader import strategy_factory

DEFAULT_LINEUP = ("equity", "treasure_hunter", "random", "calling_station")


def play_deals(lineup: tuple[str, ...], params: dict, rules: RuleSet, seed: int, deals: range) -> np.ndarray:
    """Final money, shape (len(deals), rotations, bots): entry [d, r, b] is bot b's money."""
    factories = [strategy_factory(name, params.get(name, {})) for name in lineup]
    n = len(lineup)
    out = np.zeros((len(deals), n, n))
    for i, deal in enumerate(deals):
        for rot in range(n):
            seats = [(s + rot) % n for s in range(n)]  # seat s plays bot seats[s]
            game = Game(
                [factories[b]() for b in seats],
                rules,
                seed=np.random.SeedSequence([seed, deal, rot]),
                deal_seed=np.random.SeedSequence([seed, deal]),
                quintets=False,
            )
            result = game.play()
            if any(result.errors):
                raise RuntimeError(f"deal {deal} rotation {rot}: bot errors {result.errors}")
            for s, b in enumerate(seats):
                out[i, rot, b] = result.final_money[s]
    return out


def _task(args: tuple) -> np.ndarray:
    return play_deals(*args)


def interval(x: np.ndarray, rng: np.random.Generator, boots: int = 2000) -> tuple[float, float, float, float, float]:
    """(mean, normal low, normal high, bootstrap low, bootstrap high) of the mean of ``x`` at 95%."""
    mean = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))
    means = x[rng.integers(0, len(x), (boots, len(x)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return mean, mean - half, mean + half, float(lo), float(hi)


def report(lineup: tuple[str, ...], money: np.ndarray, seconds: float) -> str:
    per_deal = money.mean(axis=1)  # (deals, bots): average over the rotations first
    rng = np.random.default_rng(0)
    lines = [
        f"{len(per_deal)} deals x {money.shape[1]} rotations = {money.shape[0] * money.shape[1]} games, "
        f"{seconds:.0f} s",
        "",
        "| bot | mean final money | 95% CI (normal) | 95% CI (bootstrap) |",
        "|---|---:|---:|---:|",
    ]
    for b, name in enumerate(lineup):
        m, lo, hi, blo, bhi = interval(per_deal[:, b], rng)
        lines.append(f"| {name} | {m:.2f} | [{lo:.2f}, {hi:.2f}] | [{blo:.2f}, {bhi:.2f}] |")
    lines += [
        "",
        "| A - B | mean difference | 95% CI (normal) | 95% CI (bootstrap) | excludes 0 |",
        "|---|---:|---:|---:|:---:|",
    ]
    for a, b in combinations(range(len(lineup)), 2):
        m, lo, hi, blo, bhi = interval(per_deal[:, a] - per_deal[:, b], rng)
        sure = "yes" if (lo > 0 or hi < 0) and (blo > 0 or bhi < 0) else "no"
        lines.append(
            f"| {lineup[a]} - {lineup[b]} | {m:+.2f} | [{lo:+.2f}, {hi:+.2f}] | [{blo:+.2f}, {bhi:+.2f}] | {sure} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=20261130)
    p.add_argument("--lineup", default=",".join(DEFAULT_LINEUP), help="comma-separated strategy specs")
    p.add_argument("--params", default="{}", help='JSON: {"spec": {param: value}}')
    p.add_argument("--rules", nargs="*", default=[], metavar="FIELD=VALUE", help="RuleSet overrides (JSON values)")
    p.add_argument("--chunk", type=int, default=25, help="deals per worker task")
    p.add_argument("--save", metavar="NPY", help="save the (deals, rotations, bots) money array")
    args = p.parse_args(argv)
    lineup = tuple(s.strip() for s in args.lineup.split(","))
    params = json.loads(args.params)
    overrides = {}
    for item in args.rules:
        key, _, value = item.partition("=")
        try:
            overrides[key] = json.loads(value)
        except json.JSONDecodeError:
            overrides[key] = value
    rules = RuleSet(**overrides)
    for name in lineup:
        strategy_factory(name, params.get(name, {}))  # fail now, not in a worker
    chunks = [range(i, min(i + args.chunk, args.deals)) for i in range(0, args.deals, args.chunk)]
    tasks = [(lineup, params, rules, args.seed, c) for c in chunks]
    start = time.perf_counter()
    parts = []
    with ProcessPoolExecutor(args.workers) as pool:
        for done, part in enumerate(pool.map(_task, tasks), 1):
            parts.append(part)
            print(f"\r{done}/{len(tasks)} tasks", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    money = np.concatenate(parts)
    if args.save:
        np.save(args.save, money)
    print(
        f"lineup: {', '.join(lineup)}; params: {json.dumps(params)}; rules: {json.dumps(overrides)}; seed {args.seed}"
    )
    print(report(lineup, money, time.perf_counter() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
