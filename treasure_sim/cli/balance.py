"""`balance`: run a designer's balance study (restricted play, endowments, a skill ladder) and write its page."""

from __future__ import annotations

import argparse
import functools

from .options import add_execution_options, count, execute, positive, strategy_defaults


def add_balance(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "balance", help="what each power and each starting Treasure is worth, and skill depth, by intervention",
        description="Play a balance study (a config with [balance.powers], [balance.endowments] and/or "
                    "[balance.ladder]: docs/designer.md): every arm on the same deals, seats and opponents, "
                    "then write the designer's page (DIR/report/designer.md). Rerunning continues where it "
                    "stopped.")
    p.add_argument("config", metavar="CONFIG", help="balance study TOML, e.g. experiments/balance.toml")
    p.add_argument("--deals", type=positive, metavar="N",
                   help="deals of the base arm (overrides the config); no arm plays more")
    add_execution_options(p, "study folder", "a different study's results")
    p.add_argument("--no-report", action="store_true", help="only play the games (write the page later with "
                                                             "`treasure-sim report DIR`)")
    p.set_defaults(func=cmd_balance)


def cmd_balance(args: argparse.Namespace) -> int:
    from ..run.execute import run_sweep
    from ..run.studies import load_balance

    study = load_balance(args.config)
    study = study.replace(deals=args.deals, seed=args.seed, decision_timeout=args.decision_timeout,
                          untrusted=args.untrusted or None)
    same = study.same_games()
    games = sum(study.experiment(v).games for v in study.variants if v.name not in same)
    reused = f" ({', '.join(f'{a} = {b}' for a, b in same.items())}: the same games, played once)" if same else ""
    print(f"{study.name}: {count(len(study.variants), 'arm')}, {games:,} games{reused}", flush=True)
    report = execute(args, study.name, functools.partial(run_sweep, study))
    if report is None:
        return 130
    print(f"{study.name}: played in {report.seconds:.0f} s into {report.out}")
    if args.no_report:
        print(f"the designer's page: treasure-sim report {report.out}")
        return 0
    from ..design.replays import Replays
    from ..run.store import ResultsError
    from ..study.report import run_report

    try:
        path = run_report(report.out, replayer=Replays(), defaults=strategy_defaults)
    except (FileNotFoundError, ValueError) as err:
        raise ResultsError(str(err)) from None
    verdict = path.parent / "verdict.txt"  # designer.VERDICT: the page's verdict, one line per question
    if verdict.exists():
        print("verdict:\n" + "".join(f"  {line}\n" for line in verdict.read_text(encoding="utf-8").splitlines()))
    print(f"the designer's page: {path}")
    return 0
