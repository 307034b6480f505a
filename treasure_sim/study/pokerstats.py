"""Poker statistics per bot, read from the seats table: how each bot plays, not only how it did.

Every statistic is a rate pooled over deals (`stats.ratio_interval`): its events summed over the deals an
entrant played, over its chances summed the same way, with an interval over deals (the unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow.compute as pc

from ..run.store import read_games, read_seats
from .stats import LEVEL, RATIO_METHOD, ratio_interval

# name: (what it measures, events column, chances column)
STATISTICS: dict[str, tuple[str, str, str]] = {
    "VPIP": ("share of hands it put money in voluntarily in the first round (a call or a raise)", "vpip", "hands"),
    "PFR": ("share of hands it raised in the first round", "pfr", "hands"),
    "aggression": ("bets and raises per call, all rounds (aggression factor)", "bets", "calls"),
    "WTSD": ("share of the hands it saw the shared cards in that it took to a showdown", "went_to_showdown",
             "saw_shared"),
    "W$SD": ("share of its showdowns in which it won chips", "won_showdown", "showdown"),
    "fold for a Treasure": ("share of its folds after which it took the New Treasure (it folded last, or was "
                            "passed it)",
                            "took_treasure", "folds"),
    "steals / hand": ("Diamonds steals per hand dealt", "steals", "hands"),
    "Hearts draws / hand": ("cards drawn with Hearts per hand dealt", "hearts", "hands"),
    "Spades moved / hand": ("Spades Treasures moved to its hand per hand dealt", "spades", "hands"),
}
SHARES = ("VPIP", "PFR", "WTSD", "W$SD", "fold for a Treasure")  # between 0 and 1: intervals clipped to it
SEAT_COLUMNS = ("game_id", "seat", "vpip", "pfr", "bets", "calls", "saw_shared", "showdown", "won", "folded_round",
                "last_folder", "treasure_taken", "steals", "hearts_drawn", "spades_moved")


def seat_counts(path: str | Path) -> pd.DataFrame:
    """The seats table of a results folder as per-hand event counts, with each row's entrant and deal."""
    table = read_seats(path, SEAT_COLUMNS)
    frame = table.drop_columns(["hearts_drawn", "spades_moved"]).to_pandas()
    frame["hearts"] = pc.list_value_length(table["hearts_drawn"]).to_numpy(zero_copy_only=False)
    frame["spades"] = pc.list_value_length(table["spades_moved"]).to_numpy(zero_copy_only=False)
    games = read_games(path, ["game_id", "seat", "deal_id", "entrant"]).to_pandas()
    games["entrant"] = games["entrant"].astype(str)
    return frame.merge(games, on=["game_id", "seat"], how="left")


def poker_stats(seats: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """One row per (entrant, statistic): the pooled rate, its interval over deals, and the deals behind it.

    ``seats``: `seat_counts` of one or more folders (a ``run`` column, if present, keeps their deals apart).
    """
    s = seats.assign(
        hands=1, went_to_showdown=seats["showdown"] & seats["saw_shared"],
        won_showdown=seats["showdown"] & (seats["won"] > 0), folds=seats["folded_round"].notna(),
        took_treasure=seats["folded_round"].notna() & seats["treasure_taken"].notna())
    columns = sorted({c for _, e, n in STATISTICS.values() for c in (e, n)})
    unit = [c for c in ("run", "deal_id") if c in s.columns]
    per_deal = s.groupby(["entrant", *unit], observed=True)[columns].sum(numeric_only=False).astype(float)
    rows = []
    for entrant, deals in per_deal.groupby(level="entrant", observed=True):
        for name, (_, events, chances) in STATISTICS.items():
            iv = ratio_interval(deals[events].to_numpy(), deals[chances].to_numpy(), level)
            low, high = (max(iv.low, 0.0), min(iv.high, 1.0)) if name in SHARES else (iv.low, iv.high)
            rows.append({"entrant": entrant, "statistic": name, "value": iv.mean, "ci_low": low, "ci_high": high,
                         "deals": iv.n, "note": iv.note if iv.n else "never happened"})
    out = pd.DataFrame(rows)
    out.attrs["method"] = RATIO_METHOD
    return out


def wide(stats: pd.DataFrame, order: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows = entrants (in ``order``), columns = statistics: the values only, for a compact table."""
    table = stats.pivot(index="entrant", columns="statistic", values="value")[list(STATISTICS)]
    return table.reindex([e for e in order if e in table.index]) if order else table


def describe() -> list[str]:
    """One line per statistic: what it measures."""
    return [f"- **{name}**: {what}" for name, (what, _, _) in STATISTICS.items()]


__all__ = ["STATISTICS", "describe", "poker_stats", "seat_counts", "wide"]
