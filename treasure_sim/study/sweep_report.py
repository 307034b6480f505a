"""The sweep side of `treasure-sim report`: the variants of a sweep side by side, one table and figure per metric."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..run.store import Manifest
from . import balance as bal
from . import verdict
from .dynamics_report import Replayer, dynamics_section
from .markdown import by_key, cell, entrants_text, md_table, record_cell, records, save_figure
from .plots import OKABE_ITO
from .stats import DEFAULT_NET, SEAT_TEST, multiplicity_text

COMPARISONS = "comparisons.csv"

HIGHER, LOWER, SAME, BASE = OKABE_ITO[4], OKABE_ITO[0], "0.45", "#000000"  # vermillion, blue, grey, black
MARKERS = {"▲": ("^", HIGHER), "▼": ("v", LOWER), "": ("o", SAME)}
FORMATS = {"length": ".1f", "end": ".3f", "seat": ".3f", "skill": "+.1f", "showdown": ".3f", "ability": ".3f",
           "fold": ".1f", "value_money": "+.1f", "value_win": "+.3f"}
REFERENCE_LINE = {"skill": 0.0, "value_money": 0.0, "value_win": 0.0}
HEADLINE = bal.HEADLINE
PAIRING = ("Differences vs the baseline are paired by deal: every variant plays deal d from the same seed "
           "(common random numbers), so variant minus baseline is taken deal by deal and its 95% t interval is "
           "computed over deals. Where the variant deals the same cards to the same seats, the pair shares its "
           "card luck and the interval is much tighter than comparing two independent means; where it does not "
           "(another number of Jokers or seats changes the shuffle) the pairs are independent and the interval "
           "is still valid. Overlapping intervals of two variants do not mean they are alike: only the paired "
           "difference and its test decide.")


def value_table(table: pd.DataFrame, variants: list[str], fmt: str) -> str:
    """Rows = metrics, columns = variants; each cell the estimate, its interval and the ▲/▼ flag."""
    metrics = list(dict.fromkeys(table["metric"]))
    cells = by_key(table, "metric", "variant")
    rows = [[m] + [record_cell(cells[(m, v)], fmt) if (m, v) in cells else "—" for v in variants] for m in metrics]
    return md_table(["metric", *variants], rows)


def diff_table(table: pd.DataFrame, variants: list[str], baseline: str, fmt: str) -> str:
    """Rows = metrics, columns = variants but the baseline: the paired difference, bold where significant."""
    others = [v for v in variants if v != baseline]
    cells = table.set_index(["metric", "variant"])
    fmt = fmt if fmt.startswith("+") else "+" + fmt
    rows = []
    for m in dict.fromkeys(table["metric"]):
        row = [m]
        for v in others:
            if (m, v) not in cells.index or math.isnan(cells.loc[(m, v), "diff"]):
                row.append("—")
                continue
            c = cells.loc[(m, v)]
            text = cell(c["diff"], c["diff_low"], c["diff_high"], fmt)
            row.append(f"**{text} {c['flag']}**" if c["flag"] else text)
        rows.append(row)
    return md_table(["metric", *(f"{v} − {baseline}" for v in others)], rows)


def headline_table(compared: pd.DataFrame, variants: list[str]) -> str:
    """Rows = variants, columns = the metrics a designer looks at first (and every skill gap)."""
    skill = [("skill", m) for m in dict.fromkeys(compared.loc[compared["group"] == "skill", "metric"])]
    keys = [k for k in (*HEADLINE[:4], *skill, *HEADLINE[4:]) if
            ((compared["group"] == k[0]) & (compared["metric"] == k[1])).any()]
    cells = by_key(compared, "group", "metric", "variant")
    header = ["variant"] + [f"{bal.GROUPS[g][0].lower()}: {m}" for g, m in keys]
    rows = [[v] + [record_cell(cells[(g, m, v)], FORMATS[g]) if (g, m, v) in cells else "—" for g, m in keys]
            for v in variants]
    return md_table(header, rows)


def fold_table(fold: pd.DataFrame) -> str:
    rows = [[r["variant"], r["suit"], cell(r["cost"], r["cost_low"], r["cost_high"], ".1f"),
             cell(r["worth"], r["worth_low"], r["worth_high"], "+.1f"),
             cell(r["net"], r["net_low"], r["net_high"], "+.1f", r["flag"])] for r in records(fold)]
    return md_table(["variant", "suit taken", "chips given up [95% CI]", "worth: final money per Treasure",
                      "worth − cost"], rows)


# ----- figures -----------------------------------------------------------------------------------------------
def plot_group(table: pd.DataFrame, variants: list[str], baseline: str, title: str, xlabel: str,
               ref: float | None = None, legend: tuple[str, str, str] | None = None,
               caption: str = bal.METHOD) -> Figure:
    """One panel per metric (all-zero ones left out), one point per variant with its 95% interval and ▲/▼ flag.

    The baseline's value is the dashed line and its interval the shaded band, so a variant's distance
    from it reads at a glance; shape and colour both carry the flag (colour-blind safe).
    """
    spread = table[["metric", "mean", "ci_low", "ci_high"]].assign(
        mean=table["mean"].abs(), ci_low=table["ci_low"].abs(), ci_high=table["ci_high"].abs()
    ).groupby("metric", sort=False).max()
    metrics = [m for m in dict.fromkeys(table["metric"]) if spread.loc[m].max() > 0] or list(spread.index[:1])
    cols = min(3, len(metrics))
    rows = -(-len(metrics) // cols)
    wide = 4.3 * cols >= 9  # the legend's two columns need about 9 inches; a narrower figure stacks them
    fig = Figure(figsize=(max(4.3 * cols, 7.0), (0.32 * len(variants) + 1.3) * rows + (1.0 if wide else 1.6)),
                 layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True).ravel()
    for ax in axes[len(metrics):]:
        ax.set_visible(False)
    axes[0].set_ylim(-0.6, len(variants) - 0.4)
    y = {v: i for i, v in enumerate(reversed(variants))}
    legend = legend or ("higher than the baseline", "lower than the baseline", "not shown to differ")
    for ax, metric in zip(axes, metrics, strict=False):
        part = table[table["metric"] == metric]
        base = part[part["variant"] == baseline]
        if len(base) and not math.isnan(base["mean"].iloc[0]):
            if not math.isnan(base["ci_low"].iloc[0]):
                ax.axvspan(base["ci_low"].iloc[0], base["ci_high"].iloc[0], color="0.88", zorder=0)
            ax.axvline(base["mean"].iloc[0], color="0.3", linestyle="--", linewidth=1, zorder=1)
        if ref is not None:
            ax.axvline(ref, color="0.6", linestyle=":", linewidth=1, zorder=1)
        for r in part.itertuples():
            marker, color = (("o", BASE) if r.variant == baseline else MARKERS[r.flag])
            err = np.array([[max(r.mean - r.ci_low, 0)], [max(r.ci_high - r.mean, 0)]])
            ax.errorbar(r.mean, y[r.variant], xerr=None if math.isnan(r.ci_low) else err, fmt=marker, color=color,
                        ecolor=color, markersize=6, capsize=3, elinewidth=1.2, zorder=3)
        ax.set_yticks(list(y.values()), list(y))
        ax.set_title(metric, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(labelsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(5))
    handles = [fig.axes[0].errorbar([], [], fmt=m, color=c)[0] for m, c in (("o", BASE), ("^", HIGHER),
                                                                              ("v", LOWER), ("o", SAME))]
    fig.legend(handles, [f"baseline: {baseline} (dashed line and grey band: its value and interval)", *legend],
               loc="outside upper center", ncols=2 if wide else 1, fontsize=8, frameon=False, title=title,
               title_fontsize=12)
    width = int(fig.get_figwidth() * 14)
    fig.supxlabel(textwrap.fill(f"Error bars: {caption}.", width), fontsize=8, color="0.35")
    return fig


def plot_fold(fold: pd.DataFrame, variants: list[str], baseline: str) -> Figure:
    """Worth minus cost of a Treasure per suit and variant (an association: see _GROUP_TEXT["fold_value"])."""
    table = fold.rename(columns={"suit": "metric", "net": "mean", "net_low": "ci_low", "net_high": "ci_high"})
    return plot_group(table, variants, baseline, "Last folder: final money per Treasure held minus the chips given up "
                      "(an association)",
                      "chips (final money per Treasure held − chips given up to take it)", ref=0.0,
                      legend=("worth more than it cost", "cost more than it is worth", "not shown to differ"),
                      caption="worth and cost intervals combined as independent (see report.md)")


# ----- the report --------------------------------------------------------------------------------------------
def _setup(manifest: Manifest, result: bal.Balance) -> list[str]:
    base = manifest.config
    lines = [f"- base: {len(base.get('entrants', []))} entrants ({entrants_text(base)}); table size "
             f"{base.get('table_size')}, rotate = {str(base.get('rotate')).lower()}, seed {base.get('seed')}, "
             f"{manifest.deals} deals per variant", "- variants (each a normal results folder `DIR/<variant>/`):"]
    for v in manifest.variants:
        changes = ", ".join(f"{k} = {json.dumps(x) if isinstance(x, str) else str(x).lower()}"
                            for k, x in v.changes.items()) or "the base rules"
        mark = " **(baseline)**" if v.name == result.baseline else ""
        lines.append(f"  - `{v.name}`{mark}: {changes} — {v.games_done} of {v.games} games, {v.status}")
    if manifest.status != "complete":
        lines.append(f"- **sweep status: {manifest.status}**: only the games on disk are analysed")
    return lines


def multiplicity_line(result: bal.Balance) -> str:
    """The sentence that names the flags' correction and family, as every sweep report prints it."""
    family = "every difference vs the baseline in this report, Treasure values and worth − cost included"
    return (f"{multiplicity_text(result.multiplicity, result.family, family)}; the intervals are each 95% on their "
            f"own. Raw and adjusted p-values of every cell: [`{COMPARISONS}`]({COMPARISONS}).")


