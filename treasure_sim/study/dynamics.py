"""What a game feels like, for designers: lead changes, drama, the elimination hazard, the structure of decisions,
and a skill trace (the metrics of TAG and Ludii; docs/designer.md, "Game dynamics").

Every figure comes with a 95% interval over deals from the one statistics module (`stats.py`): a per-game value is
averaged over a deal's games and then over deals (`interval_table`), a rate pooled over deals is a ratio with its
linearized interval (`ratio_interval`), a paired difference is a `mean_interval` of per-deal differences.

Lead changes, drama and the hazard read the results tables (``games``, ``hands``). The decision structure needs
what the tables do not keep, every decision a bot faced and its options: `treasure_sim.run.replay` plays sample
games again from their seeds and records them (``decisions``: one row per decision, columns ``deal_id``,
``game_id``, ``hand_no``, ``seat``, ``kind``, ``options``; ``hands``: hands played per game of the sample).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .stats import LEVEL, Interval, interval_table, mean_interval, ratio_interval

HAZARD_BIN = 10  # hands per bin of the hazard curve
DECISION_KINDS = ("bet", "spades", "hearts", "joker_treasure", "make_room", "steal")
TREASURE_KINDS = DECISION_KINDS[1:]

LEAD_METHOD = ("the leader after a hand is the seat with strictly the most money (a tie leaves the lead where it "
               "was); a lead change is a new leader; per game, then over deals")
DRAMA_METHOD = ("the share of a game's hands after which its winner (finishing first; games with a shared first "
                "place left out) had less money than someone else; per game, then over deals")
HAZARD_METHOD = ("eliminations in the hands of a bin over the seat-hands at risk (seats dealt into those hands), "
                 "pooled over deals; the band is the ratio's interval over deals")
DECISION_METHOD = ("a real decision has two answers or more; options: at a bet the legal action kinds (any raise "
                   "size counts as one), Spades every subset of the seat's Spades Treasures, Hearts draw or not, "
                   "the Joker Treasure the cards offered, making room each Treasure or none, a steal each steal "
                   "offered or none; per hand and per decision pooled over the sampled deals")
TRACE_METHOD = ("skill trace: the climbing entrant's strength (the share of the other players it finished ahead "
                "of) at the top rung minus at the bottom rung, paired by deal: the sum of the gains rung over rung")


def _game_table(games: pd.DataFrame) -> pd.DataFrame:
    """One row per game: its deal and table (lineup) and how many hands it had."""
    keys = [c for c in ("run", "experiment", "game_id") if c in games.columns]
    cols = [c for c in (*keys, "deal_id", "table_id", "hands_played") if c in games.columns]
    return games.drop_duplicates(keys)[cols].reset_index(drop=True)


def _stacks(hands: pd.DataFrame) -> dict[int, np.ndarray]:
    """Per game_id, its money after every hand (hands x seats), in hand order."""
    ordered = hands.sort_values(["game_id", "hand_no"])
    return {int(g): np.array(part["money_after"].tolist(), dtype=float)  # type: ignore[arg-type]
            for g, part in ordered.groupby("game_id", sort=False)}


def count_lead_changes(money: np.ndarray) -> int:
    """Lead changes in one game, ``money`` being hands x seats after every hand (`LEAD_METHOD`)."""
    leader, changes = -1, 0
    for row in money:
        top = row.max()
        if (row == top).sum() != 1:
            continue
        now = int(row.argmax())
        if leader >= 0 and now != leader:
            changes += 1
        leader = now
    return changes


def behind_share(money: np.ndarray, winner: int) -> float:
    """The share of hands after which ``winner`` had less money than some other seat (`DRAMA_METHOD`)."""
    if not len(money):
        return math.nan
    return float((money[:, winner] < money.max(axis=1)).mean())


def _per_game(games: pd.DataFrame, hands: pd.DataFrame, value: str) -> pd.DataFrame:
    table = _game_table(games)
    stacks = _stacks(hands)
    if value == "lead_changes":
        table[value] = [count_lead_changes(stacks[g]) if g in stacks else math.nan for g in table["game_id"]]
        return table
    winners = games[games["finish"] == 1].groupby("game_id")["seat"].agg(list)
    shares = []
    for g in table["game_id"]:
        won = winners.get(g, [])
        shares.append(behind_share(stacks[g], int(won[0])) if len(won) == 1 and g in stacks else math.nan)
    table[value] = shares
    return table


def _summary(table: pd.DataFrame, value: str, level: float) -> Interval:
    table = table.dropna(subset=[value]).assign(all="all")
    if table.empty:
        return Interval(math.nan, math.nan, math.nan, 0, math.nan)
    r = interval_table(table, value, ["all"], "deal", level, strata="table_id").iloc[0]
    return Interval(float(r["mean"]), float(r["ci_low"]), float(r["ci_high"]), int(r["deals"]),
                    float(r["sem"] * math.sqrt(r["deals"])))


def lead_changes(games: pd.DataFrame, hands: pd.DataFrame, level: float = LEVEL) -> Interval:
    """Lead changes per game, with its interval over deals (`LEAD_METHOD`)."""
    return _summary(_per_game(games, hands, "lead_changes"), "lead_changes", level)


def drama(games: pd.DataFrame, hands: pd.DataFrame, level: float = LEVEL) -> Interval:
    """The share of hands in which the eventual winner was behind, with its interval over deals (`DRAMA_METHOD`)."""
    return _summary(_per_game(games, hands, "drama"), "drama", level)


def elimination_hazard(games: pd.DataFrame, by: str = "seat", width: int = HAZARD_BIN, level: float = LEVEL
                       ) -> pd.DataFrame:
    """The elimination hazard per hand, by ``seat`` or ``entrant``, in bins of ``width`` hands (`HAZARD_METHOD`).

    A seat is at risk in every hand it is dealt into; it is eliminated in the last one when it can then no longer
    pay the ante (``eliminated_hand``). Columns: the group, ``first`` and ``last`` hand of the bin, ``hazard``,
    ``ci_low``, ``ci_high``, ``at_risk`` (seat-hands), ``eliminated`` and ``deals``.
    """
    if by not in ("seat", "entrant"):
        raise ValueError(f"by must be 'seat' or 'entrant', got {by!r}")
    g = games.copy()
    g[by] = g[by].astype(str) if by == "entrant" else g[by].astype(int)
    played = g["eliminated_hand"].fillna(g["hands_played"]).astype(int).to_numpy()
    out_at = g["eliminated_hand"].fillna(-1).astype(int).to_numpy()
    top = int(played.max()) if len(played) else 0
    rows = []
    deals = g["deal_id"].to_numpy()
    groups = g[by].to_numpy()
    for first in range(1, top + 1, width):
        last = first + width - 1
        at_risk = np.clip(np.minimum(played, last) - first + 1, 0, None)
        events = ((out_at >= first) & (out_at <= last)).astype(int)
        frame = pd.DataFrame({"group": groups, "deal": deals, "risk": at_risk, "events": events})
        per_deal = frame.groupby(["group", "deal"], observed=True)[["risk", "events"]].sum().reset_index()
        for group, part in per_deal.groupby("group", sort=True, observed=True):
            iv = ratio_interval(part["events"], part["risk"], level)
            if not part["risk"].sum():
                continue
            rows.append({by: group, "first": first, "last": last, "hazard": iv.mean,
                         "ci_low": max(iv.low, 0.0) if not math.isnan(iv.low) else iv.low, "ci_high": iv.high,
                         "at_risk": int(part["risk"].sum()), "eliminated": int(part["events"].sum()),
                         "deals": iv.n})
    return pd.DataFrame(rows, columns=[by, "first", "last", "hazard", "ci_low", "ci_high", "at_risk", "eliminated",
                                       "deals"])


def decision_structure(decisions: pd.DataFrame, hands: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """Real decisions per hand by kind, mean options per real decision, and the share about Treasures.

    ``decisions``: one row per decision (``deal_id``, ``kind``, ``options``); ``hands``: one row per game of the
    sample (``deal_id``, ``hands_played``). Rows: ``metric`` (``per hand: <kind>``, ``per hand: all``,
    ``options per decision``, ``share about Treasures``) with ``value``, ``ci_low``, ``ci_high``, ``deals``
    (`DECISION_METHOD`).
    """
    real = decisions[decisions["options"] >= 2]
    hands_per_deal = hands.groupby("deal_id")["hands_played"].sum()
    deals = hands_per_deal.index

    def per_deal(frame: pd.DataFrame, column: str | None = None) -> np.ndarray:
        grouped = frame.groupby("deal_id")
        counts = grouped[column].sum() if column else grouped.size()
        return counts.reindex(deals, fill_value=0).to_numpy(dtype=float)

    rows = []

    def add(metric: str, iv: Interval) -> None:
        rows.append({"metric": metric, "value": iv.mean, "ci_low": iv.low, "ci_high": iv.high, "deals": iv.n})

    chances = hands_per_deal.to_numpy(dtype=float)
    for kind in DECISION_KINDS:
        add(f"per hand: {kind}", ratio_interval(per_deal(real[real["kind"] == kind]), chances, level))
    add("per hand: all", ratio_interval(per_deal(real), chances, level))
    add("options per decision", ratio_interval(per_deal(real, "options"), per_deal(real), level))
    add("share about Treasures",
        ratio_interval(per_deal(real[real["kind"].isin(TREASURE_KINDS)]), per_deal(real), level))
    return pd.DataFrame(rows)


def skill_trace(rungs: Sequence[pd.Series], level: float = LEVEL) -> Interval:
    """One skill-depth number from a ladder (`TRACE_METHOD`): ``rungs`` are the climbing entrant's strength per
    deal (indexed by deal) at each rung, weakest first; the top minus the bottom, over the deals both played."""
    if len(rungs) < 2:
        return Interval(math.nan, math.nan, math.nan, 0, math.nan)
    bottom, top = rungs[0], rungs[-1]
    common = bottom.index.intersection(top.index)
    return mean_interval((top.loc[common] - bottom.loc[common]).to_numpy(), level)
