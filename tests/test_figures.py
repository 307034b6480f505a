"""Every figure the reports save is readable at the size it is saved at: drawn with few rows and with many, no
text, legend or marker falls outside the canvas (or outside its axes, for markers), and no two labels of an axis or
texts in an axes overlap. Each figure is drawn as `markdown.save_figure` draws it (its own size, no tight bbox)."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from test_analysis import make_games, make_hands

from treasure_sim.design.tune import Measured
from treasure_sim.design.tune_report import plot_candidates
from treasure_sim.study import analysis as an
from treasure_sim.study import causal, designer, plots
from treasure_sim.study.sweep_report import plot_fold, plot_group

LONG = "a-very-long-strategy-label-that-must-not-be-cut"
TOLERANCE = 1.5  # pixels


def _names(n: int) -> dict[str, float]:
    names = [LONG, "random", "tight", "loose", "maniac", "rock", "equity", "treasure_hunter", "calling_station",
             "pair_hunter", "bluffer", "nit"]
    return {names[i] if i < len(names) else f"bot_{i}": 1.0 - 2 * i / max(n - 1, 1) for i in range(n)}


def _inside(outer, inner) -> bool:
    return (inner.x0 >= outer.x0 - TOLERANCE and inner.y0 >= outer.y0 - TOLERANCE
            and inner.x1 <= outer.x1 + TOLERANCE and inner.y1 <= outer.y1 + TOLERANCE)


def _overlap(a, b) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > TOLERANCE and min(a.y1, b.y1) - max(a.y0, b.y0) > TOLERANCE


def _drawn_ticklabels(ax: Axes, which: str) -> list[Text]:
    """The tick labels an axis draws: those of ticks inside its view interval, visible and not empty."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    low, high = sorted(axis.get_view_interval())
    slack = 1e-9 * abs(high - low)
    return [label for minor in (False, True)
            for loc, label in zip(axis.get_ticklocs(minor=minor), axis.get_ticklabels(minor=minor), strict=False)
            if low - slack <= loc <= high + slack and label.get_visible() and label.get_text().strip()]


def problems(fig: Figure) -> list[str]:
    """What a reader of the saved PNG would miss: cut text, legends or markers, and overlapping labels."""
    canvas_ = FigureCanvasAgg(fig)
    fig.savefig(io.BytesIO(), format="png", dpi=100)  # lays the figure out as saving it does
    renderer = canvas_.get_renderer()
    canvas = fig.bbox
    found = []
    figure_level = [*fig.texts, *fig.legends, *(t for t in (fig._suptitle, fig._supxlabel, fig._supylabel) if t)]
    for artist in figure_level:
        if not artist.get_visible() or (isinstance(artist, Text) and not artist.get_text().strip()):
            continue
        if not _inside(canvas, artist.get_window_extent(renderer)):
            what = artist.get_text() if isinstance(artist, Text) else "legend"
            found.append(f"outside the canvas: {what[:60]!r}")
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        title = ax.get_title() or ax.get_label()
        if not _inside(canvas, ax.get_tightbbox(renderer)):
            parts = [*_drawn_ticklabels(ax, "x"), *_drawn_ticklabels(ax, "y"), ax.title, ax.xaxis.label,
                     ax.yaxis.label, *ax.texts, *([ax.get_legend()] if ax.get_legend() else [])]
            cut = [p for p in parts if p.get_visible() and not _inside(canvas, p.get_window_extent(renderer))
                   and (not isinstance(p, Text) or p.get_text().strip())]
            found.append(f"outside the canvas, in {title!r}: "
                         + (", ".join(repr(p.get_text()[:40]) if isinstance(p, Text) else "legend" for p in cut)
                            or "part of the axes"))
        for line in ax.lines:
            if not line.get_visible() or line.get_marker() in (None, "None", "", " "):
                continue
            xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
            xy = xy[np.isfinite(xy).all(axis=1)]
            box = ax.bbox
            out = (xy[:, 0] < box.x0 - TOLERANCE) | (xy[:, 0] > box.x1 + TOLERANCE) | \
                  (xy[:, 1] < box.y0 - TOLERANCE) | (xy[:, 1] > box.y1 + TOLERANCE)
            if out.any():
                found.append(f"marker outside its axes: {line.get_label()!r} in {title!r}")
        for which in "xy":
            boxes = [t.get_window_extent(renderer) for t in _drawn_ticklabels(ax, which)]
            found += [f"{which} tick labels overlap in {title!r}"
                      for a, b in itertools.combinations(boxes, 2) if _overlap(a, b)][:1]
        texts = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        for a, b in itertools.combinations(texts, 2):  # the text itself, not an annotation's connecting line
            if _overlap(Text.get_window_extent(a, renderer), Text.get_window_extent(b, renderer)):
                found.append(f"texts overlap in {title!r}: {a.get_text()!r} and {b.get_text()!r}")
                break
    return found


