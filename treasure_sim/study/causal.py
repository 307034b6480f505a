"""Causal balance: what an intervention does, read from a balance study's arms (`treasure_sim.run.studies`).

Every arm plays the same deals with the same opponents in the same seats, so an intervention's effect on an
entrant is the mean over deals of a *paired difference* (arm minus base, or base minus arm for a barred
power), with the Student-t interval of `stats.mean_interval` and Holm (or BH) across each table's family.
Outcomes per deal: ``net`` (chips) and ``strength``, the share of the other players the entrant finished
ahead of (ties ½; finishing order as everywhere: money, then the later elimination). Nothing here is a
regression on what players held at the end: these are interventions, so the differences are effects.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..run.store import Manifest, VariantEntry, is_sweep_dir, read_games, read_manifest
from .stats import ALPHA, LEVEL, Interval, adjust, direction_flags, mean_interval

COLUMNS = ("deal_id", "game_id", "seat", "entrant", "net", "finish", "n_players", "hands_played", "end_reason",
           "win_share", "strategy")
METRICS = ("net", "strength")
SUIT_NAMES = {"s": "♠ Spades", "c": "♣ Clubs", "h": "♥ Hearts", "d": "♦ Diamonds"}
RANK_ORDER = "23456789TJQKA"


@dataclass(frozen=True, slots=True)
class Arm:
    """One arm of a study, classified by what it changes: ``kind`` is base, power, endowment, ladder or other."""

    name: str
    dir: str
    kind: str
    entrant: str = ""
    what: str = ""  # the power(s) barred, the card(s) given, or the rung's value
    group: str = ""  # ladder: the rules it is climbed under
    param: str = ""  # ladder: the entrant's param that rises
    deals: int | None = None  # the arm's own limit on deals (its folder may be an earlier arm's, with more)


def classify(entry: VariantEntry) -> Arm:
    """What an arm is, from the changes its sweep entry records (a hand-written sweep is read the same way)."""
    changes = dict(entry.changes)
    deals = changes.pop("deals", None)
    who = changes.pop("entrants", {})
    if not who:
        return Arm(entry.name, entry.dir, "base" if not changes else "other", deals=deals)
    if len(who) != 1:
        return Arm(entry.name, entry.dir, "other", deals=deals)
    (label, change), = who.items()
    if set(change) == {"restrict"} and not changes:
        return Arm(entry.name, entry.dir, "power", label, "+".join(change["restrict"]), deals=deals)
    if set(change) == {"treasures"} and not changes:
        return Arm(entry.name, entry.dir, "endowment", label, " ".join(change["treasures"]), deals=deals)
    if set(change) == {"params"} and len(change["params"]) == 1:
        (param, value), = change["params"].items()
        suffix = f".{param}-{value}"  # studies.ladder_arms names arms ladder.<rules variant>.<param>-<value>
        if entry.name.startswith("ladder.") and entry.name.endswith(suffix):
            group = entry.name[len("ladder."):-len(suffix)]
        else:
            group = json.dumps(changes, sort_keys=True) if changes else "base"
        return Arm(entry.name, entry.dir, "ladder", label, json.dumps(value), group, param, deals)
    return Arm(entry.name, entry.dir, "other", deals=deals)


@dataclass
class Study:
    """A balance study on disk: its manifest, its arms, and each arm's games (read once, verified)."""

    path: Path
    manifest: Manifest
    arms: tuple[Arm, ...]
    _games: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def base(self) -> Arm:
        return next(a for a in self.arms if a.name == self.manifest.baseline)

    def of_kind(self, kind: str) -> list[Arm]:
        return [a for a in self.arms if a.kind == kind]

    def games(self, arm: Arm) -> pd.DataFrame:
        """The arm's games: its folder's, up to its own deals (a rung that is the base reads the base's folder)."""
        if arm.name not in self._games:
            games = read_games(self.path / arm.dir, COLUMNS).to_pandas()
            self._games[arm.name] = games[games["deal_id"] < arm.deals].reset_index(drop=True) if arm.deals \
                else games
        return self._games[arm.name]


