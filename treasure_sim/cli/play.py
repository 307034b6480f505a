"""``treasure-sim play``: a person plays a whole game in the terminal against bots, or watches bots play.

The person is a `Strategy` (`TerminalPlayer`) whose every decision is shown and asked on a terminal. The command
steps the game's state: ``Game.play_until`` asks the bots through their seats and hands over each question to the
person's seat (a `questions.Decision`); the person is asked it by the catalogue's `Strategy` method with the
observation a bot would get, and the answer is played with ``GameState.apply``, which checks it against the
state's own options. The prompts take only legal answers and say why when one is not.
With ``--isolated`` the same player runs in its own process behind the line protocol (``docs/protocol.md``)
and talks to the person on their terminal; ``--seat-command`` seats any other program that speaks it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import sys
import tomllib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

from ..bots.driver import Game
from ..bots.isolated import IsolatedBot, python_command, split_command
from ..bots.loader import load_strategy
from ..game.cards import SPADES, SUIT, format_card, parse_card
from ..game.gamestate import GameState
from ..game.history import HandRecord
from ..game.questions import QUESTIONS, Decision, IllegalAnswer, strategy_args
from ..game.rules import RuleSet
from ..game.strategy import CALL, CHECK, RAISE, Action, Observation, Steal, Strategy
from ..run.experiment import ConfigError, load_experiment
from .options import UsageError, seed
from .table_view import describe_card, render, standings

DEFAULT_BOTS = "equity,treasure_hunter,rock"
BET_HELP = ("f = fold, c = check or call, r N = bet or raise to N chips this round (also just N), a = all in, "
            "t = show the table, q = leave the table")


class LeaveTable(BaseException):
    """The person left (q, or the end of input). Passed to the game as ``ends_game``: the engine's seat must not take
    it for a bot error and play on with default answers."""


class Console:
    """One line in, text out: the person's terminal (or, in tests and pipes, any pair of text streams)."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin, self.stdout = stdin, stdout

    @classmethod
    def open(cls, tty: str | None) -> Console:
        """The standard streams, or the terminal device ``tty`` (a process of another session may read and write
        a terminal by its path; two streams, as a terminal cannot seek)."""
        if tty is None:
            return cls(sys.stdin, sys.stdout)
        # the player's for the whole game
        return cls(open(tty, encoding="utf-8"), open(tty, "w", encoding="utf-8"))

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise LeaveTable
        answer = line.strip()
        if answer.lower() in ("q", "quit", "exit"):
            raise LeaveTable
        return answer


# ----- reading the person's answers (pure: tested on their own) ----------------------------------------------
def read_bet(text: str, obs: Observation) -> Action:
    """The betting answer ``text`` means at ``obs``; ValueError saying why when it is not legal there."""
    words = text.lower().replace("-", " ").split()
    if not words:
        raise ValueError("type an action")
    word, rest = words[0], words[1:]
    can_raise = RAISE in obs.legal
    stack_to = obs.bets[obs.seat] + obs.money[obs.seat]  # this round's bet if all in
    if word in ("f", "fold"):
        return Action.fold()
    if word in ("k", "check", "x"):
        if CHECK not in obs.legal:
            raise ValueError(f"you cannot check: ${obs.to_call} to call (c to call, f to fold)")
        return Action.check()
    if word in ("c", "call"):
        return Action.call() if CALL in obs.legal else Action.check()
    if word in ("a", "all", "allin", "shove"):
        if can_raise and obs.max_raise_to == stack_to:
            return Action.raise_to(obs.max_raise_to)
        if can_raise:
            raise ValueError(f"the most you may bet now is r {obs.max_raise_to} (the {obs.rules.betting} limit)")
        if CALL in obs.legal and obs.to_call >= obs.money[obs.seat]:
            return Action.call()  # calling is all in
        raise ValueError("you cannot go all in now: nobody could call a raise (c to call or check, f to fold)")
    if word in ("r", "raise", "b", "bet") or word.isdigit():
        amount_text = word if word.isdigit() else (rest[0] if rest else "")
        if not can_raise:
            raise ValueError("raising is not possible now (c to call or check, f to fold)")
        if not amount_text:
            if obs.min_raise_to == obs.max_raise_to:
                return Action.raise_to(obs.min_raise_to)
            raise ValueError(f"say how much: r {obs.min_raise_to} .. r {obs.max_raise_to}")
        if not amount_text.isdigit():
            raise ValueError(f"{amount_text!r} is not a whole number of chips")
        amount = int(amount_text)
        if not obs.min_raise_to <= amount <= obs.max_raise_to:
            raise ValueError(f"a raise must bring your bet this round to {obs.min_raise_to} .. {obs.max_raise_to}"
                             f" (you have ${obs.money[obs.seat]} behind, ${obs.bets[obs.seat]} in this round)")
        return Action.raise_to(amount)
    raise ValueError(f"unknown action {text!r}; {BET_HELP}")


