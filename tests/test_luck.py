"""The luck adjustment (issue 14): the record read right, every correction mean-zero by construction, and unbiased
adjusted means on real runs."""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from itertools import combinations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from treasure_sim.game.cards import format_cards, parse_cards
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.run.store import SCHEMAS
from treasure_sim.study import luck, luck_values
from treasure_sim.study import luck_hands as lh
from treasure_sim.study.luck_values import States, first_in_deck, permutations, pots, uncalled, values

CONFIG = """
name = "luck-test"
seed = {seed}
deals = {deals}
table_size = 4
rotate = true
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "rock"
[[entrants]]
strategy = "calling_station"
[[entrants]]
strategy = "maniac"
{rules}
"""
OTHER_RULES = "[rules]\nhearts_chain = false\njokers = 1\nante = 2\nclubs = false\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two small runs of the cheap bots: the card's rules, and a variant (one Joker, no Clubs, no chains, ante 2)."""
    out = []
    for seed, rules in ((3, ""), (4, OTHER_RULES)):
        path = tmp_path_factory.mktemp("luck") / f"run{seed}"
        run_experiment(parse_toml(CONFIG.format(seed=seed, deals=10, rules=rules)), path, workers=1, progress=False)
        out.append(path)
    return out


# ----- the record ------------------------------------------------------------------------------------------------
def test_every_showdown_is_replayed_to_the_chip(runs):
    """The final state of every shown-down hand, valued by the luck code, pays what the engine paid (to the odd
    chip): cards, zones (Clubs wild per seat), Spades moved, Hearts draws, side pots and uncalled bets read right."""
    for path in runs:
        hands, _ = lh.load(path)
        idx, value, taken = luck.showdown_values(hands)
        assert len(idx) > 300
        assert np.abs(value - taken).max() < 1  # split pots: odd chips go to the first winner
        assert hands.deck_known.mean() > 0.9  # unknown only after a thief or its victim left (about 1% of hands)


def _tables(hands_rows: list[dict], seat_rows: list[dict], n: int) -> tuple[pa.Table, pa.Table, pa.Table]:
    def table(name: str, rows: list[dict]) -> pa.Table:
        schema = SCHEMAS[name]
        full = [{f.name: r.get(f.name) for f in schema} for r in rows]
        return pa.Table.from_pylist(full, schema=schema)

    games = [{"experiment": "t", "game_id": 0, "deal_id": 0, "table_id": 0, "seat": s, "n_players": n,
              "entrant": f"e{s}", "net": 0, "final_money": 0} for s in range(n)]
    return table("seats", seat_rows), table("hands", hands_rows), table("games", games)


def _seat(hand_no: int, seat: int, zone: str, **extra) -> dict:
    base = {"game_id": 0, "hand_no": hand_no, "seat": seat, "stack": 10, "net": 0, "hole": ["2s", "3s"],
            "treasures_before": zone.split(), "put_in": [1, 0, 0, 0, 0], "won": 0, "steals": 0,
            "spades_moved": [], "hearts_drawn": []}
    return base | extra


def _hand(hand_no: int, **extra) -> dict:
    base = {"game_id": 0, "hand_no": hand_no, "dealer": 0, "players_in_hand": 2, "shared": [], "steals": 0,
            "void": False, "deck_size": 0}
    return base | extra


def _mask(cards: str) -> int:
    return int(lh.bits(parse_cards(cards).astype(np.int64)[None, :])[0])


def test_the_deck_leaves_out_the_zone_of_a_seat_out_of_the_game():
    """Seat 2 is out in hand 2: the seats table no longer lists its zone, but its Kc is still in no deck."""
    seats = [_seat(1, 0, ""), _seat(1, 1, "5d"), _seat(1, 2, "Kc"), _seat(2, 0, ""), _seat(2, 1, "5d")]
    hands = [_hand(1, players_in_hand=3, deck_size=52 - 6), _hand(2, deck_size=52 - 4)]
    h = lh.build(*_tables(hands, seats, 3), {"jokers": 2})
    assert not (h.deck0 & np.uint64(_mask("Kc 5d"))).any()
    assert np.bitwise_count(h.deck0).tolist() == [52, 52] and h.deck_known.all()


