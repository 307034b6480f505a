"""Verdicts: what a sweep's variants (or a balance study's rule variants) change, one short line each.

``no-clubs: 90 fewer hands a game [75, 105]; games that hit the cap 38% → 1% (−37 points [−45, −29]); skill gap:
no change significant after adjustment``. Every figure is a paired difference per deal with its Student-t interval
(`stats.mean_interval`, through `balance.compare`), and "fewer", "more" and a changed skill gap are said only where
the flag, adjusted for multiplicity over the report's family, says so; otherwise the line gives the difference and
its interval and says it is not significant after the adjustment.
"""

from __future__ import annotations

import math

import pandas as pd

CAP = ("end", "hand_limit")
NOT = "not significant after adjustment"
LENGTH = ("length", "hands per game")


def _row(compared: pd.DataFrame, group: str, metric: str, variant: str) -> dict | None:
    rows = compared[(compared["group"] == group) & (compared["metric"] == metric) & (compared["variant"] == variant)]
    return rows.iloc[0].to_dict() if len(rows) else None


def _signed(x: float, fmt: str) -> str:
    return f"{x:{fmt}}".replace("-", "−")


def _length(r: dict) -> str:
    d, low, high = r["diff"], r["diff_low"], r["diff_high"]
    if math.isnan(d):
        return "hands a game: no paired deals"
    if low == high:
        return f"hands a game {_signed(d, '+.0f')} in every deal"
    if not r.get("flag"):
        return f"hands a game {_signed(d, '+.0f')} [{_signed(low, '+.0f')}, {_signed(high, '+.0f')}] ({NOT})"
    if d < 0:
        return f"{-d:.0f} fewer hands a game [{-high:.0f}, {-low:.0f}]"
    return f"{d:.0f} more hands a game [{low:.0f}, {high:.0f}]"


def _cap(base: dict, r: dict) -> str:
    text = f"games that hit the cap {base['mean']:.0%} → {r['mean']:.0%}"
    if math.isnan(r["diff"]) or (r["diff_low"] == r["diff_high"]):
        return text
    points = f"{_signed(100 * r['diff'], '+.0f')} points [{_signed(100 * r['diff_low'], '+.0f')}, " \
             f"{_signed(100 * r['diff_high'], '+.0f')}]"
    return f"{text} ({points}{'' if r.get('flag') else f', {NOT}'})"


def _skill(compared: pd.DataFrame, variant: str) -> str | None:
    rows = compared[(compared["group"] == "skill") & (compared["variant"] == variant)]
    if rows.empty:
        return None
    changed = rows[rows["flag"].astype(bool)]
    if changed.empty:
        return "skill gap: no change significant after adjustment"
    return "skill gap " + ", ".join(
        f"{r['metric']} {_signed(r['diff'], '+.0f')} [{_signed(r['diff_low'], '+.0f')}, "
        f"{_signed(r['diff_high'], '+.0f')}] chips" for r in changed.to_dict("records"))


def change_line(compared: pd.DataFrame, variant: str, baseline: str) -> str:
    """One variant against the baseline, from a `balance.compare` table (flags adjusted over its family)."""
    parts = []
    length = _row(compared, *LENGTH, variant)
    if length is not None:
        parts.append(_length(length))
    cap, base_cap = _row(compared, *CAP, variant), _row(compared, *CAP, baseline)
    if cap is not None and base_cap is not None:
        parts.append(_cap(base_cap, cap))
    skill = _skill(compared, variant)
    if skill:
        parts.append(skill)
    return f"{variant}: " + "; ".join(parts)


def sweep_lines(compared: pd.DataFrame, variants: list[str], baseline: str) -> list[str]:
    """The verdict of a sweep: one line per variant but the baseline."""
    return [change_line(compared, v, baseline) for v in variants if v != baseline]


def level_line(compared: pd.DataFrame, variant: str, label: str | None = None) -> str:
    """A variant's own level: hands a game and the share of games that hit the cap, with intervals."""
    length, cap = _row(compared, *LENGTH, variant), _row(compared, *CAP, variant)
    parts = []
    if length is not None:
        parts.append(f"{length['mean']:.0f} [{length['ci_low']:.0f}, {length['ci_high']:.0f}] hands a game")
    if cap is not None:
        parts.append(f"{cap['mean']:.0%} [{cap['ci_low']:.0%}, {cap['ci_high']:.0%}] of games hit the cap")
    return f"{label or variant}: " + "; ".join(parts)


SHORT = "paired by deal, 95% intervals; fewer, more or a changed skill gap only where the adjusted test says so"
METHOD = ("Each line: the variant against the baseline, a paired difference per deal with its 95% Student-t interval; "
          "\"fewer\", \"more\" and a changed skill gap only where the difference survives the multiplicity adjustment "
          "of the report's flags")

__all__ = ["METHOD", "SHORT", "change_line", "level_line", "sweep_lines"]
