"""treasure-sim: a fast, rule-exact bot-tournament simulator for Treasure Poker."""

from .bots.driver import Game, StrategyError, play_game
from .bots.loader import load_strategy
from .game.gamestate import Decision, GameState, IllegalAnswer
from .game.history import ActionEvent, GameResult, HandRecord, MixedDecision, PotResult, ShownHand, StealEvent
from .game.rules import RuleSet
from .game.strategy import Action, Mixed, Observation, Steal, Strategy

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionEvent",
    "Decision",
    "Game",
    "GameResult",
    "GameState",
    "HandRecord",
    "IllegalAnswer",
    "Mixed",
    "MixedDecision",
    "Observation",
    "PotResult",
    "RuleSet",
    "ShownHand",
    "Steal",
    "StealEvent",
    "Strategy",
    "StrategyError",
    "load_strategy",
    "play_game",
]