def test_a_diamond_spent_by_a_thief_that_goes_out_makes_the_deck_unknown():
    """Seat 1 steals 7h from seat 0 and is out the next hand. With two Diamonds, which one it spent is not
    recorded: the rest of the game is left uncorrected. With one, the deck is exact: the Diamond is back in it and
    the stolen 7h, in the zone of a seat out of the game, is not."""
    two = [_seat(1, 0, "7h"), _seat(1, 1, "4d Qd", steals=1), _seat(1, 2, ""), _seat(2, 0, ""), _seat(2, 2, "")]
    hands = [_hand(1, players_in_hand=3, steals=1, deck_size=51 - 6 + 1), _hand(2, deck_size=0)]
    h = lh.build(*_tables(hands, two, 3), {"jokers": 2})
    assert h.deck_known.tolist() == [True, False]
    one = [_seat(1, 0, "7h"), _seat(1, 1, "Qd", steals=1), _seat(1, 2, ""), _seat(2, 0, ""), _seat(2, 2, "")]
    hands = [_hand(1, players_in_hand=3, steals=1, deck_size=52 - 6 + 1), _hand(2, deck_size=53 - 4)]
    h = lh.build(*_tables(hands, one, 3), {"jokers": 2})
    assert h.deck_known.tolist() == [True, True]
    assert h.deck0[1] & np.uint64(_mask("Qd")) and not h.deck0[1] & np.uint64(_mask("7h"))


# ----- the value function: each correction has mean exactly zero -----------------------------------------------
def _state(n: int = 3, **fields) -> States:
    """One state for n seats; cards by name."""
    known = [parse_cards(c).tolist() if c else [] for c in fields.pop("known", [""] * n)]
    width = max(2, max(map(len, known)))
    shared = parse_cards(fields.pop("shared", "")).tolist()
    zones = fields.pop("zones", None)
    out = {"hand": np.zeros(1, np.int64), "samples": np.array([fields.pop("samples", 1)]),
           "deal_holes": np.array([fields.pop("deal_holes", False)]), "order": np.arange(n)[None, :],
           "known": np.array([[k + [-1] * (width - len(k)) for k in known]], np.int8),
           "shared": np.array([shared + [-1] * (5 - len(shared))], np.int8),
           "contender": np.array([fields.pop("contender", [True] * n)]),
           "wild": np.array([fields.pop("wild", [0] * n)], np.uint16),
           "hearts": np.array([fields.pop("hearts", [0] * n)], np.uint16),
           "owed": np.array([fields.pop("owed", [-1] * n)], np.int64),
           "budget": np.array([fields.pop("budget", 0)], np.int64),
           "commit": np.array([fields.pop("commit", [10] * n)], np.int64)}
    dealt = {c for k in known for c in k} | set(shared) | set(parse_cards(zones).tolist() if zones else [])
    out["deck"] = np.array([lh.bits(np.array([c for c in range(54) if c not in dealt])[None, :])[0]], np.uint64)
    assert not fields, fields
    return States(**out)


def _after(st: States, card: int, seat: int | None = None) -> States:
    """The state after ``card`` comes: the next shared card, or (``seat``) that seat's Hearts draw."""
    new = {k: None if v is None else np.array(v, copy=True) for k, v in vars(st).items()}
    new["deck"] = st.deck & ~lh.bits(np.array([[card]]))
    if seat is None:
        shared = new["shared"][0]
        shared[np.argmax(shared < 0)] = card
    else:
        known = np.pad(new["known"], ((0, 0), (0, 0), (0, 1)), constant_values=-1)
        known[0, seat, -1] = card
        new["known"] = known
        new["budget"] = st.budget - 1
        owed = new["owed"][0]
        owed[seat] -= 1
        if lh.RANK_BITS[card] & st.hearts[0, seat]:
            owed[seat] += 1  # the chain
        if owed[seat] == 0:
            new["hearts"][0, seat] = 0
    return States(**new)


def _deck(st: States) -> list[int]:
    return [c for c in range(54) if int(st.deck[0]) >> c & 1]


RULES = {"hearts_chain": True}


