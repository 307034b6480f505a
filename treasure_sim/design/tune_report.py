"""What a tuning run found: the rule sets that meet the targets, the trade-off front, everything tried."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ..study.markdown import md_table, save_figure
from ..study.plots import OKABE_ITO
from .tune import Measured, TuneReport


def _cell(e: dict) -> str:
    value, low, high = e["value"], e["low"], e["high"]
    if value is None or math.isnan(value):
        return "—"
    text = f"{value:.3g}" if math.isnan(low) or low == high else f"{value:.3g} [{low:.3g}, {high:.3g}]"
    mark = {"met": "✓", "missed": "✗", "uncertain": "?"}[e["verdict"]]
    return f"{text} {mark}"


def front(measured: list[Measured]) -> list[Measured]:
    """The candidates no other beats on every target's shortfall (the trade-off front when targets conflict)."""
    def short(m: Measured) -> list[float]:
        return [e["shortfall"] for e in m.estimates.values()]

    return [m for m in measured if not any(
        all(a <= b for a, b in zip(short(o), short(m), strict=True)) and short(o) != short(m) for o in measured)]


def recommended(report: TuneReport) -> list[Measured]:
    """Candidates of the last round whose every target is met with its whole interval."""
    return [m for m in report.rounds[-1] if all(v == "met" for v in m.verdicts)] if report.rounds else []


def table(measured: list[Measured]) -> str:
    targets = list(measured[0].estimates) if measured else []
    rows = [[m.name, str(m.deals), *(_cell(m.estimates[t]) for t in targets), f"{m.shortfall:.3g}"] for m in measured]
    return md_table(["candidate", "deals", *targets, "shortfall"], rows)


def markdown(report: TuneReport) -> str:
    final = report.final
    best = recommended(report)
    lines = [f"# Tuning: {report.out.name}", "",
             f"Status: {report.status}; {len(report.rounds)} round(s), {len(final)} candidate(s) tried.", "",
             *([f"**Warning:** {report.warning}.", ""] if report.warning else []),
             "Every figure has its 95% interval (✓ the whole interval meets the target, ✗ it misses it wholly, "
             "? uncertain: more deals would tell). A p-value target (seat_p) is judged on the p-value itself: a "
             "high p says no seat advantage was detected, not that there is none.", "",
             "## Recommended rule sets", ""]
    if best:
        lines += [f"- `{m.name}`: " + (", ".join(f"{k} = {v}" for k, v in report.changes.get(m.name, {}).items())
                                        or "the base rules") for m in best]
        lines += ["", table(best)]
    else:
        lines.append("None met every target with its whole interval; see the trade-off front.")
    lines += ["", "## Trade-off front", "", "Candidates that no other beats on every target at once:", "",
              table(front(final)), "", "## Everything tried (each candidate at its most deals)", "", table(final)]
    for number, measured in enumerate(report.rounds, start=1):
        lines += ["", f"### Round {number}: {measured[0].deals if measured else 0} deals", "", table(measured)]
    return "\n".join(lines) + "\n"


def plot_candidates(measured: list[Measured]) -> Figure:
    """One panel per target: every candidate's estimate with its interval (colour: ✓ met, ✗ missed, ? uncertain,
    colour-blind safe and repeated by the marker), the target's bounds shaded."""
    targets = list(measured[0].estimates) if measured else []
    fig = Figure(figsize=(max(7.0, 3.6 * len(targets)), 1.4 + 0.38 * len(measured)), layout="constrained")
    axes = fig.subplots(1, max(1, len(targets)), sharey=True, squeeze=False)[0]
    style = {"met": (OKABE_ITO[2], "o"), "missed": (OKABE_ITO[4], "x"), "uncertain": (OKABE_ITO[1], "d")}
    y = np.arange(len(measured))[::-1]
    for ax, target in zip(axes, targets, strict=False):
        for yi, m in zip(y, measured, strict=True):
            e = m.estimates[target]
            color, marker = style[e["verdict"]]
            if not math.isnan(e["low"]) and e["low"] != e["high"]:
                ax.plot([e["low"], e["high"]], [yi, yi], color=color, linewidth=2)
            ax.plot([e["value"]], [yi], marker=marker, color=color, markersize=7)
        bounds = _bounds(target)
        if bounds:
            left, right = ax.get_xlim()
            ax.axvspan(max(bounds[0], min(left, bounds[1])), min(bounds[1], max(right, bounds[0])), color="0.85",
                       zorder=0)
            ax.set_xlim(left, right)
        ax.set_title(target, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, [f"{m.name} ({m.deals} deals)" for m in measured], fontsize=8)
    fig.supxlabel("grey: where the target is met; bars: 95% intervals; ● met, ◆ uncertain, × missed", fontsize=8,
                  color="0.35")
    return fig


def _bounds(label: str) -> tuple[float, float] | None:
    """The shaded region of a target from its label (``a ≤ x ≤ b``, ``x ≥ a``, ``x ≤ b``)."""
    parts = label.split(" ")
    try:
        if parts.count("≤") == 2:
            return float(parts[0]), float(parts[-1])
        if "≥" in parts:
            return float(parts[-1]), math.inf
        if "≤" in parts:
            return -math.inf, float(parts[-1])
    except ValueError:
        return None
    return None


def write(report: TuneReport) -> Path:
    path = report.out / "report.md"
    text = markdown(report)
    final = report.final
    if final:
        save_figure(plot_candidates(final), report.out / "candidates.png", dpi=110)
        text = text.replace("## Trade-off front", "![every candidate against the targets](candidates.png)\n\n"
                                                  "## Trade-off front", 1)
    path.write_text(text, encoding="utf-8")
    return path
