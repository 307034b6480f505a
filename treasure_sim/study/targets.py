"""Design targets: the figures a designer sets bounds on (game length, natural endings, seat advantage, skill),
each estimated from one results folder with its interval over deals, and judged against a bound.

A target is met when its whole interval lies inside the bounds, missed when it lies wholly outside, and
uncertain otherwise (more deals would tell).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..run.store import read_games
from .stats import LEVEL, Interval, mean_interval, seat_test

GAME_COLUMNS = ("game_id", "deal_id", "seat", "entrant", "strategy", "net", "win_share", "hands_played", "end_reason")
BOOTSTRAP = 2000  # resamples of deals for the median's interval


@dataclass(frozen=True, slots=True)
class Estimate:
    """A metric's value with its interval and the words for how it was made."""

    value: float
    low: float
    high: float
    deals: int
    method: str


def _from(iv: Interval, method: str) -> Estimate:
    return Estimate(iv.mean, iv.low, iv.high, iv.n, method)


def _one_row_per_game(games: pd.DataFrame) -> pd.DataFrame:
    return games.drop_duplicates("game_id")


def natural_end(games: pd.DataFrame, level: float = LEVEL) -> Estimate:
    """Share of games that ended by themselves (deck empty, all stopped, too few players), not at the hand cap."""
    one = _one_row_per_game(games)
    per_deal = (one["end_reason"].astype(str) != "hand_limit").groupby(one["deal_id"]).mean()
    e = _from(mean_interval(per_deal, level), "per-deal share, t interval over deals (clipped to 0..1)")
    return Estimate(e.value, max(e.low, 0.0), min(e.high, 1.0), e.deals, e.method)


def mean_hands(games: pd.DataFrame, level: float = LEVEL) -> Estimate:
    one = _one_row_per_game(games)
    per_deal = one.groupby("deal_id")["hands_played"].mean()
    return _from(mean_interval(per_deal, level), "per-deal mean, t interval over deals")


def median_hands(games: pd.DataFrame, level: float = LEVEL, seed: int = 0) -> Estimate:
    """The median of hands per game, with a percentile bootstrap over deals (deals resampled whole)."""
    one = _one_row_per_game(games)
    deals, codes = np.unique(one["deal_id"].to_numpy(), return_inverse=True)
    hands = one["hands_played"].to_numpy(dtype=float)
    value = float(np.median(hands))
    if len(deals) < 2:
        return Estimate(value, math.nan, math.nan, len(deals), "median; too few deals for an interval")
    by_deal = [hands[codes == d] for d in range(len(deals))]
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(deals), size=(BOOTSTRAP, len(deals)))
    medians = np.array([np.median(np.concatenate([by_deal[d] for d in row])) for row in picks])
    low, high = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
    return Estimate(value, float(low), float(high), len(deals),
                    f"median of games; {level:.0%} percentile bootstrap over deals ({BOOTSTRAP} resamples)")


def seat_p(games: pd.DataFrame, level: float = LEVEL) -> Estimate:
    """The p-value of the joint test that every seat wins the same share (high = no sign of a seat advantage)."""
    test = seat_test(games["win_share"], games["seat"], games["entrant"].astype(str), games["deal_id"])
    return Estimate(test.p_value, test.p_value, test.p_value, test.df_denom + 1,
                    f"p-value of the joint seat test ({test.text()})")


def skill_gap(games: pd.DataFrame, better: str, worse: str, level: float = LEVEL) -> Estimate:
    """Mean net chips per game of entrant ``better`` minus entrant ``worse``, paired by deal."""
    labels = games["entrant"].astype(str)
    for name in (better, worse):
        if name not in set(labels):
            raise KeyError(f"no entrant {name!r}; entrants: {', '.join(sorted(set(labels)))}")
    per = games.assign(entrant=labels).pivot_table(index="deal_id", columns="entrant", values="net", aggfunc="mean")
    paired = (per[better] - per[worse]).dropna()
    return _from(mean_interval(paired, level), f"{better} − {worse}, net chips per game, paired by deal, t interval")


METRICS: dict[str, tuple[str, Callable[..., Estimate]]] = {
    "natural_end": ("share of games that end by themselves (not at the hand cap)", natural_end),
    "median_hands": ("median hands per game", median_hands),
    "mean_hands": ("mean hands per game", mean_hands),
    "seat_p": ("p-value of the joint test of equal seats (above 0.05: no sign of a seat advantage)", seat_p),
    "skill_gap": ("net chips per game of one entrant minus another (needs better and worse)", skill_gap),
}


@dataclass(frozen=True, slots=True)
class Target:
    """A bound on a metric: ``low <= metric <= high`` (either may be open)."""

    metric: str
    low: float = -math.inf
    high: float = math.inf
    better: str = ""  # skill_gap only
    worse: str = ""

    @property
    def label(self) -> str:
        name = f"{self.metric}({self.better} − {self.worse})" if self.metric == "skill_gap" else self.metric
        if math.isinf(self.high):
            return f"{name} ≥ {self.low:g}"
        if math.isinf(self.low):
            return f"{name} ≤ {self.high:g}"
        return f"{self.low:g} ≤ {name} ≤ {self.high:g}"

    def estimate(self, games: pd.DataFrame, level: float = LEVEL) -> Estimate:
        fn = METRICS[self.metric][1]
        return fn(games, self.better, self.worse, level) if self.metric == "skill_gap" else fn(games, level)

    def verdict(self, e: Estimate) -> str:
        """met (the whole interval inside the bounds), missed (wholly outside) or uncertain."""
        low, high = (e.low, e.high) if not math.isnan(e.low) else (e.value, e.value)
        if self.metric == "seat_p":  # a p-value has no interval: judged as it is
            low = high = e.value
        if math.isnan(low):
            return "uncertain"
        if self.low <= low and high <= self.high:
            return "met"
        if high < self.low or low > self.high:
            return "missed"
        return "uncertain"

    def margin(self, e: Estimate) -> float:
        """How far the interval lies inside the bounds, relative to the bound (negative when it crosses one)."""
        low, high = (e.low, e.high) if not math.isnan(e.low) else (e.value, e.value)
        if math.isnan(low):
            return -math.inf
        inside = min(low - self.low, self.high - high)
        return inside / self._scale() if not math.isinf(inside) else 0.0

    def _scale(self) -> float:
        return max(abs(self.low) if not math.isinf(self.low) else 0.0,
                   abs(self.high) if not math.isinf(self.high) else 0.0, 1e-9)

    def shortfall(self, e: Estimate) -> float:
        """How far the estimate lies outside the bounds, relative to the bound (0 inside): ranks candidates."""
        if math.isnan(e.value):
            return math.inf
        return max(self.low - e.value, e.value - self.high, 0.0) / self._scale()


def load_games(path: str | Path) -> pd.DataFrame:
    """The games columns the metrics need, verified (`treasure_sim.run.store`)."""
    return read_games(path, GAME_COLUMNS).to_pandas()
