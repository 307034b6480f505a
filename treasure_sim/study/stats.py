"""The one statistics module: every interval, test and model that a table or figure of treasure-sim shows.

The unit is the *deal*: one seed of cards, played in every seat rotation (and, in a sweep, in every
variant). Games of one deal share their cards, so values are first averaged within a deal and the
deals are then treated as independent samples:

- a mean gets the Student-t interval over per-deal values (`mean_interval`, `interval_table`), and its
  test against zero the matching t-test (`Interval.p_value`); a cell with fewer than two deals or no
  variance says so instead of printing a width of zero;
- many tests at once are adjusted for multiplicity with statsmodels (`adjust`: Holm, or Benjamini–Hochberg);
- lineup-adjusted strength is a Bradley–Terry model of pairwise finishing order fitted by maximum
  likelihood with choix, with a bootstrap over deals (`fit_strengths`);
- the joint seat-advantage test and the Treasure regressions are OLS with deal-clustered errors (statsmodels);
- an intervention (a power barred, a Treasure given, a stronger bot) is a paired difference per deal between two
  arms played on the same deals, with `mean_interval`; the share of variance due to the entrant
  (`entrant_share`) is a moment estimator with a percentile bootstrap over deals;
- a run that grows until its intervals are narrow enough plans its batches with `precision` (its own module).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
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
MULTIPLICITY = {"holm": "Holm (family-wise error rate)", "fdr_bh": "Benjamini–Hochberg (false discovery rate)"}
MULTIPLICITY_NAMES = {"holm": "holm", "bh": "fdr_bh", "fdr_bh": "fdr_bh"}  # what a user may type -> statsmodels
ALPHA = 0.05
NETS = ("adjusted", "raw")  # net chips: luck-adjusted (docs/luck.md) or as won
DEFAULT_NET = "adjusted"  # what the run summary, reports and sweeps show unless asked (validated: docs/luck.md)


# ----- means, their intervals and tests ------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def t_quantile(level: float, df: float) -> float:
    """The two-sided critical value t with P(|T| < t) = ``level`` for Student's t with ``df`` degrees of freedom
    (a whole number, or Welch–Satterthwaite's fractional one)."""
    if df < 1:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, df))


