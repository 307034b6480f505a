"""The one statistics module: every interval, test and model that a table or figure of treasure-sim shows.

The unit is the *deal*: one seed of cards, played in every seat rotation (and, in a sweep, in every
variant). Games of one deal share their cards, so values are first averaged within a deal and the
deals are then treated as independent samples. Every interval of a mean is the Student-t interval
over those per-deal values (`mean_interval`, `interval_table`); a cell with fewer than two deals or
no variance says so instead of printing a width of zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pandas as pd

LEVEL = 0.95
METHOD = "95% Student-t interval over per-deal means (all rotations of one deal = one sample)"
TOO_FEW = "fewer than 2 deals"
NO_VARIANCE = "no variance"


@lru_cache(maxsize=4096)
def t_quantile(level: float, df: int) -> float:
    """The two-sided critical value t with P(|T| < t) = ``level`` for Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, df))


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its interval over ``n`` independent units; ``note`` says why there is no interval."""

    mean: float
    low: float
    high: float
    n: int
    sd: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def note(self) -> str:
        """Empty when the interval is usable; else why not (too few deals, no variance)."""
        if self.n < 2:
            return TOO_FEW
        if self.sd == 0:
            return NO_VARIANCE
        return ""

    def __iter__(self):  # ``mean, low, high = mean_interval(x)``
        return iter((self.mean, self.low, self.high))


def mean_interval(values: npt.ArrayLike, level: float = LEVEL) -> Interval:
    """Mean and Student-t interval of independent samples; NaN bounds with fewer than two samples."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, math.nan)
    m = float(x.mean())
    if n < 2:
        return Interval(m, math.nan, math.nan, 1, math.nan)
    sd = float(x.std(ddof=1))
    half = t_quantile(level, n - 1) * sd / math.sqrt(n)
    return Interval(m, m - half, m + half, n, sd)


def half_widths(sd: npt.ArrayLike, n: npt.ArrayLike, level: float = LEVEL) -> np.ndarray:
    """Vectorized `mean_interval` half-widths for many cells at once (NaN where n < 2)."""
    sd, n = np.asarray(sd, dtype=float), np.asarray(n, dtype=float)
    crit = np.array([t_quantile(level, int(k) - 1) if k >= 2 else math.nan for k in n.ravel()]).reshape(n.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        return crit * sd / np.sqrt(n)


def unit_columns(df: pd.DataFrame, unit: str = "deal") -> list[str]:
    """Columns naming one independent sample: the deal (all its rotations) or, if asked, the single game."""
    if unit not in ("deal", "game"):
        raise ValueError(f"unit must be 'deal' or 'game', got {unit!r}")
    base = [c for c in ("run", "experiment") if c in df.columns]
    if unit == "deal" and "deal_id" in df.columns:
        return [*base, "deal_id"]
    return [*base, "game_id"]


GAME_KEY = ["run", "experiment", "game_id"]  # game ids are unique within one experiment of one run


def interval_table(df: pd.DataFrame, value: str, groups: list[str], unit: str = "deal", level: float = LEVEL,
                   bounds: tuple[float, float] | None = None) -> pd.DataFrame:
    """Average ``value`` within each unit per group, then a t interval across units (one row per group).

    Columns: the groups, mean, ci_low, ci_high, sem, deals (or units), games, note.
    """
    units = unit_columns(df, unit)
    per_unit = df.groupby([*groups, *units], sort=True, observed=True)[value].mean().rename("v").reset_index()
    agg = per_unit.groupby(groups, sort=True, observed=True)["v"].agg(["mean", "std", "count"]).reset_index()
    keys = [c for c in GAME_KEY if c in df.columns]
    n_games = df.drop_duplicates([*groups, *keys]).groupby(groups, sort=True, observed=True).size()
    half = half_widths(agg["std"], agg["count"], level)
    out = agg[groups].copy()
    out["mean"] = agg["mean"]
    out["ci_low"] = agg["mean"] - half
    out["ci_high"] = agg["mean"] + half
    if bounds is not None:
        out["ci_low"] = out["ci_low"].clip(lower=bounds[0])
        out["ci_high"] = out["ci_high"].clip(upper=bounds[1])
    out["sem"] = agg["std"] / np.sqrt(agg["count"])
    out["deals" if unit == "deal" else "units"] = agg["count"].astype(int)
    out["games"] = n_games.to_numpy().astype(int)
    out["note"] = np.where(agg["count"] < 2, TOO_FEW, np.where(agg["std"] == 0, NO_VARIANCE, ""))
    out.attrs["method"] = method(level) if unit == "deal" else (
        f"{level:.0%} Student-t interval treating every game as independent (naive)")
    return out


def method(level: float = LEVEL) -> str:
    """The words for the interval every table uses, at ``level``."""
    return METHOD.replace("95%", f"{level:.0%}")


def format_interval(iv: Interval | tuple[float, float, float], fmt: str, style: str = "brackets") -> str:
    """``1.23 [1.01, 1.45]`` (or ``1.23 ± 0.22`` with ``style="pm"``); a cell without an interval says why."""
    mean, low, high = iv
    if math.isnan(mean):
        return "—"
    text = f"{mean:{fmt}}"
    if math.isnan(low) or math.isnan(high):
        note = iv.note if isinstance(iv, Interval) else TOO_FEW
        return f"{text} ({note or TOO_FEW})"
    if isinstance(iv, Interval) and iv.note:
        return f"{text} ({iv.note})"
    if style == "pm":
        return f"{text} ± {format((high - low) / 2, fmt).lstrip('+')}"
    return f"{text} [{low:{fmt}}, {high:{fmt}}]"


def ols_clustered(x: npt.ArrayLike, y: npt.ArrayLike, clusters: Sequence | np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, int]:
    """OLS coefficients, CR1 cluster-robust standard errors and their degrees of freedom (clusters - 1).

    Columns without variation besides the first (the intercept) get NaN: the data says nothing about them.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n, k = x.shape
    bread = np.linalg.pinv(x.T @ x)
    beta = bread @ (x.T @ y)
    uniques, codes = np.unique(np.asarray(clusters), return_inverse=True)
    g = len(uniques)
    scores = np.zeros((g, k))
    np.add.at(scores, codes.ravel(), x * (y - x @ beta)[:, None])
    scale = g / (g - 1) * (n - 1) / (n - k) if g > 1 and n > k else np.nan
    se = np.sqrt(np.clip(np.diag(bread @ (scores.T @ scores) @ bread) * scale, 0, None))
    flat = np.r_[False, np.ptp(x[:, 1:], axis=0) == 0]
    beta[flat], se[flat] = np.nan, np.nan
    return beta, se, g - 1
