"""Benchmark the engine (see treasure_sim/benchmarks/engine.py for what it measures).

Run: ``python experiments/bench_engine.py [--hands 20000] [--players 4] [--seed 0] [--repeat 3]
[--bots random,calling,mixed,rlcard,rlcard-game] [--quintets] [--profile]`` (the same as
``treasure-sim bench engine ...``; the rlcard lines need ``pip install rlcard``).
"""

import sys

from treasure_sim.benchmarks.engine import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
