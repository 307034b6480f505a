"""A PettingZoo AEC environment of Treasure Poker: learning agents at a table with built-in bots.

``env()`` / ``raw_env()`` as PettingZoo's classic games offer them. One episode is one game; the learning
agents ``player_0 .. player_{k-1}`` sit at seats 0..k-1 and the ``bots`` (built-in strategies by name)
fill the other seats. ``docs/env.md`` documents the action set, the observation vector and the rewards.

Why a thread: the engine calls its bots (`Strategy`) rather than being stepped. Each game runs in a worker
thread in which every learning seat is a proxy `Strategy` that posts its decision to the environment and
blocks until ``step`` answers it; exactly one of the two threads runs at any time, so a game depends only on
its seed. ``reset`` and ``close`` stop the worker (its proxy raises an exception no seat catches) and join it,
so no thread outlives its game.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .game.cards import SPADES, SUIT
from .game.engine import Game
from .game.history import GameResult
from .game.rules import RuleSet
from .game.strategy import CALL, RAISE, Action, Observation, Steal, Strategy
from .run.loader import load_strategy

FOLD_ACTION, CALL_ACTION, MIN_RAISE, HALF_POT, POT, TWO_POTS, ALL_IN, YES, NO = range(9)
CARD_BASE = 9  # action CARD_BASE + c names card c (0..51, rank * 4 + suit)
N_ACTIONS = CARD_BASE + 52
RAISE_ACTIONS = {MIN_RAISE: None, HALF_POT: 0.5, POT: 1.0, TWO_POTS: 2.0, ALL_IN: None}
PHASES = ("bet", "spades", "hearts", "joker_treasure", "make_room", "steal_card", "steal_diamond", "keep_playing")
PLAYER_FEATURES = 8  # money, bet, committed, folded, in hand, all in, dealer, last folder
ACTION_NAMES = ("fold", "check/call", "raise: minimum", "raise: half pot", "raise: pot", "raise: two pots",
                "all in", "yes", "no") + tuple(f"card {c}" for c in range(52))
__all__ = ["ACTION_NAMES", "N_ACTIONS", "TreasurePokerEnv", "env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order and bounds checks (see `TreasurePokerEnv` for the arguments)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs)))


def raw_env(**kwargs: Any) -> TreasurePokerEnv:
    return TreasurePokerEnv(**kwargs)


@dataclass
class Decision:
    """One question to a learning seat: what the engine asked, the legal actions, how an action answers it."""

    seat: int
    phase: str
    obs: Observation
    legal: list[int]
    options: tuple = ()
    pending: int = -1  # steal_diamond: the card chosen to take
    answer: Callable[[int], Any] = field(default=lambda action: action)


class _Stop(BaseException):
    """Raised in a proxy seat when the environment stops its game (reset, close): no seat catches it."""


@dataclass
class _Finished:
    result: GameResult | None
    error: BaseException | None = None


class _Channel:
    """The hand-off between the game thread (asks, then waits) and the environment (answers, then waits)."""

    def __init__(self) -> None:
        self.questions: queue.Queue[Decision | _Finished] = queue.Queue()
        self.answers: queue.Queue[Any] = queue.Queue()

    def ask(self, decision: Decision) -> Any:
        self.questions.put(decision)
        answer = self.answers.get()
        if answer is _Stop:
            raise _Stop
        return decision.answer(answer)


class _ProxySeat(Strategy):
    """A learning agent's seat: every decision becomes one or more agent steps."""

    def __init__(self, channel: _Channel, agent: str) -> None:
        self.channel = channel
        self.agent = agent

    def __repr__(self) -> str:
        return self.agent

    def act(self, obs: Observation) -> Action:
        legal = [FOLD_ACTION, CALL_ACTION] + (list(RAISE_ACTIONS) if RAISE in obs.legal else [])
        return self.channel.ask(Decision(obs.seat, "bet", obs, legal, answer=lambda a: bet_action(a, obs)))

    def move_spades(self, obs: Observation) -> list[int]:
        mine = sorted(c for c in obs.my_treasures if SUIT[c] == SPADES)
        chosen: list[int] = []
        while len(chosen) < len(mine):  # one card an agent step; NO is done
            left = [c for c in mine if c not in chosen]
            card = self.channel.ask(Decision(obs.seat, "spades", obs, [NO] + [CARD_BASE + c for c in left],
                                             answer=card_or_none))
            if card is None:
                break
            chosen.append(card)
        return chosen

    def draw_heart(self, obs: Observation) -> bool:
        return self.channel.ask(Decision(obs.seat, "hearts", obs, [YES, NO], answer=lambda a: a == YES))

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        return self.channel.ask(Decision(obs.seat, "joker_treasure", obs, [CARD_BASE + c for c in options],
                                         options, answer=card_or_none))

    def make_room(self, obs: Observation, treasure: int) -> int | None:
        """At the zone limit (``at_limit = "choose"``): a Treasure of mine to give up for ``treasure``, or NO."""
        mine = sorted(obs.my_treasures)
        return self.channel.ask(Decision(obs.seat, "make_room", obs, [NO] + [CARD_BASE + c for c in mine],
                                         (treasure,), answer=card_or_none))

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        cards = sorted({s.card for s in options})
        card = self.channel.ask(Decision(obs.seat, "steal_card", obs, [NO] + [CARD_BASE + c for c in cards], options,
                                         answer=card_or_none))
        if card is None:
            return None
        payers = [s for s in options if s.card == card]
        if len(payers) == 1:
            return payers[0]
        by_diamond = {s.diamond: s for s in payers}
        return self.channel.ask(Decision(obs.seat, "steal_diamond", obs, [CARD_BASE + d for d in sorted(by_diamond)],
                                         options, card, answer=lambda a: by_diamond[a - CARD_BASE]))

    def keep_playing(self, obs: Observation) -> bool:
        if obs.hand_no == 0:  # the vote before the first hand: taking the seat is the answer
            return True
        return self.channel.ask(Decision(obs.seat, "keep_playing", obs, [YES, NO], answer=lambda a: a == YES))


