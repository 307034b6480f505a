"""`tune`: race candidate rule sets towards a designer's targets (`treasure_sim.design.tune`)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from ..run.execute import run_experiment
from ..run.experiment import Experiment
from .options import add_execution_options, execute


def add_tune(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tune", help="search rule sets that meet targets (game length, natural endings, seats, skill)",
        description="Every combination of the config's [tune.knobs] is a candidate rule set; successive halving "
                    "plays them on the same deals, keeps the best third each round and plays the rest longer, "
                    "until [tune].budget deals are spent; then it names the rule sets that meet every "
                    "[[tune.targets]] with their intervals, and the trade-off front. Each candidate is an "
                    "ordinary results folder in DIR; rerunning resumes. See docs/tuning.md.")
    p.add_argument("config", metavar="CONFIG", help="tuning TOML: an experiment plus a [tune] table")
    add_execution_options(p, "tuning folder", "a previous tuning's candidates")
    p.set_defaults(func=cmd_tune)


def cmd_tune(args: argparse.Namespace) -> int:
    from ..design import tune_report
    from ..design.tune import load_tuning, tune

    tuning = load_tuning(args.config)
    tuning = dataclasses.replace(tuning, base=tuning.base.replace(seed=args.seed,
                                                                  decision_timeout=args.decision_timeout))

    def start(out: Path, **options: Any) -> Any:
        def play(exp: Experiment, folder: Path) -> None:
            run_experiment(exp, folder, progress=False, **options)

        return tune(tuning, out, play=play, tell=lambda line: print(line, file=sys.stderr))

    report = execute(args, tuning.name, start)
    if report is None:
        return 130
    path = tune_report.write(report)
    best = tune_report.recommended(report)
    print(f"{tuning.name}: {len(tuning.candidates)} candidates, {len(report.rounds)} rounds; "
          f"{len(best)} meet every target: {', '.join(m.name for m in best) or 'none'}")
    print(f"the candidates, the trade-off front and every round: {path}")
    return 0
