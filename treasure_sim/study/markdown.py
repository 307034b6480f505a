"""Markdown for the reports: tables, interval cells, figures saved beside report.md, what was run."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

from ..game.rules import RuleSet
from .stats import NO_VARIANCE


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """A GitHub markdown table; ``align`` is one of l/r per column (default: first left, the rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def cell(mean: float, low: float, high: float, fmt: str, flag: str = "", note: str = "") -> str:
    """``1.2 [0.9, 1.5] ▲``; a dash when there is no value.

    A cell without a usable interval says why instead of printing a zero width: ``note`` (e.g. "fewer than
    2 deals", "no variance"), else "no interval" when the bounds are missing and "no variance" when they meet.
    """
    if isinstance(mean, float) and math.isnan(mean):
        return "—"
    low, high = float(low), float(high)
    if note or math.isnan(low) or math.isnan(high) or low == high:
        why = note or ("no interval" if math.isnan(low) or math.isnan(high) else NO_VARIANCE)
        text = f"{mean:{fmt}} ({why})"
    else:
        text = f"{mean:{fmt}} [{low:{fmt}}, {high:{fmt}}]"
    return f"{text} {flag}".rstrip()


def records(table: Any) -> list[dict[str, Any]]:
    """A data frame's rows as dicts (name -> value): what the table builders iterate over."""
    return [dict(zip(map(str, table.columns), row, strict=True)) for row in table.itertuples(index=False, name=None)]


def record_cell(record: Mapping[str, Any], fmt: str, flag: str = "flag") -> str:
    """`cell` of one row of an interval table (``mean``, ``ci_low``, ``ci_high`` and its ▲/▼ flag, if any)."""
    return cell(record["mean"], record["ci_low"], record["ci_high"], fmt, record.get(flag, "") or "")


def by_key(table: pd.DataFrame, *keys: str) -> dict[tuple, dict[str, Any]]:
    """The rows of ``table`` as records, keyed by the values of ``keys`` (for cell lookups)."""
    return {tuple(r[k] for k in keys): {str(c): v for c, v in r.items()} for r in table.to_dict("records")}


def number(x: float, fmt: str) -> str:
    return "—" if math.isnan(x) else f"{x:{fmt}}"


def percent(x: float) -> str:
    """A share as a percentage; "—" where it is not a number (a count over zero: never "inf%")."""
    return f"{x:.1%}" if math.isfinite(x) else "—"


def save_figure(fig: Any, path: Path, dpi: int = 110) -> str:
    """Save a figure beside report.md and return the name to link it by."""
    fig.savefig(path, dpi=dpi)
    return path.name


def entrants_text(config: dict[str, Any]) -> str:
    """``\\`label\\` = strategy {params}; ...`` for the entrants of an experiment config."""
    return "; ".join(f"`{e['label']}` = {e['strategy']}" + (f" {json.dumps(e['params'])}" if e.get("params") else "")
                     for e in config.get("entrants", []))


def rules_text(rules: dict[str, Any]) -> str:
    """The rule fields that differ from the defaults, or that there are none."""
    default = RuleSet().to_dict()
    changed = {k: v for k, v in rules.items() if default.get(k) != v}
    return ", ".join(f"{k} = {v}" for k, v in changed.items()) if changed else "the defaults (the card's rules)"