def is_balance_study(path: str | Path) -> bool:
    """A sweep folder with at least one arm that changes an entrant (restricted, endowed or on a ladder)."""
    if not is_sweep_dir(path):
        return False
    manifest = read_manifest(path)
    return manifest is not None and any("entrants" in v.changes for v in manifest.variants)


def read_study(path: str | Path) -> Study:
    """The study in ``path``: arms with games on disk only; the base arm must have some."""
    path = Path(path)
    manifest = read_manifest(path)
    if manifest is None or manifest.kind != "sweep":
        raise ValueError(f"{path} is not a balance study folder: {path / 'sweep.json'} is missing")
    arms = []
    for entry in manifest.variants:
        on_disk = read_manifest(path / entry.dir)
        if on_disk is not None and on_disk.games_done:
            arms.append(classify(entry))
    if manifest.baseline not in {a.name for a in arms}:
        raise ValueError(f"{path}: the base arm {manifest.baseline!r} has no games yet")
    return Study(path, manifest, tuple(arms))


# ----- outcomes and paired effects ---------------------------------------------------------------------------
def strength(games: pd.DataFrame) -> pd.Series:
    """Per player row: the share of the other players of its game it finished ahead of (ties count half)."""
    by_game = games.groupby("game_id")["finish"]
    low, high = by_game.rank(method="min"), by_game.rank(method="max")  # 1 + players ahead; players not behind
    n = games["n_players"]
    return ((n - high) + 0.5 * (high - low)) / (n - 1)


def outcomes(games: pd.DataFrame, entrant: str) -> pd.DataFrame:
    """Per deal (the index), the entrant's mean ``net`` and ``strength`` over its games of that deal."""
    games = games.assign(strength=strength(games))
    mine = games[games["entrant"].astype(str) == entrant]
    if mine.empty:
        raise KeyError(f"no entrant {entrant!r} in these games")
    return mine.groupby("deal_id")[list(METRICS)].mean()


def paired(reference: pd.DataFrame, arm: pd.DataFrame, level: float = LEVEL) -> dict[str, Interval]:
    """Per metric, the mean of ``arm - reference`` over the deals both played, with its interval."""
    common = reference.index.intersection(arm.index)
    return {m: mean_interval(arm.loc[common, m] - reference.loc[common, m], level) for m in METRICS}


def _rows(arm: Arm, effects: dict[str, Interval], sign: float) -> list[dict]:
    return [{"arm": arm.name, "entrant": arm.entrant, "what": arm.what, "metric": m, "value": sign * iv.mean,
             "low": sign * (iv.high if sign < 0 else iv.low), "high": sign * (iv.low if sign < 0 else iv.high),
             "p": iv.p_value, "deals": iv.n} for m, iv in effects.items()]


def _flagged(rows: list[dict], multiplicity: str) -> pd.DataFrame:
    """The table with Holm/BH-adjusted p-values and ▲/▼ flags, one family per metric."""
    out = pd.DataFrame(rows, columns=["arm", "entrant", "what", "metric", "value", "low", "high", "p", "deals"])
    out["p_adjusted"] = np.nan
    for idx in out.groupby("metric").groups.values():
        out.loc[idx, "p_adjusted"] = adjust(out.loc[idx, "p"], multiplicity)
    out["flag"] = direction_flags(out["value"], out["p_adjusted"])
    out.attrs["multiplicity"] = multiplicity
    return out


def power_values(study: Study, multiplicity: str = "holm", level: float = LEVEL) -> pd.DataFrame:
    """Per entrant and power: what the entrant loses when barred from it alone (base minus restricted), in net
    chips and in finishing strength, paired by deal; flags adjusted over each metric's family."""
    base = study.games(study.base)
    rows = []
    for arm in study.of_kind("power"):
        ref = outcomes(base, arm.entrant)
        rows += _rows(arm, paired(ref, outcomes(study.games(arm), arm.entrant), level), -1.0)
    return _flagged(rows, multiplicity)


