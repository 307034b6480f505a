"""Tuning rules towards targets: every combination of the knobs is a candidate rule set, raced by successive
halving with common random numbers until the budget of deals is spent.

Round 1 plays every candidate on the first deals; each later round keeps the best ``1/eta`` of them (the
smallest shortfall from the targets, by the point estimates) and plays ``eta`` times as many deals, the
same deals for every candidate (same seeds: the comparison is paired by deal). Noise is why racing
re-samples rather than trusting one small run (Kunanusont et al. 2017). Each candidate's games are an
ordinary results folder ``DIR/<candidate>/``; ``DIR/tune.json`` records every round, so a rerun resumes
(finished folders play nothing) and, the games being a function of the config and the deal, reaches the
same answer.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..run.experiment import TOP_KEYS, ConfigError, Experiment, check_keys, parse_experiment, read_toml
from ..run.schedule import deals_to_seat_everyone
from ..run.store import atomic_write, now, read_manifest
from ..run.sweep import Variant, grid_variants, listed_variants, variant_experiment
from ..study.targets import METRICS, Target, load_games

MANIFEST = "tune.json"
TUNE_KEYS = ("budget", "eta", "knobs", "candidates", "targets", "first_deals")
TARGET_KEYS = ("metric", "at_least", "at_most", "between", "better", "worse")
MIN_FIRST_DEALS = 10  # fewer deals a candidate in round 1 and `tune` warns that the budget is too small
MAX_CANDIDATES = 10_000  # counted before the grid is built: round 1 plays every candidate


@dataclass(frozen=True, slots=True)
class Tuning:
    """A validated tuning config: the base experiment, the candidates (knob combinations) and the targets."""

    base: Experiment
    candidates: tuple[Variant, ...]
    targets: tuple[Target, ...]
    budget: int  # deals, summed over candidates and rounds
    eta: int = 3
    first_deals: int | None = None

    @property
    def name(self) -> str:
        return self.base.name

    def rounds(self) -> list[tuple[int, int]]:
        """(candidates kept, cumulative deals each) per round, sized so that the rounds spend about ``budget``."""
        kept, counts = len(self.candidates), []
        while True:
            counts.append(kept)
            if kept == 1:
                break
            kept = math.ceil(kept / self.eta)
        growth = [self.eta ** r for r in range(len(counts))]
        unit = sum(n * (g - (growth[r - 1] if r else 0)) for r, (n, g) in enumerate(zip(counts, growth, strict=True)))
        floor = max(deals_to_seat_everyone(len(self.base.entrants), self.base.table_size), 2)
        first = self.first_deals or max(floor, self.budget // unit)
        return [(n, first * g) for n, g in zip(counts, growth, strict=True)]

    def experiment(self, candidate: Variant, deals: int) -> Experiment:
        return variant_experiment(self.base, candidate).replace(deals=deals)

    def spent(self) -> int:
        """Deals the planned rounds play in all (the budget, unless the first round's floor raises it)."""
        plan = self.rounds()
        return sum(n * (d - (plan[r - 1][1] if r else 0)) for r, (n, d) in enumerate(plan))

    def warning(self) -> str | None:
        """Why the budget is too small, in one line (None when it is not): round 1 then judges candidates on so few
        deals that an interval says next to nothing, and drops most of them on that."""
        plan = self.rounds()
        first = plan[0][1]
        dropped = plan[0][0] - plan[1][0] if len(plan) > 1 else 0
        if first >= MIN_FIRST_DEALS and self.spent() <= self.budget:
            return None
        unit = self.spent() // first
        need = unit * MIN_FIRST_DEALS
        over = f"; the plan spends {self.spent():,} deals, more than the budget" if self.spent() > self.budget else ""
        drops = f" and drops {dropped} of them on that" if dropped else ""
        return (f"budget {self.budget:,} is too small for {len(self.candidates)} candidates: round 1 plays each on "
                f"{first} deal{'s' * (first != 1)}{drops}{over}. A budget of at least "
                f"{need:,} gives every candidate {MIN_FIRST_DEALS} deals in round 1 (--budget {need})")


def load_tuning(path: str | Path, *, check_strategies: bool = True) -> Tuning:
    return parse_tuning(read_toml(path, "tuning"), str(path), check_strategies=check_strategies)


def parse_tuning(data: dict[str, Any], source: str = "<memory>", *, check_strategies: bool = True) -> Tuning:
    """An experiment config plus a ``[tune]`` table: ``budget``, ``eta``, ``[tune.knobs]``, ``[[tune.targets]]``."""
    where = f"{source}: "
    check_keys(data, (*TOP_KEYS, "tune"), where)
    data = dict(data)
    tune = data.pop("tune", None)
    if not isinstance(tune, dict):
        raise ConfigError(f"{where}a tuning config needs a [tune] table with budget, [tune.knobs] and "
                          f"[[tune.targets]]")
    check_keys(tune, TUNE_KEYS, f"{where}[tune]: ")
    base = parse_experiment(data, source, check_strategies=check_strategies)
    if "knobs" not in tune and "candidates" not in tune:
        raise ConfigError(f"{where}[tune] needs candidates: a grid [tune.knobs] (every combination is one) and/or "
                          f"named [[tune.candidates]] (name and rules, like a sweep's [[variants]])")
    candidates = (grid_variants(tune["knobs"], f"{where}[tune.knobs] as a grid: ", MAX_CANDIDATES, "candidates")
                  if "knobs" in tune else []) + \
        (listed_variants(tune["candidates"], f"{where}[tune.candidates] as variants: ") if "candidates" in tune
         else [])
    names = [c.name for c in candidates]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}[tune]: candidate names must differ, got {', '.join(names)}")
    for c in candidates:
        try:
            variant_experiment(base, c)
        except ConfigError as err:
            raise ConfigError(f"{where}[tune.knobs]: candidate {c.name!r}: "
                              f"{str(err).removeprefix(f'{base.source}: ')}") from None
    raw_targets = tune.get("targets") or []
    targets = tuple(_target(t, f"{where}[[tune.targets]][{i}]: ", base) for i, t in enumerate(raw_targets))
    if not targets:
        raise ConfigError(f"{where}[tune] needs at least one [[tune.targets]] (metric = ..., at_least/at_most/"
                          f"between); metrics: {', '.join(METRICS)}")
    budget, eta, first = tune.get("budget"), tune.get("eta", 3), tune.get("first_deals")
    for name, value, low in (("budget", budget, 1), ("eta", eta, 2), ("first_deals", first, 1)):
        if (value is not None or name == "budget") and (isinstance(value, bool) or not isinstance(value, int)
                                                        or value < low):
            raise ConfigError(f"{where}[tune].{name} must be a whole number >= {low}, got {value!r}")
    assert isinstance(budget, int) and isinstance(eta, int)
    return Tuning(base, tuple(candidates), targets, budget, eta, first)


