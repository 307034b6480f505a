"""Markdown for the reports: tables, interval cells, figures saved beside report.md, what was run."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..game.rules import RuleSet


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """A GitHub markdown table; ``align`` is one of l/r per column (default: first left, the rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def cell(mean: float, low: float, high: float, fmt: str, flag: str = "") -> str:
    """``1.2 [0.9, 1.5] ▲``; the mean alone when there is no interval, a dash when there is no value."""
    if math.isnan(mean):
        return "—"
    text = f"{mean:{fmt}}" if math.isnan(low) else f"{mean:{fmt}} [{low:{fmt}}, {high:{fmt}}]"
    return f"{text} {flag}".rstrip()


def number(x: float, fmt: str) -> str:
    return "—" if math.isnan(x) else f"{x:{fmt}}"


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
