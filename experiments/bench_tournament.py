"""Benchmark the tournament runner (see treasure_sim/benchmarks/tournament.py for what it measures).

Run: ``python experiments/bench_tournament.py [--games 10000] [--workers 1,2] [--rss-games 10000,30000]``
(the same as ``treasure-sim bench tournament ...``).
"""

import sys

from treasure_sim.benchmarks.tournament import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
