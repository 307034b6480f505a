"""`tune`: race candidate rule sets towards a designer's targets (`treasure_sim.design.tune`)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from ..run.execute import Progress, run_experiment
from ..run.experiment import Experiment
from ..run.store import read_manifest
from .options import add_execution_options, execute, positive


def add_tune(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tune", help="search rule sets that meet targets (game length, natural endings, seats, skill)",
        description="Every combination of the config's [tune.knobs] is a candidate rule set; successive halving "
                    "plays them on the same deals, keeps the best third each round and plays the rest longer, "
                    "until [tune].budget deals are spent; then it names the rule sets that meet every "
                    "[[tune.targets]] with their intervals, and the trade-off front. Each candidate is an "
                    "ordinary results folder in DIR; rerunning resumes. See docs/tuning.md.")
    p.add_argument("config", metavar="CONFIG", help="tuning TOML: an experiment plus a [tune] table")
    p.add_argument("--budget", type=positive, metavar="N",
                   help="deals to spend in all, summed over candidates and rounds (overrides [tune].budget); a "
                        "budget too small for the candidates (under 10 deals each in round 1) is warned about, with "
                        "the budget that would do")
    add_execution_options(p, "tuning folder", "a previous tuning's candidates")
    p.set_defaults(func=cmd_tune)


def cmd_tune(args: argparse.Namespace) -> int:
    from ..design import tune_report
    from ..design.tune import load_tuning, tune

    tuning = load_tuning(args.config)
    tuning = dataclasses.replace(tuning, base=tuning.base.replace(seed=args.seed,
                                                                  decision_timeout=args.decision_timeout,
                                                                  untrusted=args.untrusted or None),
                                 budget=args.budget or tuning.budget)
    bar: list[Progress] = []  # the round now playing: one bar (or a line every ~10 s) over its candidates' games

    def start(out: Path, **options: Any) -> Any:
        def round_starts(number: int, jobs: list[tuple[Experiment, Path]]) -> None:
            while bar:
                bar.pop().close()
            total = sum(exp.games for exp, _ in jobs)
            done = 0 if options.get("overwrite") else sum(_on_disk(folder, exp.games) for exp, folder in jobs)
            bar.append(Progress(f"{tuning.name} round {number}", total, done, None))

        def play(exp: Experiment, folder: Path) -> None:
            if bar:
                bar[0].at_stage(exp.name.removeprefix(f"{tuning.name}."))
            run_experiment(exp, folder, progress=bar[0] if bar else False, **options)

        try:
            return tune(tuning, out, play=play, tell=lambda line: print(line, file=sys.stderr, flush=True),
                        on_round=round_starts)
        finally:
            while bar:
                bar.pop().close()

    report = execute(args, tuning.name, start)
    if report is None:
        return 130
    if report.warning:
        print(f"warning: {report.warning}")
    path = tune_report.write(report)
    best = tune_report.recommended(report)
    print(f"{tuning.name}: {len(tuning.candidates)} candidates, {len(report.rounds)} rounds; "
          f"{len(best)} meet every target: {', '.join(m.name for m in best) or 'none'}")
    print(f"the candidates, the trade-off front and every round: {path}")
    return 0


def _on_disk(folder: Path, games: int) -> int:
    manifest = read_manifest(folder) if (folder / "manifest.json").exists() else None
    return min(manifest.games_done, games) if manifest is not None else 0
