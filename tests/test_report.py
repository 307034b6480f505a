"""The report command: figures and report.md for a results directory, synthetic and real."""

from __future__ import annotations

import pandas as pd
from results_helpers import write_results
from test_analysis import make_games, make_hands

from treasure_sim.cli import main
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.study import report

FIGURES = {"strength.png", "win_shares.png", "mean_net.png", "head_to_head.png", "seat_advantage.png",
           "planning.png", "trajectories.png"}


def _synthetic_dir(path):
    games = make_games(n_deals=8, skills={"alpha": 1.0, "beta": 0.0, "gamma": -1.0})
    return write_results(path, games, make_hands(games, n_hands=5), rules={"jokers": 0})


def test_report_command_writes_figures_and_markdown(tmp_path, capsys):
    data = _synthetic_dir(tmp_path / "run")
    assert main(["report", str(data), "--out", str(tmp_path / "elsewhere")]) == 0
    md = tmp_path / "elsewhere" / "report.md"
    assert str(md) in capsys.readouterr().out
    assert not (data / "report").exists()
    assert {p.name for p in md.parent.iterdir()} >= FIGURES
    for name in FIGURES:
        assert (md.parent / name).read_bytes()[:4] == b"\x89PNG"
    text = md.read_text()
    for name in FIGURES:
        assert f"]({name})" in text  # linked relative to report.md
    assert "| alpha | " in text and "per-deal means" in text
    assert "jokers = 0" in text  # rules that differ from the defaults are named
    head = text[text.index("## Ranking by lineup-adjusted strength"):text.index("## Strength")]
    assert head.index("| alpha") < head.index("| beta") < head.index("| gamma")
    assert "strength [95% CI]" in head and "bootstrap over deals" in head
    assert "lineups" not in head and "win share [95% CI]" in head  # everyone met everyone: no * on the raw columns
    assert "cannot tell" not in text and "never by whether two separate intervals overlap" in text
    assert "family of 6 tests" in text and "Holm" in text  # head-to-head: 2 tests x 3 pairs
    assert "Are the seats equal? **F(2, 7) = " in text
    assert "deals needed for a half-width of" in text and "--until-ci" in text


def test_report_marks_a_broken_bot_and_unbalanced_lineups(tmp_path):
    games = make_games(n_deals=8, skills={"alpha": 1.0, "beta": 0.0, "gamma": -1.0})
    games.loc[games["strategy"] == "gamma", "errors"] = 50  # every decision failed
    other = make_games(n_deals=8, skills={"alpha": 0.0, "delta": 0.0, "beta": 0.0}, seed=1)
    other = other.assign(game_id=other["game_id"] + 1000, deal_id=other["deal_id"] + 100)
    games = pd.concat([games, other], ignore_index=True)
    data = write_results(tmp_path / "run", games, make_hands(games, n_hands=3))
    text = report.run_report(data).read_text()
    head = text[text.index("## Ranking"):text.index("## Strength")]
    ranking = head[:head.index("**Not ranked**")]
    assert "| gamma" not in ranking  # every decision failed: not ranked, listed under the ranking
    assert "**Not ranked**: bots that failed more than 1% of their decisions (`--max-error-share 0.01`)" in head
    assert "| gamma | 1200 | 1200 of 1200 (100.0%) |" in head
    assert "win share* [95% CI]" in head and "met in 2 different lineups" in head
    # a threshold of 100% ranks it again, marked
    text = report.run_report(data, tmp_path / "all", max_error_share=1.0).read_text()
    head = text[text.index("## Ranking"):text.index("## Strength")]
    assert "| gamma ⚠ |" in head and "1200 (100.0%) ⚠" in head and "Not ranked" not in head
    assert "⚠ **gamma**: 1200 bot errors; 100.0% of its decisions failed: its results reflect the engine's" in head


def test_report_on_a_folder_without_results_is_a_clean_error(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert "not a results directory" in capsys.readouterr().err


def test_report_on_a_real_run(tmp_path):
    exp = parse_toml("""
name = "report-test"
deals = 4
table_size = 2
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "random"
label = "random-no-hearts"
params = { draw_chance = 0.0 }
[rules]
max_hands = 40
""")
    out = tmp_path / "report-test"
    assert run_experiment(exp, out, workers=1, progress=False).status == "complete"
    md = report.run_report(out)
    assert md == out / "report" / "report.md"  # next to the data by default
    text = md.read_text()
    assert {p.name for p in md.parent.iterdir()} >= FIGURES
    assert "| random-no-hearts |" in text and "8 games from 4 deals" in text
    assert "`random-no-hearts` = random" in text
