"""The results folder: schemas, documented columns, manifest, crash leftovers, refusing another config."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from treasure_sim import __version__
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.run.store import (
    GAMES_SCHEMA,
    HANDS_SCHEMA,
    SEATS_SCHEMA,
    ResultsDir,
    ResultsError,
    read_games,
    read_hands,
)

SMALL = """
name = "small"
seed = 3
deals = 4
table_size = 3
[[entrants]]
strategy = "random"
[[entrants]]
strategy = "random"
label = "careful"
params = { draw_chance = 0.1 }
[rules]
max_hands = 12
"""
DOC = Path(__file__).parents[1] / "docs" / "results-schema.md"


def doc_type(t: pa.DataType) -> str:
    """How docs/results-schema.md names an Arrow type."""
    if pa.types.is_dictionary(t):
        return f"dictionary<{t.value_type}>"
    if pa.types.is_list(t):
        return f"list<{t.value_type}>"
    return {"double": "float64", "float": "float32"}.get(str(t), str(t))


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("small") / "out"
    report = run_experiment(parse_toml(SMALL), out, workers=2, progress=False)
    return out, report


def test_tables_have_the_schemas(small_run):
    out, report = small_run
    games, hands = read_games(out), read_hands(out)
    assert games.schema.names == GAMES_SCHEMA.names and hands.schema.names == HANDS_SCHEMA.names
    for table, schema in ((games, GAMES_SCHEMA), (hands, HANDS_SCHEMA)):
        for f in schema:
            assert table.schema.field(f.name).type == f.type, f.name
    assert games.num_rows == report.games_done * 3


def test_game_rows_are_consistent(small_run):
    out, _ = small_run
    g = read_games(out).to_pandas()
    per_game = g.groupby("game_id")
    assert (per_game["win_share"].sum().round(9) == 1).all()
    assert (per_game["net"].sum() == 0).all()  # chips are conserved
    assert (per_game["rank"].min() == 1).all()
    assert set(g["entrant"].astype(str)) == {"random", "careful"}
    assert g.loc[g.entrant == "careful", "params"].astype(str).unique().tolist() == ['{"draw_chance":0.1}']
    suits = g[["treasures_spades", "treasures_clubs", "treasures_hearts", "treasures_diamonds"]].sum(axis=1)
    assert (suits == g["treasures"].str.split().str.len().fillna(0)).all()
    assert set(g["game_id"]) == {d * 3 + r for d in range(4) for r in range(3)}
    h = read_hands(out).to_pandas()
    last = h.sort_values("hand_no").groupby("game_id").tail(1).set_index("game_id")
    finals = g.pivot(index="game_id", columns="seat", values="final_money")
    assert all(list(last.at[gid, "money_after"]) == finals.loc[gid].tolist() for gid in finals.index)
    assert (h.groupby("game_id").size() == g.groupby("game_id")["hands_played"].first()).all()


def test_manifest(small_run):
    out, _ = small_run
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["games_done"] == m["games"] == 12
    assert m["package_version"] == __version__ and m["seed"] == 3
    assert m["rules"]["max_hands"] == 12 and len(m["rules"]) > 10  # the full RuleSet
    assert m["config"]["entrants"][1]["label"] == "careful"
    assert m["started"] and m["finished"] and m["runs"][0]["workers"] == 2


def test_every_column_is_documented():
    doc = DOC.read_text()
    for schema, section in ((GAMES_SCHEMA, "## games"), (HANDS_SCHEMA, "## hands"), (SEATS_SCHEMA, "## seats")):
        part = doc.split(section, 1)[1].split("\n## ", 1)[0]
        rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]+)` \|", part, flags=re.M))
        assert list(rows) == schema.names, section
        for f in schema:
            assert rows[f.name] == doc_type(f.type), f.name


def test_another_config_is_refused_unless_overwrite(tmp_path):
    out = tmp_path / "out"
    run_experiment(parse_toml(SMALL), out, workers=1, progress=False)
    changed = parse_toml(SMALL.replace("seed = 3", "seed = 4").replace("max_hands = 12", "max_hands = 11"))
    with pytest.raises(ResultsError, match=r"different config \(differs in: seed, rules.max_hands\).*--overwrite"):
        run_experiment(changed, out, workers=1, progress=False)
    assert json.loads((out / "manifest.json").read_text())["seed"] == 3  # untouched
    report = run_experiment(changed, out, workers=1, progress=False, overwrite=True)
    assert report.games_run == 12 and json.loads((out / "manifest.json").read_text())["seed"] == 4


def test_fewer_deals_than_on_disk_is_refused(small_run):
    out, _ = small_run
    with pytest.raises(ResultsError, match="already holds deals up to 4, more than the 2 asked"):
        run_experiment(parse_toml(SMALL).replace(deals=2), out, workers=1, progress=False)


def test_rerun_of_a_finished_run_plays_nothing(small_run):
    out, _ = small_run
    before = sorted(os.listdir(out / "games"))
    report = run_experiment(parse_toml(SMALL), out, workers=2, progress=False)
    assert report.games_run == 0 and report.games_done == 12 and sorted(os.listdir(out / "games")) == before


def test_crash_leftovers_are_dropped_and_rerun(tmp_path):
    out = tmp_path / "out"
    exp = parse_toml(SMALL)
    run_experiment(exp, out, workers=1, progress=False)
    games = sorted(os.listdir(out / "games"))
    os.remove(out / "games" / games[-1])  # as if killed between the hands part and the games part
    (out / "games" / ".part-x.parquet.tmp").write_bytes(b"half a file")
    assert pq.read_table(out / "games").num_rows < 12 * 3  # readers skip hidden temp files
    report = run_experiment(exp, out, workers=1, progress=False)
    assert report.games_run == 3 and not (out / "games" / ".part-x.parquet.tmp").exists()
    assert read_hands(out).num_rows == read_games(out).to_pandas().groupby("game_id")["hands_played"].first().sum()


def test_parts_without_manifest_are_refused(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "part-000000000-000000001.parquet").write_bytes(b"")
    with pytest.raises(ResultsError, match=r"no manifest\.json"):
        exp = parse_toml(SMALL)
        ResultsDir(tmp_path).prepare(exp.fingerprint(), exp.to_dict(), exp.deals, overwrite=False)


def test_a_second_run_into_the_same_folder_is_refused(tmp_path):
    with ResultsDir(tmp_path).locked(), pytest.raises(ResultsError, match=r"another run \(pid \d+\) is writing"), \
            ResultsDir(tmp_path).locked():
        pass


def test_finishing_order_refines_rank_by_elimination(small_run):
    out, _ = small_run
    g = read_games(out).to_pandas()
    ante = 1
    busted = g["eliminated_hand"].notna()
    assert (g.loc[busted, "final_money"] < ante).all() and (g.loc[~busted, "final_money"] >= ante).all()
    assert (g.loc[busted, "eliminated_hand"] <= g.loc[busted, "hands_played"]).all()
    for _, game in g.groupby("game_id"):
        for a in game.itertuples():
            for b in game.itertuples():
                if a.final_money > b.final_money:
                    assert a.finish < b.finish and a.rank < b.rank
                elif a.final_money == b.final_money:
                    later = (pd.isna(a.eliminated_hand) and not pd.isna(b.eliminated_hand)) or (
                        not pd.isna(a.eliminated_hand) and not pd.isna(b.eliminated_hand)
                        and a.eliminated_hand > b.eliminated_hand)
                    same = (pd.isna(a.eliminated_hand) and pd.isna(b.eliminated_hand)) or \
                        a.eliminated_hand == b.eliminated_hand
                    assert (a.finish < b.finish) if later else (a.finish == b.finish) if same else (a.finish > b.finish)


def test_finishing_order_examples():
    from treasure_sim.run.rows import finishing_order

    # two busted at 0: the later elimination finishes ahead; survivors by money; exact ties share a place
    assert finishing_order([0, 0, 150, 150, 0], [3, 9, None, None, 3]) == [4, 3, 1, 1, 4]
    assert finishing_order([5, 0], [None, None]) == [1, 2]


def test_seat_rows_add_up_to_their_hands(small_run):
    from treasure_sim.run.store import read_seats

    out, _ = small_run
    seats = read_seats(out).to_pandas()
    hands = read_hands(out).to_pandas().set_index(["game_id", "hand_no"])
    per = seats.groupby(["game_id", "hand_no"])
    assert (per.size() == hands["players_in_hand"]).all()
    assert (per["net"].sum() == 0).all()  # chips are conserved in every hand
    assert (per["won"].sum() == hands["pot"]).all()
    assert (per["showdown"].sum() == hands["players_at_showdown"]).all()
    assert (per["steals"].sum() == hands["steals"]).all()
    assert (per["stolen_from"].sum() <= hands["steals"]).all()  # a victim may be out of the game (no row)
    assert (per["hearts_drawn"].agg(lambda d: sum(map(len, d))) == hands["hearts_drawn"]).all()
    assert (per["last_folder"].sum() == hands["last_folder"].notna()).all()
    assert (~seats["pfr"] | seats["vpip"]).all()
    given_back = seats["won"] - seats["put_in"].map(sum)  # net differs from this only by an uncalled bet returned
    assert ((seats["net"] - given_back) >= 0).all() and ((seats["net"] - given_back) > 0).sum() <= len(hands)
    assert (seats["hole"].map(len) == 2).all() and seats.loc[~seats["showdown"], "folded_round"].notna().sum() > 0


@pytest.mark.parametrize("values", [["run"] * 3, ["run", "other", "run"], ["run", None], [None, None], []])
def test_a_dictionary_column_is_what_pyarrow_makes_of_it(values):
    from treasure_sim.run.rows import _array

    kind = pa.dictionary(pa.int32(), pa.string())
    made = _array(values, kind)
    assert made.type == kind and made.to_pylist() == values
    assert made.dictionary_decode().equals(pa.array(values, kind).dictionary_decode())
