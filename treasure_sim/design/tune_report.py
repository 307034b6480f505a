"""What a tuning run found: the rule sets that meet the targets, the trade-off front, everything tried."""

from __future__ import annotations

import math
from pathlib import Path

from ..study.markdown import md_table
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


def markdown(report: TuneReport, changes: dict[str, dict]) -> str:
    final = report.final
    best = recommended(report)
    lines = [f"# Tuning: {report.out.name}", "",
             f"Status: {report.status}; {len(report.rounds)} round(s), {len(final)} candidate(s) tried.", "",
             "Every figure has its 95% interval (✓ the whole interval meets the target, ✗ it misses it wholly, "
             "? uncertain: more deals would tell). A p-value target (seat_p) is judged on the p-value itself: a "
             "high p says no seat advantage was detected, not that there is none.", "",
             "## Recommended rule sets", ""]
    if best:
        lines += [f"- `{m.name}`: " + (", ".join(f"{k} = {v}" for k, v in changes.get(m.name, {}).items())
                                        or "the base rules") for m in best]
        lines += ["", table(best)]
    else:
        lines.append("None met every target with its whole interval; see the trade-off front.")
    lines += ["", "## Trade-off front", "", "Candidates that no other beats on every target at once:", "",
              table(front(final)), "", "## Everything tried (each candidate at its most deals)", "", table(final)]
    for number, measured in enumerate(report.rounds, start=1):
        lines += ["", f"### Round {number}: {measured[0].deals if measured else 0} deals", "", table(measured)]
    return "\n".join(lines) + "\n"


def write(report: TuneReport, changes: dict[str, dict]) -> Path:
    path = report.out / "report.md"
    path.write_text(markdown(report, changes), encoding="utf-8")
    return path
