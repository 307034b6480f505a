"""Scenarios for rulings §3 (the table), 4 (betting and pots) and 5 (the New Treasure): stacked decks,
scripted bots, and assertions that fail if the ruling is broken."""

from __future__ import annotations

import pytest
from conftest import ScriptedBot, stacked

from treasure_sim import Action, Game, RuleSet, Strategy
from treasure_sim.game.cards import parse_card

BOARD = "2c 7d 9h Js 4c"  # no straight or flush possible with the hole cards used below


def bots(n, scripts=None, **kw):
    scripts = scripts or {}
    return [ScriptedBot(scripts.get(s, ()), **kw) for s in range(n)]


# ----- rulings §3: the table ----------------------------------------------------------------------------
def test_deal_order_hole_cards_one_at_a_time_then_new_treasure_then_shared():
    hole = {0: "2c 3c", 1: "As Ks", 2: "Qh Jh"}
    deck = stacked(3, hole, dealer=0, new="7d", shared="4s 5s 6s 8s 9s")
    assert deck.split()[:6] == ["As", "Qh", "2c", "Ks", "Jh", "3c"]  # seats 1, 2, 0, twice
    game = Game(bots(3), deck=deck)
    assert game.deck_cards[:12] == tuple(deck.split())
    rec = game.play_hand()
    assert rec.hole == (("2c", "3c"), ("As", "Ks"), ("Qh", "Jh"))
    assert rec.new_treasure == "7d" and rec.shared == ("4s", "5s", "6s", "8s", "9s")


def test_deal_order_skips_players_out_and_starts_left_of_the_dealer():
    hole = {0: "2c 3c", 1: "As Ks", 3: "Qh Jh"}
    deck = stacked(4, hole, dealer=2, new="7d", out=[2])
    assert deck.split()[:6] == ["Qh", "2c", "As", "Jh", "3c", "Ks"]  # seats 3, 0, 1 (2 is out)
    rec = Game(bots(4), deck=deck, dealer=2, money=[100, 100, 0, 100]).play_hand()
    assert rec.hole == (("2c", "3c"), ("As", "Ks"), (), ("Qh", "Jh")) and rec.new_treasure == "7d"
    assert rec.in_hand == (True, True, False, True)


def test_button_moves_one_seat_each_hand_and_turn_order_starts_left_of_it():
    players = bots(4)
    game = Game(players, money=[100, 0, 100, 100])  # seat 1 is out: the button still visits it
    dealers, openers = [], []
    for _ in range(6):
        rec = game.play_hand()
        dealers.append(rec.dealer)
        openers.append([a.seat for a in rec.actions if a.round == 0][:3])
    assert dealers == [0, 1, 2, 3, 0, 1]
    assert openers == [[2, 3, 0], [2, 3, 0], [3, 0, 2], [0, 2, 3], [2, 3, 0], [2, 3, 0]]
    assert game.dealer == 2


def test_starting_money_and_antes():
    game = Game(bots(3), RuleSet(starting_money=50, ante=3))
    assert game.money == (50, 50, 50)
    rec = game.play_hand()
    assert rec.antes == (3, 3, 3) and sum(p.amount for p in rec.pots) == 9


def test_a_player_who_cannot_pay_the_full_ante_is_out_for_good():
    players = bots(3)
    game = Game(players, RuleSet(ante=5), money=[4, 100, 100], treasures={0: "9c"})
    for _ in range(3):
        rec = game.play_hand()
        assert rec.in_hand == (False, True, True) and rec.antes == (0, 5, 5) and rec.hole[0] == ()
    assert players[0].calls == [] and game.money[0] == 4
    assert game.treasures[0] == ("9c",)  # the zone stays on the table


def test_too_few_players():
    game = Game(bots(3), money=[0, 0, 10])
    assert game.over and game.end_reason == "too_few_players"
    result = game.play()
    assert result.hands_played == 0 and result.final_money == (0, 0, 10) and result.win_shares == (0, 0, 1)
    with pytest.raises(RuntimeError, match="over"):
        game.play_hand()


@pytest.mark.parametrize("n", [0, 1, 11])
def test_two_to_ten_players(n):
    with pytest.raises(ValueError, match="2 to 10"):
        Game(bots(n) if n else [])


@pytest.mark.parametrize(("kw", "match"), [
    (dict(deck="As Kd As"), "As appears twice"),
    (dict(deck="As RJ", rules=RuleSet(jokers=0)), "RJ is not in a deck"),
    (dict(deck="As", treasures={1: "As"}), "also in a Treasure Zone"),
    (dict(treasures={0: "BJ"}), "Jokers never enter a zone"),
    (dict(treasures={0: "7c", 1: "7c"}), "7c is in the zones of seats 0 and 1"),
    (dict(treasures={5: "7c"}), "not a seat"),
    (dict(money=[1, 2]), "money must be 3"),
    (dict(money=[1, -2, 3]), "money must be 3"),
    (dict(dealer=3), "dealer must be a seat"),
    (dict(rules={"ante": 2}), "rules must be a RuleSet"),
])
def test_scenario_arguments_are_checked(kw, match):
    with pytest.raises(ValueError, match=match):
        Game(bots(3), **kw)


