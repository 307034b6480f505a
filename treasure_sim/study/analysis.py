"""Results analysis: lineup-adjusted strength, paired head-to-head, win rates, net money and seat advantage,
each with its uncertainty (every interval and test from `stats`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..run.store import Manifest, read_games, read_hands, read_manifest
from .stats import (
    DEFAULT_NET,
    LEVEL,
    STRATIFIED,
    FitCheck,
    JointTest,
    PairedAhead,
    Strengths,
    adjust,
    finish_comparisons,
    fit_check,
    fit_strengths,
    interval_table,
    paired_ahead,
    seat_test,
    stratified_interval,
    unit_columns,
)
from .stats import GAME_KEY as _GAME_KEY
from .summary import MAX_ERROR_SHARE
from .summary_text import FALLBACK


@dataclass(frozen=True)
class Results:
    """The Parquet tables of one or more results directories, with a ``run`` column naming the directory."""

    games: pd.DataFrame
    hands: pd.DataFrame
    manifests: dict[str, Manifest] = field(default_factory=dict)


# ---------------------------------------------------------------- loading


def load(dir_or_dirs: str | Path | Iterable[str | Path], *, allow_damaged: bool = False,
         net: str = DEFAULT_NET) -> Results:
    """Read the games and hands tables and the manifest of one results directory or several (stacked).

    Every part is verified against its checksum (`treasure_sim.run.store`): a damaged folder raises
    `DamagedResults` naming the part, unless ``allow_damaged`` (then the damaged parts are left out).
    ``net="adjusted"`` adds the luck adjustment's columns (`luck.add_adjusted`: ``luck``, ``luck_coef``,
    ``net_adjusted``, ...), which `mean_net` and `head_to_head` then use.
    """
    dirs = [Path(dir_or_dirs)] if isinstance(dir_or_dirs, str | Path) else [Path(d) for d in dir_or_dirs]
    if not dirs:
        raise ValueError("load() needs at least one results directory")
    names = [d.resolve().name for d in dirs]
    labels = names if len(set(names)) == len(names) else [str(d) for d in dirs]
    games, hands, manifests = [], [], {}
    for label, d in zip(labels, dirs, strict=True):
        manifest = read_manifest(d)
        if manifest is None or manifest.kind != "run":
            raise FileNotFoundError(f"{d} is not a results directory: {d / 'manifest.json'} is missing")
        frame = read_games(d, allow_damaged=allow_damaged).to_pandas().assign(run=label)
        if net == "adjusted":
            from .luck import add_adjusted

            frame = add_adjusted(frame, d, allow_damaged=allow_damaged)
        games.append(frame)
        hands.append(read_hands(d, allow_damaged=allow_damaged).to_pandas().assign(run=label))
        manifests[label] = manifest
    if any("net_adjusted" in g.columns for g in games) and not all("net_adjusted" in g.columns for g in games):
        # a folder written before the seats table has no luck: then every folder shows raw net (and says so)
        games = [g.drop(columns=[c for c in g.columns if c.startswith("luck") or c == "net_adjusted"]) for g in games]
    return Results(games=pd.concat(games, ignore_index=True), hands=pd.concat(hands, ignore_index=True),
                   manifests=manifests)


def _require(df: pd.DataFrame, cols: Iterable[str], what: str) -> pd.DataFrame:
    """Check the columns, and make ``strategy`` the entrant label: one entrant = one strategy with its params."""
    if "entrant" in df.columns:
        df = df.assign(strategy=df["entrant"].astype(str))
    elif "strategy" in df.columns and isinstance(df["strategy"].dtype, pd.CategoricalDtype):
        df = df.assign(strategy=df["strategy"].astype(str))
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise KeyError(f"{what} needs column(s) {', '.join(missing)}; the table has {', '.join(map(str, df.columns))}")
    return df


def _with_players(games: pd.DataFrame) -> pd.DataFrame:
    if "n_players" in games.columns:
        return games
    keys = [c for c in _GAME_KEY if c in games.columns]
    return games.assign(n_players=games.groupby(keys)["seat"].transform("size"))


# ---------------------------------------------------------------- per-strategy tables


def win_rates(games: pd.DataFrame, *, unit: str = "deal", level: float = LEVEL) -> pd.DataFrame:
    """Mean win share per strategy with a t interval over deals (stratified by lineup); ``fair`` is the share of an
    equal player."""
    games = _require(games, ["game_id", "strategy", "win_share", "seat"], "win_rates")
    games = _with_players(games)
    out = interval_table(games, "win_share", ["strategy"], unit, level, bounds=(0.0, 1.0), strata="table_id")
    fair = (1.0 / games["n_players"]).groupby(games["strategy"]).mean()
    out["fair"] = out["strategy"].map(fair).to_numpy()
    return _marked(out, games).sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)


NET_ESTIMATOR = {"net": "raw net chips", "net_adjusted": "luck-adjusted net chips (docs/luck.md)"}


def net_column(games: pd.DataFrame) -> str:
    """The net the tables use: ``net_adjusted`` when the games carry it (`load(net="adjusted")`), else ``net``."""
    return "net_adjusted" if "net_adjusted" in games.columns else "net"


def mean_net(games: pd.DataFrame, *, unit: str = "deal", level: float = LEVEL) -> pd.DataFrame:
    """Mean net money (chips won minus chips started with) per strategy, t interval over deals (stratified by
    lineup); luck-adjusted when the games carry ``net_adjusted`` (``attrs["estimator"]`` says which)."""
    games = _require(games, ["game_id", "strategy", "net"], "mean_net")
    out = interval_table(games, net_column(games), ["strategy"], unit, level, strata="table_id")
    out.attrs["estimator"] = NET_ESTIMATOR[net_column(games)]
    return _marked(out, games).sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)


def _marked(table: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Add ``bot_errors``: the ⚠ note of an entrant ranked on fallback answers ('' for a sound bot)."""
    notes = bot_errors(games).set_index("strategy")["note"]
    return table.assign(bot_errors=table["strategy"].map(notes).fillna("").to_numpy())


