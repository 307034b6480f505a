"""The `report` command: PNG figures and a markdown summary of a results directory, next to the data."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from ..run.store import Manifest, is_sweep_dir
from . import analysis as an
from . import plots
from .markdown import cell, entrants_text, md_table, number, rules_text, save_figure
from .sweep_report import run_sweep_report

TRAJECTORY_GAMES = 6


def headline(games: pd.DataFrame, rated: pd.DataFrame | None = None) -> str:
    """The headline table: per strategy win share, net money and rating, each with its uncertainty."""
    s = an.summary(games, rated=rated)
    labelled = games.assign(strategy=games["entrant"].astype(str)) if "entrant" in games else games
    per = labelled.groupby("strategy", observed=True)
    none = pd.Series(math.nan, index=s["strategy"])
    errors = per["errors"].sum() if "errors" in labelled else none
    ms = per["decision_time"].mean() * 1000 if "decision_time" in labelled else none
    rows = []
    for r in s.itertuples():
        rows.append([r.strategy, cell(r.win_share, r.win_low, r.win_high, ".3f"), f"{r.fair:.3f}",
                     cell(r.net, r.net_low, r.net_high, "+.1f"), f"{r.mu:.1f} ± {r.sigma:.1f}", f"{r.ordinal:.1f}",
                     r.games, r.deals, number(errors[r.strategy], ".0f"), number(ms[r.strategy], ".3f")])
    header = ["strategy", "win share [95% CI]", "equal share", "mean net, chips [95% CI]", "rating mu ± sigma",
              "ordinal", "games", "deals", "bot errors", "ms / decision"]
    return md_table(header, rows)


def _h2h_table(h2h: pd.DataFrame, order: list[str]) -> str:
    share = an.head_to_head_matrix(h2h, "mean", order)
    low, high = an.head_to_head_matrix(h2h, "ci_low", order), an.head_to_head_matrix(h2h, "ci_high", order)
    rows = [[a] + ["—" if math.isnan(share.loc[a, b]) else cell(share.loc[a, b], low.loc[a, b], high.loc[a, b], ".2f")
                   for b in share.columns] for a in share.index]
    return md_table(["row ahead of column", *share.columns], rows)


def _seat_table(seats: pd.DataFrame) -> str:
    rows = [[int(r.n_players), int(r.seat), cell(r.mean, r.ci_low, r.ci_high, ".3f"), f"{r.fair:.3f}", r.deals]
            for r in seats.itertuples()]
    return md_table(["players", "seat (0 = first dealer)", "win share [95% CI]", "equal share", "deals"], rows)


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


def _section(res: an.Results, games: pd.DataFrame, out: Path, prefix: str, manifest: Manifest | None
             ) -> list[str]:
    """One experiment's tables and figures; returns its markdown lines."""
    rated = an.ratings(games)
    wins, net = an.win_rates(games), an.mean_net(games)
    order = wins["strategy"].tolist()
    colors = plots.strategy_colors(order)
    h2h, seats, length = an.head_to_head(games), an.seat_advantage(games), an.game_length(games)
    md = [*_setup(manifest, games), "",
          f"Intervals: {wins.attrs['method']}. Card luck is shared by a deal's rotations, so averaging them first "
          "removes it; an interval that overlaps another (or the equal share) means the data cannot tell them apart. "
          f"Figures mark estimates from fewer than {plots.FEW_DEALS} deals: their interval is only a rough guide.",
          "", "## Headline", "", headline(games, rated), ""]
    tables = an.lineups(games)
    if len(tables) > 1:
        md.extend([f"Not every entrant met the same opponents ({len(tables)} lineups: "
                   + "; ".join(f"{r.lineup} ({r.games} games)" for r in tables.itertuples())
                   + "). Win share and net money depend on who else sat at the table, so compare entrants by "
                   "head-to-head (only games where both sat) and ratings (which weigh each finish by the strength "
                   "of the opponents), not by win share alone.", ""])

    def figure(title: str, name: str, fig: Any, text: str, table: str | None = None) -> None:
        md.extend([f"## {title}", "", text, ""])
        if table:
            md.extend([table, ""])
        md.extend([f"![{title}]({save_figure(fig, out / f'{prefix}{name}.png', dpi=120)})", ""])

    figure("Win share", "win_shares", plots.plot_win_shares(wins, colors),
           "Share of games each strategy finished with the most chips (ties split). The dashed line is what an "
           "equal player would get.")
    figure("Mean net money", "mean_net", plots.plot_mean_net(net, colors),
           "Chips won or lost per game on average; 0 is break even.")
    if not h2h.empty:
        figure("Head-to-head", "head_to_head", plots.plot_head_to_head(h2h, order),
               "Each cell: in games where both sat, how often the row strategy finished ahead of the column one "
               "(ties count half). Above 0.5 the row is ahead.", _h2h_table(h2h, order))
    figure("Ratings", "ratings", plots.plot_ratings(rated, colors),
           "OpenSkill Plackett–Luce ratings from each game's finishing order: mu is the skill estimate, sigma its "
           "uncertainty; the ordinal mu − 3·sigma is a conservative ranking.")
    figure("Seat advantage", "seat_advantage", plots.plot_seat_advantage(seats),
           "Win share by seat relative to the first dealer (seat 1 acts first). Bars far from the dashed line "
           "mean position matters under these rules.", _seat_table(seats))
    md.extend(["## Game length", "", _length_table(length), ""])
    traj = an.trajectories(an.Results(games, res.hands, res.manifests), max_games=TRAJECTORY_GAMES)
    if not traj.empty:
        figure("Money trajectories", "trajectories", plots.plot_trajectories(traj, TRAJECTORY_GAMES, colors),
               f"Stacks over the hands of the first {traj['game_id'].nunique()} games: what a game looks like, "
               "not evidence of skill.")
    return md


def run_report(results_dir: str | Path, out_dir: str | Path | None = None) -> Path:
    """Write the figures and ``report.md`` for a results directory (default: ``DIR/report``); return report.md.

    A sweep folder (``sweep.json``) gets the side-by-side comparison of its variants instead.
    """
    results_dir = Path(results_dir)
    if is_sweep_dir(results_dir):
        return run_sweep_report(results_dir, out_dir)
    res = an.load(results_dir)
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
                           manifest if manifest is not None and manifest.name in (None, name) else None))
    path = out / "report.md"
    path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    return path
