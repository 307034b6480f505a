"""Cross-check: with RuleSet.holdem(), random hands replayed in pokerkit pay every seat the same.

Each hand is played here by random bots that never fold when checking is free (pokerkit's tournament
mode refuses such folds), then rebuilt in a pokerkit ``State`` with the same antes, stacks, hole
cards, shared cards (streets of 2, 2 and 1 cards, no burns, like ours) and actions, and the net
chips per seat are compared. pokerkit player i is our i-th seat in turn order (left of the button).

Two conventions differ and their hands are counted and skipped, never silently:
- odd chips: pokerkit merges the pots a tie wins (once the losing hands are killed) and gives all
  the odd chips to the first winner; we split each pot on its own (rulings §4) and give its odd
  chips one each in turn order. They can differ only when a tie's odd chips add up to two or more;
- pokerkit applies the Hold'em rule that an all-in raise short of a full raise does not reopen
  raising for players who already acted; our rulings have no such rule, so we allow it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from strategies.random_bot import RandomBot
from treasure_sim import Action, Game, HandRecord, RuleSet

pokerkit = pytest.importorskip("pokerkit")
from pokerkit import (  # noqa: E402
    Automation,
    BettingStructure,
    Deck,
    Mode,
    Opening,
    StandardHighHand,
    State,
    Street,
)

AUTOMATIONS = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
               Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
               Automation.CHIPS_PULLING)
STRUCTURES = {"no-limit": BettingStructure.NO_LIMIT, "pot-limit": BettingStructure.POT_LIMIT,
              "fixed-limit": BettingStructure.FIXED_LIMIT}
SHORT_ALL_IN = "Short all-in cannot be raised"


class NoFreeFold(RandomBot):
    """Random, but checks instead of folding when checking is free, and often shoves."""

    def act(self, obs):
        action = self.pick(obs)
        if action.kind == "fold" and obs.to_call == 0:
            return Action.check()
        if action.kind == "raise" and self.rng.random() < 0.3:
            return Action.raise_to(obs.max_raise_to)
        return action


def odd_chips_differ(rec: HandRecord) -> bool:
    """Whether pokerkit may give this hand's odd chips to other seats than we do: it merges the pots
    a tie wins together and gives all the odd chips to the first winner, we split each pot and give
    its odd chips one each in turn order. That can differ only if some winners' odd chips add to 2+."""
    odd: Counter = Counter()
    for p in rec.pots:
        odd[p.winners] += p.amount % len(p.winners)
    return any(v >= 2 for v in odd.values())


def pokerkit_state(rules: RuleSet, stacks: list[int]) -> State:
    fixed = rules.betting == "fixed-limit"
    sizes = (rules.small_bet,) * 2 + (rules.big_bet,) * 2 if fixed else (rules.min_bet,) * 4
    streets = tuple(Street(False, (False, False) if i == 0 else (), (0, 2, 2, 1)[i], False, Opening.POSITION,
                           sizes[i], rules.raise_cap if fixed else None) for i in range(4))
    return State(AUTOMATIONS, Deck.STANDARD, (StandardHighHand,), streets, STRUCTURES[rules.betting], True,
                 rules.ante, 0, 0, stacks, len(stacks), mode=Mode.TOURNAMENT)


def replay(rec: HandRecord, rules: RuleSet) -> dict[int, int]:
    """Net chips per seat when pokerkit plays the same hand."""
    n = len(rec.in_hand)
    order = [s for s in ((rec.dealer + 1 + i) % n for i in range(n)) if rec.in_hand[s]]
    start = [rec.money_after[s] - rec.payouts[s] for s in order]
    state = pokerkit_state(rules, start)
    for s in order:
        state.deal_hole("".join(rec.hole[s]))
    chunks = iter((rec.shared[:2], rec.shared[2:4], rec.shared[4:]))

    def deal():
        while state.status and state.can_deal_board():
            state.deal_board("".join(next(chunks)))

    for rnd in range(4):
        if rnd:
            deal()
        for a in rec.actions:
            if a.round != rnd:
                continue
            if state.actor_index is None and a.kind == "check":
                continue  # we ask a lone player with chips left (to check or fold); pokerkit skips them
            assert state.actor_index == order.index(a.seat), f"turn order differs at {a}\n{rec}"
            if a.kind == "fold":
                state.fold()
            elif a.kind == "raise":
                state.complete_bet_or_raise_to(a.to)
            else:
                state.check_or_call()
    deal()
    assert not state.status, f"pokerkit expects more of this hand\n{rec}"
    return {s: state.stacks[i] - start[i] for i, s in enumerate(order)}


def test_holdem_payouts_match_pokerkit():
    rng = np.random.default_rng(2024)
    counts: Counter = Counter()
    game_no = 0
    structures = ("no-limit", "pot-limit", "fixed-limit")
    while counts["compared"] < 1000 or min(counts[b] for b in structures) < 300:
        game_no += 1
        betting = min(structures, key=lambda b: counts[b])
        rules = RuleSet.holdem(betting=betting, max_hands=15, ante=int(rng.integers(1, 3)))
        n = int(rng.integers(2, 11))
        money = rng.integers(3, 60, n).tolist()  # short stacks: all-ins and side pots
        game = Game([NoFreeFold() for _ in range(n)], rules, seed=game_no, money=money, quintets=False)
        for rec in game.play().hands:
            if odd_chips_differ(rec):
                counts["skipped: odd chips split differently"] += 1
                continue
            try:
                theirs = replay(rec, rules)
            except ValueError as err:
                assert SHORT_ALL_IN in str(err), f"pokerkit refused an action: {err}\n{rec}"
                counts["skipped: raise after a short all-in"] += 1
                continue
            assert theirs == {s: rec.payouts[s] for s in theirs}, f"payouts differ\n{rec}\npokerkit: {theirs}"
            counts["compared"] += 1
            counts[betting] += 1
            counts["side pots"] += len(rec.pots) > 1
            counts["showdowns"] += bool(rec.shown)
            counts["all folded"] += not rec.shown
            counts["uncalled bets"] += rec.returned is not None
            counts["ties"] += any(len(p.winners) > 1 for p in rec.pots)
            counts[f"{sum(rec.in_hand)} players"] += 1
    skipped = sum(v for k, v in counts.items() if k.startswith("skipped"))
    assert skipped <= 0.02 * counts["compared"], counts
    print(dict(counts))
    for what, at_least in [("side pots", 100), ("showdowns", 300), ("all folded", 100), ("uncalled bets", 100),
                           ("ties", 10), *((f"{n} players", 5) for n in range(2, 11))]:
        assert counts[what] >= at_least, (what, counts)
