"""Checks that the luck adjustment is unbiased on real data (issue 14, item 3); every interval from `stats`.

(a) `centring`: the mean luck per event, per event kind and per group fixed before the event (entrant, turn
    position, whether the seat had Clubs or Hearts), is zero within its interval. Luck sums to zero over the seats
    of an event, so the mean over *all* seats is zero by construction; these groups are not.
(b) `agreement`: per entrant, the raw and adjusted mean net and their paired difference.
(c) `coverage`: over repeated small runs, how often an interval covers the long-run mean.
`redealt`: the hands with one board event's cards dealt again uniformly from the deck the luck adjustment
    believes was left, for an exact null beside the real data (same states, same code, same Monte Carlo).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from .luck import KINDS, Events
from .luck_hands import Hands, bits
from .stats import adjust, mean_interval


def event_frame(h: Hands, events: Events, games: pd.DataFrame) -> pd.DataFrame:
    """One row per corrected event and seat dealt into the hand: deal, game, hand, kind, seat, its turn position,
    entrant, pot, luck, and whether its zone held Clubs (wild ranks) or Hearts when the hand began."""
    hand = np.repeat(events.hand, h.n_seats)
    seat = np.tile(np.arange(h.n_seats), len(events.hand))
    dealt = h.in_hand[hand, seat]
    hand, seat = hand[dealt], seat[dealt]
    position = np.argmax(h.order[hand] == seat[:, None], axis=1)
    frame = pd.DataFrame({
        "deal_id": h.deal[hand], "game_id": h.game[hand], "hand_no": h.hand_no[hand],
        "kind": np.array(KINDS)[np.repeat(events.kind, h.n_seats)[dealt]], "seat": seat, "position": position,
        "pot": np.repeat(events.pot, h.n_seats)[dealt], "luck": events.luck.ravel()[dealt],
        "clubs": h.wild[hand, seat] != 0, "hearts": h.hearts[hand, seat] != 0})
    names = games[["game_id", "seat", "entrant"]].assign(entrant=lambda g: g["entrant"].astype(str))
    return frame.merge(names, on=["game_id", "seat"], how="left")


def centring(frame: pd.DataFrame, by: list[str], multiplicity: str = "holm") -> pd.DataFrame:
    """Per event kind and group: events, mean luck per event with its 95% interval, p-value and adjusted p-value.

    The unit is the deal: per deal, the group's luck summed; the t interval of that sum over deals (zero-filled
    for deals without such an event), divided by the mean number of events per deal.
    """
    deals = frame["deal_id"].unique()
    rows = []
    for key, part in frame.groupby(["kind", *by], observed=True, sort=True):
        per_deal = part.groupby("deal_id")["luck"].sum().reindex(deals, fill_value=0.0)
        per_event = len(part) / len(deals)
        iv = mean_interval(per_deal)
        rows.append(dict(zip(["kind", *by], key if isinstance(key, tuple) else (key,), strict=True)) | {
            "events": len(part), "mean": iv.mean / per_event, "ci_low": iv.low / per_event,
            "ci_high": iv.high / per_event, "sd_per_event": float(part["luck"].std()), "p": iv.p_value})
    out = pd.DataFrame(rows)
    out["p_adjusted"] = adjust(out["p"].to_numpy(), multiplicity)
    out["covers_0"] = (out["ci_low"] <= 0) & (out["ci_high"] >= 0)
    return out


def agreement(games: pd.DataFrame) -> pd.DataFrame:
    """Per entrant: mean net raw and adjusted with their intervals over deals, and the paired difference raw minus
    adjusted (the mean luck subtracted) with its interval: it should cover zero."""
    per = games.assign(entrant=games["entrant"].astype(str), diff=games["net"] - games["net_adjusted"]).groupby(
        ["entrant", "deal_id"], observed=True)[["net", "net_adjusted", "diff"]].mean()
    rows = []
    for entrant, part in per.groupby(level="entrant"):
        raw, adj, diff = (mean_interval(part[c]) for c in ("net", "net_adjusted", "diff"))
        rows.append({"entrant": entrant, "deals": raw.n, "raw": raw.mean, "raw_low": raw.low, "raw_high": raw.high,
                     "adjusted": adj.mean, "adjusted_low": adj.low, "adjusted_high": adj.high, "raw_sd": raw.sd,
                     "adjusted_sd": adj.sd, "difference": diff.mean, "difference_low": diff.low,
                     "difference_high": diff.high, "covers_0": diff.low <= 0 <= diff.high})
    return pd.DataFrame(rows)


def coverage(intervals: pd.DataFrame, truth: pd.Series) -> pd.DataFrame:
    """Per estimator: the share of intervals (rows: estimator, entrant, low, high) covering ``truth[entrant]``,
    with its own 95% interval, and the median half-width."""
    hit = intervals.assign(hit=(intervals["low"] <= intervals["entrant"].map(truth))
                           & (intervals["entrant"].map(truth) <= intervals["high"]),
                           half=(intervals["high"] - intervals["low"]) / 2)
    rows = []
    for name, part in hit.groupby("estimator", sort=False):
        iv = mean_interval(part["hit"].astype(float))
        rows.append({"estimator": name, "intervals": len(part), "coverage": iv.mean, "ci_low": iv.low,
                     "ci_high": iv.high, "median_half_width": float(part["half"].median())})
    return pd.DataFrame(rows)


BOARD = {"flop": (0, 2), "turn": (2, 4), "river": (4, 5)}  # the shared cards each board event deals


def redealt(h: Hands, kind: str, rng: np.random.Generator) -> Hands:
    """``h`` with the cards of board event ``kind`` in every hand where it happened replaced by a uniform draw from
    the deck before it (as the luck adjustment reads it: no zone, no hole card, not the New Treasure, no earlier
    shared card). The luck of ``kind`` on the copy is mean-zero exactly if the adjustment is: a group whose mean
    luck is off on the real hands but not on such copies points at the record (the real cards were not drawn from
    that deck), one that is off on both at the value function or the test. Later shared cards may repeat a
    redealt one: only the luck of ``kind`` itself is meaningful on the copy."""
    first, last = BOARD[kind]
    shared = h.shared
    before = h.deck0 & ~bits(h.hole.reshape(h.n_hands, -1)) & ~bits(h.new_treasure[:, None]) & ~bits(shared[:, :first])
    avail = ((before[:, None] >> np.arange(54, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    picks = np.argsort(np.where(avail, rng.random(avail.shape), 2.0), axis=1)[:, : last - first]
    happened = (shared[:, last - 1] >= 0) & (avail.sum(axis=1) >= last - first)
    out = shared.copy()
    out[happened, first:last] = picks[happened].astype(shared.dtype)
    return dataclasses.replace(h, shared=out)
