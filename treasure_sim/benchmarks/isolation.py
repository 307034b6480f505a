"""Benchmark isolated bots: decisions per second in-process vs through the line protocol.

Run: ``treasure-sim bench isolation [--hands 2000] [--repeat 3]``. Four seats; the same games with every
bot in-process, every bot a Python `Strategy` in its own process (``isolate = true``), and every bot the
example program that does not import treasure-sim (``docs/examples/line_bot.py``). Wall-clock rates,
because the work is split between this process and the bots' (best of ``--repeat``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from treasure_sim import RuleSet, Strategy, play_game
from treasure_sim.bots.isolated import IsolatedBot, python_command, stop_all
from treasure_sim.bots.loader import load_strategy

LINE_BOT = Path(__file__).parents[2] / "docs" / "examples" / "line_bot.py"


def _setups() -> dict[str, Callable[[], list[Strategy]]]:
    return {
        "in-process": lambda: [load_strategy("calling_station") for _ in range(4)],
        "isolated Python": lambda: [IsolatedBot(python_command("calling_station", {})) for _ in range(4)],
        "line protocol bot": lambda: [IsolatedBot([sys.executable, str(LINE_BOT)]) for _ in range(4)],
    }


def run(make: Callable[[], list[Strategy]], hands: int) -> dict[str, float]:
    done = decisions = games = 0
    start = time.perf_counter()
    while done < hands:
        bots = make()
        result = play_game(bots, RuleSet(max_hands=100), seed=games)
        for bot in bots:
            if isinstance(bot, IsolatedBot):
                bot.close()
        done += result.hands_played
        decisions += sum(result.decisions)
        games += 1
    return {"hands": done, "decisions": decisions, "wall": time.perf_counter() - start}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="treasure-sim bench isolation", description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per setup (whole games)")
    parser.add_argument("--repeat", type=int, default=3, help="report the best of this many runs")
    args = parser.parse_args(argv)
    base = None
    try:
        for name, make in _setups().items():
            run(make, 50)  # warm up: start the processes once, as a tournament worker does
            r = min((run(make, args.hands) for _ in range(args.repeat)), key=lambda x: x["wall"])
            rate = r["decisions"] / r["wall"]
            base = base or rate
            print(f"{name:>18}: {r['decisions']:,} decisions in {r['wall']:.2f} s: {rate:,.0f} decisions/s, "
                  f"{r['hands'] / r['wall']:,.0f} hands/s ({base / rate:.1f}x the in-process time per decision)")
    finally:
        stop_all()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
