"""Benchmark the engine: hands/s and games/s of whole games between simple bots, on one core.

Run: ``treasure-sim bench engine [--hands 20000] [--players 4] [--seed 0] [--repeat 3] [--quintets]
[--profile]`` (or ``python experiments/bench_engine.py ...``). Two lines: four RandomBots (short
games, many folds) and four calling bots (every hand goes to a showdown, games run to the hand
limit). Rates are per CPU-second of this process (best of ``--repeat`` runs), which stays
meaningful when other jobs share the machine; the wall-clock rate of the same run is printed
beside it. ``--quintets`` also names every shown quintet (records for people; tournaments leave
it off); ``--profile`` prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable, Sequence

from strategies.random_bot import RandomBot
from treasure_sim.game.engine import play_game
from treasure_sim.game.rules import RuleSet
from treasure_sim.game.strategy import CHECK, Action, Observation, Strategy


class CallingBot(Strategy):
    """Checks or calls every bet: every hand reaches a showdown and nobody busts quickly."""

    name = "calling"

    def act(self, obs: Observation) -> Action:
        return Action.check() if CHECK in obs.legal else Action.call()


BOTS: dict[str, Callable[[], Strategy]] = {"random": RandomBot, "calling": CallingBot}


def run(bot: str, hands: int, players: int, seed: int, quintets: bool) -> dict[str, float]:
    """Play whole games of ``players`` copies of ``bot`` until ``hands`` hands are played."""
    done = games = 0
    cpu, wall = time.process_time(), time.perf_counter()
    while done < hands:
        result = play_game([BOTS[bot]() for _ in range(players)], RuleSet(), seed=seed + games, quintets=quintets)
        done += result.hands_played
        games += 1
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"hands": done, "games": games, "cpu": cpu, "wall": wall}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="treasure-sim bench engine", description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per line (whole games, so a few more)")
    parser.add_argument("--players", type=int, default=4, help="seats per game (2-10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed + i")
    parser.add_argument("--bots", default="random,calling", help="comma-separated: random, calling")
    parser.add_argument("--repeat", type=int, default=3, help="report the best of this many runs (noisy machines)")
    parser.add_argument("--quintets", action="store_true", help="name every shown quintet (best_quintet)")
    parser.add_argument("--profile", action="store_true", help="print the 20 functions taking most time")
    args = parser.parse_args(argv)
    bots = args.bots.split(",")
    if unknown := [b for b in bots if b not in BOTS]:
        parser.error(f"unknown bot(s) {', '.join(unknown)}; choose from {', '.join(BOTS)}")
    profiler = cProfile.Profile() if args.profile else None
    for bot in bots:
        if profiler:
            profiler.enable()
        r = min((run(bot, args.hands, args.players, args.seed, args.quintets) for _ in range(args.repeat)),
                key=lambda run_: run_["cpu"])
        if profiler:
            profiler.disable()
        print(f"{bot:>8} x{args.players}: {r['hands']:,} hands, {r['games']:,} games in {r['cpu']:.2f} CPU s: "
              f"{r['hands'] / r['cpu']:,.0f} hands/s, {r['games'] / r['cpu']:,.1f} games/s "
              f"(wall {r['hands'] / r['wall']:,.0f} hands/s){' with quintets' if args.quintets else ''}")
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    return 0