def endowment_values(study: Study, multiplicity: str = "holm", level: float = LEVEL) -> pd.DataFrame:
    """Per card: what starting every game with it in the entrant's zone is worth (endowed minus base)."""
    base = study.games(study.base)
    rows = []
    for arm in study.of_kind("endowment"):
        ref = outcomes(base, arm.entrant)
        rows += _rows(arm, paired(ref, outcomes(study.games(arm), arm.entrant), level), 1.0)
    out = _flagged(rows, multiplicity)
    single = out["what"].str.len() == 2
    out["rank"] = np.where(single, out["what"].str[0], "")
    out["suit"] = np.where(single, out["what"].str[1], "")
    return out


def heat_grid(values: pd.DataFrame, metric: str = "net") -> pd.DataFrame:
    """The endowment values of one metric as a suit x rank grid (rows ♠ ♣ ♥ ♦, columns 2..A; NaN: not played)."""
    v = values[(values["metric"] == metric) & (values["suit"] != "")]
    grid = v.pivot_table(index="suit", columns="rank", values="value", aggfunc="mean")
    return grid.reindex(index=list(SUIT_NAMES), columns=list(RANK_ORDER))


# ----- skill depth ---------------------------------------------------------------------------------------------
def ladder(study: Study, level: float = LEVEL, metric: str = "strength") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The skill ladder: (rungs, depth).

    Rungs are taken in the order the study lists them, weakest first (a lower number may be the stronger
    setting). ``rungs``: per rules group and rung, the climbing entrant's mean net and strength with intervals, and the
    paired difference from the rung below. ``depth``: per group, how many rungs are *distinguishable*: climbing
    from the lowest rung, a rung counts when it beats the last counted one on ``metric`` (paired by deal, its
    two-sided p below ALPHA / (rungs - 1), Bonferroni over the steps a ladder can take); depth = 1 + steps.
    """
    arms = study.of_kind("ladder")
    rung_rows, depth_rows = [], []
    for group in dict.fromkeys(a.group for a in arms):
        steps = [a for a in arms if a.group == group]
        outs = [outcomes(study.games(a), a.entrant) for a in steps]
        for i, (arm, out) in enumerate(zip(steps, outs, strict=True)):
            row = {"group": group, "entrant": arm.entrant, "param": arm.param, "rung": json.loads(arm.what),
                   "deals": len(out)}
            for m in METRICS:
                iv = mean_interval(out[m], level)
                row |= {m: iv.mean, f"{m}_low": iv.low, f"{m}_high": iv.high}
                step = paired(outs[i - 1], out, level)[m] if i else None
                row |= {f"{m}_step": step.mean if step else math.nan,
                        f"{m}_step_low": step.low if step else math.nan,
                        f"{m}_step_high": step.high if step else math.nan}
            rung_rows.append(row)
        threshold = ALPHA / max(len(steps) - 1, 1)
        chain = [0]
        for j in range(1, len(steps)):
            test = paired(outs[chain[-1]], outs[j], level)[metric]
            if test.mean > 0 and test.p_value < threshold:
                chain.append(j)
        depth_rows.append({"group": group, "entrant": steps[0].entrant, "param": steps[0].param,
                           "rungs": len(steps), "depth": len(chain),
                           "chain": " < ".join(str(json.loads(steps[j].what)) for j in chain),
                           "deals": min(len(o) for o in outs)})
    return pd.DataFrame(rung_rows), pd.DataFrame(depth_rows)


DEPTH_METHOD = ("skill depth: climbing from the weakest rung, a rung counts when it beats the last counted rung in "
                "finishing strength, paired by deal, with a two-sided t-test p below 0.05 / (rungs − 1) "
                "(Bonferroni over the steps of one ladder); depth = the number of rungs counted")


# ----- luck ----------------------------------------------------------------------------------------------------
def net_by_deal(games: pd.DataFrame) -> pd.DataFrame:
    """Per deal (rows) and entrant (columns), the entrant's mean net; only deals where every entrant played."""
    table = games.pivot_table(index="deal_id", columns="entrant", values="net", aggfunc="mean", observed=True)
    return table.dropna()


__all__ = [
    "Arm",
    "Study",
    "classify",
    "endowment_values",
    "heat_grid",
    "is_balance_study",
    "ladder",
    "net_by_deal",
    "outcomes",
    "paired",
    "power_values",
    "read_study",
    "strength",
]
