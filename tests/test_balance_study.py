"""Balance studies: entrant restrictions and endowments in configs, one game per deal, the arms of a study, the
causal estimators (validated on planted truths) and the designer's page end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treasure_sim.cli import main
from treasure_sim.run.execute import run_experiment, run_sweep
from treasure_sim.run.experiment import ConfigError, parse_experiment
from treasure_sim.run.store import read_games
from treasure_sim.run.studies import parse_balance
from treasure_sim.run.sweep import parse_sweep
from treasure_sim.study import causal
from treasure_sim.study.stats import entrant_share

FAST = [{"strategy": "random"}, {"strategy": "calling_station"}, {"strategy": "rock"}, {"strategy": "maniac"}]


def config(**changes):
    base = {"name": "t", "seed": 3, "deals": 6, "table_size": 4, "rotate": "cycle",
            "entrants": [dict(e) for e in FAST], "rules": {"max_hands": 30}}
    return base | changes


def games_of(path) -> pd.DataFrame:
    return read_games(path).to_pandas()


# ----- config ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("entrant", "message"), [
    ({"restrict": ["club"]}, "unknown power 'club' (did you mean 'clubs'?)"),
    ({"restrict": "clubs"}, "restrict must be an array of powers"),
    ({"treasures": ["Kx"]}, "treasures: "),
    ({"treasures": ["RJ"]}, "Jokers never enter a Treasure Zone"),
    ({"treasures": ["Kc", "kc"]}, "treasures lists Kc twice"),
])
def test_bad_restrictions_and_endowments_are_named(entrant, message):
    data = config()
    data["entrants"][1] |= entrant
    with pytest.raises(ConfigError, match="entrants\\[1\\]") as err:
        parse_experiment(data, check_strategies=False)
    assert message in str(err.value)


def test_a_card_promised_to_two_entrants_or_beyond_the_zone_limit_is_refused():
    data = config()
    data["entrants"][0]["treasures"] = ["Kc"]
    data["entrants"][2]["treasures"] = ["Kc"]
    with pytest.raises(ConfigError, match="Kc is a starting treasure of both 'random' and 'rock'"):
        parse_experiment(data, check_strategies=False)
    data = config(rules={"zone_limit": 1})
    data["entrants"][0]["treasures"] = ["Kc", "7h"]
    with pytest.raises(ConfigError, match="zone_limit = 1"):
        parse_experiment(data, check_strategies=False)


def test_rotate_takes_true_false_or_cycle_only():
    with pytest.raises(ConfigError, match=r'rotate must be true .* or "cycle"'):
        parse_experiment(config(rotate="yes"), check_strategies=False)
    assert parse_experiment(config(), check_strategies=False).games == 6


def test_restrictions_and_endowments_change_the_fingerprint_and_only_when_given():
    plain = parse_experiment(config(), check_strategies=False)
    data = config()
    data["entrants"][0] |= {"restrict": ["hearts", "clubs"], "treasures": ["7h"]}
    changed = parse_experiment(data, check_strategies=False)
    assert changed.entrants[0].restrict == ("clubs", "hearts")  # POWERS order
    assert changed.fingerprint() != plain.fingerprint()
    assert "restrict" not in plain.entrants[0].to_dict()


def test_a_variant_changing_an_unknown_entrant_is_named_with_the_labels():
    data = config() | {"variants": [{"name": "x", "entrants": {"rok": {"restrict": ["clubs"]}}}]}
    with pytest.raises(ConfigError, match=r"variant 'x': .*no entrant labelled 'rok' \(did you mean 'rock'\?\)"):
        parse_sweep(data, check_strategies=False)


def test_a_balance_config_expands_into_named_arms():
    data = config() | {"balance": {"powers": {"entrants": ["rock"], "powers": ["clubs", "hearts"]},
                                   "endowments": {"entrant": "random", "cards": ["As", "2c"], "deals": 3},
                                   "ladder": {"entrant": "maniac", "param": "all_in_chance", "values": [0.0, 0.5]}},
                       "variants": [{"name": "no-clubs", "rules": {"clubs": False}}]}
    study = parse_balance(data, check_strategies=False)
    names = [v.name for v in study.variants]
    assert names == ["base", "power.rock.clubs", "power.rock.hearts", "endow.random.As", "endow.random.2c",
                     "ladder.base.all_in_chance-0.0", "ladder.base.all_in_chance-0.5",
                     "ladder.no-clubs.all_in_chance-0.0", "ladder.no-clubs.all_in_chance-0.5"]
    assert study.baseline == "base"
    assert study.experiment(study.variant("endow.random.As")).deals == 3
    ladder = study.experiment(study.variant("ladder.no-clubs.all_in_chance-0.5"))
    assert ladder.rules.clubs is False and ladder.entrants[3].params == {"all_in_chance": 0.5}


@pytest.mark.parametrize(("balance", "message"), [
    ({}, "no studies"),
    ({"power": {}}, "unknown key 'power' \\(did you mean 'powers'\\?\\)"),
    ({"powers": {"entrants": ["equity"]}}, "'equity' is not an entrant's label"),
    ({"ladder": {"entrant": "maniac", "param": "all_in_chance", "values": [0.1]}}, "at least two settings"),
    ({"ladder": {"entrant": "maniac", "param": "nope", "values": [1, 2]}}, "maniac"),
    ({"endowments": {"entrant": "rock", "cards": ["Zz"]}}, r"\[balance.endowments\]: cards: .*Zz"),
    ({"endowments": {"entrant": "rock", "cards": ["As", "as"]}}, "variant name 'endow.rock.As' is used 2 times"),
])
def test_bad_balance_configs_are_named(balance, message):
    with pytest.raises(ConfigError, match=message):
        parse_balance(config() | {"balance": balance})


def test_an_entrant_already_changed_in_the_base_or_a_variant_named_base_is_refused():
    data = config() | {"balance": {"powers": {"entrants": ["rock"]}}}
    data["entrants"][2]["restrict"] = ["spades"]
    with pytest.raises(ConfigError, match="'rock' is already restricted or endowed in the base"):
        parse_balance(data, check_strategies=False)
    data = config() | {"balance": {"ladder": {"entrant": "maniac", "param": "all_in_chance", "values": [0.0, 0.1]}},
                       "variants": [{"name": "base", "rules": {"clubs": False}}]}
    with pytest.raises(ConfigError, match="may not be named 'base'"):
        parse_balance(data, check_strategies=False)


def test_endowment_cards_are_spelled_as_everywhere_and_params_must_be_a_table():
    data = config() | {"balance": {"endowments": {"entrant": "rock", "cards": ["as", "10h"]}}}
    assert [v.name for v in parse_balance(data, check_strategies=False).variants] == [
        "base", "endow.rock.As", "endow.rock.Th"]
    data = config() | {"variants": [{"name": "x", "entrants": {"rock": {"params": 3}}}]}
    with pytest.raises(ConfigError, match=r"entrants\.rock: params must be a table"):
        parse_sweep(data, check_strategies=False)


def test_a_command_entrant_survives_being_written_and_read_back():
    data = config()
    data["entrants"][0] = {"command": ["python3", "bot.py"]}
    exp = parse_experiment(data, check_strategies=False)
    assert exp.replace(deals=9).entrants[0].command == ("python3", "bot.py")


# ----- playing the arms --------------------------------------------------------------------------------------
def test_cycle_plays_each_deal_once_as_the_full_rotation_would_in_that_seat_order(tmp_path):
    cycle = parse_experiment(config(), check_strategies=False)
    full = parse_experiment(config(rotate=True), check_strategies=False)
    run_experiment(cycle, tmp_path / "cycle", workers=1, progress=False)
    run_experiment(full, tmp_path / "full", workers=1, progress=False)
    one, every = games_of(tmp_path / "cycle"), games_of(tmp_path / "full")
    assert len(one) == 6 * 4 and (one["rotation"] == one["deal_id"] % 4).all()
    chosen = every[every["rotation"] == every["deal_id"] % 4]
    cols = ["deal_id", "rotation", "seat", "entrant", "net", "hands_played", "treasures"]
    assert one[cols].sort_values(["deal_id", "seat"]).reset_index(drop=True).equals(
        chosen[cols].sort_values(["deal_id", "seat"]).reset_index(drop=True))


def test_a_restricted_entrant_never_gains_a_treasure_and_an_endowed_one_keeps_its_card(tmp_path):
    data = config(deals=8, rules={"max_hands": 40, "diamonds": False})  # no steals: nobody can take the card
    data["entrants"][0] |= {"restrict": ["new_treasure", "diamonds"]}
    data["entrants"][1] |= {"treasures": ["Kc"], "restrict": ["new_treasure"]}
    run_experiment(parse_experiment(data), tmp_path / "r", workers=1, progress=False)
    games = games_of(tmp_path / "r")
    assert (games.loc[games["entrant"] == "random", "treasures"] == "").all()
    assert (games.loc[games["entrant"] == "calling_station", "treasures"] == "Kc").all()


def test_a_power_that_cannot_matter_has_a_paired_value_of_exactly_zero(tmp_path):
    """Common random numbers: with Hearts off for everyone, barring a seat from Hearts plays identical games."""
    data = config(deals=8, rules={"max_hands": 40, "hearts": False}) | {
        "balance": {"powers": {"entrants": ["rock", "maniac"], "powers": ["hearts"]}}}
    run_sweep(parse_balance(data), tmp_path / "s", workers=1, progress=False)
    values = causal.power_values(causal.read_study(tmp_path / "s"))
    assert len(values) == 4 and (values["value"] == 0).all() and (values["deals"] == 8).all()
    assert (values["flag"] == "").all()


# ----- the estimators, on planted truths --------------------------------------------------------------------
def planted_study(effect: float, deals: int, rng: np.random.Generator) -> causal.Study:
    """Two arms on the same deals: the deal's luck is shared (as common random numbers make it), the arm adds
    ``effect`` chips to entrant A's net (and takes them from B), plus noise of its own."""
    luck = rng.normal(0, 40, deals)
    frames = {}
    for arm, shift in (("base", 0.0), ("power.A.clubs", -effect)):
        net = luck + shift + rng.normal(0, 15, deals)
        rows = []
        for d in range(deals):
            rows += [{"deal_id": d, "game_id": d, "seat": 0, "entrant": "A", "net": net[d],
                      "finish": 1 if net[d] > 0 else 2, "n_players": 2},
                     {"deal_id": d, "game_id": d, "seat": 1, "entrant": "B", "net": -net[d],
                      "finish": 2 if net[d] > 0 else 1, "n_players": 2}]
        frames[arm] = pd.DataFrame(rows)
    manifest = type("M", (), {"baseline": "base"})()
    arms = (causal.Arm("base", "base", "base"), causal.Arm("power.A.clubs", "x", "power", "A", "clubs"))
    return causal.Study(None, manifest, arms, frames)  # type: ignore[arg-type]


