"""The text printed after a run (`treasure-sim run`, through `cli.runs.summary`): the ranking table, the plain-words
verdict, the pairwise matrix, the notes on methods and on luck, a head-to-head view; no line wider than a terminal.
The figures themselves are computed in `summary` (`run_summary`); this module only lays them out."""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Sequence

import numpy as np

from .stats import LEVEL, PairedAhead, format_interval, method
from .summary import EntrantRow, RunSummary

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
