"""The built-in bots: legal under every rule variant, and each one's character in stacked-deck scenarios."""

from __future__ import annotations

import numpy as np
import pytest

from strategies import _montecarlo as mc
from strategies._treasure import TreasureModel
from strategies.calling_station import CallingStation
from strategies.equity import EquityBot
from strategies.maniac import Maniac
from strategies.random_bot import RandomBot
from strategies.rock import Rock
from strategies.treasure_hunter import TreasureHunter
from treasure_sim import Action, Game, RuleSet, Strategy
from treasure_sim.bots.loader import available, load_strategy
from treasure_sim.game import evaluator
from treasure_sim.game.cards import make_deck, parse_cards

FAST = {"equity": {"rollouts": 16}, "treasure_hunter": {"rollouts": 16}, "search": {"iterations": 4}}
BUILT_IN = ("calling_station", "equity", "maniac", "random", "rock", "treasure_hunter")


def random_rules(rng: np.random.Generator) -> RuleSet:
    """A random variant of every RuleSet field a bot could trip on, with short games."""
    coin = lambda p=0.5: bool(rng.random() < p)  # noqa: E731
    return RuleSet(
        jokers=int(rng.integers(0, 3)),
        starting_money=int(rng.integers(3, 25)),
        ante=int(rng.choice([0, 1, 1, 2])),
        betting=str(rng.choice(["no-limit", "pot-limit", "fixed-limit"])),
        min_bet=int(rng.integers(1, 3)),
        raise_cap=int(rng.integers(1, 5)),
        ace_value=int(rng.choice([1, 14])),
        hearts_chain=coin(),
        joker_treasure=str(rng.choice(["choose", "discard"])),
        max_hands=int(rng.integers(1, 13)),
        new_treasure=coin(0.85),
        spades=coin(0.8),
        clubs=coin(0.8),
        hearts=coin(0.8),
        diamonds=coin(0.8),
    )


def test_every_bot_plays_hundreds_of_games_under_random_rules_without_an_error():
    rng = np.random.default_rng(2024)
    names = available()
    assert set(BUILT_IN) <= set(names)
    played = dict.fromkeys(names, 0)
    for game_no in range(320):
        n = int(rng.integers(2, 11))
        seats = [names[int(i)] for i in rng.integers(0, len(names), n)]
        bots = [load_strategy(s, **FAST.get(s, {})) for s in seats]
        # a few games start mid-game, with full zones and uneven stacks, so every ability is in play
        treasures = None
        if game_no % 4 == 0:
            cards = rng.permutation(52)[: int(rng.integers(4, 16))].tolist()
            treasures = {int(rng.integers(0, n)): [c] for c in cards[:1]}
            for c in cards[1:]:
                treasures.setdefault(int(rng.integers(0, n)), []).append(c)
        result = Game(bots, random_rules(rng), seed=game_no, treasures=treasures).play()
        assert all(not e for e in result.errors), (game_no, seats, result.errors)
        for s in seats:
            played[s] += 1
    assert min(played.values()) >= 200, played


# ----- scenarios: a stacked deck, played one hand --------------------------------------------------
class Recorder(Strategy):
    """Checks when free, else calls; keeps every observation it was shown (for direct method tests)."""

    name = None

    def __init__(self, stop: bool = False) -> None:
        self.seen = []
        self.stop = stop

    def act(self, obs):
        self.seen.append(obs)
        return Action.check() if obs.to_call == 0 else Action.call()

    def keep_playing(self, obs):
        return not self.stop


def actions_of(record, seat: int, rnd: int | None = None) -> list[str]:
    return [a.kind for a in record.actions if a.seat == seat and (rnd is None or a.round == rnd)]


def play_one(bots, deck, rules=None, **kwargs):
    game = Game(bots, rules or RuleSet(), seed=7, deck=deck, strict=True, **kwargs)
    return game, game.play_hand()


# Heads-up with dealer 1: seat 0 acts first. Deal order: seat 0, seat 1, seat 0, seat 1, New
# Treasure, then the shared cards 2 + 2 + 1.
def heads_up_deck(hole0: str, hole1: str, treasure: str, board: str) -> str:
    return stacked([hole0, hole1], treasure, board)


def stacked(holes: list[str], treasure: str | None, board: str) -> str:
    """A deck for a table whose dealer is the last seat, so seat 0 is dealt and acts first."""
    firsts, seconds = zip(*(h.split() for h in holes), strict=True)
    return " ".join([*firsts, *seconds, *([treasure] if treasure else []), board])


def test_maniac_raises_and_calling_station_calls():
    deck = heads_up_deck("7d 2c", "8s 3h", "4d", "9c Td Jh 5s 6c")
    _, rec = play_one([Maniac(), CallingStation()], deck, dealer=1)
    maniac, station = actions_of(rec, 0), actions_of(rec, 1)
    assert maniac and set(maniac) == {"raise"}
    assert station and set(station) <= {"call", "check"} and "call" in station
    assert not rec.folded[1]