def run_sweep_report(sweep_dir: str | Path, out_dir: str | Path | None = None, multiplicity: str = "holm",
                     net: str = DEFAULT_NET, replayer: Replayer | None = None) -> Path:
    """Write ``report.md`` and one PNG per metric comparing a sweep's variants (default: ``DIR/report``).

    ``multiplicity`` (holm or bh) adjusts the p-values behind the ▲/▼ flags over the whole report; every
    cell with its raw and adjusted p-value is also written to ``comparisons.csv``. ``net``: the skill gap in
    luck-adjusted (default) or raw net chips.
    """
    sweep_dir = Path(sweep_dir)
    result = bal.sweep_balance(sweep_dir, multiplicity=multiplicity, net=net)
    out = Path(out_dir) if out_dir is not None else sweep_dir / "report"
    out.mkdir(parents=True, exist_ok=True)
    variants, baseline, compared = list(result.variants), result.baseline, result.compared
    pd.concat([compared, result.values.drop(columns="se"),
               result.fold.rename(columns={"suit": "metric", "net": "diff", "net_low": "diff_low",
                                           "net_high": "diff_high"}).assign(group="fold_value")],
              ignore_index=True).to_csv(out / COMPARISONS, index=False)
    md = [f"# Treasure Poker rules sweep: {result.manifest.name or sweep_dir.name}", "",
          "## Verdict", "", *(f"- {line}" for line in verdict.sweep_lines(compared, variants, baseline)), "",
          f"{verdict.METHOD}: {multiplicity_text(result.multiplicity, result.family, 'every difference here')}.", "",
          f"Data: `{sweep_dir}`", "", *_setup(result.manifest, result), "",
          f"Intervals: {bal.METHOD}. {PAIRING}", "", f"**Multiplicity:** {multiplicity_line(result)}", "",
          "## Headline", "", headline_table(compared, variants), "",
          f"Skill gaps: {'luck-adjusted' if result.net == 'adjusted' else 'raw'} net chips (docs/luck.md).", ""]
    for group, (title, unit) in bal.GROUPS.items():
        if group.startswith("value_"):
            continue
        table = compared[compared["group"] == group]
        if table.empty:
            continue
        fig = plot_group(table, variants, baseline, title, unit, ref=REFERENCE_LINE.get(group))
        seats = ["Are the seats equal? Joint test per variant (" + SEAT_TEST + "): " + "; ".join(
            f"{v}: {result.seat_tests[v].text()}" for v in variants if v in result.seat_tests) + ".", ""] \
            if group == "seat" else []
        text = _GROUP_TEXT.get(group, "") + (SKILL_NET[result.net] if group == "skill" else "")
        md += [f"## {title}", "", text, "", *seats,
               value_table(table, variants, FORMATS[group]), "",
               "Difference vs the baseline (paired by deal):", "",
               diff_table(table, variants, baseline, FORMATS[group]), "",
               f"![{title}]({save_figure(fig, out / f'sweep_{group}.png', dpi=100)})", ""]
    md += ["## What each suit's Treasures go with (an association, not a value)", "", _GROUP_TEXT["value"], ""]
    for group in ("value_money", "value_win"):
        table = result.values[result.values["group"] == group]
        title, unit = bal.GROUPS[group]
        fig = plot_group(table, variants, baseline, title, unit, ref=0.0, caption=bal.REGRESSION_METHOD)
        md += [f"### {title}", "", value_table(table, variants, FORMATS[group]), "",
               "Difference vs the baseline:", "", diff_table(table, variants, baseline, FORMATS[group]), "",
               f"![{title}]({save_figure(fig, out / f'sweep_{group}.png', dpi=100)})", ""]
    if not result.fold.empty:
        figure = save_figure(plot_fold(result.fold, variants, baseline), out / "sweep_fold_value.png", dpi=100)
        md += ["## Do last folders end richer? (an association)", "", _GROUP_TEXT["fold_value"], "",
               fold_table(result.fold), "", f"![last folder]({figure})", ""]
    dirs = {v.name: v.dir for v in result.manifest.variants}
    md += dynamics_section({name: sweep_dir / dirs[name] for name in variants}, out, replayer)
    path = out / "report.md"
    path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    return path