def test_the_paired_power_value_covers_a_planted_effect_and_finds_its_sign():
    rng = np.random.default_rng(1)
    hits, found = 0, 0
    for _ in range(300):
        row = causal.power_values(planted_study(10.0, 60, rng)).set_index("metric").loc["net"]
        hits += row["low"] <= 10.0 <= row["high"]
        found += row["flag"] == "▲"
    assert 0.92 <= hits / 300 <= 0.98  # 95% intervals: binomial SD 1.3%
    assert found / 300 > 0.85  # 10 chips against paired noise of SD 21 over 60 deals (SE 2.7): power ~ 0.95


def test_no_planted_effect_is_flagged_about_five_percent_of_the_time():
    rng = np.random.default_rng(2)
    flags = sum(causal.power_values(planted_study(0.0, 40, rng)).set_index("metric").loc["net", "flag"] != ""
                for _ in range(400))
    assert flags / 400 < 0.085


def test_the_entrant_share_covers_a_planted_share_of_skill():
    rng = np.random.default_rng(3)
    mu = np.array([30.0, 10.0, -10.0, -30.0])  # variance of the means: 500
    noise_sd = 60.0  # zero-sum deal noise: each entrant's variance 3600 * 3 / 4 = 2700
    truth = 500 / (500 + noise_sd ** 2 * 3 / 4)
    hits = 0
    for _ in range(150):
        e = rng.normal(0, noise_sd, (150, 4))
        y = mu + e - e.mean(axis=1, keepdims=True)
        iv = entrant_share(y, replicates=300, seed=int(rng.integers(1 << 30)))
        hits += iv.low <= truth <= iv.high
    assert 0.89 <= hits / 150 <= 0.99
    assert entrant_share(rng.normal(0, 1, (2000, 4)), replicates=50).mean == pytest.approx(0, abs=0.01)