def test_river_luck_is_exactly_zero_on_average_with_side_pots_wilds_and_an_uncalled_bet():
    st = _state(known=["Ah Kd", "7c 7d", "2s RJ"], shared="Qs 7h Jc 3d", wild=[0, 1 << 5, 0],
                commit=[40, 25, 60], zones="Kc 9h")
    before = values(st, np.zeros((1, 54), np.int8), RULES)[0]
    after = np.array([values(_after(st, c), np.zeros((1, 54), np.int8), RULES)[0] for c in _deck(st)])
    assert after.mean(axis=0) == pytest.approx(before, abs=1e-9)
    assert before.sum() == pytest.approx(125)  # every chip is someone's: 20 uncalled back to seat 2, 105 in pots
    assert after.std(axis=0).max() > 1  # the river matters


def test_a_hearts_draw_is_exactly_zero_on_average():
    """Seat 1 owes one draw (budget 1: the model draws just this card); the value before is the mean after."""
    st = _state(known=["Ah Kd", "7c 8d", "2s 2d"], shared="Qs 7h Jc 3d 9s", hearts=[0, 1 << 5, 0], owed=[0, 1, 0],
                budget=1)
    before = values(st, np.zeros((1, 54), np.int8), RULES)[0]
    after = np.array([values(_after(st, c, seat=1), np.zeros((1, 54), np.int8), RULES)[0] for c in _deck(st)])
    assert after.mean(axis=0) == pytest.approx(before, abs=1e-9)


@pytest.mark.parametrize("hearts", [False, True])
def test_monte_carlo_values_average_the_exact_ones(hearts):
    """A turn with a short deck (most cards in zones): the Monte Carlo value before the two turn cards agrees with
    the exact mean over every pair of the value after, within its sampling error; with Hearts draws to come too."""
    zones = " ".join(f"{r}{s}" for r in "23456789T" for s in "schd") + " RJ BJ Jd Qd"
    st = _state(n=2, known=["Ah Kd", "Jc Qc"], shared="Ks Js", zones=zones, samples=20000,
                hearts=[1 << 12, 0] if hearts else [0, 0], budget=2 if hearts else 0)
    rng = np.random.default_rng(0)
    perms = permutations(rng, 20000)
    before = values(st, perms, RULES)[0]
    deck = _deck(st)
    pairs = [(a, b) for a in deck for b in deck if a < b]
    after = np.array([values(_after(_after(st, a), b), perms, RULES)[0] for a, b in pairs])
    se = 30 * 0.5 / np.sqrt(20000) * 4
    assert np.abs(after.mean(axis=0) - before).max() < se


def test_the_new_treasure_luck_averages_out_when_the_deck_runs_short():
    """Seven cards left and Hearts draws that can use them all: the New Treasure takes one of them, so the value
    before it must deal it face down first (else the card it takes could still come as a draw)."""
    zones = " ".join(f"{r}{s}" for r in "23456789T" for s in "schd") + " RJ BJ Jd Qd Kd As Ks"
    st = _state(n=2, known=["Ah Kc", "Jc Qc"], zones=zones, samples=40000, hearts=[1 << 12, 1 << 11],
                budget=8)
    perms = permutations(np.random.default_rng(5), 40000)
    before = values(States(**(vars(st) | {"burn": np.ones(1, np.int64)})), perms, RULES)[0]
    assert len(_deck(st)) == 7
    after = np.array([values(States(**(vars(st) | {"deck": st.deck & ~lh.bits(np.array([[c]]))})), perms, RULES)[0]
                      for c in _deck(st)])
    assert np.abs(after.mean(axis=0) - before).max() < 4 * 10 / np.sqrt(40000)
    unburnt = values(st, perms, RULES)[0]
    assert np.abs(after.mean(axis=0) - unburnt).max() > 0.2  # the bias this guards against


