"""A PettingZoo AEC environment of Treasure Poker: learning agents at a table with built-in bots.

``env()`` / ``raw_env()`` as PettingZoo's classic games offer them. One episode is one game; the learning
agents ``player_0 .. player_{k-1}`` sit at seats 0..k-1 and the ``bots`` (built-in strategies by name)
fill the other seats. ``docs/env.md`` documents the action set, the observation vector and the rewards.

How: the environment steps the game's state (`GameState`), no thread. ``Game.play_until`` asks the bots
through their seats exactly as a tournament's games do and stops at the next question for a learning seat
(a `questions.Decision`, with its legal options); each such question becomes one or more agent steps
(`AgentStep`: a Spades move is one card a step, a steal its card then its Diamond), and the answer is played
with ``GameState.apply``, which checks it against the state's own options.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .bots.driver import Game
from .bots.loader import load_strategy
from .game.history import GameResult
from .game.questions import QUESTIONS, Decision
from .game.rules import RuleSet
from .game.strategy import CALL, RAISE, Action, Observation, Steal, Strategy

FOLD_ACTION, CALL_ACTION, MIN_RAISE, HALF_POT, POT, TWO_POTS, ALL_IN, YES, NO = range(9)
CARD_BASE = 9  # action CARD_BASE + c names card c (0..51, rank * 4 + suit)
N_ACTIONS = CARD_BASE + 52
RAISE_ACTIONS = {MIN_RAISE: None, HALF_POT: 0.5, POT: 1.0, TWO_POTS: 2.0, ALL_IN: None}
STEPS = {"bet": ("bet",), "spades": ("spades",), "hearts": ("hearts",), "joker_treasure": ("joker_treasure",),
         "make_room": ("make_room",), "steal": ("steal_card", "steal_diamond"), "keep_playing": ("keep_playing",)}
"""Each question of the catalogue (`questions.QUESTIONS`) as the agent steps (phases) that answer it."""
assert STEPS.keys() == QUESTIONS.keys(), "every question of the catalogue needs its agent steps"
PHASES = tuple(phase for steps in STEPS.values() for phase in steps)
"""The phases of ``info["phase"]``, in the order of the observation's one-hot (docs/env.md)."""
PLAYER_FEATURES = 8  # money, bet, committed, folded, in hand, all in, dealer, last folder
ACTION_NAMES = ("fold", "check/call", "raise: minimum", "raise: half pot", "raise: pot", "raise: two pots",
                "all in", "yes", "no") + tuple(f"card {c}" for c in range(52))