def _target(raw: Any, at: str, base: Experiment) -> Target:
    if not isinstance(raw, dict):
        raise ConfigError(f"{at}must be a table such as {{ metric = \"natural_end\", at_least = 0.95 }}")
    check_keys(raw, TARGET_KEYS, at)
    metric = raw.get("metric")
    if metric not in METRICS:
        raise ConfigError(f"{at}metric must be one of {', '.join(METRICS)}, got {metric!r}")
    bounds = [k for k in ("at_least", "at_most", "between") if k in raw]
    if len(bounds) != 1:
        raise ConfigError(f"{at}give exactly one of at_least, at_most or between = [low, high]")
    value = raw[bounds[0]]
    numbers = value if bounds[0] == "between" else [value]
    if not isinstance(numbers, list) or len(numbers) != (2 if bounds[0] == "between" else 1) or any(
            isinstance(v, bool) or not isinstance(v, int | float) for v in numbers):
        raise ConfigError(f"{at}{bounds[0]} must be {'[low, high]' if bounds[0] == 'between' else 'a number'}, "
                          f"got {value!r}")
    if any(math.isnan(v) for v in numbers):
        raise ConfigError(f"{at}{bounds[0]} must be a number, got nan")
    low, high = (numbers[0], numbers[1]) if bounds[0] == "between" else \
        (numbers[0], math.inf) if bounds[0] == "at_least" else (-math.inf, numbers[0])
    if low > high:
        raise ConfigError(f"{at}between = [{low:g}, {high:g}] is reversed: no value lies in it; give [low, high] "
                          f"with low <= high, such as [{high:g}, {low:g}]")
    better, worse = raw.get("better", ""), raw.get("worse", "")
    labels = {e.label for e in base.entrants}
    if metric == "skill_gap" and (better not in labels or worse not in labels):
        raise ConfigError(f"{at}skill_gap needs better and worse, two entrant labels of {', '.join(sorted(labels))}")
    return Target(metric, float(low), float(high), better, worse)


# ----- the race --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Measured:
    """One candidate after one round: each target's estimate and verdict, and the total shortfall."""

    name: str
    deals: int
    estimates: dict[str, dict[str, Any]]  # target label -> value, low, high, method, verdict, shortfall, margin
    shortfall: float
    margin: float = 0.0  # the smallest margin of the intervals inside their bounds (ties of shortfall)

    @property
    def verdicts(self) -> list[str]:
        return [e["verdict"] for e in self.estimates.values()]