def bet_prompt(obs: Observation) -> str:
    parts = ["f fold"]
    parts.append("c check" if CHECK in obs.legal else f"c call {obs.to_call}"
                 + (" (all in)" if obs.to_call >= obs.money[obs.seat] else ""))
    if RAISE in obs.legal:
        verb = "raise to" if any(b > 0 for b in obs.bets) else "bet"
        sizes = str(obs.min_raise_to) if obs.min_raise_to == obs.max_raise_to else \
            f"{obs.min_raise_to}..{obs.max_raise_to}"
        parts.append(f"r N {verb} {sizes}")
        if obs.max_raise_to == obs.bets[obs.seat] + obs.money[obs.seat]:
            parts.append(f"a all in ({obs.max_raise_to})")
    owed = f"${obs.to_call} to call" if obs.to_call else "nothing to call"
    return f"Your move, seat {obs.seat} ({owed}): " + ", ".join(parts) + " > "


def read_cards_from(text: str, allowed: Sequence[int]) -> list[int]:
    """Card names (or 'all') among ``allowed``; ValueError naming a card that is not."""
    if text.lower() == "all":
        return list(allowed)
    chosen = []
    for token in text.replace(",", " ").split():
        try:
            card = parse_card(token)
        except ValueError as err:
            raise ValueError(str(err)) from None
        if card not in allowed:
            raise ValueError(f"{format_card(card)} is not one of {' '.join(format_card(c) for c in allowed)}")
        if card not in chosen:
            chosen.append(card)
    return chosen


def read_choice(text: str, count: int, *, stop: bool = False) -> int | None:
    """A 1-based option number (or, with ``stop``, 0 / nothing for none) as a 0-based index."""
    if stop and text in ("", "0"):
        return None
    if not text.isdigit() or not 1 <= int(text) <= count:
        raise ValueError(f"type a number 1..{count}" + (", or 0 / Enter for none" if stop else ""))
    return int(text) - 1


def yes_no(text: str, default: bool) -> bool:
    if not text:
        return default
    if text.lower() in ("y", "yes"):
        return True
    if text.lower() in ("n", "no"):
        return False
    raise ValueError("answer y or n")