def t_p_value(mean: npt.ArrayLike, se: npt.ArrayLike, df: npt.ArrayLike) -> np.ndarray:
    """Two-sided p-value of the t-test of ``mean = 0`` (NaN where there is no standard error or df < 1)."""
    from scipy.stats import t

    mean, se, df = (np.asarray(a, dtype=float) for a in (mean, se, df))
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.abs(mean) / se
        p = 2 * t.sf(stat, np.where(df >= 1, df, np.nan))
    return np.where((se > 0) & (df >= 1), p, np.nan)


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its interval over ``n`` independent units; ``note`` says why there is no interval."""

    mean: float
    low: float
    high: float
    n: int
    sd: float  # per unit: the interval is mean ± t × sd / sqrt(n) (stratified: the SD that gives its variance)
    df: float | None = None  # degrees of freedom of t when not n - 1 (a stratified mean)

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

    @property
    def p_value(self) -> float:
        """The t-test of mean = 0 that matches the interval (p < 0.05 exactly when the 95% interval excludes 0)."""
        df = self.n - 1 if self.df is None else self.df
        return float(t_p_value(self.mean, self.sd / math.sqrt(self.n) if self.n else math.nan, df))

    def __iter__(self) -> Iterator[float]:  # ``mean, low, high = mean_interval(x)``
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


STRATIFIED = ("stratified by lineup: the schedule, not chance, sets each deal's lineup, so only the spread within a "
              "lineup counts as sampling error (Welch–Satterthwaite degrees of freedom; a lineup of one deal is pooled "
              "with another; plain where an entrant met one lineup; docs/statistics.md)")


def strata_codes(strata: npt.ArrayLike) -> np.ndarray:
    """Codes 0..k-1 of the strata, a stratum of a single unit pooled with the smallest other (collapsed strata)."""
    _, code = np.unique(np.asarray(strata), return_inverse=True)
    code = code.ravel()
    counts = np.bincount(code)
    while len(counts) > 1 and counts.min() < 2:
        order = np.argsort(counts, kind="stable")
        code = np.unique(np.where(code == order[0], order[1], code), return_inverse=True)[1].ravel()
        counts = np.bincount(code)
    return code


def stratified_interval(values: npt.ArrayLike, strata: npt.ArrayLike, level: float = LEVEL) -> Interval:
    """Mean of per-deal values and its t interval when each deal's stratum (its lineup) was fixed by design.

    The round-robin schedule seats the lineups in a fixed cycle, so an entrant's mean over its deals weighs each
    lineup by its share of the deals whatever the cards: the differences *between* lineups are not sampling error
    and the plain interval, which counts them as such, is too wide (for an entrant with a strong and a weak
    table, several times). The mean is the plain mean; its variance is the stratified-sampling one,
    sum over strata of (n_h / n)² s_h² / n_h. A stratum of a single deal has no variance of its own: it is pooled
    with the smallest other stratum (collapsed strata: the pooled variance also holds the gap between them, so the
    interval can only widen on average). Left with one stratum, it is the plain `mean_interval`. ``sd`` is the SD
    that gives the variance (se × sqrt(n)); ``df`` is set only when the interval is stratified.
    """
    x = np.asarray(values, dtype=float)
    code = strata_codes(strata)
    counts = np.bincount(code)
    if len(counts) < 2:
        return mean_interval(x, level)
    n = len(x)
    means = np.bincount(code, weights=x) / counts
    var = np.bincount(code, weights=(x - means[code]) ** 2) / (counts - 1)
    parts = (counts / n) ** 2 * var / counts  # each stratum's share of the variance of the mean
    se2 = float(parts.sum())
    m = float(x.mean())
    if se2 == 0:
        return Interval(m, m, m, n, 0.0, float(n - len(counts)))
    df = se2 ** 2 / float((parts ** 2 / (counts - 1)).sum())
    half = t_quantile(level, df) * math.sqrt(se2)
    return Interval(m, m - half, m + half, n, math.sqrt(se2 * n), df)


RATIO_METHOD = ("pooled ratio (the sum over deals of the events over the sum of the chances), with a 95% Student-t "
                "interval from its linearization over deals: each deal contributes "
                "(events - ratio x chances) / mean chances")


def ratio_interval(events: npt.ArrayLike, chances: npt.ArrayLike, level: float = LEVEL) -> Interval:
    """A rate pooled over deals, sum(events) / sum(chances), with its interval over deals (the unit).

    For rates whose denominator varies by deal (VPIP per hand, showdowns won per showdown): the ratio of sums
    weighs each deal by its chances, and its standard error comes from the per-deal linearized values
    ``(events - R * chances) / mean(chances)`` (the delta method for a ratio estimator; deals are i.i.d.).
    Deals with no chances add nothing. ``sd`` of the result is that of the linearized values.
    """
    e, c = np.asarray(events, dtype=float), np.asarray(chances, dtype=float)
    keep = c > 0
    e, c = e[keep], c[keep]
    n = len(c)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, math.nan)
    ratio = float(e.sum() / c.sum())
    if n < 2:
        return Interval(ratio, math.nan, math.nan, 1, math.nan)
    z = (e - ratio * c) / c.mean()
    sd = float(z.std(ddof=1))
    half = t_quantile(level, n - 1) * sd / math.sqrt(n)
    return Interval(ratio, ratio - half, ratio + half, n, sd)


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
                   bounds: tuple[float, float] | None = None, strata: str | None = None) -> pd.DataFrame:
    """Average ``value`` within each unit per group, then a t interval across units (one row per group).

    ``strata`` names a column fixed per deal by the schedule (``table_id``, the lineup): the intervals are then
    `stratified_interval` s. Columns: the groups, mean, ci_low, ci_high, sem, deals (or units), games, note.
    """
    units = unit_columns(df, unit)
    stratified = strata is not None and strata in df.columns and unit == "deal"
    per_unit = df.groupby([*groups, *units], sort=True, observed=True).agg(
        v=(value, "mean"), **({"stratum": (strata, "first")} if stratified else {})).reset_index()
    agg = per_unit.groupby(groups, sort=True, observed=True)["v"].agg(["mean", "std", "count"]).reset_index()
    keys = [c for c in GAME_KEY if c in df.columns]
    n_games = df.drop_duplicates([*groups, *keys]).groupby(groups, sort=True, observed=True).size()
    if stratified:  # a lineup is a table of one experiment of one run
        per_unit["stratum"] = per_unit.groupby([*units[:-1], "stratum"], sort=False).ngroup()
        ivs = [stratified_interval(part["v"], part["stratum"], level)
               for _, part in per_unit.groupby(groups, sort=True, observed=True)]
        agg["std"] = [iv.sd for iv in ivs]
        half = np.array([iv.half_width for iv in ivs])
        stratified = any(iv.df is not None for iv in ivs)  # else every cell met one lineup: plain intervals
    else:
        half = half_widths(agg["std"], agg["count"], level)
    out = agg[groups].copy()
    out["mean"] = agg["mean"]
    out["ci_low"] = agg["mean"] - half
    out["ci_high"] = agg["mean"] + half
    if bounds is not None:
        out["ci_low"] = out["ci_low"].clip(lower=bounds[0])
        out["ci_high"] = out["ci_high"].clip(upper=bounds[1])
    out["half_width"] = half  # before any clipping to ``bounds``: what the width scales from
    out["sem"] = agg["std"] / np.sqrt(agg["count"])
    out["deals" if unit == "deal" else "units"] = agg["count"].astype(int)
    out["games"] = n_games.to_numpy().astype(int)
    out["note"] = notes(agg["count"], agg["std"])
    out.attrs["method"] = (method(level) + ("; " + STRATIFIED if stratified else "")) if unit == "deal" else (
        f"{level:.0%} Student-t interval treating every game as independent (naive)")
    return out


def notes(n: npt.ArrayLike, sd: npt.ArrayLike) -> np.ndarray:
    """Per cell: why it has no usable interval (too few deals, no variance), else ''."""
    n, sd = np.asarray(n, dtype=float), np.asarray(sd, dtype=float)
    return np.where(n < 2, TOO_FEW, np.where(sd == 0, NO_VARIANCE, ""))


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
    if (isinstance(iv, Interval) and iv.note) or low == high:
        return f"{text} ({iv.note if isinstance(iv, Interval) and iv.note else NO_VARIANCE})"
    if style == "pm":
        return f"{text} ± {format((high - low) / 2, fmt).lstrip('+')}"
    return f"{text} [{low:{fmt}}, {high:{fmt}}]"


# ----- multiplicity --------------------------------------------------------------------------------------------
def multiplicity_method(name: str) -> str:
    """statsmodels' name for a correction the user typed (holm, bh); a clear error otherwise."""
    try:
        return MULTIPLICITY_NAMES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown multiplicity correction {name!r}; use holm or bh") from None


