"""Benchmark the engine: hands and games per CPU-second of whole games between simple bots, on one core.

Run: ``treasure-sim bench engine [--hands 20000] [--players 4] [--seed 0] [--repeat 3] [--bots ...]
[--quintets] [--profile]`` (or ``python experiments/bench_engine.py ...``). One line per bot kind:

- ``random``: four RandomBots (short games, many folds; every ability is used);
- ``calling``: four bots that check or call (every hand reaches a showdown, games run to the hand limit);
- ``mixed``: four bots that, facing a bet, fold 15% of the time; raise the minimum 15% of the time
  when raising is legal; otherwise check or call;
- ``clone``: search's inner loop on the steppable state: clone a mid-hand position (a betting decision after the
  first shared cards) and play the rest of the hand with uniformly random legal answers through the checked
  ``GameState.apply``; the rate counts these rollouts ("hands") per CPU-second;
- ``rlcard``: the same mixed policy in rlcard's no-limit Hold'em as its users run it (``rlcard.make``,
  an agent per seat, ``env.run``: one hand per run), when rlcard is installed, for comparison; and
  ``rlcard-game``: the same on rlcard's bare game engine (no agents, no RL state encoding), the
  stricter comparison. A last line says how many times faster ``mixed`` is than each.

Games go through ``play_game`` checked as a tournament checks a table of built-in bots, where no code but ours has
run in the process: ``watch_code=False``, so the chips and cards are checked at every 16th hand and at the game's
end, and the engine's code is not watched (``treasure_sim/bots/integrity.py``). Every other option is
``play_game``'s default: no decision time limit (a tournament's 10 s limit lowers the rate of random bots by 2–8%), and
shown quintets named only on demand (``--quintets`` names each at once). An ``integrity`` line plays the mixed
policy both ways, as a tournament does without and with an outside in-process bot (then the chips and cards after
every hand, the code a slice at a time), runs alternated, and says how much lower the rate is with the watch.

Rates are per CPU-second of this process, the best of ``--repeat`` runs, which stays meaningful when other jobs
share the machine; the wall-clock rate of the same run is printed beside it, and the load average before and after.
``--profile`` prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from strategies.random_bot import RandomBot
from treasure_sim.bots.driver import play_game
from treasure_sim.game.gamestate import Decision, GameState
from treasure_sim.game.rules import RuleSet
from treasure_sim.game.strategy import CHECK, RAISE, Action, Observation, Strategy

FOLD_SHARE, RAISE_SHARE = 0.15, 0.15  # the mixed policy


class CallingBot(Strategy):
    """Checks or calls every bet: every hand reaches a showdown and nobody busts quickly."""

    name = "calling"

    def act(self, obs: Observation) -> Action:
        return Action.check() if CHECK in obs.legal else Action.call()


class Uniforms:
    """Uniform draws from a numpy generator, a block at a time: one scalar ``Generator.random()`` costs
    about a microsecond, as much as a whole decision of the engine. Both sides of the rlcard comparison
    draw their policy's numbers this way."""

    def __init__(self, rng: np.random.Generator, block: int = 4096) -> None:
        self.rng, self.block = rng, block
        self.left: list[float] = []

    def __call__(self) -> float:
        if not self.left:
            self.left = self.rng.random(self.block).tolist()
        return self.left.pop()


class MixedBot(Strategy):
    """Facing a bet folds 15% of the time; raises the minimum 15% of the time; else checks or calls."""

    name = "mixed"

    def setup(self, seat: int, n_players: int, rules: RuleSet, rng: np.random.Generator) -> None:
        super().setup(seat, n_players, rules, rng)
        self.uniform = Uniforms(rng)

    def act(self, obs: Observation) -> Action:
        u = self.uniform()
        if u < FOLD_SHARE and obs.to_call:
            return Action.fold()
        if FOLD_SHARE <= u < FOLD_SHARE + RAISE_SHARE and RAISE in obs.legal:
            return Action.raise_to(obs.min_raise_to)
        return Action.check() if CHECK in obs.legal else Action.call()


BOTS: dict[str, Callable[[], Strategy]] = {"random": RandomBot, "calling": CallingBot, "mixed": MixedBot}
RLCARD = ("rlcard", "rlcard-game")


