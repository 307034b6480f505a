"""One entrant's head-to-head results across several runs, Holm-adjusted across the comparisons (issue 27).

Each results folder is a match of the entrant against one opponent (e.g. ``treasure-sim run --bots search,equity
--deals 200``). Per opponent: the paired P(entrant finishes ahead) with its 95% interval and its p-value against
1/2, and the paired luck-adjusted net difference per game with its interval and p-value against 0 (the summary's
own figures, `study.summary.run_summary`); then both p-values Holm-adjusted over the family of every comparison
given (one family per metric).

    python experiments/h2h_holm.py /tmp/h2h_equity /tmp/h2h_rock ... --entrant search

A budget ladder names the entrant of each folder in turn (the higher rung of each comparison):

    python experiments/h2h_holm.py /tmp/ladder_4_20 /tmp/ladder_20_100 --entrant search-20 search-100
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treasure_sim.study.stats import adjust
from treasure_sim.study.summary import run_summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--entrant", nargs="+", default=["search"],
                        help="the entrant: one name for every folder, or one per folder in order")
    args = parser.parse_args()
    names = args.entrant if len(args.entrant) > 1 else args.entrant * len(args.dirs)
    if len(names) != len(args.dirs):
        parser.error(f"--entrant: give one name or one per folder ({len(args.dirs)}), not {len(names)}")
    rows = []
    for folder, entrant in zip(args.dirs, names, strict=True):
        summary = run_summary(folder)
        i = summary.paired.names.index(entrant)
        for other, mean, low, high, net in summary.head_to_head(entrant):
            j = summary.paired.names.index(other)
            rows.append((entrant, other, int(summary.paired.deals[i, j]), mean, low, high,
                         float(summary.paired.p_value[i, j]), net))
    p_ahead = adjust([r[6] for r in rows])
    p_net = adjust([r[7].p_value for r in rows])
    print(f"{' / '.join(dict.fromkeys(names))} head to head; Holm over {len(rows)} comparisons per metric")
    print(f"{'entrant':>16} {'opponent':>16} {'deals':>5} {'P(ahead) [95% CI]':>22} {'Holm p':>8} "
          f"{'net diff $/game [95% CI]':>28} {'Holm p':>8}")
    for (entrant, other, deals, mean, low, high, _, net), pa, pn in zip(rows, p_ahead, p_net, strict=True):
        print(f"{entrant:>16} {other:>16} {deals:5d} {mean:8.2f} [{low:.2f}, {high:.2f}] {pa:8.2g} "
              f"{net.mean:+10.1f} [{net.low:+.1f}, {net.high:+.1f}] {pn:8.2g}")


if __name__ == "__main__":
    main()
