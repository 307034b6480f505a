"""Plots: each renders headless and draws one bar, cell or point per row of its table."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure
from test_analysis import make_games, make_hands

from treasure_sim.study import analysis as an
from treasure_sim.study import plots

SKILLS = {"random": 0.0, "a-very-long-strategy-label-that-must-not-be-cut": 0.8, "tight": 0.3, "loose": -0.4}


@pytest.fixture(scope="module")
def games():
    return make_games(n_deals=12, skills=SKILLS)


def _render(fig: Figure) -> bytes:
    assert isinstance(fig, Figure)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    return buf.getvalue()


def _bar_axes(fig):
    (ax,) = [a for a in fig.axes if a.containers]
    return ax


def test_win_shares_one_bar_and_whisker_per_strategy(games):
    table = an.win_rates(games)
    fig = plots.plot_win_shares(table)
    _render(fig)
    ax = _bar_axes(fig)
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 1 and len(bars[0].patches) == 4
    assert len(ax.patches) == 4
    assert any(isinstance(c, ErrorbarContainer) for c in ax.containers)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == table["strategy"].tolist()[::-1]  # best on top, names in full
    # the bar lengths are the means
    widths = sorted(p.get_width() for p in ax.patches)
    assert widths == pytest.approx(sorted(table["mean"]))
    assert ax.get_title() == "Win share per strategy" and "win share" in ax.get_xlabel()
    assert "per-deal" in fig.get_supxlabel()


def test_a_broken_bot_is_marked_in_the_figures(games):
    broken = games.assign(errors=(games["strategy"] == "tight") * 3, decisions=1000)  # 0.3%: marked, still ranked
    for table, plot in ((an.win_rates(broken), plots.plot_win_shares), (an.mean_net(broken), plots.plot_mean_net),
                        (an.strengths(broken), plots.plot_strengths)):
        assert table.set_index("strategy").loc["tight", "bot_errors"].startswith("⚠")
        ax = _bar_axes(plot(table))
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert "tight ⚠" in labels and "random" in labels and "fallback answers" in ax.get_title()


def test_mean_net_axes_are_in_chips(games):
    fig = plots.plot_mean_net(an.mean_net(games))
    _render(fig)
    ax = _bar_axes(fig)
    assert len(ax.patches) == 4 and "chips" in ax.get_xlabel()


def test_head_to_head_heatmap_annotates_every_off_diagonal_cell(games):
    h2h = an.head_to_head(games)
    order = an.win_rates(games)["strategy"].tolist()
    fig = plots.plot_head_to_head(h2h, order=order)
    _render(fig)
    ax = fig.axes[0]
    assert len(ax.images) == 1
    assert ax.images[0].get_array().shape == (4, 4)
    assert ax.images[0].get_cmap().name == plots.HEATMAP_CMAP
    assert len(ax.texts) == 4 * 3
    assert [t.get_text() for t in ax.get_yticklabels()] == order


def test_strengths_one_bar_per_entrant_strongest_on_top(games):
    table = an.strengths(games)
    fig = plots.plot_strengths(table)
    _render(fig)
    ax = _bar_axes(fig)
    assert len(ax.patches) == 4
    assert [t.get_text() for t in ax.get_yticklabels()] == table["strategy"].tolist()[::-1]
    assert "bootstrap over deals" in fig.get_supxlabel().replace("\n", " ")


def test_planning_one_line_per_entrant_and_metric(games):
    plan = an.planning(games)
    fig = plots.plot_planning(plan, {"strength": (0.1,)})
    _render(fig)
    assert len(fig.axes) == 3 and all(len(ax.lines) >= 2 * 4 for ax in fig.axes)
    assert "deals needed" in fig.axes[0].get_ylabel() and "1 / √deals" in fig.get_supxlabel().replace("\n", " ")


def test_seat_advantage_one_bar_per_seat_and_panel_per_table_size(games):
    two = make_games(n_deals=6, skills={"x": 0.0, "y": 0.0}).assign(game_id=lambda d: d["game_id"] + 10_000,
                                                                     deal_id=lambda d: d["deal_id"] + 10_000)
    fig = plots.plot_seat_advantage(an.seat_advantage(make_games(n_deals=6, skills=SKILLS)))
    _render(fig)
    assert len(fig.axes) == 1 and len(fig.axes[0].patches) == 4
    both = an.seat_advantage(pd.concat([games, two], ignore_index=True))
    fig = plots.plot_seat_advantage(both)
    _render(fig)
    assert [len(ax.patches) for ax in fig.axes] == [2, 4]


def test_trajectories_one_line_per_seat_per_game(games):
    small = games[games["deal_id"] < 2]
    traj = an.trajectories(an.Results(small, make_hands(small, n_hands=6), {}))
    fig = plots.plot_trajectories(traj, max_games=4)
    _render(fig)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 4
    assert all(len(ax.lines) == 4 for ax in visible)
    assert "chips" in visible[0].get_ylabel()
    # a strategy keeps its colour across figures
    colors = plots.strategy_colors(SKILLS)
    first = visible[0].lines[0]
    assert first.get_color() == colors[first.get_label()]


def test_colours_are_okabe_ito_and_stable():
    c = plots.strategy_colors(["b", "a", "c"])
    assert c == plots.strategy_colors(["c", "a", "b"])
    assert set(c.values()) <= set(plots.OKABE_ITO)


def test_estimates_from_few_deals_are_marked():
    few = make_games(n_deals=4, skills={"x": 1.0, "y": 0.0})
    fig = plots.plot_head_to_head(an.head_to_head(few))
    assert all("(4 deals)" in t.get_text() for t in fig.axes[0].texts)
    fig = plots.plot_win_shares(an.win_rates(few))
    assert all("(4 deals)" in t.get_text() for t in _bar_axes(fig).texts)
    many = plots.plot_win_shares(an.win_rates(make_games(n_deals=plots.FEW_DEALS)))
    assert not any("deals" in t.get_text() for t in _bar_axes(many).texts)
