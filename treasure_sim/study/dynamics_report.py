"""The reports' sample games (replay pages) and game-dynamics section (`dynamics.py`), for a run, a sweep and the
designer's page.

Replaying is not the study layer's business (it plays games): the reports take a `Replayer` from the caller
(`treasure_sim.design.replays.Replays` in `treasure-sim report`) and, without one, name the command that
writes a page instead of linking it, and leave out the decision structure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..run.store import read_games, read_hands
from . import causal, dynamics
from .markdown import cell, md_table, save_figure
from .plots import OKABE_ITO
from .stats import Interval

DECISION_DEALS = 20  # the decision structure is measured on the games of a variant's first deals, replayed
HAZARD_MIN_DEALS = 5  # a hazard bin is drawn when seats of at least this many deals were at risk in it
GAME_COLUMNS = ("game_id", "deal_id", "table_id", "seat", "entrant", "finish", "hands_played", "eliminated_hand",
                "end_reason")


class Replayer(Protocol):
    """What the reports need from a replay of games (`treasure_sim.design.replays.Replays`)."""

    def pages(self, folder: Path, games: Mapping[str, int], out: Path, stem: str = "") -> dict[str, Path | str]:
        """Write a page per (label, game_id) under ``out``; per label its path, or why there is none."""
        ...

    def decisions(self, folder: Path, game_ids: Sequence[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(decisions, hands played per game) of the games replayed (`dynamics.decision_structure`)."""
        ...


def sample_games(games: pd.DataFrame) -> dict[str, int]:
    """The median-length game (the lowest game_id of the length nearest the median) and, if any game hit the
    hand cap, the first that did."""
    one = games.drop_duplicates("game_id").sort_values("game_id")
    median = one["hands_played"].median()
    nearest = one.loc[(one["hands_played"] - median).abs().sort_values(kind="stable").index[0]]
    out = {"median-length game": int(nearest["game_id"])}
    capped = one[one["end_reason"].astype(str) == "hand_limit"]
    if not capped.empty:
        out["a game that hit the hand cap"] = int(capped["game_id"].iloc[0])
    return out


def sample_links(folder: Path, games: pd.DataFrame, out: Path, replayer: Replayer | None, stem: str = "") -> str:
    """"median-length game: [game 12, 95 hands](replays/...)" for each sample game, joined by "; "."""
    picked = sample_games(games)
    length = games.drop_duplicates("game_id").set_index("game_id")["hands_played"]
    pages = replayer.pages(folder, picked, out, stem) if replayer is not None else {}
    parts = []
    for label, game_id in picked.items():
        name = f"game {game_id}, {int(length[game_id])} hands"
        page = pages.get(label)
        if isinstance(page, Path):
            parts.append(f"{label}: [{name}]({page.relative_to(out).as_posix()})")
        else:
            why = f" ({page})" if page else ""
            parts.append(f"{label}: {name}, `treasure-sim replay {folder} --game {game_id}`{why}")
    return "; ".join(parts)


def sample_section(folder: Path, games: pd.DataFrame, out: Path, replayer: Replayer | None) -> list[str]:
    """The run report's "Sample games" section."""
    return ["## Sample games", "",
            "Watch a game hand by hand and action by action (an HTML page, no network needed; docs/replay.md): "
            + sample_links(folder, games, out, replayer) + ".", ""]


def _read(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (read_games(folder, GAME_COLUMNS).to_pandas(),
            read_hands(folder, ["game_id", "hand_no", "money_after"]).to_pandas())


def plot_hazard(curves: Mapping[str, pd.DataFrame], by: str) -> Figure:
    """One panel per variant: the elimination hazard per hand of each seat (or entrant) with its band."""
    fig, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves) + 1, 3.4), sharey=True, squeeze=False)
    for ax, (name, curve) in zip(axes[0], curves.items(), strict=True):
        for i, (group, part) in enumerate(curve.groupby(by, sort=True)):
            part = part[part["deals"] >= HAZARD_MIN_DEALS]
            mid = (part["first"] + part["last"]) / 2
            color = OKABE_ITO[i % len(OKABE_ITO)]
            ax.plot(mid, part["hazard"], marker="o", ms=3, color=color, label=f"{by} {group}" if by == "seat"
                    else str(group))
            ax.fill_between(mid, part["ci_low"], part["ci_high"], color=color, alpha=0.18, linewidth=0)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("hand")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("eliminations per seat-hand at risk")
    axes[0][-1].legend(fontsize=8, loc="upper right")
    fig.suptitle(f"Elimination hazard per hand by {by} (bins of {dynamics.HAZARD_BIN} hands, 95% band over deals)",
                 fontsize=10)
    fig.tight_layout()
    return fig


