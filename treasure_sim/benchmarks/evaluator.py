"""Benchmark the evaluator: hands/s for big batches, showdown latency, and eval7/treys on the same hands.

Run: ``treasure-sim bench evaluator [--hands N]`` or ``python experiments/bench_evaluator.py [--hands N]``.
Hand generation is outside every timing; numpy runs these kernels on one core. Rates are hands per
CPU-second of this process (best of --repeat runs), which stays meaningful when other jobs share
the machine; the wall-clock rate of the same runs is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from treasure_sim.game.cards import format_card
from treasure_sim.game.evaluator import evaluate


def deal(rng: np.random.Generator, n: int, k: int, deck: int) -> np.ndarray:
    """n hands of k distinct cards from ids 0..deck-1, as int8 rows, in chunks to bound memory."""
    out = np.empty((n, k), np.int8)
    for lo in range(0, n, 100_000):
        hi = min(n, lo + 100_000)
        out[lo:hi] = np.argsort(rng.random((hi - lo, deck)), axis=1)[:, :k]
    return out


def best_time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best CPU seconds and best wall seconds over `repeat` calls, after one warm-up call."""
    fn()  # warm up (tables, caches)
    cpu, wall = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    return min(cpu), min(wall)


def eval7_time(hands: np.ndarray, repeat: int) -> tuple[float, float] | None:
    try:
        import eval7
    except ImportError:
        return None
    deck = [eval7.Card(format_card(c)) for c in range(52)]
    rows = [[deck[c] for c in row] for row in hands.tolist()]
    evaluate7 = eval7.evaluate
    return best_time(lambda: [evaluate7(r) for r in rows], repeat)


def treys_time(hands: np.ndarray, repeat: int) -> tuple[float, float] | None:
    try:
        import treys
    except ImportError:
        return None
    deck = [treys.Card.new(format_card(c)) for c in range(52)]
    rows = [([deck[c] for c in row[:2]], [deck[c] for c in row[2:]]) for row in hands.tolist()]
    judge = treys.Evaluator()
    return best_time(lambda: [judge.evaluate(h, b) for h, b in rows], repeat)


def main(argv: list[str] | None = None) -> int:
    """Print the figures (the command-line entry point); 0 on success."""
    measure(argv)
    return 0


def measure(argv: list[str] | None = None) -> dict[str, float]:
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

    def report(key: str, label: str, hands: int, times: tuple[float, float]) -> float:
        rate = results[key] = hands / times[0]
        results[f"{key}_wall"] = hands / times[1]
        print(f"{label:<56}{rate / 1e6:7.2f}M hands/s  (wall {hands / times[1] / 1e6:.2f}M)")
        return rate

    print(f"evaluator benchmark: {n:,} hands per batch, best of {args.repeat}, pid {os.getpid()}")
    hands7 = deal(rng, n, 7, 52)
    report("a", "(a) 7 cards from 52", n, best_time(lambda: evaluate(hands7), args.repeat))
    hands7j = deal(rng, n, 7, 54)
    report("b", "(b) 7 cards from 54 (Jokers wild)", n, best_time(lambda: evaluate(hands7j), args.repeat))
    hands12 = deal(rng, n, 12, 54)
    two_wild = np.full(n, (1 << 3) | (1 << 9), np.int64)  # fives and jacks wild, as per-row masks
    times = best_time(lambda: evaluate(hands12, two_wild), args.repeat)
    report("c", "(c) 12 cards from 54, two wild ranks (per-row masks)", n, times)

    showdown, masks = deal(rng, 4, 7, 54), np.zeros(4, np.int64)
    evaluate(showdown, masks)
    samples = []
    for _ in range(args.latency_calls):
        t0 = time.perf_counter_ns()
        evaluate(showdown, masks)
        samples.append(time.perf_counter_ns() - t0)
    results["d"] = statistics.median(samples) / 1e3
    print(f"{'(d) one showdown: 4 hands of 7 cards, median latency':<56}{results['d']:7.1f} us (wall)")

    for name, time_fn, count in (("eval7", eval7_time, args.eval7_hands), ("treys", treys_time, args.treys_hands)):
        m = min(n, count)
        measured = time_fn(hands7[:m], args.repeat)
        if measured is None:
            print(f"{name} is not installed; skipped")
            continue
        rate = report(name, f"    {name} on {m:,} of (a)'s hands", m, measured)
        results[f"ratio_{name}"] = results["a"] / rate
        print(f"{'    (a) / ' + name:<56}{results['a'] / rate:7.1f}x")
    return results


if __name__ == "__main__":
    main()
