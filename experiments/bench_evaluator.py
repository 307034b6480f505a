"""Benchmark the evaluator (see treasure_sim/benchmarks/evaluator.py for what it measures).

Run: ``python experiments/bench_evaluator.py [--hands 1000000] [--repeat 3]``
(the same as ``treasure-sim bench evaluator ...``).
"""

import sys

from treasure_sim.benchmarks.evaluator import main

if __name__ == "__main__":
    main(sys.argv[1:])
