"""Scenarios for rulings §6: each suit's ability, and its switch, with stacked decks and scripted bots."""

from __future__ import annotations

import pytest
from conftest import ScriptedBot, stacked

from treasure_sim import Game, RuleSet, Steal
from treasure_sim.game.cards import parse_card, parse_cards, rank_mask
from treasure_sim.game.evaluator import evaluate

BOARD = "2c 7d 9h Js 4c"


def ids(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


# ----- ♣ Clubs ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("clubs", [True, False])
def test_a_club_makes_its_rank_wild_for_its_owner_only(clubs):
    # seat 0 owns 7c: the 7s in its hand and on the board are wild for it -> a wheel (A-2-3-4-5);
    # seat 1 also holds a 7 but no Club: its aces and sevens are two pair, which beats a pair of 7s
    hole = {0: "3s 7h", 1: "Ah Ad"}
    board = "7s Kc Qd 2h 4d"
    game = Game([ScriptedBot(), ScriptedBot()], RuleSet(clubs=clubs), treasures={0: "7c"},
                deck=stacked(2, hole, new="8s", shared=board))
    rec = game.play_hand()
    score = {s.seat: s.score for s in rec.shown}
    wild = rank_mask("7") if clubs else 0
    assert score[0] == evaluate(parse_cards(f"3s 7h {board}"), wild)[0]
    assert score[1] == evaluate(parse_cards(f"Ah Ad {board}"), 0)[0]
    assert rec.winners == ((0,) if clubs else (1,))
    shown0 = next(s for s in rec.shown if s.seat == 0)
    assert ("straight" in shown0.description) == clubs and bool(shown0.wilds) == clubs


# ----- ♥ Hearts ---------------------------------------------------------------------------------------------
HEARTS_HOLE = {0: "7s 2d", 1: "Kc 3d"}  # seat 1 (first in turn order) owns Kh, seat 0 owns 7h
HEARTS_BOARD = "7d Ks Qs 3h 9c"  # seat 1 is owed 2 (its Kc, the Ks), seat 0 is owed 2 (its 7s, the 7d)


def hearts_game(rules=None, draws=(None, None), then="Jd 5c 7c 8d 4s 5s 6s"):
    log: list = []
    players = [ScriptedBot(draws=draws[s], log=log) for s in range(2)]
    game = Game(players, rules or RuleSet(), treasures={0: "7h", 1: "Kh"},
                deck=stacked(2, HEARTS_HOLE, new="8s", shared=HEARTS_BOARD, then=then))
    return game, game.play_hand(), log


def test_hearts_draws_in_turn_order_and_chains():
    _game, rec, log = hearts_game()
    # seat 1 first: Kc and Ks match its Kh -> Jd, 5c. Then seat 0: 7s, 7d -> 7c (a 7: one more), 8d, 4s
    assert rec.drawn == (("7c", "8d", "4s"), ("Jd", "5c"))
    assert [s for s, m in log if m == "draw_heart"] == [1, 1, 0, 0, 0]
    assert next(s for s in rec.shown if s.seat == 0).cards == ("7s", "2d", "7c", "8d", "4s")


def test_hearts_chain_off_draws_only_the_first_count():
    _, rec, _ = hearts_game(RuleSet(hearts_chain=False))
    assert rec.drawn == (("7c", "8d"), ("Jd", "5c"))


def test_declining_a_hearts_draw_gives_up_the_rest():
    _, rec, log = hearts_game(draws=(1, 0))
    assert rec.drawn == (("Jd",), ())  # seat 1 declines at once; seat 0 takes one then declines
    assert [s for s, m in log if m == "draw_heart"] == [1, 0, 0]


def test_hands_are_revealed_at_the_start_of_step_12_and_hearts_decisions_see_them():
    # rulings §6 (added 2026-12-01): seat 2 folds; seats 1 (first) and 0 draw with Hearts, each seeing the
    # other's hand, Spades moved included, and every card drawn so far; a folded hand is never revealed
    log: list = []
    players = [ScriptedBot(log=log), ScriptedBot(spades=["As"], log=log), ScriptedBot(["fold"], log=log)]
    hole = {0: "7s 2d", 1: "Kc 3d", 2: "6h 6c"}
    game = Game(players, treasures={0: "7h", 1: "Kh As"},
                deck=stacked(3, hole, new="8s", shared=HEARTS_BOARD, then="Jd 5c 7c 8d 4s 5s"))
    rec = game.play_hand()
    assert rec.drawn == (("7c", "8d", "4s"), ("Jd", "5c"), ()) and rec.spades_moved[1] == ("As",)
    for bot in players:
        assert all(o.revealed == (None, None, None) for o in bot.seen if o.phase in ("bet", "spades"))
    seat1 = [o.revealed for o in players[1].seen if o.phase == "hearts"]
    assert seat1[0] == (tuple(ids("7s 2d")), tuple(ids("Kc 3d As")), None)
    assert seat1[1] == (tuple(ids("7s 2d")), tuple(ids("Kc 3d As Jd")), None)
    seat0 = [o.revealed for o in players[0].seen if o.phase == "hearts"]
    assert seat0[0] == (tuple(ids("7s 2d")), tuple(ids("Kc 3d As Jd 5c")), None)
    assert seat0[-1] == (tuple(ids("7s 2d 7c 8d")), tuple(ids("Kc 3d As Jd 5c")), None)
    assert all(o.revealed[o.seat] == o.hand for b in players for o in b.seen if o.phase == "hearts")
    assert players[0].seen[-1].phase == "keep_playing" and players[0].seen[-1].revealed == (None, None, None)


def test_nothing_is_revealed_when_all_but_one_fold():
    players = [ScriptedBot(["fold"]), ScriptedBot(steals=[("Td", 0, "9c")]), ScriptedBot(["fold"])]
    game = Game(players, treasures={0: "9c", 1: "Td"})
    game.play_hand()
    steal = next(o for o in players[1].seen if o.phase == "steal")
    assert steal.revealed == (None, None, None)


def test_jokers_never_match_a_hearts_treasure():
    _, rec, _ = hearts_game(then="Jd 5c RJ 7c 8d")
    assert rec.drawn == (("RJ", "7c", "8d"), ("Jd", "5c"))  # RJ is not a 7: no extra draw after 8d


def test_hearts_switch_off():
    _, rec, log = hearts_game(RuleSet(hearts=False))
    assert rec.drawn == ((), ()) and all(m != "draw_heart" for _, m in log)


# ----- ♠ Spades ---------------------------------------------------------------------------------------------
def test_spades_move_to_the_hand_and_go_back_into_the_deck():
    log: list = []
    players = [ScriptedBot(spades=["7s"], log=log), ScriptedBot(spades=["As"], log=log), ScriptedBot(["fold"], log=log)]
    hole = {0: "2d 3d", 1: "4d 5d", 2: "6d 8d"}
    game = Game(players, treasures={0: "7s 7h", 1: "As Ks", 2: "Qs"}, deck=stacked(3, hole, new="Tc", shared=BOARD,
                                                                                then="Jc Jh Th"))
    rec = game.play_hand()
    # turn order 1, 2, 0; seat 2 folded and is never asked
    assert [(s, m) for s, m in log if m == "move_spades"] == [(1, "move_spades"), (0, "move_spades")]
    assert rec.spades_moved == (("7s",), ("As",), ())
    assert game.treasures[0] == ("7h",) and game.treasures[1] == ("Ks",) and game.treasures[2] == ("Qs", "Tc")
    assert "7s" in game.deck_cards and "As" in game.deck_cards  # ordinary cards again, back in the deck
    shown = {s.seat: s.cards for s in rec.shown}
    assert shown[1] == ("4d", "5d", "As") and shown[0][:3] == ("2d", "3d", "7s")
    # the moved 7s counts for seat 0's 7h: 7s + 7d on the board = 2 Hearts draws
    assert rec.drawn[0] == ("Jc", "Jh")
    obs = next(o for o in players[0].seen if o.phase == "spades")
    assert obs.hand == tuple(ids("2d 3d")) and obs.my_treasures == tuple(ids("7s 7h"))


def test_a_bot_moves_only_its_own_spades():
    players = [ScriptedBot(spades=["7h"]), ScriptedBot(spades=["Ks"])]  # a Heart; another's Spade
    game = Game(players, treasures={0: "7s 7h", 1: "As"})
    rec = game.play_hand()
    assert rec.spades_moved == ((), ()) and game.treasures == (("7s", "7h"), ("As",))
    assert [s for s, _ in rec.errors] == [0, 1] and all("not distinct Spades Treasures" in e for _, e in rec.errors)


def test_spades_switch_off():
    players = [ScriptedBot(spades=["7s"]), ScriptedBot()]
    game = Game(players, RuleSet(spades=False), treasures={0: "7s"})
    game.play_hand()
    assert game.treasures[0] == ("7s",) and all(m != "move_spades" for m, _, _ in players[0].calls)


# ----- ♦ Diamonds -------------------------------------------------------------------------------------------
def steal_game(zones, steals, rules=None, money=None, n=3):
    log: list = []
    players = [ScriptedBot(steals=steals.get(s, ()), log=log) for s in range(n)]
    game = Game(players, rules or RuleSet(), treasures=zones, money=money)
    return game, game.play_hand(), players, log


def test_steal_options_are_cards_of_value_up_to_the_diamond_in_other_zones():
    zones = {1: "Td", 0: "9c Jh 2s", 2: "Ts"}
    game, rec, players, _ = steal_game(zones, {1: [("Td", 0, "2s")]})
    td, c9, s2, ts = ids("Td 9c 2s Ts")
    assert set(players[1].options[0]) == {Steal(td, 0, c9), Steal(td, 0, s2), Steal(td, 2, ts)}  # not the Jh
    assert game.treasures == (("9c", "Jh"), ("2s",), ("Ts",))
    assert rec.steals[0].seat == 1 and rec.steals[0].card == "2s" and "Td" in game.deck_cards


def test_steals_go_in_turn_order_and_only_with_diamonds_held_when_the_step_began():
    # dealer 0: order 1, 2, 0. Seat 1 takes seat 2's Qd with its Kd: seat 2 cannot use the Qd any more,
    # and seat 1 cannot use the Qd it just got.
    zones = {1: "Kd", 2: "Qd 5c", 0: "9c Jh"}
    game, rec, _players, log = steal_game(zones, {1: [("Kd", 2, "Qd"), ("Qd", 0, "9c")], 2: [("Qd", 0, "9c")]})
    assert [s for s, m in log if m == "steal"] == [1]  # asked once: after the steal it has no usable Diamond
    assert game.treasures == (("9c", "Jh"), ("Qd",), ("5c",)) and len(rec.steals) == 1


def test_an_earlier_seat_takes_a_contested_card_first():
    zones = {1: "Td", 2: "Jd", 0: "9c"}
    game, rec, players, _ = steal_game(zones, {1: [("Td", 0, "9c")], 2: [("Jd", 1, "9c")]})
    assert Steal(parse_card("Jd"), 0, parse_card("9c")) not in players[2].options[0]
    assert [(e.seat, e.victim, e.card) for e in rec.steals] == [(1, 0, "9c"), (2, 1, "9c")]
    assert game.treasures == ((), (), ("9c",))


def test_several_steals_in_one_turn():
    zones = {1: "Td 5d", 0: "9c 4h"}
    game, rec, _, _ = steal_game(zones, {1: [("Td", 0, "9c"), ("5d", 0, "4h")]})
    assert len(rec.steals) == 2 and game.treasures == ((), ("9c", "4h"), ())


@pytest.mark.parametrize(("ace", "expected"), [(14, {"Kc", "As", "2h"}), (1, {"As"})])
def test_ace_value_for_steals(ace, expected):
    _, _, players, _ = steal_game({1: "Ad", 0: "Kc As 2h"}, {}, RuleSet(ace_value=ace))
    assert {o.card for o in players[1].options[0]} == {parse_card(c) for c in expected}


def test_a_steal_may_take_from_a_player_out_of_the_game():
    game, rec, players, _ = steal_game({1: "Td", 2: "3c"}, {1: [("Td", 2, "3c")]}, money=[100, 100, 0])
    assert rec.in_hand[2] is False and game.treasures[1] == ("3c",) and game.treasures[2] == ()
    assert all(m == "on_hand_end" for m, _, _ in players[2].calls)  # and seat 2 never acted


def test_an_illegal_steal_is_refused():
    game, rec, _, _ = steal_game({1: "5d", 0: "9c"}, {1: [("5d", 0, "9c")]})  # 9 > 5: not an option at all
    assert game.treasures == (("9c",), ("5d",), ()) and rec.steals == ()


def test_diamonds_switch_off():
    _game, rec, players, _ = steal_game({1: "Td", 0: "9c"}, {1: [("Td", 0, "9c")]}, RuleSet(diamonds=False))
    assert rec.steals == () and players[1].options == []


def test_jokers_never_enter_a_zone_even_by_steals_or_choices():
    with pytest.raises(ValueError, match="Jokers never"):
        Game([ScriptedBot(), ScriptedBot()], treasures={0: "RJ"})
