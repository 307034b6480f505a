"""Precision: how many deals an interval needs, and when a run grown by ``--until-ci`` stops.

Only the precision of the intervals decides when to stop, never the estimates (docs/statistics.md, "Stopping"):
batches grow by the square-root law between +10% and +50%, and no stop comes before 100 deals, nor before every
watched interval rests on 99 degrees of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .stats import Interval

# No stop on precision before this many deals: below it the spread is itself too uncertain, and a skewed metric
# (a bot that rarely wins) stops early on a lucky low spread with a low mean (coverage 0.89 instead of 0.94).
MIN_DEALS = 100


def stopping_width(iv: Interval) -> float:
    """The half-width ``--until-ci`` compares with its target: infinite while the interval rests on fewer than
    MIN_DEALS - 1 degrees of freedom (a plain one on fewer than MIN_DEALS deals; a stratified one whose
    Welch–Satterthwaite df is smaller, as when one lineup's spread dominates): below that the spread itself is
    too uncertain to stop on (stratified, heavy skew: coverage 0.91 without this, 0.94 with it)."""
    df = iv.n - 1 if iv.df is None else iv.df
    return iv.half_width if df >= MIN_DEALS - 1 else math.inf


def deals_needed(half_width: npt.ArrayLike, deals: npt.ArrayLike, target: float) -> np.ndarray:
    """Deals for a half-width of ``target`` at the observed spread: width shrinks as 1 / sqrt(deals)."""
    hw, n = np.asarray(half_width, dtype=float), np.asarray(deals, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.ceil(n * (hw / target) ** 2)


def next_deals(deals: int, half_width: float, target: float, max_deals: int, growth: float = 1.5) -> int:
    """The next total of deals: what the observed spread says is needed, at least +10% and at most x ``growth``.

    The cap keeps a noisy early estimate of the spread from overshooting; the floor makes progress.
    """
    cap = math.ceil(deals * growth)
    needed = deals_needed(half_width, deals, target)
    planned = cap if not np.isfinite(needed) else int(needed)
    return int(min(max_deals, max(deals + max(1, math.ceil(deals * 0.1)), MIN_DEALS, min(planned, cap))))


@dataclass(frozen=True, slots=True)
class Stopped:
    """How a run grown by precision ended: the deals played, the widest half-width, and why it stopped."""

    deals: int
    half_width: float
    reached: bool
    batches: tuple[tuple[int, float], ...]

    def reason(self, target: float, what: str) -> str:
        if self.reached:
            return (f"stopped at {self.deals} deals: every {what} interval has half-width <= {target:g} "
                    f"(widest {self.half_width:.4g})")
        if math.isinf(self.half_width):
            return (f"stopped at {self.deals} deals, the --max-deals limit, before every {what} interval rested on "
                    f"{MIN_DEALS - 1} degrees of freedom (too few deals in some lineup to trust its spread)")
        if self.half_width <= target:
            return (f"stopped at {self.deals} deals, the --max-deals limit: the widest {what} half-width "
                    f"{self.half_width:.4g} is <= {target:g}, but fewer than {MIN_DEALS} deals are too few to trust it")
        return (f"stopped at {self.deals} deals, the --max-deals limit, before the target: the widest {what} "
                f"half-width is {self.half_width:.4g} > {target:g}")


def until_precise(play: Callable[[int], None], widest: Callable[[], float], target: float, start: int,
                  max_deals: int, growth: float = 1.5) -> Stopped:
    """Play ``start`` deals, then grow by batches until the widest half-width is <= ``target`` or ``max_deals``.

    ``play(n)`` brings the results up to n deals in total; ``widest()`` measures them. Only the precision
    decides when to stop, never the estimates themselves: the final intervals keep their coverage, which
    stopping when a difference "looks significant" would not (see docs/statistics.md).
    """
    if target <= 0:
        raise ValueError(f"the target half-width must be > 0, got {target}")
    deals = min(max(start, MIN_DEALS), max_deals)
    batches = []
    while True:
        play(deals)
        hw = float(widest())
        batches.append((deals, hw))
        done = deals >= MIN_DEALS and hw <= target
        if done or deals >= max_deals:
            return Stopped(deals, hw, done, tuple(batches))
        deals = next_deals(deals, hw, target, max_deals, growth)
