"""One entrant against each opponent, from heads-up result folders: paired by deal, finishing order and net, Holm.

Run: ``python experiments/head_to_head.py ENTRANT DIR [DIR ...]``, each DIR a heads-up run (``table_size = 2``,
``rotate = true``) of ENTRANT against one opponent, e.g. the folders of ``treasure-sim run`` on configs like::

    name = "search_vs_equity"
    deals = 200
    table_size = 2
    rotate = true
    [[entrants]]
    strategy = "search"
    [[entrants]]
    strategy = "equity"

For each folder it prints how often ENTRANT finished ahead (ties ½; the mean over deals of each deal's share, every
rotation of a deal one sample) and its raw net chips a game, each with its 95% interval and p-value, and the
p-values adjusted by Holm across the folders (one family per measure). "Beats" means ahead more often than not
(adjusted p < 0.05 and the share above ½). The numbers are read through the results store and computed with
`treasure_sim.study.stats`, the methods of every other figure.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from treasure_sim.run.store import read_games
from treasure_sim.study.stats import adjust, finish_comparisons, mean_interval, paired_ahead


def head_to_head(entrant: str, folder: Path) -> tuple[str, dict]:
    """(opponent, {ahead, net}: `Interval`s) of ``entrant`` in one heads-up folder."""
    games = read_games(folder, ["game_id", "deal_id", "entrant", "finish", "net"]).to_pandas()
    names = sorted(set(games["entrant"].astype(str)))
    if entrant not in names or len(names) != 2:
        raise SystemExit(f"{folder}: entrants {names}, not {entrant!r} and one opponent")
    opponent = next(n for n in names if n != entrant)
    code = (games["entrant"].astype(str) == opponent).to_numpy().astype(np.int64)  # entrant 0, opponent 1
    _, wins = finish_comparisons(games["deal_id"], games["game_id"], code, games["finish"], 2)
    ahead = paired_ahead(wins, [entrant, opponent])
    mine = games[games["entrant"].astype(str) == entrant].groupby("deal_id")["net"].mean()
    return opponent, {"ahead": (ahead.mean[0, 1], ahead.low[0, 1], ahead.high[0, 1], ahead.p_value[0, 1],
                                int(ahead.deals[0, 1])),
                      "net": mean_interval(mine.to_numpy())}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("entrant")
    p.add_argument("folders", nargs="+", type=Path)
    args = p.parse_args()
    rows = [head_to_head(args.entrant, f) for f in args.folders]
    p_ahead = adjust([r["ahead"][3] for _, r in rows])
    p_net = adjust([r["net"].p_value for _, r in rows])
    print(f"{args.entrant} heads up, paired by deal (95% intervals; p Holm-adjusted across {len(rows)} opponents)")
    print(f"{'opponent':>16} {'deals':>5} {'P(ahead) [95% CI]':>20} {'p adj':>8} {'net/game [95% CI]':>22} "
          f"{'p adj':>8}  verdict")
    for (opponent, r), pa, pn in zip(rows, p_ahead, p_net, strict=True):
        mean, low, high, _, deals = r["ahead"]
        net = r["net"]
        verdict = "beats" if pa < 0.05 and mean > 0.5 else "loses to" if pa < 0.05 else "not distinguishable"
        ahead = f"{mean:.2f} [{low:.2f}, {high:.2f}]"
        chips = f"{net.mean:+.1f} [{net.low:+.1f}, {net.high:+.1f}]"
        print(f"{opponent:>16} {deals:>5} {ahead:>20} {pa:>8.2g} {chips:>22} {pn:>8.2g}  {verdict}")

if __name__ == "__main__":
    main()
