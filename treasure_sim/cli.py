"""The ``treasure-sim`` command, and the only module that knows argparse.

One ``add_<name>`` function per subcommand registers its options, one ``cmd_<name>`` runs it. Modules
that load pandas or matplotlib (report, analysis) are imported inside the command that needs them, so
``treasure-sim run`` and its forked workers never pay for them.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import pkgutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .run.backends import EXECUTORS, RunError, default_workers
from .run.execute import RunReport, run_experiment
from .run.experiment import ConfigError, default_experiment, load_experiment
from .run.store import ResultsError


class UsageError(Exception):
    """Bad input from the command line: reported in one line, exit code 2."""


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number >= minimum, with a one-line error otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {value}")
        return value

    return parse


_positive = _whole_number(1)
_seed = _whole_number(0)


# ----- run -------------------------------------------------------------------------------------------------
FIRST_BATCH = 100  # deals of the first batch of --until-ci without --deals (no stop on precision before 100)
MAX_DEALS = 5000  # --until-ci never plays more unless --max-deals says so


def add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a tournament (the embedded default without CONFIG)",
                       description="Play every game of an experiment, in parallel, into Parquet results; "
                                   "rerunning into the same folder continues where it stopped.")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="experiment TOML (default: the embedded default)")
    p.add_argument("--deals", type=_positive, metavar="N",
                   help="number of deals (overrides the config); with --until-ci, the first batch "
                        f"(default {FIRST_BATCH})")
    add_precision_options(p, "every entrant's interval of --metric", "strength, win_share or net "
                          "(default strength: the headline)")
    add_net_option(p)
    add_execution_options(p, "results folder", "results of a different config")
    p.set_defaults(func=cmd_run)


def add_precision_options(p: argparse.ArgumentParser, what: str, metric: str) -> None:
    """--until-ci, --max-deals and --metric: shared by run and sweep."""
    p.add_argument("--until-ci", type=_positive_float, metavar="W",
                   help=f"play deals in batches until {what} has half-width <= W, then stop (stopping on "
                        "precision keeps the intervals honest; stopping when a result looks significant does not)")
    p.add_argument("--max-deals", type=_positive, metavar="N", help=f"with --until-ci: stop at N deals even if "
                                                                    f"wider (default {MAX_DEALS})")
    p.add_argument("--metric", metavar="NAME", help=f"with --until-ci: the metric to watch: {metric}")


NET_CHOICES = ("adjusted", "raw")


def add_net_option(p: argparse.ArgumentParser) -> None:
    """--net: luck-adjusted net chips (the default) or raw; shared by run, sweep and report."""
    p.add_argument("--net", choices=NET_CHOICES, default="adjusted",
                   help="net chips luck-adjusted (default: the luck of the cards at every chance event subtracted; "
                        "same mean, narrower intervals; docs/luck.md) or raw, as won")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text}")
    return value


def add_execution_options(p: argparse.ArgumentParser, folder: str, replaced: str) -> None:
    """--workers, --out, --seed, --executor, --scheduler, --overwrite: shared by run and sweep."""
    p.add_argument("--workers", type=_positive, metavar="W", help=f"worker processes (default: one per core, "
                                                                   f"{default_workers()} here)")
    p.add_argument("--out", metavar="DIR", help=f"{folder} (default: results/<name>)")
    p.add_argument("--seed", type=_seed, metavar="S", help="experiment seed (overrides the config)")
    p.add_argument("--executor", choices=EXECUTORS, default="process", help="local process pool, or dask")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --executor dask: an existing scheduler (tcp://host:port) instead of a LocalCluster")
    p.add_argument("--overwrite", action="store_true", help=f"replace {replaced} in DIR")


def execute(args: argparse.Namespace, name: str, start: Callable[..., Any]) -> Any:
    """Run ``start(out, workers=..., ...)`` with the execution options into --out (default results/<name>).

    Returns its report, or None after Ctrl-C (said on stderr: what is written stays, a rerun continues).
    """
    if args.scheduler and args.executor != "dask":
        raise UsageError("--scheduler needs --executor dask")
    out = Path(args.out) if args.out else Path("results") / name
    try:
        return start(out, workers=args.workers, executor=args.executor, scheduler=args.scheduler,
                     overwrite=args.overwrite)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the games written so far are in {out} and intact; run the same command again "
              f"to continue", file=sys.stderr)
        return None


def _check_precision_options(args: argparse.Namespace) -> None:
    if args.until_ci is None and (args.max_deals is not None or args.metric is not None):
        raise UsageError("--max-deals and --metric go with --until-ci W")


def _first_batch(args: argparse.Namespace, out: Path) -> int:
    """--until-ci starts from --deals (default FIRST_BATCH), or from what the folder already holds."""
    from .run.store import read_manifest

    start = args.deals or FIRST_BATCH
    old = None if args.overwrite else read_manifest(out)
    if old is not None and old.kind == "run" and old.parts:
        start = max(start, max(p.end_deal for p in old.parts))
    elif old is not None and old.kind == "sweep":
        start = max(start, old.deals)
    return start


def _grow(args: argparse.Namespace, play: Callable[..., Any], widest: Callable[[Path], float], what: str
          ) -> Callable[..., Any]:
    """A ``start`` for `execute` that plays batches until --until-ci is met (`stats.until_precise`).

    ``play(deals, out, **options)`` brings the folder to ``deals`` deals and returns its report;
    ``widest(out)`` is the widest half-width of what is watched. Returns (reports, `stats.Stopped`).
    """
    from .study.stats import until_precise

    max_deals = args.max_deals or MAX_DEALS

    def start(out: Path, **options: Any) -> tuple[list[Any], Any]:
        reports: list[Any] = []
        played = [0]

        def batch(deals: int) -> None:
            reports.append(play(deals, out, **options))
            played[0] = deals
            options["overwrite"] = False  # only the first batch may replace the folder

        def measure() -> float:
            hw = widest(out)
            print(f"until-ci: {played[0]} deals: widest {what} half-width {hw:.4g} (target {args.until_ci:g})",
                  file=sys.stderr)
            return hw

        stopped = until_precise(batch, measure, args.until_ci, min(_first_batch(args, out), max_deals), max_deals)
        return reports, stopped

    return start


def cmd_run(args: argparse.Namespace) -> int:
    _check_precision_options(args)
    exp = load_experiment(args.config) if args.config else default_experiment()
    exp = exp.replace(deals=args.deals, seed=args.seed)
    if args.until_ci is None:
        report = execute(args, exp.name, functools.partial(run_experiment, exp))
        if report is None:
            return 130
        print(summary(report, exp.name, exp.deals, exp.rotations, exp.table_size, len(exp.entrants), args.net))
        return 0
    from .study.summary import METRICS, run_summary

    metric = args.metric or "strength"
    if metric not in METRICS:
        raise UsageError(f"--metric must be one of {', '.join(METRICS)} for a run, got {metric!r}")

    def play(deals: int, out: Path, **options: Any) -> RunReport:
        return run_experiment(exp.replace(deals=deals), out, **options)

    def widest(out: Path) -> float:
        return max(run_summary(out, net=args.net).half_widths(metric).values())  # the intervals the summary prints

    done = execute(args, exp.name, _grow(args, play, widest, metric.replace("_", " ")))
    if done is None:
        return 130
    reports, stopped = done
    last = dataclasses.replace(reports[-1], games_run=sum(r.games_run for r in reports),
                               seconds=sum(r.seconds for r in reports))
    print(summary(last, exp.name, stopped.deals, exp.rotations, exp.table_size, len(exp.entrants), args.net))
    print(f"\n{stopped.reason(args.until_ci, metric.replace('_', ' '))}; batches (deals, widest half-width): "
          + ", ".join(f"{n} ({hw:.3g})" for n, hw in stopped.batches))
    return 0


def summary(report: RunReport, name: str, deals: int, rotations: int, seats: int, entrants: int,
            net: str = "adjusted") -> str:
    """The text printed after a run: what was played, then the ranking by strength with win share and net."""
    from .study.summary import render, run_summary

    head = (f"{name}: {report.games_done} games ({_count(deals, 'deal')} x {_count(rotations, 'rotation')}, "
            f"{seats} seats, {entrants} entrants) in {report.out}")
    how = (f"this run: {report.games_run} games in {report.seconds:.1f} s on {report.workers} "
           f"{report.executor} worker{'s' * (report.workers != 1)}") if report.games_run else \
        "this run: nothing to do, every game was already on disk"
    return "\n".join([head, how, "", render(run_summary(report.out, net=net))])


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


# ----- sweep -----------------------------------------------------------------------------------------------
def add_sweep(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep", help="play one experiment under several rule variants (the embedded default without CONFIG)",
        description="Run the same entrants with the same seeds under every rule variant of a sweep config, one "
                    "results folder per variant plus sweep.json; rerunning continues where it stopped. Compare "
                    "the variants with `treasure-sim report DIR`.")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="sweep TOML (default: the embedded default sweep)")
    p.add_argument("--deals", type=_positive, metavar="N",
                   help=f"deals per variant (overrides the config); with --until-ci, the first batch "
                        f"(default {FIRST_BATCH})")
    add_precision_options(p, "every paired difference vs the baseline of --metric", "a metric of the sweep "
                          "report, e.g. 'hands per game' or 'seat 0' (default: the report's headline metrics)")
    add_net_option(p)
    add_execution_options(p, "sweep folder", "a different sweep's results")
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    from .run.execute import run_sweep
    from .run.sweep import default_sweep, load_sweep

    _check_precision_options(args)
    sweep = load_sweep(args.config) if args.config else default_sweep()
    sweep = sweep.replace(deals=args.deals, seed=args.seed)
    stopped = None
    if args.until_ci is None:
        report = execute(args, sweep.name, functools.partial(run_sweep, sweep))
    else:
        from .study.balance import paired_half_widths

        def play(deals: int, out: Path, **options: Any) -> Any:
            return run_sweep(sweep.replace(deals=deals), out, **options)

        def widest(out: Path) -> float:
            try:
                return max(paired_half_widths(out, args.metric, net=args.net).values(), default=float("nan"))
            except KeyError as err:
                raise UsageError(str(err.args[0])) from None

        done = execute(args, sweep.name, _grow(args, play, widest, "paired difference"))
        report, stopped = (None, None) if done is None else (done[0][-1], done[1])
        if done is not None:
            sweep = sweep.replace(deals=stopped.deals)
    if report is None:
        return 130
    runs = dict(report.runs)
    table = [("variant", "changes", "games", "this run")]
    for v in sweep.variants:
        r = runs.get(v.name)
        mark = " (baseline)" if v.name == sweep.baseline else ""
        table.append((v.name + mark, v.describe(), str(r.games_done if r else 0),
                      f"{r.games_run} in {r.seconds:.0f} s" if r else "-"))
    from .study.summary import text_table

    lines = [f"{sweep.name}: {_count(len(sweep.variants), 'variant')} x {_count(sweep.base.deals, 'deal')} "
             f"in {report.out} ({report.seconds:.0f} s)", "", text_table(table, left=2), ""]
    if stopped is not None:
        lines += [f"{stopped.reason(args.until_ci, 'paired difference')}; batches (deals, widest half-width): "
                  + ", ".join(f"{n} ({hw:.3g})" for n, hw in stopped.batches), ""]
    print("\n".join([*lines, f"compare the variants: treasure-sim report {report.out}"]))
    return 0


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
    p.add_argument("--multiplicity", choices=("holm", "bh"), default="holm",
                   help="how the ▲/▼ flags control for testing many cells at once: holm (family-wise error, the "
                        "default) or bh (Benjamini–Hochberg false discovery rate)")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from .study.report import run_report

    try:
        path = run_report(args.dir, args.out, multiplicity=args.multiplicity, net=args.net)
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


# ----- the command -----------------------------------------------------------------------------------------
SUBCOMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (add_run, add_sweep, add_report, add_bench)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="treasure-sim", description="Bot tournaments for Treasure Poker.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (2 for bad input, never a traceback)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error (2), already printed by argparse
        return int(exit_.code or 0)
    try:
        return args.func(args)
    except (UsageError, ConfigError, ResultsError) as err:
        print(f"treasure-sim {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (RunError, OSError) as err:  # the run could not go on; what it wrote stays valid
        print(f"treasure-sim {args.command}: failed: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
