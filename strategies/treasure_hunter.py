"""Treasure hunter: plays the equity bot's poker, but folds on purpose to collect Treasures.

The New Treasure goes to the last folder. Each hand it prices the card for itself and for each
rival (``TreasureModel``: suit, rank, the zones on the table, the cards and hands left) and
compares what folding now wins — the card's value (plus ``denial`` x a rival's share of it)
times the chance nobody folds after it, learned from each seat's fold rate — with what staying
is worth, its equity share of the pot. It waits while waiting is free (a later fold is more
surely the last one) and folds when the moment is best: heads-up, the last action of the hand,
or facing a bet too costly to call.

Off the betting it uses every ability: it moves Spades when that wins more of the pot than the
card is worth kept, draws Hearts unless the deck is nearly out and it is behind (the game would
end), steals the card worth most (to it, plus what the victim loses), picks the best card for a
Joker Treasure, and votes to stop when it leads by ``stop_margin`` (all stopping locks the win).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from treasure_sim.game.cards import is_joker
from treasure_sim.game.history import HandRecord
from treasure_sim.game.rules import RuleSet
from treasure_sim.game.strategy import CHECK, Action, Observation, Steal

from ._montecarlo import equity
from ._treasure import TreasureModel, Valuer
from ._util import FoldModel, actions_this_round, acts_again, my_spades
from .equity import EquityBot


class TreasureHunter(EquityBot):
    name = "treasure_hunter"

    def __init__(
        self,
        rollouts: int = 200,
        call_margin: float = 0.03,
        bet_strength: float = 0.3,
        raise_strength: float = 0.5,
        min_fraction: float = 0.5,
        max_fraction: float = 1.2,
        hearts_max: int = 3,
        wild_chips: float = 1.5,
        draw_chips: float = 0.4,
        spade_chips: float = 1.0,
        horizon: float = 25.0,
        denial: float = 1.0,
        stop_margin: int = 0,
        hearts_reserve: int = 2,
    ) -> None:
        super().__init__(rollouts, call_margin, bet_strength, raise_strength, min_fraction, max_fraction, hearts_max)
        self.model = TreasureModel(
            wild_chips=wild_chips, draw_chips=draw_chips, spade_chips=spade_chips, horizon=horizon
        )
        self.denial = denial
        self.stop_margin = stop_margin
        self.hearts_reserve = hearts_reserve
        self.folds = FoldModel()
        self._stake: tuple[int, float] | None = None
        self._valuer: tuple[tuple, Valuer] | None = None

    def setup(self, seat: int, n_players: int, rules: RuleSet, rng: np.random.Generator) -> None:
        super().setup(seat, n_players, rules, rng)
        self.folds.reset(n_players)
        self._stake = None
        self._cache = None
        self._valuer = None

    def on_hand_end(self, record: HandRecord) -> None:
        self.folds.update(record)

    # ----- the New Treasure --------------------------------------------------------------------
    def valuer(self, obs: Observation) -> Valuer:
        """The valuation of cards for the zones as they are now (memoized until they change)."""
        if self._valuer is None or self._valuer[0] != obs.treasures:
            self._valuer = (obs.treasures, self.model.at(obs))
        return self._valuer[1]

    def treasure_stake(self, obs: Observation) -> float:
        """What taking this hand's New Treasure is worth to me, plus a share of what a rival would gain."""
        if self._stake is not None and self._stake[0] == obs.hand_no:
            return self._stake[1]
        card = obs.new_treasure
        val = self.valuer(obs)
        stake = 0.0
        if "new_treasure" in obs.restricted:
            pass  # restricted play: I can never take it (folding last passes it to a rival)
        elif card is not None and not is_joker(card):
            rivals = [val.value(card, s) for s in range(obs.n_players) if s != self.seat and obs.in_hand[s]]
            stake = val.value(card, self.seat) + self.denial * max(rivals, default=0.0) / max(obs.n_players - 1, 1)
        elif card is not None and obs.rules.joker_treasure == "choose":
            stake = max((val.value(c, self.seat) for c in obs.hand[:2] if not is_joker(c)), default=0.0)
        if stake > 0.0 and obs.rules.zone_limit and len(obs.my_treasures) >= obs.rules.zone_limit:
            stake = self._stake_at_limit(obs, val, stake)
        self._stake = (obs.hand_no, stake)
        return stake

    def _stake_at_limit(self, obs: Observation, val: Valuer, stake: float) -> float:
        """My zone is full: taking the card costs the Treasure I give up (the oldest, or my cheapest), if I may."""
        if obs.rules.at_limit == "refuse":
            return 0.0
        mine = obs.my_treasures
        given = mine[0] if obs.rules.at_limit == "discard_oldest" else min(mine, key=lambda c: val.value(c, self.seat))
        return max(stake - val.value(given, self.seat), 0.0)

    def make_room(self, obs: Observation, treasure: int) -> int | None:
        """Give up my least valuable Treasure when the new one is worth more to me; else let the new one go."""
        val = self.valuer(obs)
        cheapest = min(obs.my_treasures, key=lambda c: val.value(c, self.seat))
        return cheapest if val.value(treasure, self.seat) > val.value(cheapest, self.seat) else None

    def last_folder_chance(self, obs: Observation, *, now: bool = True) -> float:
        """The chance nobody folds after me if I fold now (``now``) or at my last decision (river)."""
        others = [s for s in obs.active if s != self.seat]
        if len(others) <= 1:
            return 1.0
        acted = actions_this_round(obs)
        high = max(obs.bets)
        p = 1.0
        for s in others:
            if obs.all_in[s]:
                continue
            free_rate = self.folds.rate(s, facing_bet=False)
            if now:
                if acts_again(obs, s, acted):
                    p *= 1.0 - self.folds.rate(s, facing_bet=obs.bets[s] < high)
                p *= (1.0 - free_rate) ** (3 - obs.round)
            else:
                p *= 1.0 - free_rate
        return p

    def act(self, obs: Observation) -> Action:
        """Fold for the Treasure when that beats staying; bounds decide first, so equity is often skipped."""
        stake = self.treasure_stake(obs)
        if stake <= 0.0:
            return super().act(obs)
        take_now = self.last_folder_chance(obs) * stake
        # a later decision is sure only before the river: on the river I may not act again
        take_later = self.last_folder_chance(obs, now=False) * stake if obs.round < 3 else 0.0
        if CHECK in obs.legal:
            # fold now when it is the best moment left: sure to be last (heads-up, or nobody acts
            # after me), or the river; what I give up is my pot share, which is at most the pot
            final = obs.round == 3 or take_now >= 0.999 * stake
            if final and take_now > obs.pot:
                return Action.fold()
            if not final and take_later > obs.pot:
                return Action.check()  # I mean to fold later: put nothing in meanwhile
            eq = self.equity(obs)
            if final and take_now > eq * obs.pot:
                return Action.fold()
            if not final and take_later > eq * obs.pot:
                return Action.check()
            return self.bet_on_equity(obs, eq)
        if take_now >= max(obs.pot + obs.to_call, take_later) - obs.to_call:
            return Action.fold()  # better than staying even with a sure win
        if take_now < take_later - obs.to_call:
            return self.bet_on_equity(obs, self.equity(obs))  # the Treasure is better taken later
        eq = self.equity(obs)
        if take_now >= max(eq * (obs.pot + obs.to_call), take_later) - obs.to_call:
            return Action.fold()
        return self.bet_on_equity(obs, eq)

    # ----- the other decisions -----------------------------------------------------------------
    def move_spades(self, obs: Observation) -> list[int]:
        """Move the subset of Spades that wins the most pot, net of the value of the cards kept."""
        spades = my_spades(obs)[:3]
        subsets = [c for k in range(len(spades) + 1) for c in combinations(spades, k)]
        eqs = equity(obs, self.rng, self.rollouts, spades=True, hearts_max=self.hearts_max, variants=subsets)
        val = self.valuer(obs)
        keep = {c: val.value(c, self.seat) for c in spades}
        gains = [eqs[i] * obs.pot - sum(keep[c] for c in sub) for i, sub in enumerate(subsets)]
        return list(subsets[max(range(len(subsets)), key=gains.__getitem__)])

    def draw_heart(self, obs: Observation) -> bool:
        if obs.deck_size > self.hearts_reserve:
            return True
        rivals = max(m for s, m in enumerate(obs.money) if s != self.seat)
        return obs.money[self.seat] >= rivals  # only a leader wants the game to end now

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        val = self.valuer(obs)
        return max(options, key=lambda c: val.value(c, self.seat))

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        """The steal with the largest gain: the card's worth to me, plus the victim's loss, less my Diamond."""
        val = self.valuer(obs)
        share = self.denial / max(obs.n_players - 1, 1)

        def gain(st: Steal) -> float:
            return (
                val.value(st.card, self.seat) + share * val.value(st.card, st.victim) - val.value(st.diamond, self.seat)
            )

        best = max(options, key=gain, default=None)
        return best if best is not None and gain(best) > 0 else None

    def keep_playing(self, obs: Observation) -> bool:
        """Vote to stop when I lead by ``stop_margin``: if every player stops, the lead is the win."""
        rivals = max(m for s, m in enumerate(obs.money) if s != self.seat)
        return obs.money[self.seat] <= rivals + self.stop_margin
