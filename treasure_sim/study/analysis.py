"""Results analysis: win rates, net money, head-to-head, seat advantage and ratings, each with its uncertainty."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..run.store import Manifest, read_games, read_hands, read_manifest
from .stats import GAME_KEY as _GAME_KEY
from .stats import LEVEL, interval_table, unit_columns


@dataclass(frozen=True)
class Results:
    """The Parquet tables of one or more results directories, with a ``run`` column naming the directory."""

    games: pd.DataFrame
    hands: pd.DataFrame
    manifests: dict[str, Manifest] = field(default_factory=dict)


# ---------------------------------------------------------------- loading


def load(dir_or_dirs: str | Path | Iterable[str | Path], *, allow_damaged: bool = False) -> Results:
    """Read the games and hands tables and the manifest of one results directory or several (stacked).

    Every part is verified against its checksum (`treasure_sim.run.store`): a damaged folder raises
    `DamagedResults` naming the part, unless ``allow_damaged`` (then the damaged parts are left out).
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
        games.append(read_games(d, allow_damaged=allow_damaged).to_pandas().assign(run=label))
        hands.append(read_hands(d, allow_damaged=allow_damaged).to_pandas().assign(run=label))
        manifests[label] = manifest
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
    """Mean win share per strategy with a t interval over deals; ``fair`` is the share of an equal player."""
    games = _require(games, ["game_id", "strategy", "win_share", "seat"], "win_rates")
    games = _with_players(games)
    out = interval_table(games, "win_share", ["strategy"], unit, level, bounds=(0.0, 1.0))
    fair = (1.0 / games["n_players"]).groupby(games["strategy"]).mean()
    out["fair"] = out["strategy"].map(fair).to_numpy()
    return out.sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)


def mean_net(games: pd.DataFrame, *, unit: str = "deal", level: float = LEVEL) -> pd.DataFrame:
    """Mean net money (chips won minus chips started with) per strategy, t interval over deals."""
    games = _require(games, ["game_id", "strategy", "net"], "mean_net")
    out = interval_table(games, "net", ["strategy"], unit, level)
    return out.sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)


def seat_advantage(games: pd.DataFrame, *, unit: str = "deal", level: float = LEVEL) -> pd.DataFrame:
    """Win share by seat (0 = first dealer, 1 = first to act) per table size; t interval over deals.

    With rotated deals every entrant sits in every seat of a deal, so the strategies cancel out.
    """
    games = _require(games, ["game_id", "seat", "win_share"], "seat_advantage")
    games = _with_players(games)
    out = interval_table(games, "win_share", ["n_players", "seat"], unit, level, bounds=(0.0, 1.0))
    out["fair"] = 1.0 / out["n_players"]
    return out


def head_to_head(games: pd.DataFrame, *, unit: str = "deal", level: float = LEVEL) -> pd.DataFrame:
    """For each ordered pair, the share of games where ``strategy`` finished ahead of ``opponent`` (ties ½).

    Only games where both sat count; the score is averaged within a deal, then a t interval over deals.
    Rows (A, B) and (B, A) are complements.
    """
    games = _require(games, ["game_id", "strategy", "rank"], "head_to_head")
    units = unit_columns(games, unit)
    keys = [c for c in _GAME_KEY if c in games.columns]
    cols = list(dict.fromkeys([*keys, *units, "strategy", "rank"]))
    left = games[cols]
    right = games[[*keys, "strategy", "rank"]].rename(columns={"strategy": "opponent", "rank": "opp_rank"})
    pairs = left.merge(right, on=keys)
    pairs = pairs[pairs["strategy"] != pairs["opponent"]]
    pairs = pairs.assign(ahead=(pairs["rank"] < pairs["opp_rank"]) + 0.5 * (pairs["rank"] == pairs["opp_rank"]))
    cols_out = ["strategy", "opponent", "mean", "ci_low", "ci_high", "sem", "deals" if unit == "deal" else "units",
                "games"]
    if pairs.empty:
        return pd.DataFrame(columns=cols_out)
    return interval_table(pairs, "ahead", ["strategy", "opponent"], unit, level, bounds=(0.0, 1.0))[cols_out]


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


# ---------------------------------------------------------------- ratings


def ratings(games: pd.DataFrame) -> pd.DataFrame:
    """OpenSkill Plackett–Luce ratings from every game's finishing order: mu, sigma, ordinal = mu − 3·sigma.

    Games are rated in a fixed order (run, experiment, deal, rotation, game) so results are repeatable.
    A strategy with several seats in one game is one team ranked by its seats' mean rank; games with a
    single strategy teach nothing and are skipped. Sigma is the model's own uncertainty; it treats the
    rotations of a deal as independent games, so it is somewhat optimistic.
    """
    from openskill.models import PlackettLuce

    games = _require(games, ["game_id", "strategy", "rank"], "ratings")
    order = [c for c in ("run", "experiment", "deal_id", "rotation", "game_id") if c in games.columns]
    keys = [c for c in _GAME_KEY if c in games.columns]
    per = games.groupby([*order, "strategy"], sort=True, observed=True)["rank"].mean().reset_index()
    model = PlackettLuce()
    current: dict[str, Any] = {s: model.rating(name=s) for s in sorted(per["strategy"].unique())}
    played = dict.fromkeys(current, 0)
    # one game = consecutive rows of ``per`` (sorted by game); plain lists, as pandas per group is slow
    codes = per.groupby(keys, sort=False, observed=True).ngroup().to_numpy()
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1], True])
    all_names, all_ranks = per["strategy"].tolist(), per["rank"].tolist()
    for a, b in itertools.pairwise(starts.tolist()):
        if b - a < 2:
            continue
        names, mean_rank = all_names[a:b], all_ranks[a:b]
        ranks = [1 + sum(o < r for o in mean_rank) for r in mean_rank]  # integer ranks, ties shared
        new = model.rate([[current[s]] for s in names], ranks=ranks)
        for s, team in zip(names, new, strict=True):
            current[s] = team[0]
            played[s] += 1
    out = pd.DataFrame({
        "strategy": list(current),
        "mu": [r.mu for r in current.values()],
        "sigma": [r.sigma for r in current.values()],
        "ordinal": [r.ordinal() for r in current.values()],
        "games": [played[s] for s in current],
    })
    out.attrs["method"] = "OpenSkill Plackett-Luce on finishing order; ordinal = mu - 3 sigma"
    return out.sort_values("ordinal", ascending=False, kind="stable").reset_index(drop=True)


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


def summary(games: pd.DataFrame, *, level: float = LEVEL, rated: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per strategy: win share and mean net with intervals, and the rating: the headline table."""
    w = win_rates(games, level=level)
    n = mean_net(games, level=level)
    r = ratings(games) if rated is None else rated
    out = w[["strategy", "mean", "ci_low", "ci_high", "fair", "games", "deals"]].rename(
        columns={"mean": "win_share", "ci_low": "win_low", "ci_high": "win_high"})
    out = out.merge(n[["strategy", "mean", "ci_low", "ci_high"]].rename(
        columns={"mean": "net", "ci_low": "net_low", "ci_high": "net_high"}), on="strategy")
    out = out.merge(r[["strategy", "mu", "sigma", "ordinal"]], on="strategy", how="left")
    out.attrs["method"] = w.attrs["method"]
    return out
