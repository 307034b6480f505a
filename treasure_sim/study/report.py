"""The `report` command: PNG figures and a markdown summary of a results directory, next to the data."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..run.store import Manifest, is_sweep_dir
from . import analysis as an
from . import plots, pokerstats
from .causal import is_balance_study
from .designer import run_designer_report
from .markdown import by_key, cell, entrants_text, md_table, number, record_cell, records, rules_text, save_figure
from .precision import deals_needed
from .stats import (
    DEFAULT_NET,
    SEAT_TEST,
    STRATIFIED,
    Strengths,
    direction_flags,
    method,
    multiplicity_text,
)
from .sweep_report import run_sweep_report

TRAJECTORY_GAMES = 6
NET_WORDS = {"luck-adjusted net": "Every chance event of every hand (hole cards, New Treasure, shared cards, Hearts "
                                  "draws) is credited with its luck: the seat's all-cards-known share of the pot after "
                                  "the event minus its mean over every card that could have come; so is every betting "
                                  "decision the engine drew from chances a bot declared (the value after the action "
                                  "drawn minus its mean over the draw); net minus that luck "
                                  "(times a chip value fitted on the other deals) has the same mean and a narrower "
                                  "interval. `--net raw` shows the chips as won.",
             "net": "Chips as won (`--net adjusted` subtracts the luck of the cards)."}
# the target half-widths of the planning table, per metric
PLAN_TARGETS: dict[str, Sequence[float]] = {"strength": (0.1, 0.05), "win share": (0.02, 0.01), "net": (10.0, 5.0)}
LINEUP_WORDS = ("on who shared a table: these entrants met in {n} different lineups, so compare them by strength and "
                "by the paired head-to-head, not by these")


def _errors_mark(note: str) -> str:
    return " ⚠" if note else ""


def headline(games: pd.DataFrame, fitted: Strengths | None = None) -> tuple[str, list[str]]:
    """The headline table sorted by lineup-adjusted strength, and the notes under it (method, lineups, errors)."""
    s = an.summary(games, fitted=fitted)
    labelled = games.assign(strategy=games["entrant"].astype(str)) if "entrant" in games else games
    ms = labelled.groupby("strategy", observed=True)["decision_time"].mean() * 1000 if "decision_time" in labelled \
        else pd.Series(math.nan, index=s["strategy"])
    star = "*" if s.attrs["lineups"] > 1 else ""
    rows = []
    for k, r in enumerate(records(s)):
        errors = "0" if not r["errors"] else f"{r['errors']} ({r['error_share']:.1%}) ⚠"
        rows.append([k + 1, r["strategy"] + _errors_mark(r["note"]),
                     cell(r["strength"], r["strength_low"], r["strength_high"], "+.2f"),
                     cell(r["ahead_next"], r["ahead_low"], r["ahead_high"], ".2f"),
                     cell(r["win_share"], r["win_low"], r["win_high"], ".3f", note=r["win_note"]), f"{r['fair']:.3f}",
                     cell(r["net"], r["net_low"], r["net_high"], "+.1f", note=r["net_note"]), r["games"], r["deals"],
                     errors, number(ms[r["strategy"]], ".3f")])
    net_name = "luck-adjusted net" if s.attrs["net_estimator"] == an.NET_ESTIMATOR["net_adjusted"] else "net"
    header = ["#", "entrant", "strength [95% CI]", "P(ahead of next) [95% CI]", f"win share{star} [95% CI]",
              "equal share", f"mean {net_name}{star}, chips [95% CI]", "games", "deals", "bot errors", "ms / decision"]
    notes = [f"Strength: {s.attrs['method']}. It is a log-strength with mean 0: two entrants d apart finish in that "
             "order with probability 1 / (1 + e^−d), whoever else sits at the table. P(ahead of next): the model's "
             "probability that the entrant finishes ahead of the one ranked just below it. Finishing order: final "
             "money, then the later elimination (exact ties count half)."]
    if s.attrs.get("note"):
        notes.append(f"Note: {s.attrs['note']}.")
    if star:
        notes.append(f"\\* Win share and net depend {LINEUP_WORDS.format(n=s.attrs['lineups'])}. "
                     f"Their intervals: {s.attrs['raw_method']}.")
    else:
        notes.append(f"Win share and net: {s.attrs['raw_method']}.")
    notes.append(f"Net, here and in every table below: {s.attrs['net_estimator']}. {NET_WORDS[net_name]}")
    notes += [f"⚠ **{r['strategy']}**: {r['note'].removeprefix('⚠ ')}." for r in records(s) if r["note"]]
    return md_table(header, rows, align="rl" + "r" * (len(header) - 2)), notes


def _ahead_table(s: Strengths) -> str:
    share, low, high = an.ahead_matrix(s), an.ahead_matrix(s, "prob_low"), an.ahead_matrix(s, "prob_high")
    rows = [[a] + ["—" if a == b else cell(share.loc[a, b], low.loc[a, b], high.loc[a, b], ".2f")
                   for b in share.columns] for a in share.index]
    return md_table(["P(row finishes ahead of column)", *share.columns], rows)


def _pairs_table(h2h: pd.DataFrame) -> str:
    """Each unordered pair once, stronger-looking first: the paired differences that decide."""
    pairs = h2h[h2h["mean"] >= 0.5].drop_duplicates(subset=["strategy", "opponent"])
    pairs = pairs[~((pairs["mean"] == 0.5) & (pairs["strategy"] > pairs["opponent"]))]
    pairs = pairs.sort_values(["p_ahead", "strategy"])
    ahead_flag = direction_flags(pairs["mean"] - 0.5, pairs["p_ahead_adjusted"])
    net_flag = direction_flags(pairs["net_diff"], pairs["p_net_adjusted"])
    rows = []
    for r, fa, fn in zip(records(pairs), ahead_flag, net_flag, strict=True):
        rows.append([f"{r['strategy']} vs {r['opponent']}", r["deals"],
                     cell(r["mean"], r["ci_low"], r["ci_high"], ".2f", fa, note=r["note"]),
                     f"{r['p_ahead']:.2g} / {r['p_ahead_adjusted']:.2g}",
                     cell(r["net_diff"], r["net_low"], r["net_high"], "+.1f", fn),
                     f"{r['p_net']:.2g} / {r['p_net_adjusted']:.2g}"])
    return md_table(["pair (A vs B)", "deals together", "A finished ahead of B [95% CI]", "p / adjusted p",
                     "net A − B, chips per game [95% CI]", "p / adjusted p"], rows)


def _seat_table(seats: pd.DataFrame) -> str:
    rows = [[int(r["n_players"]), int(r["seat"]), cell(r["mean"], r["ci_low"], r["ci_high"], ".3f", note=r["note"]),
             f"{r['fair']:.3f}", r["deals"]] for r in records(seats)]
    return md_table(["players", "seat (0 = first dealer)", "win share [95% CI]", "equal share", "deals"], rows)


def _plan_table(plan: pd.DataFrame) -> str:
    """Per metric and entrant: the half-width now and the deals each target half-width needs."""
    rows = []
    for r in records(plan):
        targets = PLAN_TARGETS.get(r["metric"], ())
        needed = [deals_needed(r["half_width"], r["deals"], w) for w in targets]
        rows.append([r["metric"], r["strategy"], number(r["half_width"], ".3g"), r["deals"],
                     ", ".join(f"±{w:g}: {number(float(n), ',.0f')}" for w, n in zip(targets, needed, strict=True))])
    return md_table(["metric", "entrant", "half-width now", "deals now", "deals needed for a half-width of"], rows,
                    align="llrrl")


def _length_table(length: pd.DataFrame) -> str:
    r = length.iloc[0]
    ends = ", ".join(f"{c.removeprefix('ended_')} {r[c]:.0%}" for c in length.columns if c.startswith("ended_"))
    return md_table(["hands per game [95% CI]", "games", "deals", "how games ended"],
                     [[cell(r["mean"], r["ci_low"], r["ci_high"], ".1f"), int(r["games"]), int(r["deals"]), ends]],
                     align="rrrl")


def _setup(manifest: Manifest | None, games: pd.DataFrame) -> list[str]:
    """What was run, from the manifest: enough to know what the numbers are about."""
    deals = games["deal_id"].nunique() if "deal_id" in games else games["game_id"].nunique()
    config = manifest.config if manifest else {}
    lines = [f"- {games['game_id'].nunique()} games from {deals} deals"
             + (f"; table size {config['table_size']}, rotate = {str(config.get('rotate')).lower()}"
                if "table_size" in config else "")]
    if config.get("entrants"):
        lines.append(f"- entrants: {entrants_text(config)}")
    if manifest is None:
        return lines
    lines.append(f"- rules: {rules_text(manifest.rules)}")
    lines.append(f"- seed {manifest.seed}, treasure-sim {manifest.package_version}")
    if manifest.status != "complete":
        lines.append(f"- **run status: {manifest.status}** — only the {len(games)} rows on disk are analysed")
    return lines


def _section(res: an.Results, games: pd.DataFrame, out: Path, prefix: str, manifest: Manifest | None,
             multiplicity: str = "holm") -> list[str]:
    """One experiment's tables and figures; returns its markdown lines."""
    fitted = an.fit(games)
    strengths = an.strengths(fitted=fitted)
    wins, net = an.win_rates(games), an.mean_net(games)
    order = strengths["strategy"].tolist()
    colors = plots.strategy_colors(order)
    h2h, seats, length = an.head_to_head(games, multiplicity=multiplicity), an.seat_advantage(games), \
        an.game_length(games)
    table, notes = headline(games, fitted)
    md = [*_setup(manifest, games), "",
          f"Intervals of means: {method()}; an entrant's win share and net {STRATIFIED}. Card luck is shared by a "
          "deal's rotations, so averaging them "
          "first removes it. Whether two entrants (or a seat and the equal share) differ is decided by a paired "
          "difference and its test, never by whether two separate intervals overlap: intervals can overlap while "
          "the paired difference is clear. "
          f"Figures mark estimates from fewer than {plots.FEW_DEALS} deals: their interval is only a rough guide.",
          "", "## Ranking by lineup-adjusted strength", "", table, "", *[f"{n}\n" for n in notes]]
    tables = an.lineups(games)
    if len(tables) > 1:
        md.extend([f"Lineups ({len(tables)}): " + "; ".join(f"{r.lineup} ({r.games} games)"
                                                            for r in tables.itertuples()) + ".", ""])

    def figure(title: str, name: str, fig: Any, text: str, table: str | None = None) -> None:
        md.extend([f"## {title}", "", text, ""])
        if table:
            md.extend([table, ""])
        md.extend([f"![{title}]({save_figure(fig, out / f'{prefix}{name}.png', dpi=120)})", ""])

    figure("Strength", "strength", plots.plot_strengths(strengths, colors),
           "The fitted log-strengths with their bootstrap intervals, and the model's probability that the row "
           "entrant finishes ahead of the column one in a game they share.", _ahead_table(fitted))
    if not h2h.empty:
        figure("Head-to-head: paired comparisons", "head_to_head", plots.plot_head_to_head(h2h, order),
               "For every pair that shared tables, deal by deal: how often A finished ahead of B (ties ½), and A's "
               f"net chips minus B's in the same games ({h2h.attrs['estimator']}); a t interval and t-test over the "
               "deals both sat in. "
               f"{multiplicity_text(multiplicity, h2h.attrs['family'], 'both tests of every pair')}; "
               "p-values are shown raw / adjusted. These paired differences are what decide whether two entrants "
               "differ. The heatmap shows the first measure.", _pairs_table(h2h))
    lineup = f" It depends {LINEUP_WORDS.format(n=len(tables))}." if len(tables) > 1 else ""
    figure("Win share", "win_shares", plots.plot_win_shares(wins, colors),
           "Share of games each entrant finished with the most chips (ties split). The dashed line is what an "
           f"equal player would get.{lineup}")
    figure("Mean net money", "mean_net", plots.plot_mean_net(net, colors),
           f"Chips won or lost per game on average ({net.attrs['estimator']}); 0 is break even.{lineup}")
    joint = an.seat_joint_test(games)
    figure("Seat advantage", "seat_advantage", plots.plot_seat_advantage(seats),
           "Win share by seat relative to the first dealer (seat 1 acts first). Are the seats equal? "
           f"**{joint.text()}** ({SEAT_TEST}); a small p-value means position matters under these rules.",
           _seat_table(seats))
    plan = an.planning(games, fitted)
    figure("Planning: how many deals for a given precision", "planning",
           plots.plot_planning(plan, PLAN_TARGETS),
           "Deals needed for a target half-width at the spread observed here (intervals shrink as 1 / √deals). "
           "To get there, grow the run by precision: `treasure-sim run --until-ci W` plays batches until every "
           "interval is that narrow. Do not extend a run until a difference looks significant: stopping on "
           "significance makes false positives far more common than 5% (docs/statistics.md). "
           f"Net: {net.attrs['estimator']}.", _plan_table(plan))
    md.extend(["## Game length", "", _length_table(length), ""])
    traj = an.trajectories(an.Results(games, res.hands, res.manifests), max_games=TRAJECTORY_GAMES)
    if not traj.empty:
        figure("Money trajectories", "trajectories", plots.plot_trajectories(traj, TRAJECTORY_GAMES, colors),
               f"Stacks over the hands of the first {traj['game_id'].nunique()} games: what a game looks like, "
               "not evidence of skill.")
    return md


