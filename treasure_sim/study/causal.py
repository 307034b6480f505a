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


def paired(reference: pd.DataFrame, arm: pd.DataFrame, level: float = LEVEL,
           metrics: tuple[str, ...] = METRICS) -> dict[str, Interval]:
    """Per metric, the mean of ``arm - reference`` over the deals both played, with its interval."""
    common = reference.index.intersection(arm.index)
    return {m: mean_interval((arm.loc[common, m] - reference.loc[common, m]).dropna(), level) for m in metrics}


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
LADDER_METRICS = ("strength", "net", "h2h")  # h2h: the share of games finished ahead of the strongest opponent
SATURATED = 0.01  # a head-to-head share within this of 0 or 1 is pinned: more skill cannot move it


def ahead_of(games: pd.DataFrame, entrant: str, opponent: str) -> pd.Series:
    """Per deal, the share of the entrant's games it finished ahead of ``opponent`` (ties ½); deals they shared."""
    finish = games.assign(entrant=games["entrant"].astype(str)).pivot_table(
        index="game_id", columns="entrant", values="finish", aggfunc="first")
    if entrant not in finish or opponent not in finish:
        return pd.Series(dtype=float)
    both = finish[[entrant, opponent]].dropna()
    score = (both[entrant] < both[opponent]).astype(float) + 0.5 * (both[entrant] == both[opponent])
    deal = games.drop_duplicates("game_id").set_index("game_id")["deal_id"]
    return score.groupby(deal.reindex(score.index)).mean()


def _strongest_opponent(games: list[pd.DataFrame], entrant: str) -> str:
    """The other entrant with the highest mean strength over these games (the climber's hardest opponent)."""
    pooled = pd.concat(games, ignore_index=True)
    pooled = pooled.assign(strength=strength(pooled), entrant=pooled["entrant"].astype(str))
    others = pooled[pooled["entrant"] != entrant].groupby("entrant")["strength"].mean()
    return str(others.idxmax()) if len(others) else ""


def _chain(outs: list[pd.DataFrame], metric: str, level: float) -> list[int]:
    threshold = ALPHA / max(len(outs) - 1, 1)
    chain = [0]
    for j in range(1, len(outs)):
        test = paired(outs[chain[-1]], outs[j], level, (metric,))[metric]
        if test.mean > 0 and test.p_value < threshold:
            chain.append(j)
    return chain


def ladder(study: Study, level: float = LEVEL, metric: str = "strength") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The skill ladder: (rungs, depth).

    Rungs are taken in the order the study lists them, weakest first (a lower number may be the stronger
    setting). ``rungs``: per rules group and rung, the climbing entrant's mean net, strength and ``h2h`` (the share
    of games it finished ahead of the group's strongest other entrant, `opponent`) with intervals, the paired
    difference from the rung below, and ``ceiling``: whether its finishing order against every opponent is pinned
    (ahead in at least 99% of deals or in at most 1%), so that strength cannot rise at that rung.
    ``depth``: per group, how many rungs are *distinguishable*: climbing from the lowest rung, a rung counts when
    it beats the last counted one on ``metric`` (paired by deal, its two-sided p below ALPHA / (rungs - 1),
    Bonferroni over the steps a ladder can take); depth = 1 + steps. The same count on net chips
    (``depth_net``, no ceiling) and on the head-to-head with the strongest opponent (``depth_h2h``) is beside it,
    with ``ceiling``: the rungs at which strength is pinned.
    """
    arms = study.of_kind("ladder")
    rung_rows, depth_rows = [], []
    for group in dict.fromkeys(a.group for a in arms):
        steps = [a for a in arms if a.group == group]
        entrant = steps[0].entrant
        games = [study.games(a) for a in steps]
        opponent = _strongest_opponent(games, entrant)
        others = sorted(set(pd.concat([g["entrant"].astype(str) for g in games])) - {entrant})
        outs = []
        for g in games:
            out = outcomes(g, entrant)
            outs.append(out.assign(h2h=ahead_of(g, entrant, opponent).reindex(out.index)))
        for i, (arm, g, out) in enumerate(zip(steps, games, outs, strict=True)):
            pinned = [(o, ahead_of(g, entrant, o).mean()) for o in others]
            row = {"group": group, "entrant": arm.entrant, "param": arm.param, "rung": json.loads(arm.what),
                   "deals": len(out), "opponent": opponent,
                   "ceiling": bool(pinned) and all(min(v, 1 - v) <= SATURATED for _, v in pinned),
                   "pinned": ", ".join(f"{o} {v:.2f}" for o, v in pinned)}
            for m in LADDER_METRICS:
                iv = mean_interval(out[m].dropna(), level)
                row |= {m: iv.mean, f"{m}_low": iv.low, f"{m}_high": iv.high}
                step = paired(outs[i - 1], out, level, (m,))[m] if i else None
                row |= {f"{m}_step": step.mean if step else math.nan,
                        f"{m}_step_low": step.low if step else math.nan,
                        f"{m}_step_high": step.high if step else math.nan}
            rung_rows.append(row)
        chains = {m: _chain(outs, m, level) for m in LADDER_METRICS}
        chains[metric] = _chain(outs, metric, level)
        ceiling = [str(json.loads(a.what)) for a, r in zip(steps, rung_rows[-len(steps):], strict=True) if r["ceiling"]]
        depth_rows.append({"group": group, "entrant": entrant, "param": steps[0].param,
                           "rungs": len(steps), "depth": len(chains[metric]),
                           "chain": " < ".join(str(json.loads(steps[j].what)) for j in chains[metric]),
                           "depth_net": len(chains["net"]), "depth_h2h": len(chains["h2h"]), "opponent": opponent,
                           "ceiling": ", ".join(ceiling), "deals": min(len(o) for o in outs)})
    return pd.DataFrame(rung_rows), pd.DataFrame(depth_rows)


DEPTH_METHOD = ("skill depth: climbing from the weakest rung, a rung counts when it beats the last counted rung in "
                "finishing strength, paired by deal, with a two-sided t-test p below 0.05 / (rungs − 1) "
                "(Bonferroni over the steps of one ladder); depth = the number of rungs counted. The same count on "
                "net chips (no ceiling) and on the head-to-head with the strongest other entrant stands beside it")
CEILING_TEXT = ("Strength has a ceiling: when the climbing bot already finishes ahead of some opponents in every "
                "deal and behind the others in every deal, its strength is the same at every rung (0.667 at four "
                "seats when it beats two of three), and a stronger rung cannot show. A rung marked *at the ceiling* "
                "is one where its finishing order against every opponent is pinned (ahead in at least 99% of deals, "
                "or in at most 1%); read depth there by net chips, which has no ceiling, or by the head-to-head with "
                "the strongest opponent")


# ----- luck ----------------------------------------------------------------------------------------------------
def net_by_deal(games: pd.DataFrame) -> pd.DataFrame:
    """Per deal (rows) and entrant (columns), the entrant's mean net; only deals where every entrant played."""
    table = games.pivot_table(index="deal_id", columns="entrant", values="net", aggfunc="mean", observed=True)
    return table.dropna()


__all__ = [
    "Arm",
    "Study",
    "ahead_of",
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
