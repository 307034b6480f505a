"""Figures of the analysis tables: every estimate drawn with its interval, in colour-blind-safe colours."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from .analysis import head_to_head_matrix

# Okabe & Ito (2008), safe for the common colour blindnesses; ordered so the look-alike pairs (blue/sky blue,
# orange/vermillion) get different line styles in `plot_trajectories` (even index solid, odd dashed).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")
FEW_DEALS = 10  # below this, intervals are marked with their number of deals
HEATMAP_CMAP = "cividis"  # perceptually uniform and readable with colour blindness


def strategy_colors(names: Iterable[str]) -> dict[str, str]:
    """A fixed colour per strategy (by sorted name) so a strategy looks the same in every figure."""
    return {n: OKABE_ITO[i % len(OKABE_ITO)] for i, n in enumerate(sorted(set(names)))}


def _errors(table: pd.DataFrame) -> np.ndarray:
    """Asymmetric error-bar lengths from ci_low/ci_high; no interval (one deal) draws no bar."""
    low = (table["mean"] - table["ci_low"]).fillna(0).clip(lower=0)
    high = (table["ci_high"] - table["mean"]).fillna(0).clip(lower=0)
    return np.vstack([low.to_numpy(dtype=float), high.to_numpy(dtype=float)])


def _few(deals: float | None, sep: str = "  ") -> str:
    """A mark on estimates from few deals, whose t interval is only a rough guide (it can even be empty)."""
    return f"{sep}({int(deals)} deals)" if deals is not None and deals == deals and deals < FEW_DEALS else ""


def _figure(n_rows: int, width: float = 8.0) -> Figure:
    return Figure(figsize=(width, max(2.6, 1.2 + 0.45 * n_rows)), layout="constrained")


def _caption(fig: Figure, table: pd.DataFrame, text: str | None = None) -> None:
    """The interval method under the figure, wrapped to its width, so a saved PNG explains itself."""
    text = text or (f"Error bars: {table.attrs['method']}." if table.attrs.get("method") else "")
    if text:
        width = int(fig.get_figwidth() * 14)
        fig.supxlabel(textwrap.fill(text, width), fontsize=8, color="0.35")


def _legend(fig: Figure, ax: Axes) -> None:
    """The legend above the axes, outside them, so it never hides a bar or a whisker."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(labels), fontsize=8, frameon=False)


def _hbars(table: pd.DataFrame, xlabel: str, title: str, fmt: str, ref: float | None, ref_label: str,
           colors: dict[str, str] | None) -> Figure:
    """Horizontal bars with interval whiskers, best at the top, full strategy names, values written at the end."""
    table = table.iloc[::-1].reset_index(drop=True)  # barh draws bottom-up: put the first row on top
    colors = colors or strategy_colors(table["strategy"])
    fig = _figure(len(table))
    ax = fig.add_subplot()
    y = np.arange(len(table))
    ax.barh(y, table["mean"], xerr=_errors(table), color=[colors[s] for s in table["strategy"]],
            edgecolor="none", capsize=4, error_kw={"elinewidth": 1.2, "ecolor": "0.15"})
    broken = table["bot_errors"].astype(bool) if "bot_errors" in table else pd.Series(False, index=table.index)
    ax.set_yticks(y, [f"{name} ⚠" if bad else name for name, bad in zip(table["strategy"], broken, strict=True)])
    for yi, row in zip(y, table.to_dict("records"), strict=True):  # the numbers, in a column right of the axes
        interval = "  (no interval)" if np.isnan(row["ci_low"]) else "  (no variance)" \
            if row["ci_low"] == row["ci_high"] else f"  [{row['ci_low']:{fmt}}, {row['ci_high']:{fmt}}]"
        interval += _few(row.get("deals"))
        ax.annotate(f"{row['mean']:{fmt}}{interval}", (1.0, yi), xycoords=("axes fraction", "data"), xytext=(8, 0),
                    textcoords="offset points", va="center", fontsize=8, family="monospace")
    if ref is not None:
        ax.axvline(ref, color="0.3", linestyle="--", linewidth=1, label=ref_label)
        _legend(fig, ax)
    if broken.any():
        title += "\n⚠ bot errors: the marked entrants' results reflect the engine's fallback answers"
    lo = min(0.0, float(np.nanmin(table[["mean", "ci_low"]].to_numpy(dtype=float))))
    hi = max(0.0, float(np.nanmax(table[["mean", "ci_high"]].to_numpy(dtype=float))))
    span = (hi - lo) or 1.0
    ax.set_xlim(lo - 0.05 * span * (lo < 0), hi + 0.05 * span)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    return fig