# ----- the figures of a run's report -----------------------------------------------------------------------
@pytest.fixture(scope="module", params=[2, 10], ids=["few", "many"])
def games(request):
    return make_games(n_deals=8, skills=_names(request.param))


def test_run_report_figures(games):
    fitted = an.fit(games)
    order = an.strengths(fitted=fitted)["strategy"].tolist()
    small = games[games["deal_id"] < 2]
    figures = {
        "strength": plots.plot_strengths(an.strengths(fitted=fitted)),
        "win shares": plots.plot_win_shares(an.win_rates(games)),
        "net": plots.plot_mean_net(an.mean_net(games)),
        "head to head": plots.plot_head_to_head(an.head_to_head(games), order),
        "seats": plots.plot_seat_advantage(an.seat_advantage(games)),
        "planning": plots.plot_planning(an.planning(games, fitted), {"strength": (0.1, 0.05)}),
        "trajectories": plots.plot_trajectories(an.trajectories(an.Results(small, make_hands(small, 30), {})), 6),
    }
    assert {name: problems(fig) for name, fig in figures.items()} == {key: [] for key in figures}


def test_trajectory_end_labels_never_overlap():
    """Four seats ending on the same money (a game where three players bust) used to print s0..s3 on one spot."""
    rows = [{"run": "r", "experiment": "e", "game_id": 0, "deal_id": 0, "rotation": 0, "hand_no": h, "seat": s,
             "strategy": name, "money": (400 if s == 0 else 0) if h == 9 else 100}
            for h in range(10) for s, name in enumerate(["random", "rock", "maniac", "equity"])]
    fig = plots.plot_trajectories(pd.DataFrame(rows))
    assert problems(fig) == []
    ax = next(a for a in fig.axes if a.get_visible())
    assert sorted(t.get_text() for t in ax.texts) == ["s0", "s1", "s2", "s3"]


def test_win_share_and_net_figures_say_they_depend_on_the_table(games):
    for plot, table in ((plots.plot_win_shares, an.win_rates(games)), (plots.plot_mean_net, an.mean_net(games))):
        caption = plot(table, lineups=3).get_supxlabel().replace("\n", " ")
        assert "met in 3 different lineups" in caption and "compare them by strength" in caption
        assert "depend on who shares a table" in plot(table).get_supxlabel().replace("\n", " ")


# ----- a sweep's report ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 14], ids=["few", "many"])
def test_sweep_figures(n):
    rng = np.random.default_rng(n)
    variants = ["baseline", *(f"variant-with-a-long-name-{i}" for i in range(n - 1))]
    rows = []
    for metric in ("hands per game", "seat 0", "natural end"):
        for v in variants:
            mean = 100 + rng.normal(0, 30)
            rows.append({"metric": metric, "variant": v, "mean": mean, "ci_low": mean - 20, "ci_high": mean + 20,
                         "flag": rng.choice(["", "▲", "▼"])})
    table = pd.DataFrame(rows)
    fold = table.rename(columns={"metric": "suit", "mean": "net", "ci_low": "net_low", "ci_high": "net_high"})
    one = table[table["metric"] == "hands per game"]  # one panel, as sweep_length.png: the legend must still fit
    figures = {"group": plot_group(table, variants, "baseline", "Game length", "hands per game"),
               "one metric": plot_group(one, variants, "baseline", "Game length", "hands per game"),
               "fold": plot_fold(fold, variants, "baseline")}
    assert {name: problems(fig) for name, fig in figures.items()} == {key: [] for key in figures}


