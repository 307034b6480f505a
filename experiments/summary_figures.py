"""The figures behind the run summary's claims (issue 28), measured on a results folder of the default experiment.

    python experiments/summary_figures.py results/default

1. Strength intervals bootstrapped within lineups vs over all deals: half-widths, and the deals the plain bootstrap
   would need for the stratified precision (widths shrink as 1 / sqrt(deals): deals saved = 1 - (within / plain)^2).
2. What the luck adjustment corrects: the chance events of every hand by kind, and the share in pots of at least
   `luck.Settings.min_pot` chips (the ones corrected).
3. What seat rotations buy: the correlation of an entrant's nets across the rotations of a deal (its mean at that
   lineup removed), and how often a seat's hole cards coincide across rotations, by hand number.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from treasure_sim.run.store import read_games, read_manifest, read_part, read_seats
from treasure_sim.study import analysis as an
from treasure_sim.study import luck, stats
from treasure_sim.study.luck_hands import GAME_COLUMNS, HAND_COLUMNS, MIXED_COLUMNS, SEAT_COLUMNS, build


def strata_saving(folder: Path, replicates: int = 2000) -> None:
    games = an.load(folder, net="raw").games
    names, wins, lineup = an.comparisons(games, max_error_share=None)
    within = stats.fit_strengths(wins, names, replicates=replicates, strata=lineup)
    plain = stats.fit_strengths(wins, names, replicates=replicates)
    print(f"1. strength half-widths, {replicates} resamples ({within.deals} deals, {lineup.max() + 1} lineups)")
    print(f"   {'entrant':16} {'plain':>7} {'within':>7} {'deals saved':>11}")
    for i, name in enumerate(names):
        p, w = plain.half_width[i], within.half_width[i]
        print(f"   {name:16} {p:7.3f} {w:7.3f} {1 - (w / p) ** 2:11.1%}")
    saved = 1 - (within.half_width / plain.half_width) ** 2
    print(f"   the same precision with {saved.min():.0%} to {saved.max():.0%} fewer deals "
          f"(median {np.median(saved):.0%})")


def corrected_events(folder: Path) -> None:
    manifest = read_manifest(folder)
    assert manifest is not None and manifest.parts
    settings = luck.Settings()
    total: dict[str, int] = {}
    big: dict[str, int] = {}
    for part in manifest.parts:
        tables = {t: read_part(folder, part, t, cols) for t, cols in
                  (("games", GAME_COLUMNS), ("hands", HAND_COLUMNS), ("seats", SEAT_COLUMNS),
                   ("mixed", MIXED_COLUMNS)) if part.file(t) is not None}
        h = build(tables["seats"], tables["hands"], tables["games"], manifest.rules, manifest.seed,
                  tables.get("mixed"))
        idx = np.arange(len(h.deal))
        for kind in ("hole", "treasure", "flop", "turn", "river", "hearts"):
            if kind == "hearts":
                before, _, which, _ = luck._hearts_events(h, idx, True, settings.hearts_budget)
                if not len(which):
                    continue
            else:
                before, _, happened = luck._board_events(h, idx, kind, settings.hearts_budget)
                before = {k: v[happened] for k, v in before.items()}
            pot = before["commit"].sum(axis=1)
            total[kind] = total.get(kind, 0) + len(pot)
            big[kind] = big.get(kind, 0) + int((pot >= settings.min_pot).sum())
    print(f"\n2. chance events in pots of at least {settings.min_pot} chips (corrected), by kind")
    for kind in total:
        print(f"   {kind:9} {big[kind]:8,} of {total[kind]:9,} ({big[kind] / total[kind]:.1%})")
    print(f"   all       {sum(big.values()):8,} of {sum(total.values()):9,} "
          f"({sum(big.values()) / sum(total.values()):.1%})")


def rotations(folder: Path) -> None:
    games = read_games(folder, ["game_id", "deal_id", "rotation", "table_id", "entrant", "net"]).to_pandas()
    games["entrant"] = games["entrant"].astype(str)
    games["centred"] = games["net"] - games.groupby(["entrant", "table_id"])["net"].transform("mean")
    wide = games.pivot_table(index=["entrant", "deal_id"], columns="rotation", values="centred")
    pairs = [(a, b) for a in wide.columns for b in wide.columns if a < b]
    x = np.concatenate([wide[a].to_numpy() for a, _ in pairs])
    y = np.concatenate([wide[b].to_numpy() for _, b in pairs])
    r = np.corrcoef(x, y)[0, 1]
    per = [np.corrcoef(wide.loc[e][a], wide.loc[e][b])[0, 1] for e in wide.index.levels[0] for a, b in pairs]
    print(f"\n3. an entrant's nets across the rotations of a deal (its mean at the lineup removed): correlation "
          f"{r:+.3f} over {len(x):,} pairs of rotations (per entrant and pair of rotations: "
          f"{min(per):+.2f} to {max(per):+.2f})")
    seats = read_seats(folder, ["game_id", "hand_no", "seat", "hole"]).to_pandas()
    seats = seats.merge(games[["game_id", "deal_id", "rotation"]].drop_duplicates(), on="game_id")
    seats["cards"] = seats["hole"].map(lambda h: " ".join(sorted(h)) if h is not None else "")
    for hand in (1, 2, 10, 50):
        at = seats[seats["hand_no"] == hand]
        counts = at.groupby(["deal_id", "cards"]).size()
        shared = at.merge(counts.rename("n").reset_index(), on=["deal_id", "cards"])
        share = float((shared["n"] > 1).mean()) if len(shared) else float("nan")
        print(f"   hand {hand:>2}: {share:.0%} of seats hold hole cards another rotation of the deal also dealt "
              f"({len(at):,} seats)")


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "results/default")
    pd.set_option("display.width", 120)
    strata_saving(folder)
    corrected_events(folder)
    rotations(folder)