def test_hole_card_luck_averages_out():
    """Nine cards left, two seats: the value before the hole cards (Monte Carlo over deals) is the mean of the value
    after them over every deal of two cards to each (the five left are then the shared cards)."""
    zones = " ".join(f"{r}{s}" for r in "23456789TJ" for s in "schd") + " Qd Kd Ad RJ BJ"
    st = _state(n=2, known=["", ""], zones=zones, samples=20000, deal_holes=True, wild=[1 << 12, 0])
    before = values(st, permutations(np.random.default_rng(3), 20000), RULES)[0]
    deck = _deck(st)
    after = []
    for mine in combinations(deck, 2):
        for theirs in combinations([c for c in deck if c not in mine], 2):
            one = _state(n=2, known=[format_cards(mine), format_cards(theirs)], zones=zones, wild=[1 << 12, 0])
            after.append(values(one, permutations(np.random.default_rng(4), 1), RULES)[0])
    assert len(after) == 36 * 21
    assert np.abs(np.mean(after, axis=0) - before).max() < 4 * 10 / np.sqrt(20000)
    assert np.mean(after, axis=0)[0] > 11  # the aces are wild for seat 0: it wins more than half


def test_shuffles_are_uniform_over_the_deck():
    deck = lh.bits(parse_cards("As Kd 7h 2c RJ").astype(np.int64)[None, :])
    perms = permutations(np.random.default_rng(1), 60000)
    first = first_in_deck(perms, np.repeat(deck, 60000), 2)
    pairs = pd.Series(list(map(tuple, first))).value_counts()
    assert len(pairs) == 20 and (first >= 0).all()
    expected = 60000 / 20
    assert ((pairs - expected) ** 2 / expected).sum() < 45  # chi-square, 19 df: p ~ 0.001


def test_each_run_has_its_own_shuffles_and_a_sweep_shares_them(runs):
    """Runs number their deals alike: shuffles keyed by the deal alone would repeat in every run, and the luck of
    many runs pooled would have correlated Monte Carlo errors. Keyed by a hash of the run's seed and the deal, a
    run of another seed draws other shuffles, the variants of a sweep (one seed) the same ones, and no two
    (seed, deal) pairs share a stream (a seed sequence fed the two as words would: (None, 7) ~ (7, 0)). The
    folder's luck reads the seed from its manifest."""
    hands, _ = lh.load(runs[0])
    assert hands.seed == 3
    which = np.flatnonzero(hands.deal == hands.deal[0])[:3]
    samples = np.full(len(which), 64)
    mine, _ = luck_values.deal_shuffles(hands, which, samples)
    again, _ = luck_values.deal_shuffles(dataclasses.replace(hands), which, samples)
    other, _ = luck_values.deal_shuffles(dataclasses.replace(hands, seed=4), which, samples)
    assert (mine == again).all() and (mine != other).any(axis=1).all()
    from_folder = luck.folder_luck(runs[0]).sort_values(["game_id", "seat"])["luck"].to_numpy()
    direct = luck.game_luck(hands, luck.hand_events(hands)).sort_values(["game_id", "seat"])["luck"].to_numpy()
    assert np.allclose(from_folder, direct)
    unseeded = luck.game_luck(dataclasses.replace(hands, seed=None),
                              luck.hand_events(dataclasses.replace(hands, seed=None)))
    assert not np.allclose(unseeded.sort_values(["game_id", "seat"])["luck"].to_numpy(), direct)
    keys = [(3, 7), (4, 7), (3, 8), (None, 7), (7, 0), (5, 3 + 9 * 2**32), (5 + 3 * 2**32, 9)]
    entropies = {luck.shuffle_key(seed, deal).entropy for seed, deal in keys}
    assert len(entropies) == len(keys) and luck.shuffle_key(3, 7).entropy == luck.shuffle_key(3, 7).entropy


def test_pots_follow_the_engine():
    commit = np.array([[40, 25, 60, 5]])
    back = uncalled(commit)
    assert back.tolist() == [[0, 0, 20, 0]]
    amount, eligible = pots(commit - back, np.array([[True, True, True, False]]))
    assert amount[0].tolist() == [80, 30, 0, 0]
    assert eligible[0, 0].tolist() == [True, True, True, False] and eligible[0, 1].tolist() == [True, False, True,
                                                                                               False]