def test_maniac_all_in_chance_shoves():
    deck = heads_up_deck("7d 2c", "8s 3h", "4d", "9c Td Jh 5s 6c")
    _, rec = play_one([Maniac(all_in_chance=1.0), CallingStation()], deck, dealer=1)
    first = rec.actions[0]
    assert first.kind == "raise" and first.all_in


def test_rock_folds_trash_to_a_bet_and_calls_with_a_premium_pair():
    deck = heads_up_deck("9c 9d", "7d 2c", "4d", "Ks Td Jh 5s 6c")
    _, rec = play_one([Maniac(), Rock()], deck, dealer=1)
    assert actions_of(rec, 1) == ["fold"]
    deck = heads_up_deck("9c 9d", "Ah Ac", "4d", "Ks Td Jh 5s 6c")
    _, rec = play_one([Maniac(), Rock()], deck, dealer=1)
    assert actions_of(rec, 1, 0) == ["call"]
    assert "raise" not in actions_of(rec, 1)


def test_rock_checks_when_free_and_never_bets_trash():
    deck = heads_up_deck("7d 2c", "8s 3h", "4d", "9c Td Jh 5s 6c")
    _, rec = play_one([Rock(), CallingStation()], deck, dealer=1)
    assert set(actions_of(rec, 0)) == {"check"}


def test_equity_folds_a_hopeless_hand_facing_an_all_in():
    deck = heads_up_deck("Ah Kh", "7d 2c", "4s", "9c Td Jh 5s 6c")
    _, rec = play_one([Maniac(all_in_chance=1.0), EquityBot(rollouts=300)], deck, RuleSet(jokers=0), dealer=1)
    assert actions_of(rec, 1) == ["fold"]


def test_equity_raises_a_near_lock_and_calls_down_a_big_bet_with_it():
    deck = heads_up_deck("7d 2c", "RJ BJ", "4s", "9c Td Jh 5s 6c")
    _, rec = play_one([CallingStation(), EquityBot(rollouts=300)], deck, dealer=1)
    assert actions_of(rec, 1, 0) == ["raise"]
    _, rec = play_one([Maniac(all_in_chance=1.0), EquityBot(rollouts=300)], deck, dealer=1)
    assert actions_of(rec, 1, 0)[0] in ("call", "raise")


@pytest.mark.parametrize("club", [True, False])
def test_equity_counts_its_clubs_wilds(club):
    # four-handed, 7h 7d is a modest pair; with the 7 of clubs in my zone it is two wild cards
    deck = stacked(["Kd Qs", "8c 3d", "Jc 4h", "7h 7d"], "4s", "9c Td Jh 5s 6c")
    bots = [CallingStation(), CallingStation(), CallingStation(), EquityBot(rollouts=400)]
    _, rec = play_one(bots, deck, RuleSet(jokers=0), dealer=3, treasures={3: "7c"} if club else {2: "7c"})
    assert actions_of(rec, 3, 0) == (["raise"] if club else ["check"])


def test_equity_uses_one_evaluator_call_per_decision(monkeypatch):
    calls = []
    real = evaluator.evaluate

    def counting(*args, **kwargs):
        calls.append(np.asarray(args[0]).shape)
        return real(*args, **kwargs)

    bot = EquityBot(rollouts=200)
    game = Game(
        [Recorder(), bot],
        RuleSet(),
        seed=3,
        deck=heads_up_deck("7d 3c", "Ah Kd", "4s", "9c Td Jh 5d 6c"),
        treasures={0: "3h 5s", 1: "8h Ts 2c"},
        dealer=1,
    )
    game.play_hand()
    obs = game.strategies[0].seen[0]
    monkeypatch.setattr(evaluator, "evaluate", counting)
    mine = obs._replace(seat=1, hand=tuple(parse_cards("Ah Kd").tolist()), wild_ranks=1)
    bot._cache = None
    bot.act(mine)
    assert len(calls) == 1 and calls[0][0] == 200 * 2  # me and one opponent, every rollout, one call


# ----- the treasure hunter -------------------------------------------------------------------------
def test_hunter_folds_a_weak_hand_to_take_a_valuable_new_treasure():
    deck = heads_up_deck("7d 2h", "9s 8s", "Kc", "9c Td Jh 5s 6c")
    game, rec = play_one([TreasureHunter(rollouts=100), CallingStation()], deck, dealer=1)
    assert actions_of(rec, 0) == ["fold"]
    assert rec.last_folder == 0 and rec.treasure_taken == "Kc"
    assert "Kc" in game.treasures[0]


