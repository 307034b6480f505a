"""Model fit of the search player's rollouts (issue 27): how often each opponent checks, raises, calls and folds in
the rollouts of `strategies/search.py`, beside how often the real bot does at the table, in the same games.

Plays seeded single games of the reference field (`search` at ``--budget``, `equity` and `treasure_hunter` at 30
rollouts, `calling_station`; the seats rotated by the seed) and counts, for hands with ``--dealt`` seats dealt in:
the real `equity` and `treasure_hunter` decisions at the table, and the rollout opponents' decisions in the betting
round the search started in (later rounds of a rollout are left out: there the rollout reads the whole board). Keys:
(bot, betting round, facing a bet, seats still in). The two counts are weighted differently (decisions against
rollouts) and the positions differ (the rollouts follow the searcher's candidate answers), so read the shares,
not the counts.

    taskset -c 1 python experiments/search_fit.py --seeds 1-8
    taskset -c 1 python experiments/search_fit.py --seeds 1-8 --param fold_rank=0.0   # a rollout knob set
"""

from __future__ import annotations

import argparse
import ast
import collections
from collections.abc import Callable

from treasure_sim import Game, RuleSet
from treasure_sim.bots.loader import load_strategy
from treasure_sim.game.gamestate import GameState

Key = tuple[str, int, bool, int]


def _seeds(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(x) for x in text.split(",")]


def fit(seeds: list[int], budget: int, dealt: int, params: dict) -> tuple[dict, dict]:
    """(real, rollout): per key, a Counter of action kinds."""
    real: dict[Key, collections.Counter] = collections.defaultdict(collections.Counter)
    roll: dict[Key, collections.Counter] = collections.defaultdict(collections.Counter)
    names: dict[int, str] = {}
    plain = GameState.play_bets
    start = [-1]

    def counting(self: GameState, ask: Callable) -> None:
        def ask2(s, lim, my_bet, legal):
            answer = ask(s, lim, my_bet, legal)
            h = self.hand
            if len(h.order) == dealt and names[s] != "search" and h.round == start[0] and type(answer) is tuple:
                roll[(names[s], h.round, lim[0] > 0, h.live)][answer[0]] += 1
            return answer
        return plain(self, ask2)

    for seed in seeds:
        search = load_strategy("search", iterations=budget, **params)
        rollout = search._rollout

        def counted(state, me, ranges, folding=(), rollout=rollout):
            start[0] = state.hand.round if state.hand is not None else -1
            GameState.play_bets = counting  # only while the searcher rolls out: the engine's own loop is checked
            try:
                return rollout(state, me, ranges, folding)
            finally:  # the inherited method again (assigning it back would add a name the integrity watch flags)
                del GameState.play_bets

        search._rollout = counted
        bots = [search, load_strategy("equity", rollouts=30), load_strategy("treasure_hunter", rollouts=30),
                load_strategy("calling_station")]
        k = seed % 4
        bots = bots[k:] + bots[:k]
        names.clear()
        for i, bot in enumerate(bots):
            names[i] = bot.name
            if bot.name in ("equity", "treasure_hunter"):
                def act(obs, act=bot.act, name=bot.name):
                    action = act(obs)
                    if sum(obs.in_hand) == dealt:
                        real[(name, obs.round, obs.to_call > 0, len(obs.active))][action.kind] += 1
                    return action
                bot.act = act
        Game(bots, RuleSet(), seed=seed).play()
    return real, roll


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-8", help="game seeds: 1-8 or 1,2,5")
    parser.add_argument("--budget", type=int, default=50)
    parser.add_argument("--dealt", type=int, default=3, help="count hands with this many seats dealt in")
    parser.add_argument("--param", action="append", default=[], help="a search knob, NAME=VALUE (repeatable)")
    args = parser.parse_args()
    params = {}
    for item in args.param:
        name, value = item.split("=", 1)
        params[name] = ast.literal_eval(value)
    real, roll = fit(_seeds(args.seeds), args.budget, args.dealt, params)

    def shares(c: collections.Counter) -> str:
        n = sum(c.values())
        return " ".join(f"{k}:{c[k] / n:.2f}" for k in sorted(c)) if n else "-"

    print(f"{'bot':>16} {'round':>5} {'facing':>6} {'in':>3} | {'real n':>6} {'shares':<36} | {'rollout n':>9} shares")
    for key in sorted(set(real) | set(roll)):
        r, o = real.get(key, collections.Counter()), roll.get(key, collections.Counter())
        print(f"{key[0]:>16} {key[1]:5d} {key[2]!s:>6} {key[3]:3d} | {sum(r.values()):6d} {shares(r):<36} | "
              f"{sum(o.values()):9d} {shares(o)}")


if __name__ == "__main__":
    main()
