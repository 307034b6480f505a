"""The engine benchmark runs and reports both tables (a smoke test: the figures themselves are machine-dependent)."""

from __future__ import annotations

import re

import pytest

from treasure_sim.benchmarks.engine import main, run


def test_bench_engine_prints_hands_and_games_per_second(capsys):
    assert main(["--hands", "60", "--repeat", "1", "--players", "3", "--bots", "random,calling,mixed,clone"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("load average before") and lines[-1].startswith("load average after")
    rates = [line for line in lines[1:-1] if not line.lstrip().startswith("integrity:")]
    assert [line.split()[0] for line in rates] == ["random", "calling", "mixed", "clone"]
    assert all(re.search(r"[\d,]+ hands/s, [\d.,]+ games/s", line) for line in rates[:3])
    assert re.search(r"clone x3: [\d,]+ mid-hand clones played out, [\d.]+ CPU s: [\d,]+ a second", rates[3])
    assert re.search(r"integrity: mixed x3 watched after every hand \(integrity\.py\): [\d,]+ hands/s, -?\d+% below "
                     r"[\d,]+$", lines[-2])
    assert all(len(line) <= 100 for line in lines)
    assert main(["--hands", "60", "--repeat", "1", "--players", "10", "--bots", "calling", "--quintets"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "--quintets" in lines[1] and all(len(line) <= 100 for line in lines)


def test_bench_engine_compares_with_rlcard_when_installed(capsys):
    pytest.importorskip("rlcard")
    assert main(["--hands", "40", "--repeat", "1", "--bots", "mixed,rlcard,rlcard-game"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"mixed policy: [\d.]+x rlcard \(", out) and re.search(r"[\d.]+x rlcard-game", out)


def test_the_mixed_policy_folds_raises_and_calls():
    from treasure_sim.benchmarks.engine import MixedBot
    from treasure_sim.bots.driver import play_game
    from treasure_sim.game.rules import RuleSet

    result = play_game([MixedBot() for _ in range(4)], RuleSet(max_hands=30), seed=2)
    kinds = [a.kind for h in result.hands for a in h.actions]
    assert {"fold", "raise", "call", "check"} <= set(kinds) and result.errors == ((),) * 4


def test_bench_run_plays_whole_games_until_enough_hands():
    r = run("calling", 250, 2, 0, False)
    assert r["hands"] >= 250 and r["games"] == 2  # calling games go to the 200-hand limit


def test_bench_rejects_unknown_bots():
    with pytest.raises(SystemExit):
        main(["--bots", "random,nobody"])


def test_bench_lines_play_as_a_tournament_of_built_in_bots_and_the_integrity_line_adds_the_watch(monkeypatch):
    import treasure_sim.benchmarks.engine as bench

    seen: list[bool] = []
    real = bench.play_game

    def spy(*args, **kwargs):
        seen.append(kwargs["watch_code"])
        return real(*args, **kwargs)

    monkeypatch.setattr(bench, "play_game", spy)
    bench.run("calling", 10, 2, 0, False)
    assert seen and not any(seen)  # the engine's code unwatched, as `tournament.play_one` plays built-in bots
    seen.clear()
    bench.integrity_cost(10, 2, 0, 1)
    assert False in seen and True in seen
