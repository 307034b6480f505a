"""rulings §7: the end of a hand and of the game (deck runs out, all stop, too few players, hand limit, winners)."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import ScriptedBot, stacked

from treasure_sim import Game, RuleSet
from treasure_sim.game.cards import format_card

NO_JOKERS = RuleSet(jokers=0)


def rest_of_deck(*used: str) -> str:
    """Every natural card not named in ``used`` (to fill a zone and leave a tiny deck)."""
    taken = set(" ".join(used).split())
    return " ".join(format_card(c) for c in range(52) if format_card(c) not in taken)


def test_step_17_returns_every_card_outside_the_zones_and_shuffles():
    game = Game([ScriptedBot(["fold"]), ScriptedBot()], deck=stacked(2, {0: "2d 3d", 1: "4d 5d"}, new="Qh"))
    top = game.deck_cards[:5]
    game.play_hand()
    everything = game.deck_cards + game.treasures[0] + game.treasures[1]
    assert Counter(everything) == Counter(format_card(c) for c in range(54))
    assert game.deck_size == 53 and game.deck_cards[:5] != top


def test_deck_runs_out_while_dealing_the_hand_is_void():
    # 3 players, no Jokers: 6 hole cards + New Treasure + 2 shared = 9 cards in the deck, the rest in a zone.
    # Two betting rounds happen; the next shared card cannot be dealt: every chip goes back.
    hole = {0: "2c 3c", 1: "4d 5d", 2: "6h 8h"}
    deck = stacked(3, hole, new="Kd", shared="9s Ts")
    players = [ScriptedBot(["fold"]), ScriptedBot(["raise 10", "raise 20"]), ScriptedBot(["call", "call"])]
    zone = rest_of_deck(deck)
    game = Game(players, NO_JOKERS, deck=deck, treasures={2: zone})
    rec = game.play_hand()
    assert rec.void and rec.shared == ("9s", "Ts") and len([a for a in rec.actions if a.kind == "raise"]) == 2
    assert game.money == (100, 100, 100) and rec.payouts == (0, 0, 0)  # antes too
    assert rec.pots == () and rec.treasure_taken is None and rec.shown == ()  # nothing else happens
    assert game.treasures == ((), (), tuple(zone.split())) and rec.last_folder == 0
    assert game.over and game.end_reason == "deck_empty" and game.result().end_reason == "deck_empty"
    assert "the hand is void" in str(rec)


def test_a_void_hand_records_the_shared_cards_dealt_before_the_deck_ran_out():
    # one card is left when two shared cards are due: it is dealt, then the deck is empty
    hole = {0: "2c 3c", 1: "4d 5d", 2: "6h 8h"}
    deck = stacked(3, hole, new="Kd", shared="9s Ts Js")
    game = Game([ScriptedBot() for _ in range(3)], NO_JOKERS, deck=deck, treasures={2: rest_of_deck(deck)})
    rec = game.play_hand()
    assert rec.void and rec.shared == ("9s", "Ts", "Js") and game.money == (100, 100, 100)


def test_deck_runs_out_while_dealing_hole_cards():
    deck = "2c 3c 4d 5d"  # 3 players need 6
    game = Game([ScriptedBot() for _ in range(3)], NO_JOKERS, deck=deck, treasures={0: rest_of_deck(deck)})
    rec = game.play_hand()
    assert rec.void and rec.actions == () and game.money == (100, 100, 100) and game.end_reason == "deck_empty"


def test_deck_runs_out_during_hearts_draws_the_hand_finishes_then_the_game_ends():
    # seats 0, 1 play (seat 2 is out and holds the rest of the cards); seat 0's 7h is owed 3 draws
    hole = {0: "7s 7d", 1: "2s 3d"}
    deck = stacked(3, hole, new="8c", shared="7c Ks Qs Js 4h", then="9d", out=[2])
    zones = {0: "7h", 1: "Kd", 2: rest_of_deck(deck, "7h Kd")}
    players = [ScriptedBot(), ScriptedBot(steals=[("Kd", 0, "7h")]), ScriptedBot()]
    game = Game(players, NO_JOKERS, deck=deck, treasures=zones, money=[100, 100, 0])
    assert game.deck_size == 11
    rec = game.play_hand()
    assert rec.deck_ran_out and not rec.void and rec.drawn[0] == ("9d",)
    draws = [c for c in players[0].calls if c[0] == "draw_heart"]
    assert len(draws) == 2  # asked for the second card too: it wanted it, and the deck was empty
    assert rec.winners == (0,) and rec.payouts[:2] == (1, -1)  # step 14 happened
    assert [(e.seat, e.card) for e in rec.steals] == [(1, "7h")]  # step 16 happened
    assert game.over and game.end_reason == "deck_empty"
    assert "the deck ran out during Hearts draws" in str(rec)


def test_declining_the_draw_from_an_empty_deck_does_not_end_the_game():
    hole = {0: "7s 7d", 1: "2s 3d"}
    deck = stacked(3, hole, new="8c", shared="7c Ks Qs Js 4h", then="9d", out=[2])
    zones = {0: "7h", 1: "Kd", 2: rest_of_deck(deck, "7h Kd")}
    game = Game([ScriptedBot(draws=1), ScriptedBot(), ScriptedBot()], NO_JOKERS, deck=deck, treasures=zones,
                money=[100, 100, 0])
    rec = game.play_hand()
    assert rec.drawn[0] == ("9d",) and not rec.deck_ran_out and not game.over


def test_all_players_stopping_ends_the_game():
    players = [ScriptedBot(keep=False) for _ in range(3)]
    game = Game(players)
    assert game.over and game.end_reason == "all_stopped"
    result = game.play()
    assert result.hands_played == 0 and result.win_shares == (1 / 3, 1 / 3, 1 / 3)
    assert all(b.calls == [("keep_playing", 0, "keep_playing")] for b in players)


def test_one_player_going_on_is_enough():
    players = [ScriptedBot(keep=False), ScriptedBot(keep=True), ScriptedBot(keep=False)]
    game = Game(players, RuleSet(max_hands=3))
    result = game.play()
    assert result.end_reason == "hand_limit" and result.hands_played == 3
    assert sum(1 for b in players for c in b.calls if c[0] == "keep_playing") == 3 * 3  # before each hand


def test_only_players_able_to_pay_the_ante_vote():
    players = [ScriptedBot(keep=False), ScriptedBot(keep=False), ScriptedBot(keep=True)]
    game = Game(players, money=[100, 100, 0])
    assert game.end_reason == "all_stopped" and players[2].calls == []


def test_hand_limit():
    result = Game([ScriptedBot() for _ in range(2)], RuleSet(max_hands=4)).play()
    assert result.end_reason == "hand_limit" and result.hands_played == 4 and len(result.hands) == 4


def test_too_few_players_after_a_bust():
    hole = {0: "As Ad", 1: "2c 7d"}
    players = [ScriptedBot(["raise 99"]), ScriptedBot()]
    result = Game(players, deck=stacked(2, hole, new="8h", shared="Ks Qd 9h 4c 3s")).play()
    assert result.hands_played == 1 and result.final_money == (200, 0) and result.end_reason == "too_few_players"
    assert result.win_shares == (1.0, 0.0)


@pytest.mark.parametrize(("money", "shares"), [
    ([50, 50, 20], (0.5, 0.5, 0.0)), ([10, 30, 20], (0.0, 1.0, 0.0)), ([7, 7, 7, 7], (0.25,) * 4)])
def test_the_most_money_wins_and_ties_share_the_win(money, shares):
    result = Game([ScriptedBot(keep=False) for _ in money], money=money).play()
    assert result.win_shares == shares and sum(result.win_shares) == pytest.approx(1)
