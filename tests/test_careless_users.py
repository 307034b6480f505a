"""A careless user and a careless bot writer: absurd requests refused in one line before they cost anything,
results never mixed with another version of a bot, --overwrite that removes only what treasure-sim wrote, trust
said as it is (--untrusted), and the small faults of issue 29 (a deep hello, play's bad seats, env actions, inf%)."""

from __future__ import annotations

import json
import math
import sys
import textwrap
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from treasure_sim.cli import main
from treasure_sim.run.execute import check_workers, max_workers, run_experiment, run_sweep
from treasure_sim.run.experiment import ConfigError, parse_toml
from treasure_sim.run.store import ResultsError, read_games, read_manifest, verify
from treasure_sim.run.sweep import MAX_VARIANTS, parse_sweep, parse_sweep_toml

SMALL = """
name = "careless"
seed = 3
deals = 2
table_size = 2
rotate = false
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "{bot}"
[rules]
max_hands = 6
"""

BOT = """
from treasure_sim import Strategy


class Mine(Strategy):
    def act(self, obs):
        return super().act(obs)  # version {version}
"""


def one_line_error(capsys, code: int, argv: list[str]) -> str:
    assert main(argv) == code
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


# ----- absurd requests: refused up front, in one line -----------------------------------------------------------
def test_absurd_worker_counts_are_refused_before_any_worker_starts(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text(SMALL.format(bot="rock"))
    limit, why = max_workers()
    assert limit >= 1 and why
    start = time.perf_counter()
    err = one_line_error(capsys, 2, ["run", str(config), "--workers", "100000", "--out", str(tmp_path / "o")])
    assert time.perf_counter() - start < 30
    assert f"--workers 100000 is more than this machine can run: at most {limit} here" in err
    assert not (tmp_path / "o").exists()  # nothing written, nothing started
    with pytest.raises(ConfigError, match="at most"):
        run_experiment(parse_toml(SMALL.format(bot="rock")), tmp_path / "o2", workers=limit + 1)
    check_workers(limit)  # the bound itself is fine
    check_workers(100000, "dask", "tcp://somewhere:8786")  # a cluster of one's own brings its workers
    for argv in (["sweep", "--workers", "100000"], ["tune", "experiments/tune_ending.toml", "--workers", "100000"]):
        assert "is more than this machine can run" in one_line_error(capsys, 2, argv)


KNOBS = ("starting_money", "ante", "min_bet", "max_hands", "ante_step", "ante_every", "zone_limit", "hearts_cap",
         "raise_cap")  # 9 knobs x 10 values: 10**9 combinations
GRID = SMALL.format(bot="rock") + "[sweep]\n" + "".join(f"{k} = {list(range(1, 11))}\n" for k in KNOBS)


def test_a_grid_of_a_billion_candidates_is_refused_in_one_line_without_growing_memory(tmp_path, capsys):
    """9 knobs x 10 values grew memory by ~110 MB/s until MemoryError; now counted first and refused."""
    from treasure_sim.design.tune import MAX_CANDIDATES, parse_tuning
    from treasure_sim.run.experiment import toml_table

    data = toml_table(GRID)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ConfigError, match=r"the grid has 1,000,000,000 combinations \(10 starting_money x 10 "
                                              rf"ante .*\), more than the {MAX_VARIANTS:,} variants allowed"):
            parse_sweep_toml(GRID, check_strategies=False)
        tune = {k: v for k, v in data.items() if k != "sweep"} | {"tune": {
            "budget": 100, "knobs": data["sweep"], "targets": [{"metric": "natural_end", "at_least": 0.9}]}}
        with pytest.raises(ConfigError, match=rf"more than the {MAX_CANDIDATES:,} candidates allowed"):
            parse_tuning(tune, "tune.toml", check_strategies=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 30 and peak < 20 * 2**20
    # one axis of a million values: refused before its duplicates are looked for (a quadratic check)
    wide = toml_table(SMALL.format(bot="rock")) | {"sweep": {"starting_money": list(range(100, 1_000_100))}}
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="1,000,000 combinations"):
        parse_sweep(wide, check_strategies=False)
    assert time.perf_counter() - start < 10  # the duplicate check alone would take hours
    path = tmp_path / "grid.toml"  # at the command line: one line, exit 2
    path.write_text(GRID)
    assert "1,000,000,000 combinations" in one_line_error(capsys, 2, ["sweep", str(path), "--out", str(tmp_path)])


