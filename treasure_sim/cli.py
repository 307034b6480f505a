"""The ``treasure-sim`` command, and the only module that knows argparse.

One ``add_<name>`` function per subcommand registers its options, one ``cmd_<name>`` runs it. Modules
that load pandas or matplotlib (report, analysis) are imported inside the command that needs them, so
``treasure-sim run`` and its forked workers never pay for them.
"""

from __future__ import annotations

import argparse
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
def add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a tournament (the embedded default without CONFIG)",
                       description="Play every game of an experiment, in parallel, into Parquet results; "
                                   "rerunning into the same folder continues where it stopped.")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="experiment TOML (default: the embedded default)")
    p.add_argument("--deals", type=_positive, metavar="N", help="number of deals (overrides the config)")
    add_execution_options(p, "results folder", "results of a different config")
    p.set_defaults(func=cmd_run)


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


def cmd_run(args: argparse.Namespace) -> int:
    exp = load_experiment(args.config) if args.config else default_experiment()
    exp = exp.replace(deals=args.deals, seed=args.seed)
    report = execute(args, exp.name, functools.partial(run_experiment, exp))
    if report is None:
        return 130
    print(summary(report, exp.name, exp.deals, exp.rotations, exp.table_size, len(exp.entrants)))
    return 0


def summary(report: RunReport, name: str, deals: int, rotations: int, seats: int, entrants: int) -> str:
    """The table printed after a run: per entrant, games, win share and net money with their intervals."""
    from .study.stats import format_interval, method
    from .study.summary import entrant_stats

    head = (f"{name}: {report.games_done} games ({_count(deals, 'deal')} x {_count(rotations, 'rotation')}, "
            f"{seats} seats, {entrants} entrants) in {report.out}")
    how = (f"this run: {report.games_run} games in {report.seconds:.1f} s on {report.workers} "
           f"{report.executor} worker{'s' * (report.workers != 1)}") if report.games_run else \
        "this run: nothing to do, every game was already on disk"
    rows = entrant_stats(report.out)
    table = [("strategy", "games", "win share (95% CI)", "net $ per game (95% CI)", "bot errors")]
    table += [(r["entrant"], str(r["games"]), format_interval(r["win"], ".3f", "pm"),
               format_interval(r["net"], "+.2f", "pm"), str(r["errors"])) for r in rows]
    n_deals = max((r["deals"] for r in rows), default=0)
    return "\n".join([head, how, "", text_table(table), "",
                      f"95% CI: {method()} (up to {n_deals} deals per entrant). games: seats played."])


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def text_table(rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain-text table: a header, a rule, the rows; the first ``left`` columns left-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if j < left else c.rjust(w)
                               for j, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ----- sweep -----------------------------------------------------------------------------------------------
def add_sweep(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep", help="play one experiment under several rule variants (the embedded default without CONFIG)",
        description="Run the same entrants with the same seeds under every rule variant of a sweep config, one "
                    "results folder per variant plus sweep.json; rerunning continues where it stopped. Compare "
                    "the variants with `treasure-sim report DIR`.")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="sweep TOML (default: the embedded default sweep)")
    p.add_argument("--deals", type=_positive, metavar="N", help="deals per variant (overrides the config)")
    add_execution_options(p, "sweep folder", "a different sweep's results")
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    from .run.execute import run_sweep
    from .run.sweep import default_sweep, load_sweep

    sweep = load_sweep(args.config) if args.config else default_sweep()
    sweep = sweep.replace(deals=args.deals, seed=args.seed)
    report = execute(args, sweep.name, functools.partial(run_sweep, sweep))
    if report is None:
        return 130
    runs = dict(report.runs)
    table = [("variant", "changes", "games", "this run")]
    for v in sweep.variants:
        r = runs.get(v.name)
        mark = " (baseline)" if v.name == sweep.baseline else ""
        table.append((v.name + mark, v.describe(), str(r.games_done if r else 0),
                      f"{r.games_run} in {r.seconds:.0f} s" if r else "-"))
    print("\n".join([f"{sweep.name}: {_count(len(sweep.variants), 'variant')} x {_count(sweep.base.deals, 'deal')} "
                     f"in {report.out} ({report.seconds:.0f} s)", "", text_table(table, left=2), "",
                     f"compare the variants: treasure-sim report {report.out}"]))
    return 0


# ----- report ----------------------------------------------------------------------------------------------
def add_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="figures and a markdown summary of a results directory",
        description="Write win shares, net money, head-to-head, ratings, seat advantage and money trajectories "
                    "as PNGs plus report.md, each estimate with its 95% interval over deals.")
    p.add_argument("dir", type=Path, help="a results directory written by `treasure-sim run`, or a sweep "
                                          "folder written by `treasure-sim sweep` (its variants compared)")
    p.add_argument("--out", type=Path, default=None, help="where to write (default: DIR/report)")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from .study.report import run_report

    try:
        path = run_report(args.dir, args.out)
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