def test_skill_depth_counts_the_rungs_that_are_planted_apart():
    rng = np.random.default_rng(4)
    deals = 300
    luck = rng.normal(0, 1, deals)

    def rung(level: float) -> pd.DataFrame:
        score = luck + level + rng.normal(0, 0.5, deals)
        return pd.DataFrame({"deal_id": np.arange(deals).repeat(2), "game_id": np.arange(deals).repeat(2),
                             "seat": np.tile([0, 1], deals), "entrant": np.tile(["L", "F"], deals),
                             "net": np.column_stack([score, -score]).ravel(),
                             "finish": np.column_stack([np.where(score > 0, 1, 2), np.where(score > 0, 2, 1)]).ravel(),
                             "n_players": 2})
    levels = {"1": 0.0, "2": 1.0, "3": 2.0, "4": 2.0}  # two real steps, then a rung no better than the last
    frames = {f"ladder.base.k-{k}": rung(v) for k, v in levels.items()} | {"base": rung(0.0)}
    arms = (causal.Arm("base", "base", "base"),
            *(causal.Arm(f"ladder.base.k-{k}", "x", "ladder", "L", k, "base", "k") for k in levels))
    study = causal.Study(None, type("M", (), {"baseline": "base"})(), arms, frames)  # type: ignore[arg-type]
    rungs, depth = causal.ladder(study)
    assert depth.loc[0, "depth"] == 3 and depth.loc[0, "chain"] == "1 < 2 < 3"
    assert list(rungs["rung"]) == [1, 2, 3, 4]