def _table_caveat(what: str, table: pd.DataFrame, lineups: int | None) -> str:
    """The summary's caveat: a win share or net measures the table an entrant drew as much as the entrant."""
    if lineups is not None and lineups > 1:
        return (f"{what} depend on who shares a table: these {len(table)} entrants met in {lineups} different "
                "lineups, so compare them by strength.")
    return (f"{what} depend on who shares a table: entrants who met in different lineups are compared by strength, "
            "not by this figure.")


def plot_win_shares(table: pd.DataFrame, colors: dict[str, str] | None = None, lineups: int | None = None) -> Figure:
    """Mean win share per strategy (from `analysis.win_rates`) with its interval and the equal-share line.

    ``lineups``: how many different lineups the entrants met in (the caption says what that means)."""
    fair: Sequence[float] = table["fair"].dropna().unique().tolist() if "fair" in table else []
    ref = float(fair[0]) if len(fair) == 1 else None
    fig = _hbars(table, "win share (fraction of games finished with the most chips; ties split)",
                 "Win share per strategy", ".3f", ref, f"equal share ({ref:.3g})" if ref else "", colors)
    method = f"Error bars: {table.attrs['method']}. " if table.attrs.get("method") else ""
    _caption(fig, table, method + _table_caveat("Win shares", table, lineups))
    return fig


def plot_mean_net(table: pd.DataFrame, colors: dict[str, str] | None = None, lineups: int | None = None) -> Figure:
    """Mean net chips per game per strategy (from `analysis.mean_net`) with its interval; 0 = break even."""
    fig = _hbars(table, "mean net money per game (chips; final minus starting stack)",
                 "Mean net money per strategy", ".1f", 0.0, "break even", colors)
    method = f"Error bars: {table.attrs['method']}. " if table.attrs.get("method") else ""
    _caption(fig, table, method + _table_caveat("Net chips", table, lineups))
    return fig


def plot_head_to_head(h2h: pd.DataFrame, order: Sequence[str] | None = None) -> Figure:
    """Heatmap: share of shared games the row strategy finished ahead of the column one, with its interval.

    Pass ``order`` (e.g. strongest first) so the cells above the diagonal read as upsets or not at a glance.
    """
    share = head_to_head_matrix(h2h, "mean", order)
    low = head_to_head_matrix(h2h, "ci_low", order).to_numpy(dtype=float)
    high = head_to_head_matrix(h2h, "ci_high", order).to_numpy(dtype=float)
    deals = head_to_head_matrix(h2h, "deals", order).to_numpy(dtype=float) if "deals" in h2h else None
    values = share.to_numpy(dtype=float)
    n = len(share)
    label = 0.075 * max((len(str(x)) for x in share.index), default=0)  # inches of the longest name at 10 pt
    fig = Figure(figsize=(2.6 + label + 1.1 * n, 2.4 + 0.5 * label + 1.0 * n), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(values, cmap=HEATMAP_CMAP, vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            v = float(values[i, j])
            if np.isnan(v):
                continue
            text = f"{v:.2f}"
            if not np.isnan(low[i, j]):
                text += "\n(no variance)" if low[i, j] == high[i, j] else f"\n[{low[i, j]:.2f}, {high[i, j]:.2f}]"
            if deals is not None:
                text += _few(float(deals[i, j]), "\n")
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if v < 0.55 else "black")
    ax.set_xticks(range(n), share.columns, rotation=30, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n), share.index)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    ax.set_title("Head-to-head: share of shared games\nthe row strategy finished ahead of the column")
    fig.colorbar(image, ax=ax, shrink=0.8, label="share of games ahead (ties count ½)")
    _caption(fig, h2h, "Cells: share and its " + h2h.attrs.get("method", "interval") + ".")
    return fig


