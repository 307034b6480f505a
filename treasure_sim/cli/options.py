"""What the subcommands share: the error for bad command-line input, argument types, execution options."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..run.backends import EXECUTORS, default_workers
from ..run.execute import check_workers
from ..study.stats import DEFAULT_NET, NETS


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


positive = _whole_number(1)
seed = _whole_number(0)



def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text}")
    return value


def timeout_seconds(text: str) -> float:
    """An argparse type: a decision time limit, within the range a config allows."""
    from ..run.experiment import TIMEOUT_RANGE

    value = positive_float(text)
    low, high = TIMEOUT_RANGE
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected seconds from {low:g} to {high:g} (an hour per decision), "
                                         f"got {text}")
    return value


def add_execution_options(p: argparse.ArgumentParser, folder: str, replaced: str) -> None:
    """--workers, --out, --seed, --executor, --scheduler, --overwrite, --strict, --decision-timeout: run and sweep."""
    p.add_argument("--workers", type=positive, metavar="W", help=f"worker processes (default: one per core, "
                                                                   f"{default_workers()} here)")
    p.add_argument("--out", metavar="DIR", help=f"{folder} (default: results/<name>)")
    p.add_argument("--seed", type=seed, metavar="S", help="experiment seed (overrides the config)")
    p.add_argument("--executor", choices=EXECUTORS, default="process", help="local process pool, or dask")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --executor dask: an existing scheduler (tcp://host:port) instead of a LocalCluster")
    p.add_argument("--overwrite", action="store_true", help=f"replace {replaced} in DIR")
    p.add_argument("--strict", action="store_true",
                   help="stop at a bot's first error (an exception, an illegal answer, a timeout) with one line "
                        "naming the entrant, the game, the hand and the error; by default the engine plays the "
                        "default answer, records the error and goes on")
    p.add_argument("--untrusted", action="store_true",
                   help="run every entrant that is not a built-in bot in its own process, through the line protocol "
                        "(as the config's untrusted = true): an in-process bot is trusted code, able to read the "
                        "engine's state and the cards (docs/protocol.md)")
    p.add_argument("--decision-timeout", type=timeout_seconds, metavar="S",
                   help="seconds a bot may take per decision (overrides the config's decision_timeout; default 10); "
                        "a slower answer is replaced by the default one and recorded as an error")


def share(text: str) -> float:
    """An argparse type: a share between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text}")
    return value


def add_error_share_option(p: argparse.ArgumentParser) -> None:
    """--max-error-share: past it an entrant is not ranked; shared by run and report."""
    from ..study.summary import MAX_ERROR_SHARE

    p.add_argument("--max-error-share", type=share, default=MAX_ERROR_SHARE, metavar="S",
                   help=f"an entrant whose bot failed more than this share of its decisions (default "
                        f"{MAX_ERROR_SHARE:g}: 1%%) is not ranked: it is listed under the ranking with its error count "
                        f"and first error")


def add_net_option(p: argparse.ArgumentParser) -> None:
    """--net: luck-adjusted net chips (the default) or raw; shared by run, sweep and report."""
    p.add_argument("--net", choices=NETS, default=DEFAULT_NET,
                   help=f"net chips luck-adjusted (the luck of the cards at every chance event, and of actions drawn "
                        f"from a bot's declared chances, subtracted: same expected value, about 10-15%% narrower "
                        f"intervals; "
                        f"docs/luck.md says how it was validated) or raw, as won "
                        f"(default: {DEFAULT_NET})")


def execute(args: argparse.Namespace, name: str, start: Callable[..., Any]) -> Any:
    """Run ``start(out, workers=..., ...)`` with the execution options into --out (default results/<name>).

    Returns its report, or None after Ctrl-C (said on stderr: what is written stays, a rerun continues).
    """
    if args.scheduler and args.executor != "dask":
        raise UsageError("--scheduler needs --executor dask")
    out = Path(args.out) if args.out else Path("results") / name
    check_workers(args.workers, args.executor, args.scheduler)  # before anything starts: one line, not an OOM
    try:
        return start(out, workers=args.workers, executor=args.executor, scheduler=args.scheduler,
                     overwrite=args.overwrite, strict=args.strict)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the games written so far are in {out} and intact; run the same command again "
              f"to continue", file=sys.stderr)
        return None


def count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def strategy_defaults(spec: str) -> dict[str, Any]:
    """A strategy's constructor defaults (`bots.loader.parameters`), for the designer's page to name the reference
    player's budget when a config leaves it at its default; raises ValueError for a spec that cannot be loaded."""
    from ..bots import loader

    return loader.parameters(loader.resolve(spec))