def card_or_none(action: int) -> int | None:
    return None if action == NO else action - CARD_BASE


def bet_action(action: int, obs: Observation) -> Action:
    """The engine's answer for a betting action (raise sizes: ``docs/env.md``)."""
    if action == FOLD_ACTION:
        return Action.fold()
    if action == CALL_ACTION:
        return Action.call() if CALL in obs.legal else Action.check()
    if action == MIN_RAISE:
        return Action.raise_to(obs.min_raise_to)
    if action == ALL_IN:
        return Action.raise_to(obs.max_raise_to)
    me = obs.seat
    after_call = obs.bets[me] + obs.to_call  # a pot-sized raise: the pot after calling, on top of the call
    target = after_call + int(RAISE_ACTIONS[action] * (obs.pot + obs.to_call))  # type: ignore[operator]
    return Action.raise_to(min(max(target, obs.min_raise_to), obs.max_raise_to))


class TreasurePokerEnv(AECEnv):
    """Treasure Poker for ``learners`` agents against ``bots`` (registry names, ``module:Class`` or
    ``file.py:Class``) under ``rules``. Rewards: each agent's chips won or lost, given at the end of every hand."""

    metadata: ClassVar[dict[str, Any]] = {"name": "treasure_poker_v0", "render_modes": ["human", "ansi"],
                                          "is_parallelizable": False}

    def __init__(self, learners: int = 1, bots: Sequence[str] = ("equity", "treasure_hunter", "rock"),
                 rules: RuleSet | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        n = learners + len(bots)
        if learners < 1 or not 2 <= n <= 10:
            raise ValueError(f"a table seats 2 to 10 with at least one learner; got {learners} learner(s) and "
                             f"{len(bots)} bot(s)")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        for spec in bots:
            load_strategy(spec)  # a bad name fails here, with the loader's message
        self.rules = rules if rules is not None else RuleSet()
        self.bots = tuple(bots)
        self.n_players = n
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(learners)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        size = self._size = len(PHASES) + 4 * 54 + n * (52 + 54 + PLAYER_FEATURES) + 7 + 13
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8)})
        self._action_space = spaces.Discrete(N_ACTIONS)
        self._thread: threading.Thread | None = None
        self._channel: _Channel | None = None
        self._game: Game | None = None
        self._seed_source = np.random.default_rng()
        self._rewarded = 0  # hands whose chips were handed out as rewards
        self._last: dict[str, dict[str, np.ndarray]] = {}
        self._decision: Decision | None = None
        self.result: GameResult | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ----- the game thread --------------------------------------------------------------------------------------
    def _stop_game(self) -> None:
        if self._thread is not None and self._channel is not None:
            if self._thread.is_alive():
                self._channel.answers.put(_Stop)
            self._thread.join()
        self._thread = self._channel = None

    def _run(self, players: list[Strategy], seed: int, channel: _Channel) -> None:
        """The game thread: the game is built here too (building it asks the first vote to go on)."""
        try:
            game = self._game = Game(players, self.rules, seed, ends_game=(KeyboardInterrupt, _Stop))
            channel.questions.put(_Finished(game.play()))
        except _Stop:
            pass
        except BaseException as err:  # a bug must surface in the caller's thread, not die here
            channel.questions.put(_Finished(None, err))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._stop_game()
        if seed is not None:
            self._seed_source = np.random.default_rng(seed)
        game_seed = int(self._seed_source.integers(2**63))
        channel = _Channel()
        players: list[Strategy] = [_ProxySeat(channel, agent) for agent in self.possible_agents]
        players += [load_strategy(spec) for spec in self.bots]
        self._game = None
        self._channel = channel
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._last = {agent: self._blank() for agent in self.agents}
        self._rewarded, self.result, self._decision = 0, None, None
        self._thread = threading.Thread(target=self._run, args=(players, game_seed, channel), daemon=True,
                                        name="treasure-poker-game")
        self._thread.start()
        self._advance()

    def _advance(self) -> None:
        """Wait for the game's next question to a learner (or its end) and make it the environment's state."""
        assert self._channel is not None
        question = self._channel.questions.get()
        self._hand_out_rewards()
        if isinstance(question, _Finished):
            self._stop_game()
            if question.error is not None:
                raise RuntimeError(f"the game failed: {question.error!r}") from question.error
            self.result = question.result
            assert self.result is not None
            truncated = self.result.end_reason == "hand_limit"
            for agent in self.agents:
                (self.truncations if truncated else self.terminations)[agent] = True
                # the outcome, without the wall-clock fields of the result (env.unwrapped.result has them all)
                self.infos[agent] = {"final_money": self.result.final_money, "win_shares": self.result.win_shares,
                                     "end_reason": self.result.end_reason, "hands_played": self.result.hands_played}
            self._decision = None
            self.agent_selection = self.agents[0]
            self._accumulate_rewards()
            return
        agent = self.possible_agents[question.seat]
        self._decision = question
        self._last[agent] = self._encode(question)
        self.infos[agent] = {"observation": question.obs, "phase": question.phase, "options": question.options}
        self.agent_selection = agent
        self._accumulate_rewards()

    def _hand_out_rewards(self) -> None:
        """Each finished hand's net chips, as rewards to the learning seats (read while the game thread waits)."""
        if self._game is None:  # the game could not be built (its error follows)
            return
        hands = self._game.hands
        for record in hands[self._rewarded:]:
            for agent, seat in self._seat.items():
                if agent in self.rewards:
                    self.rewards[agent] += float(record.payouts[seat])
        self._rewarded = len(hands)

    # ----- the AEC API ------------------------------------------------------------------------------------------
    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        decision = self._decision
        assert decision is not None and self._channel is not None
        if action is None or int(action) not in decision.legal:
            raise ValueError(f"action {action} is not legal for {agent} now ({decision.phase}; legal: "
                             f"{', '.join(map(str, decision.legal))})")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._channel.answers.put(int(action))
        self._advance()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._last[agent]

    def render(self) -> str | None:
        if self.render_mode is None or self._game is None:
            return None
        hands = self._game.hands
        text = (str(hands[-1]) + "\n" if hands else "") + "stacks: " + ", ".join(
            f"seat {s} ${m}" for s, m in enumerate(self._game.money))
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self._stop_game()

    # ----- the observation vector (docs/env.md) -----------------------------------------------------------------
    def _blank(self) -> dict[str, np.ndarray]:
        return {"observation": np.zeros(self._size, np.float32),
                "action_mask": np.zeros(N_ACTIONS, np.int8)}

    def _encode(self, decision: Decision) -> dict[str, np.ndarray]:
        obs, n = decision.obs, self.n_players
        total = float(self.rules.starting_money * n) or 1.0
        vec = np.zeros(self._size, np.float32)
        at = 0

        def put(values: Sequence[float] | np.ndarray) -> None:
            nonlocal at
            vec[at:at + len(values)] = values
            at += len(values)

        def cards(ids: Sequence[int], width: int = 54) -> np.ndarray:
            row = np.zeros(width, np.float32)
            row[[c for c in ids if c < width]] = 1.0
            return row

        put(np.eye(len(PHASES), dtype=np.float32)[PHASES.index(decision.phase)])
        put(cards(obs.hand))
        put(cards(obs.shared))
        put(cards([] if obs.new_treasure is None else [obs.new_treasure]))
        put(cards([decision.pending] if decision.pending >= 0 else []))
        seats = [(obs.seat + i) % n for i in range(n)]  # row 0 is me, then the seats after mine
        for s in seats:
            put(cards(obs.treasures[s], 52))
        for s in seats:
            put(cards(obs.revealed[s] or ()))
        for s in seats:
            put([min(obs.money[s] / total, 1.0), min(obs.bets[s] / total, 1.0), min(obs.committed[s] / total, 1.0),
                 float(obs.folded[s]), float(obs.in_hand[s]), float(obs.all_in[s]), float(s == obs.dealer),
                 float(s == obs.last_folder)])
        put([min(x / total, 1.0) for x in (obs.pot, obs.to_call, obs.min_raise_to, obs.max_raise_to)]
            + [obs.round / 3, min(obs.deck_size / 54, 1.0), min(obs.hand_no / self.rules.max_hands, 1.0)])
        put([float(obs.wild_ranks >> r & 1) for r in range(13)])
        mask = np.zeros(N_ACTIONS, np.int8)
        mask[decision.legal] = 1
        return {"observation": vec, "action_mask": mask}

