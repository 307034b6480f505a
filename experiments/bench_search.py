"""Cost of the search player: hands per CPU-second at a 4-seat table (one search seat and three built-in bots), at
each budget, beside the same table with `equity` in the search seat; the search seat's own share of the time and
its rollouts per searched decision.

Hands per second are counted in CPU seconds of this process (per core), on the card's rules. Budgets and the
baseline alternate game by game so machine noise hits them alike.

    python experiments/bench_search.py                       # budgets 8 24 48 96, 12 games each
    python experiments/bench_search.py --games 30 --budgets 48
"""

from __future__ import annotations

import argparse
import time

from treasure_sim import Game, RuleSet
from treasure_sim.bots.loader import load_strategy

FIELD = ("treasure_hunter", "equity", "rock")


class Timed:
    """Wraps a bot's methods to add up the CPU time spent in them."""

    def __init__(self, bot) -> None:
        self.spent = 0.0
        for name in ("act", "move_spades", "draw_heart", "choose_joker_treasure", "make_room", "steal"):
            method = getattr(bot, name)

            def timed(*args, _method=method, **kwargs):
                start = time.process_time()
                try:
                    return _method(*args, **kwargs)
                finally:
                    self.spent += time.process_time() - start

            setattr(bot, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--budgets", type=int, nargs="+", default=[8, 24, 48, 96])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = RuleSet()
    entries: list[tuple[str, int | None]] = [("equity (baseline)", None)] + [(f"search {b}", b) for b in args.budgets]
    totals = {label: [0.0, 0, 0.0, 0, 0] for label, _ in entries}  # cpu, hands, seat cpu, rollouts, searches
    for g in range(args.games):
        for label, budget in entries:
            first = load_strategy("equity") if budget is None else load_strategy("search", iterations=budget)
            timer = Timed(first)
            bots = [first, *(load_strategy(name) for name in FIELD)]
            start = time.process_time()
            result = Game(bots, rules, seed=args.seed + g).play()
            row = totals[label]
            row[0] += time.process_time() - start
            row[1] += result.hands_played
            row[2] += timer.spent
            row[3] += getattr(first, "rollouts", 0) if budget is not None else 0
            row[4] += getattr(first, "searches", 0) if budget is not None else 0
    print(f"{args.games} games per row, 4 seats: the first seat as named, then {', '.join(FIELD)}; card's rules")
    print(f"{'first seat':>18} {'hands/s':>8} {'CPU s/game':>10} {'hands/game':>10} {'seat share':>10} "
          f"{'rollouts/search':>15} {'ms/search':>9}")
    for label, _ in entries:
        cpu, hands, seat, rollouts, searches = totals[label]
        per = f"{rollouts / searches:.1f}" if searches else "-"
        ms = f"{1000 * seat / searches:.1f}" if searches else "-"
        print(f"{label:>18} {hands / cpu:8.1f} {cpu / args.games:10.2f} {hands / args.games:10.1f} "
              f"{seat / cpu:10.0%} {per:>15} {ms:>9}")


if __name__ == "__main__":
    main()