def plot_strengths(table: pd.DataFrame, colors: dict[str, str] | None = None) -> Figure:
    """Lineup-adjusted strength per entrant (`analysis.strengths`) with its bootstrap interval, strongest on top."""
    fig = _hbars(table.rename(columns={"strength": "mean"}), "log-strength (mean 0; entrants d apart finish in "
                 "order with P = 1 / (1 + e^-d))", "Lineup-adjusted strength", "+.2f", 0.0, "average entrant",
                 colors)
    _caption(fig, table, f"Error bars: {table.attrs.get('method', '')}.")
    return fig


def plot_planning(plan: pd.DataFrame, targets: Mapping[str, Sequence[float]] | None = None) -> Figure:
    """Deals needed for a target half-width at the observed spread, one panel per metric, one line per entrant.

    n(W) = deals × (half-width now / W)²; the dot is where the run stands now.
    """
    metrics = list(dict.fromkeys(plan["metric"]))
    fig = Figure(figsize=(4.2 * len(metrics), 3.8), layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    colors = strategy_colors(plan["strategy"])
    for ax, metric in zip(axes, metrics, strict=True):
        part = plan[(plan["metric"] == metric) & np.isfinite(plan["half_width"]) & (plan["half_width"] > 0)]
        if part.empty:
            ax.set_visible(False)
            continue
        lo, hi = float(part["half_width"].min()) / 4, float(part["half_width"].max()) * 2
        widths = np.geomspace(lo, hi, 50)
        for r in part.itertuples():
            ax.plot(widths, r.deals * (r.half_width / widths) ** 2, color=colors[r.strategy], label=r.strategy)
            ax.plot([r.half_width], [r.deals], "o", color=colors[r.strategy])
        for w in (targets or {}).get(metric, ()):
            ax.axvline(w, color="0.5", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        for axis in (ax.xaxis, ax.yaxis):  # plain numbers at 1, 2, 5 x 10^k, unlabelled minor ticks: never crowded
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=5))
            axis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(f"target half-width of the {metric} interval")
        ax.set_title(metric)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("deals needed")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(6, len(labels)), fontsize=8, frameon=False)
    _caption(fig, plan, "Deals needed = deals now × (half-width now / target)²: intervals shrink as 1 / √deals. "
                        "Dots: this run. `treasure-sim run --until-ci W` plays until every interval reaches W.")
    return fig


def _seat_name(seat: int, n: int) -> str:
    if seat == 0:
        return "0\n(dealer first)"
    if seat == 1:
        return "1\n(acts first)" if n > 2 else "1"
    return str(seat)


def plot_seat_advantage(table: pd.DataFrame) -> Figure:
    """Win share by seat relative to the first dealer (from `analysis.seat_advantage`), one panel per table size."""
    sizes = sorted(table["n_players"].unique())
    fig = Figure(figsize=(max(6.0, 1.0 + 0.8 * table["seat"].nunique()), 3.6 * len(sizes)), layout="constrained")
    axes = fig.subplots(len(sizes), 1, squeeze=False)[:, 0]
    for ax, n in zip(axes, sizes, strict=True):
        part = table[table["n_players"] == n].sort_values("seat")
        x = np.arange(len(part))
        ax.bar(x, part["mean"], yerr=_errors(part), color=OKABE_ITO[0], capsize=4,
               error_kw={"elinewidth": 1.2, "ecolor": "0.15"})
        ax.axhline(1 / n, color="0.3", linestyle="--", linewidth=1, label="equal share (1 / players)")
        ax.set_xticks(x, [_seat_name(int(s), int(n)) for s in part["seat"]])
        ax.set_xlabel("seat (position relative to the first dealer)")
        ax.set_ylabel("win share")
        ax.set_ylim(0, max(1 / n * 2, float(part["ci_high"].max(skipna=True) or 0) * 1.15))
        ax.set_title(f"Seat advantage: win share by position, {n} players")
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    _legend(fig, axes[0])
    _caption(fig, table)
    return fig


