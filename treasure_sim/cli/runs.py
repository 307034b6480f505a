"""`run` and `sweep`: play an experiment or a sweep into results folders, by deals or until precise enough."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..run.execute import RunReport, run_experiment
from ..run.experiment import Experiment, default_experiment, load_experiment
from ..study.stats import DEFAULT_NET
from .options import (
    UsageError,
    add_error_share_option,
    add_execution_options,
    add_net_option,
    count,
    execute,
    positive,
    positive_float,
    seed,
)

# ----- run -------------------------------------------------------------------------------------------------
FIRST_BATCH = 100  # deals of the first batch of --until-ci without --deals (no stop on precision before 100)
MAX_DEALS = 5000  # --until-ci never plays more unless --max-deals says so


def add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a tournament (the embedded default without CONFIG)",
                       description="Play every game of an experiment, in parallel, into Parquet results; "
                                   "rerunning into the same folder continues where it stopped.")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="experiment TOML (default: the embedded default)")
    p.add_argument("--bots", metavar="SPEC,SPEC,...",
                   help="a match without a TOML: these bots (registry names or path/file.py:Class, comma-separated) "
                        "under the default experiment's rules, at one table of up to 4 seats a lineup, "
                        f"{MATCH_DEALS} deals unless --deals, into results/match-<bots>; prints the ranking and the "
                        "first bot's paired head-to-head against each of the others")
    p.add_argument("--deals", type=positive, metavar="N",
                   help="number of deals (overrides the config); with --until-ci, the first batch "
                        f"(default {FIRST_BATCH})")
    add_precision_options(p, "every entrant's interval of --metric", "strength, win_share or net "
                          "(default strength: the headline)")
    add_net_option(p)
    add_error_share_option(p)
    add_execution_options(p, "results folder", "results of a different config")
    p.add_argument("--histories", type=seed, default=0, metavar="N",
                   help="also write the full hand histories of the first N games (game_id < N) as PHH, one file "
                        "per game, in DIR/histories/ (docs/phh.md; not checked by verify); games already on disk "
                        "are replayed from their deals to write theirs")
    p.set_defaults(func=cmd_run)


def add_precision_options(p: argparse.ArgumentParser, what: str, metric: str) -> None:
    """--until-ci, --max-deals and --metric: shared by run and sweep."""
    p.add_argument("--until-ci", type=positive_float, metavar="W",
                   help=f"play deals in batches until {what} has half-width <= W, then stop (stopping on "
                        "precision keeps the intervals honest; stopping when a result looks significant does not)")
    p.add_argument("--max-deals", type=positive, metavar="N", help=f"with --until-ci: stop at N deals even if "
                                                                    f"wider (default {MAX_DEALS})")
    p.add_argument("--metric", metavar="NAME", help=f"with --until-ci: the metric to watch: {metric}")


def _check_precision_options(args: argparse.Namespace) -> None:
    if args.until_ci is None and (args.max_deals is not None or args.metric is not None):
        raise UsageError("--max-deals and --metric go with --until-ci W")


def _first_batch(args: argparse.Namespace, out: Path) -> int:
    """--until-ci starts from --deals (default FIRST_BATCH), or from what the folder already holds."""
    from ..run.store import read_manifest

    start = args.deals or FIRST_BATCH
    old = None if args.overwrite else read_manifest(out)
    if old is not None and old.kind == "run" and old.parts:
        start = max(start, max(p.end_deal for p in old.parts))
    elif old is not None and old.kind == "sweep":
        start = max(start, old.deals)
    return start


def _grow(args: argparse.Namespace, play: Callable[..., Any], widest: Callable[[Path], float], what: str
          ) -> Callable[..., Any]:
    """A ``start`` for `execute` that plays batches until --until-ci is met (`precision.until_precise`).

    ``play(deals, out, **options)`` brings the folder to ``deals`` deals and returns its report;
    ``widest(out)`` is the widest half-width of what is watched. Returns (reports, `precision.Stopped`).
    """
    from ..study.precision import until_precise

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


MATCH_DEALS = 100  # deals of a `run --bots` match unless --deals
MATCH_SEATS = 4


def match_experiment(bots: str, deals: int | None) -> Experiment:
    """The experiment of ``run --bots a,b,c``: the default's rules, seed and settings (and its params for a built-in
    it names), these bots at tables of up to 4 seats, named after them."""
    from ..run.experiment import ConfigError, check_name, parse_experiment

    specs = [b.strip() for b in bots.split(",")]
    if len(specs) < 2 or not all(specs):
        raise UsageError(f"--bots needs at least two comma-separated bots (a name or path/file.py:Class), got {bots!r}")
    base = default_experiment(check_strategies=False).to_dict()
    params = {e["strategy"]: e["params"] for e in base["entrants"]}
    data = base | {"name": "match", "deals": deals or MATCH_DEALS, "table_size": min(MATCH_SEATS, len(specs)),
                   "entrants": [{"strategy": s, "params": params.get(s, {})} for s in specs]}
    try:
        exp = parse_experiment(data, "--bots")
    except ConfigError as err:
        raise UsageError(str(err).replace("--bots: ", "--bots: ", 1)) from None
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", "match-" + "-".join(e.label for e in exp.entrants))
    if len(name) > 60:
        name = f"{name[:50]}-{exp.fingerprint()[:8]}"
    return exp.replace(name=check_name(name, "--bots", "results folder"))


def cmd_run(args: argparse.Namespace) -> int:
    _check_precision_options(args)
    if args.bots and args.config:
        raise UsageError("give CONFIG or --bots, not both")
    if args.bots:
        exp = match_experiment(args.bots, args.deals)
    else:
        exp = load_experiment(args.config) if args.config else default_experiment()
    exp = exp.replace(deals=args.deals, seed=args.seed, decision_timeout=args.decision_timeout,
                      untrusted=args.untrusted or None)
    if args.until_ci is None:
        report = execute(args, exp.name, functools.partial(run_experiment, exp, histories=args.histories))
        if report is None:
            return 130
        print(summary(report, exp.name, exp.deals, exp.rotations, exp.table_size, len(exp.entrants), args.net,
                      args.max_error_share, exp.entrants[0].label if args.bots else None))
        _histories(exp, report.out, args.histories)
        _trust(exp.entrants)
        return 0
    from ..study.summary import METRICS, run_summary

    metric = args.metric or "strength"
    if metric not in METRICS:
        raise UsageError(f"--metric must be one of {', '.join(METRICS)} for a run, got {metric!r}")

    def play(deals: int, out: Path, **options: Any) -> RunReport:
        return run_experiment(exp.replace(deals=deals), out, histories=args.histories, **options)

    def widest(out: Path) -> float:
        return max(run_summary(out, net=args.net, max_error_share=args.max_error_share).half_widths(metric).values())

    done = execute(args, exp.name, _grow(args, play, widest, metric.replace("_", " ")))
    if done is None:
        return 130
    reports, stopped = done
    last = dataclasses.replace(reports[-1], games_run=sum(r.games_run for r in reports),
                               seconds=sum(r.seconds for r in reports))
    print(summary(last, exp.name, stopped.deals, exp.rotations, exp.table_size, len(exp.entrants), args.net,
                  args.max_error_share, exp.entrants[0].label if args.bots else None))
    _histories(exp.replace(deals=stopped.deals), last.out, args.histories)
    _trust(exp.entrants)
    print(f"\n{stopped.reason(args.until_ci, metric.replace('_', ' '))}; batches (deals, widest half-width): "
          + ", ".join(f"{n} ({hw:.3g})" for n, hw in stopped.batches))
    return 0


def _trust(entrants: Any) -> None:
    """After a summary: name the entrants that played in-process from outside treasure-sim (trusted code)."""
    import textwrap

    from ..run.provenance import trust_note

    note = trust_note(entrants)
    if note:
        print("\n" + textwrap.fill(note, 100, subsequent_indent="  "))  # the summary fits a 100-column terminal


def summary(report: RunReport, name: str, deals: int, rotations: int, seats: int, entrants: int,
            net: str = DEFAULT_NET, max_error_share: float | None = None, first: str | None = None) -> str:
    """The text printed after a run: what was played, then the ranking by strength with win share and net (and,
    with ``first``, that entrant's paired head-to-head against each of the others)."""
    import textwrap

    from ..study.summary import MAX_ERROR_SHARE, run_summary
    from ..study.summary_text import WIDTH, head_to_head_text, render

    head = (f"{name}: {report.games_done} games ({count(deals, 'deal')} x {count(rotations, 'rotation')}, "
            f"{seats} seats, {entrants} entrants) in {report.out}")
    how = (f"this run: {report.games_run} games in {report.seconds:.1f} s on {report.workers} "
           f"{report.executor} worker{'s' * (report.workers != 1)}") if report.games_run else \
        "this run: nothing to do, every game was already on disk"
    s = run_summary(report.out, net=net, max_error_share=MAX_ERROR_SHARE if max_error_share is None else
                    max_error_share)
    lines = [*textwrap.wrap(head, WIDTH, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False),
             *textwrap.wrap(how, WIDTH), "", render(s)]
    if first is not None:
        lines += ["", head_to_head_text(s, first)]
    return "\n".join(lines)


def _histories(exp: Experiment, out: Path, n: int) -> None:
    """After a run with --histories N: write the histories of the first N games that have none yet (games played
    before this run) by replaying their deals, and say so."""
    if not n:
        return
    from ..run.histories import HISTORIES_DIR, replay_histories

    written, have = replay_histories(exp, out, n)
    print(f"\nhistories: {have} of the first {n} games in {out / HISTORIES_DIR}"
          + (f" ({written} written now by replaying their deals)" if written else ""))


# ----- sweep -----------------------------------------------------------------------------------------------
def add_sweep(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep", help="play one experiment under several rule variants (the embedded default without CONFIG)",
        description="Run the same entrants with the same seeds under every rule variant of a sweep config, one "
                    "results folder per variant plus sweep.json; rerunning continues where it stopped. Compare "
                    "the variants with `treasure-sim report DIR`.")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="sweep TOML (default: the embedded default sweep)")
    p.add_argument("--deals", type=positive, metavar="N",
                   help=f"deals per variant (overrides the config); with --until-ci, the first batch "
                        f"(default {FIRST_BATCH})")
    add_precision_options(p, "every paired difference vs the baseline of --metric", "a metric of the sweep "
                          "report, e.g. 'hands per game' or 'seat 0' (default: the report's headline metrics)")
    add_net_option(p)
    add_execution_options(p, "sweep folder", "a different sweep's results")
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    from ..run.execute import run_sweep
    from ..run.sweep import default_sweep, load_sweep

    _check_precision_options(args)
    sweep = load_sweep(args.config) if args.config else default_sweep()
    sweep = sweep.replace(deals=args.deals, seed=args.seed, decision_timeout=args.decision_timeout,
                          untrusted=args.untrusted or None)
    stopped = None
    if args.until_ci is None:
        report = execute(args, sweep.name, functools.partial(run_sweep, sweep))
    else:
        from ..study.balance import paired_half_widths

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
    same = sweep.same_games()
    table = [("variant", "changes", "games", "this run")]
    for v in sweep.variants:
        r = runs.get(v.name)
        mark = " (baseline)" if v.name == sweep.baseline else ""
        table.append((v.name + mark, v.describe(), str(r.games_done if r else 0),
                      f"the games of {same[v.name]}" if v.name in same else
                      f"{r.games_run} in {r.seconds:.0f} s" if r else "-"))
    from ..study.summary_text import text_table

    lines = [f"{sweep.name}: {count(len(sweep.variants), 'variant')} x {count(sweep.base.deals, 'deal')} "
             f"in {report.out} ({report.seconds:.0f} s)", "", text_table(table, left=2), ""]
    if stopped is not None:
        lines += [f"{stopped.reason(args.until_ci, 'paired difference')}; batches (deals, widest half-width): "
                  + ", ".join(f"{n} ({hw:.3g})" for n, hw in stopped.batches), ""]
    lines += [*sweep_verdict(report.out, args.net), ""]
    print("\n".join([*lines, f"compare the variants: treasure-sim report {report.out}"]))
    _trust(sweep.base.entrants)
    return 0