__all__ = ["ACTION_NAMES", "N_ACTIONS", "TreasurePokerEnv", "env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order and bounds checks (see `TreasurePokerEnv` for the arguments)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs)))


def raw_env(**kwargs: Any) -> TreasurePokerEnv:
    return TreasurePokerEnv(**kwargs)


_MORE = object()  # what an agent step's answer is when the question needs another step


@dataclass
class AgentStep:
    """One agent step of a question to a learning seat: the phase, the legal actions, what an action answers.

    ``answer(action)`` is the answer to the state's question, or ``_MORE`` when the question goes on (``next``).
    """

    seat: int
    phase: str
    obs: Observation
    legal: list[int]
    options: tuple = ()
    pending: int = -1  # steal_diamond: the card chosen to take
    answer: Callable[[int], Any] = lambda action: action
    next: AgentStep | None = None


def agent_step(d: Decision, obs: Observation) -> AgentStep:
    """The first agent step of the state's question ``d`` to a learning seat, its options read from ``d``."""
    return _FIRST_STEP[d.kind](d, obs)


def _bet_step(d: Decision, obs: Observation) -> AgentStep:
    legal = [FOLD_ACTION, CALL_ACTION] + (list(RAISE_ACTIONS) if RAISE in d.options else [])
    return AgentStep(d.seat, "bet", obs, legal, answer=lambda a: bet_action(a, obs))


def _yes_no_step(d: Decision, obs: Observation) -> AgentStep:
    assert d.options == (True, False)
    return AgentStep(d.seat, d.kind, obs, [YES, NO], answer=lambda a: a == YES)


def _spades_step(d: Decision, obs: Observation, chosen: tuple[int, ...] = ()) -> AgentStep:
    """One Spades Treasure a step (any subset of the options), NO when done."""
    left = sorted(c for c in d.options if c not in chosen)
    step = AgentStep(d.seat, "spades", obs, [NO] + [CARD_BASE + c for c in left])

    def answer(action: int) -> Any:
        if action == NO:
            return chosen
        now = (*chosen, action - CARD_BASE)
        if len(now) == len(d.options):
            return now
        step.next = _spades_step(d, obs, now)
        return _MORE

    step.answer = answer
    return step


def _joker_step(d: Decision, obs: Observation) -> AgentStep:
    return AgentStep(d.seat, "joker_treasure", obs, [CARD_BASE + c for c in d.options], d.options,
                     answer=card_or_none)


def _room_step(d: Decision, obs: Observation) -> AgentStep:
    zone = sorted(c for c in d.options if c is not None)
    return AgentStep(d.seat, "make_room", obs, [NO] + [CARD_BASE + c for c in zone], (d.treasure,),
                     answer=card_or_none)


def _steal_step(d: Decision, obs: Observation) -> AgentStep:
    """The card to take (NO: stop), then, when more than one Diamond can pay for it, the Diamond to spend."""
    steals: tuple[Steal, ...] = tuple(o for o in d.options if o is not None)
    cards = sorted({s.card for s in steals})
    step = AgentStep(d.seat, "steal_card", obs, [NO] + [CARD_BASE + c for c in cards], steals)

    def answer(action: int) -> Any:
        if action == NO:
            return None
        card = action - CARD_BASE
        payers = [s for s in steals if s.card == card]
        if len(payers) == 1:
            return payers[0]
        by_diamond = {s.diamond: s for s in payers}
        step.next = AgentStep(d.seat, "steal_diamond", obs, [CARD_BASE + c for c in sorted(by_diamond)], steals,
                              card, answer=lambda a: by_diamond[a - CARD_BASE])
        return _MORE

    step.answer = answer
    return step


_FIRST_STEP: dict[str, Callable[[Decision, Observation], AgentStep]] = {
    "bet": _bet_step, "spades": _spades_step, "hearts": _yes_no_step, "joker_treasure": _joker_step,
    "make_room": _room_step, "steal": _steal_step, "keep_playing": _yes_no_step}
assert _FIRST_STEP.keys() == QUESTIONS.keys()


class _Learner(Strategy):
    """A learning agent's seat in the game. The environment answers its questions (``Game.play_until`` hands
    them over); only the vote before the first hand, taken as the game is built, is answered here: taking the
    seat is the answer. It overrides every question, so the state asks the agent all of them."""

    def __init__(self, agent: str) -> None:
        self.agent = agent

    def __repr__(self) -> str:
        return self.agent

    def keep_playing(self, obs: Observation) -> bool:
        return obs.hand_no == 0 or self._not_here()

    def _not_here(self, *_: Any) -> Any:
        raise AssertionError(f"{self.agent} is asked by the environment, not through its seat")

    act = move_spades = draw_heart = choose_joker_treasure = make_room = steal = _not_here  # type: ignore[assignment]


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
        self._learners = range(learners)  # the learning seats: the environment answers their questions
        self._game: Game | None = None
        self._seed_source = np.random.default_rng()
        self._rewarded = 0  # hands whose chips were handed out as rewards
        self._last: dict[str, dict[str, np.ndarray]] = {}
        self._step: AgentStep | None = None  # the agent step that answers (part of) the state's question
        self.result: GameResult | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_source = np.random.default_rng(seed)
        game_seed = int(self._seed_source.integers(2**63))
        players: list[Strategy] = [_Learner(agent) for agent in self.possible_agents]
        players += [load_strategy(spec) for spec in self.bots]
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._last = {agent: self._blank() for agent in self.agents}
        self._rewarded, self.result, self._step = 0, None, None
        self._game = Game(players, self.rules, game_seed)  # asks the bots' votes before the first hand
        self._advance()

    def _advance(self) -> None:
        """Play on (the bots asked through their seats) to the next question to a learner, or the game's end, and
        make it the environment's state."""
        game = self._game
        assert game is not None
        while (decision := game.play_until(self._learners)) is None and not game.over:
            pass  # a hand is over: its chips are handed out below
        self._hand_out_rewards()
        if decision is None:
            self.result = game.result()
            truncated = self.result.end_reason == "hand_limit"
            for agent in self.agents:
                (self.truncations if truncated else self.terminations)[agent] = True
                # the outcome, without the wall-clock fields of the result (env.unwrapped.result has them all)
                self.infos[agent] = {"final_money": self.result.final_money, "win_shares": self.result.win_shares,
                                     "end_reason": self.result.end_reason, "hands_played": self.result.hands_played}
            self._step = None
            self.agent_selection = self.agents[0]
            self._accumulate_rewards()
            return
        game.seats[decision.seat].decisions += 1  # the agent's decisions count in the result, as a bot's do
        self._show(agent_step(decision, game.state.observation(decision)))

    def _show(self, step: AgentStep) -> None:
        """Make ``step`` the environment's state: the acting agent, its observation and info."""
        agent = self.possible_agents[step.seat]
        self._step = step
        self._last[agent] = self._encode(step)
        self.infos[agent] = {"observation": step.obs, "phase": step.phase, "options": step.options}
        self.agent_selection = agent
        self._accumulate_rewards()

    def _hand_out_rewards(self) -> None:
        """Each finished hand's net chips, as rewards to the learning seats."""
        assert self._game is not None
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
        step, game = self._step, self._game
        assert step is not None and game is not None
        if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer) or \
                int(action) not in step.legal:  # '1', 1.0, 1.5 and True are not actions
            raise ValueError(f"action {action!r} is not legal for {agent} now ({step.phase}; legal: "
                             f"{', '.join(map(str, step.legal))}; an action is an int)")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        answer = step.answer(int(action))
        if answer is _MORE:
            assert step.next is not None
            self._show(step.next)
        else:
            game.state.apply(answer)  # checked against the state's own options
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
        """Nothing to stop: the game is a state the environment steps (PettingZoo's API asks for the method)."""

    # ----- the observation vector (docs/env.md) -----------------------------------------------------------------
    def _blank(self) -> dict[str, np.ndarray]:
        return {"observation": np.zeros(self._size, np.float32),
                "action_mask": np.zeros(N_ACTIONS, np.int8)}

    def _encode(self, step: AgentStep) -> dict[str, np.ndarray]:
        """The observation vector (docs/env.md): the card blocks as the positions of their ones, set at once, then
        the numbers."""
        obs, n = step.obs, self.n_players
        total = float(self.rules.starting_money * n) or 1.0
        at = len(PHASES)
        ones = [PHASES.index(step.phase)]
        for block in (obs.hand, obs.shared, () if obs.new_treasure is None else (obs.new_treasure,),
                      (step.pending,) if step.pending >= 0 else ()):
            ones += [at + c for c in block]
            at += 54
        seats = [(obs.seat + i) % n for i in range(n)]  # row 0 is me, then the seats after mine
        for s in seats:
            ones += [at + c for c in obs.treasures[s] if c < 52]
            at += 52
        for s in seats:
            ones += [at + c for c in obs.revealed[s] or ()]
            at += 54
        values: list[float] = []
        money, bets, committed, folded, in_hand, all_in = (obs.money, obs.bets, obs.committed, obs.folded,
                                                            obs.in_hand, obs.all_in)
        for s in seats:
            values += (min(money[s] / total, 1.0), min(bets[s] / total, 1.0), min(committed[s] / total, 1.0),
                       float(folded[s]), float(in_hand[s]), float(all_in[s]), float(s == obs.dealer),
                       float(s == obs.last_folder))
        values += [min(x / total, 1.0) for x in (obs.pot, obs.to_call, obs.min_raise_to, obs.max_raise_to)]
        values += (obs.round / 3, min(obs.deck_size / 54, 1.0), min(obs.hand_no / self.rules.max_hands, 1.0))
        wild = obs.wild_ranks
        values += [float(wild >> r & 1) for r in range(13)]
        vec = np.zeros(self._size, np.float32)
        vec[ones] = 1.0
        vec[at:] = values
        mask = np.zeros(N_ACTIONS, np.int8)
        mask[step.legal] = 1
        return {"observation": vec, "action_mask": mask}

