"""What a tournament worker spends on each safeguard and record: CPU per game with each switched off in turn.

Run: ``python experiments/bench_worker_costs.py [--games 600] [--rounds 3]`` (pin it to one core on a busy
machine: ``taskset -c 0 python ...``). It plays the `bench tournament` workload (four random bots, every seat
rotation) in this process, task by task as a worker does, once per variant per round, the variants alternated,
and prints the best CPU time of each:

- ``base``: as a tournament plays it;
- ``plain bets``: the random bot picks its action itself instead of declaring `Mixed` chances for the engine to draw
  (the games differ: the same kind of play, other draws);
- ``no time limit``: no per-decision limit (the seat calls the bot inline);
- ``no chips/cards check``: no check of chips and cards after each hand (the engine's code is not watched at a
  table of built-in bots in either case);
- ``no seats/mixed rows``: the seats and mixed tables are not built (the games and hands tables are).

Why: tournaments are slower per game than at 1369ec4; this says how much of it each addition since costs. The
variants swap module attributes, so this is a measurement, never a way to run tournaments.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import treasure_sim.bots.driver as driver
import treasure_sim.run.tournament as tournament
from strategies.random_bot import RandomBot
from treasure_sim.benchmarks.tournament import config
from treasure_sim.run.experiment import parse_toml

VARIANTS = ("base", "plain bets", "no time limit", "no chips/cards check", "no seats/mixed rows", "all four off")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=600, help="games per variant (default 600)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of all variants; the best is kept (default 3)")
    args = p.parse_args()
    exp = parse_toml(config("random", args.games))
    tasks = list(tournament.plan_tasks(exp, [(0, exp.deals)], exp.deals, stderr_dir=None))
    untimed = [dataclasses.replace(t, decision_timeout=None) for t in tasks]
    real = (RandomBot.act, driver.check_hand, tournament.seat_rows, tournament.mixed_rows)

    def play(variant: str) -> float:
        off = set(VARIANTS[1:5]) if variant == "all four off" else {variant}
        RandomBot.act = (lambda self, obs: self.pick(obs)) if "plain bets" in off else real[0]  # type: ignore
        driver.check_hand = (lambda *a: None) if "no chips/cards check" in off else real[1]  # type: ignore
        skip_rows = "no seats/mixed rows" in off
        tournament.seat_rows = (lambda *a: None) if skip_rows else real[2]  # type: ignore
        tournament.mixed_rows = (lambda *a: None) if skip_rows else real[3]  # type: ignore
        start = time.process_time()
        for task in untimed if "no time limit" in off else tasks:
            tournament._play_task(task)
        return time.process_time() - start

    try:
        best = dict.fromkeys(VARIANTS, float("inf"))
        for _ in range(args.rounds):
            for variant in VARIANTS:
                best[variant] = min(best[variant], play(variant))
    finally:
        RandomBot.act, driver.check_hand, tournament.seat_rows, tournament.mixed_rows = real  # type: ignore
    print(f"{args.games} games of four random bots per variant, best of {args.rounds} (CPU seconds)")
    for variant in VARIANTS:
        cpu = best[variant]
        print(f"{variant:>22}: {cpu:6.2f} CPU s {args.games / cpu:6.1f} games/CPU-s {cpu / best['base']:5.0%} of base")


if __name__ == "__main__":
    main()