# ----- the designer's page ---------------------------------------------------------------------------------------
def _power_values(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(n)
    rows = []
    pairs = list(itertools.product(["equity", "treasure_hunter", "pair_hunter", "rock"],
                                   ["spades", "clubs", "hearts", "diamonds", "new_treasure"]))[:n]
    for entrant, power in pairs:
        for metric, scale in (("net", 50.0), ("strength", 0.1)):
            value = rng.normal(0, scale)
            rows.append({"arm": f"power.{entrant}.{power}", "entrant": entrant, "what": power, "metric": metric,
                         "value": value, "low": value - scale / 2, "high": value + scale / 2, "p": 0.01,
                         "deals": 40, "flag": "▲" if value > scale / 2 else "▼" if value < -scale / 2 else ""})
    return pd.DataFrame(rows)


def _endowments(n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(n)
    cards = [r + s for s in "scdh" for r in causal.RANK_ORDER][:n]
    rows = []
    for card in cards:
        for metric, scale in (("net", 20.0), ("strength", 0.05)):
            value = rng.normal(0, scale)
            rows.append({"arm": card, "entrant": "treasure_hunter", "what": card, "metric": metric, "value": value,
                         "low": value - scale, "high": value + scale, "p": 0.01, "deals": 40,
                         "flag": "▲" if value > scale else ""})
    values = pd.DataFrame(rows).assign(rank=lambda v: v["what"].str[0], suit=lambda v: v["what"].str[1])
    suits = pd.DataFrame([{"suit": s, "metric": m, "cards": 1, "value": 3.0, "low": -5.0, "high": 11.0,
                           "flag": "▲" if s == "c" else ""} for s in sorted({c[1] for c in cards})
                          for m in causal.METRICS])
    return values, suits


def _ladder(groups: int, rungs: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, depth = [], []
    for g in range(groups):
        name = "base" if g == 0 else f"variant-{g}"
        for r in range(rungs):
            row = {"group": name, "entrant": "equity", "param": "rollouts", "rung": 3 ** r, "deals": 40,
                   "opponent": "treasure_hunter", "ceiling": g == 1}
            for m, level in (("strength", 0.5 + 0.05 * r), ("net", 10.0 * r), ("h2h", 0.2 + 0.05 * r)):
                row |= {m: level, f"{m}_low": level * 0.8, f"{m}_high": level * 1.2 + 0.01}
            rows.append(row)
        depth.append({"group": name, "depth": 2, "depth_net": 3, "depth_h2h": 1})
    return pd.DataFrame(rows), pd.DataFrame(depth)


@pytest.mark.parametrize(("powers", "cards", "groups", "rungs"), [(1, 1, 1, 2), (20, 52, 6, 5)],
                         ids=["few", "many"])
def test_designer_figures(powers, cards, groups, rungs):
    values, suits = _endowments(cards)
    figures = {"powers": designer.plot_power_values(_power_values(powers)),
               "endowments": designer.plot_heat_map(values, "net", suits),
               "endowments without suits": designer.plot_heat_map(values, "strength"),
               "ladder": designer.plot_ladder(*_ladder(groups, rungs))}
    assert {name: problems(fig) for name, fig in figures.items()} == {key: [] for key in figures}


def test_the_powers_figure_with_one_row_is_not_squashed():
    fig = designer.plot_power_values(_power_values(1))
    fig.savefig(io.BytesIO(), format="png", dpi=100)
    ax = fig.axes[0]
    assert ax.bbox.height >= 120  # pixels at 100 dpi: room for the row, its interval and its label


# ----- a tuning's report -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 20], ids=["few", "many"])
def test_tuning_figure(n):
    rng = np.random.default_rng(n)
    measured = []
    for i in range(n):
        value = float(rng.uniform(0, 1))
        measured.append(Measured(f"ante_every-{i}_ante_growth-double", 28, {
            target: {"value": value, "low": value - 0.1, "high": value + 0.1, "method": "", "verdict": "met",
                     "shortfall": 0.0, "margin": 0.1}
            for target in ("natural_end ≥ 0.95", "60 ≤ median_hands ≤ 120", "seat_p ≥ 0.05")}, 0.0))
    assert problems(plot_candidates(measured)) == []


def test_the_checker_sees_a_cut_legend_and_overlapping_labels():
    fig = Figure(figsize=(3, 2))
    ax: Axes = fig.add_subplot()
    ax.plot([0, 1], [0, 1], "o", label="a label much too long to fit in a figure this small")
    fig.legend(loc="center left", bbox_to_anchor=(0.8, 0.5))
    ax.set_xticks([0, 0.01], ["overlapping", "labels"])
    found = problems(fig)
    assert any("legend" in f for f in found) and any("x tick labels overlap" in f for f in found)
    ax.add_line(Line2D([5], [5], marker="*"))  # a marker beyond the axes' limits
    assert any("marker outside its axes" in f for f in problems(fig))
