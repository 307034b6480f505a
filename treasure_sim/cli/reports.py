"""`report` and `bench`: figures and markdown from results, and the benchmarks."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from pathlib import Path

from ..run.store import ResultsError
from .options import UsageError, add_error_share_option, add_net_option, strategy_defaults


# ----- report ----------------------------------------------------------------------------------------------
def add_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="figures and a markdown summary of a results directory",
        description="Write the ranking by lineup-adjusted strength, win shares, net money, paired head-to-head "
                    "comparisons, seat advantage, a planning figure and money trajectories as PNGs plus report.md, "
                    "each estimate with its 95% interval over deals. A sweep folder gets its variants compared "
                    "with the baseline, paired by deal, flags adjusted for multiplicity.")
    p.add_argument("dir", type=Path, help="a results directory written by `treasure-sim run`, or a sweep "
                                          "folder written by `treasure-sim sweep` (its variants compared)")
    p.add_argument("--out", type=Path, default=None, help="where to write (default: DIR/report)")
    add_net_option(p)
    add_error_share_option(p)
    p.add_argument("--multiplicity", choices=("holm", "bh"), default="holm",
                   help="how the ▲/▼ flags control for testing many cells at once: holm (family-wise error, the "
                        "default) or bh (Benjamini–Hochberg false discovery rate)")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from ..design.replays import Replays
    from ..design.tune import is_tune_dir, read_tune
    from ..study.report import run_report

    if is_tune_dir(args.dir):  # a tuning folder: its candidates, front and rounds
        from ..design import tune_report

        report = read_tune(args.dir)
        path = tune_report.write(report)
        print(f"report written to {path}")
        return 0
    try:
        path = run_report(args.dir, args.out, multiplicity=args.multiplicity, net=args.net,
                          max_error_share=args.max_error_share, replayer=Replays(), defaults=strategy_defaults)
    except (FileNotFoundError, ValueError) as err:
        raise ResultsError(str(err)) from None
    print(f"report written to {path} (figures beside it in {path.parent})")
    return 0


# ----- bench -----------------------------------------------------------------------------------------------
def add_bench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run a benchmark: evaluator, engine or tournament",
                       description="Run treasure_sim.benchmarks.<NAME>.main(ARGS); pass --help after NAME "
                                   "for its own options.")
    p.add_argument("name", metavar="NAME", help="evaluator, engine or tournament")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the benchmark's own arguments")
    p.set_defaults(func=cmd_bench)


def benchmarks() -> list[str]:
    try:
        package = importlib.import_module("treasure_sim.benchmarks")
    except ModuleNotFoundError:
        return []
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def cmd_bench(args: argparse.Namespace) -> int:
    module = f"treasure_sim.benchmarks.{args.name}"
    if not args.name.isidentifier():
        raise UsageError(f"no benchmark named {args.name!r}; available: {', '.join(benchmarks()) or 'none'}")
    try:
        bench = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name not in (module, "treasure_sim.benchmarks"):
            raise
        raise UsageError(f"no benchmark named {args.name!r} (no module {module}); "
                         f"available: {', '.join(benchmarks()) or 'none'}") from None
    return int(bench.main(list(args.args)) or 0)
