"""Balance metrics of a rule sweep: what each variant changes, per deal, with intervals and paired differences.

Every metric is first reduced to one value per deal (all rotations and hands of a deal together), then
summarised by `stats.mean_interval`, the Student-t interval over deals. Variants of a sweep share
their seeds (common random numbers), so a variant is compared with the baseline by the *paired*
difference: for each deal, variant minus baseline, then a t interval over deals. Where the variant
deals the same cards (same deck, same seats) the pairs share card luck and the interval is much
tighter; where it does not (another number of Jokers or seats) the pairs are independent draws and the
interval is still valid, only no tighter. The Treasure regressions use ordinary least squares with
standard errors clustered by deal (CR1), which handle the same pairing.

Every ▲/▼ of a sweep comes from a p-value adjusted for the whole family of differences the report tests
(`flag_family`: Holm by default, Benjamini–Hochberg as an option); raw p-values stay in the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..game.evaluator import CATEGORY_NAMES
from ..run.store import END_REASONS, SUIT_COLUMNS, Manifest, read_games, read_hands, read_manifest
from .stats import (
    DEFAULT_NET,
    LEVEL,
    JointTest,
    adjust,
    direction_flags,
    mean_interval,
    ols_clustered,
    seat_test,
    t_p_value,
    t_quantile,
)

SUITS = {"s": "♠ spades", "c": "♣ clubs", "h": "♥ hearts", "d": "♦ diamonds"}
NO_SHOWDOWN = "no showdown"
REFERENCE = "random"  # the skill gap is measured against the entrants playing this strategy
GAME_COLUMNS = ("game_id", "deal_id", "seat", "n_players", "entrant", "strategy", "final_money", "net",
                "win_share", "hands_played", "end_reason", *SUIT_COLUMNS.values())
HAND_COLUMNS = ("game_id", "hand_no", "players_at_showdown", "winning_category", "treasure_taker", "new_treasure",
                "treasure_taken", "spades_moved", "hearts_drawn", "steals", "void", "money_after")

# metric groups, in report order: (key, title, what a value is)
GROUPS = {
    "length": ("Game length", "hands per game"),
    "end": ("How games end", "share of games"),
    "seat": ("Seat advantage", "win share of the seat (0 = first dealer, 1 = first to act)"),
    "skill": ("Skill gap", "mean net chips per game, entrant minus random, per deal"),
    "showdown": ("What decides a pot", "share of pots (non-void hands)"),
    "ability": ("Ability use", "per hand"),
    "fold": ("Chips given up by the last folder", "chips, in the hand the Treasure was taken"),
    "value_money": ("Treasures held at the end and final money (an association, not a value)",
                    "chips of final money per Treasure held at the end"),
    "value_win": ("Treasures held at the end and win share (an association, not a value)",
                  "win share per Treasure held at the end"),
}
# values that cannot leave these bounds get their interval clipped to them, as `analysis` does for win shares
BOUNDS = {"length": (0, np.inf), "end": (0, 1), "seat": (0, 1), "showdown": (0, 1), "ability": (0, np.inf),
          "fold": (0, np.inf)}
METHOD = ("95% Student-t interval over per-deal values (all rotations and hands of a deal = one sample); "
          "vs baseline: the same interval over per-deal paired differences")
# the metrics a designer looks at first: the sweep report's headline, and what `sweep --until-ci` watches
HEADLINE = (("length", "hands per game"), ("end", "hand_limit"), ("seat", "seat 0"), ("seat", "seat 1"),
            ("showdown", "no showdown"), ("showdown", "five of a kind"), ("ability", "steals"), ("fold", "all"))
REGRESSION_METHOD = ("OLS of the outcome on the Treasures of each suit held at the end, with entrant fixed effects; "
                     "standard errors clustered by deal (CR1), t with deals - 1 degrees of freedom; differences "
                     "vs baseline from the stacked, fully interacted regression, clustered by deal the same way")


# ----- per-deal values ---------------------------------------------------------------------------------------
def _long(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """Mean of every metric column per deal (NaN skipped), as long rows (deal_id, group, metric, value)."""
    per = frame.groupby("deal_id", sort=True).mean()
    out = per.reset_index().melt(id_vars="deal_id", var_name="metric", value_name="value").dropna(subset="value")
    return out.assign(group=group)[["deal_id", "group", "metric", "value"]]


def _by_seat(values: pd.Series) -> np.ndarray:
    """Ragged per-seat lists (money_after) as a 2-D array; seats a row lacks are NaN."""
    rows = values.to_numpy()
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), np.nan)
    for n in {len(r) for r in rows}:
        mask = np.fromiter((len(r) == n for r in rows), bool, len(rows))
        if n:
            out[mask, :n] = np.stack(rows[mask])
    return out


def game_values(games: pd.DataFrame) -> pd.DataFrame:
    """Per deal: hands per game, the share of each end reason, and each seat's win share."""
    one = games.drop_duplicates("game_id")
    reason = one["end_reason"].astype(str)
    ends = pd.DataFrame({"deal_id": one["deal_id"]} | {r: (reason == r).astype(float) for r in END_REASONS})
    seats = games.pivot_table(index="deal_id", columns="seat", values="win_share", aggfunc="mean", observed=True)
    seats = seats.rename(columns=lambda s: f"seat {s}").reset_index()
    return pd.concat([_long(one[["deal_id", "hands_played"]].rename(columns={"hands_played": "hands per game"}),
                            "length"), _long(ends, "end"), _long(seats, "seat")], ignore_index=True)


