"""The designer's page: one balance study (`treasure_sim.run.studies`) answered in the order a designer asks.

How long games last and how often they end by themselves; whether a seat is favoured; what each power and
each starting Treasure is worth (interventions: paired differences per deal, `causal`); skill depth; how much
of the spread of results is luck. Every figure has its interval and says which estimator made it.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from . import analysis as an
from . import causal, targets
from .markdown import cell, entrants_text, md_table, records, rules_text, save_figure
from .stats import LEVEL, SEAT_TEST, SHARE_METHOD, entrant_share, mean_interval, multiplicity_text

PAIRED = (f"paired difference per deal (same deal seed, opponents and seats in both arms), {LEVEL:.0%} Student-t "
          "interval over deals")
UNITS = {"net": ("chips", "+.1f"), "strength": ("share of opponents beaten", "+.3f")}


# ----- figures ---------------------------------------------------------------------------------------------
def plot_power_values(values: pd.DataFrame) -> Figure:
    """Per metric, each (entrant, power) value with its interval; ★ where the adjusted test rejects."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.5 + 0.42 * values["arm"].nunique()), sharey=True)
    for ax, metric in zip(axes, causal.METRICS, strict=True):
        v = values[values["metric"] == metric].reset_index(drop=True)
        y = np.arange(len(v))[::-1]
        for k, entrant in enumerate(sorted(v["entrant"].unique())):
            mine = (v["entrant"] == entrant).to_numpy()
            r = v[mine]
            ax.errorbar(r["value"], y[mine], xerr=[r["value"] - r["low"], r["high"] - r["value"]], fmt="o",
                        color=f"C{k}", capsize=3, label=entrant)
        for yi, (_, r) in zip(y, v.iterrows(), strict=True):
            if r["flag"]:
                ax.annotate("★", (r["high"], yi), xytext=(4, -4), textcoords="offset points")
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_yticks(y, [f"{e}: {w}" for e, w in zip(v["entrant"], v["what"], strict=True)])
        ax.set_xlabel(f"value of the power ({UNITS[metric][0]})")
        ax.set_title(f"{metric}: unrestricted − restricted")
    axes[0].legend(fontsize=8)
    fig.suptitle("What each power is worth (restricted play, paired by deal; ★ = significant after adjustment)")
    fig.tight_layout()
    return fig