# ----- the person as a Strategy --------------------------------------------------------------------------------
class TerminalPlayer(Strategy):
    """A person at the table: every decision a bot gets is shown and asked on a terminal.

    ``tty``: a terminal device to talk on (the isolated mode's child process); default the standard streams.
    ``names``: a name per seat for the table display; ``label``: this player's own.
    """

    def __init__(self, tty: str | None = None, names: list[str] | None = None, label: str = "you") -> None:
        self.tty = tty
        self.names = names
        self.label = label
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        """Opened at the first question (building the player to check its parameters opens nothing)."""
        if self._console is None:
            self._console = Console.open(self.tty)
        return self._console

    @console.setter
    def console(self, console: Console) -> None:
        self._console = console

    def __repr__(self) -> str:
        return self.label

    def _ask(self, obs: Observation, prompt: str, read: Callable[[str], Any], *, table: bool = True) -> Any:
        """Show the table, then ask until ``read`` accepts the answer (its ValueError is the reason shown)."""
        if table:
            self.console.say("\n" + render(obs, self.names))
        while True:
            text = self.console.ask(prompt)
            if text.lower() in ("t", "table", "?", "help"):
                self.console.say(render(obs, self.names) + (f"\n({BET_HELP})" if obs.phase == "bet" else ""))
                continue
            try:
                return read(text)
            except ValueError as err:
                self.console.say(f"  ! {err}")

    def act(self, obs: Observation) -> Action:
        return self._ask(obs, bet_prompt(obs), lambda text: read_bet(text, obs))

    def move_spades(self, obs: Observation) -> list[int]:
        mine = [c for c in obs.my_treasures if SUIT[c] == SPADES]
        self.console.say("\n" + render(obs, self.names))
        self.console.say(f"Step 11: you may move Spades Treasures to your hand ({' '.join(map(format_card, mine))}): "
                         "they play as ordinary cards this hand, then go back into the deck.")
        return self._ask(obs, "Cards to move ('all', names like 9s, or Enter for none) > ",
                         lambda text: read_cards_from(text, mine), table=False)

    def draw_heart(self, obs: Observation) -> bool:
        self.console.say("\n" + render(obs, self.names))
        return self._ask(obs, "Step 12: draw a card with your Hearts? (one at a time; stopping gives up the rest) "
                              "[Y/n] > ", lambda text: yes_no(text, True), table=False)

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        self.console.say("\n" + render(obs, self.names))
        self.console.say("Step 15: the New Treasure is a Joker, and you folded last: choose a card from your hand "
                         "or the shared cards for your Treasure Zone:")
        for i, card in enumerate(options, 1):
            self.console.say(f"  {i}: {describe_card(card, obs.rules)}")
        return options[self._ask(obs, f"Card 1..{len(options)} > ", lambda t: read_choice(t, len(options)),
                                 table=False)]

    def make_room(self, obs: Observation, treasure: int) -> int | None:
        self.console.say("\n" + render(obs, self.names))
        mine = sorted(obs.my_treasures)
        self.console.say(f"Your Treasure Zone is full ({obs.rules.zone_limit} cards): give one up for "
                         f"{describe_card(treasure, obs.rules)}, or keep your zone and let it go:")
        for i, card in enumerate(mine, 1):
            self.console.say(f"  {i}: give up {describe_card(card, obs.rules)}")
        index = self._ask(obs, f"Card 1..{len(mine)}, or 0 / Enter to let it go > ",
                          lambda t: read_choice(t, len(mine), stop=True), table=False)
        return None if index is None else mine[index]

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        self.console.say("\n" + render(obs, self.names))
        self.console.say("Step 16: you may spend a Diamonds Treasure (it goes under the deck) to steal a Treasure "
                         "of its value or less:")
        for i, st in enumerate(options, 1):
            self.console.say(f"  {i}: spend {format_card(st.diamond)}, take {describe_card(st.card, obs.rules)} "
                             f"from seat {st.victim}")
        index = self._ask(obs, f"Steal 1..{len(options)}, or 0 / Enter to stop > ",
                          lambda t: read_choice(t, len(options), stop=True), table=False)
        return None if index is None else options[index]

    def keep_playing(self, obs: Observation) -> bool:
        if obs.hand_no == 0:  # the vote before the first hand: sitting down is the answer
            return True
        self.console.say("\n" + render(obs, self.names))
        return self._ask(obs, "Play another hand? (everyone voting no ends the game) [Y/n] > ",
                         lambda text: yes_no(text, True), table=False)

    def on_hand_end(self, record: HandRecord) -> None:
        self.console.say("\n" + str(record))