def read_deals(out: Path) -> int:
    from ..run.store import read_manifest

    manifest = read_manifest(out)
    return manifest.deals if manifest is not None else 0


def sweep_verdict(out: Path, net: str = DEFAULT_NET) -> list[str]:
    """The verdict the sweep report opens with: one line per variant against the baseline, with intervals."""
    from ..study import balance, verdict

    try:
        result = balance.sweep_balance(out, net=net)
    except (ValueError, ZeroDivisionError, ArithmeticError) as err:  # too few deals for the report's estimators
        return [f"verdict: not available ({type(err).__name__}: {err}); too few deals? (this sweep: "
                f"{read_deals(out)} a variant)"]
    return [f"verdict, each variant against {result.baseline} ({verdict.SHORT}):",
            *(f"  {line}" for line in verdict.sweep_lines(result.compared, list(result.variants), result.baseline))]


# ----- verify ----------------------------------------------------------------------------------------------
def add_verify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check a results or sweep folder against its checksums, running nothing",
                       description="Check every part of a results folder (or of each variant of a sweep folder) "
                                   "against the sizes and SHA-256 sums recorded when it was written. Exit code 0 "
                                   "when everything is intact, 1 when something is missing, truncated or changed "
                                   "(rerun the same run or sweep command to replay exactly those deals).")
    p.add_argument("dir", type=Path, help="a folder written by `treasure-sim run` or `treasure-sim sweep`")
    p.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    from ..run.store import is_sweep_dir, read_manifest, verify

    if is_sweep_dir(args.dir):
        manifest = read_manifest(args.dir)
        assert manifest is not None
        folders = list(dict.fromkeys(args.dir / v.dir for v in manifest.variants  # variants may share a folder
                                     if (args.dir / v.dir / "manifest.json").exists()))
    else:
        folders = [args.dir]
    checks = [verify(folder) for folder in folders]
    for check in checks:
        print(check.describe())
    return 0 if all(c.ok for c in checks) else 1
