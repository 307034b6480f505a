"""The game-length knobs (seeds/rulings.md, "Game length"; issue 17): rising antes, spent Diamonds out of the
game, a limit on Treasures per zone, a cap on Hearts draws. Each ruling with a stacked scenario and an exact outcome."""

from __future__ import annotations

import pytest
from conftest import ScriptedBot, stacked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies.random_bot import RandomBot
from treasure_sim import Game, RuleSet, StrategyError
from treasure_sim.game.cards import format_card, parse_card
from treasure_sim.game.rules import LENGTH_KNOBS


def rest_of_deck(*used: str) -> str:
    """Every natural card not named in ``used``."""
    taken = set(" ".join(used).split())
    return " ".join(format_card(c) for c in range(52) if format_card(c) not in taken)


# ----- the RuleSet -------------------------------------------------------------------------------------------
def test_the_defaults_keep_todays_game_and_are_not_written():
    rules = RuleSet()
    assert [rules.ante_at(h) for h in (1, 2, 50, 10_000)] == [1, 1, 1, 1]
    assert (rules.spent_diamonds, rules.zone_limit, rules.hearts_cap) == ("under_deck", 0, 0)
    assert not set(LENGTH_KNOBS) & set(rules.to_dict())  # a default RuleSet's dict is as it always was
    assert set(LENGTH_KNOBS) <= set(RuleSet.fields())


def test_knobs_that_are_set_are_written_and_read_back():
    rules = RuleSet(ante_growth="add", ante_step=3, ante_every=7, spent_diamonds="removed", zone_limit=4,
                    at_limit="choose", hearts_cap=2)
    data = rules.to_dict()
    assert {k: data[k] for k in LENGTH_KNOBS} == {"ante_growth": "add", "ante_step": 3, "ante_every": 7,
                                                 "spent_diamonds": "removed", "zone_limit": 4, "at_limit": "choose",
                                                 "hearts_cap": 2}
    assert RuleSet.from_dict(data) == rules
    assert "ante_step" not in RuleSet(ante_growth="double").to_dict()  # only what differs from the default