def _cell(iv: Interval, fmt: str) -> str:
    return cell(iv.mean, iv.low, iv.high, fmt)


def dynamics_section(variants: Mapping[str, Path], out: Path, replayer: Replayer | None,
                     heading: str = "## Game dynamics", prefix: str = "") -> list[str]:
    """Lead changes, drama, the decision structure, sample games and hazard curves, one row (panel) per variant
    (``variants``: name -> results folder)."""
    rows, structure_rows, by_seat, by_entrant = [], [], {}, {}
    for name, folder in variants.items():
        games, hands = _read(folder)
        if games.empty:
            continue
        rows.append([name, _cell(dynamics.lead_changes(games, hands), ".2f"),
                     _cell(dynamics.drama(games, hands), ".3f"),
                     sample_links(folder, games, out, replayer, stem=name)])
        by_seat[name] = dynamics.elimination_hazard(games, "seat")
        by_entrant[name] = dynamics.elimination_hazard(games, "entrant")
        if replayer is not None:
            first = sorted(games["deal_id"].unique())[:DECISION_DEALS]
            ids = sorted(games.loc[games["deal_id"].isin(first), "game_id"].unique())
            decisions, played = replayer.decisions(folder, [int(g) for g in ids])
            if not decisions.empty:
                s = dynamics.decision_structure(decisions, played).set_index("metric").to_dict("index")
                structure_rows.append([name, *[cell(s[m]["value"], s[m]["ci_low"], s[m]["ci_high"], fmt)
                                               for m, fmt in STRUCTURE], max(r["deals"] for r in s.values())])
    md = [heading, "",
          f"Lead changes per game: {dynamics.LEAD_METHOD}. Drama: {dynamics.DRAMA_METHOD}. Both with 95% "
          "Student-t intervals over deals, stratified by lineup where the schedule fixed it. The sample games "
          "link replay pages (docs/replay.md).", "",
          md_table(["variant", "lead changes per game [95% CI]", "drama: share of hands the winner was behind "
                    "[95% CI]", "sample games"], rows, align="lrrl"), ""]
    if structure_rows:
        md += [f"Decision structure, from the games of each variant's first {DECISION_DEALS} deals played again "
               f"from their seeds (the results do not keep every decision): {dynamics.DECISION_METHOD}; "
               "95% intervals of ratios over deals.", "",
               md_table(["variant", *[m for m, _ in STRUCTURE], "deals"], structure_rows), ""]
    elif replayer is None:
        md += ["The decision structure needs the games played again from their seeds: `treasure-sim report` "
               "measures it.", ""]
    else:
        md += ["Decision structure: not measured (the sample games could not be played again, or an isolated bot "
               "sat at every table).", ""]
    for by, curves in (("seat", by_seat), ("entrant", by_entrant)):
        if curves:
            fig = plot_hazard(curves, by)
            md += [f"![elimination hazard by {by}]({save_figure(fig, out / f'{prefix}hazard_{by}.png', dpi=100)})",
                   ""]
            plt.close(fig)
    md += [f"Elimination hazard: {dynamics.HAZARD_METHOD}; a bin is drawn when seats of at least "
           f"{HAZARD_MIN_DEALS} deals were at risk in it.", ""]
    return md


STRUCTURE = (("per hand: all", ".2f"), ("per hand: bet", ".2f"), ("per hand: spades", ".3f"),
             ("per hand: hearts", ".3f"), ("per hand: joker_treasure", ".3f"), ("per hand: make_room", ".3f"),
             ("per hand: steal", ".3f"), ("options per decision", ".2f"), ("share about Treasures", ".3f"))


def trace_table(study: causal.Study) -> str:
    """Per rules group of the ladder, the skill trace (`dynamics.TRACE_METHOD`) with its interval."""
    arms = study.of_kind("ladder")
    rows = []
    for group in dict.fromkeys(a.group for a in arms):
        steps = [a for a in arms if a.group == group]
        outs = [causal.outcomes(study.games(a), a.entrant)["strength"] for a in steps]
        iv = dynamics.skill_trace(outs)
        rows.append([group, f"{steps[0].what} → {steps[-1].what}", cell(iv.mean, iv.low, iv.high, "+.3f"), iv.n])
    return md_table(["rules", "rungs", "skill trace: strength gain, bottom to top [95% CI]", "deals"], rows)