def adjust(p_values: npt.ArrayLike, how: str = "holm") -> np.ndarray:
    """p-values adjusted for the family of every finite one (statsmodels ``multipletests``); NaN stays NaN."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.isfinite(p)
    if tested.sum() == 1:  # a family of one: nothing to adjust (and multipletests is slow: it calls gc.collect)
        out[tested] = p[tested]
    elif tested.any():
        out[tested] = multipletests(p[tested], method=multiplicity_method(how))[1]
    return out


def direction_flags(estimate: npt.ArrayLike, p_adjusted: npt.ArrayLike, alpha: float = ALPHA) -> np.ndarray:
    """▲ / ▼ where the adjusted p-value is below ``alpha`` (by the sign of the estimate), else ''."""
    est, p = np.asarray(estimate, dtype=float), np.asarray(p_adjusted, dtype=float)
    significant = np.nan_to_num(p, nan=1.0) < alpha
    return np.where(significant & (est > 0), "▲", np.where(significant & (est < 0), "▼", ""))


def multiplicity_text(how: str, family: int, what: str) -> str:
    """The sentence a report puts next to its ▲/▼ flags: the method and the family size."""
    return (f"▲/▼ mark a p-value below {ALPHA} after {MULTIPLICITY[multiplicity_method(how)]} adjustment over a "
            f"family of {family} tests ({what})")


# ----- lineup-adjusted strength --------------------------------------------------------------------------------
STRENGTH_METHOD = ("Bradley–Terry strength from every pair's finishing order in every game (the pairwise margins of "
                   "the Plackett–Luce model; exact ties count half), maximum likelihood by choix (ILSR); "
                   "95% percentile bootstrap over deals{within} ({replicates} resamples, refitted)")
WITHIN_LINEUPS = " within lineups (each lineup's deals resampled among themselves: the schedule sets the lineups)"


def finish_comparisons(deal: npt.ArrayLike, game: npt.ArrayLike, entrant: npt.ArrayLike, finish: npt.ArrayLike,
                       n_entrants: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal, ``wins[d, i, j]``: how often entrant i finished ahead of entrant j (ties ½), from player rows.

    Rows are one player-game each (``entrant`` as codes 0..n_entrants-1, ``finish`` 1 = best); seats of the
    same entrant in a game are not compared with each other. Returns (deal ids, wins).
    """
    deal, game = np.asarray(deal, dtype=np.int64), np.asarray(game, dtype=np.int64)
    entrant, finish = np.asarray(entrant, dtype=np.int64), np.asarray(finish, dtype=float)
    deals, deal_code = np.unique(deal, return_inverse=True)
    wins = np.zeros((len(deals), n_entrants, n_entrants))
    order = np.lexsort((entrant, game))
    _, start, size = np.unique(game[order], return_index=True, return_counts=True)
    for n in np.unique(size):
        rows = order[(start[size == n][:, None] + np.arange(n)).ravel()].reshape(-1, n)
        for a in range(n):
            for b in range(a + 1, n):
                ea, eb, fa, fb = entrant[rows[:, a]], entrant[rows[:, b]], finish[rows[:, a]], finish[rows[:, b]]
                a_ahead = (fa < fb) + 0.5 * (fa == fb)
                other = ea != eb
                d = deal_code[rows[:, a]]
                np.add.at(wins, (d[other], ea[other], eb[other]), a_ahead[other])
                np.add.at(wins, (d[other], eb[other], ea[other]), 1 - a_ahead[other])
    return deals, wins