def seat_advantage(games: pd.DataFrame, *, unit: str = "deal", level: float = LEVEL) -> pd.DataFrame:
    """Win share by seat (0 = first dealer, 1 = first to act) per table size; t interval over deals.

    With rotated deals every entrant sits in every seat of a deal, so the strategies cancel out.
    """
    games = _require(games, ["game_id", "seat", "win_share"], "seat_advantage")
    games = _with_players(games)
    out = interval_table(games, "win_share", ["n_players", "seat"], unit, level, bounds=(0.0, 1.0))
    out["fair"] = 1.0 / out["n_players"]
    return out


def _finish(games: pd.DataFrame) -> str:
    """The finishing-order column: ``finish`` (eliminations break ties of money), else the older ``rank``."""
    return "finish" if "finish" in games.columns else "rank"


def head_to_head(games: pd.DataFrame, *, level: float = LEVEL, multiplicity: str = "holm") -> pd.DataFrame:
    """Paired comparisons of every pair of entrants that shared tables, deal by deal.

    Per deal where both sat: the share of their games in which ``strategy`` finished ahead of ``opponent``
    (ties ½; finishing order with eliminations) and the mean net of ``strategy`` minus that of ``opponent``;
    then a t interval and t-test over those deals (stratified by lineup where the pair met at several: the
    schedule sets which). Rows (A, B) and (B, A) mirror each other. ``p_ahead``
    tests ahead = ½ and ``p_net`` a net difference of 0; ``*_adjusted`` adjust both over every pair
    (``multiplicity``: holm or bh). Only these paired differences decide whether two entrants differ:
    overlapping intervals of their separate means do not.
    """
    games = _require(games, ["game_id", "strategy", _finish(games)], "head_to_head")
    units = unit_columns(games, "deal")
    keys = [c for c in _GAME_KEY if c in games.columns]
    net = net_column(games) if "net" in games.columns else None
    lineup = ["table_id"] if "table_id" in games.columns else []
    cols = list(dict.fromkeys([*keys, *units, *lineup, "strategy", _finish(games), *([net] if net else [])]))
    left = games[cols].rename(columns={_finish(games): "place", **({net: "net"} if net else {})})
    net = "net" if net else None
    right = left[[*keys, "strategy", "place", *([net] if net else [])]].rename(
        columns={"strategy": "opponent", "place": "opp_place", "net": "opp_net"})
    pairs = left.merge(right, on=keys)
    pairs = pairs[pairs["strategy"] != pairs["opponent"]]
    out_cols = ["strategy", "opponent", "mean", "ci_low", "ci_high", "deals", "games", "net_diff", "net_low",
                "net_high", "p_ahead", "p_net", "p_ahead_adjusted", "p_net_adjusted", "note"]
    if pairs.empty:
        return pd.DataFrame(columns=out_cols)
    pairs = pairs.assign(ahead=(pairs["place"] < pairs["opp_place"]) + 0.5 * (pairs["place"] == pairs["opp_place"]),
                         net_diff=(pairs["net"] - pairs["opp_net"]) if net else np.nan,
                         lineup=pairs.groupby([*units[:-1], *lineup], sort=False).ngroup() if lineup else 0)
    per_deal = pairs.groupby(["strategy", "opponent", *units], observed=True).agg(
        ahead=("ahead", "mean"), net_diff=("net_diff", "mean"), lineup=("lineup", "first"))
    n_games = pairs.drop_duplicates(["strategy", "opponent", *keys]).groupby(["strategy", "opponent"]).size().to_dict()
    rows = []
    for (a, b), deal in per_deal.groupby(level=["strategy", "opponent"], sort=True):
        has_net = deal["net_diff"].notna()
        ahead = stratified_interval(deal["ahead"] - 0.5, deal["lineup"], level)
        diff = stratified_interval(deal["net_diff"][has_net], deal["lineup"][has_net], level)
        rows.append({"strategy": a, "opponent": b, "mean": ahead.mean + 0.5,
                     "ci_low": max(0.0, ahead.low + 0.5), "ci_high": min(1.0, ahead.high + 0.5),
                     "deals": ahead.n, "games": int(n_games[(a, b)]), "net_diff": diff.mean, "net_low": diff.low,
                     "net_high": diff.high, "p_ahead": ahead.p_value, "p_net": diff.p_value, "note": ahead.note})
    out = pd.DataFrame(rows)
    # one family: both tests of every unordered pair (the mirrored rows repeat the same tests)
    first = out["strategy"] < out["opponent"]
    family = np.r_[out.loc[first, "p_ahead"], out.loc[first, "p_net"]]
    adjusted = adjust(family, multiplicity)
    half = int(first.sum())
    by_pair = {(a, b): (pa, pn) for a, b, pa, pn in zip(out.loc[first, "strategy"], out.loc[first, "opponent"],
                                                         adjusted[:half], adjusted[half:], strict=True)}
    pair = [(a, b) if a < b else (b, a) for a, b in zip(out["strategy"], out["opponent"], strict=True)]
    out["p_ahead_adjusted"] = [by_pair[k][0] for k in pair]
    out["p_net_adjusted"] = [by_pair[k][1] for k in pair]
    out.attrs |= {"method": f"per-deal paired differences, {level:.0%} Student-t interval and t-test over the deals "
                            f"both sat in; {STRATIFIED}", "family": int(np.isfinite(family).sum()),
                  "multiplicity": multiplicity, "estimator": NET_ESTIMATOR[net_column(games)]}
    return out[out_cols]


