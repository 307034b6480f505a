"""The engine benchmark runs and reports both tables (a smoke test: the figures themselves are machine-dependent)."""

from __future__ import annotations

import re

import pytest

from treasure_sim.benchmarks.engine import main, run


def test_bench_engine_prints_hands_and_games_per_second(capsys):
    assert main(["--hands", "60", "--repeat", "1", "--players", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["random", "calling"]
    assert all(re.search(r"[\d,]+ hands/s, [\d.,]+ games/s", line) for line in lines)


def test_bench_run_plays_whole_games_until_enough_hands():
    r = run("calling", 250, 2, 0, False)
    assert r["hands"] >= 250 and r["games"] == 2  # calling games go to the 200-hand limit


def test_bench_rejects_unknown_bots():
    with pytest.raises(SystemExit):
        main(["--bots", "random,nobody"])