def skill_gap(games: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Per deal: each entrant's mean net minus that of the ``reference`` strategy's entrants (long rows).

    An entrant's seats and rotations in a deal are averaged first; several reference entrants are pooled.
    Empty when no entrant plays ``reference`` (there is nothing to measure the gap against). Uses the
    luck-adjusted net when the games carry ``net_adjusted`` (`read_variant(..., net="adjusted")`).
    """
    games = games.assign(entrant=games["entrant"].astype(str), strategy=games["strategy"].astype(str))
    ref = games["strategy"] == reference
    if not ref.any():
        return pd.DataFrame(columns=["deal_id", "group", "metric", "value"])
    net = "net_adjusted" if "net_adjusted" in games.columns else "net"  # luck-adjusted when read that way
    base = games[ref].groupby("deal_id")[net].mean()
    others = games[~ref].pivot_table(index="deal_id", columns="entrant", values=net, aggfunc="mean")
    gaps = others.sub(base, axis=0).rename(columns=lambda e: f"{e} − {reference}").reset_index()
    return _long(gaps, "skill")


def hand_values(games: pd.DataFrame, hands: pd.DataFrame) -> pd.DataFrame:
    """Per deal: what decides pots, ability use per hand, and the chips the last folder gave up.

    *Chips given up* is the last folder's stack before the hand minus after it, in a hand where a
    Treasure entered their zone: the ante and every bet they put in before folding (rulings §5).
    It is split by the suit of the card taken, and shown for hands whose New Treasure was a Joker.
    The Hearts chain is the number of cards drawn with Hearts in a hand with any draw, all seats together.
    """
    one = games.drop_duplicates("game_id")
    deal = dict(zip(one["game_id"], one["deal_id"], strict=True))
    start = dict(zip(one["game_id"], one["final_money"] - one["net"], strict=True))
    h = hands.sort_values(["game_id", "hand_no"], kind="stable").reset_index(drop=True)
    h = h.assign(deal_id=h["game_id"].map(deal))
    played = h[~h["void"].astype(bool)]
    shown = played["players_at_showdown"] > 0
    decided = played["winning_category"].astype(object).where(shown, NO_SHOWDOWN)
    showdown = pd.DataFrame({"deal_id": played["deal_id"]} | {c: (decided == c).astype(float) for c in
                                                              (NO_SHOWDOWN, *reversed(CATEGORY_NAMES))})
    drawn = played["hearts_drawn"].astype(float)
    ability = pd.DataFrame({
        "deal_id": played["deal_id"], "Spades moved": played["spades_moved"].astype(float),
        "Hearts cards drawn": drawn, "hands with a Hearts draw": (drawn > 0).astype(float),
        "Hearts chain (cards drawn when any)": drawn.where(drawn > 0), "steals": played["steals"].astype(float),
        "Treasures taken": played["treasure_taken"].notna().astype(float)})
    after = _by_seat(h["money_after"])
    before = np.roll(after, 1, axis=0)
    first = (h["hand_no"] == 1).to_numpy()
    before[first] = h.loc[first, "game_id"].map(start).to_numpy(dtype=float)[:, None]
    took = np.flatnonzero(h["treasure_taken"].notna().to_numpy())
    seat = h["treasure_taker"].to_numpy(dtype=float)[took].astype(int)
    taken = h.iloc[took]
    cost = pd.Series(before[took, seat] - after[took, seat], index=taken.index)
    suit = taken["treasure_taken"].astype(str).str[-1]
    joker = taken["new_treasure"].astype(str).isin(("RJ", "BJ"))
    fold = pd.DataFrame({"deal_id": taken["deal_id"], "all": cost} | {
        name: cost.where(suit == s) for s, name in SUITS.items()} | {"New Treasure a Joker": cost.where(joker)})
    return pd.concat([_long(showdown, "showdown"), _long(ability, "ability"), _long(fold, "fold")],
                     ignore_index=True)


def deal_values(games: pd.DataFrame, hands: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Every per-deal metric of one variant: long rows (deal_id, group, metric, value)."""
    return pd.concat([game_values(games), skill_gap(games, reference), hand_values(games, hands)],
                     ignore_index=True)


# ----- comparing variants ------------------------------------------------------------------------------------
def compare(values: Mapping[str, pd.DataFrame], baseline: str, level: float = LEVEL, multiplicity: str = "holm"
            ) -> pd.DataFrame:
    """Per (group, metric, variant): mean with its interval over deals, and the paired difference to ``baseline``.

    ``values`` maps a variant to its `deal_values`. The difference pairs the deals both variants hold
    (same deal_id = same seed); ``p`` is its t-test, ``flag`` ▲ or ▼ where the p-value adjusted over these
    cells (``multiplicity``: holm or bh) is below 0.05 (`sweep_balance` adjusts over the whole report).
    """
    if baseline not in values:
        raise KeyError(f"baseline {baseline!r} is not among the variants {', '.join(values)}")
    base = values[baseline].set_index(["group", "metric", "deal_id"])["value"].sort_index()
    rows = []
    for variant, frame in values.items():
        for key, part in frame.groupby(["group", "metric"], sort=False):
            group, metric = str(key[0]), str(key[1])
            mean, low, high = mean_interval(part["value"], level)
            lo, hi = BOUNDS.get(group, (-np.inf, np.inf))
            low, high = max(low, lo), min(high, hi)  # NaN (one deal) stays NaN
            row = {"group": group, "metric": metric, "variant": variant, "mean": mean, "ci_low": low,
                   "ci_high": high, "deals": len(part)}
            if variant != baseline:
                paired = part.set_index("deal_id")["value"] - base.get((group, metric), pd.Series(dtype=float))
                diff = mean_interval(paired.dropna(), level)
                row |= {"diff": diff.mean, "diff_low": diff.low, "diff_high": diff.high, "diff_deals": diff.n,
                        "diff_sd": diff.sd, "p": diff.p_value}
            rows.append(row)
    return flag_family([_ordered(pd.DataFrame(rows), list(values))], multiplicity)[0]


def flag_family(tables: list[pd.DataFrame], multiplicity: str = "holm") -> list[pd.DataFrame]:
    """Adjust the ``p`` column of all ``tables`` together (one family) and set ``p_adjusted`` and ▲/▼ ``flag``.

    The flag's direction is the sign of ``diff`` (a difference vs the baseline) or, without it, of ``net``.

    Each returned table carries ``attrs["family"]`` (the number of tests) and ``attrs["multiplicity"]``.
    """
    sizes = [len(t) for t in tables]
    p = np.concatenate([t["p"].to_numpy(dtype=float) if "p" in t else np.full(len(t), np.nan) for t in tables])
    adjusted = adjust(p, multiplicity)
    family = int(np.isfinite(p).sum())
    out, start = [], 0
    for t, n in zip(tables, sizes, strict=True):
        t = t.copy()
        t["p_adjusted"] = adjusted[start:start + n]
        column = "diff" if "diff" in t else "net"
        t["flag"] = direction_flags(t[column] if column in t else np.full(n, np.nan), t["p_adjusted"])
        t.attrs |= {"family": family, "multiplicity": multiplicity}
        out.append(t)
        start += n
    return out


def _ordered(out: pd.DataFrame, variants: list[str]) -> pd.DataFrame:
    """Order rows by group, metric (first seen) and variant (sweep order); cells without a difference get NaN."""
    for col in ("diff", "diff_low", "diff_high", "p"):
        if col not in out:
            out[col] = np.nan
    keys = list(zip(out["group"], out["metric"], strict=True))
    first = {key: i for i, key in reversed(list(enumerate(keys)))}  # metrics in the order they first appear
    out["_g"] = out["group"].map({g: i for i, g in enumerate(GROUPS)}).fillna(len(GROUPS))
    out["_m"] = [first[key] for key in keys]
    out["_v"] = out["variant"].map({v: i for i, v in enumerate(variants)})
    out = out.sort_values(["_g", "_m", "_v"], kind="stable").drop(columns=["_g", "_m", "_v"])
    return out.reset_index(drop=True)


# ----- what a Treasure is worth ------------------------------------------------------------------------------
def _design(games: pd.DataFrame, entrants: list[str]) -> np.ndarray:
    """Intercept, the four suit counts, then one dummy per entrant but the first (entrant fixed effects)."""
    label = games["entrant"].astype(str).to_numpy()
    dummies = [(label == e).astype(float) for e in entrants[1:]]
    return np.column_stack([np.ones(len(games)), *(games[c].to_numpy(dtype=float) for c in SUIT_COLUMNS.values()),
                            *dummies])


def suit_values(games: Mapping[str, pd.DataFrame], baseline: str, level: float = LEVEL, multiplicity: str = "holm"
                ) -> pd.DataFrame:
    """Per variant and suit: final money and win share per Treasure of that suit held at the end, vs baseline.

    An association, not a controlled effect: players who hold more Treasures may differ in other ways
    (the entrant fixed effects remove the differences between bots). A suit whose ability a variant
    turns off still shows what holding its cards is worth without the power.
    """
    entrants = sorted(set().union(*(g["entrant"].astype(str).unique() for g in games.values())))
    rows = []
    for outcome, group in (("final_money", "value_money"), ("win_share", "value_win")):
        base = games[baseline]
        for variant, g in games.items():
            beta, se, df = ols_clustered(_design(g, entrants), g[outcome], g["deal_id"].to_numpy())
            diff = np.full(len(SUITS), np.nan), np.full(len(SUITS), np.nan), 0
            if variant != baseline:
                common = np.intersect1d(base["deal_id"].unique(), g["deal_id"].unique())
                b, v = base[base["deal_id"].isin(common)], g[g["deal_id"].isin(common)]
                xb, xv = _design(b, entrants), _design(v, entrants)
                x = np.vstack([np.hstack([xb, np.zeros_like(xb)]), np.hstack([xv, xv])])
                y = np.r_[b[outcome].to_numpy(dtype=float), v[outcome].to_numpy(dtype=float)]
                d_beta, d_se, d_df = ols_clustered(x, y, np.r_[b["deal_id"].to_numpy(), v["deal_id"].to_numpy()])
                k = xb.shape[1]
                diff = d_beta[k + 1:k + 5], d_se[k + 1:k + 5], d_df
            crit, d_crit = t_quantile(level, df), t_quantile(level, diff[2])
            for i, name in enumerate(SUITS.values()):
                rows.append({"group": group, "metric": name, "variant": variant, "mean": beta[1 + i],
                             "ci_low": beta[1 + i] - crit * se[1 + i], "ci_high": beta[1 + i] + crit * se[1 + i],
                             "deals": df + 1, "diff": diff[0][i], "diff_low": diff[0][i] - d_crit * diff[1][i],
                             "diff_high": diff[0][i] + d_crit * diff[1][i], "se": se[1 + i],
                             "p": float(t_p_value(diff[0][i], diff[1][i], diff[2]))})
    return flag_family([_ordered(pd.DataFrame(rows), list(games))], multiplicity)[0]


def fold_value(compared: pd.DataFrame, values: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """Per variant and suit: chips the last folder gave up, what the Treasure is worth, and worth minus cost.

    *Worth* is the suit's final-money coefficient (`suit_values`), *cost* the mean chips given up in the
    hand the Treasure of that suit was taken (`hand_values`). The interval of worth − cost combines the
    two standard errors as if independent (they come from different rows: the Treasure's hand and the
    game's end), with the regression's degrees of freedom. Above zero: those who folded for that suit ended
    richer on average, an association (the causal value of a Treasure comes from endowments, `causal`).
    """
    cost = {(r["variant"], r["metric"]): r for r in compared[compared["group"] == "fold"].to_dict("records")}
    rows = []
    for w in values[values["group"] == "value_money"].to_dict("records"):
        variant, suit = w["variant"], w["metric"]
        c = cost.get((variant, suit))
        if c is None:
            continue
        c_se = (c["ci_high"] - c["mean"]) / t_quantile(level, int(c["deals"]) - 1) if c["deals"] > 1 else np.nan
        net, se = w["mean"] - c["mean"], float(np.hypot(w["se"], c_se))
        half = t_quantile(level, int(w["deals"]) - 1) * se
        rows.append({"variant": variant, "suit": suit, "cost": c["mean"], "cost_low": c["ci_low"],
                     "cost_high": c["ci_high"], "worth": w["mean"], "worth_low": w["ci_low"],
                     "worth_high": w["ci_high"], "net": net, "net_low": net - half, "net_high": net + half,
                     "p": float(t_p_value(net, se, int(w["deals"]) - 1))})
    return flag_family([pd.DataFrame(rows)])[0] if rows else pd.DataFrame(rows)


# ----- a sweep folder ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Balance:
    """Everything the sweep report shows: per-metric comparisons, Treasure values, the fold trade-off, seat tests.

    The ▲/▼ flags of ``compared``, ``values`` and ``fold`` are one family of ``family`` tests adjusted by
    ``multiplicity`` (holm or bh).
    """

    manifest: Manifest
    baseline: str
    variants: tuple[str, ...]
    compared: pd.DataFrame
    values: pd.DataFrame
    fold: pd.DataFrame
    seat_tests: dict[str, JointTest]
    multiplicity: str = "holm"
    family: int = 0
    net: str = DEFAULT_NET  # the skill gap's net chips: raw or luck-adjusted


def read_variant(path: str | Path, net: str = DEFAULT_NET) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The games and hands columns the metrics need, of one variant's results folder; with ``net="adjusted"``
    also the luck adjustment's columns (`luck.add_adjusted`), which the skill gap then uses."""
    if net != "adjusted":
        return read_games(path, GAME_COLUMNS).to_pandas(), read_hands(path, HAND_COLUMNS).to_pandas()
    from .luck import add_adjusted

    games = add_adjusted(read_games(path, (*GAME_COLUMNS, "table_id")).to_pandas(), path)
    return games, read_hands(path, HAND_COLUMNS).to_pandas()


def _variants(sweep_dir: Path, net: str = DEFAULT_NET) -> tuple[Manifest, dict[str, tuple[pd.DataFrame, pd.DataFrame]]]:
    """The sweep manifest and (games, hands) of every variant with games on disk, in sweep order."""
    manifest = read_manifest(sweep_dir)
    if manifest is None or manifest.kind != "sweep":
        raise ValueError(f"{sweep_dir} is not a sweep folder: {sweep_dir / 'sweep.json'} is missing")
    tables = {}
    for v in manifest.variants:
        variant = read_manifest(sweep_dir / v.dir)
        if variant is not None and variant.games_done:  # else not started yet
            games, hands = read_variant(sweep_dir / v.dir, net)
            if v.changes.get("deals"):  # its own first deals (the folder may be an earlier variant's, with more)
                games = games[games["deal_id"] < v.changes["deals"]].reset_index(drop=True)
                hands = hands[hands["game_id"].isin(games["game_id"])].reset_index(drop=True)
            tables[v.name] = games, hands
    if manifest.baseline not in tables:
        raise ValueError(f"{sweep_dir}: the baseline variant {manifest.baseline!r} has no finished games yet")
    return manifest, tables


def sweep_balance(sweep_dir: str | Path, reference: str = REFERENCE, level: float = LEVEL,
                  multiplicity: str = "holm", net: str = DEFAULT_NET) -> Balance:
    """Load a sweep folder variant by variant (only the per-deal values are kept) and compare the variants.

    Every difference the report flags (metrics, Treasure values, worth − cost) is one family for ``multiplicity``.
    ``net="adjusted"``: the skill gap compares luck-adjusted net chips (docs/luck.md).
    """
    manifest, tables = _variants(Path(sweep_dir), net)
    per_deal = {name: deal_values(g, h, reference) for name, (g, h) in tables.items()}
    games = {name: g[["deal_id", "entrant", "final_money", "win_share", *SUIT_COLUMNS.values()]]
             for name, (g, _) in tables.items()}
    seats = {name: seat_test(g["win_share"], g["seat"], g["entrant"].astype(str), g["deal_id"])
             for name, (g, _) in tables.items()}
    baseline = manifest.baseline
    compared = compare(per_deal, baseline, level)
    values = suit_values(games, baseline, level)
    fold = fold_value(compared, values, level)
    compared, values, fold = flag_family([compared, values, fold], multiplicity)
    return Balance(manifest, baseline, tuple(tables), compared, values, fold, seats, multiplicity,
                   int(compared.attrs["family"]), net)


def paired_half_widths(sweep_dir: str | Path, metric: str | None = None, level: float = LEVEL,
                       net: str = DEFAULT_NET) -> dict[str, float]:
    """Half-width of every paired difference vs the baseline of ``metric`` (default: the `HEADLINE` metrics).

    What `treasure-sim sweep --until-ci` watches; keys are ``"metric: variant − baseline"``. An unknown
    metric raises KeyError naming the known ones. ``net="adjusted"``: skill gaps of luck-adjusted net.
    """
    manifest, tables = _variants(Path(sweep_dir), net)
    per_deal = {name: deal_values(g, h) for name, (g, h) in tables.items()}
    compared = compare(per_deal, manifest.baseline, level)
    if metric is None:
        keys = set(HEADLINE) | {k for k in zip(compared["group"], compared["metric"], strict=True) if k[0] == "skill"}
        chosen = compared[[k in keys for k in zip(compared["group"], compared["metric"], strict=True)]]
    else:
        chosen = compared[compared["metric"] == metric]
        if chosen.empty:
            raise KeyError(f"no metric {metric!r} in this sweep; known: {', '.join(dict.fromkeys(compared['metric']))}")
    chosen = chosen[chosen["variant"] != manifest.baseline]
    half = ((chosen["diff_high"] - chosen["diff_low"]) / 2).to_numpy(dtype=float)
    return {f"{m}: {v} − {manifest.baseline}": float(h)
            for m, v, h in zip(chosen["metric"], chosen["variant"], half, strict=True)}
