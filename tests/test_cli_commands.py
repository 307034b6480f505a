"""The subcommands are wired: `run`, `sweep` and `report` chain through `treasure_sim.cli.main` as a user types them."""

from __future__ import annotations

import json

from treasure_sim.cli import main

ENTRANTS = """
seed = 3
deals = 2
table_size = 2
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "calling_station"
[rules]
max_hands = 8
"""


def test_run_then_report(tmp_path, capsys):
    config = tmp_path / "tiny.toml"
    config.write_text('name = "tiny"' + ENTRANTS)
    assert main(["run", str(config), "--workers", "1", "--out", str(tmp_path / "run")]) == 0
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "report.md").read_text().count("random") >= 1
    assert len(list((tmp_path / "rep").glob("*.png"))) >= 5
    assert str(tmp_path / "rep") in capsys.readouterr().out


def test_sweep_then_report(tmp_path, capsys):
    config = tmp_path / "sweep.toml"
    config.write_text('name = "tinysweep"' + ENTRANTS.replace("[rules]", "[[variants]]\nname = 'base'\n"
                      "[[variants]]\nname = 'no-clubs'\nrules = { clubs = false }\n[rules]"))
    out = tmp_path / "sweep"
    assert main(["sweep", str(config), "--workers", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "verdict, each variant against base (paired by deal, 95% intervals" in printed
    assert "\n  no-clubs: " in printed and "hands a game" in printed and "games that hit the cap" in printed
    manifest = json.loads((out / "sweep.json").read_text())
    assert json.dumps(manifest).count("no-clubs") >= 1
    assert (out / "base" / "manifest.json").exists() and (out / "no-clubs" / "manifest.json").exists()
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    assert "no-clubs" in (tmp_path / "rep" / "report.md").read_text()


def test_sweep_until_ci_grows_every_variant_until_the_paired_differences_are_narrow(tmp_path, capsys):
    config = tmp_path / "sweep.toml"
    config.write_text('name = "grow"' + ENTRANTS.replace("[rules]", "[[variants]]\nname = 'base'\n"
                      "[[variants]]\nname = 'no-hearts'\nrules = { hearts = false }\n[rules]"))
    out = tmp_path / "grow"
    assert main(["sweep", str(config), "--workers", "2", "--out", str(out), "--until-ci", "0.6", "--metric",
                 "hands per game", "--max-deals", "400"]) == 0
    captured = capsys.readouterr()
    assert "until-ci: 100 deals: widest paired difference half-width" in captured.err
    line = next(x for x in captured.out.splitlines() if x.startswith("stopped at "))
    deals = int(line.split()[2])
    assert "every paired difference interval has half-width <= 0.6" in line and 100 <= deals <= 400
    for variant in ("base", "no-hearts"):
        assert json.loads((out / variant / "manifest.json").read_text())["deals"] == deals
    from treasure_sim.study.balance import paired_half_widths

    assert paired_half_widths(out, "hands per game")["hands per game: no-hearts − base"] <= 0.6
    assert main(["sweep", str(config), "--out", str(out), "--until-ci", "0.6", "--metric", "nope"]) == 2
    assert "no metric 'nope' in this sweep" in capsys.readouterr().err


def test_unknown_subcommand_is_a_usage_error(capsys):
    assert main(["tournament"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_ctrl_c_exits_130_and_says_the_results_are_kept(tmp_path, monkeypatch, capsys):
    from treasure_sim.run import execute

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(execute, "run_sweep", interrupted)
    monkeypatch.setattr("treasure_sim.cli.runs.run_experiment", interrupted)
    config = tmp_path / "tiny.toml"
    config.write_text('name = "tiny"' + ENTRANTS)
    assert main(["run", str(config), "--out", str(tmp_path / "r")]) == 130
    assert "interrupted" in capsys.readouterr().err
    config.write_text('name = "tinysweep"' + ENTRANTS.replace("[rules]", "[[variants]]\nname = 'base'\n[rules]"))
    assert main(["sweep", str(config), "--out", str(tmp_path / "s")]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and str(tmp_path / "s") in err


def test_verify_a_run_and_a_damaged_one(tmp_path, capsys):
    config = tmp_path / "tiny.toml"
    config.write_text('name = "tiny"' + ENTRANTS)
    assert main(["run", str(config), "--out", str(tmp_path / "r"), "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "r")]) == 0
    assert "ok, " in capsys.readouterr().out
    part = next((tmp_path / "r" / "hands").glob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:-10])
    assert main(["verify", str(tmp_path / "r")]) == 1
    assert f"hands/{part.name} is truncated" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "r")]) == 2  # a report never runs on damaged data without saying so
    assert f"hands/{part.name} is truncated" in capsys.readouterr().err


def test_a_broken_bot_is_one_line_and_a_traceback_only_with_verbose(tmp_path, capsys):
    bot = tmp_path / "bad.py"
    bot.write_text("from treasure_sim import Strategy\nclass Bad(Strategy):\n    def setup(self, *a):\n"
                   "        raise RuntimeError('setup broke')\n")
    config = tmp_path / "bad.toml"
    config.write_text(f'name = "bad"\ndeals = 2\ntable_size = 2\n[[entrants]]\nstrategy = "{bot}:Bad"\n'
                      '[[entrants]]\nstrategy = "random"\n')
    assert main(["run", str(config), "--out", str(tmp_path / "o"), "--workers", "1", "--strict"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [  # the line in the bot's own file that raised
        "treasure-sim run: failed: entrant 'Bad' in game 0 (deal 0): seat 0 (Bad): hand 0: setup raised "
        f"RuntimeError: setup broke (at {bot}:4 in setup)"]
    assert main(["--verbose", "run", str(config), "--out", str(tmp_path / "o"), "--workers", "1", "--strict"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "Traceback of the bot (its own frames):" in err
    assert f'File "{bot}", line 4, in setup' in err and "raise RuntimeError('setup broke')" in err
    assert main(["run", str(config), "--out", str(tmp_path / "o"), "--workers", "1",
                 "--decision-timeout", "0.5"]) == 0  # not strict: recorded, never fatal; it never decided: unranked
    out = capsys.readouterr().out
    assert "Not ranked: bots that failed more than 1% of their decisions" in out
    assert "Bad: 4 bot errors, it never got to decide (every decision was the engine's default); first: hand 0: "\
           "setup raised RuntimeError" in \
        " ".join(out.split())