# ----- adjusted figures ------------------------------------------------------------------------------------------
def test_luck_sums_to_zero_per_event_and_is_centred_on_real_runs(runs):
    for path in runs:
        hands, _ = lh.load(path)
        events = luck.hand_events(hands, luck.Settings(min_pot=0))
        assert np.abs(events.luck.sum(axis=1)).max() < 1e-6
        assert set(np.unique(events.kind)) == set(range(len(luck.KINDS)))
        per_deal = pd.DataFrame({"deal": hands.deal[events.hand], "kind": events.kind,
                                 "luck": events.luck[np.arange(len(events.hand)), hands.order[events.hand, 0]]})
        sums = per_deal.groupby(["kind", "deal"])["luck"].sum().groupby("kind")
        z = sums.mean() / (sums.std() / np.sqrt(sums.count()))
        assert (z.abs() < 4).all(), z  # the first seat to act: 6 kinds, each |z| < 4


def test_the_coefficient_of_a_deal_never_depends_on_that_deal():
    rng = np.random.default_rng(2)
    deals = np.repeat(np.arange(60), 4)
    games = pd.DataFrame({"deal_id": deals, "entrant": "a", "luck": rng.normal(0, 10, len(deals))})
    games["net"] = 0.6 * games["luck"] + rng.normal(0, 5, len(deals))
    coef = luck.chip_values(games, [["entrant"]])
    assert 0.4 < coef.mean() < 0.8
    changed = games.copy()
    mine = changed["deal_id"] == 7
    changed.loc[mine, "net"] += 1000 * changed.loc[mine, "luck"]
    again = luck.chip_values(changed, [["entrant"]])
    assert again[mine.to_numpy()] == pytest.approx(coef[mine.to_numpy()])
    assert not np.allclose(again, coef)


def test_adjusted_games_keep_the_mean_and_name_their_columns(runs):
    games = luck.adjusted_games(runs[0])
    assert {"net_adjusted", "luck", "luck_coef", *luck.LUCK_COLUMNS} <= set(games.columns)
    per = games.groupby("deal_id")[["net", "net_adjusted"]].mean()
    diff = per["net"] - per["net_adjusted"]
    assert abs(diff.mean()) < 4 * diff.std() / np.sqrt(len(diff)) + 1e-9


# ----- in use ------------------------------------------------------------------------------------------------------
def test_the_run_summary_shows_luck_adjusted_net_and_says_so(runs):
    from treasure_sim.study.precision import stopping_width
    from treasure_sim.study.summary import run_summary
    from treasure_sim.study.summary_text import render

    adjusted, raw = run_summary(runs[0], replicates=20), run_summary(runs[0], replicates=20, net="raw")  # default first
    assert all(r.net_adjusted is not None for r in adjusted.rows) and all(r.net_adjusted is None for r in raw.rows)
    assert adjusted.half_widths("net") == {r.entrant: stopping_width(r.net_adjusted) for r in adjusted.rows}
    assert all(math.isinf(w) for w in adjusted.half_widths("net").values())  # 10 deals: too few to stop on
    flat = " ".join(render(adjusted).split())
    assert "net: luck-adjusted" in flat and "luck-adjusted" not in render(raw)
    # what is corrected, truthfully: events in pots of 8 chips or more; here the 4 chips of antes never reach it
    assert "chance events in pots of 8 chips or more" in flat and "same expected value as the raw net" in flat
    assert "here the hole cards and the New Treasure, dealt when the pot holds only the" in flat
    assert (runs[0] / luck.CACHE_FILE).exists()


def test_the_cache_is_reused_and_follows_the_settings(runs):
    first = luck.folder_luck(runs[1])
    assert luck.folder_luck(runs[1]).equals(first)
    other = luck.folder_luck(runs[1], luck.Settings(min_pot=100))
    assert not other["luck"].equals(first["luck"]) and luck.folder_luck(runs[1]).equals(first)


