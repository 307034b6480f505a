"""Benchmark `treasure-sim run`: games/s by workers, parallel efficiency, parent CPU, the summary's time, peak RSS.

Run: ``treasure-sim bench tournament [--games 10000] [--workers 1,2] [--rss-games 10000,30000]``
(or ``python experiments/bench_tournament.py ...``). Each measurement is a fresh subprocess so
that its peak RSS (``ru_maxrss``) and CPU times are its own; the workload is four-seat games of
simple bots (``--mix``) with Parquet written as in a real run. Other load on the machine skews
wall-clock figures: the load average is printed at start and end, and worker CPU time beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HEAD = """
name = "bench"
seed = 1
deals = {deals}
table_size = 4
"""
MIXES = {  # four entrants each: one per seat
    "random": ["random", "random", "random", "random"],
    "simple": ["random", "random", "rock", "calling_station"],
}


def config(mix: str, games: int) -> str:
    entrants = "".join(f'[[entrants]]\nstrategy = "{s}"\n' for s in MIXES[mix])
    return HEAD.format(deals=max(1, games // 4)) + entrants


def measure_one(mix: str, games: int, workers: int, out: Path) -> dict:
    """One run in this process: wall time, this process's CPU and peak RSS, its workers' CPU."""
    import psutil

    from treasure_sim.run.execute import run_experiment
    from treasure_sim.run.experiment import parse_toml
    from treasure_sim.study.summary import run_summary

    exp = parse_toml(config(mix, games))
    me = psutil.Process()
    samples: list[int] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.25):
            samples.append(me.memory_info().rss)

    sampler = threading.Thread(target=sample, daemon=True)
    start_rss = me.memory_info().rss
    sampler.start()
    t0 = time.perf_counter()
    report = run_experiment(exp, out, workers=workers, overwrite=True, progress=False)
    wall = time.perf_counter() - t0
    run_ru = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers' (the summary may fork processes of its own)
    run_maxrss = run_ru.ru_maxrss * 1024
    stop.set()  # before the summary: with another thread running, it would not fork its luck processes (luck.py)
    sampler.join()
    t1 = time.perf_counter()
    run_summary(out)  # the summary the CLI prints: reads the games table back
    summary_s = time.perf_counter() - t1
    self_ru = resource.getrusage(resource.RUSAGE_SELF)
    size = sum(f.stat().st_size for f in out.rglob("*.parquet"))
    n = len(samples)
    return {
        "games": report.games_done, "workers": workers, "wall_s": wall, "games_per_s": report.games_done / wall,
        "parent_cpu_s": self_ru.ru_utime + self_ru.ru_stime, "workers_cpu_s": kids.ru_utime + kids.ru_stime,
        "parent_run_cpu_s": run_ru.ru_utime + run_ru.ru_stime, "summary_s": summary_s,
        "rss_start_mb": start_rss / 2**20, "rss_run_peak_mb": run_maxrss / 2**20,
        "rss_peak_with_summary_mb": self_ru.ru_maxrss / 1024,
        "rss_quartiles_mb": [samples[min(n - 1, n * q // 4)] / 2**20 for q in (1, 2, 3, 4)] if n else [],
        "parquet_mb": size / 2**20,
    }


def run_measurement(mix: str, games: int, workers: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        cmd = [sys.executable, "-m", "treasure_sim.benchmarks.tournament", "--one", mix, str(games), str(workers),
               str(Path(tmp) / "out")]
        done = subprocess.run(cmd, check=True, capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1])


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="treasure-sim bench tournament", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10_000, help="games per scaling run (default 10000)")
    p.add_argument("--workers", type=_ints, default=[1, 2], help="worker counts to compare (default 1,2)")
    p.add_argument("--rss-games", type=_ints, default=[], help="game counts for the memory series (at the "
                   "largest worker count), e.g. 10000,30000,100000")
    p.add_argument("--mix", choices=sorted(MIXES), default="random",
                   help="random: four random bots (default); simple: random, random, rock, calling_station")
    p.add_argument("--one", nargs=4, metavar=("MIX", "GAMES", "WORKERS", "OUT"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one[0], int(args.one[1]), int(args.one[2]), Path(args.one[3]))))
        return 0
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; "
          f"python {sys.version.split()[0]}")
    print(f"workload: four-seat games of {', '.join(MIXES[args.mix])}, all seat rotations, Parquet written")
    rows = [run_measurement(args.mix, args.games, w) for w in args.workers]
    rows += [run_measurement(args.mix, g, max(args.workers)) for g in args.rss_games if g != args.games]
    print(f"{'games':>6} {'workers':>7} {'wall s':>7} {'games/s':>7} {'eff.':>5} {'worker cpu s':>12} "
          f"{'parent cpu':>10} {'summary s':>9} {'RSS MB run':>10} {'+summary':>8} {'parquet MB':>10}")
    base = next((r["games_per_s"] for r in rows if r["workers"] == 1), None)
    for r in rows:
        eff = f"{r['games_per_s'] / base / r['workers']:.0%}" if base else "-"
        print(f"{r['games']:>6} {r['workers']:>7} {r['wall_s']:>7.1f} {r['games_per_s']:>7.1f} {eff:>5} "
              f"{r['workers_cpu_s']:>12.1f} {r['parent_run_cpu_s'] / r['wall_s']:>10.1%} {r['summary_s']:>9.1f} "
              f"{r['rss_run_peak_mb']:>10.0f} {r['rss_peak_with_summary_mb']:>8.0f} {r['parquet_mb']:>10.1f}")
    print(f"load average {os.getloadavg()[0]:.2f} at end; eff. = (games/s at W) / (W x games/s at 1)")
    print("parent cpu = the parent's CPU time during the run / wall time; summary s, +summary: the summary")
    print("the CLI prints after the run (its wall time; the parent's peak RSS including it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
