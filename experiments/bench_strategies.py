"""Decision time of the built-in bots, and hands per second of a table with equity and treasure_hunter.

Every betting decision (``act``) of the bot under test is timed in real games at a 4-seat table
(the bot, treasure_hunter or equity, random, calling_station). For the Monte Carlo bots the
decisions that ran an estimate are also reported alone: those are the ones ``rollouts`` costs.
Hands per second are counted in CPU seconds of this process (per core), as the games run.

    python experiments/bench_strategies.py                    # every bot, equity at 500 rollouts too
    python experiments/bench_strategies.py --games 40 --bots equity --rollouts 500
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

import strategies._montecarlo as mc
from treasure_sim import Game, RuleSet
from treasure_sim.bots.loader import available, load_strategy

MC_BOTS = ("equity", "treasure_hunter")


class _Estimates:
    """Counts Monte Carlo estimates (rollout_scores calls) so a decision can tell if it ran one."""

    def __init__(self) -> None:
        self.count = 0
        self.real = mc.rollout_scores

    def __enter__(self) -> _Estimates:
        def counted(*args, **kwargs):
            self.count += 1
            return self.real(*args, **kwargs)

        mc.rollout_scores = counted
        return self

    def __exit__(self, *exc) -> None:
        mc.rollout_scores = self.real


def _timed(act: Callable, estimates: _Estimates, all_times: list, mc_times: list) -> Callable:
    def wrapper(obs):
        before = estimates.count
        start = time.perf_counter()
        action = act(obs)
        elapsed = time.perf_counter() - start
        all_times.append(elapsed)
        if estimates.count > before:
            mc_times.append(elapsed)
        return action

    return wrapper


def bench_bot(spec: str, params: dict, games: int, seed: int) -> dict:
    """Time the betting decisions of ``spec`` over ``games`` games at a 4-seat table."""
    partner = "equity" if spec == "treasure_hunter" else "treasure_hunter"
    all_times: list[float] = []
    mc_times: list[float] = []
    with _Estimates() as estimates:
        for g in range(games):
            bot = load_strategy(spec, **params)
            bot.act = _timed(bot.act, estimates, all_times, mc_times)
            others = [load_strategy(n) for n in (partner, "random", "calling_station")]
            seat = g % 4
            table = others[:seat] + [bot] + others[seat:]
            Game(table, RuleSet(), seed=seed + g, quintets=False).play()
    row = {
        "bot": spec + (f" {params}" if params else ""),
        "decisions": len(all_times),
        "median_ms": 1e3 * float(np.median(all_times)),
        "p90_ms": 1e3 * float(np.percentile(all_times, 90)),
    }
    if mc_times:
        row |= {
            "estimates": len(mc_times),
            "est_median_ms": 1e3 * float(np.median(mc_times)),
            "est_p90_ms": 1e3 * float(np.percentile(mc_times, 90)),
        }
    return row


def hands_per_second(games: int, seed: int, quintets: bool) -> tuple[int, float]:
    """(hands, hands per CPU second) at the table equity, treasure_hunter, random, calling_station."""
    hands = 0
    start = time.process_time()
    for g in range(games):
        bots = [load_strategy(n) for n in ("equity", "treasure_hunter", "random", "calling_station")]
        hands += Game(bots, RuleSet(), seed=seed + g, quintets=quintets).play().hands_played
    return hands, hands / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20, help="games per bot")
    p.add_argument("--bots", default=",".join(available()), help="comma-separated specs")
    p.add_argument("--rollouts", type=int, nargs="*", default=[500], help="extra runs of the MC bots at these rollouts")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    runs = [(b.strip(), {}) for b in args.bots.split(",")]
    runs += [(b, {"rollouts": r}) for r in args.rollouts for b, _ in list(runs) if b in MC_BOTS]
    print("| bot | decisions | median ms | p90 ms | estimates | median ms (estimates) | p90 ms (estimates) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec, params in runs:
        r = bench_bot(spec, params, args.games, args.seed)
        est = (
            f"{r['estimates']} | {r['est_median_ms']:.3f} | {r['est_p90_ms']:.3f}" if "estimates" in r else "- | - | -"
        )
        print(f"| {r['bot']} | {r['decisions']} | {r['median_ms']:.3f} | {r['p90_ms']:.3f} | {est} |", flush=True)
    for quintets in (False, True):
        hands, rate = hands_per_second(args.games, args.seed, quintets)
        print(
            f"\nequity, treasure_hunter, random, calling_station (quintets={quintets}): "
            f"{hands} hands, {rate:.0f} hands per CPU second"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