# ----- the command -----------------------------------------------------------------------------------------------
def add_play(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play a game yourself against bots in the terminal, or --watch bots play",
                       description="Sit at a table against bots and play a whole game: the table is shown at each "
                                   "of your decisions, only legal answers are taken, and each hand's history is "
                                   "shown at its end. Ctrl-C (or q) leaves the table.")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="an experiment TOML whose [rules] the table plays by")
    p.add_argument("--bots", default=DEFAULT_BOTS, metavar="A,B,...",
                   help=f"the bots at the table, in seat order around yours: registry names, module:Class or "
                        f"file.py:Class (default {DEFAULT_BOTS})")
    p.add_argument("--seat", type=seed, default=0, metavar="K", help="your seat (default 0: first to be dealer)")
    p.add_argument("--seed", type=seed, metavar="S", help="the game's seed (default: a random one, printed)")
    p.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                   help="a RuleSet field, e.g. --rule ante=2 --rule betting=pot-limit (after CONFIG's [rules])")
    p.add_argument("--name", default="you", help="your name at the table")
    p.add_argument("--watch", action="store_true", help="bots only (--bots), one hand per key press")
    p.add_argument("--isolated", action="store_true",
                   help="your seat plays from its own process through the line protocol, as an isolated bot does")
    p.add_argument("--seat-command", metavar="CMD",
                   help="your seat is this program, speaking the line protocol (docs/protocol.md)")
    p.set_defaults(func=cmd_play)


def table_rules(config: str | None, overrides: Sequence[str]) -> RuleSet:
    """CONFIG's [rules] (or the defaults), then each FIELD=VALUE (a TOML value, or else a bare string)."""
    try:
        rules = load_experiment(config, check_strategies=False).rules if config else RuleSet()
    except ConfigError as err:
        raise UsageError(str(err)) from None
    changes = {}
    for item in overrides:
        field, sep, text = item.partition("=")
        if not sep or not field.strip():
            raise UsageError(f"--rule takes FIELD=VALUE, got {item!r}")
        try:
            changes[field.strip()] = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            changes[field.strip()] = text.strip()
    try:
        rules = rules.replace(**changes)
    except ValueError as err:
        raise UsageError(f"--rule: {err}") from None
    for problem in rules.playability_problems():
        raise UsageError(f"rules: {problem}")
    return rules


def _bots(specs: str) -> list[tuple[str, Strategy]]:
    bots = []
    for spec in (s.strip() for s in specs.split(",")):
        if not spec:
            raise UsageError(f"--bots has an empty name: {specs!r}")
        try:
            bots.append((spec.rpartition(":")[2] or spec, load_strategy(spec)))
        except ValueError as err:
            raise UsageError(f"--bots: {err}") from None
        except Exception as err:  # the bot's own constructor failed: one line naming it, not its traceback
            raise UsageError(f"--bots: strategy {spec!r} failed to build: {type(err).__name__}: {err}"[:500]) from None
    return bots


def _person(args: argparse.Namespace, names: list[str]) -> Strategy:
    if args.seat_command:
        command = split_command(args.seat_command)
        if not command or shutil.which(command[0]) is None:  # refused now, not 200 default hands later
            raise UsageError(f"--seat-command {args.seat_command!r}: no program {command[0] if command else ''!r} "
                             f"to run (not an executable file, and not on PATH)")
        return IsolatedBot(command, label=args.name, max_restarts=0, trusted=True)
    if args.isolated:
        try:
            tty = os.ttyname(sys.stdin.fileno())
        except OSError:
            raise UsageError("--isolated needs a terminal: your seat's process talks to you on it") from None
        command = python_command("treasure_sim.cli.play:TerminalPlayer", {"tty": tty, "names": names,
                                                                         "label": args.name})
        return IsolatedBot(command, label=args.name, max_restarts=0, trusted=True)  # yours: it needs your terminal
    return TerminalPlayer(names=names, label=args.name)


