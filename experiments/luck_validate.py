"""Is the luck adjustment unbiased on real data? Issue 14, item 3 (a), (b), (c).

    python experiments/luck_validate.py centring RESULTS_DIR...  # (a) mean luck per event kind = 0, every hand
    python experiments/luck_validate.py agreement RESULTS_DIR    # (b) raw and adjusted mean net agree
    python experiments/luck_validate.py coverage --runs 40 --deals 25 --out /tmp/luck-cover   # (c)
    python experiments/luck_validate.py covered /tmp/luck-cover /tmp/luck-confirm   # (c) again, sets pooled
    python experiments/luck_validate.py null RESULTS_DIR... --kind flop --group clubs   # an exact null beside (a)

(a) corrects every chance event of every hand (hole cards and New Treasure included, whatever the pot) and shows,
per event kind and per group fixed before the event, the mean luck per event with its interval over deals.
(c) plays ``--runs`` small runs of the default experiment (seeds 1001, 1002, ...), builds each entrant's 95%
interval of mean net from each run, raw and adjusted, and counts how often they cover the long-run raw mean
(all runs' deals pooled); each also stratified by lineup (`stats.stratified_interval`, what the summary shows), and
adjusted for the cards alone beside the default (cards and actions). ``covered`` recounts existing sets together.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import default_experiment
from treasure_sim.study import luck, luck_checks
from treasure_sim.study.luck_hands import load
from treasure_sim.study.stats import mean_interval, stratified_interval


def centring(paths: list[Path]) -> None:
    """Every folder's events pooled (deals of different folders are different deals)."""
    start = time.process_time()
    frames, n_hands, skipped = [], 0, {}
    for k, path in enumerate(paths):
        hands, games = load(path)
        events = luck.hand_events(hands, luck.Settings(min_pot=0))
        frame = luck_checks.event_frame(hands, events, games.to_pandas())
        frames.append(frame.assign(deal_id=frame["deal_id"] + 10**7 * k))
        n_hands += hands.n_hands
        skipped = {key: skipped.get(key, 0) + v for key, v in events.skipped.items()}
    frame = pd.concat(frames, ignore_index=True)
    print(f"{len(paths)} folders, {n_hands} hands, {frame['deal_id'].nunique()} deals; {len(frame)} seat-events "
          f"corrected in {time.process_time() - start:.0f} s CPU; left out: {skipped}")
    frame["first to act"] = frame["position"] == 0
    for by in (["first to act"], ["entrant"], ["clubs"], ["hearts"]):
        table = luck_checks.centring(frame, by)
        print(f"\nby {by[0]}: {table['covers_0'].sum()} of {len(table)} intervals cover 0; smallest Holm-adjusted "
              f"p = {table['p_adjusted'].min():.3f}")
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


def null(paths: list[Path], kind: str, group: str, replicas: int) -> None:
    """The real hands beside ``replicas`` copies with ``kind``'s cards dealt again uniformly (an exact null)."""
    loaded = [load(path) for path in paths]

    def cells(replica: int) -> pd.DataFrame:
        frames = []
        for k, (hands, games) in enumerate(loaded):
            if replica >= 0:
                hands = luck_checks.redealt(hands, kind, np.random.default_rng([replica, k]))
            events = luck.hand_events(hands, luck.Settings(min_pot=0, kinds=(kind,)))
            frame = luck_checks.event_frame(hands, events, games.to_pandas())
            frames.append(frame.assign(deal_id=frame["deal_id"] + 10**7 * k))
        frame = pd.concat(frames, ignore_index=True)
        frame["first to act"] = frame["position"] == 0
        return luck_checks.centring(frame, [group]).set_index(group)

    real = cells(-1)
    null_means = pd.DataFrame({r: cells(r)["mean"] for r in range(replicas)})
    table = real[["events", "mean", "p"]].assign(
        null_mean=null_means.mean(axis=1), null_sd=null_means.std(axis=1),
        z=lambda t: (t["mean"] - t["null_mean"]) / t["null_sd"],
        as_extreme=[int((abs(null_means.loc[i] - null_means.loc[i].mean()) >= abs(t - null_means.loc[i].mean())).sum())
                    for i, t in real["mean"].items()])
    print(f"{kind}, by {group}: the real hands against {replicas} copies with the {kind} dealt again uniformly "
          f"from the deck the adjustment reads (mean luck per event)")
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))