def _strongly_connected(wins: np.ndarray) -> bool:
    """The Bradley–Terry maximum-likelihood estimate exists iff every entrant beat and lost to a chain of others."""
    from scipy.sparse.csgraph import connected_components

    beaten = wins > 0
    if (beaten | np.eye(len(wins), dtype=bool)).all():  # every pair both ways: the usual case, checked fast
        return True
    return connected_components(beaten, directed=True, connection="strong")[0] == 1


def _fit(wins: np.ndarray, start: np.ndarray | None = None, tol: float = 1e-8) -> tuple[np.ndarray, bool]:
    """Log-strengths with mean 0 (choix ILSR), and whether they are the plain ML estimate.

    When the ML estimate does not exist (an entrant never finished ahead of, or behind, the others), choix's
    own regularization (alpha = 0.01) keeps it finite; the caller says so.
    """
    import choix

    exists = _strongly_connected(wins)
    theta = choix.ilsr_pairwise_dense(wins, alpha=0.0 if exists else 0.01, initial_params=start, max_iter=1000,
                                      tol=tol)
    return theta - theta.mean(), exists


def win_probability(theta: npt.ArrayLike) -> np.ndarray:
    """P(row finishes ahead of column) in the Bradley–Terry model: 1 / (1 + exp(θ_col − θ_row))."""
    t = np.asarray(theta, dtype=float)
    return 1 / (1 + np.exp(-(t[..., :, None] - t[..., None, :])))


@dataclass(frozen=True)
class Strengths:
    """Fitted log-strengths (mean 0) with bootstrap intervals, and P(i ahead of j) with its intervals."""

    names: tuple[str, ...]
    theta: np.ndarray
    low: np.ndarray
    high: np.ndarray
    prob: np.ndarray
    prob_low: np.ndarray
    prob_high: np.ndarray
    deals: int
    replicates: int
    level: float = LEVEL
    note: str = ""
    draws: np.ndarray = field(default_factory=lambda: np.empty((0, 0)), repr=False)
    stratified: bool = False  # bootstrapped within lineups (`fit_strengths` ``strata``)

    @property
    def half_width(self) -> np.ndarray:
        return (self.high - self.low) / 2

    @property
    def order(self) -> list[int]:
        """Entrants from the strongest down (ties by name)."""
        return sorted(range(len(self.names)), key=lambda i: (-self.theta[i], self.names[i]))

    @property
    def method(self) -> str:
        return STRENGTH_METHOD.format(replicates=self.replicates, within=WITHIN_LINEUPS if self.stratified else ""
                                      ).replace("95%", f"{self.level:.0%}")