def test_hunter_waits_for_the_river_to_fold_last_in_a_multiway_pot():
    # three-handed and first to act, a fold before the river could be followed by another fold;
    # on the river it is the last chance, and the stations never fold after it
    deck = stacked(["7d 2h", "9s 8s", "Jd 3c"], "Kc", "9c Td Jh 5s 6c")
    _, rec = play_one([TreasureHunter(rollouts=100), CallingStation(), CallingStation()], deck, dealer=2)
    assert actions_of(rec, 0) == ["check", "check", "check", "fold"]
    assert [a.round for a in rec.actions if a.seat == 0] == [0, 1, 2, 3]
    assert rec.last_folder == 0 and rec.treasure_taken == "Kc"


def test_hunter_does_not_fold_a_free_hand_for_a_worthless_treasure():
    # with every ability switched off a Treasure is worth nothing: plain equity poker, check when free
    rules = RuleSet(spades=False, clubs=False, hearts=False, diamonds=False)
    deck = heads_up_deck("7d 2h", "9s 8s", "Kc", "9c Td Jh 5s 6c")
    _, rec = play_one([TreasureHunter(rollouts=100), CallingStation()], deck, rules, dealer=1)
    assert "fold" not in actions_of(rec, 0)


def test_hunter_values_treasures_by_suit_and_the_cards_left():
    game = Game([Recorder(), Recorder()], RuleSet(), seed=1, treasures={1: "Qh Qs Qd"})
    game.play_hand()
    obs = game.strategies[0].seen[0]
    val = TreasureModel().at(obs)
    club, heart, spade = (parse_cards(c).tolist()[0] for c in ("Kc", "Kh", "Ks"))
    assert val.value(club, 0) > val.value(heart, 0) > 0  # a wild rank beats extra draws
    assert val.value(spade, 0) == TreasureModel().spade_chips
    assert val.value(parse_cards("Qc").tolist()[0], 0) < val.value(club, 0)  # the other queens are in zones
    off = TreasureModel().at(obs._replace(rules=RuleSet(clubs=False)))
    assert off.value(club, 0) == 0.0


def test_hunter_chooses_a_club_for_a_joker_treasure():
    deck = heads_up_deck("5c Kh", "9s 8s", "RJ", "9c Td Jh 5s 6c")
    _, rec = play_one([TreasureHunter(rollouts=100), CallingStation()], deck, dealer=1)
    assert rec.last_folder == 0 and rec.treasure_taken == "5c"  # wild fives, not the higher-valued king


def test_hunter_steals_the_most_valuable_card_not_the_highest():
    rules = RuleSet(new_treasure=False)
    deck = stacked(["7d 2h", "9s 8s"], None, "9c Td Jh 5s 6c")
    _, rec = play_one(
        [TreasureHunter(rollouts=50), CallingStation()], deck, rules, dealer=1, treasures={0: "Kd", 1: "Kh Qc 2s"}
    )
    assert [(s.seat, s.card) for s in rec.steals] == [(0, "Qc")]
    _, rec = play_one([CallingStation(), CallingStation()], deck, rules, dealer=1, treasures={0: "Kd", 1: "Kh Qc 2s"})
    assert [s.card for s in rec.steals] == ["Kh"]  # the simple bots take the highest value


def test_hunter_moves_only_the_spade_that_wins_the_pot():
    rules = RuleSet(new_treasure=False, jokers=0)
    deck = stacked(["2d 3h", "8c 8d"], None, "4c 5d 9h Kc Qd")
    game, rec = play_one(
        [TreasureHunter(rollouts=200), CallingStation()], deck, rules, dealer=1, treasures={0: "6s Ts"}
    )
    assert rec.spades_moved[0] == ("6s",)
    assert "Ts" in game.treasures[0] and "6s" not in game.treasures[0]
    assert rec.winners == (0,)


def test_hunter_stops_when_it_leads_and_the_stop_locks_the_win():
    stopper = Recorder(stop=True)
    game = Game([TreasureHunter(), stopper], RuleSet(), seed=1, money=[150, 50])
    assert game.over and game.end_reason == "all_stopped"
    game = Game([TreasureHunter(), Recorder(stop=True)], RuleSet(), seed=1, money=[50, 150])
    assert not game.over


def test_hunter_declines_hearts_only_when_the_deck_is_nearly_out_and_it_is_behind():
    game = Game([Recorder(), Recorder()], RuleSet(), seed=1)
    game.play_hand()
    obs = game.strategies[0].seen[0]
    hunter = TreasureHunter()
    hunter.setup(0, 2, RuleSet(), np.random.default_rng(0))
    assert hunter.draw_heart(obs._replace(deck_size=30, money=(10, 90)))
    assert not hunter.draw_heart(obs._replace(deck_size=1, money=(10, 90)))
    assert hunter.draw_heart(obs._replace(deck_size=1, money=(90, 10)))


