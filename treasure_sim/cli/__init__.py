"""The ``treasure-sim`` command: the only package that knows argparse.

One ``add_<name>`` function per subcommand registers its options, one ``cmd_<name>`` runs it (``runs``:
run, sweep, verify; ``balance``: balance; ``reports``: report, bench; ``replay``: replay; ``play``: play;
``options``: what they share). Modules
that load pandas or matplotlib (report, analysis) are imported inside the command that needs them, so
``treasure-sim run`` and its forked workers never pay for them.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Sequence

from ..run.backends import RunError
from ..run.experiment import ConfigError
from ..run.store import ResultsError
from ..run.tournament import BotFailure
from .balance import add_balance
from .options import UsageError
from .play import add_play
from .replay import add_replay
from .reports import add_bench, add_report
from .runs import add_run, add_sweep, add_verify
from .tune import add_tune

SUBCOMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    add_run, add_sweep, add_balance, add_verify, add_tune, add_report, add_replay, add_bench, add_play)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="treasure-sim", description="Bot tournaments for Treasure Poker.")
    parser.add_argument("--verbose", "-v", action="store_true", help="show the traceback of an error too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code: 2 for bad input, 1 when a run could not go
    on, 130 after Ctrl-C or SIGTERM; an error is one line (its traceback only with --verbose)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error (2), already printed by argparse
        return int(exit_.code or 0)
    try:
        return args.func(args)
    except (UsageError, ConfigError, ResultsError) as err:
        return _fail(args, "error", err, 2)
    except (RunError, BotFailure, OSError) as err:  # the run could not go on; what it wrote stays valid
        return _fail(args, "failed", err, 1)


def _fail(args: argparse.Namespace, word: str, err: BaseException, code: int) -> int:
    if args.verbose:
        traceback.print_exception(err)
        if isinstance(err, BotFailure) and err.bot_traceback:  # from a worker: the bot's own frames, as text
            print(err.bot_traceback, file=sys.stderr, end="")
    print(f"treasure-sim {args.command}: {word}: {err}", file=sys.stderr)
    return code


__all__ = ["UsageError", "build_parser", "main"]
