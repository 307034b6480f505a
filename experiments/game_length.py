"""How long games last and how often they end by themselves, per sweep variant, side by side (issue 27).

    python experiments/game_length.py results/length_reference results/length_builtin
    python experiments/game_length.py results/reference_balance --arms base ladder.ante-add-25.iterations-100

Per folder (a sweep, a balance study or a single run) and variant: hands per game (Student-t interval over deals),
the median (percentile bootstrap over deals), the share of games that ended by themselves rather than at the hand
cap (`max_hands`; per deal, then a t interval over deals), and how the others ended. When two folders are given,
every variant they share is also compared, the first folder minus the second, paired by deal (same seed: the same
deal's cards at the start; the players differ, so the pairs are valid but not tight).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from treasure_sim.run.store import is_sweep_dir, read_manifest
from treasure_sim.study import targets
from treasure_sim.study.stats import mean_interval


def variants(folder: Path, arms: list[str] | None) -> dict[str, pd.DataFrame]:
    """The games of every variant of a sweep folder with games on disk (or of the run itself), by name."""
    if not is_sweep_dir(folder):
        return {folder.name: targets.load_games(folder)}
    manifest = read_manifest(folder)
    assert manifest is not None
    out = {}
    for v in manifest.variants:
        if arms and v.name not in arms:
            continue
        on_disk = read_manifest(folder / v.dir)
        if on_disk is not None and on_disk.games_done:
            games = targets.load_games(folder / v.dir)
            if v.changes.get("deals"):  # its own first deals (the folder may be an earlier arm's, with more)
                games = games[games["deal_id"] < v.changes["deals"]]
            out[v.name] = games
    return out


def row(folder: str, name: str, games: pd.DataFrame) -> dict:
    mean, median, natural = targets.mean_hands(games), targets.median_hands(games), targets.natural_end(games)
    ends = games.drop_duplicates("game_id")["end_reason"].astype(str).value_counts(normalize=True)
    return {"folder": folder, "variant": name, "games": games["game_id"].nunique(),
            "hands a game": f"{mean.value:.1f} [{mean.low:.1f}, {mean.high:.1f}]",
            "median": f"{median.value:.0f} [{median.low:.0f}, {median.high:.0f}]",
            "ended by themselves": f"{natural.value:.3f} [{natural.low:.3f}, {natural.high:.3f}]",
            "ends": ", ".join(f"{k} {v:.2f}" for k, v in ends.items())}


def per_deal(games: pd.DataFrame) -> pd.DataFrame:
    one = games.drop_duplicates("game_id")
    return pd.DataFrame({"hands": one.groupby("deal_id")["hands_played"].mean(),
                         "natural": (one["end_reason"].astype(str) != "hand_limit").groupby(one["deal_id"]).mean()})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="DIR", help="sweep, balance study or run folders")
    parser.add_argument("--arms", nargs="+", metavar="NAME", help="only these variants (arms) of each folder")
    args = parser.parse_args(argv)
    tables = {str(f): variants(f, args.arms) for f in args.folders}
    rows = [row(f, name, g) for f, vs in tables.items() for name, g in vs.items()]
    with pd.option_context("display.width", 200, "display.max_columns", None, "display.max_colwidth", 60):
        print(pd.DataFrame(rows).to_string(index=False))
        if len(tables) == 2:
            (first, a), (second, b) = tables.items()
            print(f"\n{first} minus {second}, paired by deal (95% Student-t interval over deals):")
            for name in [n for n in a if n in b]:
                da, db = per_deal(a[name]), per_deal(b[name])
                common = da.index.intersection(db.index)
                hands = mean_interval(da.loc[common, "hands"] - db.loc[common, "hands"])
                natural = mean_interval(da.loc[common, "natural"] - db.loc[common, "natural"])
                print(f"  {name}: hands a game {hands.mean:+.1f} [{hands.low:+.1f}, {hands.high:+.1f}]; ended by "
                      f"themselves {natural.mean:+.3f} [{natural.low:+.3f}, {natural.high:+.3f}]; {len(common)} deals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