def head_to_head_matrix(h2h: pd.DataFrame, value: str = "mean", order: Sequence[str] | None = None) -> pd.DataFrame:
    """Pivot a head-to-head table: rows = strategy, columns = opponent, both in ``order`` (default: by name)."""
    present = set(h2h["strategy"]) | set(h2h["opponent"])
    names = [n for n in order if n in present] + sorted(present - set(order)) if order else sorted(present)
    return h2h.pivot(index="strategy", columns="opponent", values=value).reindex(index=names, columns=names)


def game_length(games: pd.DataFrame, *, unit: str = "deal", level: float = LEVEL) -> pd.DataFrame:
    """Hands per game with a t interval over deals, and how often each end reason occurred."""
    games = _require(games, ["game_id", "hands_played"], "game_length")
    keys = [c for c in _GAME_KEY if c in games.columns]
    one = games.drop_duplicates(keys).assign(all="all games")
    out = interval_table(one, "hands_played", ["all"], unit, level).drop(columns="all")
    if "end_reason" in one.columns:
        shares = one["end_reason"].value_counts(normalize=True).sort_index()
        for reason, share in shares.items():
            out[f"ended_{reason}"] = share
    return out


def lineups(games: pd.DataFrame) -> pd.DataFrame:
    """Which entrants sat together, and in how many games: win share and net money depend on the lineup.

    With more entrants than seats the runner plays a cycle of lineups; an entrant that missed the strongest
    table looks better in win share than it is, which head-to-head and ratings correct for.
    """
    games = _require(games, ["game_id", "strategy"], "lineups")
    keys = [c for c in _GAME_KEY if c in games.columns]
    names = games.groupby(keys, observed=True)["strategy"].agg(lambda s: ", ".join(sorted(set(s))))
    out = names.value_counts().rename_axis("lineup").reset_index(name="games")
    return out.sort_values(["games", "lineup"], ascending=[False, True], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------- lineup-adjusted strength


def comparisons(games: pd.DataFrame, *, max_error_share: float | None = None
                ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Every ranked entrant's finishing comparisons per deal (`stats.finish_comparisons`): (names, wins, the lineup
    of each deal). Entrants whose bots failed more than ``max_error_share`` of their decisions are left out (None:
    none)."""
    games = _require(games, ["game_id", "strategy", _finish(games)], "strengths")
    if max_error_share is not None:
        out = bot_errors(games, max_error_share)
        games = games[~games["strategy"].isin(out.loc[out["unranked"], "strategy"])]
    names = sorted(games["strategy"].unique())
    code = pd.Categorical(games["strategy"], categories=names).codes
    units = unit_columns(games, "deal")
    deal = games.groupby(units, sort=True, observed=True).ngroup().to_numpy()  # sorted: the same resamples
    game = games.groupby([c for c in _GAME_KEY if c in games.columns], sort=False, observed=True).ngroup().to_numpy()
    _, wins = finish_comparisons(deal, game, code, games[_finish(games)].to_numpy(dtype=float), len(names))
    lineup: np.ndarray = np.zeros(len(wins), np.int64)
    if "table_id" in games.columns:  # a lineup is a table of one experiment of one run
        per_deal = games.assign(_deal=deal).drop_duplicates("_deal").sort_values("_deal")
        lineup = per_deal.groupby([*units[:-1], "table_id"], sort=True, observed=True).ngroup().to_numpy()
    return names, wins, lineup


def fit(games: pd.DataFrame, *, level: float = LEVEL, replicates: int = 1000, seed: int = 0,
        max_error_share: float | None = MAX_ERROR_SHARE) -> Strengths:
    """The Bradley–Terry strengths of every ranked entrant from the finishing order of every game, bootstrapped
    within lineups (`stats.fit_strengths`); entrants past ``max_error_share`` are not ranked (`bot_errors`)."""
    names, wins, lineup = comparisons(games, max_error_share=max_error_share)
    return fit_strengths(wins, names, replicates=replicates, level=level, seed=seed, strata=lineup)


def paired(games: pd.DataFrame, *, level: float = LEVEL, max_error_share: float | None = MAX_ERROR_SHARE
           ) -> PairedAhead:
    """The observed P(ahead) of every pair of ranked entrants over the deals both sat in (`stats.paired_ahead`)."""
    names, wins, lineup = comparisons(games, max_error_share=max_error_share)
    return paired_ahead(wins, names, lineup, level)


def model_fit(games: pd.DataFrame, fitted: Strengths, how: str = "holm") -> FitCheck:
    """Where the strength model's P(ahead) and the games disagree (`stats.fit_check`), for ``fitted``'s entrants."""
    games = _require(games, ["strategy"], "model_fit")
    names, wins, lineup = comparisons(games[games["strategy"].isin(fitted.names)])
    theta = np.array([fitted.theta[fitted.names.index(n)] for n in names])
    return fit_check(wins, theta, lineup, how)


def strengths(games: pd.DataFrame | None = None, *, fitted: Strengths | None = None, level: float = LEVEL,
              observed: PairedAhead | None = None) -> pd.DataFrame:
    """One row per ranked entrant, strongest first: log-strength with its bootstrap interval, and P(ahead of the next).

    ``ahead_next`` is the observed share of the games they shared in which the entrant finished ahead of the one
    ranked just below (`paired`, with its interval), when the games or ``observed`` are given; else the model's.
    """
    if fitted is not None:
        s = fitted
    elif games is not None:
        s = fit(_require(games, ["strategy"], "strengths"), level=level)
    else:
        raise ValueError("strengths() needs the games table or a fitted model")
    if observed is None and games is not None:
        observed = paired(_require(games, ["strategy"], "strengths"), level=level, max_error_share=None)
    order = s.order
    rows = []
    for k, i in enumerate(order):
        j = order[k + 1] if k + 1 < len(order) else None
        ahead = (np.nan, np.nan, np.nan)
        if j is not None and observed is not None and {s.names[i], s.names[j]} <= set(observed.names):
            a, b = observed.names.index(s.names[i]), observed.names.index(s.names[j])
            ahead = (observed.mean[a, b], observed.low[a, b], observed.high[a, b])
        elif j is not None:
            ahead = (s.prob[i, j], s.prob_low[i, j], s.prob_high[i, j])
        rows.append({"strategy": s.names[i], "strength": s.theta[i], "ci_low": s.low[i], "ci_high": s.high[i],
                     "ahead_next": ahead[0], "ahead_low": ahead[1], "ahead_high": ahead[2]})
    out = pd.DataFrame(rows)
    out.attrs |= {"method": s.method, "note": s.note, "deals": s.deals,
                  "ahead": "observed" if observed is not None else "model"}
    return out if games is None else _marked(out, _require(games, ["strategy"], "strengths"))


def observed_matrix(p: PairedAhead, order: Sequence[str], value: str = "mean") -> pd.DataFrame:
    """The observed P(row finished ahead of column) (``value``: mean, low or high) in ``order``."""
    names = [n for n in order if n in p.names]
    idx = [p.names.index(n) for n in names]
    m = pd.DataFrame(getattr(p, value)[np.ix_(idx, idx)], index=names, columns=names)
    for n in names:
        m.loc[n, n] = np.nan
    return m


def ahead_matrix(s: Strengths, value: str = "prob") -> pd.DataFrame:
    """P(row finishes ahead of column) from the strengths (``value``: prob, prob_low or prob_high), strongest first."""
    names = [s.names[i] for i in s.order]
    m = pd.DataFrame(getattr(s, value), index=list(s.names), columns=list(s.names)).loc[names, names]
    for n in names:
        m.loc[n, n] = np.nan
    return m


# ---------------------------------------------------------------- broken bots


def bot_errors(games: pd.DataFrame, max_error_share: float = MAX_ERROR_SHARE) -> pd.DataFrame:
    """Per entrant: bot errors, decisions, failed decisions and their share, the first error, whether it is ranked,
    and a ⚠ note for any error.

    A failed decision gets the engine's fallback answer (check, else fold), so an entrant with errors is
    ranked on the fallback's play, not its own: every table marks it, and one whose bot failed more than
    ``max_error_share`` of its decisions is not ranked at all (``unranked``). The share counts each decision once
    (``failed_decisions``; errors outside a decision are not decisions'), so it never exceeds 100%.
    """
    games = _require(games, ["strategy"], "bot_errors")
    zeros = pd.Series(0, index=games.index)
    errors_col = games.get("errors", zeros)
    decisions_col = games["decisions"] if "decisions" in games else pd.Series(np.nan, index=games.index)
    failed_col = games["failed_decisions"] if "failed_decisions" in games else np.minimum(errors_col, decisions_col)
    per = pd.DataFrame({"strategy": games["strategy"], "errors": errors_col, "decisions": decisions_col,
                        "failed": failed_col}).groupby("strategy", observed=True)
    out = per[["errors", "failed"]].sum().astype(int).join(per["decisions"].sum(min_count=1)).reset_index()
    with np.errstate(invalid="ignore", divide="ignore"):
        share = out["failed"] / out["decisions"]
    out["error_share"] = np.where(out["decisions"] > 0, share, np.where(out["errors"] > 0, 1.0, 0.0))
    out.loc[out["decisions"].isna(), "error_share"] = np.nan
    first = pd.Series("", index=out["strategy"])
    if "first_error" in games and out["errors"].any():
        keys = [c for c in ("run", "experiment", "game_id") if c in games.columns]
        failed = games[games["first_error"].notna()].sort_values(keys, kind="stable")
        first.update(failed.drop_duplicates("strategy").set_index("strategy")["first_error"].astype(str))
    out["first_error"] = first.reindex(out["strategy"]).fillna("").to_numpy()
    out["unranked"] = out["error_share"].fillna(0.0) > max_error_share
    out["note"] = [f"⚠ {e} bot errors; {share:.1%} of its decisions failed: {FALLBACK}" if e else ""
                   for e, share in zip(out["errors"], out["error_share"].fillna(1.0), strict=True)]
    return out


def unranked(games: pd.DataFrame, max_error_share: float = MAX_ERROR_SHARE) -> pd.DataFrame:
    """The entrants left out of the ranking (`bot_errors`' ``unranked``), most failed first."""
    out = bot_errors(games, max_error_share)
    return out[out["unranked"]].sort_values(["error_share", "strategy"], ascending=[False, True]).reset_index(
        drop=True)


# ---------------------------------------------------------------- trajectories


def trajectories(results: Results, max_games: int | None = None) -> pd.DataFrame:
    """Money per seat after every hand, long format (run, experiment, game_id, deal_id, rotation, hand_no, seat,
    strategy, money); hand 0 is the starting stack.

    ``max_games`` keeps the first rotation of the first deals (the hands table can be large).
    """
    games, hands = results.games, results.hands
    keys = [c for c in _GAME_KEY if c in hands.columns] or ["run", "game_id"]
    deal = [c for c in ("deal_id", "rotation") if c in games.columns]
    cols = [*keys, *deal, "hand_no", "seat", "strategy", "money"]
    if hands.empty:
        return pd.DataFrame(columns=cols)
    hands = _require(hands, ["game_id", "hand_no", "money_after"], "trajectories")
    games = _require(games, [*keys, "seat", "strategy"], "trajectories")
    if max_games is not None:  # the first rotation of the first deals: different cards in every panel
        order = [c for c in ("run", "experiment", "rotation", "deal_id", "game_id") if c in games.columns]
        chosen = games.drop_duplicates(keys).sort_values(order, kind="stable")[keys].head(max_games)
        hands = hands.merge(chosen, on=keys)
        games = games.merge(chosen, on=keys)
    money = hands["money_after"].map(lambda m: np.asarray(m, dtype=np.int64))
    lengths = money.map(len).to_numpy()
    long = hands.loc[hands.index.repeat(lengths), [*keys, "hand_no"]].reset_index(drop=True)
    long["seat"] = np.concatenate([np.arange(n) for n in lengths]) if len(lengths) else []
    long["money"] = np.concatenate(money.to_list()) if len(money) else []
    if {"final_money", "net"} <= set(games.columns):
        start = games[[*keys, "seat"]].assign(hand_no=0, money=games["final_money"] - games["net"])
        long = pd.concat([start, long], ignore_index=True)
    long = long.merge(games[[*keys, *deal, "seat", "strategy"]], on=[*keys, "seat"], how="left")
    sort = [c for c in ("run", "experiment", "rotation", "deal_id", "game_id") if c in long.columns]
    return long.sort_values([*sort, "hand_no", "seat"], kind="stable").reset_index(drop=True)[cols]


# ---------------------------------------------------------------- headline


def summary(games: pd.DataFrame, *, level: float = LEVEL, fitted: Strengths | None = None,
            max_error_share: float = MAX_ERROR_SHARE) -> pd.DataFrame:
    """The headline table, one row per ranked entrant sorted by lineup-adjusted strength.

    Strength and the observed P(ahead of the next) lead; win share and net follow (they depend on who shared a
    table when lineups are unbalanced); then bot errors, whose ``note`` marks an entrant ranked on fallback answers.
    Entrants past ``max_error_share`` are not in it: ``attrs["unranked"]`` lists them (`unranked`).
    """
    fitted = fitted if fitted is not None else fit(games, level=level, max_error_share=max_error_share)
    s = strengths(games, fitted=fitted, level=level)
    s = s.rename(columns={"ci_low": "strength_low", "ci_high": "strength_high"})
    w = win_rates(games, level=level)
    n = mean_net(games, level=level)
    out = s.merge(w[["strategy", "mean", "ci_low", "ci_high", "fair", "games", "deals", "note"]].rename(
        columns={"mean": "win_share", "ci_low": "win_low", "ci_high": "win_high", "note": "win_note"}),
        on="strategy")
    out = out.merge(n[["strategy", "mean", "ci_low", "ci_high", "note"]].rename(
        columns={"mean": "net", "ci_low": "net_low", "ci_high": "net_high", "note": "net_note"}), on="strategy")
    out = out.merge(bot_errors(games, max_error_share), on="strategy", how="left")
    out.attrs |= {"method": s.attrs["method"], "raw_method": w.attrs["method"], "lineups": len(lineups(games)),
                  "net_estimator": n.attrs["estimator"], "unranked": unranked(games, max_error_share),
                  "max_error_share": max_error_share}
    return out


def seat_joint_test(games: pd.DataFrame) -> JointTest:
    """The joint test that every seat has the same win share (entrant effects, clustered by deal)."""
    games = _require(games, ["game_id", "seat", "win_share", "strategy"], "seat_joint_test")
    units = unit_columns(games, "deal")
    deal = games.groupby(units, sort=False, observed=True).ngroup().to_numpy()
    return seat_test(games["win_share"], games["seat"], games["strategy"], deal)


def planning(games: pd.DataFrame, fitted: Strengths | None = None, level: float = LEVEL) -> pd.DataFrame:
    """Per headline metric and entrant: its interval half-width now, and the run's deals.

    Widths shrink as 1 / sqrt(deals), so a half-width W needs `precision.deals_needed` = deals × (half-width / W)²
    deals: what `run --until-ci W` would play.
    """
    s = fitted if fitted is not None else fit(games, level=level)
    rows = [{"metric": "strength", "strategy": s.names[i], "half_width": s.half_width[i], "deals": s.deals}
            for i in s.order]
    for metric, table in (("win share", win_rates(games, level=level)), ("net", mean_net(games, level=level))):
        half = table["half_width"].to_numpy()  # the interval shown, before clipping to 0..1
        # an entrant sits in a fixed share of the deals, so its width scales with the run's deals too
        rows += [{"metric": metric, "strategy": name, "half_width": hw, "deals": s.deals}
                 for name, hw in zip(table["strategy"], half, strict=True)]
    return pd.DataFrame(rows)