def _resample_counts(rng: np.random.Generator, groups: list[np.ndarray], n: int) -> np.ndarray:
    """How often each of ``n`` units is drawn in one bootstrap replicate that resamples each group within itself."""
    counts = np.zeros(n)
    for members in groups:
        counts[members] = rng.multinomial(len(members), np.full(len(members), 1 / len(members)))
    return counts


def fit_strengths(wins: np.ndarray, names: Sequence[str], *, replicates: int = 1000, level: float = LEVEL,
                  seed: int = 0, strata: npt.ArrayLike | None = None) -> Strengths:
    """Bradley–Terry log-strengths from per-deal win counts (`finish_comparisons`), bootstrapped over deals.

    Each replicate resamples deals with replacement, sums their win counts and refits; the interval is the
    percentile interval of the replicates. Strengths are fixed to mean 0 (only differences are identified).
    ``strata`` (one per deal: its lineup) resamples the deals of each lineup among themselves, as the schedule,
    not chance, decides how many deals each lineup gets: the spread between lineups is not sampling error (a lineup
    of one deal is pooled with another, as in `stratified_interval`).
    """
    wins = np.asarray(wins, dtype=float)
    if wins.ndim != 3 or wins.shape[1:] != (len(names), len(names)):
        raise ValueError(f"wins must be deals x {len(names)} x {len(names)}, got shape {wins.shape}")
    n_deals = len(wins)
    total = wins.sum(axis=0)
    if n_deals == 0 or not total.any():
        raise ValueError("no two different entrants ever finished in the same game: nothing to rank")
    theta, exists = _fit(total)
    note = "" if exists else ("the maximum-likelihood estimate does not exist (an entrant never finished ahead of, or "
                              "behind, the others): estimates regularized by choix (alpha = 0.01)")
    rng = np.random.default_rng(seed)
    flat = wins.reshape(n_deals, -1)
    draws = np.empty((replicates, len(names)))
    code = strata_codes(strata) if strata is not None else np.zeros(n_deals, np.int64)
    if len(code) != n_deals:
        raise ValueError(f"strata must name one lineup per deal ({n_deals}), got {len(code)}")
    groups = [np.flatnonzero(code == h) for h in range(int(code.max(initial=0)) + 1)]
    for r in range(replicates):
        counts = _resample_counts(rng, groups, n_deals)
        draws[r] = _fit((counts @ flat).reshape(total.shape), theta, tol=1e-6)[0]  # ample for percentiles
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0) if n_deals > 1 else (theta * np.nan,) * 2
    probs = win_probability(draws)
    p_low, p_high = np.percentile(probs, [tail, 100 - tail], axis=0) if n_deals > 1 else (probs[0] * np.nan,) * 2
    return Strengths(tuple(names), theta, low, high, win_probability(theta), p_low, p_high, n_deals, replicates,
                     level, note, draws, len(groups) > 1)


# ----- seat advantage: one joint test ---------------------------------------------------------------------------
SEAT_TEST = ("joint Wald test that every seat has the same win share: OLS of win share on seat and entrant "
             "indicators, errors clustered by deal (statsmodels), F with deals − 1 denominator degrees of freedom")


@dataclass(frozen=True, slots=True)
class JointTest:
    """A Wald F test: statistic, degrees of freedom, p-value; ``note`` says why it is degenerate, if it is."""

    statistic: float
    df_num: int
    df_denom: int
    p_value: float
    note: str = ""

    def text(self) -> str:
        if math.isnan(self.p_value):
            return "joint test: not enough deals"
        if self.note:
            return f"{NO_VARIANCE}: {self.note}"
        return f"F({self.df_num}, {self.df_denom}) = {self.statistic:.2f}, p = {self.p_value:.3g}"