# ----- the Monte Carlo core ------------------------------------------------------------------------
def test_rollout_equity_matches_known_holdem_numbers():
    rng = np.random.default_rng(11)
    aa = parse_cards("As Ad").tolist()
    unseen = np.array([c for c in make_deck(0) if c not in aa], dtype=np.int8)
    heads_up = mc.rollout_equity(
        rng, mine=aa, shared=(), unseen=unseen, wild=0, hearts=0, opponents=[mc.Player(0, 0, ())], rollouts=4000
    )[0]
    assert heads_up == pytest.approx(0.85, abs=0.025)
    four_way = mc.rollout_equity(
        rng, mine=aa, shared=(), unseen=unseen, wild=0, hearts=0, opponents=[mc.Player(0, 0, ())] * 3, rollouts=4000
    )[0]
    assert four_way == pytest.approx(0.64, abs=0.03)
    # a rival's wild rank (their Clubs) costs me equity; my own spade (a variant) adds some
    wild_rival = mc.rollout_equity(
        rng,
        mine=aa,
        shared=(),
        unseen=unseen,
        wild=0,
        hearts=0,
        opponents=[mc.Player(0b1111111111111, 0, ())],
        rollouts=2000,
    )[0]
    assert wild_rival < heads_up - 0.2


def test_rollout_samples_are_distinct_cards_and_never_visible_ones(monkeypatch):
    rng = np.random.default_rng(3)
    seen = parse_cards("As Kd 2c 7h 9s Qh").tolist()
    unseen = np.array([c for c in make_deck(2) if c not in seen], dtype=np.int8)
    captured = {}
    real = evaluator.evaluate

    def capture(cards, wild, **kw):
        captured["cards"] = np.asarray(cards)
        return real(cards, wild, **kw)

    monkeypatch.setattr(evaluator, "evaluate", capture)
    mc.rollout_scores(
        rng,
        mine=seen[:2],
        shared=seen[2:5],
        unseen=unseen,
        wild=0,
        hearts=1 << 8,
        opponents=[mc.Player(0, 1 << 5, ()), mc.Player(0, 0, ())],
        rollouts=300,
        hearts_max=3,
    )
    rows = captured["cards"].reshape(300, 3, -1)
    for r in rows:
        dealt = [int(c) for c in np.concatenate([r[0][5:], r[1][:2], r[1][7:], r[2][:2]]) if c >= 0]
        assert len(dealt) == len(set(dealt)) and not set(dealt) & set(seen)
        assert list(r[0][:5]) == seen[:5] and list(r[1][2:5]) == seen[2:5]
        assert list(r[0][3:7]) == list(r[1][3:7]) == list(r[2][3:7])  # the same board for everyone


def test_hearts_chain_draws_match_a_slow_count():
    rng = np.random.default_rng(5)
    known = rng.integers(-1, 54, (500, 7)).astype(np.int8)
    slots = rng.integers(0, 54, (500, 3)).astype(np.int8)
    hearts = (1 << 3) | (1 << 7)
    drawn = mc._drawn(known, slots, hearts)
    matches = lambda c: 0 <= c < 52 and (hearts >> (c >> 2)) & 1  # noqa: E731
    for i in range(500):
        owed = sum(1 for c in known[i].tolist() if matches(c))
        expected = []
        for c in slots[i].tolist():
            expected.append(owed > 0)
            owed = owed - 1 + matches(c) if owed > 0 else 0
        assert drawn[i].tolist() == expected


def test_shares_split_ties_and_read_fewer_opponents():
    scores = np.array([[5, 5, 5], [6, 5, 1], [1, 2, 0], [3, 3, 1]])
    assert mc.shares(scores, 1)[0] == pytest.approx((1 / 3 + 1 + 0 + 0.5) / 4)
    assert mc.shares(scores, 1, [1])[0] == pytest.approx((0.5 + 1 + 1 + 1) / 4)


def test_unseen_cards_exclude_everything_visible():
    game = Game([Recorder(), Recorder()], RuleSet(jokers=1), seed=1, treasures={0: "Ac", 1: "Kd Qh"})
    game.play_hand()
    obs = game.strategies[0].seen[0]
    unseen = set(mc.unseen_cards(obs).tolist())
    visible = set(obs.hand) | set(obs.shared) | {c for z in obs.treasures for c in z} | {obs.new_treasure}
    assert not unseen & visible
    assert unseen | visible == set(make_deck(1))


@pytest.mark.parametrize("cls", [RandomBot, CallingStation, Maniac, Rock, EquityBot, TreasureHunter])
def test_bots_are_picklable_and_name_themselves(cls):
    import pickle

    bot = cls()
    assert cls.name in BUILT_IN
    clone = pickle.loads(pickle.dumps(bot))
    assert type(clone) is cls and repr(clone) == cls.name