def test_the_batch_sizes_change_no_luck_and_no_cache_key(runs, monkeypatch):
    """Batches of hands (`Settings.chunk_hands`) and of value rows (`luck_values.MAX_ROWS`) bound memory only: the
    luck of every event is the same bit for bit in batches of one deal and 256 rows, so a cache written under another
    batch size is still valid."""
    for path in runs:
        hands, _ = lh.load(path)
        default = luck.hand_events(hands)
        monkeypatch.setattr(luck, "values", lambda *a, **k: luck_values.values(*a, **k, max_rows=256))
        small = luck.hand_events(hands, luck.Settings(chunk_hands=1))
        monkeypatch.undo()
        assert len(default.hand) > 1000 and set(np.unique(default.kind)) >= {2, 3, 4, 5, 6}
        assert luck.game_luck(hands, small).equals(luck.game_luck(hands, default))
    assert luck._settings_key(luck.Settings(chunk_hands=7)) == luck._settings_key(luck.Settings())
    assert luck._settings_key(luck.Settings(min_pot=9)) != luck._settings_key(luck.Settings())


def test_tables_name_their_estimator(runs):
    from treasure_sim.study import analysis

    adjusted, raw = analysis.load(runs[0]).games, analysis.load(runs[0], net="raw").games  # adjusted by default
    assert analysis.mean_net(adjusted).attrs["estimator"] == analysis.NET_ESTIMATOR["net_adjusted"]
    assert analysis.mean_net(raw).attrs["estimator"] == analysis.NET_ESTIMATOR["net"]
    pairs = analysis.head_to_head(adjusted)
    assert pairs.attrs["estimator"] == analysis.NET_ESTIMATOR["net_adjusted"]
    assert not np.allclose(pairs["net_diff"], analysis.head_to_head(raw)["net_diff"])


def test_a_redealt_board_comes_uniformly_from_the_deck_the_adjustment_reads(runs):
    """The exact null of `luck_validate.py null`: redealt cards never repeat a zone, hole, New Treasure or earlier
    shared card, leave the other cards alone, and are uniform over what is left (chi-square over many redeals)."""
    from treasure_sim.study import luck_checks

    hands, _ = lh.load(runs[0])
    for kind, (first, last) in luck_checks.BOARD.items():
        copy = luck_checks.redealt(hands, kind, np.random.default_rng(7))
        dealt = np.flatnonzero((hands.shared[:, last - 1] >= 0) & hands.deck_known)
        new = lh.bits(copy.shared[dealt, first:last])
        taken = lh.bits(hands.hole[dealt].reshape(len(dealt), -1)) | lh.bits(hands.new_treasure[dealt, None]) | \
            lh.bits(hands.shared[dealt, :first])
        assert (new & ~hands.deck0[dealt] == 0).all() and (new & taken == 0).all()
        assert np.bitwise_count(new).tolist() == [last - first] * len(dealt)
        others = np.r_[0:first, last:5]
        assert (copy.shared[:, others] == hands.shared[:, others]).all()
    i = int(np.flatnonzero((hands.shared[:, 4] >= 0) & hands.deck_known)[0])
    one = dataclasses.replace(hands, **{f.name: getattr(hands, f.name)[i:i + 1] for f in dataclasses.fields(hands)
                                        if isinstance(getattr(hands, f.name), np.ndarray)})
    rivers = np.array([luck_checks.redealt(one, "river", np.random.default_rng(r)).shared[0, 4] for r in range(3000)])
    counts = np.bincount(rivers, minlength=54)
    deck = one.deck0[0] & ~lh.bits(one.hole[0].reshape(1, -1))[0] & ~lh.bits(one.new_treasure[:1, None])[0] \
        & ~lh.bits(one.shared[:1, :4])[0]
    available = ((int(deck) >> np.arange(54)) & 1).astype(bool)
    assert counts[~available].sum() == 0 and available.sum() > 20
    left = counts[available]  # every card the river could have been, dealt or not
    expected = 3000 / len(left)
    assert ((left - expected) ** 2 / expected).sum() < len(left) + 4 * np.sqrt(2 * len(left))


