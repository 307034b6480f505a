"""`treasure-sim replay`: a game played again from its seeds is the game recorded, its frames follow the records,
and the page shows them in a real browser (Chromium, driven by Selenium)."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from treasure_sim.cli import main
from treasure_sim.run.execute import run_experiment
from treasure_sim.run.experiment import parse_toml
from treasure_sim.run.replay import _check, replay_game, replay_games
from treasure_sim.run.store import ResultsError
from treasure_sim.study.replay import power_text, replay_frames, replay_html

CONFIG = """
name = "replayed"
seed = 11
deals = 6
table_size = 4
rotate = "cycle"
[[entrants]]
strategy = "treasure_hunter"
params = { rollouts = 3 }
[[entrants]]
strategy = "rock"
[[entrants]]
strategy = "maniac"
[[entrants]]
strategy = "random"
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "run"
    run_experiment(parse_toml(CONFIG), out, workers=1, progress=False)
    return out


def _tables(results: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return (pd.read_parquet(results / "games"), pd.read_parquet(results / "hands"),
            pd.read_parquet(results / "seats"))


def test_a_replay_is_the_game_recorded_with_or_without_the_decision_record(results):
    games, _, _ = _tables(results)
    for game in replay_games(results, range(6), decisions=True):
        rows = games[games["game_id"] == game.game_id].sort_values("seat")
        assert list(game.result.final_money) == rows["final_money"].tolist()
        assert game.result.hands_played == rows["hands_played"].iloc[0]
        assert game.entrants == tuple(rows["entrant"].astype(str))
        assert game.decisions is not None and game.decisions
        assert {d.kind for d in game.decisions} <= {"bet", "spades", "hearts", "joker_treasure", "make_room", "steal"}
        bets = [d for d in game.decisions if d.kind == "bet"]
        assert all(2 <= d.options <= 4 for d in bets)
        plain = replay_game(results, game.game_id)  # the recorder changes nothing
        assert plain.result.final_money == game.result.final_money and plain.decisions is None


def test_a_replay_that_differs_from_the_records_is_refused(results):
    game = replay_game(results, 0)
    money = [list(h.money_after) for h in game.result.hands]
    money[3][0] += 1
    with pytest.raises(ResultsError, match="replays differently from hand 4 on"):
        _check(results, 0, game.result, money, list(game.result.final_money))
    with pytest.raises(ResultsError, match="replays to"):
        _check(results, 0, game.result, money[:-1], list(game.result.final_money))


def test_the_frames_follow_the_records(results):
    _, _, seats = _tables(results)
    for game_id in range(6):
        game = replay_game(results, game_id)
        data = replay_frames(game.result, game.entrants, game.rules)
        frames = data["frames"]
        assert [h["no"] for h in data["hands"]] == list(range(1, game.result.hands_played + 1))
        for i, rec in enumerate(game.result.hands):
            own = [f for f in frames if f["h"] == i]
            ante = own[0]
            rows = seats[(seats["game_id"] == game_id) & (seats["hand_no"] == rec.hand_no)]
            for r in rows.itertuples():
                assert ante["money"][r.seat] == r.stack - r.put_in[0]
                assert sorted(ante["zones"][r.seat]) == sorted(r.treasures_before)
            assert ante["pot"] == sum(rec.antes)
            before_end = own[-2]["zones"]  # the zones as the frames moved the cards, before the record's are shown
            assert [sorted(z) for z in before_end] == [sorted(z) for z in rec.treasures_after]
            award = [f for f in own if f["kind"] == "award"]
            if not rec.void:
                assert award[0]["pot"] == rec.pot and award[0]["money"] == list(rec.money_after)
            assert own[-1]["money"] == list(rec.money_after)
            kinds = Counter(f["kind"] for f in own)
            assert kinds["steal"] == len(rec.steals)
            assert kinds["spades"] == sum(1 for c in rec.spades_moved if c)
            assert kinds["hearts"] == sum(1 for c in rec.drawn if c)
            assert kinds["bet"] == len(rec.actions)


def test_power_text_names_each_suits_power():
    from treasure_sim.game.rules import RuleSet

    rules = RuleSet()
    assert power_text("7c", rules) == "every 7 is wild for this seat"
    assert power_text("Th", rules) == "draw +1 card per 10 in hand or shared"
    assert power_text("Qd", rules) == "may steal a Treasure worth ≤ 12"
    assert power_text("Ad", RuleSet(ace_value=1)) == "may steal a Treasure worth ≤ 1"
    assert "step 11" in power_text("2s", rules)
    assert "off under these rules" in power_text("2c", RuleSet(clubs=False))


def test_the_page_is_self_contained(results):
    game = replay_game(results, 1)
    page = replay_html(game.result, game.entrants, game.rules, "a </script> title")
    assert "</script> title" not in page and "&lt;/script&gt; title" in page
    for remote in ("http://", "https://", "src=", "<link"):
        assert remote not in page


def test_cli_writes_a_page_and_refuses_bad_input_in_one_line(results, tmp_path, capsys):
    out = tmp_path / "g.html"
    assert main(["replay", str(results), "--game", "2", "--out", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert main(["replay", str(results), "--game", "2"]) == 0
    assert (results / "report" / "replays" / "game-2.html").is_file()
    capsys.readouterr()
    for argv, words in ((["replay", str(results), "--game", "77"], "holds no game 77 (game ids 0..5)"),
                        (["replay", str(tmp_path / "nothing"), "--game", "0"], "is not a results folder"),
                        (["replay", str(results), "--game", "-1"], "--game must be a game_id >= 0")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


# ----- in a real browser ----------------------------------------------------------------------------------------
def _driver():
    """Headless Chromium from the system's packages, or a skip saying what is missing (a failure in CI)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        webdriver = None
    if webdriver is None or not chromium or not chromedriver:
        missing = "selenium (pip install -e '.[dev]')" if webdriver is None else \
            "chromium and chromedriver (apt-get install chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser test, but {missing} is missing")
        pytest.skip(f"no browser to test the replay page in: {missing} is missing")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(chromedriver), options=options)


def test_the_page_in_a_browser_shows_the_records_step_by_step(results, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _, hands, seats = _tables(results)
    game_id = int(hands.groupby("game_id")["steals"].sum().idxmax())  # a game with powers in play
    page = tmp_path / "game.html"
    assert main(["replay", str(results), "--game", str(game_id), "--out", str(page)]) == 0
    game = replay_game(results, game_id)
    hands = hands[hands["game_id"] == game_id].set_index("hand_no")
    seats = seats[seats["game_id"] == game_id]
    driver = _driver()
    try:
        driver.get(page.as_uri())
        body = driver.find_element(By.TAG_NAME, "body")

        def text(css: str) -> str:
            return driver.find_element(By.CSS_SELECTOR, css).text

        def value(css: str) -> int:
            return int(driver.find_element(By.CSS_SELECTOR, css).get_attribute("data-value"))

        def kind() -> str:
            return driver.find_element(By.ID, "event").get_attribute("data-kind")

        def hand_no() -> int:
            return int(driver.find_element(By.ID, "where").get_attribute("data-hand"))

        def press(key: str, times: int = 1) -> None:
            for _ in range(times):
                body.send_keys(key)

        def check_hand_start(no: int) -> None:
            assert hand_no() == no and kind() == "ante"
            rows = seats[seats["hand_no"] == no]
            for r in rows.itertuples():
                assert value(f'.seat[data-seat="{r.seat}"] .money') == r.stack - r.put_in[0]
                zone = driver.find_element(By.CSS_SELECTOR, f'.seat[data-seat="{r.seat}"] .zone')
                assert sorted(zone.get_attribute("data-cards").split()) == sorted(r.treasures_before)
            assert value("#pot") == sum(r.put_in[0] for r in rows.itertuples())

        def check_award(no: int) -> None:
            while kind() != "award":
                press(Keys.ARROW_RIGHT)
            assert hand_no() == no
            assert value("#pot") == hands.loc[no, "pot"]
            for s, money in enumerate(hands.loc[no, "money_after"]):
                assert value(f'.seat[data-seat="{s}"] .money') == money

        check_hand_start(1)
        assert text("#board") == "none yet"
        powered = [h.hand_no for h in game.result.hands if h.steals or any(h.spades_moved) or any(h.drawn)]
        visits = sorted({2, powered[0], powered[-1], len(hands)})
        at = 1
        for no in visits:
            press("n", no - at)
            at = no
            check_hand_start(no)
            check_award(no)
            press(Keys.ARROW_LEFT)  # back one step, then on again: the same award
            assert kind() != "award"
            check_award(no)
            press("p")  # back to this hand's start
            check_hand_start(no)
        # hole cards: all shown, or as the table saw them (hidden until step 12, unshown hands for good)
        press("p", at - powered[0])
        assert not driver.find_elements(By.CSS_SELECTOR, ".hole .card.back")
        press(Keys.ARROW_RIGHT)
        driver.find_element(By.CSS_SELECTOR, "#view option[value='table']").click()
        assert driver.find_elements(By.CSS_SELECTOR, ".hole .card.back")
        driver.find_element(By.CSS_SELECTOR, "#view option[value='all']").click()
        check_award(powered[0])
        steals = game.result.hands[powered[0] - 1].steals
        if steals:
            while kind() != "steal":
                press(Keys.ARROW_RIGHT)
            assert f"steals {steals[0].card} from seat {steals[0].victim}" in text("#event")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        shot = Path(os.environ.get("TREASURE_REPLAY_SCREENSHOT", tmp_path / "replay.png"))
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()


# ----- the reports' sample games and game dynamics -----------------------------------------------------------
def test_the_run_report_links_replays_of_sample_games(results, tmp_path):
    from treasure_sim.design.replays import Replays
    from treasure_sim.study.dynamics_report import sample_games
    from treasure_sim.study.report import run_report

    games, _, _ = _tables(results)
    picked = sample_games(games)
    length = games.drop_duplicates("game_id").set_index("game_id")["hands_played"]
    median = length.median()
    assert abs(length[picked["median-length game"]] - median) == (length - median).abs().min()
    path = run_report(results, tmp_path / "with", replayer=Replays())
    text = path.read_text()
    assert "## Sample games" in text
    for game_id in picked.values():
        assert f"(replays/game-{game_id}.html)" in text
        assert (tmp_path / "with" / "replays" / f"game-{game_id}.html").is_file()
    without = run_report(results, tmp_path / "without").read_text()
    assert f"`treasure-sim replay {results} --game {picked['median-length game']}`" in without


def test_the_sweep_report_shows_game_dynamics_and_a_sample_game_per_variant(tmp_path, capsys):
    from treasure_sim.design.replays import Replays
    from treasure_sim.run.execute import run_sweep
    from treasure_sim.run.sweep import parse_sweep_toml
    from treasure_sim.study.report import run_report

    config = CONFIG.replace('name = "replayed"', 'name = "dyn"').replace("deals = 6", "deals = 8")
    sweep = parse_sweep_toml(config + '[[variants]]\nname = "base"\n[[variants]]\nname = "no-clubs"\n'
                             'rules = { clubs = false }\n')
    run_sweep(sweep, tmp_path / "sweep", workers=1, progress=False)
    text = run_report(tmp_path / "sweep", replayer=Replays()).read_text()
    section = text[text.index("## Game dynamics"):]
    for variant in ("base", "no-clubs"):
        row = next(line for line in section.splitlines() if line.startswith(f"| {variant} |"))
        assert f"(replays/{variant}-game-" in row and " [" in row
    assert "options per decision" in section and "share about Treasures" in section
    assert (tmp_path / "sweep" / "report" / "hazard_seat.png").is_file()
    assert (tmp_path / "sweep" / "report" / "hazard_entrant.png").is_file()
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "sweep"), "--game", "0"]) == 2
    assert "is a sweep folder: name one variant's results folder" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "sweep" / "base"), "--game", "0"]) == 0