@pytest.mark.parametrize(("rules", "antes"), [
    (RuleSet(ante_growth="double", ante_every=3), [1, 1, 1, 2, 2, 2, 4, 4, 4, 8]),
    (RuleSet(ante_growth="add", ante=2, ante_step=5, ante_every=2), [2, 2, 7, 7, 12, 12, 17, 17, 22, 22]),
    (RuleSet(ante_growth="add", ante=0, ante_every=1), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    (RuleSet(ante=3, ante_every=1), [3] * 10),  # "none" ignores the schedule
])
def test_ante_schedule(rules, antes):
    assert [rules.ante_at(h) for h in range(1, 11)] == antes


@pytest.mark.parametrize("hand_no", [0, -3, True, 1.0, "2"])
def test_ante_at_wants_a_hand_number_from_1(hand_no):
    with pytest.raises(ValueError, match="hand_no must be a whole number >= 1"):
        RuleSet().ante_at(hand_no)


def test_playability_problems_of_the_new_knobs():
    assert RuleSet(ante_growth="double", ante=0).playability_problems() == [
        "ante_growth = 'double' with ante 0: the ante would never rise; start it at 1 or more"]
    assert "the ante would never rise" in RuleSet(ante_growth="add", ante_every=200).playability_problems()[0]
    assert RuleSet(ante_growth="add", ante_every=199).playability_problems() == []
    assert RuleSet(ante_every=500, zone_limit=1, hearts_cap=1).playability_problems() == []


# ----- rising antes ------------------------------------------------------------------------------------------
def test_rising_antes_are_paid_and_who_can_pay_is_judged_by_the_next_hands_ante():
    # seat 0 folds every hand: it pays 1, then 2, and holds 2 chips; hand 3's ante is 4, so it is out before
    # hand 3 although it could pay the starting ante of 1
    game = Game([ScriptedBot(["fold"] * 5), ScriptedBot()], RuleSet(ante_growth="double", ante_every=1),
                money=[5, 100])
    result = game.play()
    assert [h.antes for h in result.hands] == [(1, 1), (2, 2)]
    assert result.final_money == (2, 103) and result.end_reason == "too_few_players" and result.hands_played == 2
    assert game.table.out == [True, False]
    rules = RuleSet.from_dict(result.rules)  # what a results writer does: the ante of the hand that did not start
    assert [m < rules.ante_at(result.hands_played + 1) for m in result.final_money] == [True, False]


def test_a_player_who_can_pay_exactly_the_risen_ante_plays_all_in():
    players = [ScriptedBot(), ScriptedBot()]
    game = Game(players, RuleSet(ante_growth="add", ante_step=2, ante_every=1), money=[2, 100],
                deck=stacked(2, {0: "As Ad", 1: "2c 7d"}, new="8s", shared="Ah Kc 9d 4s 3h"))
    first = game.play_hand()  # ante 1: seat 0 wins the antes with trips
    assert first.antes == (1, 1) and game.money == (3, 99)
    second = game.play_hand()  # ante 3: seat 0 pays all it has and is dealt in, all in, never asked to bet
    assert second.antes == (3, 3) and second.in_hand == (True, True)
    assert all(a.seat == 1 for a in second.actions) and not any(o.hand_no == 2 for o in players[0].bets)


# ----- spent Diamonds ----------------------------------------------------------------------------------------
def steal_hand(spent: str):
    """Ten cards outside the zones; seat 0 folds and takes the New Treasure, seat 1 spends Td on seat 0's 9c."""
    deck = "2d 3d 4d 5d 6d 7d 8d Qd Kd Ad"
    players = [ScriptedBot(["fold"]), ScriptedBot(steals=[("Td", 0, "9c")])]
    game = Game(players, RuleSet(jokers=0, hearts=False, spent_diamonds=spent), deck=deck,
                treasures={1: "Td", 0: rest_of_deck(deck, "Td")})
    return game, game.play_hand()


def test_a_spent_diamond_goes_under_the_deck_by_default():
    game, rec = steal_hand("under_deck")
    assert rec.removed == () and game.removed_cards == () and "Td" in game.deck_cards and game.deck_size == 10
    assert "16 seat 1 puts Td under the deck and steals 9c from seat 0" in str(rec)
    assert not game.play_hand().void and not game.over  # ten cards: a hand played to the showdown


def test_a_removed_diamond_leaves_the_game_and_the_deck_runs_out_sooner():
    game, rec = steal_hand("removed")
    assert rec.removed == ("Td",) and game.removed_cards == ("Td",) and rec.to_dict()["removed"] == ["Td"]
    assert "Td" not in game.deck_cards and all("Td" not in z for z in game.treasures) and game.deck_size == 9
    assert "16 seat 1 removes Td from the game and steals 9c from seat 0" in str(rec)
    second = game.play_hand()  # nine cards cannot deal a hand of two to the river: void, and the game ends
    assert second.void and game.end_reason == "deck_empty" and game.money == (99, 101)


# ----- the zone limit ----------------------------------------------------------------------------------------
HOLE = {0: "2c 3c", 1: "4d 5d"}


def limit_hand(at_limit: str, zone: str = "9s 4h", new: str = "Qh", limit: int = 2, room=(), shared: str = ""):
    """Seat 1 checks, seat 0 folds at once and would take ``new``; seat 0's zone holds ``zone``."""
    players = [ScriptedBot(["fold"], room=room, joker="2c"), ScriptedBot(["check"] * 4)]
    game = Game(players, RuleSet(zone_limit=limit, at_limit=at_limit), treasures={0: zone},
                deck=stacked(2, HOLE, new=new, shared=shared))
    return game, game.play_hand(), players


def test_below_the_limit_the_new_treasure_is_taken_as_usual():
    game, rec, _ = limit_hand("refuse", zone="9s")
    assert rec.treasure_taken == "Qh" and game.treasures[0] == ("9s", "Qh") and rec.given_up == ()


def test_refuse_at_the_limit_the_new_treasure_goes_back_into_the_deck():
    game, rec, players = limit_hand("refuse")
    assert rec.treasure_taken is None and rec.last_folder == 0 and game.treasures[0] == ("9s", "4h")
    assert "Qh" in game.deck_cards and "nobody takes the New Treasure Qh" in str(rec)
    assert not any(m == "make_room" for m, _, _ in players[0].calls)


def test_discard_oldest_gives_up_the_treasure_longest_in_the_zone():
    game, rec, _ = limit_hand("discard_oldest")
    assert rec.treasure_taken == "Qh" and game.treasures[0] == ("4h", "Qh") and rec.given_up == ((0, "9s"),)
    assert "9s" in game.deck_cards and rec.to_dict()["given_up"] == [[0, "9s"]]
    assert "14 last folder seat 0 takes the New Treasure Qh\n   seat 0's zone was full: 9s went back into the deck" \
        in str(rec)


@pytest.mark.parametrize(("answer", "zone_after", "given_up"), [
    ("4h", ("9s", "Qh"), ((0, "4h"),)),
    (None, ("9s", "4h"), ()),
])
def test_choose_the_player_gives_up_a_treasure_of_its_choice_or_lets_the_new_one_go(answer, zone_after, given_up):
    game, rec, players = limit_hand("choose", room=[answer])
    assert game.treasures[0] == zone_after and rec.given_up == given_up
    obs = next(o for o in players[0].seen if o.phase == "make_room")
    assert players[0].options[-1] == (parse_card("Qh"),) and obs.my_treasures == (parse_card("9s"), parse_card("4h"))


@pytest.mark.parametrize("answer", ["Ks", "Qh", 7.0, True, "not a card object"])
def test_choose_a_bad_answer_is_an_error_and_the_zone_stays(answer):
    # Ks is in no zone, Qh is the new card itself, the others are not card ids
    def game(strict=False):
        players = [ScriptedBot(["fold"]), ScriptedBot()]
        players[0].room = [parse_card(answer) if answer in ("Ks", "Qh") else answer]  # as given, not parsed again
        return Game(players, RuleSet(zone_limit=2, at_limit="choose"), treasures={0: "9s 4h"},
                    deck=stacked(2, HOLE, new="Qh"), strict=strict)

    played = game()
    rec = played.play_hand()
    assert played.treasures[0] == ("9s", "4h") and rec.treasure_taken is None
    assert [(s, e.split(": ", 1)[1][:9]) for s, e in rec.errors] == [(0, "make_room")]
    with pytest.raises(StrategyError, match="make_room returned"):
        game(strict=True).play_hand()


def test_choose_a_bot_that_does_not_answer_make_room_lets_the_new_treasure_go():
    from treasure_sim import Strategy

    class Folder(Strategy):
        def act(self, obs):
            from treasure_sim import Action
            return Action.fold()

    game = Game([Folder(), ScriptedBot()], RuleSet(zone_limit=2, at_limit="choose"), treasures={0: "9s 4h"},
                deck=stacked(2, HOLE, new="Qh"))
    rec = game.play_hand()
    assert game.treasures[0] == ("9s", "4h") and rec.errors == ()


def test_a_joker_new_treasure_at_the_limit():
    game, rec, players = limit_hand("refuse", new="RJ")  # not even asked to choose
    assert rec.treasure_taken is None and not any(m == "choose_joker_treasure" for m, _, _ in players[0].calls)
    game, rec, players = limit_hand("discard_oldest", new="RJ")  # chooses its 2c, gives up its oldest
    assert rec.treasure_taken == "2c" and game.treasures[0] == ("4h", "2c") and rec.given_up == ((0, "9s"),)


def test_a_steal_at_the_limit_is_allowed_the_diamond_leaves_first():
    players = [ScriptedBot(), ScriptedBot(steals=[("Td", 0, "9c")])]
    game = Game(players, RuleSet(zone_limit=2), treasures={0: "9c", 1: "Td 3s"})
    rec = game.play_hand()
    assert len(rec.steals) == 1 and game.treasures[1] == ("3s", "9c")


def test_pre_filled_zones_over_the_limit_are_refused():
    with pytest.raises(ValueError, match="seat 1 has 3 Treasures, more than the rules' zone_limit of 2"):
        Game([ScriptedBot(), ScriptedBot()], RuleSet(zone_limit=2), treasures={1: "9c 8c 7c"})


# ----- the Hearts cap ----------------------------------------------------------------------------------------
def hearts_hand(cap: int):
    log: list = []
    players = [ScriptedBot(log=log), ScriptedBot(log=log)]
    hole = {0: "7s 2d", 1: "Kc 3d"}  # seat 1's Kh is owed 2; seat 0's 7h is owed 2, and a drawn 7 earns one more
    game = Game(players, RuleSet(hearts_cap=cap), treasures={0: "7h", 1: "Kh"},
                deck=stacked(2, hole, new="8s", shared="7d Ks Qs 3h 9c", then="Jd 5c 7c 8d 4s 5s 6s"))
    return game.play_hand(), [s for s, m in log if m == "draw_heart"]


@pytest.mark.parametrize(("cap", "drawn", "asked"), [
    (0, (("7c", "8d", "4s"), ("Jd", "5c")), [1, 1, 0, 0, 0]),
    (1, (("5c",), ("Jd",)), [1, 0]),
    (2, (("7c", "8d"), ("Jd", "5c")), [1, 1, 0, 0]),  # the chained third draw is over the cap: not even asked
])
def test_hearts_draws_stop_at_the_cap(cap, drawn, asked):
    rec, log = hearts_hand(cap)
    assert rec.drawn == drawn and log == asked


# ----- invariants --------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), growth=st.sampled_from(["none", "double", "add"]),
       every=st.integers(1, 8), spent=st.sampled_from(["under_deck", "removed"]), limit=st.integers(0, 4),
       at_limit=st.sampled_from(["refuse", "discard_oldest", "choose"]), cap=st.integers(0, 3))