# ----- rulings §4: betting ------------------------------------------------------------------------------
def test_folding_when_checking_is_free_is_legal_and_makes_you_last_folder():
    game = Game(bots(3, {1: ["fold"]}), deck=stacked(3, {0: "2c 3c", 1: "4d 5d", 2: "6h 8h"}, new="Kd"))
    rec = game.play_hand()
    seen = game.strategies[1].bets[0]
    assert seen.to_call == 0 and "fold" in seen.legal and "check" in seen.legal
    assert rec.errors == () and rec.folded == (False, True, False) and rec.last_folder == 1
    assert rec.treasure_taken == "Kd" and game.treasures[1] == ("Kd",)


def test_a_round_ends_when_everyone_has_acted_and_matched():
    players = bots(3, {1: ["raise 5"], 2: ["raise 12"]})
    rec = Game(players).play_hand()
    first = [(a.seat, a.kind, a.to) for a in rec.actions if a.round == 0]
    assert first == [(1, "raise", 5), (2, "raise", 12), (0, "call", 12), (1, "call", 12)]


def test_no_limit_min_raise_is_the_largest_bet_or_raise_so_far():
    players = bots(3, {1: ["raise 5", "call"], 2: ["raise 15", "call"], 0: ["raise 40"]})
    rec = Game(players).play_hand()
    assert rec.errors == ()
    assert players[0].bets[0].min_raise_to == 25  # 15 + the raise of 10
    assert players[1].bets[1].min_raise_to == 65  # 40 + the raise of 25
    assert players[2].bets[0].min_raise_to == 10 and players[2].bets[0].max_raise_to == 99


def test_a_raise_below_the_minimum_is_an_error_and_folds():
    players = bots(3, {1: ["raise 5"], 2: ["raise 9"]})
    rec = Game(players).play_hand()
    assert rec.folded[2] and [s for s, _ in rec.errors] == [2] and "outside 10..99" in rec.errors[0][1]


def test_all_in_for_less_than_a_min_raise_is_allowed():
    players = bots(3, {1: ["raise 10"], 2: ["raise 11"]})
    rec = Game(players, money=[100, 100, 12]).play_hand()
    obs = players[2].bets[0]
    assert (obs.to_call, obs.min_raise_to, obs.max_raise_to) == (10, 11, 11)
    short = next(a for a in rec.actions if a.seat == 2)
    assert rec.errors == () and short.kind == "raise" and short.to == 11 and short.all_in
    assert players[0].bets[0].min_raise_to == 21  # 11 + the largest raise, 10: the short one does not count


def test_no_raise_when_nobody_else_could_put_in_more():
    # seat 0 goes all in for 29; seat 1 could raise, but seat 2 has only 9 left: a raise could only come back
    players = bots(3, {0: ["raise 29"]})
    rec = Game(players, money=[30, 100, 10], dealer=2).play_hand()
    assert players[1].bets[0].legal == ("fold", "call") and players[1].bets[0].max_raise_to == 0
    assert rec.errors == ()


def test_pot_limit_maximum():
    players = bots(3, {1: ["raise 3"], 2: ["raise 12"], 0: ["raise 43"]})
    rec = Game(players, RuleSet(betting="pot-limit")).play_hand()
    assert players[1].bets[0].max_raise_to == 3  # the three antes
    assert players[2].bets[0].max_raise_to == 12  # 3 to call, then the pot of 9
    assert players[0].bets[0].max_raise_to == 42  # 12 to call: the pot 3 + 3 + 12 + 12 = 30 on top of 12
    assert rec.errors == ((0, "hand 1: act: raise to 43 is outside 21..42"),) and rec.folded[0]


class Raiser(Strategy):
    def act(self, obs):
        return Action.raise_to(obs.min_raise_to) if "raise" in obs.legal else Action.call()


def test_fixed_limit_bet_sizes_and_raise_cap():
    rules = RuleSet(betting="fixed-limit", small_bet=2, big_bet=5, raise_cap=4)
    rec = Game([Raiser() for _ in range(3)], rules).play_hand()
    assert rec.errors == ()
    for rnd, size in enumerate((2, 2, 5, 5)):
        raises = [a.to for a in rec.actions if a.round == rnd and a.kind == "raise"]
        assert raises == [size, 2 * size, 3 * size, 4 * size], rnd
        calls = [a for a in rec.actions if a.round == rnd and a.kind == "call"]
        assert len(calls) == 2 and all(a.to == 4 * size for a in calls)


