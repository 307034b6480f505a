"""Benchmark the evaluator: hands/s for big batches, showdown latency, and eval7/treys on the same hands.

Run: ``python experiments/bench_evaluator.py [--hands N]`` (or ``main(["--hands", "200000"])``).
Hand generation is outside every timing; numpy runs these kernels on one core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from treasure_sim.cards import format_card
from treasure_sim.evaluator import evaluate


def deal(rng: np.random.Generator, n: int, k: int, deck: int) -> np.ndarray:
    """n hands of k distinct cards from ids 0..deck-1, as int8 rows, in chunks to bound memory."""
    out = np.empty((n, k), np.int8)
    for lo in range(0, n, 100_000):
        hi = min(n, lo + 100_000)
        out[lo:hi] = np.argsort(rng.random((hi - lo, deck)), axis=1)[:, :k]
    return out


def best_time(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm up (tables, caches)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def eval7_rate(hands: np.ndarray, repeat: int) -> float | None:
    try:
        import eval7
    except ImportError:
        return None
    deck = [eval7.Card(format_card(c)) for c in range(52)]
    rows = [[deck[c] for c in row] for row in hands.tolist()]
    evaluate7 = eval7.evaluate
    return len(rows) / best_time(lambda: [evaluate7(r) for r in rows], repeat)


def treys_rate(hands: np.ndarray, repeat: int) -> float | None:
    try:
        import treys
    except ImportError:
        return None
    deck = [treys.Card.new(format_card(c)) for c in range(52)]
    rows = [([deck[c] for c in row[:2]], [deck[c] for c in row[2:]]) for row in hands.tolist()]
    judge = treys.Evaluator()
    return len(rows) / best_time(lambda: [judge.evaluate(h, b) for h, b in rows], repeat)


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Print the figures and return them (hands/s, latency in microseconds, ratios)."""
    parser = argparse.ArgumentParser(prog="treasure-sim bench evaluator", description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000, help="hands per batch (default 1,000,000)")
    parser.add_argument("--eval7-hands", type=int, default=200_000, help="of (a)'s hands through eval7")
    parser.add_argument("--treys-hands", type=int, default=50_000, help="of (a)'s hands through treys")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per figure; the best is kept")
    parser.add_argument("--latency-calls", type=int, default=5_000, help="calls for the showdown median")
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    rng = np.random.default_rng(args.seed)
    n, results = args.hands, {}

    def report(key: str, label: str, value: float, unit: str = "hands/s") -> None:
        results[key] = value
        shown = f"{value / 1e6:8.2f}M" if unit == "hands/s" else f"{value:9.1f}"
        print(f"{label:<58}{shown} {unit}")

    print(f"evaluator benchmark: {n:,} hands per batch, best of {args.repeat}, pid {os.getpid()}")
    hands7 = deal(rng, n, 7, 52)
    report("a", "(a) 7 cards from 52", n / best_time(lambda: evaluate(hands7), args.repeat))
    hands7j = deal(rng, n, 7, 54)
    report("b", "(b) 7 cards from 54 (Jokers wild)", n / best_time(lambda: evaluate(hands7j), args.repeat))
    hands12 = deal(rng, n, 12, 54)
    two_wild = np.full(n, (1 << 3) | (1 << 9), np.int64)  # fives and jacks wild, as per-row masks
    rate = n / best_time(lambda: evaluate(hands12, two_wild), args.repeat)
    report("c", "(c) 12 cards from 54, two wild ranks (per-row masks)", rate)

    showdown, masks = deal(rng, 4, 7, 54), np.zeros(4, np.int64)
    evaluate(showdown, masks)
    samples = []
    for _ in range(args.latency_calls):
        t0 = time.perf_counter_ns()
        evaluate(showdown, masks)
        samples.append(time.perf_counter_ns() - t0)
    report("d", "(d) one showdown: 4 hands of 7 cards, median latency", statistics.median(samples) / 1e3, "us")

    for name, rate_fn, count in (("eval7", eval7_rate, args.eval7_hands), ("treys", treys_rate, args.treys_hands)):
        rate = rate_fn(hands7[: min(n, count)], args.repeat)
        if rate is None:
            print(f"{name} is not installed; skipped")
            continue
        report(name, f"    {name} on {min(n, count):,} of (a)'s hands", rate)
        results[f"ratio_{name}"] = results["a"] / rate
        print(f"{'    (a) / ' + name:<58}{results['a'] / rate:8.1f}x")
    return results


if __name__ == "__main__":
    main()