SKILL_NET = {"adjusted": " Net chips here are luck-adjusted: the luck of the cards at every chance event (and of "
                         "every action drawn from a bot's declared chances) is subtracted (same mean, narrower "
                         "intervals; docs/luck.md). `--net raw` shows chips as won.",
             "raw": " Net chips here are raw, as won (`--net adjusted` subtracts the luck of the cards)."}
_GROUP_TEXT = {
    "length": "Hands per game. Too long and the table tires; too short and the Treasures never build up.",
    "end": "How games end (shares add to 1): the deck running out, all players voting to stop, too few players "
           "left able to pay the ante, or the safety cap of `max_hands`. A game that mostly hits the cap has no "
           "natural end under these rules.",
    "seat": "Win share by seat, counted from the first dealer (seat 1 acts first). With rotated deals every entrant "
            "plays every seat, so the bots cancel out and what is left is the position. A fair seat wins "
            "1 / players.",
    "skill": "How much more the skilled bots win than `random`: per deal, the entrant's mean net chips minus "
             "random's. A rule change that shrinks this toward zero makes the game more of a lottery.",
    "showdown": "Which hand category won each pot (the main pot's first winner), and the share of pots won with no "
                "showdown because everyone else folded. Shares of all non-void hands; they add to 1.",
    "ability": "How often the Treasure abilities are used, per hand (all seats): Spades moved to the hand, cards "
               "drawn with Hearts, the share of hands with any Hearts draw and the chain (cards drawn in a hand "
               "with any draw), Diamonds steals, and the share of hands in which a Treasure was taken.",
    "fold": "The chips the last folder gave up (ante plus bets before folding, from the stacks before and after the "
            "hand) in the hand where a Treasure entered their zone, by the suit of the card taken, and in hands "
            "whose New Treasure was a Joker.",
    "value": f"Each player's final money (and win share) regressed on how many Treasures of each suit they held at "
             f"the end: one coefficient per suit. {bal.REGRESSION_METHOD}. **An association, not the value of a "
             "power**: survivors hold many Treasures and busted players almost none, so a coefficient measures "
             "survival as much as the suit. What a power or a starting Treasure is worth is measured by "
             "intervention: `treasure-sim balance` (restricted play and endowments, docs/designer.md).",
    "fold_value": "Worth is the suit's final-money coefficient above; cost the chips given up in the hand the "
                  "Treasure of that suit was taken. Worth − cost above zero (▲, tested against zero in the same "
                  "adjusted family) says that players who folded for that suit ended richer on average: an "
                  "association, not proof that folding paid. Its interval combines the two standard errors as if "
                  "independent.",
}