def test_side_pots_with_three_all_ins_of_different_sizes():
    hole = {0: "As Ad", 1: "Ks Kd", 2: "Qs Qd", 3: "3s 5d"}
    players = bots(4, {0: ["raise 9"], 1: ["raise 19"], 2: ["raise 29"]})
    game = Game(players, money=[10, 20, 30, 100], dealer=3, deck=stacked(4, hole, dealer=3, new="8h", shared=BOARD))
    rec = game.play_hand()
    assert [(p.amount, p.eligible, p.winners) for p in rec.pots] == [
        (40, (0, 1, 2, 3), (0,)), (30, (1, 2, 3), (1,)), (20, (2, 3), (2,))]
    assert game.money == (40, 30, 20, 70) and rec.payouts == (30, 10, -10, -30) and rec.returned is None


def test_when_all_but_one_fold_the_last_player_takes_every_pot_even_those_it_did_not_cover():
    # rulings §4 (added 2026-12-01): seat 0 is all in for 10; seats 1 and 2 build a side pot of 40 and
    # then both fold: seat 0 takes the main pot and the side pot it could never have won at a showdown
    players = bots(3, {1: ["check", "raise 30", "fold"], 2: ["check", "call", "fold"], 0: ["raise 10"]})
    game = Game(players, money=[11, 100, 100], deck=stacked(3, {0: "2c 3d", 1: "As Ad", 2: "Ks Kd"}, new="8h"))
    rec = game.play_hand()
    assert rec.folded == (False, True, True) and rec.shown == () and rec.returned is None
    assert sum(p.amount for p in rec.pots) == 73 and all(p.winners == (0,) for p in rec.pots)
    assert game.money == (73, 69, 69) and rec.payouts == (62, -31, -31)
    assert rec.last_folder == 2 and game.treasures[2] == ("8h",)


def test_a_short_all_in_raise_reopens_the_betting_for_those_who_acted():
    # rulings §4: seat 1 bets 10, seat 2 goes all in for 11 (short of a full raise to 20), seat 0 calls;
    # seat 1 has acted, yet may raise again (casino rules, as in pokerkit, would not let it)
    players = bots(3, {1: ["raise 10", "raise 40"], 2: ["raise 11"], 0: ["call", "call"]})
    rec = Game(players, money=[100, 100, 12]).play_hand()
    again = players[1].bets[1]
    assert again.round == 0 and "raise" in again.legal and again.min_raise_to == 21
    first = [(a.seat, a.kind, a.to) for a in rec.actions if a.round == 0]
    assert first == [(1, "raise", 10), (2, "raise", 11), (0, "call", 11), (1, "raise", 40), (0, "call", 40)]
    assert rec.errors == ()


def test_a_short_all_in_raise_counts_towards_the_fixed_limit_raise_cap():
    # raise_cap 2: seat 1 bets 2, seat 2 raises all in to 3 (short of 4): the cap is reached, seat 0 may only
    # call, and seat 1, reopened, may call the extra chip but not raise
    rules = RuleSet(betting="fixed-limit", small_bet=2, raise_cap=2)
    players = bots(3, {1: ["raise 2"], 2: ["raise 3"]})
    rec = Game(players, rules, money=[100, 100, 4]).play_hand()
    assert players[0].bets[0].legal == ("fold", "call") and players[0].bets[0].to_call == 3
    assert players[1].bets[1].legal == ("fold", "call") and players[1].bets[1].to_call == 1
    assert [(a.seat, a.kind, a.to) for a in rec.actions if a.round == 0] == [
        (1, "raise", 2), (2, "raise", 3), (0, "call", 3), (1, "call", 3)]


def test_an_uncalled_bet_goes_back():
    rec = Game(bots(3, {1: ["raise 50"], 2: ["fold"], 0: ["fold"]})).play_hand()
    assert rec.returned == (1, 50) and rec.payouts == (-1, 2, -1)
    assert [p.amount for p in rec.pots] == [3]


def test_the_odd_chip_goes_to_the_first_winner_in_turn_order():
    # dealer 1: turn order 2, 0, 1; seat 0 folds; seats 2 and 1 play the royal flush on the board
    hole = {0: "2d 3d", 1: "4d 5d", 2: "6d 7d"}
    game = Game(bots(3, {0: ["fold"]}), dealer=1,
                deck=stacked(3, hole, dealer=1, new="8h", shared="As Ks Qs Js Ts"))
    rec = game.play_hand()
    assert rec.pots[0].amount == 3 and rec.pots[0].winners == (2, 1) and rec.pots[0].shares == (2, 1)
    assert rec.payouts == (-1, 0, 1) and "14 pot $3 split: seat 2 $2, seat 1 $1" in str(rec)


