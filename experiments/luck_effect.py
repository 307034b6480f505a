"""How much the luck adjustment narrows the intervals, and what it costs (issue 14, item 4).

    python experiments/luck_effect.py RESULTS_DIR [--run-cpu SECONDS] [--settings "dict(max_samples=512)"]
    python experiments/luck_effect.py SWEEP_DIR --sweep

For a run: per entrant, the SD over deals of its per-deal mean net, raw and adjusted (with the coefficient 1 and
with the cross-fitted chip values of `luck.chip_values`), over all deals and within each lineup; the same for the
paired difference of every two entrants that share games; and the deals a +-1 chip 95% interval needs at that SD.
For a sweep: per variant and entrant, the SD of the per-deal difference to the baseline, raw and adjusted, for net
and for the skill gap (entrant minus random). CPU: the luck adjustment's process time per game, beside the run's
own CPU per game when given (``--run-cpu``: the run's user+system seconds, e.g. from ``/usr/bin/time``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from treasure_sim.study import luck
from treasure_sim.study.luck_hands import load
from treasure_sim.study.stats import stratified_interval


def adjusted(path: Path, settings: luck.Settings) -> tuple[pd.DataFrame, float, dict]:
    """The games of a folder adjusted both ways, and the luck computation's CPU seconds."""
    start = time.process_time()
    hands, games = load(path)
    events = luck.hand_events(hands, settings)
    cpu = time.process_time() - start
    out = luck.adjust(games.to_pandas(), luck.game_luck(hands, events))
    out["net_adjusted_1"] = out["net"] - out["luck"]
    out["entrant"] = out["entrant"].astype(str)
    return out, cpu, events.skipped


ESTIMATORS = {"raw": "net", "adjusted (coef 1)": "net_adjusted_1", "adjusted": "net_adjusted"}


def deals_for(sd: float, half_width: float = 1.0) -> int:
    return int(np.ceil((1.96 * sd / half_width) ** 2))


def spread(per_deal: pd.DataFrame, groups: list[str], strata: str | None = None) -> pd.DataFrame:
    """SD over deals of each estimator's per-deal value, per group; the cut in SD; deals for +-1 chip.

    With ``strata`` (the lineup), the SD is the one that gives the stratified interval's variance (sd^2 / deals),
    and ``cut vs plain raw`` compares it with the plain SD of raw net: the two levers together."""
    rows = []
    for key, part in per_deal.groupby(groups, observed=True):
        row = dict(zip(groups, key if isinstance(key, tuple) else (key,), strict=True), deals=len(part))
        for name, col in ESTIMATORS.items():
            row[f"sd {name}"] = (part[col].std() if strata is None else
                                 stratified_interval(part[col], part[strata]).sd)
        row["mean raw"], row["mean adjusted"] = part["net"].mean(), part["net_adjusted"].mean()
        row["SD cut"] = 1 - row["sd adjusted"] / row["sd raw"]
        if strata is not None:
            plain = part["net"].std()
            row["lineup cut (raw)"] = 1 - row["sd raw"] / plain
            row["cut vs plain raw"] = 1 - row["sd adjusted"] / plain
        row["deals ±1 raw"], row["deals ±1 adjusted"] = deals_for(row["sd raw"]), deals_for(row["sd adjusted"])
        rows.append(row)
    return pd.DataFrame(rows)


def run_tables(games: pd.DataFrame) -> dict[str, pd.DataFrame]:
    cols = list(ESTIMATORS.values())
    per = games.groupby(["entrant", "deal_id", "table_id"], observed=True)[cols].mean().reset_index()
    out = {"per entrant, all deals": spread(per, ["entrant"]),
           "per entrant and lineup": spread(per, ["entrant", "table_id"]),
           "per entrant, stratified by lineup (the summary's interval)": spread(per, ["entrant"], "table_id")}
    a = games[["game_id", "deal_id", "table_id", "entrant", *cols]]
    pairs = a.merge(a, on=["game_id", "deal_id", "table_id"], suffixes=("", "_b"))
    pairs = pairs[pairs["entrant"] < pairs["entrant_b"]]
    for c in cols:
        pairs[c] = pairs[c] - pairs[f"{c}_b"]
    pairs = pairs.rename(columns={"entrant_b": "opponent"})
    per_pair = pairs.groupby(["entrant", "opponent", "deal_id", "table_id"], observed=True)[cols].mean().reset_index()
    out["paired differences (entrant − opponent)"] = spread(per_pair, ["entrant", "opponent"])
    out["paired differences, stratified by lineup"] = spread(per_pair, ["entrant", "opponent"], "table_id")
    return out


def sweep_tables(sweep: Path, settings: luck.Settings) -> tuple[dict[str, pd.DataFrame], float, int]:
    record = json.loads((sweep / "sweep.json").read_text())
    variants, cpu, n_games = {}, 0.0, 0
    for v in record["variants"]:
        games, seconds, _ = adjusted(sweep / v["dir"], settings)
        variants[v["name"]] = games
        cpu += seconds
        n_games += games["game_id"].nunique()
    cols = list(ESTIMATORS.values())
    per = {name: g.groupby(["entrant", "deal_id"], observed=True)[cols].mean() for name, g in variants.items()}
    gaps = {}
    for name, g in variants.items():
        ref = g[g["entrant"].str.startswith("random")].groupby("deal_id")[cols].mean()
        gaps[name] = per[name].sub(ref, level="deal_id").drop(
            index=[e for e in per[name].index.get_level_values(0).unique() if e.startswith("random")], level=0)
    base = record["baseline"]
    tables = {}
    for what, table in (("net", per), ("skill gap (entrant − random)", gaps)):
        rows = []
        for name in variants:
            if name == base:
                continue
            diff = (table[name] - table[base]).dropna().reset_index().assign(variant=name)
            rows.append(diff)
        tables[f"{what}: variant − baseline, paired by deal"] = spread(pd.concat(rows), ["variant", "entrant"])
    return tables, cpu, n_games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--run-cpu", type=float, help="the run's own CPU seconds (for the cost ratio)")
    parser.add_argument("--settings", default="dict()", help="luck.Settings fields, as a Python dict expression")
    args = parser.parse_args()
    settings = luck.Settings(**eval(args.settings))  # an experiment script: the user types the expression
    print(f"load average {os.getloadavg()[0]:.2f}; settings {settings}")
    if args.sweep:
        tables, cpu, n_games = sweep_tables(args.dir, settings)
    else:
        games, cpu, skipped = adjusted(args.dir, settings)
        n_games = games["game_id"].nunique()
        tables = run_tables(games)
        print(f"left uncorrected: {skipped}")
    print(f"luck adjustment: {cpu:.1f} s CPU for {n_games} games = {1000 * cpu / n_games:.1f} ms per game"
          + (f"; the run: {1000 * args.run_cpu / n_games:.1f} ms per game, so +{cpu / args.run_cpu:.0%}"
             if args.run_cpu else ""))
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.precision", 2):
        for title, table in tables.items():
            print(f"\n{title}\n{table.to_string(index=False)}")
            for what in ("SD cut", "lineup cut (raw)", "cut vs plain raw"):
                if what in table:
                    cut = table[what]
                    print(f"{what}: median {cut.median():+.2f}, range {cut.min():+.2f} .. {cut.max():+.2f}")


if __name__ == "__main__":
    main()