def agreement(path: Path) -> None:
    table = luck_checks.agreement(luck.adjusted_games(path))
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"{table['covers_0'].sum()} of {len(table)} differences raw - adjusted cover 0")


CARDS_ONLY = luck.Settings(kinds=tuple(k for k in luck.KINDS if k != "action"))


def coverage(runs: int, deals: int, out: Path, first_seed: int = 1001) -> None:
    """Play ``runs`` small runs of the default experiment into OUT/run000... (a folder already complete is kept),
    then count coverage over every run folder in OUT (`covered`)."""
    base = default_experiment()
    for r in range(runs):
        run_experiment(base.replace(deals=deals, seed=first_seed + r), out / f"run{r:03d}", progress=False)
        print(f"run {r + 1}/{runs} done (load {os.getloadavg()[0]:.2f})", flush=True)
    covered([out])


def covered(sets: list[Path]) -> None:
    """Coverage of every entrant's 95% interval from each run folder (SET/run*) of the long-run raw mean of all
    of them pooled: raw, adjusted for the cards alone, adjusted for cards and actions; plain and stratified."""
    rows, games = [], []
    for r, path in enumerate(sorted(p for d in sets for p in d.glob("run*"))):
        g = luck.adjusted_games(path).assign(run=r)
        g["net_cards"] = luck.adjusted_games(path, CARDS_ONLY)["net_adjusted"].to_numpy()
        g["entrant"] = g["entrant"].astype(str)
        games.append(g)
        per = g.groupby(["entrant", "deal_id"])[["net", "net_cards", "net_adjusted"]].mean()
        table = g.groupby(["entrant", "deal_id"])["table_id"].first()
        for entrant, part in per.groupby(level="entrant"):
            for name, col in (("raw", "net"), ("adjusted, cards only", "net_cards"), ("adjusted", "net_adjusted")):
                for how, iv in (("", mean_interval(part[col])),
                                (", stratified", stratified_interval(part[col], table.loc[entrant]))):
                    rows.append({"run": r, "estimator": name + how, "entrant": entrant, "low": iv.low,
                                 "high": iv.high})
    pooled = pd.concat(games).groupby(["entrant", "run", "deal_id"])["net"].mean().groupby("entrant")
    truth = pooled.mean()
    print(f"long-run raw mean net per entrant ({len(games)} runs, {int(pooled.count().max())} deals):\n"
          f"{truth.round(2).to_string()}")
    print(f"its standard error: {(pooled.std() / pooled.count() ** 0.5).round(2).to_dict()}")
    intervals = pd.DataFrame(rows)
    show = lambda frame, header=True: frame.to_string(index=False, header=header,  # noqa: E731
                                                     float_format=lambda v: f"{v:.3f}")
    print(show(luck_checks.coverage(intervals, truth)))
    print("without random:")
    print(show(luck_checks.coverage(intervals[intervals["entrant"] != "random"], truth)))
    for entrant, part in intervals.groupby("entrant"):
        print(entrant, show(luck_checks.coverage(part, truth)[["estimator", "coverage", "median_half_width"]],
                            header=False).replace("\n", "; "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=("centring", "null", "agreement", "coverage", "covered"))
    parser.add_argument("dir", type=Path, nargs="*")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--deals", type=int, default=25)
    parser.add_argument("--first-seed", type=int, default=1001, help="coverage: the seed of the first run")
    parser.add_argument("--out", type=Path, default=Path("/tmp/luck-coverage"))
    parser.add_argument("--kind", choices=tuple(luck_checks.BOARD), default="flop", help="null: the event redealt")
    parser.add_argument("--group", choices=("clubs", "hearts", "entrant", "first to act"), default="clubs")
    parser.add_argument("--replicas", type=int, default=30)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.check == "coverage":
        coverage(args.runs, args.deals, args.out, args.first_seed)
    elif not args.dir:
        parser.error(f"{args.check} needs a results folder")
    elif args.check == "covered":
        covered(args.dir)
    elif args.check == "centring":
        centring(args.dir)
    elif args.check == "null":
        null(args.dir, args.kind, args.group, args.replicas)
    else:
        agreement(args.dir[0])


if __name__ == "__main__":
    main()
