"""`Game.play_until`: a caller answers some seats' questions off the state while the bots are asked through their
seats; the game is the one `play` plays when the caller answers as the seat's bot would."""

from __future__ import annotations

import pytest

from strategies.calling_station import CallingStation
from strategies.random_bot import RandomBot
from treasure_sim import Game, RuleSet
from treasure_sim.game.questions import QUESTIONS, strategy_args


@pytest.mark.parametrize("seed", range(4))
def test_a_caller_answering_a_seat_plays_the_game_its_bot_would(seed):
    rules = RuleSet(max_hands=40, zone_limit=3, at_limit="choose")
    played = Game([CallingStation(), RandomBot(), RandomBot()], rules, seed).play()
    game = Game([CallingStation(), RandomBot(), RandomBot()], rules, seed)
    mine = CallingStation()  # the caller answers seat 0 as its bot does
    asked, stops = set(), 0
    while not game.over:
        d = game.play_until((0,))
        if d is None:
            stops += 1  # after each hand (and the votes for the next)
            continue
        assert d.seat == 0
        asked.add(d.kind)
        game.state.apply(getattr(mine, QUESTIONS[d.kind].method)(game.state.observation(d), *strategy_args(d)))
    result = game.result()
    assert result.final_money == played.final_money and result.treasures == played.treasures
    assert [str(h) for h in result.hands] == [str(h) for h in played.hands]
    assert stops == result.hands_played and "bet" in asked
    assert game.play_until((0,)) is None  # over: nothing more