def seat_test(win_share: npt.ArrayLike, seat: npt.ArrayLike, entrant: npt.ArrayLike, deal: npt.ArrayLike
              ) -> JointTest:
    """Are the seats equal? Wald F test of all seat effects = 0, with entrant effects, clustered by deal."""
    import statsmodels.api as sm

    y = np.asarray(win_share, dtype=float)
    seats, seat_code = np.unique(np.asarray(seat), return_inverse=True)
    entrants, entrant_code = np.unique(np.asarray(entrant).astype(str), return_inverse=True)
    clusters = np.unique(np.asarray(deal), return_inverse=True)[1]
    if len(seats) < 2 or clusters.max(initial=0) < len(seats):
        return JointTest(math.nan, len(seats) - 1, 0, math.nan)
    x = np.column_stack([np.ones(len(y)), np.eye(len(seats))[seat_code][:, 1:],
                         np.eye(len(entrants))[entrant_code][:, 1:]])
    fit = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": clusters}, use_t=True)
    if np.abs(fit.params[1:len(seats)]).max() < 1e-9 * max(1.0, float(np.abs(y).max())):
        # every seat won exactly its share in every deal (e.g. one entrant wins all rotations): F would be 0 / 0
        return JointTest(0.0, len(seats) - 1, int(clusters.max()), 1.0, "every seat won exactly the same share")
    restriction = np.zeros((len(seats) - 1, x.shape[1]))
    restriction[:, 1:len(seats)] = np.eye(len(seats) - 1)
    test = fit.f_test(restriction)
    return JointTest(float(np.squeeze(test.fvalue)), int(test.df_num), int(test.df_denom), float(test.pvalue))


SHARE_METHOD = ("entrant share: variance of the entrants' true mean nets over the variance of one entrant's net in "
                "one deal, moment estimator (the spread of the entrant means less its expected sampling part, from "
                "the deals' covariance); 95% percentile bootstrap over deals ({replicates} resamples)")


def _entrant_share(y: np.ndarray) -> float:
    n, k = y.shape
    centred = y - y.mean(axis=1, keepdims=True)  # removes the deal's level; a zero-sum deal keeps its spread
    means = centred.mean(axis=0)
    noise = np.trace(np.cov(centred, rowvar=False)) / n if n > 1 else 0.0
    between = float(means @ means) / k - noise / k  # E[sum (m_e - m)^2] = sum (mu_e - mu)^2 + tr(C S C) / n
    total = float((centred ** 2).mean())
    return between / total if total > 0 else math.nan


def entrant_share(y: npt.ArrayLike, *, replicates: int = 1000, level: float = LEVEL, seed: int = 0) -> Interval:
    """How much of the variance of net money is due to *who* plays rather than the deal: ``y[d, e]`` is entrant
    e's net in deal d (every entrant in every deal). Returns the share (0 = all luck, 1 = all skill) with a
    percentile bootstrap interval over deals; ``n`` is the number of deals, ``sd`` the bootstrap SD."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 2 or y.shape[1] < 2 or y.shape[0] < 2:
        return Interval(math.nan, math.nan, math.nan, int(y.shape[0]) if y.ndim else 0, math.nan)
    share = _entrant_share(y)
    rng = np.random.default_rng(seed)
    boot = np.array([_entrant_share(y[rng.integers(0, len(y), len(y))]) for _ in range(replicates)])
    low, high = np.nanquantile(boot, [(1 - level) / 2, (1 + level) / 2])
    return Interval(share, float(low), float(high), len(y), float(np.nanstd(boot, ddof=1)))


def ols_clustered(x: npt.ArrayLike, y: npt.ArrayLike, clusters: Sequence | np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, int]:
    """OLS coefficients, CR1 cluster-robust standard errors (statsmodels) and their degrees of freedom (clusters - 1).

    Columns without variation besides the first (the intercept) get NaN: the data says nothing about them.
    A design that is still rank-deficient (a run of a few deals) gets the pseudo-inverse's minimum-norm fit; one
    cluster gets its coefficients and NaN standard errors (0 degrees of freedom).
    """
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import SingularMatrixWarning

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    groups = np.unique(np.asarray(clusters), return_inverse=True)[1].ravel()
    flat = np.r_[False, np.ptp(x[:, 1:], axis=0) == 0]
    beta, se = np.full(x.shape[1], np.nan), np.full(x.shape[1], np.nan)
    one = groups.max(initial=0) == 0  # a single cluster (one deal): no spread between clusters, no interval
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularMatrixWarning)
        fit = sm.OLS(y, x[:, ~flat]).fit() if one else \
            sm.OLS(y, x[:, ~flat]).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    if one:
        beta[~flat] = fit.params
        return beta, se, 0
    beta[~flat] = fit.params
    se[~flat] = np.sqrt(np.clip(np.diag(fit.cov_params()), 0, None))  # rounding can leave -1e-20 on the diagonal
    return beta, se, int(groups.max(initial=0))


# ----- observed head-to-head: the pairwise figure, and the strength model's fit ---------------------------------
PAIRED_METHOD = ("observed paired P(ahead): per deal the share of the games both sat in that the row entrant finished "
                 "ahead of the column one (exact ties half), then the mean over those deals with its 95% Student-t "
                 "interval, stratified by lineup")


@dataclass(frozen=True)
class PairedAhead:
    """How often entrant i finished ahead of entrant j in the games they shared: ``mean[i, j]`` over the deals
    both sat in, with its interval (``low``, ``high``), deals (``deals``) and the p-value of the test of ½ (NaN
    where the pair never met or has no interval)."""

    names: tuple[str, ...]
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    deals: np.ndarray
    p_value: np.ndarray
    level: float = LEVEL

    def tied(self, i: int, j: int) -> bool:
        """Are i and j indistinguishable: their interval of P(i ahead of j) holds ½ (or they never met)?"""
        return not (self.low[i, j] > 0.5 or self.high[i, j] < 0.5)


def _pair_values(wins: np.ndarray, i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal where i and j shared a game: the share i finished ahead; and which deals those are."""
    games = wins[:, i, j] + wins[:, j, i]
    met = games > 0
    return wins[met, i, j] / games[met], met


