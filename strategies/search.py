"""Search: determinized Monte Carlo search over the steppable game state (the reference player, issue 27).

For each question it rebuilds the position from what it sees (`resample.state_from_observation`, which draws the
cards it cannot see uniformly), tries each of a few answers on a copy of that same determinization, plays the hand
out with a fast rollout policy, and values the end of the hand; after ``k`` determinizations it takes the answer
with the best mean value (bets: a `Mixed` softmax over the values, so the engine draws it).

- Answers tried. Bets: fold (when free only if the New Treasure is there to win), check or call, half pot, pot,
  all in (deduplicated, clamped to the limits). Spades: every subset of its Spades (up to 3; else none or all).
  Hearts: draw or stop. Joker Treasure, make_room, steal: every option.
- Rollouts: everyone checks when free. Facing a bet it calls; the others call only with a hand whose category at
  the end of this determinization's board (one batched evaluation per determinization) is what the bet's share of
  the pot asks for (anything to 20%, a pair to 35%, two pair to 50%, three of a kind beyond), else fold: so a big
  bet is called by the hands that beat it, not by everything. Spades stay, every Hearts card is drawn, the Joker
  Treasure is the highest card, nobody makes room or steals. Common random numbers: every answer meets the same
  cards.
- Value, in chips, at the end of the hand: its stack, plus ``treasure_value`` per Treasure it holds less the mean
  held by the others (so a steal is worth something and a Spades move costs a Treasure), plus ``win_value`` times
  its chance to win the game: its share of the win when the hand ends the game (the deck ran out, the hand cap,
  fewer than two can pay), else its share of the chips on the table.
- Budget: ``iterations`` rollouts per decision, split across the answers tried; scaled down to a quarter where the
  pot (with the call) is under ``stake_chips``; one determinization for answers whose outcome no hidden card
  changes (Joker Treasure, make_room, steal); none for forced answers. Deterministic given its seed (``self.rng``).
- keep_playing: always go on (searching the rest of a game is beyond a hand's rollout).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from treasure_sim.game import evaluator
from treasure_sim.game.cards import SPADES, SUIT, value_of
from treasure_sim.game.gamestate import GameState
from treasure_sim.game.resample import state_from_observation
from treasure_sim.game.strategy import CALL, CHECK, FOLD, RAISE, Action, Mixed, Observation, Steal, Strategy


class SearchBot(Strategy):
    name = "search"

    def __init__(self, iterations: int = 200, temperature: float = 0.05, treasure_value: float = 2.0,
                 win_value: float = 100.0, stake_chips: float = 12.0, max_spades: int = 3) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations}")
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        self.iterations = iterations
        self.temperature = temperature
        self.treasure_value = treasure_value
        self.win_value = win_value
        self.stake_chips = stake_chips
        self.max_spades = max_spades
        self.rollouts = 0  # rollouts played so far (for benchmarks)
        self.searches = 0  # decisions searched so far
        self.asked: set[str] = set()  # the methods the engine has called (for tests)
        self._zones: tuple[int, tuple] = (-1, ())  # (hand_no, zones) at its last betting decision
        self._moved: tuple[int, tuple[int, ...]] = (-1, ())  # (hand_no, Spades it moved)

    # ----- the search ---------------------------------------------------------------------------------------
    def _budget(self, obs: Observation) -> int:
        stake = obs.pot + obs.to_call
        scale = min(1.0, max(0.25, stake / self.stake_chips)) if self.stake_chips > 0 else 1.0
        return max(1, int(self.iterations * scale))

    def _moved_spades(self, obs: Observation) -> dict[int, tuple[int, ...]]:
        """Spades moved to hands in step 11 this hand, as far as it knows: its own, and those gone from the zone of
        a seat still in since its last betting decision (their hands are not shown before step 12)."""
        moved: dict[int, tuple[int, ...]] = {}
        if self._moved[0] == obs.hand_no:
            moved[obs.seat] = self._moved[1]
        hand_no, zones = self._zones
        if hand_no == obs.hand_no:
            for o in obs.active:
                if o != obs.seat and obs.revealed[o] is None:
                    gone = tuple(c for c in zones[o] if SUIT[c] == SPADES and c not in obs.treasures[o])
                    if gone:
                        moved[o] = gone
        return moved

    def _values(self, obs: Observation, answers: list, k: int, **given) -> list[float]:
        """Mean value of each answer over ``k`` determinizations (every answer meets the same ones)."""
        me = obs.seat
        moved = self._moved_spades(obs)
        sums = [0.0] * len(answers)
        for _ in range(k):
            root = state_from_observation(obs, self.rng, moved=moved, **given)
            strength = _final_categories(root)
            for i, answer in enumerate(answers):
                state = root.clone() if i < len(answers) - 1 else root
                state.apply(answer)
                sums[i] += self._rollout(state, me, strength)
        self.searches += 1
        self.rollouts += k * len(answers)
        return [s / k for s in sums]

    def _rollout(self, state: GameState, me: int, strength: list[int]) -> float:
        """Play the hand out and value its end for ``me``. Everyone checks when free; facing a bet, ``me`` calls and
        the others call only with a final hand category (``strength``) that the bet's share of the pot asks for;
        default Treasure steps."""
        while (d := state.decision(through_hands=False)) is not None:
            kind = d.kind
            if kind == "bet":
                lim = d.limits
                if lim[0] == 0:
                    state.bet(CHECK, d.my_bet)
                elif d.seat != me and strength[d.seat] < _needed(lim[0] / (state.hand.pot + lim[0])):
                    state.bet(FOLD, d.my_bet)
                else:
                    state.bet(CALL, d.my_bet + lim[0])
            elif kind == "spades":
                state.answer(())
            elif kind == "hearts":
                state.answer(True)
            elif kind == "joker_treasure":
                state.answer(d.default)
            elif kind == "keep_playing":  # a hand boundary reached without a pause: stop here
                break
            else:  # make_room, steal
                state.answer(None)
        return self._value(state, me)

    def _value(self, state: GameState, me: int) -> float:
        t = state.table
        zones, values = t.treasures, t.values
        worth = [sum(self.treasure_value + 0.01 * values[c] for c in z) for z in zones]
        others = (sum(worth) - worth[me]) / max(t.n - 1, 1)
        value = t.money[me] + worth[me] - others
        if self.win_value:
            money = t.money
            if _ends_game(state):
                top = max(money)
                if money[me] == top:
                    value += self.win_value / sum(1 for m in money if m == top)
            else:  # the game goes on: its chance to win it, taken as its share of the chips
                value += self.win_value * money[me] / max(sum(money), 1)
        return value

    # ----- betting ---------------------------------------------------------------------------------------------
    def act(self, obs: Observation) -> Action | Mixed:
        self.asked.add("act")
        self._zones = (obs.hand_no, obs.treasures)
        answers = self._bet_answers(obs)
        if len(answers) == 1:
            return answers[0]
        k = max(1, self._budget(obs) // len(answers))
        values = self._values(obs, answers, k)
        return self._mixed(obs, answers, values)

    def _bet_answers(self, obs: Observation) -> list[Action]:
        free = CHECK in obs.legal
        answers = []
        if not free or (obs.new_treasure is not None and "new_treasure" not in obs.restricted):
            answers.append(Action.fold())  # folding when free can only win the New Treasure
        answers.append(Action.check() if free else Action.call())
        if RAISE in obs.legal:
            high = max(obs.bets)
            pot = obs.pot + obs.to_call
            totals = []
            for target in (high + pot / 2, high + pot, obs.max_raise_to):
                total = int(min(max(round(target), obs.min_raise_to), obs.max_raise_to))
                if total not in totals:
                    totals.append(total)
            answers.extend(Action.raise_to(t) for t in totals)
        return answers

    def _mixed(self, obs: Observation, answers: list[Action], values: list[float]) -> Mixed:
        """A softmax over the values at ``temperature`` times the pot (with the call) in chips; chances under 0.1%
        dropped."""
        best = max(values)
        scale = self.temperature * max(obs.pot + obs.to_call, 1)
        weights = [math.exp((v - best) / scale) for v in values]
        total = sum(weights)
        kept = [(a, w / total) for a, w in zip(answers, weights, strict=True) if w / total >= 1e-3]
        norm = sum(p for _, p in kept)
        chances = [p / norm for _, p in kept]
        chances[-1] = 1.0 - sum(chances[:-1])
        return Mixed(tuple(a for a, _ in kept), tuple(chances))

    # ----- the Treasure steps ------------------------------------------------------------------------------------
    def move_spades(self, obs: Observation) -> list[int]:
        self.asked.add("move_spades")
        spades = [c for c in obs.my_treasures if SUIT[c] == SPADES]
        if "spades" in obs.restricted or not spades:
            return []
        if len(spades) <= self.max_spades:
            answers = [list(c) for r in range(len(spades) + 1) for c in combinations(spades, r)]
        else:
            answers = [[], spades]
        k = max(1, self._budget(obs) // len(answers))
        values = self._values(obs, answers, k)
        choice = answers[int(np.argmax(values))]
        self._moved = (obs.hand_no, tuple(choice))
        return choice

    def draw_heart(self, obs: Observation) -> bool:
        self.asked.add("draw_heart")
        answers = [True, False]
        k = max(1, self._budget(obs) // 2)
        values = self._values(obs, answers, k)
        return bool(values[0] >= values[1])

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        self.asked.add("choose_joker_treasure")
        if len(options) == 1:
            return options[0]
        values = self._values(obs, list(options), 1)
        ace = obs.rules.ace_value
        return max(zip(values, options, strict=True), key=lambda vc: (vc[0], value_of(vc[1], ace)))[1]

    def make_room(self, obs: Observation, treasure: int) -> int | None:
        self.asked.add("make_room")
        answers: list[int | None] = [None, *obs.my_treasures]
        values = self._values(obs, answers, 1, treasure=treasure)
        return answers[int(np.argmax(values))]

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        self.asked.add("steal")
        answers: list[Steal | None] = [None, *options]
        values = self._values(obs, answers, 1, options=options)
        return answers[int(np.argmax(values))]


def _final_categories(state: GameState) -> list[int]:
    """Per seat, the category (0 high card .. 9 five of a kind) of its hand with the whole board of this
    determinization (the shared cards still to come are the top of its deck); -1 for a seat with no cards."""
    h, t = state.hand, state.table
    if h is None:
        return [-1] * t.n
    board = h.shared + t.deck_top_first()[:5 - len(h.shared)]
    seats = [s for s in range(t.n) if h.hands[s]]
    scores = evaluator.score_rows([h.hands[s] + board for s in seats], [t.wilds[s] for s in seats])
    strength = [-1] * t.n
    for s, c in zip(seats, evaluator.category(scores).tolist(), strict=True):
        strength[s] = c
    return strength


def _needed(share: float) -> int:
    """The least final category a rollout opponent calls with, facing a bet that is ``share`` of the pot after
    the call: anything to a fifth, a pair to 35%, two pair to a half, three of a kind beyond."""
    return 0 if share <= 0.2 else 1 if share <= 0.35 else 2 if share <= 0.5 else 3


def _ends_game(state: GameState) -> bool:
    """The hand just played ends the game (rulings §7): the deck ran out, the hand cap, or fewer than two can pay
    the next ante."""
    h, t = state.hand, state.table
    if state.over or h is None:
        return True
    if h.void or h.ran_out or t.hand_no >= state.rules.max_hands:
        return True
    ante = state.rules.ante_at(t.hand_no + 1)
    return sum(1 for s in range(t.n) if not t.out[s] and t.money[s] >= ante) < 2

