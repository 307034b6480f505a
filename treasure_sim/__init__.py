"""treasure-sim: a fast, rule-exact bot-tournament simulator for Treasure Poker."""

from .engine import Game, StrategyError, play_game
from .history import ActionEvent, GameResult, HandRecord, PotResult, ShownHand, StealEvent
from .rules import RuleSet
from .strategy import Action, Observation, Steal, Strategy

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionEvent",
    "Game",
    "GameResult",
    "HandRecord",
    "Observation",
    "PotResult",
    "RuleSet",
    "ShownHand",
    "Steal",
    "StealEvent",
    "Strategy",
    "StrategyError",
    "play_game",
]
