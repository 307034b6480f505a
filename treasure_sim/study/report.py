"""The `report` command: PNG figures and a markdown summary of a results directory, next to the data."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..run.store import Manifest, is_sweep_dir
from . import analysis as an
from . import plots, pokerstats
from .causal import is_balance_study
from .designer import Defaults, run_designer_report
from .dynamics_report import Replayer, sample_section
from .markdown import by_key, cell, entrants_text, md_table, number, record_cell, records, rules_text, save_figure
from .markdown import percent as _percent
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
from .summary import MAX_ERROR_SHARE
from .sweep_report import run_sweep_report

TRAJECTORY_GAMES = 6
NET_WORDS = {"luck-adjusted net": "Every chance event (hole cards, New Treasure, shared cards, Hearts draws) in a pot "
                                  "of at least 8 chips (`luck.Settings.min_pot`; smaller pots are left uncorrected, "
                                  "so in the default game, where the pot holds only the 4 chips of antes when they "
                                  "are dealt, the hole cards and the New Treasure never are) is credited with its "
                                  "luck: the seat's all-cards-known share of the pot after "
                                  "the event minus its mean over every card that could have come; so is every betting "
                                  "decision the engine drew from chances a bot declared (the value after the action "
                                  "drawn minus its mean over the draw); net minus that luck "
                                  "(times a chip value fitted on the other deals) has the same expected value and a "
                                  "narrower interval. `--net raw` shows the chips as won.",
             "net": "Chips as won (`--net adjusted` subtracts the luck of the cards)."}
# the target half-widths of the planning table, per metric
PLAN_TARGETS: dict[str, Sequence[float]] = {"strength": (0.1, 0.05), "win share": (0.02, 0.01), "net": (10.0, 5.0)}
LINEUP_WORDS = ("on who shared a table: these entrants met in {n} different lineups, so compare them by strength and "
                "by the paired head-to-head, not by these")


def _errors_mark(note: str) -> str:
    return " ⚠" if note else ""


def headline(games: pd.DataFrame, fitted: Strengths | None = None, max_error_share: float = MAX_ERROR_SHARE
             ) -> tuple[str, list[str]]:
    """The headline table sorted by lineup-adjusted strength, and the notes under it (method, lineups, fit, errors,
    the entrants left unranked)."""
    s = an.summary(games, fitted=fitted, max_error_share=max_error_share)
    labelled = games.assign(strategy=games["entrant"].astype(str)) if "entrant" in games else games
    ms = labelled.groupby("strategy", observed=True)["decision_time"].mean() * 1000 if "decision_time" in labelled \
        else pd.Series(math.nan, index=s["strategy"])
    star = "*" if s.attrs["lineups"] > 1 else ""
    observed = an.paired(games, max_error_share=max_error_share)
    order = s["strategy"].tolist()
    ties = [(a, b) for a, b in itertools.pairwise(order)
            if observed.deals[observed.names.index(a), observed.names.index(b)]
            and observed.tied(observed.names.index(a), observed.names.index(b))]
    tied = {n for pair in ties for n in pair}
    rows = []
    for k, r in enumerate(records(s)):
        errors = "0" if not r["errors"] else f"{r['errors']} ({_percent(r['error_share'])}) ⚠"
        rows.append([f"{k + 1}{'=' * (r['strategy'] in tied)}", r["strategy"] + _errors_mark(r["note"]),
                     cell(r["strength"], r["strength_low"], r["strength_high"], "+.2f"),
                     cell(r["ahead_next"], r["ahead_low"], r["ahead_high"], ".2f"),
                     cell(r["win_share"], r["win_low"], r["win_high"], ".3f", note=r["win_note"]), f"{r['fair']:.3f}",
                     cell(r["net"], r["net_low"], r["net_high"], "+.1f", note=r["net_note"]), r["games"], r["deals"],
                     errors, number(ms[r["strategy"]], ".3f")])
    net_name = "luck-adjusted net" if s.attrs["net_estimator"] == an.NET_ESTIMATOR["net_adjusted"] else "net"
    header = ["#", "entrant", "strength [95% CI]", "ahead of next [95% CI]", f"win share{star} [95% CI]",
              "equal share", f"mean {net_name}{star}, chips [95% CI]", "games", "deals", "bot errors", "ms / decision"]
    notes = [f"Strength: {s.attrs['method']}. It is a log-strength with mean 0 that orders the entrants; the model "
             "says two entrants d apart finish in that order with probability 1 / (1 + e^−d), which assumes that this "
             "chance does not depend on who else sits at the table (the fit check below says where it does). "
             "Ahead of next: the observed share of the games they shared in which the entrant finished ahead of "
             "the one ranked just below it, over the deals both sat in (ties ½), with its interval. "
             "Finishing order: final money, then the later elimination."]
    if ties:
        notes.append("= Too close to call (the observed share holds ½): "
                     + "; ".join(f"**{a}** and **{b}**" for a, b in ties) + ".")
    if s.attrs.get("note"):
        notes.append(f"Note: {s.attrs['note']}.")
    if star:
        notes.append(f"\\* Win share and net depend {LINEUP_WORDS.format(n=s.attrs['lineups'])}. "
                     f"Their intervals: {s.attrs['raw_method']}.")
    else:
        notes.append(f"Win share and net: {s.attrs['raw_method']}.")
    notes.append(f"Net, here and in every table below: {s.attrs['net_estimator']}. {NET_WORDS[net_name]}")
    notes += [f"⚠ **{r['strategy']}**: {r['note'].removeprefix('⚠ ')}." for r in records(s) if r["note"]]
    out = s.attrs["unranked"]
    if len(out):
        notes.append(f"**Not ranked**: bots that failed more than {max_error_share:.0%} of their decisions "
                     f"(`--max-error-share {max_error_share:g}`):\n\n"
                     + md_table(["entrant", "bot errors", "failed decisions", "first error"],
                                [[r["strategy"], r["errors"], f"{r['failed']} of {r['decisions']:.0f} "
                                  f"({r['error_share']:.1%})", f"`{r['first_error']}`"] for r in records(out)],
                                align="lrrl"))
    return md_table(header, rows, align="rl" + "r" * (len(header) - 2)), notes


def _ahead_table(games: pd.DataFrame, order: Sequence[str], max_error_share: float = MAX_ERROR_SHARE) -> str:
    """The observed P(row finished ahead of column) of every ranked pair, with its interval."""
    p = an.paired(games, max_error_share=max_error_share)
    share, low, high = (an.observed_matrix(p, order, v) for v in ("mean", "low", "high"))
    rows = [[a] + ["—" if a == b or math.isnan(share.loc[a, b]) else
                   cell(share.loc[a, b], low.loc[a, b], high.loc[a, b], ".2f") for b in share.columns]
            for a in share.index]
    return md_table(["observed P(row finished ahead of column)", *share.columns], rows)


def _fit_text(games: pd.DataFrame, fitted: Strengths) -> str:
    """The fit check in words: the pairs where the model's P(ahead) and the games disagree."""
    f = an.model_fit(games, fitted)
    if not f.pairs:
        return ""
    head = (f"**Fit check**: for every pair, a t-test over the deals both sat in of whether the observed share "
            f"of games the model's favourite finished ahead equals the model's P(ahead) (stratified by lineup; "
            f"Holm-adjusted over {f.pairs} pairs). ")
    if not f.misfits:
        return head + "The model agrees with the games for every pair."
    names = fitted.names
    pairs = "; ".join(f"{names[a]} ahead of {names[b]}: model {m:.2f}, games {o:.2f} (adjusted p = {q:.2g})"
                      for a, b, m, o, q in f.misfits)
    return (head + f"They disagree for **{len(f.misfits)} of {f.pairs}** pairs: {pairs}. There the chance of "
            "finishing ahead depends on who else sits at the table, so the observed figures are the pairwise ones "
            "to read; the ranking order stands on the strengths.")


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
             multiplicity: str = "holm", max_error_share: float = MAX_ERROR_SHARE) -> list[str]:
    """One experiment's tables and figures; returns its markdown lines."""
    left_out = an.unranked(games, max_error_share)
    if an.bot_errors(games, max_error_share)["strategy"].nunique() - len(left_out) < 2:
        raise ValueError(f"fewer than two entrants to rank: {', '.join(left_out['strategy'])} failed more than "
                         f"{max_error_share:.0%} of their decisions (--max-error-share 1 ranks every entrant)")
    fitted = an.fit(games, max_error_share=max_error_share)
    strengths = an.strengths(fitted=fitted)
    wins, net = an.win_rates(games), an.mean_net(games)
    order = strengths["strategy"].tolist()
    everyone = an.bot_errors(games, max_error_share)
    colors = plots.strategy_colors([*order, *everyone.loc[everyone["unranked"], "strategy"]])  # unranked ones too
    h2h, seats, length = an.head_to_head(games, multiplicity=multiplicity), an.seat_advantage(games), \
        an.game_length(games)
    table, notes = headline(games, fitted, max_error_share)
    md = [*_setup(manifest, games), "",
          f"Intervals of means: {method()}; an entrant's win share and net {STRATIFIED}. The games of a deal share "
          "its cards and are not independent, so they are averaged first: the deal is the unit. "
          "Whether two entrants (or a seat and the equal share) differ is decided by a paired "
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
           "The fitted log-strengths with their bootstrap intervals (they set the order), and the observed share of "
           "the games two entrants shared in which the row entrant finished ahead of the column one, over the deals "
           "both sat in, with its interval. " + _fit_text(games, fitted),
           _ahead_table(games, order, max_error_share))
    md.extend(_error_kinds(games))
    if not h2h.empty:
        figure("Head-to-head: paired comparisons", "head_to_head", plots.plot_head_to_head(h2h, order),
               "For every pair that shared tables, deal by deal: how often A finished ahead of B (ties ½), and A's "
               f"net chips minus B's in the same games ({h2h.attrs['estimator']}); a t interval and t-test over the "
               "deals both sat in. "
               f"{multiplicity_text(multiplicity, h2h.attrs['family'], 'both tests of every pair')}; "
               "p-values are shown raw / adjusted. These paired differences are what decide whether two entrants "
               "differ. The heatmap shows the first measure.", _pairs_table(h2h))
    lineup = f" It depends {LINEUP_WORDS.format(n=len(tables))}." if len(tables) > 1 else ""
    figure("Win share", "win_shares", plots.plot_win_shares(wins, colors, lineups=len(tables)),
           "Share of games each entrant finished with the most chips (ties split). The dashed line is what an "
           f"equal player would get.{lineup}")
    figure("Mean net money", "mean_net", plots.plot_mean_net(net, colors, lineups=len(tables)),
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


ERROR_KINDS = 20  # distinct error messages listed in the report


def _error_kinds(games: pd.DataFrame) -> list[str]:
    """The distinct messages of the bots' errors with their counts, per entrant (most frequent first)."""
    if "errors" not in games or not games["errors"].any():
        return []
    games = games.assign(strategy=games["entrant"].astype(str)) if "entrant" in games else games
    failed = games[games["errors"] > 0]
    if "error_messages" in failed and "error_counts" in failed:
        pairs = [(who, m, int(n)) for who, ms, ns in zip(failed["strategy"], failed["error_messages"],
                                                         failed["error_counts"], strict=True)
                 if ms is not None for m, n in zip(ms, ns, strict=True)]
        what = "every error, by its message (without the hand number)"
    elif "first_error" in failed:  # a folder written before the messages were kept: the first error of each game
        pairs = [(who, re.sub(r"^hand \d+: ", "", str(m)), 1) for who, m in zip(failed["strategy"],
                                                                               failed["first_error"], strict=True)]
        what = "the first error of each game (this folder keeps no other messages)"
    else:
        return []
    counts = pd.DataFrame(pairs, columns=["entrant", "message", "count"]).groupby(
        ["entrant", "message"], observed=True)["count"].sum().reset_index().sort_values(
        ["count", "entrant", "message"], ascending=[False, True, True])
    rows = [[r["entrant"], int(r["count"]), f"`{r['message']}`"] for r in records(counts.head(ERROR_KINDS))]
    more = f" The {len(counts) - ERROR_KINDS} rarer messages are in the games table." if len(counts) > ERROR_KINDS \
        else ""
    return ["## Bot errors", "", f"The distinct messages of the bots' errors with their counts: {what}; the "
            f"`error_messages` and `error_counts` columns of the games table hold them per game.{more}", "",
            md_table(["entrant", "errors", "message"], rows, align="lrl"), ""]


def _poker_section(results_dir: Path, games: pd.DataFrame, max_error_share: float = MAX_ERROR_SHARE) -> list[str]:
    """Per bot: how it plays (VPIP, PFR, aggression, showdowns, Treasures, steals, Hearts draws), with intervals."""
    try:
        counts = pokerstats.seat_counts(results_dir)
    except KeyError:  # a folder written before the seats table existed
        return []
    if counts.empty:
        return []
    stats = pokerstats.poker_stats(counts)
    order = an.strengths(fitted=an.fit(games, max_error_share=max_error_share))["strategy"].tolist() \
        if games["entrant"].nunique() > 1 else None
    cells = by_key(stats.rename(columns={"value": "mean"}), "entrant", "statistic")
    present = sorted({e for e, _ in cells})
    entrants = [e for e in (order or present) if e in present]
    fmt = {"aggression": ".2f"}
    rows = [[e] + [record_cell(cells[(e, s)], fmt.get(s, ".3f")) for s in pokerstats.STATISTICS] for e in entrants]
    return ["## Poker statistics per bot", "",
            f"How each bot plays, from every hand it was dealt: {stats.attrs['method']}.", "",
            *pokerstats.describe(), "", md_table(["entrant", *pokerstats.STATISTICS], rows), ""]


def run_report(results_dir: str | Path, out_dir: str | Path | None = None, multiplicity: str = "holm",
               net: str = DEFAULT_NET, max_error_share: float = MAX_ERROR_SHARE,
               replayer: Replayer | None = None, defaults: Defaults | None = None) -> Path:
    """Write the figures and ``report.md`` for a results directory (default: ``DIR/report``); return report.md.

    A sweep folder (``sweep.json``) gets the side-by-side comparison of its variants instead, and a balance
    study (a sweep whose arms change entrants) the designer's page, ``designer.md``. ``multiplicity``
    (holm or bh) adjusts the p-values behind every ▲/▼ and every head-to-head test. ``net``: luck-adjusted net
    chips (docs/luck.md), or raw. ``replayer`` (`dynamics_report.Replayer`) writes the sample games' replay pages
    and measures the decision structure; without one the reports name the command instead. ``defaults``: a
    strategy's constructor defaults, so the designer's page names the reference player's budget when the config
    leaves it at its default (`designer.whose`).
    """
    results_dir = Path(results_dir)
    if is_balance_study(results_dir):
        return run_designer_report(results_dir, out_dir, multiplicity, replayer=replayer, defaults=defaults)
    if is_sweep_dir(results_dir):
        return run_sweep_report(results_dir, out_dir, multiplicity, net, replayer=replayer)
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
                           multiplicity, max_error_share))
    md.extend(_poker_section(results_dir, res.games, max_error_share))
    if len(experiments) == 1:  # game ids name one game only within one experiment
        md.extend(sample_section(results_dir, res.games, out, replayer))
    path = out / "report.md"
    path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    return path
