"""Restricted play (seeds/rulings.md, "Restricted play"; issue 13): a seat barred from a power never uses it, and
nothing else changes.

Stacked-deck scenarios with scripted bots, each with an exact outcome; a planted effect (the Clubs power decides
a pot); games where a restriction cannot matter are exactly the same games; invariants over random games.
"""

from __future__ import annotations

import pytest
from conftest import ScriptedBot, stacked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies.random_bot import RandomBot
from strategies.treasure_hunter import TreasureHunter
from treasure_sim import Game, RuleSet, play_game
from treasure_sim.game.cards import parse_card
from treasure_sim.game.strategy import POWERS


def ids(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def without_clock(result) -> dict:
    data = result.to_dict()
    data.pop("decision_time")
    return data


# ----- the argument --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("restrict", "message"), [
    ([0, "clubs"], "restrict must be a mapping"),
    ({2: {"clubs"}}, r"seat 2 is not a seat 0\.\.1"),
    ({-1: {"clubs"}}, "seat -1 is not a seat"),
    ({True: {"clubs"}}, "seat True is not a seat"),
    ({0: "clubs"}, r"restrict\[0\] must be a collection of power names"),
    ({0: 3}, r"restrict\[0\] must be a collection"),
    ({0: {"club"}}, r"restrict\[0\]: unknown power\(s\) 'club'; known: spades, clubs, hearts, diamonds, new_treasure"),
    ({1: ["hearts", None]}, r"restrict\[1\]: unknown power\(s\) None"),
])
def test_a_bad_restriction_is_refused_with_a_clear_error(restrict, message):
    with pytest.raises(ValueError, match=message):
        Game([ScriptedBot(), ScriptedBot()], restrict=restrict)


def test_the_restricted_seat_alone_is_told_what_it_may_not_use():
    players = [ScriptedBot(keep=True) for _ in range(3)]
    game = Game(players, restrict={1: ["new_treasure", "clubs"], 2: set()})
    game.play_hand()
    assert {o.restricted for o in players[1].seen} == {("clubs", "new_treasure")}  # in POWERS order
    assert {o.restricted for o in players[0].seen} == {()} == {o.restricted for o in players[2].seen}
    assert {o.phase for o in players[1].seen} >= {"bet", "keep_playing"}
    assert POWERS == ("spades", "clubs", "hearts", "diamonds", "new_treasure")


# ----- ♣ Clubs: a planted effect ------------------------------------------------------------------------------
CLUBS_HOLE = {0: "3s 7h", 1: "Ah Ad"}
CLUBS_BOARD = "7s Kc Qd 2h 4d"


def clubs_hand(restrict=None):
    """Seat 0 owns 7c: its two 7s make a straight only if its Clubs apply; seat 1 bets 20, seat 0 calls."""
    players = [ScriptedBot(["call"]), ScriptedBot(["raise 20"])]
    game = Game(players, treasures={0: "7c"}, deck=stacked(2, CLUBS_HOLE, new="8s", shared=CLUBS_BOARD),
                restrict=restrict)
    return game.play_hand(), players


def test_a_restricted_seats_clubs_make_nothing_wild_for_it_and_the_pot_changes_hands():
    free, _ = clubs_hand()
    barred, players = clubs_hand({0: {"clubs"}})
    assert free.winners == (0,) and free.payouts == (21, -21)
    assert barred.winners == (1,) and barred.payouts == (-21, 21)
    shown = {s.seat: s for s in barred.shown}
    assert shown[0].wild_ranks == 0 and shown[0].category == "one pair" and shown[0].wilds == ()
    assert all(o.wild_ranks == 0 for o in players[0].seen)  # the bot is not told a wild it does not have
    # the value of Clubs to seat 0 in this deal: the paired difference of its net, the whole pot of 42
    assert free.payouts[0] - barred.payouts[0] == 42


def test_restricting_clubs_for_a_seat_without_clubs_changes_nothing():
    free, _ = clubs_hand()
    other, _ = clubs_hand({1: {"clubs"}})
    assert other == free


# ----- ♠ Spades -----------------------------------------------------------------------------------------------
def test_a_restricted_seat_never_moves_a_spade():
    log: list = []
    players = [ScriptedBot(spades=["7s"], log=log), ScriptedBot(spades=["As"], log=log)]
    hole = {0: "2d 3d", 1: "4d 5d"}
    game = Game(players, treasures={0: "7s", 1: "As"}, deck=stacked(2, hole, new="Tc", shared="2c 7d 9h Js 4c"),
                restrict={1: {"spades"}})
    rec = game.play_hand()
    assert [s for s, m in log if m == "move_spades"] == [0]  # seat 1 (first in turn order) is never offered
    assert rec.spades_moved == (("7s",), ()) and game.treasures == ((), ("As",))
    assert {s.seat: s.cards for s in rec.shown} == {0: ("2d", "3d", "7s"), 1: ("4d", "5d")}


