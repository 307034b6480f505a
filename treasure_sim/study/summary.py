"""The figures printed after a run, read part by part so that the parent never holds the games table.

The headline is the lineup-adjusted strength (`stats.fit_strengths`); win share and net money follow as
columns, because with more entrants than seats they also measure who an entrant happened to sit with.
"""

from __future__ import annotations

import itertools
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..run.store import STDERR_DIR, iter_parts, read_manifest
from .precision import stopping_width
from .stats import (
    DEFAULT_NET,
    LEVEL,
    FitCheck,
    Interval,
    PairedAhead,
    Strengths,
    finish_comparisons,
    fit_check,
    fit_strengths,
    format_interval,
    method,
    paired_ahead,
    stratified_interval,
)

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["entrant", "entrant_id", "deal_id", "table_id", "game_id", "win_share", "net", "finish", "errors",
           "decisions", "failed_decisions", "first_error"]
METRICS = ("strength", "win_share", "net")  # what `treasure-sim run --until-ci --metric` may name
MAX_ERROR_SHARE = 0.01  # an entrant whose bot failed more of its decisions is not ranked (--max-error-share)


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
    failed: int | None = None  # decisions answered with an error (None: a folder written before it was counted)
    first_error: str = ""

    @property
    def error_share(self) -> float:
        """The share of its decisions that failed: never above 1 (errors while set up or told something are not
        decisions'); 1 for a bot that erred and never got to decide."""
        failed = min(self.errors, self.decisions) if self.failed is None else self.failed
        return failed / self.decisions if self.decisions else float(self.errors > 0)

    @property
    def shown_net(self) -> Interval:
        """The net the summary shows and ``--until-ci --metric net`` watches: luck-adjusted when there is one."""
        return self.net_adjusted if self.net_adjusted is not None else self.net


@dataclass(frozen=True)
class RunSummary:
    """Everything the run summary prints: the raw rows (in entrant order), the strengths of the ranked entrants,
    their observed head-to-head and the model's fit, the lineups, and the entrants left unranked."""

    rows: tuple[EntrantRow, ...]
    strengths: Strengths | None
    lineups: int
    net_note: str = ""  # why net is raw although the luck-adjusted one was asked for
    paired: PairedAhead | None = None  # observed P(ahead) of the ranked entrants (names as in strengths)
    fit: FitCheck | None = None
    max_error_share: float = MAX_ERROR_SHARE
    nets: dict[str, dict[int, float]] = field(default_factory=dict)  # entrant -> deal -> mean shown net
    stderr_logs: tuple[str, ...] = ()  # isolated bots' stderr files in the folder (non-empty ones)
    lineup_of: dict[int, int] = field(default_factory=dict)  # deal -> its lineup (table_id)
    antes: int | None = None  # chips in the pot before the first betting round, when fixed (the luck note)

    def unranked(self) -> list[EntrantRow]:
        """Entrants whose bots failed more than ``max_error_share`` of their decisions, most errors first."""
        return sorted((r for r in self.rows if r.error_share > self.max_error_share),
                      key=lambda r: (-r.error_share, r.entrant))

    def ranked(self) -> list[EntrantRow]:
        """Ranked rows by strength (strongest first); by win share when no strength could be fitted."""
        out = {r.entrant for r in self.unranked()}
        rows = [r for r in self.rows if r.entrant not in out]
        if self.strengths is None:
            return sorted(rows, key=lambda r: (-r.win.mean, r.entrant))
        place = {self.strengths.names[i]: k for k, i in enumerate(self.strengths.order)}
        return sorted(rows, key=lambda r: place.get(r.entrant, len(place)))

    def half_widths(self, metric: str = "strength") -> dict[str, float]:
        """Each entrant's interval half-width of ``metric`` (strength, win_share or net) as --until-ci watches it:
        win share and net through `precision.stopping_width` (infinite until the interval has enough degrees of freedom
        to stop on)."""
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
        if metric == "strength":
            if self.strengths is None:
                return {r.entrant: float("nan") for r in self.ranked()}
            return dict(zip(self.strengths.names, self.strengths.half_width.tolist(), strict=True))
        return {r.entrant: stopping_width(r.win if metric == "win_share" else r.shown_net) for r in self.rows}

    def head_to_head(self, entrant: str, level: float = LEVEL) -> list[tuple[str, float, float, float, Interval]]:
        """``entrant`` against each other ranked entrant: (opponent, observed P(ahead), low, high, the paired net
        difference per game over the deals both sat in, stratified by lineup)."""
        if self.paired is None or entrant not in self.paired.names:
            return []
        p, i = self.paired, self.paired.names.index(entrant)
        mine = self.nets.get(entrant, {})
        out = []
        for j, other in enumerate(p.names):
            if j == i or not p.deals[i, j]:
                continue
            theirs = self.nets.get(other, {})
            shared = sorted(set(mine) & set(theirs))
            diff = np.array([mine[d] - theirs[d] for d in shared])
            lineup = np.array([self.lineup_of.get(d, 0) for d in shared])
            out.append((other, float(p.mean[i, j]), float(p.low[i, j]), float(p.high[i, j]),
                        stratified_interval(diff, lineup, level)))
        return out