@pytest.mark.parametrize("limit", ["1e308", "1e-9", "3601", "inf", "nan"])
def test_absurd_time_limits_are_refused(tmp_path, capsys, limit):
    """decision_timeout = 1e308 was accepted, then every setup failed and the run exited 0."""
    config = tmp_path / "c.toml"
    config.write_text(SMALL.format(bot="rock").replace("rotate = false", f"rotate = false\ndecision_timeout = {limit}"))
    err = one_line_error(capsys, 2, ["run", str(config), "--out", str(tmp_path / "o")])
    assert "decision_timeout must be a number of seconds from 0.001 to 3600" in err
    config.write_text(SMALL.format(bot="rock"))
    assert main(["run", str(config), "--decision-timeout", limit, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err  # argparse's usage, then one line
    assert "Traceback" not in err and "argument --decision-timeout: expected" in err.splitlines()[-1]
    assert not (tmp_path / "o").exists()


def test_a_reversed_target_is_refused(tmp_path):
    from treasure_sim.design.tune import parse_tuning
    from treasure_sim.run.experiment import toml_table

    text = SMALL.format(bot="rock") + textwrap.dedent("""
        [tune]
        budget = 40
        knobs = { ante = [0, 1] }
        targets = [{ metric = "median_hands", between = [120, 60] }]
    """)
    with pytest.raises(ConfigError, match=r"between = \[120, 60\] is reversed: no value lies in it; give \[low, high\] "
                                          r"with low <= high, such as \[60, 120\]"):
        parse_tuning(toml_table(text), check_strategies=False)
    with pytest.raises(ConfigError, match="at_least must be a number, got nan"):
        parse_tuning(toml_table(text.replace("between = [120, 60]", "at_least = nan")), check_strategies=False)


# ----- the fingerprint covers the bots' code ---------------------------------------------------------------
def test_a_changed_bot_is_refused_naming_the_entrant_and_overwrite_replaces_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(BOT.format(version=1))
    config = tmp_path / "c.toml"
    config.write_text(SMALL.format(bot="mine.py:Mine"))
    assert main(["run", str(config), "--workers", "1", "--out", "out"]) == 0
    assert read_manifest(tmp_path / "out").config["code"]["Mine"]["files"] == ["mine.py"]
    capsys.readouterr()
    (tmp_path / "mine.py").write_text(BOT.format(version=2))  # same behaviour, other code: still another bot
    for argv in (["run", str(config), "--deals", "4", "--out", "out"], ["run", str(config), "--out", "out"]):
        err = one_line_error(capsys, 2, [*argv, "--workers", "1"])
        assert "holds results of a different config (differs in: the code of entrant 'Mine' (mine.py))" in err
    assert main(["run", str(config), "--workers", "1", "--deals", "4", "--out", "out", "--overwrite"]) == 0
    assert read_manifest(tmp_path / "out").games_done == 4 and verify(tmp_path / "out").ok


def test_a_changed_bot_is_refused_in_a_sweep_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(BOT.format(version=1))
    text = SMALL.format(bot="mine.py:Mine") + "[sweep]\nante = [0, 1]\n"
    run_sweep(parse_sweep_toml(text), tmp_path / "sw", workers=1, progress=False)
    (tmp_path / "mine.py").write_text(BOT.format(version=2))
    with pytest.raises(ResultsError, match=r"holds a different sweep \(base the code of entrant 'Mine' \(mine.py\)"):
        run_sweep(parse_sweep_toml(text), tmp_path / "sw", workers=1, progress=False)


def test_built_in_bots_are_fingerprinted_by_their_source_and_old_folders_still_continue(tmp_path, caplog):
    exp = parse_toml(SMALL.format(bot="rock"))
    code = exp.code()
    assert code["rock"]["files"][0] == "rock.py" and len(code["rock"]["sha256"]) == 16
    assert exp.fingerprint() != exp.fingerprint(code=False)
    # a folder written before the code was recorded: its manifest has the config's old fingerprint and no code
    out = tmp_path / "old"
    run_experiment(exp, out, workers=1, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["config"]["code"]
    manifest["fingerprint"] = exp.fingerprint(code=False)
    (out / "manifest.json").write_text(json.dumps(manifest))
    report = run_experiment(exp.replace(deals=3), out, workers=1, progress=False)
    assert report.games_run == 1 and "did not record the bots' code" in caplog.text
    assert read_manifest(out).fingerprint == exp.fingerprint() and "code" in read_manifest(out).config


# ----- --overwrite removes only what treasure-sim wrote ------------------------------------------------------
def test_overwrite_keeps_the_users_own_files(tmp_path):
    out = tmp_path / "out"
    run_experiment(parse_toml(SMALL.format(bot="rock")), out, workers=1, progress=False, histories=1)
    (out / "games" / "thesis.txt").write_text("three years of work")
    (out / "histories" / "notes.md").write_text("mine")
    (out / "README.txt").write_text("my notes")
    log = (out / "run.log").read_text()
    (out / "run.log").write_text(log + "my own line\n")
    other = parse_toml(SMALL.format(bot="maniac"))
    with pytest.raises(ResultsError, match="different config"):
        run_experiment(other, out, workers=1, progress=False)
    run_experiment(other, out, workers=1, progress=False, overwrite=True)
    assert (out / "games" / "thesis.txt").read_text() == "three years of work"
    assert (out / "histories" / "notes.md").read_text() == "mine" and (out / "README.txt").exists()
    assert "my own line" in (out / "run.log").read_text()
    assert not list((out / "histories").glob("*.phhs"))
    assert set(read_games(out).to_pandas()["entrant"].astype(str)) == {"random", "maniac"} and verify(out).ok


def test_overwrite_removes_the_old_results_report_but_not_the_users_files_beside_it(tmp_path):
    """A report left from the old results would describe games that are gone: every file `report` and `replay`
    wrote goes with them; a file of the user's in the same folder stays."""
    out = tmp_path / "out"
    run_experiment(parse_toml(SMALL.format(bot="rock")), out, workers=1, progress=False)
    assert main(["report", str(out)]) == 0 and main(["replay", str(out), "--game", "0"]) == 0
    written = [p for p in (out / "report").rglob("*") if p.is_file()]
    assert len(written) >= 3 and (out / "report" / "report.md") in written
    assert any(p.suffix == ".png" for p in written) and (out / "report" / "replays" / "game-0.html") in written
    (out / "report" / "my_slides.md").write_text("mine")
    run_experiment(parse_toml(SMALL.format(bot="maniac")), out, workers=1, progress=False, overwrite=True)
    assert [p for p in (out / "report").rglob("*") if p.is_file()] == [out / "report" / "my_slides.md"]


def test_a_folder_named_strategies_in_the_current_directory_never_passes_for_the_built_in_bots(tmp_path):
    """Under ``python -m`` the current directory comes first on sys.path: a bot writer's own ``strategies`` folder
    would replace the registry (its bots counted as built in: trusted, unwatched). It is refused in one line."""
    import subprocess

    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "__init__.py").write_text("")
    (tmp_path / "t.toml").write_text(SMALL.format(bot="rock"))
    done = subprocess.run([sys.executable, "-m", "treasure_sim.cli", "run", "t.toml", "--out", "out"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(tmp_path / "strategies") in lines[0] and "not treasure-sim's built-in" in lines[0]
    assert not (tmp_path / "out").exists()


# ----- trust is explicit -----------------------------------------------------------------------------------
def test_untrusted_isolates_every_bot_that_is_not_built_in_and_the_summary_names_in_process_outsiders(
        tmp_path, tmp_path_factory, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    bot = tmp_path_factory.mktemp("untrusted") / "mine.py"  # by its full path: the sandbox binds that file back
    bot.write_text(BOT.format(version=1))
    text = SMALL.format(bot=f"{bot}:Mine")
    exp = parse_toml(text)
    assert [e.isolate for e in exp.entrants] == [False, False]
    untrusted = parse_toml("untrusted = true\n" + text)
    assert [e.isolate for e in untrusted.entrants] == [False, True]  # random is built in: it stays in-process
    assert exp.replace(untrusted=True).entrants == untrusted.entrants
    with pytest.raises(ConfigError, match="untrusted must be true"):
        parse_toml('untrusted = "yes"\n' + text)
    config = tmp_path / "c.toml"
    config.write_text(text)
    assert main(["run", str(config), "--workers", "1", "--out", "in"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())  # the note is wrapped to 100 columns
    assert f"trusted code: Mine ({bot}:Mine) played in this process" in flat and "--untrusted" in flat
    assert all(len(line) <= 100 for line in out.splitlines())
    assert main(["run", str(config), "--workers", "1", "--out", "iso", "--untrusted"]) == 0
    out = capsys.readouterr().out
    assert "trusted code" not in out
    assert read_manifest(tmp_path / "iso").config["entrants"][1]["isolate"] is True
    # the same games either way: isolation changes where a bot runs, not what it plays
    a = read_games(tmp_path / "in").to_pandas()[["game_id", "seat", "net"]].sort_values(["game_id", "seat"])
    b = read_games(tmp_path / "iso").to_pandas()[["game_id", "seat", "net"]].sort_values(["game_id", "seat"])
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


def test_the_readme_no_longer_claims_bots_cannot_cheat():
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert "cannot\n  cheat" not in readme and "cannot cheat" not in " ".join(readme.split())
    assert "trusted code" in " ".join(readme.split()) and "--untrusted" in readme


# ----- the smaller ones ------------------------------------------------------------------------------------
DEEP_HELLO = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        sys.stdout.write('{"id": %d, "name": ' % msg["id"] + "[" * 200000 + "]" * 200000 + "}\\n")
    else:
        sys.stdout.write(json.dumps({"id": msg["id"]}) + "\\n")
    sys.stdout.flush()
"""


def test_a_hello_nested_200000_deep_is_one_line(tmp_path, capsys):
    (tmp_path / "deep.py").write_text(DEEP_HELLO)
    config = tmp_path / "c.toml"
    config.write_text(SMALL.format(bot="rock").replace('strategy = "rock"',
                                                       f'command = ["{sys.executable}", "{tmp_path / "deep.py"}"]'))
    err = one_line_error(capsys, 2, ["run", str(config), "--out", str(tmp_path / "o")])
    assert "entrants[1] (deep): the isolated bot" in err and "not a JSON object" in err and len(err) < 1000


def test_play_refuses_a_seat_program_that_does_not_exist_and_a_bot_that_fails_to_build(tmp_path, capsys):
    err = one_line_error(capsys, 2, ["play", "--seat-command", "/nonexistent"])
    assert "--seat-command '/nonexistent': no program '/nonexistent' to run" in err
    (tmp_path / "bad.py").write_text("from treasure_sim import Strategy\nclass Bad(Strategy):\n"
                                     "    def __init__(self):\n        raise RuntimeError('no model file')\n")
    err = one_line_error(capsys, 2, ["play", "--watch", "--bots", f"{tmp_path / 'bad.py'}:Bad,rock"])
    assert "failed to build: RuntimeError: no model file" in err


@pytest.mark.parametrize("action", ["1", 1.0, 1.5, True, np.float64(1.0), np.bool_(True), None])
def test_the_environment_takes_only_whole_numbers_as_actions(action):
    pytest.importorskip("pettingzoo")
    from treasure_sim.env import raw_env

    table = raw_env(learners=1, bots=("rock",))
    table.reset(seed=3)
    try:
        obs, *_ = table.last()
        assert obs["action_mask"][1]  # 1 is legal: only its type is wrong
        with pytest.raises(ValueError, match=r"is not legal for player_0 now .* an action is an int"):
            table.step(action)
        table.step(np.int64(1))  # a numpy integer is a whole number
    finally:
        table.close()


def test_error_shares_never_print_as_inf():
    from treasure_sim.study.analysis import bot_errors
    from treasure_sim.study.markdown import percent

    assert percent(math.inf) == "—" and percent(math.nan) == "—" and percent(0.25) == "25.0%"
    games = pd.DataFrame({"strategy": ["a", "b"], "errors": [3, 0], "decisions": [0, 10]})
    notes = bot_errors(games)["note"].tolist()
    assert "inf" not in " ".join(notes) and notes[0]
