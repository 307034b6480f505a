"""Scheduling and running: balanced tables, seeds, determinism across executors, resume, dead workers."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest

from treasure_sim.run.backends import deals_per_task
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.run.schedule import round_robin, seating
from treasure_sim.run.store import GAME_KEY, HAND_KEY, WALL_CLOCK_COLUMNS, read_games, read_hands
from treasure_sim.run.tournament import game_seeds, plan_tasks, run_task

TINY = """
name = "tiny"
seed = 7
deals = 6
table_size = 3
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "random"
params = { draw_chance = 0.3 }
[[entrants]]
strategy = "random"
params = { stop_chance = 0.05 }
[[entrants]]
strategy = "random"
params = { draw_chance = 0.6 }
[rules]
max_hands = 15
"""


def tiny(**changes) -> object:
    return parse_toml(TINY).replace(**changes)


def frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both tables in a canonical order, wall-clock columns dropped, categoricals as plain strings."""
    out_frames = []
    for table, key in ((read_games(out), GAME_KEY), (read_hands(out), HAND_KEY)):
        df = table.to_pandas()
        df = df.drop(columns=[c for c in WALL_CLOCK_COLUMNS if c in df])
        for col in df.columns:
            if isinstance(df[col].dtype, pd.CategoricalDtype):
                df[col] = df[col].astype(str)
        for col in ("winners", "money_after"):
            if col in df:
                df[col] = df[col].map(tuple)
        out_frames.append(df.sort_values(list(key)).reset_index(drop=True))
    return out_frames[0], out_frames[1]


def assert_same_results(a: Path, b: Path) -> None:
    for x, y in zip(frames(a), frames(b), strict=True):
        pd.testing.assert_frame_equal(x, y)


# ----- scheduling ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 15))
@pytest.mark.parametrize("k", range(2, 11))
def test_round_robin_is_balanced_and_every_pair_meets(n, k):
    tables = round_robin(n, k)
    assert all(len(t) == k for t in tables)
    if n <= k:
        assert tables == (tuple(i % n for i in range(k)),)
        return
    assert all(len(set(t)) == k for t in tables)
    met = {frozenset(p) for t in tables for p in combinations(t, 2)}
    assert len(met) == n * (n - 1) // 2
    plays = Counter(e for t in tables for e in t)
    assert set(plays) == set(range(n)) and len(set(plays.values())) == 1  # the full cycle: exactly equal
    for prefix in range(1, len(tables) + 1):  # and any number of deals: within one table
        counts = Counter(e for t in tables[:prefix] for e in t)
        assert max(counts.values()) - min(counts.get(e, 0) for e in range(n)) <= 1


def test_seating_rotates_every_entrant_through_every_seat():
    lineup = (4, 1, 7)
    seats = [seating(lineup, r) for r in range(3)]
    assert seats[0] == lineup
    for seat in range(3):
        assert sorted(s[seat] for s in seats) == sorted(lineup)


def test_cards_depend_on_the_deal_and_bots_on_the_rotation_and_seat():
    g0, g1 = game_seeds(1, 5, 0, 3), game_seeds(1, 5, 1, 3)
    assert g0.cards.entropy == g1.cards.entropy and g0.cards.spawn_key == g1.cards.spawn_key
    assert len({b.entropy for b in g0.bots + g1.bots}) == 6 and game_seeds(1, 6, 0, 3).cards.entropy != g0.cards.entropy
    assert game_seeds(2, 5, 0, 3).cards.entropy != g0.cards.entropy


def test_draws_are_fresh_in_every_game_of_a_deal():
    """A bot that remembers its Mixed draws in one rotation of a deal cannot predict them in the next."""
    games = [game_seeds(1, 5, r, 3) for r in range(3)] + [game_seeds(1, 6, 0, 3)]
    draws = [d.entropy for g in games for d in g.draws]
    assert len(set(draws)) == len(draws) == 12
    assert not set(draws) & ({b.entropy for g in games for b in g.bots} | {g.cards.entropy for g in games})
    assert game_seeds(1, 5, 2, 3).draws[1].entropy == draws[7]  # the same game, the same draws


def test_no_bot_seed_shows_the_experiment_seed_or_the_cards():
    """What a bot holds is a 256-bit hash output: not the experiment seed, the deal, or the card stream's seed."""
    seeds = game_seeds(7, 3, 1, 4)
    cards, bots = seeds.cards, seeds.bots
    for bot in bots:
        assert bot.spawn_key == () and bot.entropy.bit_length() > 128
        assert bot.entropy not in (7, 3, cards.entropy) and cards.entropy not in (7, 3)


def test_same_deal_same_cards_in_every_rotation():
    exp = tiny(deals=2)
    result = run_task(next(plan_tasks(exp, [(0, 1)], 1)))
    hands = result.tables["hands"].to_pandas()
    first = hands[hands.hand_no == 1]
    assert len(first) == 3 and first["new_treasure"].nunique() == 1  # the same first New Treasure each time


def test_the_first_draw_of_a_deal_differs_between_its_rotations():
    """Every entrant is random (an even chance over the legal kinds), so the first decision of every game is drawn
    with the same chances; were the draw streams keyed by deal and seat alone, its outcome would repeat in every
    rotation of the deal (and a bot could learn it in one and use it in the next)."""
    exp = tiny(deals=40)
    result = run_task(next(plan_tasks(exp, [(0, 40)], 40)))
    games = result.tables["games"].to_pandas()[["game_id", "deal_id", "rotation"]].drop_duplicates()
    first = result.tables["mixed"].to_pandas().groupby("game_id").head(1).merge(games, on="game_id")
    assert first.fold_chance.round(9).nunique() == 1 and len(first) == 120
    by_deal = first.pivot(index="deal_id", columns="rotation", values="folded")
    agree = (by_deal[0] == by_deal[1]).mean()
    assert agree < 0.8  # 5/9 expected when independent; 1 when repeated