# ----- end to end ------------------------------------------------------------------------------------------
def test_the_balance_command_plays_every_arm_and_writes_the_designers_page(tmp_path, capsys):
    path = tmp_path / "study.toml"
    path.write_text("""
name = "tiny"
seed = 1
deals = 4
table_size = 4
rotate = "cycle"
rules = { max_hands = 25 }
[[entrants]]
strategy = "rock"
[[entrants]]
strategy = "calling_station"
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "maniac"
[balance.powers]
entrants = ["rock"]
powers = ["clubs", "new_treasure"]
[balance.endowments]
entrant = "calling_station"
cards = ["As", "Kc", "2h", "7d"]
[balance.ladder]
entrant = "maniac"
param = "all_in_chance"
values = [0.0, 0.2]
[[variants]]
name = "no-jokers"
rules = { jokers = 0 }
""")
    out = tmp_path / "out"
    assert main(["balance", str(path), "--out", str(out), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    page = (out / "report" / "designer.md").read_text()
    headings = [line for line in page.splitlines() if line.startswith("## ")]
    assert headings[0] == "## Verdict"  # first, then the questions in order
    assert [h.split(".")[0] for h in headings[1:7]] == ["## 1", "## 2", "## 3", "## 4", "## 5", "## 6"]
    verdict = page.split("## Verdict")[1].split("## 1.")[0]
    for line in (out / "report" / "verdict.txt").read_text().splitlines():  # the terminal prints the page's lines
        assert f"  {line}" in printed and f"- {line}" in verdict
    assert "Rule variant no-jokers: " in verdict and "hands a game" in verdict and "Skill depth of `maniac`" in verdict
    assert "**Error rate of the whole page:** it holds 14 families of tests" in verdict  # 1+1+2+2+2+2x3 (two ladders)
    assert "at most 14 × 5% = 70% (a union bound)" in verdict
    assert "to that bot, played its way, in this field" in page and "**to that bot, as it plays it" in page
    section4 = page.split("## 4.")[1].split("## 5.")[0]
    assert section4.index("**Per suit**") < section4.index("![") < section4.index("**Every card**")
    assert "| ♠ Spades | 1 | " in section4 and "| `As` | " in section4
    for figure in ("designer_powers.png", "designer_endowments.png", "designer_ladder.png"):
        assert (out / "report" / figure).stat().st_size > 1000
    assert "| no-jokers |" in page and "| power barred | rock: net | rock: strength |" in page
    base_row = next(line for line in page.splitlines() if line.startswith("| the study's rules (base arm) |"))
    games = read_games(out / "base").to_pandas().drop_duplicates("game_id")
    capped = (games["end_reason"] == "hand_limit").mean()
    assert 0 < capped < 1 and f"| {1 - capped:.3f} [" in base_row  # the share that ended by themselves
    assert main(["balance", str(path), "--out", str(out), "--workers", "1", "--no-report"]) == 0
    assert "played in" in capsys.readouterr().out  # resumed: nothing left to play, the folder intact
    assert main(["report", str(out)]) == 0


@pytest.mark.parametrize(("name", "changes", "expected"), [
    ("base", {}, ("base", "", "", "")),
    ("no-clubs", {"clubs": False}, ("other", "", "", "")),
    ("bar", {"entrants": {"eq": {"restrict": ["clubs", "hearts"]}}}, ("power", "eq", "clubs+hearts", "")),
    ("gift", {"entrants": {"eq": {"treasures": ["As"]}}, "deals": 5}, ("endowment", "eq", "As", "")),
    ("ladder.no-clubs.rollouts-300", {"clubs": False, "entrants": {"eq": {"params": {"rollouts": 300}}}},
     ("ladder", "eq", "300", "no-clubs")),
    ("ladder.v.1.5.k-0.5", {"entrants": {"eq": {"params": {"k": 0.5}}}}, ("ladder", "eq", "0.5", "v.1.5")),
    ("hand-written", {"jokers": 0, "entrants": {"eq": {"params": {"k": 2}}}}, ("ladder", "eq", "2", '{"jokers": 0}')),
    ("two", {"entrants": {"a": {"restrict": ["clubs"]}, "b": {"restrict": ["clubs"]}}}, ("other", "", "", "")),
])
def test_arms_are_read_from_what_they_change(name, changes, expected):
    from treasure_sim.run.store import VariantEntry

    arm = causal.classify(VariantEntry(name, name, changes, f"x.{name}", "f", 1))
    assert (arm.kind, arm.entrant, arm.what, arm.group) == expected


def test_a_ladder_rung_that_is_the_base_is_not_played_again_and_one_bar_counts_every_arm(tmp_path, monkeypatch,
                                                                                         capsys):
    """The rung whose settings are the base's plays the base's games: its arm points at the base's folder
    (the games of a deal do not depend on the arm's name), and one progress bar runs over all the arms."""
    from treasure_sim.run import execute

    study = parse_balance(config(entrants=[{"strategy": "maniac", "params": {"all_in_chance": 0.2}},
                                           *FAST[:3]],
                                 balance={"ladder": {"entrant": "maniac", "param": "all_in_chance",
                                                     "values": [0.0, 0.2], "deals": 4}}))
    assert study.same_games() == {"ladder.base.all_in_chance-0.2": "base"}
    bars = []
    real = execute.Progress

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            bars.append(self)

    monkeypatch.setattr(execute, "Progress", Counting)
    out = tmp_path / "s"
    report = run_sweep(study, out, workers=1, progress=False)
    assert report.status == "complete"
    assert len(bars) == 1 and bars[0].total == (6 + 4) and bars[0].done == bars[0].total  # base 6, one rung 4
    assert not (out / "ladder.base.all_in_chance-0.2").exists()
    on_disk = causal.read_study(out)
    rung = next(a for a in on_disk.arms if a.name == "ladder.base.all_in_chance-0.2")
    assert rung.dir == "base" and rung.deals == 4
    base = on_disk.games(on_disk.base)
    assert on_disk.games(rung).equals(base[base["deal_id"] < 4].reset_index(drop=True))
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert capsys.readouterr().out.count(": ok,") == 2  # base and the other rung, each checked once
    # the games are the same as those of the rung played on its own
    alone = run_experiment(study.experiment(study.variant("ladder.base.all_in_chance-0.2")), tmp_path / "alone",
                           workers=1, progress=False)
    keep = ["game_id", "deal_id", "seat", "entrant", "final_money", "hands_played", "end_reason"]
    assert games_of(alone.out)[keep].sort_values(["game_id", "seat"]).reset_index(drop=True).equals(
        on_disk.games(rung).merge(games_of(out / "base")[["game_id", "seat", "final_money"]],
                                  on=["game_id", "seat"])[keep].sort_values(["game_id", "seat"])
        .reset_index(drop=True))


# ----- the designer's page: what a value means, the ceiling, the heat map -------------------------------------
def test_a_significantly_negative_power_is_labelled_by_whether_the_bot_could_decline_it():
    from treasure_sim.study import designer, designer_figures

    values = pd.DataFrame([
        {"arm": "a", "entrant": "hunter", "what": "spades", "metric": "net", "value": -5.4, "low": -10.0,
         "high": -0.7, "flag": "▼"},
        {"arm": "b", "entrant": "hunter", "what": "clubs", "metric": "net", "value": -3.0, "low": -5.0,
         "high": -1.0, "flag": "▼"},
        {"arm": "c", "entrant": "hunter", "what": "new_treasure", "metric": "net", "value": 94.0, "low": 80.0,
         "high": 108.0, "flag": "▲"},
        {"arm": "d", "entrant": "hunter", "what": "hearts", "metric": "net", "value": -9.0, "low": -30.0,
         "high": 12.0, "flag": ""}])
    reading = "\n".join(designer.power_reading(values))
    assert "spades: −5.4" not in reading and "spades: -5.4 [-10.0, -0.7]" in reading
    assert "the studied bot's misplay (`hunter` as it plays), not a cost of the power" in \
        reading.split("spades")[1].split("\n")[0]
    assert "cannot be declined" in reading.split("clubs")[1].split("\n")[0]
    assert "worth +94.0 [+80.0, +108.0] net (chips) to this bot in this field" in reading
    assert "hearts" not in reading  # not significant: no claim either way
    labels = [designer_figures._power_label(r["entrant"], r["what"], r["value"], r["flag"])
              for r in values.to_dict("records")]
    assert labels == ["hunter: spades (misplayed)", "hunter: clubs (costs it)", "hunter: new_treasure",
                      "hunter: hearts"]


REFERENCE_CONFIG = {"table_size": 4, "rules": {}, "entrants": [
    {"label": "search", "strategy": "search", "params": {"iterations": 50}},
    {"label": "deep", "strategy": "search", "params": {}}, {"label": "equity", "strategy": "equity", "params": {}},
    {"label": "calling_station", "strategy": "calling_station", "params": {}}]}


def test_values_are_named_as_the_reference_players_at_the_budget_its_params_give():
    from treasure_sim.cli.options import strategy_defaults
    from treasure_sim.study import designer

    assert designer.whose(REFERENCE_CONFIG, "search") == "the reference player at budget 50"
    assert designer.whose(REFERENCE_CONFIG, "equity") == "`equity`"  # any other bot: its label
    # no budget in its params: the constructor's default, read through the loader (never a number written here)
    default = strategy_defaults("search")["iterations"]
    assert designer.whose(REFERENCE_CONFIG, "deep", strategy_defaults) == f"the reference player at budget {default}"
    assert designer.whose(REFERENCE_CONFIG, "deep", lambda spec: {"iterations": 7}) == \
        "the reference player at budget 7"
    assert designer.whose(REFERENCE_CONFIG, "deep") == "the reference player (`deep`) at its default budget"
    assert designer.field_text(REFERENCE_CONFIG, "search") == (
        "against `deep`, `equity`, `calling_station`, 4 seats, rules: the defaults (the card's rules)")


def test_the_reference_players_power_values_say_whose_they_are_and_label_its_misplays():
    from treasure_sim.study import designer, designer_figures

    who = {"search": designer.whose(REFERENCE_CONFIG, "search")}
    values = pd.DataFrame([
        {"arm": "a", "entrant": "search", "what": "spades", "metric": "net", "value": -6.0, "low": -9.0,
         "high": -3.0, "flag": "▼"},
        {"arm": "b", "entrant": "search", "what": "new_treasure", "metric": "net", "value": 90.0, "low": 80.0,
         "high": 100.0, "flag": "▲"},
        {"arm": "c", "entrant": "search", "what": "hearts", "metric": "net", "value": -4.0, "low": -7.9,
         "high": -0.1, "flag": ""},  # below 0 over its interval, not after the adjustment
        {"arm": "d", "entrant": "search", "what": "clubs", "metric": "net", "value": -4.0, "low": -7.9,
         "high": -0.1, "flag": ""},  # the same, for a power it cannot decline: no claim
        {"arm": "e", "entrant": "search", "what": "diamonds", "metric": "net", "value": -1.0, "low": -5.0,
         "high": 3.0, "flag": ""}])
    lines = designer.power_reading(values, who)
    spades, treasure, hearts = lines
    assert "worth +90.0 [+80.0, +100.0] net (chips) to the reference player at budget 50 in this field" in treasure
    assert spades.startswith("- `search`, spades: -6.0 [-9.0, -3.0]")
    assert "the studied bot's misplay (`search`, the reference player at budget 50, as it plays)" in spades
    assert "possible misplay" in hearts and "hearts" in hearts
    labels = [designer_figures._power_label(r["entrant"], r["what"], r["value"], r["flag"], r["high"])
              for r in values.to_dict("records")]
    assert labels == ["search: spades (misplayed)", "search: new_treasure", "search: hearts (misplayed?)",
                      "search: clubs", "search: diamonds"]
    fig = designer.plot_power_values(values.assign(metric="net").pipe(
        lambda v: pd.concat([v, v.assign(metric="strength")], ignore_index=True)), who)
    fig.canvas.draw()
    legend = fig.legends[0]
    assert legend.get_title().get_text().startswith(
        "What each power is worth to the reference player at budget 50 in this field")
    assert "search (the reference player at budget 50)" in [t.get_text() for t in legend.get_texts()]
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "search: spades (misplayed)" in ticks and "search: hearts (misplayed?)" in ticks


def test_the_verdict_says_whether_every_power_the_reference_player_can_decline_is_worth_at_least_zero():
    from treasure_sim.study import designer

    def values(hearts_high: float) -> pd.DataFrame:
        rows = [("spades", 1.0, -2.0, 4.0), ("hearts", -4.0, -8.0, hearts_high), ("diamonds", 3.0, 1.0, 5.0),
                ("clubs", -6.0, -9.0, -3.0)]  # clubs cannot be declined: never on this line
        return pd.DataFrame([{"entrant": e, "what": w, "metric": m, "value": v, "low": lo, "high": hi, "flag": ""}
                             for e in ("search", "equity") for w, v, lo, hi in rows for m in causal.METRICS])

    who = {"search": "the reference player at budget 50", "equity": "`equity`"}
    ok, = designer.declinable_lines(values(0.5), who)  # only the reference player gets the line
    assert ok.startswith("Every power the reference player at budget 50 can decline is worth at least 0 to it "
                         "within its interval") and "hearts −4.0 [−8.0, +0.5]" in ok and "clubs" not in ok
    bad, = designer.declinable_lines(values(-0.5), who)
    assert bad.startswith("Not every power the reference player at budget 50 can decline is worth at least 0")
    assert "hearts −4.0 [−8.0, −0.5] net; hearts " in bad and "the reference player's misplays" in bad
    assert "spades" not in bad and "clubs" not in bad
    assert designer.declinable_lines(values(-0.5), {"equity": "`equity`"}) == []


def test_the_designers_page_of_a_reference_study_names_the_reference_player_and_its_budget(tmp_path, capsys):
    """The search player studied at its default budget (no params): the page reads the budget through the loader."""
    from treasure_sim.cli.options import strategy_defaults

    path = tmp_path / "reference.toml"
    path.write_text("""
name = "ref"
seed = 2
deals = 3
table_size = 4
rotate = "cycle"
rules = { max_hands = 8 }
[[entrants]]
strategy = "search"
[[entrants]]
strategy = "rock"
[[entrants]]
strategy = "calling_station"
[[entrants]]
strategy = "maniac"
[balance.powers]
entrants = ["search"]
powers = ["spades"]
[balance.endowments]
entrant = "search"
cards = ["Ac"]
""")
    out = tmp_path / "out"
    assert main(["balance", str(path), "--out", str(out), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    page = (out / "report" / "designer.md").read_text()
    budget = f"the reference player at budget {strategy_defaults('search')['iterations']}"
    assert (f"**Whose values these are:** `search`: values to {budget} in this field (against `rock`, "
            "`calling_station`, `maniac`, 4 seats, rules: max_hands = 8)") in page
    section3 = page.split("## 3.")[1].split("## 4.")[0]
    assert f"- `search`: values to {budget} in this field" in section3
    section4 = page.split("## 4.")[1].split("## 5.")[0]
    assert f"to {budget} in this field" in section4
    assert f"Powers, worth most (values to the studied bot in this field): to {budget} (`search`) " in printed
    assert f"Starting Treasures for {budget} (`search`), per suit" in printed
    assert f"power {budget} can decline is worth at least 0 to it within its interval" in printed


def test_the_strength_ceiling_is_flagged_and_net_still_counts_the_rungs():
    """A climber that beats two opponents in every game and the third in none has strength 2/3 at every rung:
    depth by strength is 1 and every rung is at the ceiling, while net, which rises, tells the rungs apart."""
    rng = np.random.default_rng(5)
    deals = 120

    def rung(level: float) -> pd.DataFrame:
        gain = level + rng.normal(0, 5, deals)
        rows = []
        for d in range(deals):  # finish: top beats everyone, then L, then the two weak ones
            for seat, (who, finish, net) in enumerate((("top", 1, 100.0), ("L", 2, gain[d]), ("w1", 3, -50.0),
                                                       ("w2", 4, -50.0 - gain[d]))):
                rows.append({"deal_id": d, "game_id": d, "seat": seat, "entrant": who, "net": net, "finish": finish,
                             "n_players": 4})
        return pd.DataFrame(rows)

    levels = {"1": 0.0, "2": 10.0, "3": 20.0}
    frames = {f"ladder.base.k-{k}": rung(v) for k, v in levels.items()} | {"base": rung(0.0)}
    arms = (causal.Arm("base", "base", "base"),
            *(causal.Arm(f"ladder.base.k-{k}", "x", "ladder", "L", k, "base", "k") for k in levels))
    study = causal.Study(None, type("M", (), {"baseline": "base"})(), arms, frames)  # type: ignore[arg-type]
    rungs, depth = causal.ladder(study)
    assert rungs["strength"].tolist() == pytest.approx([2 / 3] * 3) and rungs["ceiling"].all()
    row = depth.iloc[0]
    assert (row["depth"], row["depth_net"], row["depth_h2h"], row["opponent"]) == (1, 3, 1, "top")
    assert row["ceiling"] == "1, 2, 3"
    assert rungs["h2h"].tolist() == [0.0, 0.0, 0.0]


def test_the_heat_map_tells_studied_cells_from_unstudied_and_emphasises_only_significant_ones():
    from matplotlib.patches import Rectangle

    from treasure_sim.study import designer

    rows = []
    for card, value, flag in (("Kc", 15.0, "▲"), ("2c", 0.1, ""), ("As", -14.0, "")):
        for metric in causal.METRICS:
            rows.append({"arm": card, "entrant": "hunter", "what": card, "metric": metric, "value": value,
                         "low": value - 5, "high": value + 5, "p": 0.01, "deals": 30, "flag": flag})
    values = pd.DataFrame(rows).assign(rank=lambda v: v["what"].str[0], suit=lambda v: v["what"].str[1])
    suits = pd.DataFrame([{"suit": s, "metric": m, "cards": 1, "value": 1.0, "low": -1.0, "high": 3.0, "flag": ""}
                          for s in "sc" for m in causal.METRICS])
    fig = designer.plot_heat_map(values, "net", suits)
    fig.canvas.draw()
    grid = next(ax for ax in fig.axes if ax.get_title().startswith("each card"))
    cells = [p for p in grid.patches if isinstance(p, Rectangle)]
    assert len(cells) == 52
    hatched = [p for p in cells if p.get_hatch()]
    assert len(hatched) == 49 and all(p.get_facecolor()[:3] == pytest.approx((0.93,) * 3) for p in hatched)
    studied = [p for p in cells if not p.get_hatch()]
    framed = [p for p in studied if p.get_linewidth() >= 2]
    assert len(framed) == 1 and framed[0].get_alpha() == 1.0  # Kc, the one significant cell
    assert all(p.get_alpha() < 1 for p in studied if p not in framed)  # faded, the near-zero 2c included
    texts = {t.get_text(): t for t in grid.texts}
    assert set(texts) == {"+15.0▲", "+0.1", "-14.0"} and texts["+15.0▲"].get_fontweight() == "bold"
    assert texts["-14.0"].get_fontweight() == "normal"
    lead = [ax for ax in fig.axes if ax.get_title().startswith("per suit")]
    assert lead and lead[0].get_position().x0 < grid.get_position().x0  # the suits lead, on the left
