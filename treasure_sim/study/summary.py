"""The figures printed after a run, read part by part so that the parent never holds the games table."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from ..run.store import iter_parts
from .stats import LEVEL, mean_interval


def entrant_stats(out: Path, level: float = LEVEL) -> list[dict]:
    """Per entrant: games, bot errors, and mean win share and net as `Interval`s over deals (the unit).

    A part holds whole deals, so each part is reduced to per-(entrant, deal) means as it is read:
    the parent keeps a few numbers per deal, never the games table (a dataset scan into pandas
    costs it 100+ MB at 100,000 games).
    """
    labels: dict[int, str] = {}
    games: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    deal_entrant, deal_win, deal_net = [], [], []
    for part in iter_parts(out, "games", ["entrant", "entrant_id", "deal_id", "win_share", "net", "errors"]):
        entrant, deal = part["entrant_id"].to_numpy(), part["deal_id"].to_numpy().astype(np.int64)
        span = int(entrant.max()) + 1
        keys, where = np.unique(deal * span + entrant, return_inverse=True)
        rows = np.bincount(where)
        deal_entrant.append(keys % span)
        deal_win.append(np.bincount(where, weights=part["win_share"].to_numpy()) / rows)
        deal_net.append(np.bincount(where, weights=part["net"].to_numpy()) / rows)
        ids, first, counts = np.unique(entrant, return_index=True, return_counts=True)
        part_errors = np.bincount(entrant, weights=part["errors"].to_numpy())
        for e, i, n in zip(ids.tolist(), first.tolist(), counts.tolist(), strict=True):
            labels.setdefault(e, part["entrant"][i].as_py())
            games[e] += n
            errors[e] += int(part_errors[e])
    if not labels:
        return []
    key_entrant, win, net = (np.concatenate(a) for a in (deal_entrant, deal_win, deal_net))
    stats = []
    for e, label in labels.items():
        mine = key_entrant == e
        row: dict = {"entrant": label, "games": games[e], "errors": errors[e], "deals": int(mine.sum())}
        for name, values in (("win", win[mine]), ("net", net[mine])):
            row[name] = mean_interval(values, level)
        stats.append(row)
    return sorted(stats, key=lambda r: (-r["win"].mean, r["entrant"]))