def test_tasks_cover_pending_deals_exactly():
    exp = tiny(deals=50)
    tasks = list(plan_tasks(exp, [(0, 10), (20, 50)], 7))
    deals = [d for t in tasks for d in range(t.first_deal, t.end_deal)]
    assert deals == list(range(10)) + list(range(20, 50))
    assert all(t.end_deal - t.first_deal <= 7 for t in tasks)
    assert deals_per_task(10_000, 4, 2) * 4 <= 250 and deals_per_task(5, 4, 2) == 1


# ----- running ---------------------------------------------------------------------------------------------
def test_same_games_with_one_or_two_workers_and_dask(tmp_path):
    exp = tiny()
    one = run_experiment(exp, tmp_path / "one", workers=1, progress=False)
    two = run_experiment(exp, tmp_path / "two", workers=2, progress=False)
    dask = run_experiment(exp, tmp_path / "dask", workers=2, executor="dask", progress=False)
    assert one.status == two.status == dask.status == "complete"
    assert one.games_done == exp.games == 18
    assert_same_results(tmp_path / "one", tmp_path / "two")
    assert_same_results(tmp_path / "one", tmp_path / "dask")
    assert "deals 0-" in (tmp_path / "dask" / "run.log").read_text()  # worker logs forwarded


def test_interrupted_run_resumes_to_the_same_results(tmp_path):
    exp = tiny()
    run_experiment(exp, tmp_path / "full", workers=2, progress=False)
    parts = []

    def ctrl_c_after_two(result):
        parts.append(result)
        if len(parts) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(exp, tmp_path / "cut", workers=2, progress=False, on_part=ctrl_c_after_two)
    partial = read_games(tmp_path / "cut").to_pandas()  # readable as it is
    assert 0 < len(partial) < len(read_games(tmp_path / "full"))
    again = run_experiment(exp, tmp_path / "cut", workers=2, progress=False)
    assert again.status == "complete" and 0 < again.games_run < exp.games
    assert_same_results(tmp_path / "full", tmp_path / "cut")


def test_more_deals_extend_a_finished_run(tmp_path):
    run_experiment(tiny(deals=4), tmp_path / "grow", workers=1, progress=False)
    grown = run_experiment(tiny(), tmp_path / "grow", workers=2, progress=False)
    assert grown.games_run == 6 and grown.games_done == 18
    run_experiment(tiny(), tmp_path / "once", workers=2, progress=False)
    assert_same_results(tmp_path / "grow", tmp_path / "once")


KILLER = '''
import os, signal
from treasure_sim.game.strategy import Strategy


class Killer(Strategy):
    """Kills its own worker process the first time it is asked anything (like the OOM killer would)."""

    def __init__(self, marker: str = "") -> None:
        self.marker = marker

    def keep_playing(self, obs):
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return True
        os.kill(os.getpid(), signal.SIGKILL)
'''


def test_killed_worker_is_replaced_and_its_games_rerun(tmp_path, caplog):
    (tmp_path / "killer.py").write_text(KILLER)
    marker = tmp_path / "killed-once"
    text = TINY.replace('strategy = "random"\n', f'strategy = "{tmp_path}/killer.py:Killer"\n'
                        f'params = {{ marker = "{marker}" }}\n', 1)
    exp = parse_toml(text)
    report = run_experiment(exp, tmp_path / "killed", workers=2, progress=False)
    assert marker.exists() and report.status == "complete" and report.games_done == exp.games
    log = (tmp_path / "killed" / "run.log").read_text()  # the watchdog's game process died (watchdog.py)
    assert "a worker process died" in log or "the game process died in game" in log
    clean = run_experiment(exp, tmp_path / "clean", workers=1, progress=False)  # marker exists: no kill
    assert clean.status == "complete"
    assert_same_results(tmp_path / "killed", tmp_path / "clean")


CRASHER = '''
from treasure_sim.game.strategy import Strategy


class Crasher(Strategy):
    """Raises on every betting decision: the engine records it and plays a default action."""

    def act(self, obs):
        raise RuntimeError("boom")
'''


def test_bot_errors_are_recorded_never_fatal(tmp_path, capsys):
    (tmp_path / "crasher.py").write_text(CRASHER)
    exp = parse_toml(TINY.replace('strategy = "random"\n', f'strategy = "{tmp_path}/crasher.py:Crasher"\n', 1))
    report = run_experiment(exp, tmp_path / "out", workers=2, progress=False)
    assert report.status == "complete" and report.bot_errors > 0
    games = read_games(tmp_path / "out").to_pandas()
    crasher = games[games.entrant == "Crasher"]
    assert crasher["errors"].sum() == report.bot_errors and (games[games.entrant != "Crasher"]["errors"] == 0).all()
    assert crasher.loc[crasher.errors > 0, "first_error"].str.contains("RuntimeError: boom").all()
    assert read_hands(tmp_path / "out").to_pandas()["bot_errors"].sum() == report.bot_errors
    assert "bot 'Crasher'" in capsys.readouterr().err  # warned on the console (once per worker)