def test_invariants_with_the_knobs(n, seed, growth, every, spent, limit, at_limit, cap):
    rules = RuleSet(starting_money=40, max_hands=80, ante_growth=growth, ante_every=every, spent_diamonds=spent,
                    zone_limit=limit, at_limit=at_limit, hearts_cap=cap)
    game = Game([RandomBot() for _ in range(n)], rules, seed)
    total = sum(game.money)
    full = sorted(format_card(c) for c in range(54))
    while not game.over:
        rec = game.play_hand()
        assert sum(game.money) == total
        zones = [c for z in game.treasures for c in z]
        assert sorted(list(game.deck_cards) + zones + list(game.removed_cards)) == full  # every card accounted for
        assert not limit or all(len(z) <= limit for z in game.treasures)
        assert not cap or all(len(d) <= cap for d in rec.drawn)
        assert all(a == rules.ante_at(rec.hand_no) for a, dealt in zip(rec.antes, rec.in_hand, strict=True) if dealt)
        assert spent == "removed" or rec.removed == ()
    result = game.result()
    assert result.errors == ((),) * n
    if result.end_reason != "deck_empty":  # the engine judged who could pay the hand that did not start
        ante = rules.ante_at(result.hands_played + 1)
        assert game.table.out == [m < ante for m in result.final_money]


