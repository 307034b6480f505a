"""The designer's page: one balance study (`treasure_sim.run.studies`) answered in the order a designer asks.

How long games last and how often they end by themselves; whether a seat is favoured; what each power and
each starting Treasure is worth (interventions: paired differences per deal, `causal`); skill depth; how much
of the spread of results is luck. Every figure has its interval and says which estimator made it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from . import analysis as an
from . import balance as bal
from . import causal, dynamics, targets, verdict
from .designer_figures import (
    DECLINABLE,
    PAIRED,
    UNITS,
    plot_heat_map,
    plot_ladder,
    plot_power_values,
)
from .dynamics_report import Replayer, dynamics_section, trace_table
from .markdown import cell, entrants_text, md_table, records, rules_text, save_figure
from .stats import (
    ALPHA,
    SEAT_TEST,
    SHARE_METHOD,
    Interval,
    adjust,
    direction_flags,
    entrant_share,
    mean_interval,
    multiplicity_method,
    multiplicity_text,
)

# The reference player (docs/reference-player.md): its strategy name and the parameter that sets its budget. A value
# measured with it as the studied entrant is a value "to the reference player at budget N in this field".
REFERENCE_PLAYERS = {"search": "iterations"}
Defaults = Callable[[str], Mapping[str, Any]]  # a strategy spec -> its constructor's defaults (bots.loader.parameters)


def whose(config: Mapping[str, Any], label: str, defaults: Defaults | None = None) -> str:
    """Whose values a studied entrant's are: "the reference player at budget N" for the reference player (N read
    from the entrant's params, else from its constructor's default through ``defaults``), else "`label`"."""
    entrant = next((e for e in config.get("entrants", []) if e.get("label") == label), None)
    if entrant is None or entrant.get("strategy") not in REFERENCE_PLAYERS:
        return f"`{label}`"
    param = REFERENCE_PLAYERS[entrant["strategy"]]
    budget = (entrant.get("params") or {}).get(param)
    if budget is None and defaults is not None:
        try:
            budget = defaults(entrant["strategy"]).get(param)
        except (ValueError, ImportError):  # the strategy cannot be loaded here: say so rather than guess
            budget = None
    if not isinstance(budget, int | float) or isinstance(budget, bool):
        return f"the reference player (`{label}`) at its default budget"
    return f"the reference player at budget {budget:g}"


def field_text(config: Mapping[str, Any], label: str) -> str:
    """"this field": the other entrants the studied one meets, and the rules."""
    others = [f"`{e['label']}`" for e in config.get("entrants", []) if e.get("label") != label]
    return (f"against {', '.join(others) if others else 'no other entrant'}, "
            f"{config.get('table_size', '?')} seats, rules: {rules_text(config.get('rules', {}))}")



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


def suit_values(study: causal.Study, values: pd.DataFrame, multiplicity: str = "holm") -> pd.DataFrame:
    """Per suit and metric: the mean value over its studied ranks, as one paired difference per deal (the average
    of the cells), with its interval; ▲/▼ adjusted over the suits of each metric (one family per metric)."""
    rows = []
    base = study.games(study.base)
    arms = {a.what: a for a in study.of_kind("endowment")}
    for suit in causal.SUIT_NAMES:
        cards = [w for w in values["what"].unique() if len(w) == 2 and w[1] == suit and w in arms]
        if not cards:
            continue
        entrant = arms[cards[0]].entrant
        ref = causal.outcomes(base, entrant)
        diffs = [causal.outcomes(study.games(arms[c]), entrant) - ref for c in cards]
        for metric in causal.METRICS:
            per_deal = pd.concat([d[metric] for d in diffs], axis=1).dropna().mean(axis=1)
            iv = mean_interval(per_deal)
            rows.append({"suit": suit, "metric": metric, "cards": len(cards), "value": iv.mean, "low": iv.low,
                         "high": iv.high, "p": iv.p_value, "deals": iv.n})
    out = pd.DataFrame(rows, columns=["suit", "metric", "cards", "value", "low", "high", "p", "deals"])
    out["p_adjusted"] = np.nan
    for idx in out.groupby("metric").groups.values():
        out.loc[idx, "p_adjusted"] = adjust(out.loc[idx, "p"], multiplicity)
    out["flag"] = direction_flags(out["value"], out["p_adjusted"]) if len(out) else []
    return out


def suit_table(suits: pd.DataFrame) -> str:
    """Per suit: the mean value over its ranks in net chips and in strength, with intervals and flags."""
    cells = {(r["suit"], r["metric"]): r for r in records(suits)}
    rows = [[causal.SUIT_NAMES[s], int(cells[(s, "net")]["cards"])]
            + [_value_cell(cells[(s, m)], m) if (s, m) in cells else "—" for m in causal.METRICS]
            for s in dict.fromkeys(suits["suit"])]
    return md_table(["suit", "cards", "net [95% CI]", "strength [95% CI]"], rows)


def card_table(values: pd.DataFrame) -> str:
    """Every card studied: its value in net chips and in strength with intervals, flags and deals."""
    cells = {(r["what"], r["metric"]): r for r in records(values)}
    def order(card: str) -> tuple[int, int]:  # suits as in the heat map, high ranks first
        suits = list(causal.SUIT_NAMES)
        return (suits.index(card[1]) if len(card) == 2 and card[1] in suits else 9, -causal.RANK_ORDER.find(card[0]))

    rows: list[list[str | int]] = [
        [f"`{c}`", *(_value_cell(cells[(c, m)], m) if (c, m) in cells else "—" for m in causal.METRICS),
         int(cells[(c, "net")]["deals"]) if (c, "net") in cells else "—"]
        for c in sorted(dict.fromkeys(values["what"]), key=order)]
    return md_table(["card", "net [95% CI]", "strength [95% CI]", "deals"], rows)


def power_reading(values: pd.DataFrame, who: Mapping[str, str] | None = None) -> list[str]:
    """One sentence per value that survives the adjustment, read as what it is: worth to the studied bot (``who``
    names it: `whose`), the studied bot's misplay, or a cost the bot cannot decline; and one per power it could
    decline whose value is below 0 over its whole interval without surviving the adjustment (a possible misplay)."""
    who = who or {}
    lines = []
    for r in records(values):
        unit, fmt = UNITS[r["metric"]]
        figure = f"{r['value']:{fmt}} [{r['low']:{fmt}}, {r['high']:{fmt}}] {r['metric']} ({unit})"
        plain = f"`{r['entrant']}`"
        name = who.get(r["entrant"], plain)  # "the reference player at budget N", or the label
        bot = plain if name == plain else f"{plain}, {name},"
        if r["flag"] == "▲":
            lines.append(f"- `{r['entrant']}`, {r['what']}: worth {figure} to {'this bot' if name == plain else name}"
                         " in this field.")
        elif r["flag"] == "▼" and r["what"] in DECLINABLE:
            lines.append(f"- `{r['entrant']}`, {r['what']}: {figure}: it does better barred from it. The power can "
                         f"be declined whenever it is offered, so this is the studied bot's misplay ({bot} as it "
                         "plays), not a cost of the power.")
        elif r["flag"] == "▼":
            lines.append(f"- `{r['entrant']}`, {r['what']}: {figure}: it does better barred from it, and this "
                         "power cannot be declined: as this bot plays, having it costs it.")
        elif r["what"] in DECLINABLE and r["high"] < 0:
            lines.append(f"- `{r['entrant']}`, {r['what']}: {figure}: below 0 over its whole interval, though not "
                         "after the adjustment. The power can be declined, so a value below 0 can only be the "
                         f"studied bot's misplay ({bot} as it plays): a possible misplay, to confirm with more deals.")
    return lines or ["- No value survives the adjustment: with these deals, no power is shown to matter to these "
                     "bots either way."]


def declinable_lines(powers: pd.DataFrame, who: Mapping[str, str] | None = None) -> list[str]:
    """For each studied entrant that is the reference player (named in ``who``): whether every power it could
    decline (Spades, Hearts, Diamonds) is worth at least 0 within its interval, in net and in strength (issue 27's
    test of the player: a power it uses well never costs it); the ones that are not are its misplays."""
    lines = []
    for entrant in dict.fromkeys(powers["entrant"]):
        plain = f"`{entrant}`"
        if who is None or who.get(entrant, plain) == plain:
            continue
        mine = powers[(powers["entrant"] == entrant) & powers["what"].isin(DECLINABLE)]
        if mine.empty:
            continue
        below = [r for r in records(mine) if r["high"] < 0]
        net = mine[mine["metric"] == "net"]
        figures = ", ".join(f"{r['what']} {_fmt(r['value'], r['low'], r['high'], '+.1f')}" for r in records(net))
        if not below:
            lines.append(f"Every power {who[entrant]} can decline is worth at least 0 to it within its interval, in "
                         f"net and in strength (net chips a game: {figures})")
        else:
            lines.append(f"Not every power {who[entrant]} can decline is worth at least 0 to it within its interval: "
                         + "; ".join(f"{r['what']} {_fmt(r['value'], r['low'], r['high'], UNITS[r['metric']][1])} "
                                     f"{r['metric']}" for r in below)
                         + ". It could have declined them: these are the reference player's misplays, not costs of "
                         "the powers")
    return lines


def rule_comparison(study: causal.Study, groups: dict[str, causal.Arm], multiplicity: str = "holm"
                    ) -> pd.DataFrame:
    """Each rules variant's games (the ladder at the base lineup's rung) against the base arm, paired by deal:
    hands a game, how games end, seats and the skill gap (`balance.compare`, one adjusted family)."""
    values = {"base": study.games(study.base)} | {g: study.games(a) for g, a in groups.items()}
    per_deal = {name: pd.concat([bal.game_values(g), bal.skill_gap(g)], ignore_index=True)
                for name, g in values.items()}
    return bal.compare(per_deal, "base", multiplicity=multiplicity)


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
def _fmt(value: float, low: float, high: float, fmt: str, flag: str = "") -> str:
    return cell(value, low, high, fmt, flag).replace("-", "−")


def _verdict(study: causal.Study, base_games: pd.DataFrame, compared: pd.DataFrame | None,
             powers: pd.DataFrame | None, suits: pd.DataFrame | None, endow_entrant: str,
             ladder: tuple[pd.DataFrame, pd.DataFrame] | None, share: Interval | None,
             who: Mapping[str, str] | None = None) -> list[str]:
    """The page's verdict: a line per question, every figure with its interval; ``who`` names the studied
    entrants (`whose`)."""
    who = who or {}

    def name(entrant: str) -> str:  # "`search`, the reference player at budget 200" or "`equity`"
        plain = f"`{entrant}`"
        return plain if who.get(entrant, plain) == plain else f"{who[entrant]} (`{entrant}`)"

    mean, natural = targets.mean_hands(base_games), targets.natural_end(base_games)
    lines = [f"Games under the study's rules: {mean.value:.0f} [{mean.low:.0f}, {mean.high:.0f}] hands a game; "
             f"{1 - natural.value:.0%} [{1 - natural.high:.0%}, {1 - natural.low:.0%}] of games hit the cap"]
    if compared is not None:
        variants = list(dict.fromkeys(compared["variant"]))
        lines += [f"Rule variant {line}" for line in verdict.sweep_lines(compared, variants, "base")]
    if powers is not None:
        net = powers[powers["metric"] == "net"]
        parts = []
        for entrant in dict.fromkeys(net["entrant"]):
            best = net[net["entrant"] == entrant].sort_values("value").iloc[-1]
            figure = _fmt(best["value"], best["low"], best["high"], "+.1f", best["flag"])
            parts.append(f"to {name(entrant)} {best['what']} ({figure} chips a game)")
        line = "Powers, worth most (values to the studied bot in this field): " + "; ".join(parts)
        misplays = [r for r in records(powers[(powers["flag"] == "▼") & powers["what"].isin(DECLINABLE)])]
        if misplays:
            line += "; misplayed by the studied bot (better barred, though it could decline): " + ", ".join(
                dict.fromkeys(f"{name(r['entrant'])} {r['what']}" for r in misplays))
        lines.append(line)
        lines += declinable_lines(powers, who)
    if suits is not None and not suits.empty:
        net = suits[suits["metric"] == "net"]
        lines.append(f"Starting Treasures for {name(endow_entrant)}, per suit (chips a game, mean over its ranks): "
                     + "; ".join(f"{causal.SUIT_NAMES[r['suit']]} "
                                 f"{_fmt(r['value'], r['low'], r['high'], '+.1f', r['flag'])}" for r in records(net)))
    if ladder is not None:
        rungs, depth = ladder
        if len(depth):
            first = depth.iloc[0]
            values = list(dict.fromkeys(map(str, rungs["rung"])))
            parts = []
            for r in records(depth):
                text = f"{r['group']} {r['depth']}/{r['depth_net']}/{r['depth_h2h']}"
                if r["ceiling"]:
                    text += f" (strength at its ceiling at {r['ceiling']})"
                parts.append(text)
            climber = str(first["entrant"])  # its budget rises along the ladder: no "at budget N" here
            climbing = (f"the reference player (`{climber}`)" if who.get(climber, f"`{climber}`") != f"`{climber}`"
                        else f"`{climber}`")
            lines.append(f"Skill depth of {climbing} ({first['param']} {' → '.join(values)}), rungs told "
                         f"apart by strength/net/head-to-head with `{first['opponent']}`: " + "; ".join(parts))
    if share is not None:
        lines.append(f"Luck: who plays explains {_fmt(share.mean, share.low, share.high, '.2f')} of the variance of an "
                     "entrant's net in a deal; the rest comes with the deal")
    return lines


def _families(kinds: dict[str, int], groups: int, compared: bool, ladders: int, multiplicity: str) -> str:
    """The page-wide error rate: how many families of tests the page holds and what that means for a false flag."""
    families = {"the seat test": 1, "the rule variants against the base": int(compared),
                "power values (net, strength)": 2 * bool(kinds["power"]),
                "starting cards (net, strength)": 2 * bool(kinds["endowment"]),
                "per-suit means (net, strength)": 2 * bool(kinds["endowment"]),
                "skill depth (strength, net and head-to-head, per rules)": 3 * ladders}
    k = sum(families.values())
    listed = ", ".join(f"{n} for {what}" for what, n in families.items() if n)
    rate = min(1.0, k * ALPHA)
    if multiplicity_method(multiplicity) == "holm":
        held = f"each holds its family-wise error rate at {ALPHA:.0%} (Holm; the ladder: Bonferroni over its steps)"
        total = (f"so the chance that at least one ▲/▼ or counted rung anywhere on this page is a false alarm is at "
                 f"most {k} × {ALPHA:.0%} = {rate:.0%} (a union bound), not {ALPHA:.0%}")
    else:
        held = (f"each holds its false discovery rate at {ALPHA:.0%} (Benjamini–Hochberg; the ladder: Bonferroni "
                "over its steps)")
        total = (f"so up to {ALPHA:.0%} of the flags in each family may be false, and the page as a whole controls "
                 f"no more than that: families are not pooled")
    return (f"**Error rate of the whole page:** it holds {k} families of tests ({listed}); {held}; {total}. Read a "
            "single flag with that in mind, and confirm a surprise with a study of its own.")


def run_designer_report(study_dir: str | Path, out_dir: str | Path | None = None, multiplicity: str = "holm",
                        replayer: Replayer | None = None, defaults: Defaults | None = None) -> Path:
    """Write ``designer.md``, its figures and ``verdict.txt`` (default: ``DIR/report``); return the page's path.

    ``defaults`` gives a strategy's constructor defaults (the CLI passes `bots.loader`'s), so that the reference
    player's budget is named even when the config leaves it at its default."""
    study = causal.read_study(study_dir)
    out = Path(out_dir) if out_dir is not None else study.path / "report"
    out.mkdir(parents=True, exist_ok=True)
    m = study.manifest
    base_games = study.games(study.base)
    kinds = {k: len(study.of_kind(k)) for k in ("power", "endowment", "ladder")}
    groups = _ladder_top(study)
    shared = [a for a in study.arms if a.dir != a.name]  # the games of an earlier arm (`Sweep.same_games`)
    md = [f"# Balance study: {m.name}", "", f"Data: `{study.path}`", "",
          f"- {len(study.arms)} arms on disk ({kinds['power']} restricted play, {kinds['endowment']} endowments, "
          f"{kinds['ladder']} ladder rungs) of {len(m.variants)}; the base arm: "
          f"{base_games['game_id'].nunique()} games from {base_games['deal_id'].nunique()} deals"
          + (f"; {', '.join(f'`{a.name}`' for a in shared)} " + ("is" if len(shared) == 1 else "are")
             + " the same games as another arm's, played once" if shared else ""),
          f"- entrants: {entrants_text(m.config)}; table size {m.config.get('table_size')}, rotate = "
          f"{json.dumps(m.config.get('rotate'))}",
          f"- rules: {rules_text(m.config.get('rules', {}))}; seed {m.config.get('seed')}"]
    if m.status != "complete":
        md.append(f"- **study status: {m.status}** — only the arms and games on disk are analysed")
    md += ["", "Every arm plays the same deals with the same opponents in the same seats; an intervention's value is "
           f"the mean of its {PAIRED}. These are effects, not associations. Every value is a value *to that bot, "
           "played its way, in this field*: another bot, or the same bot among other opponents, may value a power "
           "or a card differently.", ""]
    studied = list(dict.fromkeys(a.entrant for a in study.arms if a.kind in ("power", "endowment")))
    who = {e: whose(m.config, e, defaults) for e in studied}
    if studied:
        md += ["**Whose values these are:** "
               + "; ".join(f"{'values to ' if who[e] == f'`{e}`' else f'`{e}`: values to '}{who[e]} in this field "
                           f"({field_text(m.config, e)})" for e in studied)
               + ". A negative value for a power the studied bot could decline (Spades, Hearts, Diamonds) is that "
               "bot's misplay, not a cost of the power.", ""]
    body: list[str] = []

    def figure(name: str, fig: Figure, title: str) -> None:
        body.extend([f"![{title}]({save_figure(fig, out / name, dpi=110)})", ""])
        plt.close(fig)

    compared = rule_comparison(study, groups, multiplicity) if groups else None
    body += ["## 1. How long games last, and how often they end by themselves", "",
             "Hands per game (Student-t interval over deals), its median (percentile bootstrap over deals), and the "
             "share of games that ended by themselves rather than at the hand cap (`max_hands`), per deal then over "
             "deals, clipped to 0..1; the rule variants are the skill ladder's games at the base lineup's rung.", "",
             length_table(study, groups), ""]
    if compared is not None:
        family = multiplicity_text(multiplicity, int(compared.attrs.get("family", 0)),
                                   "hands, endings, seats and skill gaps of every variant")
        body += [f"Each rules variant against the study's rules, paired by deal (the verdict's lines; {family}):",
                 "", *(f"- {line}" for line in verdict.sweep_lines(compared, list(groups), "base")), ""]
    joint = an.seat_joint_test(base_games)
    seats = an.seat_advantage(base_games)
    body += ["## 2. Seat advantage", "", f"Are the seats equal? **{joint.text()}** ({SEAT_TEST}).", "",
             md_table(["seat (0 = first dealer)", "win share [95% CI]", "equal share", "deals"],
                      [[int(r["seat"]), cell(r["mean"], r["ci_low"], r["ci_high"], ".3f", note=r["note"]),
                        f"{r['fair']:.3f}", r["deals"]] for r in records(seats)]), ""]
    values = None
    if kinds["power"]:
        values = causal.power_values(study, multiplicity)
        body += ["## 3. What each power is worth to each bot (restricted play)", "",
                 "Each row bars one entrant from one power for whole games (rulings §8: its Clubs make nothing wild "
                 "for it, it never moves Spades, draws with Hearts, steals, or takes a New Treasure); the value is "
                 "what it loses: unrestricted minus restricted, in net chips and in strength (the share of opponents "
                 "it finished ahead of). It is the power's value **to that bot, as it plays it, against this field**, "
                 "not the power's worth in general. A negative value means the bot does better without the power: "
                 "for Spades, Hearts and Diamonds, which a bot may always decline, that is the bot misplaying them; "
                 f"Clubs and New Treasures come whether it wants them or not. Estimator: {PAIRED}. "
                 f"{multiplicity_text(multiplicity, int(len(values) / 2), 'per metric, every entrant x power')}.",
                 "", *(f"- `{e}`: values to {who[e]} in this field" for e in dict.fromkeys(values["entrant"])
                       if who.get(e, f"`{e}`") != f"`{e}`"),
                 "", power_table(values), "", "What survives the adjustment (and declinable powers below 0 over "
                 "their whole interval):", "", *power_reading(values, who), ""]
        figure("designer_powers.png", plot_power_values(values, who), "value of each power to each bot")
    suits, endow = None, None
    if kinds["endowment"]:
        endow = causal.endowment_values(study, multiplicity)
        suits = suit_values(study, endow, multiplicity)
        entrant = endow["entrant"].iloc[0]
        body += ["## 4. What a starting Treasure is worth (endowments)", "",
                 f"Each arm starts every game with one card in {entrant}'s Treasure Zone; the value is endowed "
                 f"minus base on the same deal ({_span(endow['deals'])} deals a card), to "
                 f"{who.get(entrant, f'`{entrant}`')} in this field. "
                 "The card leaves the deck, so the cards dealt differ from the base's even in the first hand: the "
                 f"pairing keeps the opponents and seats, not the cards. Estimator: {PAIRED}.", "",
                 "**Per suit** (the mean over its studied ranks, one paired difference per deal; "
                 f"{multiplicity_text(multiplicity, len(suits) // 2 if len(suits) else 0, 'per metric, the suits')}):",
                 "", suit_table(suits), ""]
        figure("designer_endowments.png", plot_heat_map(endow, "net", suits, who.get(entrant)),
               "value of a starting Treasure (net)")
        figure("designer_endowments_strength.png", plot_heat_map(endow, "strength", suits, who.get(entrant)),
               "value of a starting Treasure (strength)")
        body += [f"**Every card** ({multiplicity_text(multiplicity, int(len(endow) / 2), 'per metric, every card')}; "
                 "in the heat maps, only these flagged cells are framed and in full colour):", "",
                 "<details><summary>the value of each card with its interval</summary>", "", card_table(endow), "",
                 "</details>", ""]
    ladder = None
    if kinds["ladder"]:
        rungs, depth = ladder = causal.ladder(study)
        body += ["## 5. Skill depth", "",
                 f"The same bot at rising strength against the same field, under each rules variant. "
                 f"{causal.DEPTH_METHOD[0].upper()}{causal.DEPTH_METHOD[1:]}. Strength, net and head-to-head per "
                 "rung: Student-t interval over deals.", "",
                 f"{causal.CEILING_TEXT}.", "",
                 md_table(["rules", "depth by strength", "distinguishable chain", "depth by net",
                           "depth by head-to-head", "strength at its ceiling at", "rungs", "deals a rung"],
                          [[r["group"], r["depth"], r["chain"], r["depth_net"],
                            f"{r['depth_h2h']} (with `{r['opponent']}`)", r["ceiling"] or "—", r["rungs"], r["deals"]]
                           for r in records(depth)]), "",
                 md_table(["rules", "rung", "strength [95% CI]", "step from the rung below", "net [95% CI]",
                           "ahead of the strongest opponent [95% CI]"],
                          [[r["group"], f"{r['rung']}" + (" (at the ceiling)" if r["ceiling"] else ""),
                            cell(r["strength"], r["strength_low"], r["strength_high"], ".3f"),
                            cell(r["strength_step"], r["strength_step_low"], r["strength_step_high"], "+.3f"),
                            cell(r["net"], r["net_low"], r["net_high"], "+.1f"),
                            cell(r["h2h"], r["h2h_low"], r["h2h_high"], ".3f")] for r in records(rungs)]), ""]
        figure("designer_ladder.png", plot_ladder(rungs, depth), "skill ladder")
        body += [f"One number per ladder, in the style of Ludii's SkillTrace. The {dynamics.TRACE_METHOD}; "
                 "Student-t interval over deals. Near 0: more skill does not show under these rules.", "",
                 trace_table(study), ""]
    nets = causal.net_by_deal(base_games)
    body += ["## 6. How much is luck", ""]
    share = None
    if len(nets) >= 2:
        share = entrant_share(nets.to_numpy())
        body += [f"Of the variance of one entrant's net money in one deal, the part due to *who* plays (the "
                 f"entrants' true means) is **{cell(share.mean, share.low, share.high, '.3f')}**; the rest, "
                 f"**{1 - share.mean:.3f}**, comes with the deal (the cards, the seat, and how they meet the bots). "
                 f"Estimator: {SHARE_METHOD.format(replicates=1000)}; {share.n} deals of the base arm.", ""]
    else:
        body += ["Not available: it needs every entrant at the table in at least two deals of the base arm (a study "
                 "with more entrants than seats has none).", ""]
    arms = {"base": study.base, **groups}
    body += dynamics_section({name: study.path / arm.dir for name, arm in arms.items()}, out, replayer,
                             "## 7. Game dynamics: leads, drama, eliminations, decisions", prefix="designer_")
    body += [
           "## What is not on this page", "",
           "A regression of final money on the Treasures held at the end of a game measures survival, not value "
           "(a busted player holds almost none): the sweep report still shows it, labelled as an association. The "
           "values above come from interventions.", ""]
    lines = _verdict(study, base_games, compared, values, suits, str(endow["entrant"].iloc[0]) if endow is not None
                     else "", ladder, share, who)
    ladders = 0 if ladder is None else len(ladder[1])
    md += ["## Verdict", "", *(f"- {line}" for line in lines), "",
           _families(kinds, len(groups), compared is not None, ladders, multiplicity), "", *body]
    (out / VERDICT).write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = out / "designer.md"
    path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    return path


VERDICT = "verdict.txt"  # the verdict's lines, which `treasure-sim balance` prints
