"""The designer's page's figures: what each power is worth, the starting cards' heat map, the skill ladder.

Apart from the page's text (`designer`) so each can be read alone; every figure says which estimator drew its
error bars.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from . import causal
from .plots import OKABE_ITO
from .stats import LEVEL, MULTIPLICITY, multiplicity_method

PAIRED = (f"paired difference per deal (same deal seed, opponents and seats in both arms), {LEVEL:.0%} Student-t "
          "interval over deals")
UNITS = {"net": ("chips", "+.1f"), "strength": ("share of opponents beaten", "+.3f")}

DECLINABLE = ("spades", "hearts", "diamonds")  # a bot offered these may always say no (rulings §6)
SIGNIFICANT_EDGE = "black"


def _power_label(entrant: str, what: str, value: float, flag: str, high: float = np.nan) -> str:
    """The figure's row label: the entrant and the power, and what a negative value is. Significantly negative
    (▼, after the adjustment) for a power it could decline: its misplay; below 0 over its whole interval but not
    after the adjustment: a possible misplay (``misplayed?``); for a power it cannot decline: a cost to it."""
    label = f"{entrant}: {what}"
    if flag == "▼":
        label += " (misplayed)" if what in DECLINABLE else " (costs it)"
    elif what in DECLINABLE and not flag and high < 0:
        label += " (misplayed?)"
    return label


def plot_power_values(values: pd.DataFrame, who: Mapping[str, str] | None = None) -> Figure:
    """Per metric, each (entrant, power) value with its interval; ★ where the adjusted test rejects.

    A value is what the power is worth *to that bot, played its way, in this field*; ``who`` names each studied
    entrant for the legend and the title (`whose`: "the reference player at budget N"). Rows whose value is
    significantly negative say why: a power the bot could have declined (Spades, Hearts, Diamonds) is misplayed.
    """
    who = {e: who.get(e, f"`{e}`") for e in values["entrant"].unique()} if who else {}
    n = int(values["arm"].nunique())
    fig = Figure(figsize=(11, max(3.4, 1.9 + 0.42 * n)), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, metric in zip(axes, causal.METRICS, strict=True):
        v = values[values["metric"] == metric].reset_index(drop=True)
        y = np.arange(len(v))[::-1]
        for k, entrant in enumerate(sorted(v["entrant"].unique())):
            mine = (v["entrant"] == entrant).to_numpy()
            r = v[mine]
            ax.errorbar(r["value"], y[mine], xerr=[r["value"] - r["low"], r["high"] - r["value"]], fmt="o",
                        color=OKABE_ITO[k % len(OKABE_ITO)], capsize=3,
                        label=_legend(entrant, who))
        flagged = v["flag"].astype(bool).to_numpy()
        if flagged.any():  # the star sits just right of the interval, inside the axes (it moves the limits)
            span = float(np.nanmax(v["high"]) - np.nanmin(v["low"])) or 1.0
            ax.plot(v["high"][flagged] + 0.04 * span, y[flagged], "*", color="black", markersize=9,
                    label="significant after adjustment")
        ax.margins(x=0.08, y=0.5 / max(len(v), 1))
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        labels = [_power_label(e, w, x, f, h) for e, w, x, f, h in zip(v["entrant"], v["what"], v["value"],
                                                                        v["flag"], v["high"], strict=True)]
        ax.set_yticks(y, labels)
        ax.set_xlabel(f"value of the power to the bot ({UNITS[metric][0]})")
        ax.set_title(f"{metric}: unrestricted − restricted", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    studied = list(dict.fromkeys(values["entrant"]))
    to = _plain(who[studied[0]]) if len(studied) == 1 and studied[0] in who else "each bot"
    fig.legend(handles, labels, loc="outside upper center", ncols=len(labels), fontsize=8, frameon=False,
               title=f"What each power is worth to {to} in this field (restricted play, paired by deal)",
               title_fontsize=11)
    how = MULTIPLICITY[multiplicity_method(values.attrs.get("multiplicity", "holm"))]
    fig.supxlabel(textwrap.fill(f"Error bars: {PAIRED}. ★: significant after {how} adjustment. A negative value: the "
                                "bot does better barred from the power; for a power it could decline (Spades, Hearts, "
                                "Diamonds), a misplay by that bot (\"misplayed?\": below 0 over its whole interval, "
                                "not after the adjustment).", 150), fontsize=8, color="0.35")
    return fig


def _legend(entrant: str, who: Mapping[str, str]) -> str:
    """``search (the reference player at budget 200)``, or the label alone for any other bot."""
    name = who.get(entrant, f"`{entrant}`")
    return entrant if name == f"`{entrant}`" else f"{entrant} ({_plain(name)})"


def _plain(text: str) -> str:
    """Markdown's backticks dropped, for a figure."""
    return text.replace("`", "")