def mid_hand_positions(count: int, players: int, seed: int) -> list[GameState]:
    """Positions waiting for a bet after the first shared cards, from random legal play (some hands never get there)."""
    rng = np.random.default_rng(seed)
    found: list[GameState] = []
    game = 0
    while len(found) < count:
        state = GameState.new(players, RuleSet(), seed + game)
        game += 1
        while (d := state.decision()) is not None and state.table.hand_no < 5:
            if d.kind == "bet" and state.hand.round >= 1 and rng.random() < 0.5:
                found.append(state.clone())
                break
            state.apply(random_answer(d, rng))
    return found


def random_answer(d: Decision, rng: np.random.Generator) -> Any:
    """A uniformly random legal answer (a raise: the least legal total)."""
    if d.kind == "bet":
        kind = d.options[int(rng.integers(len(d.options)))]
        return Action.raise_to(d.limits.min_raise_to) if kind == RAISE else Action(kind)  # type: ignore[union-attr]
    if d.kind == "spades":
        return list(d.options)
    return d.options[int(rng.integers(len(d.options)))]


def run_clones(hands: int, players: int, seed: int) -> dict[str, float]:
    """Clone mid-hand positions and play each to the end of its hand, ``hands`` times."""
    positions = mid_hand_positions(64, players, seed)
    rng = np.random.default_rng(seed)
    cpu, wall = time.process_time(), time.perf_counter()
    for i in range(hands):
        state = positions[i % len(positions)].clone()
        while (d := state.decision(through_hands=False)) is not None:
            state.apply(random_answer(d, rng))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"hands": hands, "games": 0, "cpu": cpu, "wall": wall}


def run(bot: str, hands: int, players: int, seed: int, quintets: bool, watch: bool = False) -> dict[str, float]:
    """Play whole games of ``players`` copies of ``bot`` until ``hands`` hands are played (``watch``: the engine's
    code and the chips and cards checked after every hand, as at a table with an outside in-process bot)."""
    if bot == "clone":
        return run_clones(hands, players, seed)
    if bot == "rlcard":
        return run_rlcard_env(hands, players, seed)
    if bot == "rlcard-game":
        return run_rlcard(hands, players, seed)
    done = games = 0
    extra: dict[str, Any] = {"quintets": True} if quintets else {}
    cpu, wall = time.process_time(), time.perf_counter()
    while done < hands:
        result = play_game([BOTS[bot]() for _ in range(players)], RuleSet(), seed=seed + games, watch_code=watch,
                           **extra)
        done += result.hands_played
        games += 1
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"hands": done, "games": games, "cpu": cpu, "wall": wall}


class RlcardMixedAgent:
    """The mixed policy as an rlcard agent (``eval_step`` on rlcard's encoded state)."""

    use_raw = False

    def __init__(self, uniform: Uniforms) -> None:
        self.uniform = uniform

    def eval_step(self, state: dict) -> tuple[int, dict]:
        legal, raw = state["legal_actions"], state["raw_obs"]
        u = self.uniform()
        if u < FOLD_SHARE and max(raw["all_chips"]) > raw["my_chips"] and 0 in legal:
            return 0, {}  # FOLD
        if FOLD_SHARE <= u < FOLD_SHARE + RAISE_SHARE:
            return next((a for a in (2, 3, 4) if a in legal), 1), {}  # the smallest legal raise
        return 1, {}  # CHECK_CALL

    step = eval_step


def run_rlcard_env(hands: int, players: int, seed: int) -> dict[str, float]:
    """The mixed policy in rlcard's no-limit Hold'em through its environment, one hand per ``run``."""
    import rlcard  # an optional benchmark dependency

    env = rlcard.make("no-limit-holdem", config={"game_num_players": players, "seed": seed})
    uniform = Uniforms(np.random.default_rng(seed))
    env.set_agents([RlcardMixedAgent(uniform) for _ in range(players)])
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(hands):
        env.run(is_training=False)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"hands": hands, "games": hands, "cpu": cpu, "wall": wall}