def measure(tuning: Tuning, candidate: Variant, folder: Path, deals: int) -> Measured:
    """The targets' estimates from the candidate's first ``deals`` deals (a resumed tuning may hold more)."""
    games = load_games(folder)
    games = games[games["deal_id"] < deals]
    estimates, shortfall, margin = {}, 0.0, math.inf
    for target in tuning.targets:
        e = target.estimate(games)
        short, inside = target.shortfall(e), target.margin(e)
        estimates[target.label] = {"value": e.value, "low": e.low, "high": e.high, "method": e.method,
                                   "verdict": target.verdict(e), "shortfall": short, "margin": inside}
        shortfall, margin = shortfall + short, min(margin, inside)
    return Measured(candidate.name, deals, estimates, shortfall, margin)


def _rank(m: Measured) -> tuple[float, int, float, str]:
    """Smallest shortfall first; then the most targets met; then the interval deepest inside its bounds."""
    return (m.shortfall, -m.verdicts.count("met"), -m.margin, m.name)


@dataclass(frozen=True, slots=True)
class TuneReport:
    out: Path
    rounds: list[list[Measured]]  # every round's measurements, best first
    status: str
    changes: dict[str, dict[str, Any]]  # candidate -> the rule fields it sets
    warning: str = ""  # why the budget was too small, if it was (`Tuning.warning`)

    @property
    def final(self) -> list[Measured]:
        """Each candidate's last measurement (the most deals it got), best first."""
        last: dict[str, Measured] = {}
        for measured in self.rounds:
            for m in measured:
                last[m.name] = m
        return sorted(last.values(), key=lambda m: (-m.deals, *_rank(m)))


def tune(tuning: Tuning, out: str | Path, *, play: Callable[[Experiment, Path], Any],
         tell: Callable[[str], None] = lambda _: None,
         on_round: Callable[[int, list[tuple[Experiment, Path]]], None] | None = None) -> TuneReport:
    """Race the candidates (see the module docstring); ``play(experiment, folder)`` runs or resumes one folder.

    ``tell`` hears the plan, a warning when the budget is too small (`Tuning.warning`), and after each round
    which candidates it kept and which it dropped; ``on_round(number, [(experiment, folder), ...])`` is called
    before a round plays (the command shows one progress bar over the round's games with it).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = {c.name: c for c in tuning.candidates}
    alive = list(tuning.candidates)
    rounds: list[list[Measured]] = []
    record: dict[str, Any] = {"kind": "tune", "name": tuning.name, "started": now(), "base": tuning.base.to_dict(),
              "budget": tuning.budget, "eta": tuning.eta, "targets": [t.label for t in tuning.targets],
              "candidates": {c.name: c.changes() for c in tuning.candidates}, "rounds": []}
    status = "interrupted"
    plan = tuning.rounds()
    tell(f"{tuning.name}: {len(tuning.candidates)} candidates, {len(plan)} rounds (candidates x deals each: "
         + ", ".join(f"{n} x {d}" for n, d in plan) + f"), {tuning.spent():,} deals of a budget of {tuning.budget:,}")
    warning = tuning.warning()
    if warning:
        record["warning"] = warning
        tell(f"warning: {warning}")
    try:
        for number, (keep, deals) in enumerate(plan, start=1):
            alive = alive[:keep]
            tell(f"round {number}: {len(alive)} candidate(s) x {deals} deals")
            jobs = []
            for candidate in alive:
                folder = out / candidate.name
                held = read_manifest(folder)  # a resumed tuning: later rounds may have played more already
                jobs.append((tuning.experiment(candidate, max(deals, held.deals if held else 0)), folder))
            if on_round is not None:
                on_round(number, jobs)
            measured = []
            for candidate, (experiment, folder) in zip(alive, jobs, strict=True):
                play(experiment, folder)
                measured.append(measure(tuning, candidate, folder, deals))
            measured.sort(key=_rank)
            rounds.append(measured)
            record["rounds"].append({"deals": deals, "measured": [dataclasses.asdict(m) for m in measured]})
            _write(out, record)
            alive = [names[m.name] for m in measured]
            if number < len(plan):
                kept = plan[number][0]
                tell(f"round {number} on {deals} deals: kept {', '.join(m.name for m in measured[:kept])}; dropped "
                     + ", ".join(f"{m.name} (shortfall {m.shortfall:.3g})" for m in measured[kept:]))
        status = "complete"
    finally:
        record.update(status=status, updated=now())
        _write(out, record)
    return TuneReport(out, rounds, status, record["candidates"], warning or "")


def _write(out: Path, record: dict[str, Any]) -> None:
    atomic_write(out / MANIFEST, json.dumps(record, indent=2, default=float).encode())


def is_tune_dir(path: str | Path) -> bool:
    return (Path(path) / MANIFEST).is_file()


def read_tune(path: str | Path) -> TuneReport:
    """A tuning folder's record as a report (for `treasure-sim report`)."""
    data = json.loads((Path(path) / MANIFEST).read_text(encoding="utf-8"))
    rounds = [[Measured(**m) for m in r["measured"]] for r in data["rounds"]]
    return TuneReport(Path(path), rounds, data.get("status", "?"), data.get("candidates", {}), data.get("warning", ""))