def paired_ahead(wins: np.ndarray, names: Sequence[str], strata: npt.ArrayLike | None = None,
                 level: float = LEVEL) -> PairedAhead:
    """The observed head-to-head of every pair from per-deal win counts (`finish_comparisons`).

    The mean over deals of the per-deal share, its `stratified_interval` by lineup (``strata``: one per deal;
    plain without), clipped to [0, 1]. Unlike the strength model's P(ahead), it does not assume that the chance of
    finishing ahead is the same whoever else sits at the table.
    """
    wins = np.asarray(wins, dtype=float)
    k = len(names)
    lineup = np.zeros(len(wins), np.int64) if strata is None else np.asarray(strata)
    mean, low, high, p = (np.full((k, k), np.nan) for _ in range(4))
    deals = np.zeros((k, k), np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            share, met = _pair_values(wins, i, j)
            if not len(share):
                continue
            iv = stratified_interval(share - 0.5, lineup[met], level)
            mean[i, j], mean[j, i] = iv.mean + 0.5, 0.5 - iv.mean
            low[i, j], high[i, j] = max(0.0, iv.low + 0.5), min(1.0, iv.high + 0.5)
            low[j, i], high[j, i] = 1 - high[i, j], 1 - low[i, j]
            deals[i, j] = deals[j, i] = iv.n
            p[i, j] = p[j, i] = iv.p_value
    return PairedAhead(tuple(names), mean, low, high, deals, p, level)


@dataclass(frozen=True)
class FitCheck:
    """Where the strength model's P(ahead) and the observed paired P(ahead) disagree: (i, j, model, observed,
    adjusted p) for each such pair with i the entrant the model puts ahead; ``pairs`` tested in all."""

    misfits: tuple[tuple[int, int, float, float, float], ...]
    pairs: int
    how: str = "holm"


def fit_check(wins: np.ndarray, theta: npt.ArrayLike, strata: npt.ArrayLike | None = None, how: str = "holm",
              alpha: float = ALPHA) -> FitCheck:
    """Test, for every pair that met, whether the observed per-deal share of finishing ahead has the mean the
    Bradley–Terry model predicts (t-test over deals, stratified by lineup), adjusted over the pairs (``how``)."""
    wins = np.asarray(wins, dtype=float)
    prob = win_probability(theta)
    lineup = np.zeros(len(wins), np.int64) if strata is None else np.asarray(strata)
    tested: list[tuple[int, int, float, float, float]] = []
    for i in range(len(prob)):
        for j in range(i + 1, len(prob)):
            share, met = _pair_values(wins, i, j)
            if len(share) < 2:
                continue
            a, b = (i, j) if prob[i, j] >= 0.5 else (j, i)
            values = share if a == i else 1 - share
            iv = stratified_interval(values - prob[a, b], lineup[met])
            tested.append((a, b, float(prob[a, b]), float(values.mean()), iv.p_value))
    adjusted = adjust([t[4] for t in tested], how) if tested else np.zeros(0)
    misfits = tuple((a, b, m, o, float(q)) for (a, b, m, o, _), q in zip(tested, adjusted, strict=True)
                    if np.isfinite(q) and q < alpha)
    return FitCheck(misfits, len(tested), how)
