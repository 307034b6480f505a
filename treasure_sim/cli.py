"""The ``treasure-sim`` command: one function per subcommand, registered in SUBCOMMANDS."""

from __future__ import annotations

import argparse
import functools
import importlib
import math
import pkgutil
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .backends import EXECUTORS, RunError, RunReport, default_workers, run_experiment
from .experiment import ConfigError, default_experiment, load_experiment
from .records import ResultsError, iter_parts

Z95 = 1.959964  # two-sided 95% normal quantile


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
    """The table printed after a run: per entrant, games, win share and net money with 95% CIs."""
    head = (f"{name}: {report.games_done} games ({deals} deal{'s' * (deals != 1)} x {rotations} "
            f"rotation{'s' * (rotations != 1)}, {seats} seats, {entrants} entrants) in {report.out}")
    how = (f"this run: {report.games_run} games in {report.seconds:.1f} s on {report.workers} "
           f"{report.executor} worker{'s' * (report.workers != 1)}") if report.games_run else \
        "this run: nothing to do, every game was already on disk"
    rows = entrant_stats(report.out)
    header = ("strategy", "games", "win share (95% CI)", "net $ per game (95% CI)", "bot errors")
    table = [header] + [(r["entrant"], str(r["games"]), _ci(r["win"], r["win_ci"], "{:.3f}"),
                         _ci(r["net"], r["net_ci"], "{:+.2f}"), str(r["errors"])) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = [head, how, ""]
    for row in (table[0], tuple("-" * w for w in widths), *table[1:]):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells))
    n_deals = max((r["deals"] for r in rows), default=0)
    lines += ["", "95% CI: normal interval, mean ± 1.96 SE over deals as independent samples: each deal's",
              f"rotations averaged first (up to {n_deals} deals per entrant). games: seats played."]
    return "\n".join(lines)


def _ci(mean: float, half: float, fmt: str) -> str:
    return f"{fmt.format(mean)} ± {fmt.format(half).lstrip('+')}" if math.isfinite(half) else f"{fmt.format(mean)}"


def entrant_stats(out: Path) -> list[dict]:
    """Per entrant: games, mean win share and net, with 95% CIs over deals (the independent unit).

    A part holds whole deals, so each part is reduced to per-(entrant, deal) means as it is read:
    the parent keeps a few numbers per deal, never the games table (a dataset scan into pandas
    costs it 100+ MB at 100,000 games).
    """
    labels: dict[int, str] = {}
    games: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    deal_entrant, deal_win, deal_net = [], [], []
    for part in iter_parts(out, "games", ["entrant", "entrant_id", "deal_id", "win_share", "net", "errors"]):
        entrant, deal = part["entrant_id"].to_numpy(), part["deal_id"].to_numpy().astype(np.int64)
        span = int(entrant.max()) + 1
        keys, where = np.unique(deal * span + entrant, return_inverse=True)
        rows = np.bincount(where)
        deal_entrant.append(keys % span)
        deal_win.append(np.bincount(where, weights=part["win_share"].to_numpy()) / rows)
        deal_net.append(np.bincount(where, weights=part["net"].to_numpy()) / rows)
        ids, first, counts = np.unique(entrant, return_index=True, return_counts=True)
        part_errors = np.bincount(entrant, weights=part["errors"].to_numpy())
        for e, i, n in zip(ids.tolist(), first.tolist(), counts.tolist(), strict=True):
            labels.setdefault(e, part["entrant"][i].as_py())
            games[e] += n
            errors[e] += int(part_errors[e])
    if not labels:
        return []
    key_entrant, win, net = (np.concatenate(a) for a in (deal_entrant, deal_win, deal_net))
    stats = []
    for e, label in labels.items():
        mine = key_entrant == e
        n = int(mine.sum())
        row = {"entrant": label, "games": games[e], "errors": errors[e], "deals": n}
        for name, values in (("win", win[mine]), ("net", net[mine])):
            row[name] = float(values.mean())
            row[f"{name}_ci"] = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
        stats.append(row)
    return sorted(stats, key=lambda r: (-r["win"], r["entrant"]))


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
@dataclass(frozen=True, slots=True)
class Lazy:
    """A subcommand whose module (pandas, matplotlib: a second to load) is imported only when it runs."""

    name: str
    module: str  # has register(subparsers), like the add_* functions here
    help: str  # for `treasure-sim --help`, without importing the module

    def __call__(self, sub: argparse._SubParsersAction, command: str | None) -> None:
        if command == self.name:
            importlib.import_module(self.module).register(sub)
        else:
            sub.add_parser(self.name, help=self.help, add_help=False)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], object] | Lazy] = [
    add_run,
    Lazy("sweep", "treasure_sim.sweep", "play one experiment under several rule variants"),
    Lazy("report", "treasure_sim.report", "figures and a markdown summary of a results directory"),
    add_bench,
]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser, with the lazy subcommand ``command`` (the one being run) fully registered."""
    parser = argparse.ArgumentParser(prog="treasure-sim", description="Bot tournaments for Treasure Poker.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        if isinstance(add, Lazy):
            add(sub, command)
        else:
            add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (2 for bad input, never a traceback)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
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