def plot_heat_map(values: pd.DataFrame, metric: str = "net", suits: pd.DataFrame | None = None,
                  who: str | None = None) -> Figure:
    """The value of each starting card: per-suit means with intervals first (``suits``, from `suit_values`), then
    the suit x rank grid. Cells that survive the adjustment are framed, bold and in full colour; the others are
    faded; cards not studied are hatched grey with no number. Intervals: the page's table."""
    grid = causal.heat_grid(values, metric)
    v = values[values["metric"] == metric].drop_duplicates("what").set_index("what")
    lead = suits is not None and not suits.empty
    fig = Figure(figsize=(13, 4.4), layout="constrained")
    if lead:
        left, ax = fig.subplots(1, 2, width_ratios=[1, 4.2])
    else:
        ax = fig.subplots()
    cells = grid.to_numpy(dtype=float)
    limit = float(np.nanmax(np.abs(cells))) if np.isfinite(cells).any() else 1.0
    limit = limit or 1.0
    cmap = matplotlib.colormaps["RdBu"]
    norm = matplotlib.colors.Normalize(-limit, limit)
    ax.set_xlim(-0.5, len(grid.columns) - 0.5)
    ax.set_ylim(len(grid.index) - 0.5, -0.5)
    for i, suit in enumerate(grid.index):
        for j, rank in enumerate(grid.columns):
            card = rank + suit
            studied = card in v.index and np.isfinite(v.loc[card, "value"])
            if not studied:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.93", edgecolor="0.75", hatch="///",
                                       linewidth=0.5))
                continue
            value, flag = float(v.loc[card, "value"]), str(v.loc[card, "flag"])
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=cmap(norm(value)), alpha=1.0 if flag else 0.35,
                                   edgecolor=SIGNIFICANT_EDGE if flag else "white", linewidth=2.0 if flag else 0.5,
                                   zorder=3 if flag else 2))
            strong = flag and abs(value) > 0.6 * limit
            ax.text(j, i, f"{value:{UNITS[metric][1]}}{flag}", ha="center", va="center", fontsize=8, zorder=4,
                    fontweight="bold" if flag else "normal",
                    color="white" if strong else "black" if flag else "0.3")
    ax.set_xticks(range(len(grid.columns)), list(grid.columns))
    ax.set_yticks(range(len(grid.index)), [causal.SUIT_NAMES[s] for s in grid.index])
    ax.tick_params(length=0)
    entrant = v["entrant"].iloc[0] if len(v) else ""
    ax.set_title(f"each card ({metric}, endowed − base)", fontsize=10)
    fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label=UNITS[metric][0], shrink=0.9)
    if lead:
        assert suits is not None
        part = suits[suits["metric"] == metric].set_index("suit").reindex(list(grid.index)).reset_index()
        y = np.arange(len(part))
        ok = part["value"].notna().to_numpy()
        errors = [(part["value"] - part["low"])[ok], (part["high"] - part["value"])[ok]]
        left.errorbar(part["value"][ok], y[ok], xerr=errors, fmt="o", color="black", capsize=3)
        for yi, r in zip(y, part.to_dict("records"), strict=True):
            if r.get("flag"):
                left.plot([r["value"]], [yi], "o", color=OKABE_ITO[4] if r["value"] > 0 else OKABE_ITO[0],
                          markersize=9, zorder=3)
        left.axvline(0, color="grey", lw=0.8, ls="--")
        left.set_ylim(len(part) - 0.5, -0.5)
        left.set_yticks(y, [causal.SUIT_NAMES[s] for s in part["suit"]])
        left.margins(x=0.15)
        left.set_title("per suit: mean over its ranks", fontsize=10)
        left.set_xlabel(UNITS[metric][0])
        left.grid(axis="x", alpha=0.3)
    fig.suptitle(f"What starting every game with one card in {entrant}'s zone is worth to "
                 f"{_plain(who) if who else entrant} in this field", fontsize=11)
    fig.supxlabel("Framed, bold, full colour: significant after adjustment (▲/▼); faded: not shown to differ from 0; "
                  "hatched grey: not studied. Intervals: the page's tables.", fontsize=8, color="0.35")
    return fig


def plot_ladder(rungs: pd.DataFrame, depth: pd.DataFrame) -> Figure:
    """The climbing entrant at each rung, one line per rules variant, with intervals: strength (which has a
    ceiling), net chips and the head-to-head with the strongest opponent (which do not share it). Hollow markers:
    rungs at the strength ceiling."""
    panels = [("strength", "strength (share of opponents beaten)"), ("net", "net chips a game"),
              ("h2h", "share of games ahead of {opponent}")]
    fig = Figure(figsize=(13, 4.6), layout="constrained")
    axes = fig.subplots(1, 3)
    groups = list(dict.fromkeys(rungs["group"]))
    labels = list(dict.fromkeys(map(str, rungs["rung"])))  # every rung in listed order (some groups may lack one)
    d = depth.set_index("group")
    for ax, (metric, ylabel) in zip(axes, panels, strict=True):
        for k, group in enumerate(groups):
            r = rungs[rungs["group"] == group]
            x = np.array([labels.index(str(v)) for v in r["rung"]]) + (k - (len(groups) - 1) / 2) * 0.06
            color = OKABE_ITO[k % len(OKABE_ITO)]
            column = {"strength": "depth", "net": "depth_net", "h2h": "depth_h2h"}[metric]
            ax.errorbar(x, r[metric], yerr=[(r[metric] - r[f"{metric}_low"]).clip(lower=0),
                                            (r[f"{metric}_high"] - r[metric]).clip(lower=0)],
                        marker="o", capsize=3, color=color, label=f"{group} (depth {d.loc[group, column]})")
            pinned = r["ceiling"].to_numpy(dtype=bool)
            if metric == "strength" and pinned.any():
                ax.plot(x[pinned], r[metric][pinned], "o", markersize=10, markerfacecolor="white",
                        markeredgecolor=color, zorder=3)
        ax.set_xticks(range(len(labels)), labels)
        first = rungs[rungs["group"] == groups[0]]
        ax.set_xlabel(f"{first['entrant'].iloc[0]}: {first['param'].iloc[0]}")
        opponent = str(first["opponent"].iloc[0]) if "opponent" in first else ""
        ax.set_title(ylabel.format(opponent=opponent), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, title="rules (rungs told apart)", title_fontsize=7)
    fig.suptitle("Skill ladder: does a stronger version keep doing better?", fontsize=11)
    fig.supxlabel("Error bars: Student-t interval over deals. Hollow: the rung is at the strength ceiling (its "
                  "finishing order against every opponent pinned), where only net and head-to-head can rise.",
                  fontsize=8, color="0.35")
    return fig