# ----- ♥ Hearts -----------------------------------------------------------------------------------------------
def test_a_restricted_seat_never_draws_with_hearts_and_the_next_seat_draws_its_cards():
    log: list = []
    players = [ScriptedBot(log=log), ScriptedBot(log=log)]
    hole = {0: "7s 2d", 1: "Kc 3d"}  # seat 1 owns Kh (owed 2), seat 0 owns 7h (owed 2, and a 7 chains)
    game = Game(players, treasures={0: "7h", 1: "Kh"}, restrict={1: {"hearts"}},
                deck=stacked(2, hole, new="8s", shared="7d Ks Qs 3h 9c", then="Jd 5c 7c 8d 4s 5s 6s"))
    rec = game.play_hand()
    assert rec.drawn == (("Jd", "5c"), ())  # unrestricted, seat 1 drew Jd 5c and seat 0 drew 7c 8d 4s
    assert [s for s, m in log if m == "draw_heart"] == [0, 0]


# ----- ♦ Diamonds ---------------------------------------------------------------------------------------------
def test_a_restricted_seat_never_steals_but_its_treasures_can_be_stolen():
    log: list = []
    players = [ScriptedBot(log=log), ScriptedBot(steals=[("Td", 0, "9c")], log=log),
               ScriptedBot(steals=[("Jd", 1, "Td")], log=log)]
    game = Game(players, treasures={0: "9c", 1: "Td", 2: "Jd"}, restrict={1: {"diamonds"}})
    rec = game.play_hand()
    assert [s for s, m in log if m == "steal"] == [2]  # seat 1 holds a Diamond and is never asked
    assert [(e.seat, e.diamond, e.victim, e.card) for e in rec.steals] == [(2, "Jd", 1, "Td")]
    assert game.treasures == (("9c",), (), ("Td",))


# ----- the New Treasure ---------------------------------------------------------------------------------------
HOLE3 = {0: "2c 3c", 1: "4d 5d", 2: "6h 8h"}


def folding_hand(restrict, new="Qh", scripts=None):
    """Dealer 0, turn order 1, 2, 0: seat 1 folds first, seat 2 folds last; seat 0 takes the pot."""
    scripts = scripts or {1: ["fold"], 2: ["fold"]}
    players = [ScriptedBot(scripts.get(s, ()), joker="4d" if s == 1 else None) for s in range(3)]
    game = Game(players, deck=stacked(3, HOLE3, new=new), restrict=restrict)
    return game, game.play_hand(), players


def test_a_restricted_last_folder_passes_the_new_treasure_to_the_one_who_folded_before_it():
    game, rec, _ = folding_hand({2: {"new_treasure"}})
    assert rec.last_folder == 2 and rec.treasure_passed_to == 1 and rec.treasure_taker == 1
    assert rec.treasure_taken == "Qh" and game.treasures == ((), ("Qh",), ())
    assert rec.to_dict()["treasure_passed_to"] == 1
    assert "14 seat 1 (last folder seat 2 may not take it) takes the New Treasure Qh" in str(rec)


def test_restricted_folders_are_skipped_and_with_none_left_it_goes_back_into_the_deck():
    game, rec, _ = folding_hand({1: {"new_treasure"}, 2: {"new_treasure"}})
    assert rec.last_folder == 2 and rec.treasure_taken is None and rec.treasure_taker is None
    assert game.treasures == ((), (), ()) and "Qh" in game.deck_cards
    assert "nobody takes the New Treasure Qh: it goes back into the deck" in str(rec)
    game, rec, _ = folding_hand({2: {"new_treasure"}}, scripts={2: ["fold"]})  # the only folder is barred
    assert rec.last_folder == 2 and rec.treasure_passed_to is None and game.treasures == ((), (), ())
    game, rec, _ = folding_hand({1: {"new_treasure"}})  # a barred earlier folder does not matter
    assert rec.treasure_taker == 2 and rec.treasure_passed_to is None and game.treasures == ((), (), ("Qh",))


def test_a_joker_new_treasure_passed_on_is_chosen_by_its_taker_from_its_own_cards():
    game, rec, players = folding_hand({2: {"new_treasure"}}, new="RJ")
    assert players[1].options == [tuple(ids("4d 5d"))]  # seat 1's own hole cards (no shared card was dealt)
    assert not any(m == "choose_joker_treasure" for m, _, _ in players[2].calls)
    assert rec.treasure_taken == "4d" and rec.treasure_taker == 1 and game.treasures == ((), ("4d",), ())
    assert "15 seat 1 (last folder seat 2 may not take it) puts 4d in their zone for the Joker Treasure" in str(rec)


