"""The figures printed after a run, read part by part so that the parent never holds the games table.

The headline is the lineup-adjusted strength (`stats.fit_strengths`); win share and net money follow as
columns, because with more entrants than seats they also measure who an entrant happened to sit with.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..run.store import STDERR_DIR, iter_parts, read_manifest
from .precision import stopping_width
from .stats import (
    DEFAULT_NET,
    LEVEL,
    FitCheck,
    Interval,
    PairedAhead,
    Strengths,
    finish_comparisons,
    fit_check,
    fit_strengths,
    paired_ahead,
    stratified_interval,
)

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["entrant", "entrant_id", "deal_id", "table_id", "game_id", "win_share", "net", "finish", "errors",
           "decisions", "failed_decisions", "first_error"]
METRICS = ("strength", "win_share", "net")  # what `treasure-sim run --until-ci --metric` may name
MAX_ERROR_SHARE = 0.01  # an entrant whose bot failed more of its decisions is not ranked (--max-error-share)


@dataclass(frozen=True)
class EntrantRow:
    """One entrant's raw figures: games, bot errors, and win share and net as intervals over its deals (stratified
    by lineup: `stats.stratified_interval`)."""

    entrant: str
    games: int
    deals: int
    errors: int
    decisions: int
    win: Interval
    net: Interval
    net_adjusted: Interval | None = None  # luck-adjusted net (`luck`), when the summary was asked for it
    failed: int | None = None  # decisions answered with an error (None: a folder written before it was counted)
    first_error: str = ""

    @property
    def error_share(self) -> float:
        """The share of its decisions that failed: never above 1 (errors while set up or told something are not
        decisions'); 1 for a bot that erred and never got to decide."""
        failed = min(self.errors, self.decisions) if self.failed is None else self.failed
        return failed / self.decisions if self.decisions else float(self.errors > 0)

    @property
    def shown_net(self) -> Interval:
        """The net the summary shows and ``--until-ci --metric net`` watches: luck-adjusted when there is one."""
        return self.net_adjusted if self.net_adjusted is not None else self.net


@dataclass(frozen=True)
class RunSummary:
    """Everything the run summary prints: the raw rows (in entrant order), the strengths of the ranked entrants,
    their observed head-to-head and the model's fit, the lineups, and the entrants left unranked."""

    rows: tuple[EntrantRow, ...]
    strengths: Strengths | None
    lineups: int
    net_note: str = ""  # why net is raw although the luck-adjusted one was asked for
    paired: PairedAhead | None = None  # observed P(ahead) of the ranked entrants (names as in strengths)
    fit: FitCheck | None = None
    max_error_share: float = MAX_ERROR_SHARE
    nets: dict[str, dict[int, float]] = field(default_factory=dict)  # entrant -> deal -> mean shown net
    stderr_logs: tuple[str, ...] = ()  # isolated bots' stderr files in the folder (non-empty ones)
    lineup_of: dict[int, int] = field(default_factory=dict)  # deal -> its lineup (table_id)
    antes: int | None = None  # chips in the pot before the first betting round, when fixed (the luck note)

    def unranked(self) -> list[EntrantRow]:
        """Entrants whose bots failed more than ``max_error_share`` of their decisions, most errors first."""
        return sorted((r for r in self.rows if r.error_share > self.max_error_share),
                      key=lambda r: (-r.error_share, r.entrant))

    def ranked(self) -> list[EntrantRow]:
        """Ranked rows by strength (strongest first); by win share when no strength could be fitted."""
        out = {r.entrant for r in self.unranked()}
        rows = [r for r in self.rows if r.entrant not in out]
        if self.strengths is None:
            return sorted(rows, key=lambda r: (-r.win.mean, r.entrant))
        place = {self.strengths.names[i]: k for k, i in enumerate(self.strengths.order)}
        return sorted(rows, key=lambda r: place.get(r.entrant, len(place)))

    def half_widths(self, metric: str = "strength") -> dict[str, float]:
        """Each entrant's interval half-width of ``metric`` (strength, win_share or net) as --until-ci watches it:
        win share and net through `precision.stopping_width` (infinite until the interval has enough degrees of freedom
        to stop on)."""
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
        if metric == "strength":
            if self.strengths is None:
                return {r.entrant: float("nan") for r in self.ranked()}
            return dict(zip(self.strengths.names, self.strengths.half_width.tolist(), strict=True))
        return {r.entrant: stopping_width(r.win if metric == "win_share" else r.shown_net) for r in self.rows}

    def head_to_head(self, entrant: str, level: float = LEVEL) -> list[tuple[str, float, float, float, Interval]]:
        """``entrant`` against each other ranked entrant: (opponent, observed P(ahead), low, high, the paired net
        difference per game over the deals both sat in, stratified by lineup)."""
        if self.paired is None or entrant not in self.paired.names:
            return []
        p, i = self.paired, self.paired.names.index(entrant)
        mine = self.nets.get(entrant, {})
        out = []
        for j, other in enumerate(p.names):
            if j == i or not p.deals[i, j]:
                continue
            theirs = self.nets.get(other, {})
            shared = sorted(set(mine) & set(theirs))
            diff = np.array([mine[d] - theirs[d] for d in shared])
            lineup = np.array([self.lineup_of.get(d, 0) for d in shared])
            out.append((other, float(p.mean[i, j]), float(p.low[i, j]), float(p.high[i, j]),
                        stratified_interval(diff, lineup, level)))
        return out


def run_summary(out: Path, level: float = LEVEL, replicates: int = 1000, net: str = DEFAULT_NET,
                max_error_share: float = MAX_ERROR_SHARE) -> RunSummary:
    """Read a results folder part by part and compute the summary (see `RunSummary`).

    A part holds whole deals, so each part is reduced as it is read to per-(entrant, deal) means and per-deal
    finishing comparisons: the parent keeps a few numbers per deal, never the games table. ``net="adjusted"``
    adds each entrant's luck-adjusted net (`luck.adjusted_games`, computed part by part and cached). Entrants
    whose bots failed more than ``max_error_share`` of their decisions are left out of the strengths and the
    head-to-head (`RunSummary.unranked`).
    """
    labels: dict[int, str] = {}
    games: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    decisions: Counter[int] = Counter()
    failed: Counter[int] = Counter()
    counted = True  # every part has failed_decisions
    first_error: dict[int, str] = {}
    deal_entrant: list[np.ndarray] = []
    deal_ids: list[np.ndarray] = []
    deal_table: list[np.ndarray] = []
    deal_win: list[np.ndarray] = []
    deal_net: list[np.ndarray] = []
    deal_wins: list[tuple[np.ndarray, ...]] = []
    lineups: set[tuple[int, ...]] = set()
    for part in iter_parts(out, "games", COLUMNS):
        entrant, deal = part["entrant_id"].to_numpy().astype(np.int64), part["deal_id"].to_numpy().astype(np.int64)
        span = int(entrant.max()) + 1
        keys, where = np.unique(deal * span + entrant, return_inverse=True)
        per_key = np.bincount(where)
        deal_entrant.append(keys % span)
        deal_ids.append(keys // span)
        deal_table.append(part["table_id"].to_numpy()[np.unique(where, return_index=True)[1]])
        deal_win.append(np.bincount(where, weights=part["win_share"].to_numpy()) / per_key)
        deal_net.append(np.bincount(where, weights=part["net"].to_numpy()) / per_key)
        for d in np.unique(keys // span):
            lineups.add(tuple((keys[keys // span == d] % span).tolist()))
        ids, first, n_rows = np.unique(entrant, return_index=True, return_counts=True)
        part_errors = np.bincount(entrant, weights=part["errors"].to_numpy())
        part_decisions = np.bincount(entrant, weights=part["decisions"].to_numpy())
        has_failed = "failed_decisions" in part.column_names
        counted &= has_failed
        part_failed = np.bincount(entrant, weights=part["failed_decisions"].to_numpy()) if has_failed else None
        for e, i, n in zip(ids.tolist(), first.tolist(), n_rows.tolist(), strict=True):
            labels.setdefault(e, part["entrant"][i].as_py())
            games[e] += n
            errors[e] += int(part_errors[e])
            decisions[e] += int(part_decisions[e])
            failed[e] += int(part_failed[e]) if part_failed is not None else 0
        if "first_error" in part.column_names and part["errors"].to_numpy().any():
            game_id = part["game_id"].to_numpy()
            for row in np.argsort(game_id, kind="stable"):
                message = part["first_error"][int(row)].as_py()
                if message:
                    first_error.setdefault(int(entrant[row]), message)
        deal_wins.append((deal, part["game_id"].to_numpy(), entrant, part["finish"].to_numpy(),
                          part["table_id"].to_numpy()))
    if not labels:
        return RunSummary((), None, 0, max_error_share=max_error_share)
    luck = _luck_nets(out) if net == "adjusted" else None  # first: its working memory is freed before scipy loads
    key_entrant, key_deal, table, win, net_means = (np.concatenate(a) for a in (
        deal_entrant, deal_ids, deal_table, deal_win, deal_net))
    rows = []
    for e, label in sorted(labels.items()):
        mine = key_entrant == e
        rows.append(EntrantRow(label, games[e], int(mine.sum()), errors[e], decisions[e],
                               stratified_interval(win[mine], table[mine], level),
                               stratified_interval(net_means[mine], table[mine], level),
                               failed=failed[e] if counted else None, first_error=first_error.get(e, "")))
    nets = {labels[e]: dict(zip(key_deal[key_entrant == e].tolist(), net_means[key_entrant == e].tolist(),
                                strict=True)) for e in labels}
    if luck is not None:
        rows, note, adjusted = _with_adjusted_net(luck, rows, level)
        nets = adjusted or nets
    else:
        note = ""
    summary = RunSummary(tuple(rows), None, len(lineups), note, max_error_share=max_error_share, nets=nets,
                         lineup_of=dict(zip(key_deal.tolist(), table.tolist(), strict=True)),
                         stderr_logs=_stderr_logs(out), antes=_antes(out))
    unranked = {r.entrant for r in summary.unranked()}
    ranked = {e: label for e, label in labels.items() if label not in unranked}
    strengths, paired, fit = _strengths(deal_wins, ranked, level, replicates)
    return replace(summary, strengths=strengths, paired=paired, fit=fit)


def _antes(out: Path) -> int | None:
    """The antes of a full table when they never grow (the pot when the hole cards are dealt), from the manifest."""
    manifest = read_manifest(out)
    if manifest is None:
        return None
    rules, seats = manifest.config.get("rules", {}), manifest.config.get("table_size")
    if rules.get("ante_growth", "none") != "none" or not isinstance(seats, int):
        return None
    return int(rules.get("ante", 1)) * seats


def _stderr_logs(out: Path) -> tuple[str, ...]:
    """The non-empty stderr files of isolated bots in the folder (`bots.isolated` writes them)."""
    folder = Path(out) / STDERR_DIR
    if not folder.is_dir():
        return ()
    return tuple(str(f) for f in sorted(folder.iterdir()) if f.is_file() and f.stat().st_size > 0)


def _luck_nets(out: Path) -> dict[str, pd.DataFrame]:
    """Per entrant, its luck-adjusted net per deal (``net``) and the deal's lineup (``table``), indexed by deal;
    empty when the folder has no seats table (written by an older treasure-sim)."""
    import pyarrow as pa

    from .luck import adjusted_games

    games = adjusted_games(out)
    pa.default_memory_pool().release_unused()  # the parts it read: ~20 MB back to the system before scipy loads
    if "net_adjusted" not in games.columns:
        return {}
    per = games.assign(entrant=games["entrant"].astype(str)).groupby(
        ["entrant", "deal_id"], observed=True).agg(net=("net_adjusted", "mean"), table=("table_id", "first"))
    return {str(entrant): part.droplevel("entrant") for entrant, part in per.groupby(level="entrant")}


def _with_adjusted_net(mine: dict[str, pd.DataFrame], rows: list[EntrantRow], level: float
                       ) -> tuple[list[EntrantRow], str, dict[str, dict[int, float]]]:
    """The rows with their luck-adjusted net (``mine``: `_luck_nets`), and each entrant's per-deal adjusted nets; the
    rows unchanged, with the reason, when the folder has no seats table."""
    if not mine:
        return rows, "no luck adjustment: the folder has no seats table (written by an older treasure-sim)", {}
    nets = {e: dict(zip(p.index.astype(int).tolist(), p["net"].tolist(), strict=True)) for e, p in mine.items()}
    return [replace(r, net_adjusted=stratified_interval(mine[r.entrant]["net"], mine[r.entrant]["table"], level))
            for r in rows], "", nets


def _strengths(parts: list[tuple[np.ndarray, ...]], labels: dict[int, str], level: float, replicates: int
               ) -> tuple[Strengths | None, PairedAhead | None, FitCheck | None]:
    """Fit the strengths of the entrants in ``labels`` (bootstrapped within lineups), their observed head-to-head
    and the model's fit check; Nones when no two of them ever shared a game."""
    ids = sorted(labels)
    if len(ids) < 2:
        return None, None, None
    code = np.full(max(max(ids), *(int(p[2].max()) for p in parts)) + 1, -1)
    code[ids] = np.arange(len(ids))
    wins, strata = [], []
    for d, g, e, f, t in parts:
        keep = code[e] >= 0
        deals, w = finish_comparisons(d[keep], g[keep], code[e][keep], f[keep], len(ids))
        wins.append(w)
        first = {int(x): int(y) for x, y in zip(d[keep][::-1], t[keep][::-1], strict=True)}
        strata.append(np.array([first[int(x)] for x in deals], dtype=np.int64))
    stacked = np.concatenate(wins) if wins else np.empty((0, len(ids), len(ids)))
    if not stacked.any():
        return None, None, None
    lineup = np.concatenate(strata)
    names = [labels[i] for i in ids]
    s = fit_strengths(stacked, names, replicates=replicates, level=level, strata=lineup)
    return s, paired_ahead(stacked, names, lineup, level), fit_check(stacked, s.theta, lineup)
