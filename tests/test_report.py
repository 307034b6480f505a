"""The report command: figures and report.md for a results directory, synthetic and real."""

from __future__ import annotations

from results_helpers import write_results
from test_analysis import make_games, make_hands

from treasure_sim.cli import main
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.study import report

FIGURES = {"win_shares.png", "mean_net.png", "head_to_head.png", "ratings.png", "seat_advantage.png",
           "trajectories.png"}


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
    head = text[text.index("## Headline"):text.index("## Win share")]
    assert head.index("| alpha") < head.index("| beta") < head.index("| gamma")
    assert "lineups" not in head  # everyone met everyone


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