def plot_trajectories(traj: pd.DataFrame, max_games: int = 6, colors: dict[str, str] | None = None) -> Figure:
    """Money per seat over the hands of a few games (from `analysis.trajectories`), one panel per game.

    Line styles alternate along the palette (solid, dashed) so neighbouring colours stay apart in a panel.
    """
    keys = [c for c in ("run", "experiment", "game_id") if c in traj.columns]
    chosen = traj[keys].drop_duplicates().head(max_games)
    colors = colors or strategy_colors(traj["strategy"].dropna())
    base_style = {name: "-" if i % 2 == 0 else "--" for i, name in enumerate(colors)}
    n = max(1, len(chosen))
    cols = min(3, n)
    rows = -(-n // cols)
    fig = Figure(figsize=(max(4.2 * cols, 7.0), 3.0 * rows + 0.8), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True).ravel()
    ends: dict[Axes, list[tuple[float, float, str, str]]] = {}
    for ax in axes[len(chosen):]:
        ax.set_visible(False)
    seen: dict[str, Line2D] = {}
    many_runs = "run" in traj.columns and traj["run"].nunique() > 1
    for ax, key in zip(axes, chosen.itertuples(index=False), strict=False):
        game = traj.merge(pd.DataFrame([key], columns=keys), on=keys)
        repeats: dict[str, int] = {}  # a strategy in several seats: dotted styles for its other seats
        for seat, g in game.groupby("seat", sort=True):
            name = str(g["strategy"].iloc[0])
            k = repeats[name] = repeats.get(name, -1) + 1
            style = base_style.get(name, "-") if k == 0 else (":", "-.")[k % 2]
            (line,) = ax.plot(g["hand_no"], g["money"], color=colors.get(name, "0.5"), linestyle=style,
                              linewidth=1.4, label=name)
            seen.setdefault(name, line)
            ends.setdefault(ax, []).append((float(g["hand_no"].iloc[-1]), float(g["money"].iloc[-1]), f"s{seat}",
                                            colors.get(name, "0.5")))
        title = f"game {game['game_id'].iloc[0]}"
        if {"deal_id", "rotation"} <= set(game.columns):
            title += f" (deal {game['deal_id'].iloc[0]}, rotation {game['rotation'].iloc[0]})"
        ax.set_title(title + (f" {game['run'].iloc[0]}" if many_runs else ""), fontsize=10)
        ax.set_xlabel("hand")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    for ax, labels in ends.items():
        _end_labels(ax, labels)
    for ax in axes[::cols]:
        ax.set_ylabel("money (chips)")
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncols=min(4, len(seen)), fontsize=8,
                   frameon=False)
    fig.suptitle("Money over the hands of a game (s = seat; one game's luck, not a skill estimate)",
                 fontsize=11 if cols > 1 else 10)
    return fig


END_LABEL_GAP = 0.075  # the least vertical distance between two end labels, as a share of the axes' height


def _end_labels(ax: Axes, labels: list[tuple[float, float, str, str]]) -> None:
    """Seat labels at the end of each line, moved apart vertically where lines end close together (a thin tick
    joins a moved label to its line's end)."""
    low, high = ax.get_ylim()
    span = (high - low) or 1.0
    order = sorted(labels, key=lambda e: e[1])
    spots: list[float] = []
    for _, y, _, _ in order:  # sweep upwards: each label at least a gap above the one below
        spot = (y - low) / span
        spots.append(max(spot, spots[-1] + END_LABEL_GAP) if spots else spot)
    overflow = spots[-1] - 0.98 if spots else 0.0
    if overflow > 0:  # too high at the top: move the stack down, keeping the gaps, no lower than the axes
        spots = [max(s - overflow, 0.02 + i * END_LABEL_GAP) for i, s in enumerate(spots)]
    for (x, y, text, color), spot in zip(order, spots, strict=True):
        moved = abs(spot - (y - low) / span) > 1e-6
        ax.annotate(text, (x, y), xytext=(4, spot), textcoords=("offset points", "axes fraction"), fontsize=7,
                    va="center", color=color,
                    arrowprops={"arrowstyle": "-", "color": color, "linewidth": 0.6} if moved else None)