def _poker_section(results_dir: Path, games: pd.DataFrame) -> list[str]:
    """Per bot: how it plays (VPIP, PFR, aggression, showdowns, Treasures, steals, Hearts draws), with intervals."""
    try:
        counts = pokerstats.seat_counts(results_dir)
    except KeyError:  # a folder written before the seats table existed
        return []
    if counts.empty:
        return []
    stats = pokerstats.poker_stats(counts)
    order = an.strengths(games)["strategy"].tolist() if games["entrant"].nunique() > 1 else None
    cells = by_key(stats.rename(columns={"value": "mean"}), "entrant", "statistic")
    present = sorted({e for e, _ in cells})
    entrants = [e for e in (order or present) if e in present]
    fmt = {"aggression": ".2f"}
    rows = [[e] + [record_cell(cells[(e, s)], fmt.get(s, ".3f")) for s in pokerstats.STATISTICS] for e in entrants]
    return ["## Poker statistics per bot", "",
            f"How each bot plays, from every hand it was dealt: {stats.attrs['method']}.", "",
            *pokerstats.describe(), "", md_table(["entrant", *pokerstats.STATISTICS], rows), ""]


def run_report(results_dir: str | Path, out_dir: str | Path | None = None, multiplicity: str = "holm",
               net: str = DEFAULT_NET) -> Path:
    """Write the figures and ``report.md`` for a results directory (default: ``DIR/report``); return report.md.

    A sweep folder (``sweep.json``) gets the side-by-side comparison of its variants instead, and a balance
    study (a sweep whose arms change entrants) the designer's page, ``designer.md``. ``multiplicity``
    (holm or bh) adjusts the p-values behind every ▲/▼ and every head-to-head test. ``net``: luck-adjusted net
    chips (docs/luck.md), or raw.
    """
    results_dir = Path(results_dir)
    if is_balance_study(results_dir):
        return run_designer_report(results_dir, out_dir, multiplicity)
    if is_sweep_dir(results_dir):
        return run_sweep_report(results_dir, out_dir, multiplicity, net)
    res = an.load(results_dir, net=net)
    if res.games.empty:
        raise ValueError(f"{results_dir} holds no finished games yet")
    out = Path(out_dir) if out_dir is not None else results_dir / "report"
    out.mkdir(parents=True, exist_ok=True)
    manifest = next(iter(res.manifests.values()), None)
    experiments = sorted(res.games["experiment"].astype(str).unique()) if "experiment" in res.games else [None]
    md = [f"# Treasure Poker results: {', '.join(e for e in experiments if e) or results_dir.name}", "",
          f"Data: `{results_dir}`", ""]
    for name in experiments:
        games = res.games if name is None else res.games[res.games["experiment"].astype(str) == name]
        hands = res.hands
        if name is not None and "experiment" in hands:
            hands = hands[hands["experiment"].astype(str) == name]
        if len(experiments) > 1:
            md.extend([f"# Experiment {name}", ""])
        prefix = f"{name}_" if len(experiments) > 1 else ""
        md.extend(_section(an.Results(games, hands, res.manifests), games, out, prefix,
                           manifest if manifest is not None and manifest.name in (None, name) else None,
                           multiplicity))
    md.extend(_poker_section(results_dir, res.games))
    path = out / "report.md"
    path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    return path
