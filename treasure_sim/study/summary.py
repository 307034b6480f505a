"""The figures printed after a run, read part by part so that the parent never holds the games table.

The headline is the lineup-adjusted strength (`stats.fit_strengths`); win share and net money follow as
columns, because with more entrants than seats they also measure who an entrant happened to sit with.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..run.store import iter_parts
from .precision import stopping_width
from .stats import (
    DEFAULT_NET,
    LEVEL,
    STRATIFIED,
    Interval,
    Strengths,
    finish_comparisons,
    fit_strengths,
    format_interval,
    method,
    stratified_interval,
)

COLUMNS = ["entrant", "entrant_id", "deal_id", "table_id", "game_id", "win_share", "net", "finish", "errors",
           "decisions"]
METRICS = ("strength", "win_share", "net")  # what `treasure-sim run --until-ci --metric` may name


@dataclass(frozen=True)
class EntrantRow:
    """One entrant's raw figures: games, bot errors, and win share and net as intervals over its deals (stratified
    by lineup: `stats.stratified_interval`)."""

    entrant: str
    games: int
    deals: int
    errors: int
    decisions: int
    win: Interval
    net: Interval
    net_adjusted: Interval | None = None  # luck-adjusted net (`luck`), when the summary was asked for it

    @property
    def error_share(self) -> float:
        return self.errors / self.decisions if self.decisions else float(self.errors > 0)

    @property
    def shown_net(self) -> Interval:
        """The net the summary shows and ``--until-ci --metric net`` watches: luck-adjusted when there is one."""
        return self.net_adjusted if self.net_adjusted is not None else self.net


@dataclass(frozen=True)
class RunSummary:
    """Everything the run summary prints: the raw rows (in entrant order), the strengths and the lineups."""

    rows: tuple[EntrantRow, ...]
    strengths: Strengths | None
    lineups: int
    net_note: str = ""  # why net is raw although the luck-adjusted one was asked for

    def ranked(self) -> list[EntrantRow]:
        """Rows by strength (strongest first); by win share when no strength could be fitted."""
        if self.strengths is None:
            return sorted(self.rows, key=lambda r: (-r.win.mean, r.entrant))
        place = {self.strengths.names[i]: k for k, i in enumerate(self.strengths.order)}
        return sorted(self.rows, key=lambda r: place[r.entrant])

    def half_widths(self, metric: str = "strength") -> dict[str, float]:
        """Each entrant's interval half-width of ``metric`` (strength, win_share or net) as --until-ci watches it:
        win share and net through `precision.stopping_width` (infinite until the interval has enough degrees of freedom
        to stop on)."""
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
        if metric == "strength":
            if self.strengths is None:
                return {r.entrant: float("nan") for r in self.rows}
            return dict(zip(self.strengths.names, self.strengths.half_width.tolist(), strict=True))
        return {r.entrant: stopping_width(r.win if metric == "win_share" else r.shown_net) for r in self.rows}


def run_summary(out: Path, level: float = LEVEL, replicates: int = 1000, net: str = DEFAULT_NET) -> RunSummary:
    """Read a results folder part by part and compute the summary (see `RunSummary`).

    A part holds whole deals, so each part is reduced as it is read to per-(entrant, deal) means and per-deal
    finishing comparisons: the parent keeps a few numbers per deal, never the games table. ``net="adjusted"``
    adds each entrant's luck-adjusted net (`luck.adjusted_games`, computed part by part and cached).
    """
    labels: dict[int, str] = {}
    games: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    decisions: Counter[int] = Counter()
    deal_entrant: list[np.ndarray] = []
    deal_table: list[np.ndarray] = []
    deal_win: list[np.ndarray] = []
    deal_net: list[np.ndarray] = []
    deal_wins: list[tuple[np.ndarray, ...]] = []
    lineups: set[tuple[int, ...]] = set()
    for part in iter_parts(out, "games", COLUMNS):
        entrant, deal = part["entrant_id"].to_numpy().astype(np.int64), part["deal_id"].to_numpy().astype(np.int64)
        span = int(entrant.max()) + 1
        keys, where = np.unique(deal * span + entrant, return_inverse=True)
        per_key = np.bincount(where)
        deal_entrant.append(keys % span)
        deal_table.append(part["table_id"].to_numpy()[np.unique(where, return_index=True)[1]])
        deal_win.append(np.bincount(where, weights=part["win_share"].to_numpy()) / per_key)
        deal_net.append(np.bincount(where, weights=part["net"].to_numpy()) / per_key)
        for d in np.unique(keys // span):
            lineups.add(tuple((keys[keys // span == d] % span).tolist()))
        ids, first, counts = np.unique(entrant, return_index=True, return_counts=True)
        part_errors = np.bincount(entrant, weights=part["errors"].to_numpy())
        part_decisions = np.bincount(entrant, weights=part["decisions"].to_numpy())
        for e, i, n in zip(ids.tolist(), first.tolist(), counts.tolist(), strict=True):
            labels.setdefault(e, part["entrant"][i].as_py())
            games[e] += n
            errors[e] += int(part_errors[e])
            decisions[e] += int(part_decisions[e])
        deal_wins.append((deal, part["game_id"].to_numpy(), entrant, part["finish"].to_numpy()))
    if not labels:
        return RunSummary((), None, 0)
    key_entrant, table, win, net_means = (np.concatenate(a) for a in (deal_entrant, deal_table, deal_win, deal_net))
    rows = []
    for e, label in sorted(labels.items()):
        mine = key_entrant == e
        rows.append(EntrantRow(label, games[e], int(mine.sum()), errors[e], decisions[e],
                               stratified_interval(win[mine], table[mine], level),
                               stratified_interval(net_means[mine], table[mine], level)))
    rows, note = _with_adjusted_net(out, rows, level) if net == "adjusted" else (rows, "")
    return RunSummary(tuple(rows), _strengths(deal_wins, labels, level, replicates), len(lineups), note)


def _with_adjusted_net(out: Path, rows: list[EntrantRow], level: float) -> tuple[list[EntrantRow], str]:
    """The rows with their luck-adjusted net; unchanged, with the reason, when the folder has no seats table."""
    from .luck import adjusted_games

    games = adjusted_games(out)
    if "net_adjusted" not in games.columns:
        return rows, "no luck adjustment: the folder has no seats table (written by an older treasure-sim)"
    per = games.assign(entrant=games["entrant"].astype(str)).groupby(
        ["entrant", "deal_id"], observed=True).agg(net=("net_adjusted", "mean"), table=("table_id", "first"))
    mine = {str(entrant): part.droplevel("entrant") for entrant, part in per.groupby(level="entrant")}
    return [replace(r, net_adjusted=stratified_interval(mine[r.entrant]["net"], mine[r.entrant]["table"], level))
            for r in rows], ""


def _strengths(parts: list[tuple[np.ndarray, ...]], labels: dict[int, str], level: float, replicates: int
               ) -> Strengths | None:
    """Fit the strengths of the entrants seen; None when no two of them ever shared a game."""
    ids = sorted(labels)
    code = np.full(max(ids) + 1, -1)
    code[ids] = np.arange(len(ids))
    wins = [finish_comparisons(d, g, code[e], f, len(ids))[1] for d, g, e, f in parts]
    stacked = np.concatenate(wins) if wins else np.empty((0, len(ids), len(ids)))
    if len(ids) < 2 or not stacked.any():
        return None
    return fit_strengths(stacked, [labels[i] for i in ids], replicates=replicates, level=level)


# ----- the text the CLI prints ---------------------------------------------------------------------------------
WIDTH = 110  # the notes under the tables are wrapped to this
LUCK_NOTE = ("luck-adjusted net: net minus the luck of the cards at every chance event of every hand (the seat's "
             "all-cards-known share of the pot after the event minus its mean over every card that could have come) "
             "and at every betting decision the engine drew from chances a bot declared (the value after the action "
             "drawn minus its mean over the draw), times a chip value fitted on the other deals; it has the same mean "
             "as the raw net and a narrower interval (docs/luck.md). Raw net: --net raw.")
FALLBACK = "its results reflect the engine's fallback answers (check, else fold), not the bot's own play"


def error_mark(errors: int, share: float) -> str:
    """'' for a bot without errors; else the count, share of decisions and ⚠ (see `error_note`)."""
    return "0" if not errors else f"{errors} ({share:.1%}) ⚠"


def error_note(entrant: str, errors: int, share: float) -> str:
    """The footnote that keeps a broken bot from being silently ranked."""
    return f"⚠ {entrant}: {errors} bot errors in {share:.1%} of its decisions: {FALLBACK}."


def text_table(rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain-text table: a header, a rule, the rows; the first ``left`` columns left-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if j < left else c.rjust(w)
                               for j, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render(summary: RunSummary, level: float = LEVEL) -> str:
    """The ranking table, the P(ahead) matrix and the notes that say how to read them."""
    s = summary.strengths
    ranked = summary.ranked()
    raw = "*" if summary.lineups > 1 else ""
    adjusted = all(r.net_adjusted is not None for r in summary.rows) and bool(summary.rows)
    net_name = "luck-adjusted net $" if adjusted else "net $"
    header = ("#", "entrant", f"strength ({level:.0%} CI)", "P(ahead of next)", f"win share{raw} ({level:.0%} CI)",
              f"{net_name} per game{raw} ({level:.0%} CI)", "games", "bot errors")
    table = [header]
    for k, r in enumerate(ranked):
        strength = nxt = "—"
        if s is not None:
            i = s.names.index(r.entrant)
            strength = format_interval((s.theta[i], s.low[i], s.high[i]), "+.2f")
            if k + 1 < len(ranked):
                j = s.names.index(ranked[k + 1].entrant)
                nxt = format_interval((s.prob[i, j], s.prob_low[i, j], s.prob_high[i, j]), ".2f")
        table.append((str(k + 1), r.entrant, strength, nxt, format_interval(r.win, ".3f", "pm"),
                      format_interval(r.shown_net, "+.2f", "pm"), str(r.games), error_mark(r.errors, r.error_share)))
    lines = ["Ranked by lineup-adjusted strength (who finishes ahead of whom, whoever else sat at the table):", "",
             text_table(table, left=2), ""]
    if s is not None:
        order = [s.names.index(r.entrant) for r in ranked]
        matrix = [("P(row finishes ahead of column)", *(str(k + 1) for k in range(len(order))))]
        matrix += [(f"{k + 1} {s.names[i]}", *("-" if i == j else f"{s.prob[i, j]:.2f}" for j in order))
                   for k, i in enumerate(order)]
        lines += [text_table(matrix), ""]
        notes = [f"strength: log-strength, mean 0; entrants d apart finish in that order with P = 1 / (1 + e^-d). "
                 f"Finishing order: final money, then the later elimination. {s.method}, {s.deals} deals."
                 + (f" Note: {s.note}." if s.note else "")]
    else:
        notes = ["strength: not fitted (no two entrants ever finished in the same game)."]
    n_deals = max((r.deals for r in summary.rows), default=0)
    if raw:
        notes.append(f"* win share and net depend on who shares a table: these {len(summary.rows)} entrants met in "
                     f"{summary.lineups} different lineups, so compare them by strength.")
    strata = f"; {STRATIFIED}" if summary.lineups > 1 else ""
    notes.append(f"win share and net: {method(level)}{strata} (up to {n_deals} deals per entrant). games: seats "
                 f"played.")
    why = f" ({summary.net_note})" if summary.net_note else ""
    notes.append(LUCK_NOTE if adjusted else f"net: raw chips won or lost{why}.")
    notes += [error_note(r.entrant, r.errors, r.error_share) for r in ranked if r.errors]
    lines += [textwrap.fill(n, WIDTH, subsequent_indent="  ") for n in notes]
    return "\n".join(lines)