def test_a_damaged_seats_part_leaves_its_games_out_and_a_folder_without_luck_makes_every_table_raw(runs, tmp_path):
    """With allow_damaged, games whose luck cannot be read intact are left out, never shown raw as if adjusted;
    without it the damage is named. Stacked with a folder written before the seats table, every folder is raw."""
    import shutil

    from results_helpers import write_results

    from treasure_sim.run.store import DamagedResults, read_games, read_hands, read_manifest
    from treasure_sim.study import analysis

    copy = tmp_path / "copy"
    shutil.copytree(runs[0], copy)
    (copy / luck.CACHE_FILE).unlink(missing_ok=True)
    part = read_manifest(copy).parts[0]
    seats_file = copy / "seats" / part.name
    seats_file.write_bytes(seats_file.read_bytes()[:-10])
    with pytest.raises(DamagedResults, match="seats/"):
        analysis.load(copy)
    games = analysis.load(copy, allow_damaged=True).games
    assert not games["deal_id"].between(part.first_deal, part.end_deal - 1).any() and len(games)
    assert analysis.mean_net(games).attrs["estimator"] == analysis.NET_ESTIMATOR["net_adjusted"]
    old = write_results(tmp_path / "old", read_games(runs[1]).to_pandas(), read_hands(runs[1]).to_pandas(),
                        seed=4)
    mixed = analysis.load([runs[0], old]).games
    assert "net_adjusted" not in mixed.columns and not mixed["net"].isna().any()
    assert analysis.mean_net(mixed).attrs["estimator"] == analysis.NET_ESTIMATOR["net"]


LUCK_IN_PROCESSES = """
import resource, sys, threading
from pathlib import Path
from treasure_sim.run.store import read_manifest
from treasure_sim.study import luck
path = Path(sys.argv[1])
parts = [p for p in read_manifest(path).parts if p.file("seats") is not None]
luck.PARALLEL_HANDS = 1
workers = luck._luck_workers(parts)
stop = threading.Event()
other = threading.Thread(target=stop.wait)
other.start()
with_thread = luck._luck_workers(parts)
stop.set()
other.join()
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
(path / luck.CACHE_FILE).unlink(missing_ok=True)
forked = luck.folder_luck(path)
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - children
luck.PARALLEL_HANDS = 10**9
few_hands = luck._luck_workers(parts)
(path / luck.CACHE_FILE).unlink(missing_ok=True)
here = luck.folder_luck(path)
print(len(parts), workers, with_thread, few_hands, forked.equals(here), len(here), children)
"""


def test_the_luck_computed_in_forked_processes_is_the_luck_computed_here(runs, tmp_path):
    """Big folders' luck is computed in a process per core (the luck of 1,500 games of random bots: 70 s to 36 s on 2
    cores), part by part: the same values as in one process, and the work is done by the children. It forks only
    where that is safe (no other thread) and worth it (enough hands). In a fresh interpreter: this test process has
    pytest's threads."""
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(runs[0], copy)
    proc = subprocess.run([sys.executable, "-c", LUCK_IN_PROCESSES, str(copy)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    parts, workers, with_thread, few_hands, same, rows, children = proc.stdout.split()
    cores = min(len(os.sched_getaffinity(0)), int(parts))
    assert int(parts) >= 2 and int(workers) == cores and with_thread == few_hands == "1"
    assert same == "True" and int(rows) > 0
    assert cores < 2 or float(children) > 0  # the children did the work


def test_a_damaged_part_is_named_at_once_and_left_out_only_when_allowed(runs, tmp_path, monkeypatch):
    """A part that cannot be read intact raises the store's `DamagedResults`, naming the problem as its read found it
    (not read a second time); with ``allow_damaged``, its deals are listed and left out."""
    import shutil

    from treasure_sim.run.store import DamagedResults

    copy = tmp_path / "run"
    shutil.copytree(runs[0], copy)
    (copy / luck.CACHE_FILE).unlink(missing_ok=True)
    real = luck._part_tables
    bad = sorted(p.name for p in luck.read_manifest(copy).parts)[1]

    def damaged_always(path, part):
        if part.name == bad:
            raise DamagedResults(path, [f"seats/{part.name}: changed since it was written"])
        return real(path, part)

    monkeypatch.setattr(luck, "_part_tables", damaged_always)
    with pytest.raises(DamagedResults, match=f"seats/{bad}: changed"):
        luck.folder_luck(copy)
    out = luck.folder_luck(copy, allow_damaged=True)
    assert len(out.attrs["damaged_deals"]) == 1 and len(out)