def plot_heat_map(values: pd.DataFrame, metric: str = "net") -> Figure:
    """Suit x rank grid of endowment values, each cell annotated; bold where the adjusted test rejects."""
    grid = causal.heat_grid(values, metric)
    v = values[values["metric"] == metric].drop_duplicates("what").set_index("what")
    fig, ax = plt.subplots(figsize=(12, 3.6))
    limit = np.nanmax(np.abs(grid.to_numpy())) if np.isfinite(grid.to_numpy()).any() else 1.0
    image = ax.imshow(grid.to_numpy(dtype=float), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    for i, suit in enumerate(grid.index):
        for j, rank in enumerate(grid.columns):
            card = rank + suit
            if card in v.index and np.isfinite(v.loc[card, "value"]):
                flag, value = v.loc[card, "flag"], v.loc[card, "value"]
                ax.text(j, i, f"{value:{UNITS[metric][1]}}{flag}", ha="center", va="center", fontsize=8,
                        fontweight="bold" if flag else "normal", color="white" if abs(value) > 0.6 * limit else "black")
    ax.set_xticks(range(len(grid.columns)), list(grid.columns))
    ax.set_yticks(range(len(grid.index)), [causal.SUIT_NAMES[s] for s in grid.index])
    entrant = v["entrant"].iloc[0] if len(v) else ""
    ax.set_title(f"Value of starting every game with this card in {entrant}'s zone ({metric}, endowed − base; "
                 "▲/▼ significant after adjustment)")
    fig.colorbar(image, ax=ax, label=UNITS[metric][0])
    fig.tight_layout()
    return fig


def plot_ladder(rungs: pd.DataFrame, depth: pd.DataFrame) -> Figure:
    """Strength of the climbing entrant at each rung, one line per rules variant, with intervals."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    groups = list(dict.fromkeys(rungs["group"]))
    labels = list(dict.fromkeys(map(str, rungs["rung"])))  # every rung in listed order (some groups may lack one)
    for k, group in enumerate(groups):
        r = rungs[rungs["group"] == group]
        x = np.array([labels.index(str(v)) for v in r["rung"]]) + (k - (len(groups) - 1) / 2) * 0.05
        d = depth.set_index("group").loc[group, "depth"]
        ax.errorbar(x, r["strength"], yerr=[r["strength"] - r["strength_low"], r["strength_high"] - r["strength"]],
                    marker="o", capsize=3, label=f"{group} (depth {d})")
    first = rungs[rungs["group"] == groups[0]]
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel(f"{first['entrant'].iloc[0]}: {first['param'].iloc[0]}")
    ax.set_ylabel("strength (share of opponents beaten)")
    ax.set_title("Skill ladder: does a stronger version keep winning more?")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ----- tables ---------------------------------------------------------------------------------------------
def _value_cell(r: dict, metric: str) -> str:
    return cell(r["value"], r["low"], r["high"], UNITS[metric][1], r["flag"])


def power_table(values: pd.DataFrame) -> str:
    entrants = list(dict.fromkeys(values["entrant"]))
    cells = {(r["entrant"], r["what"], r["metric"]): r for r in records(values)}
    rows = [[w] + [_value_cell(cells[(e, w, m)], m) if (e, w, m) in cells else "—"
                   for e in entrants for m in causal.METRICS] for w in dict.fromkeys(values["what"])]
    header = ["power barred"] + [f"{e}: {m}" for e in entrants for m in causal.METRICS]
    return md_table(header, rows)


def suit_table(study: causal.Study, values: pd.DataFrame) -> str:
    """Per suit: the mean value over its ranks, as one paired difference per deal (average of the cells)."""
    rows = []
    base = study.games(study.base)
    arms = {a.what: a for a in study.of_kind("endowment")}
    for suit, name in causal.SUIT_NAMES.items():
        cards = [w for w in values["what"].unique() if len(w) == 2 and w[1] == suit]
        if not cards:
            continue
        entrant = arms[cards[0]].entrant
        ref = causal.outcomes(base, entrant)
        diffs = [causal.outcomes(study.games(arms[c]), entrant) - ref for c in cards]
        out = []
        for metric in causal.METRICS:
            per_deal = pd.concat([d[metric] for d in diffs], axis=1).dropna().mean(axis=1)
            iv = mean_interval(per_deal)
            out.append(cell(iv.mean, iv.low, iv.high, UNITS[metric][1]))
        rows.append([name, len(cards), *out])
    return md_table(["suit", "cards", "net", "strength"], rows)


def length_table(study: causal.Study, groups: dict[str, causal.Arm]) -> str:
    """Hands per game and how often the game ended by itself, for the base arm and each rules variant."""
    rows = []
    for label, arm in [("the study's rules (base arm)", study.base), *groups.items()]:
        games = study.games(arm)
        mean, median, natural = (targets.mean_hands(games), targets.median_hands(games),
                                 targets.natural_end(games))
        rows.append([label, cell(mean.value, mean.low, mean.high, ".1f"),
                     f"{median.value:.0f} [{median.low:.0f}, {median.high:.0f}]",  # a bootstrap may not move it
                     cell(natural.value, natural.low, natural.high, ".3f"), games["game_id"].nunique()])
    return md_table(["rules", "hands per game [95% CI]", "median [95% CI]", "ended by themselves [95% CI]", "games"],
                    rows)


def _ladder_top(study: causal.Study) -> dict[str, causal.Arm]:
    """Per ladder group, the rung that matches the base lineup (else its last, strongest rung): the rules' own
    games."""
    base = {e["label"]: e for e in study.manifest.config.get("entrants", [])}
    out: dict[str, causal.Arm] = {}
    for arm in study.of_kind("ladder"):
        if arm.group == "base":
            continue
        params = base.get(arm.entrant, {}).get("params", {})
        if arm.group not in out or json.loads(out[arm.group].what) != params.get(arm.param):
            out[arm.group] = arm  # later rungs replace earlier ones until the base's own setting is found
    return out


def _span(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


# ----- the page ------------------------------------------------------------------------------------------
def run_designer_report(study_dir: str | Path, out_dir: str | Path | None = None, multiplicity: str = "holm") -> Path:
    """Write ``designer.md`` and its figures (default: ``DIR/report``); return the page's path."""
    study = causal.read_study(study_dir)
    out = Path(out_dir) if out_dir is not None else study.path / "report"
    out.mkdir(parents=True, exist_ok=True)
    m = study.manifest
    base_games = study.games(study.base)
    kinds = {k: len(study.of_kind(k)) for k in ("power", "endowment", "ladder")}
    md = [f"# Balance study: {m.name}", "", f"Data: `{study.path}`", "",
          f"- {len(study.arms)} arms on disk ({kinds['power']} restricted play, {kinds['endowment']} endowments, "
          f"{kinds['ladder']} ladder rungs) of {len(m.variants)}; the base arm: "
          f"{base_games['game_id'].nunique()} games from {base_games['deal_id'].nunique()} deals",
          f"- entrants: {entrants_text(m.config)}; table size {m.config.get('table_size')}, rotate = "
          f"{json.dumps(m.config.get('rotate'))}",
          f"- rules: {rules_text(m.config.get('rules', {}))}; seed {m.config.get('seed')}"]
    if m.status != "complete":
        md.append(f"- **study status: {m.status}** — only the arms and games on disk are analysed")
    md += ["", "Every arm plays the same deals with the same opponents in the same seats; an intervention's value is "
           f"the mean of its {PAIRED}. These are effects, not associations.", ""]

    def figure(name: str, fig: Figure, title: str) -> None:
        md.extend([f"![{title}]({save_figure(fig, out / name, dpi=110)})", ""])
        plt.close(fig)

    md += ["## 1. How long games last, and how often they end by themselves", "",
           "Hands per game (Student-t interval over deals), its median (percentile bootstrap over deals), and the "
           "share of games that ended by themselves rather than at the hand cap (`max_hands`), per deal then over "
           "deals, clipped to 0..1; the rule variants are the skill ladder's games at the base lineup's rung.", "",
           length_table(study, _ladder_top(study)), ""]
    joint = an.seat_joint_test(base_games)
    seats = an.seat_advantage(base_games)
    md += ["## 2. Seat advantage", "", f"Are the seats equal? **{joint.text()}** ({SEAT_TEST}).", "",
           md_table(["seat (0 = first dealer)", "win share [95% CI]", "equal share", "deals"],
                    [[int(r["seat"]), cell(r["mean"], r["ci_low"], r["ci_high"], ".3f", note=r["note"]),
                      f"{r['fair']:.3f}", r["deals"]] for r in records(seats)]), ""]
    if kinds["power"]:
        values = causal.power_values(study, multiplicity)
        md += ["## 3. What each power is worth (restricted play)", "",
               "Each row bars one entrant from one power for whole games (rulings §8: its Clubs make nothing wild "
               "for it, it never moves Spades, draws with Hearts, steals, or takes a New Treasure); the value is "
               "what it loses: unrestricted minus restricted, in net chips and in strength (the share of opponents "
               f"it finished ahead of). Estimator: {PAIRED}. "
               f"{multiplicity_text(multiplicity, int(len(values) / 2), 'per metric, every entrant x power')}.",
               "", power_table(values), ""]
        figure("designer_powers.png", plot_power_values(values), "value of each power")
    if kinds["endowment"]:
        endow = causal.endowment_values(study, multiplicity)
        md += ["## 4. What a starting Treasure is worth (endowments)", "",
               f"Each arm starts every game with one card in {endow['entrant'].iloc[0]}'s Treasure Zone; the value "
               f"is endowed minus base on the same deal ({_span(endow['deals'])} deals a card). The card leaves "
               "the deck, so the cards dealt differ from the base's even in the first hand: the pairing keeps the "
               f"opponents and seats, not the cards. Estimator: {PAIRED}. "
               f"{multiplicity_text(multiplicity, int(len(endow) / 2), 'per metric, every card')}. Per suit, the "
               "mean over its ranks is one paired difference per deal (the average of the cells):", "",
               suit_table(study, endow), ""]
        figure("designer_endowments.png", plot_heat_map(endow, "net"), "value of a starting Treasure (net)")
        figure("designer_endowments_strength.png", plot_heat_map(endow, "strength"),
               "value of a starting Treasure (strength)")
    if kinds["ladder"]:
        rungs, depth = causal.ladder(study)
        md += ["## 5. Skill depth", "",
               f"The same bot at rising strength against the same field, under each rules variant. "
               f"{causal.DEPTH_METHOD}. Strength per rung: Student-t interval over deals.", "",
               md_table(["rules", "skill depth", "distinguishable chain", "rungs", "deals a rung"],
                        [[r["group"], r["depth"], r["chain"], r["rungs"], r["deals"]] for r in records(depth)]), "",
               md_table(["rules", "rung", "strength [95% CI]", "step from the rung below", "net [95% CI]"],
                        [[r["group"], r["rung"], cell(r["strength"], r["strength_low"], r["strength_high"], ".3f"),
                          cell(r["strength_step"], r["strength_step_low"], r["strength_step_high"], "+.3f"),
                          cell(r["net"], r["net_low"], r["net_high"], "+.1f")] for r in records(rungs)]), ""]
        figure("designer_ladder.png", plot_ladder(rungs, depth), "skill ladder")
    nets = causal.net_by_deal(base_games)
    md += ["## 6. How much is luck", ""]
    if len(nets) >= 2:
        share = entrant_share(nets.to_numpy())
        md += [f"Of the variance of one entrant's net money in one deal, the part due to *who* plays (the "
               f"entrants' true means) is **{cell(share.mean, share.low, share.high, '.3f')}**; the rest, "
               f"**{1 - share.mean:.3f}**, comes with the deal (the cards, the seat, and how they meet the bots). "
               f"Estimator: {SHARE_METHOD.format(replicates=1000)}; {share.n} deals of the base arm.", ""]
    else:
        md += ["Not available: it needs every entrant at the table in at least two deals of the base arm (a study "
               "with more entrants than seats has none).", ""]
    md += [
           "## What is not on this page", "",
           "A regression of final money on the Treasures held at the end of a game measures survival, not value "
           "(a busted player holds almost none): the sweep report still shows it, labelled as an association. The "
           "values above come from interventions.", ""]
    path = out / "designer.md"
    path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    return path