# ----- the built-in bots know the zone limit -------------------------------------------------------------------
def test_the_treasure_hunter_prices_a_new_treasure_at_the_zone_limit_and_makes_room_for_a_better_one():
    import numpy as np

    from strategies.treasure_hunter import TreasureHunter

    spy = ScriptedBot()
    Game([spy, ScriptedBot()], treasures={0: "2s 9h"}, deck=stacked(2, {0: "2c 3c", 1: "4d 5d"}, new="Kc")).play_hand()
    seen = spy.bets[0]

    def stake(at_limit: str | None):
        rules = RuleSet() if at_limit is None else RuleSet(zone_limit=2, at_limit=at_limit)
        obs = seen._replace(rules=rules)
        bot = TreasureHunter(rollouts=8)
        bot.setup(0, 2, rules, np.random.default_rng(0))
        return bot, obs, bot.treasure_stake(obs)

    bot, obs, free = stake(None)
    value = bot.valuer(obs).value
    two_s, nine_h, king_c = parse_card("2s"), parse_card("9h"), parse_card("Kc")
    assert free > 0 and stake("refuse")[2] == 0.0
    assert stake("discard_oldest")[2] == pytest.approx(max(free - value(two_s, 0), 0.0))
    assert stake("choose")[2] == pytest.approx(max(free - min(value(two_s, 0), value(nine_h, 0)), 0.0))
    cheapest = min((two_s, nine_h), key=lambda c: value(c, 0))
    assert bot.make_room(obs, king_c) == (cheapest if value(king_c, 0) > value(cheapest, 0) else None)
