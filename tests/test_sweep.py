"""Rule sweeps: config validation, every variant run, common random numbers, resume, refusal, the command."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from treasure_sim.bots.driver import Game
from treasure_sim.game.rules import RuleSet
from treasure_sim.run.execute import run_sweep
from treasure_sim.run.experiment import ConfigError, load_strategy
from treasure_sim.run.schedule import round_robin, seating
from treasure_sim.run.store import ResultsError, is_sweep_dir, read_manifest
from treasure_sim.run.sweep import default_sweep, parse_sweep_toml
from treasure_sim.run.tournament import game_seeds
from treasure_sim.study import analysis
from treasure_sim.study.sweep_report import run_sweep_report

BASE = """
name = "sw"
seed = 4
deals = 3
table_size = 3
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "calling_station"
[rules]
max_hands = 25
"""
VARIANTS = BASE + """
[[variants]]
name = "base"
[[variants]]
name = "no-clubs"
rules = { clubs = false }
[[variants]]
name = "no-jokers"
rules = { jokers = 0 }
"""


# ----- parsing ---------------------------------------------------------------------------------------------
def test_a_grid_is_every_combination_and_the_base_is_the_baseline():
    sweep = parse_sweep_toml(BASE + "[sweep]\njokers = [0, 2]\nclubs = [true, false]\ntable_size = [3, 5]\n")
    names = [v.name for v in sweep.variants]
    assert len(names) == 8 and names[0] == "jokers-0_clubs-true_table_size-3"
    assert sweep.baseline == "jokers-2_clubs-true_table_size-3"  # the variant that changes nothing
    exp = sweep.experiment(sweep.variant("jokers-0_clubs-false_table_size-5"))
    assert exp.name == "sw.jokers-0_clubs-false_table_size-5"
    assert (exp.rules.jokers, exp.rules.clubs, exp.rules.max_hands, exp.table_size) == (0, False, 25, 5)
    assert (exp.seed, exp.deals, exp.entrants) == (sweep.base.seed, 3, sweep.base.entrants)


def test_named_variants_and_an_explicit_baseline():
    sweep = parse_sweep_toml('baseline = "no-clubs"\n' + VARIANTS)
    assert [v.name for v in sweep.variants] == ["base", "no-clubs", "no-jokers"]
    assert sweep.baseline == "no-clubs"
    assert sweep.experiment(sweep.variant("no-jokers")).rules == RuleSet(jokers=0, max_hands=25)
    assert sweep.variant("base").describe() == "the base rules"
    assert parse_sweep_toml(VARIANTS).baseline == "base"


@pytest.mark.parametrize("extra, expected", [
    ("[sweep]\njokerz = [0, 1]\n", r"unknown axis 'jokerz' \(did you mean 'jokers'\?\); allowed: .*clubs.*table_size"),
    ("[sweep]\n", r"\[sweep\] is empty"),
    ("[sweep]\njokers = []\n", r"\[sweep\].jokers must be a non-empty array"),
    ("[sweep]\njokers = 1\n", r"\[sweep\].jokers must be a non-empty array"),
    ("[sweep]\njokers = [0, 0]\n", r"lists 0 more than once"),
    ("[sweep]\njokers = [0, 3]\n", r"variant 'jokers-3': RuleSet.jokers must be 0..2, got 3"),
    ("[sweep]\nbetting = ['no-limit', 'table-stakes']\n", r"variant 'betting-table-stakes': RuleSet.betting must be"),
    ("[[variants]]\nname = 'a'\nrules = { clubz = false }\n", r"variant 'a': unknown RuleSet field\(s\) clubz; known: "
                                                                r"jokers, .*diamonds"),
    ("[[variants]]\nname = 'a'\n[[variants]]\nname = 'a'\nrules = { clubs = false }\n",
     r"variant name 'a' is used 2 times"),
    ("[[variants]]\nname = 'a'\ntable_size = 11\n", r"variant 'a': table_size must be a whole number 2..10"),
    ("[[variants]]\nname = 'a b'\n", r"variant name must be a word"),
    ("[[variants]]\nname = 'a'\nseed = 3\n", r"variants\[0\]: unknown key 'seed'; allowed: name, rules, table_size"),
    ("baseline = 'nope'|[[variants]]\nname = 'a'\n", r"baseline 'nope' is not a variant; variants: a"),
    ("", r"no variants: give a grid"),
    ("variant = []|", r"unknown key 'variant' \(did you mean 'variants'\?\)"),
])
def test_bad_sweeps_are_named_errors(extra, expected):
    top, _, tail = extra.rpartition("|")  # top-level keys go before the tables of BASE
    text = f"{top}\n{BASE}{tail}"
    with pytest.raises(ConfigError, match=expected):
        parse_sweep_toml(text, "s.toml")


def test_the_embedded_default_sweep_has_the_bots_and_variants_a_designer_needs():
    sweep = default_sweep()
    strategies = {e.strategy for e in sweep.base.entrants}
    assert {"equity", "treasure_hunter", "random"} <= strategies
    assert len(sweep.variants) >= 6 and sweep.baseline == sweep.variants[0].name
    assert sweep.variants[0].changes() == {}
    assert any(v.table_size for v in sweep.variants)  # the table size is a variant too
    assert len({sweep.experiment(v).fingerprint() for v in sweep.variants}) == len(sweep.variants)


# ----- common random numbers ---------------------------------------------------------------------------------
def _first_hole_cards(exp, deal, rotation=0):
    """The first hand of a deal's game, built the way the tournament runner builds it."""
    tables = round_robin(len(exp.entrants), exp.table_size)
    seats = seating(tables[deal % len(tables)], rotation)
    bots = [load_strategy(exp.entrants[e].strategy, **exp.entrants[e].params) for e in seats]
    seeds = game_seeds(exp.seed, deal, rotation, len(seats))
    return Game(bots, exp.rules, None, deal_seed=seeds.cards, bot_seeds=seeds.bots, draw_seeds=seeds.draws,
                quintets=False).play_hand().hole


