"""The action correction (AIVAT's other half): at a decision the engine drew from a bot's declared chances, each
seat's luck is its net value after the action drawn minus the mean over the draw. Exactly mean-zero given the state,
whatever the value function; the states it compares hold the chips as the engine had them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.study import luck, luck_actions
from treasure_sim.study import luck_hands as lh
from treasure_sim.study.luck_values import States, values

CONFIG = """
name = "luck-actions"
seed = 8
deals = 8
table_size = 4
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "maniac"
[[entrants]]
strategy = "calling_station"
[[entrants]]
strategy = "random"
"""
ALL = luck.Settings(min_pot=0, kinds=("action",))


@pytest.fixture(scope="module")
def hands(tmp_path_factory):
    path = tmp_path_factory.mktemp("luck-actions") / "run"
    run_experiment(parse_toml(CONFIG), path, workers=1, progress=False)
    h, _ = lh.load(path)
    assert len(h.decisions) > 500
    return path, h


def _with_draws(h: lh.Hands, folded: np.ndarray) -> lh.Hands:
    return dataclasses.replace(h, decisions=dataclasses.replace(h.decisions, folded=folded))


def _by_decision(h: lh.Hands) -> np.ndarray:
    """Each seat's action luck per decision row of `Decisions` (the events come in decision order per chunk)."""
    events = luck.hand_events(h, ALL)
    _, _, rows = luck_actions.action_states(h, np.flatnonzero(luck._usable(h)), ALL.hearts_budget)
    assert len(events.hand) == len(rows) and (events.hand == h.decisions.hand[rows]).all()
    out = np.full((len(h.decisions), h.n_seats), np.nan)
    out[rows] = events.luck
    return out


def test_the_action_luck_averages_zero_over_the_draw_at_every_decision(hands):
    """Recompute every decision as if the engine had drawn fold, then as if it had drawn going on: weighted by the
    declared chances the two cancel exactly, seat by seat, and they differ wherever folding changes the pots."""
    _, h = hands
    d = h.decisions
    if_folded = _by_decision(_with_draws(h, np.ones(len(d), bool)))
    if_not = _by_decision(_with_draws(h, np.zeros(len(d), bool)))
    p = d.fold_chance[:, None]
    done = ~np.isnan(if_folded[:, 0])
    assert done.sum() > 500
    assert np.abs((p * if_folded + (1 - p) * if_not)[done]).max() < 1e-9
    assert (np.abs(if_folded - if_not)[done].max(axis=1) > 1).mean() > 0.2
    assert np.abs(if_folded[done].sum(axis=1)).max() < 1e-9  # what one seat gains the others lose


def test_the_states_compared_hold_the_chips_as_the_engine_had_them(hands):
    """Folding leaves the pots to the others (a lone seat left takes all but an uncalled bet); going on adds the call
    to the pots."""
    _, h = hands
    fold, go_on, rows = luck_actions.action_states(h, np.flatnonzero(luck._usable(h)), ALL.hearts_budget)
    d = h.decisions
    k = np.full(len(rows), 64)
    perms = np.random.default_rng(1).permuted(np.tile(np.arange(54, dtype=np.int8), (64, 1)), axis=1)
    start = np.zeros(len(rows), np.int64)
    v_fold = values(States(hand=start, samples=k, **fold), perms, h.rules)
    v_on = values(States(hand=start, samples=k, **go_on), perms, h.rules)
    pot = d.committed[rows].sum(axis=1)
    assert np.allclose(v_fold.sum(axis=1), pot) and np.allclose(v_on.sum(axis=1), pot + d.to_call[rows])
    seat, commit = d.seat[rows], d.committed[rows]
    mine = np.arange(h.n_seats) == seat[:, None]
    unmatched = np.maximum(commit[mine] - np.where(mine, 0, commit).max(axis=1), 0)
    assert (v_fold[mine] == unmatched).all()  # a folder gets back only what nobody matched (as the engine does)
    assert (unmatched > 0).any()
    alone = d.still_in[rows].sum(axis=1) == 2
    assert alone.sum() > 50
    other = np.argmax(d.still_in[rows] & (np.arange(h.n_seats) != seat[:, None]), axis=1)
    assert np.allclose(v_fold[alone, other[alone]], pot[alone] - unmatched[alone])


def test_adjusted_games_carry_the_action_luck_and_only_mixed_bots_make_any(hands, tmp_path):
    path, _ = hands
    games = luck.adjusted_games(path)
    assert "luck_action" in games.columns and (games["luck_action"] != 0).mean() > 0.5
    plain = tmp_path / "plain"
    run_experiment(parse_toml(CONFIG.replace('"random"', '"rock"').replace("luck-actions", "plain")), plain,
                   workers=1, progress=False)
    assert (luck.adjusted_games(plain)["luck_action"] == 0).all()


def test_a_batch_of_hands_without_drawn_decisions_has_no_action_luck(hands):
    _, h = hands
    without = np.setdiff1d(np.arange(h.n_hands), h.decisions.hand)
    for idx in (np.zeros(0, np.int64), without):
        hand, kind, pot, luck_ = luck_actions.action_events(h, idx, ALL, luck.KINDS.index("action"))
        assert len(hand) == len(kind) == len(pot) == len(luck_) == 0 and luck_.shape[1] == h.n_seats