def run_summary(out: Path, level: float = LEVEL, replicates: int = 1000, net: str = DEFAULT_NET,
                max_error_share: float = MAX_ERROR_SHARE) -> RunSummary:
    """Read a results folder part by part and compute the summary (see `RunSummary`).

    A part holds whole deals, so each part is reduced as it is read to per-(entrant, deal) means and per-deal
    finishing comparisons: the parent keeps a few numbers per deal, never the games table. ``net="adjusted"``
    adds each entrant's luck-adjusted net (`luck.adjusted_games`, computed part by part and cached). Entrants
    whose bots failed more than ``max_error_share`` of their decisions are left out of the strengths and the
    head-to-head (`RunSummary.unranked`).
    """
    labels: dict[int, str] = {}
    games: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    decisions: Counter[int] = Counter()
    failed: Counter[int] = Counter()
    counted = True  # every part has failed_decisions
    first_error: dict[int, str] = {}
    deal_entrant: list[np.ndarray] = []
    deal_ids: list[np.ndarray] = []
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
        deal_ids.append(keys // span)
        deal_table.append(part["table_id"].to_numpy()[np.unique(where, return_index=True)[1]])
        deal_win.append(np.bincount(where, weights=part["win_share"].to_numpy()) / per_key)
        deal_net.append(np.bincount(where, weights=part["net"].to_numpy()) / per_key)
        for d in np.unique(keys // span):
            lineups.add(tuple((keys[keys // span == d] % span).tolist()))
        ids, first, n_rows = np.unique(entrant, return_index=True, return_counts=True)
        part_errors = np.bincount(entrant, weights=part["errors"].to_numpy())
        part_decisions = np.bincount(entrant, weights=part["decisions"].to_numpy())
        has_failed = "failed_decisions" in part.column_names
        counted &= has_failed
        part_failed = np.bincount(entrant, weights=part["failed_decisions"].to_numpy()) if has_failed else None
        for e, i, n in zip(ids.tolist(), first.tolist(), n_rows.tolist(), strict=True):
            labels.setdefault(e, part["entrant"][i].as_py())
            games[e] += n
            errors[e] += int(part_errors[e])
            decisions[e] += int(part_decisions[e])
            failed[e] += int(part_failed[e]) if part_failed is not None else 0
        if "first_error" in part.column_names and part["errors"].to_numpy().any():
            game_id = part["game_id"].to_numpy()
            for row in np.argsort(game_id, kind="stable"):
                message = part["first_error"][int(row)].as_py()
                if message:
                    first_error.setdefault(int(entrant[row]), message)
        deal_wins.append((deal, part["game_id"].to_numpy(), entrant, part["finish"].to_numpy(),
                          part["table_id"].to_numpy()))
    if not labels:
        return RunSummary((), None, 0, max_error_share=max_error_share)
    luck = _luck_nets(out) if net == "adjusted" else None  # first: its working memory is freed before scipy loads
    key_entrant, key_deal, table, win, net_means = (np.concatenate(a) for a in (
        deal_entrant, deal_ids, deal_table, deal_win, deal_net))
    rows = []
    for e, label in sorted(labels.items()):
        mine = key_entrant == e
        rows.append(EntrantRow(label, games[e], int(mine.sum()), errors[e], decisions[e],
                               stratified_interval(win[mine], table[mine], level),
                               stratified_interval(net_means[mine], table[mine], level),
                               failed=failed[e] if counted else None, first_error=first_error.get(e, "")))
    nets = {labels[e]: dict(zip(key_deal[key_entrant == e].tolist(), net_means[key_entrant == e].tolist(),
                                strict=True)) for e in labels}
    if luck is not None:
        rows, note, adjusted = _with_adjusted_net(luck, rows, level)
        nets = adjusted or nets
    else:
        note = ""
    summary = RunSummary(tuple(rows), None, len(lineups), note, max_error_share=max_error_share, nets=nets,
                         lineup_of=dict(zip(key_deal.tolist(), table.tolist(), strict=True)),
                         stderr_logs=_stderr_logs(out), antes=_antes(out))
    unranked = {r.entrant for r in summary.unranked()}
    ranked = {e: label for e, label in labels.items() if label not in unranked}
    strengths, paired, fit = _strengths(deal_wins, ranked, level, replicates)
    return replace(summary, strengths=strengths, paired=paired, fit=fit)


def _antes(out: Path) -> int | None:
    """The antes of a full table when they never grow (the pot when the hole cards are dealt), from the manifest."""
    manifest = read_manifest(out)
    if manifest is None:
        return None
    rules, seats = manifest.config.get("rules", {}), manifest.config.get("table_size")
    if rules.get("ante_growth", "none") != "none" or not isinstance(seats, int):
        return None
    return int(rules.get("ante", 1)) * seats


def _stderr_logs(out: Path) -> tuple[str, ...]:
    """The non-empty stderr files of isolated bots in the folder (`bots.isolated` writes them)."""
    folder = Path(out) / STDERR_DIR
    if not folder.is_dir():
        return ()
    return tuple(str(f) for f in sorted(folder.iterdir()) if f.is_file() and f.stat().st_size > 0)


def _luck_nets(out: Path) -> dict[str, pd.DataFrame]:
    """Per entrant, its luck-adjusted net per deal (``net``) and the deal's lineup (``table``), indexed by deal;
    empty when the folder has no seats table (written by an older treasure-sim)."""
    import pyarrow as pa

    from .luck import adjusted_games

    games = adjusted_games(out)
    pa.default_memory_pool().release_unused()  # the parts it read: ~20 MB back to the system before scipy loads
    if "net_adjusted" not in games.columns:
        return {}
    per = games.assign(entrant=games["entrant"].astype(str)).groupby(
        ["entrant", "deal_id"], observed=True).agg(net=("net_adjusted", "mean"), table=("table_id", "first"))
    return {str(entrant): part.droplevel("entrant") for entrant, part in per.groupby(level="entrant")}


def _with_adjusted_net(mine: dict[str, pd.DataFrame], rows: list[EntrantRow], level: float
                       ) -> tuple[list[EntrantRow], str, dict[str, dict[int, float]]]:
    """The rows with their luck-adjusted net (``mine``: `_luck_nets`), and each entrant's per-deal adjusted nets; the
    rows unchanged, with the reason, when the folder has no seats table."""
    if not mine:
        return rows, "no luck adjustment: the folder has no seats table (written by an older treasure-sim)", {}
    nets = {e: dict(zip(p.index.astype(int).tolist(), p["net"].tolist(), strict=True)) for e, p in mine.items()}
    return [replace(r, net_adjusted=stratified_interval(mine[r.entrant]["net"], mine[r.entrant]["table"], level))
            for r in rows], "", nets


def _strengths(parts: list[tuple[np.ndarray, ...]], labels: dict[int, str], level: float, replicates: int
               ) -> tuple[Strengths | None, PairedAhead | None, FitCheck | None]:
    """Fit the strengths of the entrants in ``labels`` (bootstrapped within lineups), their observed head-to-head
    and the model's fit check; Nones when no two of them ever shared a game."""
    ids = sorted(labels)
    if len(ids) < 2:
        return None, None, None
    code = np.full(max(max(ids), *(int(p[2].max()) for p in parts)) + 1, -1)
    code[ids] = np.arange(len(ids))
    wins, strata = [], []
    for d, g, e, f, t in parts:
        keep = code[e] >= 0
        deals, w = finish_comparisons(d[keep], g[keep], code[e][keep], f[keep], len(ids))
        wins.append(w)
        first = {int(x): int(y) for x, y in zip(d[keep][::-1], t[keep][::-1], strict=True)}
        strata.append(np.array([first[int(x)] for x in deals], dtype=np.int64))
    stacked = np.concatenate(wins) if wins else np.empty((0, len(ids), len(ids)))
    if not stacked.any():
        return None, None, None
    lineup = np.concatenate(strata)
    names = [labels[i] for i in ids]
    s = fit_strengths(stacked, names, replicates=replicates, level=level, strata=lineup)
    return s, paired_ahead(stacked, names, lineup, level), fit_check(stacked, s.theta, lineup)


# ----- the text the CLI prints ---------------------------------------------------------------------------------
WIDTH = 100  # no line of the summary is wider (a terminal)
NAME_WIDTH = 16  # longer entrant names are cut to this in the tables (with …)
LUCK_NOTE = ("net: luck-adjusted: net minus the luck of the chance events in pots of {min_pot} chips or more (the "
             "seat's all-cards-known share of the pot after the event minus its mean over every card that could "
             "have come; smaller pots are left uncorrected{uncorrected}) and of the actions the engine drew from "
             "chances a bot declared, times a chip value fitted on the other deals; it has the same expected value "
             "as the raw net and a narrower interval (docs/luck.md). Raw net: --net raw.")
FALLBACK = "its results reflect the engine's fallback answers (check, else fold), not the bot's own play"


def luck_note(antes: int | None = None) -> str:
    """What the luck adjustment corrects, with the rule it uses (`luck.Settings`); ``antes``: the chips in the pot
    when the hole cards and the New Treasure are dealt, if that is fixed (None: it grows, or unknown)."""
    from .luck import Settings

    min_pot = Settings().min_pot
    if antes is not None and antes < min_pot:
        uncorrected = (f": here the hole cards and the New Treasure, dealt when the pot holds only the {antes} chips "
                       f"of antes, are never corrected")
    else:
        uncorrected = ("; the hole cards and the New Treasure, dealt when the pot holds only the antes, are "
                       f"corrected only when the antes reach {min_pot}")
    return LUCK_NOTE.format(min_pot=min_pot, uncorrected=uncorrected)


def error_mark(errors: int, share: float) -> str:
    """'' for a bot without errors; else the count, share of decisions and ⚠ (see `error_note`)."""
    return "0" if not errors else f"{errors} ({share:.1%}) ⚠"


def error_note(entrant: str, errors: int, share: float) -> str:
    """The footnote that keeps a broken bot from being silently ranked."""
    return f"⚠ {entrant}: {errors} bot errors; {share:.1%} of its decisions failed: {FALLBACK}."


def short(name: str, width: int = NAME_WIDTH) -> str:
    """A name cut to ``width`` characters (… marks the cut)."""
    return name if len(name) <= width else name[:width - 1] + "…"


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


def _places(summary: RunSummary, ranked: list[EntrantRow]) -> tuple[list[str], list[tuple[str, str]]]:
    """The place of each ranked row ("5=" when it cannot be told from a neighbour) and the tied neighbours."""
    p = summary.paired
    ties: list[tuple[str, str]] = []
    if p is not None:
        for a, b in itertools.pairwise(ranked):
            i, j = p.names.index(a.entrant), p.names.index(b.entrant)
            if p.deals[i, j] and p.tied(i, j):
                ties.append((a.entrant, b.entrant))
    tied = {n for pair in ties for n in pair}
    return [f"{k + 1}{'=' * (r.entrant in tied)}" for k, r in enumerate(ranked)], ties


def _ahead(p: PairedAhead | None, a: str, b: str) -> str:
    """Observed P(a ahead of b) with its interval, or — if they never met."""
    if p is None:
        return "—"
    i, j = p.names.index(a), p.names.index(b)
    if not p.deals[i, j]:
        return "—"
    if np.isnan(p.low[i, j]):
        return f"{p.mean[i, j]:.2f}"
    return f"{p.mean[i, j]:.2f} [{p.low[i, j]:.2f}, {p.high[i, j]:.2f}]"


def plain_words(summary: RunSummary, ranked: list[EntrantRow], ties: list[tuple[str, str]]) -> str:
    """One sentence that reads the ranking for a poker player."""
    p = summary.paired
    if p is None or len(ranked) < 2:
        return ""
    best, second, worst = ranked[0].entrant, ranked[1].entrant, ranked[-1].entrant
    i = p.names.index(best)
    text = f"In plain words: {best} is the strongest bot in this field"
    if p.deals[i, p.names.index(second)]:
        text += (f": it finished ahead of {second}, the next best, in {p.mean[i, p.names.index(second)]:.0%} of the "
                 f"games they shared")
        if worst != second and p.deals[i, p.names.index(worst)]:
            text += f", and ahead of {worst}, the weakest, in {p.mean[i, p.names.index(worst)]:.0%}"
    text += "."
    if ties:
        pairs = "; ".join(f"{a} and {b}" for a, b in ties)
        text += (f" Too close to call (neither finished ahead of the other significantly more than half the "
                 f"time): {pairs}.")
    return text


def _matrix(summary: RunSummary, ranked: list[EntrantRow]) -> list[str]:
    """The observed P(row finishes ahead of column) of every ranked pair, with ± half-widths if they fit."""
    p = summary.paired
    if p is None or len(ranked) < 3:
        return []
    order = [p.names.index(r.entrant) for r in ranked]
    label = 3 + NAME_WIDTH
    wide = label + 11 * len(order) <= WIDTH

    def cell(i: int, j: int) -> str:
        if i == j:
            return "-"
        if not p.deals[i, j]:
            return "—"
        if wide and not np.isnan(p.low[i, j]):
            return f"{p.mean[i, j]:.2f}±{(p.high[i, j] - p.low[i, j]) / 2:.2f}"
        return f"{p.mean[i, j]:.2f}"

    if label + 6 * len(order) > WIDTH:
        return ["(too many entrants for a matrix here: `treasure-sim report` has the head-to-head of every pair)", ""]
    title = ("Observed P(row finished ahead of column) in the games they shared"
             + (", ± half-width of its 95% CI:" if wide else ":"))
    matrix = [("", *(str(k + 1) for k in range(len(order))))]
    matrix += [(f"{k + 1} {short(p.names[i])}", *(cell(i, j) for j in order)) for k, i in enumerate(order)]
    return [title, text_table(matrix), ""]


def fit_words(summary: RunSummary) -> str:
    """The fit check: the pairs where the strength model's P(ahead) and the games disagree."""
    f, s = summary.fit, summary.strengths
    if f is None or s is None or not f.pairs:
        return ""
    if not f.misfits:
        return (f"fit check: the model's P(ahead) agrees with the games for all {f.pairs} pairs (no Holm-adjusted "
                f"p < 0.05).")
    pairs = ", ".join(f"{s.names[a]} > {s.names[b]} {m:.2f} vs {o:.2f}" for a, b, m, o, _ in f.misfits)
    return (f"fit check: the model's P(ahead) differs from the games for {len(f.misfits)} of {f.pairs} pairs "
            f"(t-test over deals, Holm-adjusted p < 0.05; model vs games): {pairs}. There the chance of finishing "
            f"ahead depends on who else sits at the table: read the observed figures.")


def render(summary: RunSummary, level: float = LEVEL) -> str:
    """The ranking table, the observed head-to-head, the unranked entrants and the notes that say how to read
    them; no line wider than `WIDTH`."""
    s = summary.strengths
    ranked = summary.ranked()
    raw = "*" if summary.lineups > 1 else ""
    adjusted = all(r.net_adjusted is not None for r in summary.rows) and bool(summary.rows)
    places, ties = _places(summary, ranked)
    with_errors = any(r.errors for r in ranked)
    header = ["#", "entrant", f"strength [{level:.0%} CI]", "ahead of next", f"win share{raw}", f"net $/game{raw}"]
    if with_errors:
        header.append("errors")
    table = [tuple(header)]
    for k, r in enumerate(ranked):
        strength = "—"
        if s is not None and r.entrant in s.names:
            i = s.names.index(r.entrant)
            strength = format_interval((s.theta[i], s.low[i], s.high[i]), "+.2f")
        nxt = _ahead(summary.paired, r.entrant, ranked[k + 1].entrant) if k + 1 < len(ranked) else ""
        row = [places[k], short(r.entrant), strength, nxt, format_interval(r.win, ".3f", "pm"),
               format_interval(r.shown_net, "+.1f", "pm")]
        if with_errors:
            row.append(f"{r.errors}" + (" ⚠" if r.errors else ""))
        table.append(tuple(row))
    lines = ["Ranked by strength (a model of who finishes ahead of whom, fitted to every game, lineup-adjusted);",
             "ahead of next: how often it finished ahead of the next one in the games they shared [95% CI].", "",
             text_table(table, left=2)]
    words = plain_words(summary, ranked, ties)
    lines += ["", *textwrap.wrap(words, WIDTH), ""] if words else [""]
    unranked = summary.unranked()
    if unranked:
        lines.append(f"Not ranked: bots that failed more than {summary.max_error_share:.0%} of their decisions "
                     f"(--max-error-share {summary.max_error_share:g}):")
        for r in unranked:
            how = (f"{r.error_share:.1%} of {r.decisions} decisions failed" if r.decisions else
                   "it never got to decide (every decision was the engine's default)")
            lines += textwrap.wrap(f"{r.entrant}: {r.errors} bot errors, {how}; first: {r.first_error or '?'}", WIDTH,
                                   initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False)
        lines.append("")
    lines += _matrix(summary, ranked)
    notes = []
    if s is not None:
        within = " within lineups" if s.stratified else ""
        notes.append(f"strength: log-strength (mean 0) of a Bradley–Terry model fitted by maximum likelihood (choix) "
                     f"to the finishing order (final money, then the later elimination) of every pair in every "
                     f"game, exact ties half; {level:.0%} percentile bootstrap over deals{within} ({s.replicates} "
                     f"resamples), {s.deals} deals." + (f" Note: {s.note}." if s.note else "")
                     + " Its P(ahead) = 1 / (1 + e^-d) for entrants d apart assumes that chance does not depend on "
                       "who else sits at the table.")
        fit = fit_words(summary)
        if fit:
            notes.append(fit)
    else:
        notes.append("strength: not fitted (no two ranked entrants ever finished in the same game).")
    n_deals = max((r.deals for r in summary.rows), default=0)
    games = sorted({r.games for r in summary.rows})
    games_text = (f"{games[0]} games each" if len(games) == 1 else
                  ", ".join(f"{r.entrant} {r.games}" for r in summary.rows) + " games")
    if raw:
        notes.append(f"* win share and net depend on who shares a table: these {len(summary.rows)} entrants met in "
                     f"{summary.lineups} different lineups, so compare them by strength and head-to-head.")
    strata = (", stratified by lineup (only the spread within a lineup counts: docs/statistics.md)"
              if summary.lineups > 1 else "")
    notes.append(f"win share and net: {method(level)}{strata}; up to {n_deals} deals per entrant, {games_text}.")
    why = f" ({summary.net_note})" if summary.net_note else ""
    notes.append(luck_note(summary.antes) if adjusted else f"net: raw chips won or lost{why}.")
    notes += [error_note(r.entrant, r.errors, r.error_share) for r in ranked if r.errors]
    if summary.stderr_logs:
        notes.append("isolated bots' stderr (what they log): " + ", ".join(summary.stderr_logs))
    lines += [textwrap.fill(n, WIDTH, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False)
              for n in notes]
    return "\n".join(lines)


def head_to_head_text(summary: RunSummary, entrant: str, level: float = LEVEL) -> str:
    """``entrant`` against each other ranked entrant, paired over the deals both sat in: how often it finished
    ahead, and its net minus the other's per game (luck-adjusted when the summary's net is)."""
    rows = summary.head_to_head(entrant, level)
    if not rows:
        why = "it is not ranked" if entrant in {r.entrant for r in summary.unranked()} else "it met no one"
        return f"{entrant} head-to-head: none ({why})."
    adjusted = all(r.net_adjusted is not None for r in summary.rows)
    table = [("opponent", f"{short(entrant)} ahead [{level:.0%} CI]", f"net − theirs $/game [{level:.0%} CI]",
              "deals")]
    for other, mean, low, high, diff in rows:
        table.append((short(other), f"{mean:.2f} [{low:.2f}, {high:.2f}]" if not np.isnan(low) else f"{mean:.2f}",
                      format_interval(diff, "+.1f"), str(diff.n)))
    note = (f"Paired by deal: per deal the share of the games both sat in that {entrant} finished ahead (ties "
            f"half) and its {'luck-adjusted ' if adjusted else ''}net minus the other's; {method(level)}"
            f"{', stratified by lineup' if summary.lineups > 1 else ''}.")
    return "\n".join([f"{entrant} head-to-head:", "", text_table(table), "", textwrap.fill(note, WIDTH)])
