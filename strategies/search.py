"""Search: determinized Monte Carlo search over the steppable game state (the reference player, issue 27).

For each question it rebuilds the position from what it sees (`resample.state_from_observation`), tries each of a
few answers on a copy of that same determinization, plays the hand out with a fast rollout policy, and values the
end of the hand; after ``k`` determinizations it takes the answer with the best mean value (bets: a `Mixed`
softmax over the values, so the engine draws it).

- Ranges (``ranges``): the other seats' hole cards are not drawn uniformly at a betting or Spades decision but from
  a range their bets this hand suggest (`_ranges`): every pair of unseen cards gets its strength on the board of
  each betting round (its equity against one random hand, on ``range_samples`` shared completions, Clubs wilds
  counted), and a seat that raises a share f of its decisions (counted over the game) is taken to raise with the
  top f of its range, to call above the bottom share it folds facing bets, to check mostly below its raising range.
- Answers tried. Bets: fold (when free only if the New Treasure is there to win), check or call, half pot, pot,
  all in (only when it is at most ``allin_pots`` pots; deduplicated, clamped to the limits). Spades: every subset
  of its Spades (up to ``max_spades``; else none or all). Hearts: draw or stop. Joker Treasure, make_room, steal:
  every option.
- Rollouts: a seat facing a bet calls when its strength now is what the bet's share of the pot asks for, or when
  its hand at the end of this determinization's board is (a made hand calls); an opponent bets (half the pot when
  checked to in the round under way, the pot in a later round) or raises the pot, at most once a round, with a hand
  in its raising range in the round under way (``reraise`` for raises) and with ``value_category`` or better at the
  end of the board in a later round (``later_bets``); a seat seen folding for New Treasures folds for one worth more
  than the pot. Spades stay, every Hearts card is drawn; the Joker Treasure, make_room and steals are greedy by the
  Treasure valuation. Common random numbers: every answer meets the same cards.
- Value, in chips, at the end of the hand: its stack plus ``win_value`` times its chance to win the game: its
  share of the win if the hand ends the game, else the chance that its lead (chips plus Treasures) over each other
  seat survives a random walk of the hands left. A Treasure is worth ``treasure_value`` plus ``treasure_scale`` times
  what it is worth to its holder for the rest of the game (both fading over the last 10 hands; ``fade_all`` off:
  only the first) (`TreasureModel`,
  as `treasure_hunter` prices it: Clubs by the wilds it gives, Hearts by the draws, Diamonds by the steals in
  reach).
- Budget: ``iterations`` rollouts per decision, split across the answers tried; scaled down to a quarter where the
  pot (with the call) is under ``stake_chips``; one determinization for answers whose outcome no hidden card
  changes (Joker Treasure, make_room, steal); none for forced answers. Deterministic given its seed (``self.rng``).
- keep_playing: always go on.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from itertools import combinations

import numpy as np

from treasure_sim.game.cards import SPADES, SUIT, value_of
from treasure_sim.game.gamestate import GameState
from treasure_sim.game.history import HandRecord
from treasure_sim.game.resample import state_from_observation
from treasure_sim.game.rules import RuleSet
from treasure_sim.game.strategy import CALL, CHECK, FOLD, RAISE, Action, Mixed, Observation, Steal, Strategy

from ._montecarlo import seat_masks, unseen_cards
from ._ranges import BOARD_AT_ROUND, ActionModel, BoardScores, Ranges, pairs_of, rank01
from ._search_util import ends_game, final_categories, greedy_steal, needed
from ._treasure import TreasureModel, Valuer


class SearchBot(Strategy):
    name = "search"

    def __init__(self, iterations: int = 200, temperature: float = 0.05, treasure_value: float = 3.0,
                 treasure_scale: float = 1.0, win_value: float = 100.0, stake_chips: float = 12.0,
                 max_spades: int = 3, ranges: bool = True, range_samples: int = 12, allin_pots: float = 2.0,
                 min_hands_left: float = 4.0, reraise: bool = True, later_bets: bool = True,
                 value_category: int = 3, fade_all: bool = True, objective: str = "ahead",
                 multiway: bool = True, call_later: str = "auto", quiet_after_fold: bool = True,
                 late_folds: bool = True, free_fold_margin: float = 0.2, late_share: bool = False,
                 nt_calls: bool = False) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations}")
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        if objective not in ("win", "ahead"):
            raise ValueError(f"objective must be 'win' or 'ahead', got {objective!r}")
        self.objective = objective
        self.multiway = multiway
        if call_later not in ("auto", "equity", "category", "best"):
            raise ValueError(f"call_later must be 'auto', 'equity', 'category' or 'best', got {call_later!r}")
        self.call_later = call_later
        self.quiet_after_fold = quiet_after_fold
        self.late_folds = late_folds
        self.free_fold_margin = free_fold_margin
        self.late_share = late_share
        self.nt_calls = nt_calls
        self._nt_ok = True  # it may take the New Treasure (not barred from it)
        self.iterations = iterations
        self.temperature = temperature
        self.treasure_value = treasure_value
        self.treasure_scale = treasure_scale
        self.treasure_model = TreasureModel()
        self._valuer: tuple[tuple, Valuer | None] = ((), None)
        self.win_value = win_value
        self.stake_chips = stake_chips
        self.max_spades = max_spades
        self.ranges = ranges
        self.allin_pots = allin_pots
        self.min_hands_left = min_hands_left
        self.reraise = reraise
        self.later_bets = later_bets
        self.value_category = value_category
        self.fade_all = fade_all
        self.range_samples = range_samples
        self.model = ActionModel(2)
        self._moves = [0.0, 0]  # sum of squared chips won or lost per seat and hand, hands
        self._spread = 50.0
        self._late = 1.0
        self._boards: dict[tuple[int, int], BoardScores] = {}  # (hand_no, board cards) -> the pairs' scores
        self.rollouts = 0  # rollouts played so far (for benchmarks)
        self.searches = 0  # decisions searched so far
        self.asked: set[str] = set()  # the methods the engine has called (for tests)
        self._zones: tuple[int, tuple] = (-1, ())  # (hand_no, zones) at its last betting decision
        self._moved: tuple[int, tuple[int, ...]] = (-1, ())  # (hand_no, Spades it moved)

    def setup(self, seat: int, n_players: int, rules: RuleSet, rng: np.random.Generator) -> None:
        super().setup(seat, n_players, rules, rng)
        self.model = ActionModel(n_players)
        self._moves = [0.0, 0]
        self._boards = {}
        self._zones = (-1, ())
        self._moved = (-1, ())

    def on_hand_end(self, record: HandRecord) -> None:
        self.model.update(record)
        self._moves[0] += sum(p * p for p in record.payouts) / max(sum(record.in_hand), 1)
        self._moves[1] += 1

    def _swing(self) -> float:
        """The mean square of a seat's chips won or lost in a hand this game (prior: 8 chips, weight 10 hands)."""
        return (self._moves[0] + 10 * 64.0) / (self._moves[1] + 10)

    # ----- ranges -------------------------------------------------------------------------------------------
    def _board(self, obs: Observation, board_len: int, unseen: list[int]) -> BoardScores:
        """The pairs' scores on the board of ``board_len`` shared cards, memoized for the hand."""
        key = (obs.hand_no, board_len)
        got = self._boards.get(key)
        if got is None:
            got = self._boards[key] = BoardScores(obs.shared[:board_len], unseen, obs.hand[:2], self.rng,
                                                  self.range_samples)
        return got

    def _ranges(self, obs: Observation, moved: dict[int, tuple[int, ...]]) -> Ranges | None:
        """The hidden hole cards' ranges at a betting or Spades decision: per opponent still in, weights over the
        pairs it could hold from its actions this hand (`ActionModel`: its strength ranked within its range), its
        strength now (equity against my possible hands), and my equity against its range."""
        if not self.ranges or obs.phase not in ("bet", "spades"):
            return None
        gone = {c for cards in moved.values() for c in cards}
        unseen = [c for c in unseen_cards(obs).tolist() if c not in gone]
        pa, pb = pairs_of(unseen)
        if len(pa) == 0:
            return None
        me = obs.wild_ranks
        now = self._board(obs, len(obs.shared), unseen)
        cols_now = now.index[pa, pb]
        ranges = Ranges(pa, pb)
        # the chance a seat folds for the New Treasure in a rollout: per hand, or (``late_share``, three or more dealt
        # in) per free decision where such a fold is late (the river, two left), where ``late_folds`` lets it fold
        share = self.model.late_fold_share if self.late_share and sum(obs.in_hand) > 2 else self.model.free_fold_share
        for o in obs.active:
            if o == obs.seat or obs.revealed[o] is not None:
                continue
            wild = seat_masks(obs.treasures[o], obs.rules)[0]  # its Clubs, as far as it can see
            strength = {}
            for r in {a.round for a in obs.history if a.seat == o}:
                board = self._board(obs, BOARD_AT_ROUND[r], unseen)
                strength[r] = rank01(board.strength(wild, me)[board.index[pa, pb]])
            w = self.model.likelihood(o, obs.history, strength, len(pa))
            w = w / w.sum()
            q_now = now.strength(wild, me)
            full = np.zeros(now.n)
            full[cols_now] = w
            rank_now = np.zeros(now.n)
            rank_now[cols_now] = rank01(q_now[cols_now])
            ranges.add(o, w, now.index, q_now, rank_now, now.mine_against(me, wild, full),
                       1.0 - self.model.raise_share(o), self.model.fold_share(o), share(o))
        return ranges

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
        ranges = self._ranges(obs, moved)
        if self._valuer[0] != (obs.hand_no, obs.treasures):
            self._valuer = ((obs.hand_no, obs.treasures), self.treasure_model.at(obs))
        # how far the chips may still move: the hands left times the chips a hand moves (seen so far), as the
        # scale of a normal's spread (times sqrt 2 for a difference of two stacks)
        left = max(self._valuer[1].hands_left, self.min_hands_left)
        self._spread = max(math.sqrt(2.0 * left * self._swing()), 1.0)
        self._late = min(1.0, self._valuer[1].hands_left / 10.0)  # a card's flat worth fades in the last 10 hands
        self._nt_ok = "new_treasure" not in obs.restricted
        sums = [0.0] * len(answers)
        for _ in range(k):
            holes = ranges.sample(self.rng) if ranges is not None else None
            folding = ranges.folding(self.rng) if ranges is not None else ()
            root = state_from_observation(obs, self.rng, moved=moved, holes=holes, **given)
            for i, answer in enumerate(answers):
                state = root.clone() if i < len(answers) - 1 else root
                state.apply(answer)
                sums[i] += self._rollout(state, me, ranges, folding)
        self.searches += 1
        self.rollouts += k * len(answers)
        return [s / k for s in sums]

    def _rollout(self, state: GameState, me: int, ranges: Ranges | None, folding: Collection[int] = ()) -> float:
        """Play the hand out and value its end for ``me``. A seat facing a bet calls when its hand's percentile now is
        what the bet's share of the pot asks for (``me`` by its equity against the ranges, the others by their
        sampled hole cards, loosened for a seat that seldom folds) or an opponent's hand at the end of the board is
        a made hand the share asks for, else folds. An opponent bets or raises at most once a round (`strong`): in
        the round under way with a hand in its raising range (half the pot when checked to, the pot as a raise), in
        a later round with ``value_category`` or better at the end of the board (the pot). Spades stay, every Hearts
        card is drawn; the Joker Treasure, make_room and steals are greedy by the Treasure valuation. The seats in
        ``folding`` fold at their first free decision while a New Treasure is there (as often as they have been
        seen to), when it is worth more than the pot."""
        h = state.hand
        rnd = h.round if h is not None else -1
        opened: set[int] = set()  # the rounds in which an opponent has bet or raised (once a round)
        valuer = self._valuer[1] if self.treasure_scale else None
        final = final_categories(state) if ranges is not None else []
        nt = h.new_treasure if h is not None else None
        racing = (*folding, me) if self.late_folds and self._nt_ok and ranges is not None else folding
        worth_nt = {s: (valuer.value(nt, s) if valuer is not None else self.treasure_value) + self.treasure_value
                    for s in racing} if nt is not None else {}

        def strong(s: int, r: int) -> bool:
            """An opponent bets or raises: in the round under way with a hand in its raising range, in a later round
            with ``value_category`` or better at the end of this determinization's board."""
            if s == me or ranges is None or s not in ranges.weights:
                return False
            if self.quiet_after_fold and state.hand.folded[me]:
                return False  # the searcher is out: the others' fights only add noise to its value
            if r == rnd:
                return ranges.now(s, state.hand.hole[s])[1] >= ranges.top[s]
            return self.later_bets and final[s] >= self.value_category

        def ask(s: int, lim, my_bet: int, legal) -> tuple[str, int]:
            hand = state.hand
            if lim[0] == 0:
                if s in folding and hand.new_treasure is not None and hand.pot <= worth_nt.get(s, 0.0) and (
                        not self.late_folds or hand.round == 3 or hand.live == 2):
                    # a seat that folds for the New Treasure, when it is worth more than the pot (``late_folds``: it
                    # waits, as waiting is free, for the river or for a fold sure to be the last)
                    return FOLD, my_bet
                if (s == me and self.late_folds and hand.round == 3 and hand.live > 2 and hand.new_treasure is not None
                        and worth_nt.get(s, 0.0) > hand.pot * self._my_equity(ranges, hand.folded)):
                    return FOLD, my_bet  # the searcher races for the New Treasure on the river (multiway)
                if lim[2] and hand.round not in opened and strong(s, hand.round):
                    opened.add(hand.round)
                    pot = hand.pot if hand.round > rnd else (hand.pot + 1) // 2  # half the pot now, the pot later
                    return RAISE, min(max(my_bet + pot, lim[1]), lim[2])
                return CHECK, my_bet
            share = lim[0] / (hand.pot + lim[0])
            if (self.nt_calls and s in folding and hand.live == 2 and hand.new_treasure is not None
                    and len(hand.order) > 2 and worth_nt.get(s, 0.0) >= hand.pot):
                return FOLD, my_bet  # it folds for the New Treasure facing a bet too, where its fold is sure to be last
            if ranges is None:
                return CALL, my_bet + lim[0]
            if s == me:
                mode = self.call_later
                if mode == "auto":  # its equity in a heads-up game; at a table of more, the stale equity misleads
                    mode = "best" if len(hand.order) > 2 else "equity"
                if mode != "equity" and hand.round > rnd and final[me] >= 0:
                    # a bet in a later round comes from a hand of value_category or better at the end of the board:
                    # call with one as good ("category"), and as good as the best of the others still in ("best")
                    need = self.value_category
                    if mode == "best":
                        need = max([need] + [final[o] for o in range(len(final)) if o != me and not hand.folded[o]])
                    return (CALL, my_bet + lim[0]) if final[me] >= need else (FOLD, my_bet)
                q, loose = self._my_equity(ranges, hand.folded), 1.0
            elif s in ranges.weights:
                q = ranges.now(s, hand.hole[s])[0]
                others = hand.live - 1 if self.multiway else 1  # the seats it must beat
                q = q ** others
                if self.reraise and lim[2] and hand.round not in opened and strong(s, hand.round):
                    opened.add(hand.round)  # a strong hand raises the pot, once a round
                    high = my_bet + lim[0]
                    return RAISE, min(max(high + hand.pot + lim[0], lim[1]), lim[2])
                if final[s] >= needed(share) + others - 1:  # a made hand at the end of this board calls
                    return CALL, my_bet + lim[0]
                loose = min(1.0, ranges.bottom[s] / 0.3)
            else:
                return CALL, my_bet + lim[0]
            return (CALL, my_bet + lim[0]) if q >= min(share + 0.05, 0.95) * loose else (FOLD, my_bet)

        while True:
            if state.phase == "bet":
                state.play_bets(ask)
                continue
            d = state.decision(through_hands=False)
            if d is None:
                break
            kind = d.kind
            if kind == "bet":
                continue
            if kind == "spades":
                state.answer(())
            elif kind == "hearts":
                state.answer(True)
            elif kind == "keep_playing":  # a hand boundary reached without a pause: stop here
                break
            elif valuer is None:
                state.answer(d.default if kind == "joker_treasure" else None)
            elif kind == "steal":  # greedy: the card worth most to it plus what the victim loses, less its Diamond
                state.answer(greedy_steal(valuer, d.seat, d.options))
            elif kind == "joker_treasure":
                state.answer(max(d.options, key=lambda c, s=d.seat: valuer.value(c, s)))
            else:  # make_room: give up its cheapest Treasure for a dearer one
                zone = state.table.treasures[d.seat]
                cheap = min(zone, key=lambda c, s=d.seat: valuer.value(c, s))
                new = d.treasure
                take = new is not None and valuer.value(new, d.seat) > valuer.value(cheap, d.seat)
                state.answer(cheap if take and cheap in d.options else None)
        return self._value(state, me)

    def _my_equity(self, ranges: Ranges | None, folded: list[bool]) -> float:
        """Its equity in a rollout, against the opponents still in: with ``multiway``, the product of its equities
        against each (the chance to beat them all, as if independent); without, the least of them."""
        if ranges is None:
            return 0.5
        eqs = [q for o, q in ranges.mine.items() if not folded[o]]
        if not eqs:
            return 1.0
        return math.prod(eqs) if self.multiway else min(eqs)

    def _value(self, state: GameState, me: int) -> float:
        """Chips at the end of the hand: its stack plus ``win_value`` times its chance to win the game. If the hand
        ends the game, that chance is its share of the win; else its share of every seat's chips plus Treasures
        (each card at what it is worth to its holder for the rest of the game, `TreasureModel`; a seat that cannot
        pay the next ante counts nothing)."""
        t = state.table
        money = t.money
        ahead = self.objective == "ahead"
        if ends_game(state):
            value = float(money[me])
            if self.win_value and ahead:  # the share of the other seats it finishes ahead of (ties half)
                others = [m for s, m in enumerate(money) if s != me]
                value += self.win_value * sum(1.0 if money[me] > m else 0.5 if money[me] == m else 0.0
                                              for m in others) / max(len(others), 1)
            elif self.win_value:
                top = max(money)
                if money[me] == top:
                    value += self.win_value / sum(1 for m in money if m == top)
            return value
        zones, values = t.treasures, t.values
        valuer = self._valuer[1] if self.treasure_scale else None
        scale, flat = self.treasure_scale, self.treasure_value * self._late
        if valuer is None:
            worth = [sum(flat + 0.01 * values[c] for c in z) for z in zones]
        else:
            if self.fade_all:  # what a card can still earn fades with the hands left, as its flat worth does
                scale *= self._late
            worth = [sum(flat + 0.01 * values[c] + scale * valuer.value(c, s) for c in z) for s, z in enumerate(zones)]
        # its chance to win the game: to end ahead of every other seat that can still pay, each lead (chips plus
        # Treasures) against a random walk of the hands left
        ante = state.rules.ante_at(t.hand_no + 1)
        if money[me] < ante:
            return float(money[me])
        mine = money[me] + worth[me]
        spread = self._spread
        if ahead:  # the mean over the other seats of its chance to end ahead of each (1 for one that cannot pay)
            p = sum(0.5 * math.erfc((money[s] + worth[s] - mine) / spread) if money[s] >= ante else 1.0
                    for s in range(t.n) if s != me) / max(t.n - 1, 1)
        else:
            p = 1.0
            for s in range(t.n):
                if s != me and money[s] >= ante:
                    p *= 0.5 * math.erfc((money[s] + worth[s] - mine) / spread)
        return money[me] + self.win_value * p

    # ----- betting ---------------------------------------------------------------------------------------------
    def act(self, obs: Observation) -> Action | Mixed:
        self.asked.add("act")
        self._zones = (obs.hand_no, obs.treasures)
        answers = self._bet_answers(obs)
        if len(answers) == 1:
            return answers[0]
        k = max(1, self._budget(obs) // len(answers))
        values = self._values(obs, answers, k)
        if CHECK in obs.legal and answers[0].kind == FOLD and len(obs.active) > 2:
            # with two or more others still to act, a free fold wins the New Treasure only if nobody folds later:
            # it must beat checking by a margin (a share of the pot), not by the rollouts' noise
            values[0] -= self.free_fold_margin * obs.pot
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
            targets = [high + pot / 2, high + pot]
            if obs.max_raise_to <= high + self.allin_pots * pot:  # all in only where it is not a huge overbet
                targets.append(obs.max_raise_to)
            for target in targets:
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