def cmd_play(args: argparse.Namespace) -> int:
    rules = table_rules(args.config, args.rule)
    bots = _bots(args.bots)
    if args.watch and (args.isolated or args.seat_command or args.seat):
        raise UsageError("--watch seats bots only: it takes no --seat, --isolated or --seat-command")
    if args.isolated and args.seat_command:
        raise UsageError("--isolated and --seat-command both say who sits in your seat: give one")
    n = len(bots) + (0 if args.watch else 1)
    if not 2 <= n <= 10:
        raise UsageError(f"a table seats 2 to 10 players; --bots gives {len(bots)} bot(s)"
                         + ("" if args.watch else " plus you"))
    if not args.watch and args.seat >= n:
        raise UsageError(f"--seat must be 0..{n - 1} at a table of {n}")
    names = [name for name, _ in bots]
    players = [bot for _, bot in bots]
    if not args.watch:
        names.insert(args.seat, args.name)
        players.insert(args.seat, _person(args, names))
    game_seed = secrets.randbelow(2**31) if args.seed is None else args.seed
    print(f"Treasure Poker, {n} seats: " + ", ".join(f"seat {s} {name}" for s, name in enumerate(names))
          + f"; seed {game_seed} (the same cards again: --seed {game_seed})")
    with _closing(players):
        game = Game(players, rules, game_seed, ends_game=(KeyboardInterrupt, LeaveTable))
        try:
            _play(game, names, watch=args.watch, person=None if args.watch else players[args.seat], seat=args.seat)
        except (KeyboardInterrupt, LeaveTable) as stop:
            print(f"\nYou left the table after {len(game.hands)} hand(s).\n" + standings(game.money, game.treasures,
                                                                                          names))
            return 130 if isinstance(stop, KeyboardInterrupt) else 0
    result = game.result()
    best = max(result.final_money)
    winners = [names[s] for s, m in enumerate(result.final_money) if m == best]
    print(f"\nGame over after {result.hands_played} hand(s) ({result.end_reason.replace('_', ' ')}): "
          f"{' and '.join(winners)} win{'s' * (len(winners) == 1)} with ${best}.\n"
          + standings(result.final_money, result.treasures, names))
    return 0


def _play(game: Game, names: list[str], *, watch: bool, person: Strategy | None, seat: int = 0) -> None:
    """Step the game to its end: the bots asked through their seats, the person (in this process) by `ask_person`;
    after each hand, watch mode shows it and waits for a key."""
    outside = (seat,) if isinstance(person, TerminalPlayer) else ()  # else the person's seat is a bot's
    while not game.over:
        decision = game.play_until(outside)
        if decision is not None:
            ask_person(person, game.state, decision)  # type: ignore[arg-type]  # outside: the TerminalPlayer's seat
            continue
        if isinstance(person, IsolatedBot) and person._retired:  # the seat's program ended (q, or it crashed)
            raise LeaveTable
        if watch:
            print("\n" + str(game.hands[-1]) + "\n" + standings(game.money, game.treasures, names))
            if not game.over and _key("Any key: next hand, q: stop > ") == "q":
                raise LeaveTable


def ask_person(person: TerminalPlayer, state: GameState, decision: Decision) -> None:
    """The person's answer to the state's question, played: asked by the question's `Strategy` method (the catalogue,
    ``questions.QUESTIONS``) with what a bot is given; an answer the state refuses is said, and asked again."""
    method = getattr(person, QUESTIONS[decision.kind].method)
    obs, args = state.observation(decision), strategy_args(decision)
    while True:
        try:
            state.apply(method(obs, *args))
            return
        except IllegalAnswer as err:
            person.console.say(f"  ! {err}")


def _key(prompt: str) -> str:
    """One key press on a terminal (a line elsewhere); the end of input is 'q'. The terminal is in key-at-a-time
    mode before the prompt shows, and switched without flushing: a key pressed as soon as the prompt appears (or
    before) is read, not thrown away."""
    if not sys.stdin.isatty():
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        return line.strip().lower()[:1] if line else "q"
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        sys.stdout.write(prompt)
        sys.stdout.flush()
        key = os.read(fd, 1).decode(errors="replace").lower()
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    print()
    if key == "\x03":  # Ctrl-C arrives as a key in cbreak mode only if ISIG is off; be safe
        raise KeyboardInterrupt
    return "q" if key in ("q", "\x04") else key


@contextlib.contextmanager
def _closing(players: list[Strategy]) -> Iterator[None]:
    """Stop the processes of isolated seats however the game ends."""
    try:
        yield
    finally:
        for player in players:
            if isinstance(player, IsolatedBot):
                player.close()