def test_every_variant_that_keeps_the_deck_deals_the_same_first_cards():
    sweep = parse_sweep_toml(VARIANTS)
    base, no_clubs, no_jokers = (sweep.experiment(v) for v in sweep.variants)
    for deal in range(5):
        assert _first_hole_cards(base, deal) == _first_hole_cards(no_clubs, deal)
    assert any(_first_hole_cards(base, d) != _first_hole_cards(no_jokers, d) for d in range(5))  # the check bites
    assert _first_hole_cards(base, 0) != _first_hole_cards(base, 1)


# ----- running -----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "sw"
    sweep = parse_sweep_toml(VARIANTS)
    return sweep, out, run_sweep(sweep, out, workers=1, progress=False)


def test_every_variant_is_a_normal_complete_run(swept):
    sweep, out, report = swept
    assert report.status == "complete" and is_sweep_dir(out)
    assert [name for name, _ in report.runs] == ["base", "no-clubs", "no-jokers"]
    manifest = read_manifest(out)
    assert manifest.status == "complete" and manifest.baseline == "base"
    assert [v.changes for v in manifest.variants] == [{}, {"clubs": False}, {"jokers": 0}]
    for v in manifest.variants:
        assert v.status == "complete" and v.games_done == v.games == 9
        res = analysis.load(out / v.dir)
        assert res.manifests[v.dir].name == f"sw.{v.name}"
        assert set(res.games["experiment"].astype(str)) == {f"sw.{v.name}"}
        assert res.games["game_id"].nunique() == 9 and res.games["deal_id"].nunique() == 3
        assert res.manifests[v.dir].rules == sweep.experiment(sweep.variant(v.name)).rules.to_dict()


def test_common_random_numbers_hold_in_the_results(swept):
    _, out, _ = swept
    first = {}
    for name in ("base", "no-clubs", "no-jokers"):
        hands = pd.read_parquet(out / name / "hands")
        first[name] = hands[hands["hand_no"] == 1].set_index("game_id")["new_treasure"].sort_index()
    assert first["base"].equals(first["no-clubs"])  # same deck order: the same New Treasure in hand 1
    assert not first["base"].equals(first["no-jokers"])


def test_a_rerun_resumes_and_more_deals_extend(swept):
    sweep, out, _ = swept
    again = run_sweep(sweep, out, workers=1, progress=False)
    assert again.status == "complete" and all(r.games_run == 0 for _, r in again.runs)
    more = run_sweep(sweep.replace(deals=4), out, workers=1, progress=False)
    assert all(r.games_run == 3 and r.games_done == 12 for _, r in more.runs)
    assert len(read_manifest(out).runs) == 3


def test_a_changed_sweep_is_refused_unless_overwrite(swept, tmp_path):
    sweep, out, _ = swept
    changed = parse_sweep_toml(VARIANTS.replace("rules = { clubs = false }", "rules = { hearts = false }"))
    with pytest.raises(ResultsError, match=r"holds a different sweep \(variants changed: no-clubs\); use --overwrite"):
        run_sweep(changed, out, workers=1, progress=False)
    with pytest.raises(ResultsError, match=r"different sweep \(base seed; variants changed: base, no-clubs"):
        run_sweep(sweep.replace(seed=99), out, workers=1, progress=False)
    fewer = parse_sweep_toml(BASE + "[[variants]]\nname = 'base'\n[[variants]]\nname = 'ante-2'\nrules = {ante = 2}\n")
    target = tmp_path / "copy"
    run_sweep(sweep.replace(deals=1), target, workers=1, progress=False)
    with pytest.raises(ResultsError, match="variants removed: no-clubs, no-jokers; variants added: ante-2"):
        run_sweep(fewer.replace(deals=1), target, workers=1, progress=False)
    run_sweep_report(target)
    assert {"report.md", "comparisons.csv"} <= {p.name for p in (target / "report").iterdir()}
    report = run_sweep(fewer.replace(deals=1), target, workers=1, progress=False, overwrite=True)
    assert not (target / "report").exists()  # the old sweep's page and every file it links went with its results
    assert report.status == "complete"
    assert not (target / "no-clubs" / "games").exists()  # the old sweep's results are gone, not mixed in
    assert [v.name for v in read_manifest(target).variants] == ["base", "ante-2"]


def test_a_single_run_folder_is_not_taken_over(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"experiment": "x"}))
    with pytest.raises(ResultsError, match="results of a single run, not a sweep"):
        run_sweep(parse_sweep_toml(VARIANTS), tmp_path, workers=1, progress=False)


def test_the_sweep_command(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(VARIANTS)
    from treasure_sim.cli import main

    assert main(["sweep", "s.toml", "--deals", "1", "--workers", "1", "--seed", "9"]) == 0
    out = capsys.readouterr().out
    assert "sw: 3 variants x 1 deal in results/sw" in out
    assert "base (baseline)" in out and "clubs = false" in out and "jokers = 0" in out
    assert "treasure-sim report results/sw" in out
    assert read_manifest(tmp_path / "results" / "sw").seed == 9
    assert main(["sweep", "s.toml", "--scheduler", "tcp://x:1"]) == 2
    assert "--scheduler needs --executor dask" in capsys.readouterr().err