def run_rlcard(hands: int, players: int, seed: int) -> dict[str, float]:
    """The mixed policy on rlcard's no-limit Hold'em game engine itself, one hand per game (rlcard's unit)."""
    import rlcard  # an optional benchmark dependency
    from rlcard.games.nolimitholdem.round import Action as RlAction

    game = rlcard.make("no-limit-holdem", config={"game_num_players": players, "seed": seed}).game
    uniform = Uniforms(np.random.default_rng(seed))
    raises = (RlAction.RAISE_HALF_POT, RlAction.RAISE_POT, RlAction.ALL_IN)  # the smallest legal one first
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(hands):
        state, _ = game.init_game()
        while not game.is_over():
            legal = state["legal_actions"]
            u = uniform()
            facing = max(state["all_chips"]) > state["my_chips"]
            action = RlAction.CHECK_CALL
            if u < FOLD_SHARE and facing and RlAction.FOLD in legal:
                action = RlAction.FOLD
            elif FOLD_SHARE <= u < FOLD_SHARE + RAISE_SHARE:
                action = next((a for a in raises if a in legal), RlAction.CHECK_CALL)
            state, _ = game.step(action)
        game.get_payoffs()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"hands": hands, "games": hands, "cpu": cpu, "wall": wall}


def rlcard_installed() -> bool:
    try:
        import rlcard  # noqa: F401
    except ImportError:
        return False
    return True


def integrity_cost(hands: int, players: int, seed: int, repeat: int) -> tuple[float, float]:
    """Hands per CPU-second of the mixed policy without and with the watch after every hand (`Game`'s
    ``watch_code``; `treasure_sim.bots.integrity`), runs alternated, the best of ``repeat`` each."""
    best = {False: 0.0, True: 0.0}
    for _ in range(repeat):
        for on in (False, True):
            r = run("mixed", hands, players, seed, False, watch=on)
            best[on] = max(best[on], r["hands"] / r["cpu"])
    return best[False], best[True]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="treasure-sim bench engine", description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per line (whole games, so a few more)")
    parser.add_argument("--players", type=int, default=4, help="seats per game (2-10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed + i")
    parser.add_argument("--bots", default="random,calling,mixed,clone,rlcard,rlcard-game",
                        help="comma-separated: random, calling, mixed, clone, rlcard, rlcard-game (the last two "
                             "skipped when rlcard is not installed)")
    parser.add_argument("--repeat", type=int, default=3, help="report the best of this many runs (noisy machines)")
    parser.add_argument("--quintets", action="store_true", help="name every shown quintet at once (best_quintet)")
    parser.add_argument("--profile", action="store_true", help="print the 20 functions taking most time")
    args = parser.parse_args(argv)
    bots = args.bots.split(",")
    known = (*BOTS, "clone", *RLCARD)
    if unknown := [b for b in bots if b not in known]:
        parser.error(f"unknown bot(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    if any(b in RLCARD for b in bots) and not rlcard_installed():
        print("   rlcard: not installed, skipped (pip install rlcard to compare)")
        bots = [b for b in bots if b not in RLCARD]
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.quintets:
        print("every shown quintet named as it is shown (--quintets)")
    profiler = cProfile.Profile() if args.profile else None
    rates: dict[str, float] = {}
    for bot in bots:
        if profiler:
            profiler.enable()
        r = min((run(bot, args.hands, args.players, args.seed, args.quintets) for _ in range(args.repeat)),
                key=lambda run_: run_["cpu"])
        if profiler:
            profiler.disable()
        rates[bot] = r["hands"] / r["cpu"]
        if bot == "clone":
            print(f"{bot:>11} x{args.players}: {r['hands']:,} mid-hand clones played out, {r['cpu']:.2f} CPU s: "
                  f"{rates[bot]:,.0f} a second (wall {r['hands'] / r['wall']:,.0f})")
            continue
        print(f"{bot:>11} x{args.players}: {r['hands']:,} hands, {r['games']:,} games, {r['cpu']:.2f} CPU s: "
              f"{rates[bot]:,.0f} hands/s, {r['games'] / r['cpu']:,.1f} games/s "
              f"(wall {r['hands'] / r['wall']:,.0f})")
    if "mixed" in rates:
        without, with_ = integrity_cost(args.hands, args.players, args.seed, args.repeat)
        print(f"  integrity: mixed x{args.players} watched after every hand (integrity.py): "
              f"{with_:,.0f} hands/s, {1 - with_ / without:.0%} below {without:,.0f}")
    for other in RLCARD:
        if "mixed" in rates and other in rates:
            print(f"   mixed policy: {rates['mixed'] / rates[other]:.1f}x {other} (rlcard's no-limit Hold'em"
                  f"{'' if other == 'rlcard' else ', bare game engine'}), per CPU-second")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    return 0