def test_ties_split_equally():
    hole = {0: "2d 3d", 1: "4d 5d", 2: "6d 7d"}
    players = bots(3, {1: ["raise 10"]})
    rec = Game(players, deck=stacked(3, hole, new="8h", shared="As Ks Qs Js Ts")).play_hand()
    assert rec.pots[0].amount == 33 and rec.pots[0].shares == (11, 11, 11) and rec.payouts == (0, 0, 0)


def test_an_all_fold_hand_skips_steps_11_to_13_but_does_14_to_16():
    log: list = []
    players = [ScriptedBot(s, spades=["As"], steals=[("Td", 2, "9c")], log=log)
               for s in (["fold"], ["raise 5"], ["fold"])]
    hole = {0: "2d 3d", 1: "7s 2h", 2: "6d 8d"}
    game = Game(players, treasures={1: "As 7h Td", 2: "9c"}, deck=stacked(3, hole, new="Kc", shared=BOARD))
    rec = game.play_hand()
    methods = {m for _, m in log}
    assert "move_spades" not in methods and "draw_heart" not in methods  # steps 11, 12 skipped
    assert rec.shown == () and rec.shared == () and rec.drawn == ((), (), ())
    assert rec.last_folder == 0 and game.treasures[0] == ("Kc",)  # step 14
    assert (1, "steal") in log and game.treasures == (("Kc",), ("As", "7h", "9c"), ())  # step 16
    assert rec.payouts == (-1, 2, -1) and rec.returned == (1, 5)


# ----- rulings §5: the New Treasure ---------------------------------------------------------------------
def test_the_last_folder_takes_the_new_treasure_not_the_pot_winner():
    hole = {0: "As Ad", 1: "2d 3d", 2: "6d 8d"}
    players = bots(3, {1: ["fold"], 2: ["check", "check", "fold"], 0: ["check", "raise 5"]})
    game = Game(players, deck=stacked(3, hole, new="Qh", shared=BOARD))
    rec = game.play_hand()
    assert [(a.seat, a.kind) for a in rec.actions if a.round == 1] == [(2, "check"), (0, "raise"), (2, "fold")]
    assert rec.new_treasure == "Qh" and rec.last_folder == 2 and rec.treasure_taken == "Qh"
    assert rec.winners == (0,) and game.treasures == ((), (), ("Qh",))


def test_the_new_treasure_is_visible_from_the_first_betting_round():
    players = bots(2)
    Game(players, deck=stacked(2, {0: "2d 3d", 1: "6d 8d"}, new="Qh")).play_hand()
    assert players[1].bets[0].round == 0 and players[1].bets[0].new_treasure == parse_card("Qh")


def test_nobody_folding_sends_the_new_treasure_back_into_the_deck():
    game = Game(bots(3), deck=stacked(3, {0: "2d 3d", 1: "4d 5d", 2: "6d 8d"}, new="Qh", shared=BOARD))
    rec = game.play_hand()
    assert rec.last_folder is None and rec.treasure_taken is None and game.treasures == ((), (), ())
    assert "Qh" in game.deck_cards and game.deck_size == 54


def test_a_joker_new_treasure_lets_the_last_folder_choose_a_hole_or_shared_card():
    hole = {0: "BJ 5c", 1: "2d 3d", 2: "6d 8d"}
    players = bots(3, {1: ["check", "raise 5"], 2: ["check", "fold"], 0: ["check", "fold"]}, joker="7d")
    game = Game(players, deck=stacked(3, hole, new="RJ", shared=BOARD))
    rec = game.play_hand()
    assert rec.shared == ("2c", "7d") and rec.last_folder == 0
    assert players[0].options == [tuple(parse_card(c) for c in ("5c", "2c", "7d"))]  # never the BJ
    assert rec.treasure_taken == "7d" and game.treasures == (("7d",), (), ())
    assert "RJ" in game.deck_cards and "BJ" in game.deck_cards
    assert "for the Joker Treasure" in str(rec)


def test_a_joker_new_treasure_is_discarded_in_the_discard_variant():
    players = bots(3, {1: ["fold"]})
    game = Game(players, RuleSet(joker_treasure="discard"), deck=stacked(3, {0: "2d 3d", 1: "4d 5d", 2: "6d 8d"},
                                                                        new="RJ"))
    rec = game.play_hand()
    assert rec.last_folder == 1 and rec.treasure_taken is None and game.treasures == ((), (), ())
    assert all(m != "choose_joker_treasure" for b in players for m, _, _ in b.calls)


def test_no_new_treasure_when_the_switch_is_off():
    rec = Game(bots(3, {1: ["fold"]}), RuleSet(new_treasure=False), deck="2d 4d 6d 3d 5d 8d Qh").play_hand()
    assert rec.new_treasure is None and rec.shared[:1] == ("Qh",) and rec.treasure_taken is None
