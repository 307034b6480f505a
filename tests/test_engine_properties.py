"""Invariants over random rules, table sizes and random legal bots; determinism; hidden information (rulings §10)."""

from __future__ import annotations

import json
from collections import Counter

from conftest import ScriptedBot, stacked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies.random_bot import RandomBot
from treasure_sim import Game, Observation, RuleSet, play_game
from treasure_sim.game.cards import format_card
from treasure_sim.game.history import END_REASONS

rulesets = st.builds(
    RuleSet,
    jokers=st.integers(0, 2), ace_value=st.sampled_from([1, 14]), starting_money=st.integers(2, 40),
    ante=st.integers(0, 3), betting=st.sampled_from(["no-limit", "pot-limit", "fixed-limit"]),
    min_bet=st.integers(1, 3), small_bet=st.integers(1, 3), big_bet=st.integers(1, 6), raise_cap=st.integers(1, 5),
    hearts_chain=st.booleans(), joker_treasure=st.sampled_from(["choose", "discard"]), max_hands=st.integers(1, 60),
    new_treasure=st.booleans(), spades=st.booleans(), clubs=st.booleans(), hearts=st.booleans(),
    diamonds=st.booleans(),
)


class Recorder(RandomBot):
    """A RandomBot that logs (hand_no, method) of every call, and stops now and then."""

    def __init__(self) -> None:
        super().__init__(stop_chance=0.02)
        self.calls: list[tuple[int, str]] = []

    def act(self, obs):
        self.calls.append((obs.hand_no, "act"))
        assert obs.in_hand[self.seat] and not obs.folded[obs.seat] and obs.money[obs.seat] > 0
        return super().act(obs)

    def move_spades(self, obs):
        self.calls.append((obs.hand_no, "move_spades"))
        return super().move_spades(obs)

    def draw_heart(self, obs):
        self.calls.append((obs.hand_no, "draw_heart"))
        return super().draw_heart(obs)

    def choose_joker_treasure(self, obs, options):
        self.calls.append((obs.hand_no, "choose_joker_treasure"))
        return super().choose_joker_treasure(obs, options)

    def steal(self, obs, options):
        self.calls.append((obs.hand_no, "steal"))
        return super().steal(obs, options)

    def keep_playing(self, obs):
        self.calls.append((obs.hand_no + 1, "keep_playing"))  # asked before the next hand
        return super().keep_playing(obs)


def full_deck(rules: RuleSet) -> Counter:
    return Counter(format_card(c) for c in range(52 + rules.jokers))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets, n=st.integers(2, 10), seed=st.integers(0, 2**32 - 1))
def test_invariants_of_random_games(rules, n, seed):
    bots = [Recorder() for _ in range(n)]
    game = Game(bots, rules, seed)
    total, deck = sum(game.money), full_deck(rules)
    out_since: dict[int, int] = {}
    while not game.over:
        rec = game.play_hand()
        assert sum(game.money) == total and sum(rec.payouts) == 0 and rec.money_after == game.money
        zones = [c for z in game.treasures for c in z]
        assert Counter(game.deck_cards) + Counter(zones) == deck  # every card accounted for
        assert not any(c in ("RJ", "BJ") for c in zones)  # no Joker in a zone
        put_in = sum(rec.antes) + sum(a.added for a in rec.actions)
        if not rec.void:
            assert rec.pot == put_in - (rec.returned[1] if rec.returned else 0)
        for s in range(n):
            if not rec.in_hand[s]:
                out_since.setdefault(s, rec.hand_no)
            else:
                assert s not in out_since  # out for good
    result = game.result()
    assert result.end_reason in END_REASONS and result.hands_played <= rules.max_hands
    assert result.errors == ((),) * n  # legal bots make no errors
    for s, first_out in out_since.items():
        assert all(h < first_out for h, _ in bots[s].calls)  # a player out of the game never acts
    json.dumps(result.to_dict())  # JSON-safe


def test_determinism_same_seed_same_game_different_seed_different_game():
    def run(seed):
        return play_game([RandomBot() for _ in range(5)], RuleSet(starting_money=40), seed=seed).to_dict()

    a, b, c = run(11), run(11), run(12)
    assert a.keys() == b.keys()
    differing = {k for k in a if a[k] != b[k]}
    assert differing <= {"decision_time"}  # wall-clock: the one field allowed to differ
    a.pop("decision_time"), b.pop("decision_time"), c.pop("decision_time")
    assert a == b and a != c and a["hands"] != c["hands"]


def test_deal_seed_drives_the_cards_alone():
    def first_hole(seed, deal_seed):
        game = Game([RandomBot() for _ in range(3)], seed=seed, deal_seed=deal_seed)
        return game.play_hand().hole

    assert first_hole(1, 99) == first_hole(2, 99) != first_hole(1, 98)


# ----- rulings §10: what a player sees --------------------------------------------------------------------
def test_an_observation_has_no_field_for_hidden_things():
    assert set(Observation._fields) == {
        "phase", "seat", "n_players", "hand_no", "dealer", "hand", "shared", "new_treasure", "treasures", "money",
        "bets", "committed", "pot", "folded", "in_hand", "all_in", "deck_size", "round", "to_call", "min_raise_to",
        "max_raise_to", "legal", "history", "last_folder", "wild_ranks", "showdowns", "revealed", "rules", "restricted"}


def _observed(seat2_hole: str):
    """Seats 0 and 1 see everything they are shown in a hand where seat 2 folds on the river."""
    hole = {0: "2c 3c", 1: "4d 5d", 2: seat2_hole}
    scripts = {0: ["check", "call", "check", "check"], 1: ["check", "raise 5", "check", "check"],
               2: ["check", "call", "check", "fold"]}
    players = [ScriptedBot(scripts[s]) for s in range(3)]
    game = Game(players, deck=stacked(3, hole, new="Qh", shared="Kd 9s 8c Ts 2s"), treasures={1: "7h"})
    return [(b.seen, b.records) for b in players[:2]], game.play_hand()


def test_a_bot_never_sees_an_unshown_hand_or_the_deck():
    # the same hand with seat 2 holding other cards: what seats 0 and 1 see cannot change at all
    seen_a, record_a = _observed("Kh Kc")
    seen_b, record_b = _observed("6h 6c")
    assert seen_a == seen_b and len(seen_a[0][0]) >= 5
    told = seen_a[0][1][0]
    assert told.hole[2] is None and told.hole[0] == ("2c", "3c") and told.hole[1] == ("4d", "5d")  # shown hands
    assert record_a.hole[2] == ("Kh", "Kc") and record_b.hole[2] == ("6h", "6c")  # the engine's own record


def test_own_hand_only_and_earlier_showdowns():
    bots = [ScriptedBot() for _ in range(3)]
    game = Game(bots, seed=3)
    recs = [game.play_hand() for _ in range(3)]
    for seat, bot in enumerate(bots):
        for obs in bot.seen:
            if obs.phase == "bet":
                rec = recs[obs.hand_no - 1]
                assert tuple(format_card(c) for c in obs.hand) == rec.hole[seat]
                shown_so_far = [s for r in recs[: obs.hand_no - 1] for s in r.shown]
                assert list(obs.showdowns) == shown_so_far