def test_records_of_unrestricted_games_do_not_mention_restricted_play():
    _, rec, _ = folding_hand(None)
    assert rec.treasure_passed_to is None and rec.treasure_taker == 2
    assert "treasure_passed_to" not in rec.to_dict() and "given_up" not in rec.to_dict()


# ----- a restriction that cannot matter gives exactly the same game -------------------------------------------
def _lineup():
    return [RandomBot(), TreasureHunter(rollouts=8), RandomBot(stop_chance=0.05), TreasureHunter(rollouts=8)]


@pytest.mark.parametrize(("rules", "restrict"), [
    # no New Treasures and no Hearts in any zone: no Hearts can ever reach one (steals move zone cards only)
    (RuleSet(new_treasure=False, max_hands=40), {s: {"hearts"} for s in range(4)}),
    (RuleSet(new_treasure=False, max_hands=40), {1: {"hearts", "new_treasure"}}),
    (RuleSet(clubs=False, max_hands=40), {0: {"clubs"}, 3: {"clubs"}}),  # the power is off for everyone
    (RuleSet(diamonds=False, spades=False, max_hands=40), {2: {"diamonds", "spades"}}),
])
@pytest.mark.parametrize("seed", [1, 2])
def test_restricting_a_power_that_cannot_matter_gives_exactly_the_same_game(rules, restrict, seed):
    zones = {0: "9s Td 4c", 2: "Jd 8s", 3: "Kc"}
    free = play_game(_lineup(), rules, seed=seed, treasures=zones)
    barred = play_game(_lineup(), rules, seed=seed, treasures=zones, restrict=restrict)
    assert without_clock(barred) == without_clock(free)
    assert free.hands_played > 5


# ----- invariants over random games ---------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       restrict=st.dictionaries(st.integers(0, 5), st.sets(st.sampled_from(POWERS)), max_size=3),
       limit=st.sampled_from([0, 0, 2, 4]), at_limit=st.sampled_from(["refuse", "discard_oldest", "choose"]))
def test_a_restricted_seat_never_uses_a_barred_power(n, seed, restrict, limit, at_limit):
    restrict = {s: p for s, p in restrict.items() if s < n}
    rules = RuleSet(starting_money=30, max_hands=40, zone_limit=limit, at_limit=at_limit)
    game = Game([RandomBot() for _ in range(n)], rules, seed, restrict=restrict,
                treasures={0: "7c 9h Ts", 1 % n: "Jd 6s"} if n > 1 and not limit else None)
    while not game.over:
        rec = game.play_hand()
        for s, barred in restrict.items():
            if "spades" in barred:
                assert rec.spades_moved[s] == ()
            if "hearts" in barred:
                assert rec.drawn[s] == ()
            if "diamonds" in barred:
                assert all(e.seat != s for e in rec.steals)
            if "new_treasure" in barred:
                assert rec.treasure_taker != s
            if "clubs" in barred:
                assert all(sh.wild_ranks == 0 for sh in rec.shown if sh.seat == s)
        if rec.treasure_passed_to is not None:
            assert rec.last_folder in restrict and "new_treasure" in restrict[rec.last_folder]
    assert game.result().errors == ((),) * n


# ----- the built-in bots know what they may not use ------------------------------------------------------------
def test_the_treasure_hunter_gives_no_value_to_a_power_it_may_not_use():
    import numpy as np

    spy = ScriptedBot()
    game = Game([spy, ScriptedBot()], treasures={0: "7c 9h", 1: "5s"},
                deck=stacked(2, {0: "2c 3c", 1: "4d 5d"}, new="Kc"))
    game.play_hand()
    free = spy.bets[0]

    def hunter(obs):
        bot = TreasureHunter(rollouts=8)
        bot.setup(0, 2, obs.rules, np.random.default_rng(0))
        return bot

    assert hunter(free).treasure_stake(free) > 0
    barred = free._replace(restricted=("new_treasure",))
    assert hunter(barred).treasure_stake(barred) == 0.0  # folding last would hand it to a rival
    no_clubs = free._replace(restricted=("clubs",))
    valuer = hunter(no_clubs).valuer(no_clubs)
    assert valuer.value(parse_card("7c"), 0) == 0.0 and valuer.value(parse_card("7c"), 1) > 0
    assert hunter(free).valuer(free).value(parse_card("7c"), 0) > 0
