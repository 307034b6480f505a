"""The engine: a game of Treasure Poker between bots, driven over the steppable `GameState`.

The rules live in the state (``treasure_sim.game.gamestate``: the 17 steps of a hand as the card names
them, betting, the showdown, the Treasure steps); the deck, the zones and the chips change only through
`Table` and `Hand` (``treasure_sim.game.state``). `Game` is the loop that asks each question of the seat
it is for: every question to a bot goes through its `Seat` (``seats.py``), which returns answers already
checked against the state's options.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

import numpy as np

from ..game.betting import BetLimits
from ..game.gamestate import Decision, GameState, mix_seeds
from ..game.history import GameResult, HandRecord
from ..game.powers import Restrict
from ..game.questions import QUESTIONS
from ..game.rules import RuleSet
from ..game.seeding import as_seed_sequence, derive, root_key
from ..game.state import names
from ..game.strategy import Strategy
from .integrity import check_game_end, check_hand, watch
from .seats import Seat, StrategyError
from .timeouts import AlarmScope

__all__ = ["Game", "StrategyError", "play_game"]


class Game:
    """One game of Treasure Poker between ``strategies`` (one per seat, 2–10).

    Scenarios: ``deck`` stacks cards on top of the first hand's deck in deal order, ``treasures``
    pre-fills zones (``{2: "7c Kh"}``), ``money`` sets the stacks, ``dealer`` the first button.
    Seeds: ``deal_seed`` drives the cards alone, so duplicate deals can share cards while bots get
    their own streams, and ``bot_seeds`` gives each seat's generator; each defaults to a keyed hash
    of ``seed`` (``seeding.derive``), so nothing a bot holds reveals the card stream. ``draw_seeds`` gives each
    seat's stream for drawing its `Mixed` answers, which no bot sees; it defaults to a keyed hash of ``seed`` (or,
    when both ``deal_seed`` and ``bot_seeds`` are given, to children of the card seed), so a caller that plays one
    ``deal_seed`` more than once must vary ``seed`` or pass fresh ``draw_seeds`` per game, as tournaments do: else
    a bot that remembers its draws in one game could predict them in the next.
    Shown hands name their quintet (``ShownHand.quintet``, ``wilds``) only when something asks: a
    printed or written record, a hand history. ``quintets=True`` names them as they are shown (the
    old default); ``False`` is the same as the default, kept so callers that passed it still work.
    ``strict=True`` raises `StrategyError` at a bot's first misstep instead of recording it and
    playing on. ``decision_timeout`` limits every answer of every bot to that many seconds (``setup``
    to ten times as many): a bot over the limit gets the default answer and a recorded timeout, and
    after ``max_timeouts`` of them it is asked nothing more this game (``timeouts.py``, ``seats.py``).
    Whatever a bot raises is its error, recorded like a wrong answer, except the ``ends_game`` exception types: by
    default Ctrl-C (``KeyboardInterrupt``); a trusted seat adds its own (a person leaving the table, an environment
    closing); a tournament's workers, which ignore Ctrl-C, pass none, so a bot cannot stop a run by raising it.
    Restricted play: ``restrict={seat: {"clubs", ...}}`` bars a seat from powers (``strategy.POWERS``): its Clubs
    make nothing wild for it, it is never offered Spades moves, Hearts draws or steals, and it never takes a New
    Treasure (seeds/rulings.md, "Restricted play"); its observations say so (``Observation.restricted``).
    After every hand the chips and cards are checked (``integrity.py``); ``watch_code`` also checks that no engine
    code was replaced, which only in-process bot code that is not ours can do: a caller whose process has run no
    such code may turn it off (a tournament does, at tables of built-in or isolated bots). Then nothing can tamper,
    and the chips and cards are checked only at hands 1, 17, 33, ... (``integrity.TRUSTED_EVERY``) and when the
    game is over: a tripwire for an engine bug.
    ``on_decision(state, decision)`` is told every decision a seat faces, before its bot is asked, the questions
    whose fixed default a bot keeps included (answered with that default, as without it): a replay counts the
    decisions of a game this way; betting then runs decision by decision (the same games, somewhat slower).
    """

    def __init__(self, strategies: Sequence[Strategy], rules: RuleSet = RuleSet(),
                 seed: int | np.random.SeedSequence | None = 0, *, deck: str | Sequence | None = None,
                 treasures: Mapping[int, str | Sequence] | None = None, money: Sequence[int] | None = None,
                 dealer: int = 0, strict: bool = False, quintets: bool | None = None,
                 deal_seed: int | np.random.SeedSequence | None = None,
                 bot_seeds: Sequence[int | np.random.SeedSequence] | None = None,
                 draw_seeds: Sequence[np.random.SeedSequence] | None = None,
                 decision_timeout: float | None = None, max_timeouts: int | None = 3,
                 restrict: Restrict | None = None, watch_code: bool = True,
                 on_decision: Callable[[GameState, Decision], None] | None = None,
                 ends_game: tuple[type[BaseException], ...] = (KeyboardInterrupt,)) -> None:
        n = len(strategies)
        if not 2 <= n <= 10:
            raise ValueError(f"a game needs 2 to 10 strategies, got {n}")
        for i, s in enumerate(strategies):
            if not isinstance(s, Strategy):
                raise ValueError(f"strategy {i} is a {type(s).__name__}, not a treasure_sim.Strategy")
        if not isinstance(rules, RuleSet):
            raise ValueError(f"rules must be a RuleSet, got {type(rules).__name__}")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        if decision_timeout is not None and (isinstance(decision_timeout, bool) or not isinstance(
                decision_timeout, int | float) or not 0 < decision_timeout < float("inf")):
            raise ValueError(f"decision_timeout must be a number of seconds > 0 or None, got {decision_timeout!r}")
        if max_timeouts is not None and (isinstance(max_timeouts, bool) or not isinstance(max_timeouts, int)
                                         or max_timeouts < 1):
            raise ValueError(f"max_timeouts must be a whole number >= 1 or None, got {max_timeouts!r}")
        for name, given in (("bot_seeds", bot_seeds), ("draw_seeds", draw_seeds)):
            if given is not None and len(given) != n:
                raise ValueError(f"{name} must be {n} seeds, one per seat; got {len(given)}")
        self.strategies = list(strategies)
        self.strict = strict
        self.watch_code = watch_code
        self.quintets = bool(quintets)  # name every quintet at once (else lazily)
        self.seed = seed if isinstance(seed, int) else None
        # every stream from its own keyed hash of the seed: no bot's seed reveals the cards (seeding.py)
        key = root_key(seed) if deal_seed is None or bot_seeds is None else b""
        card_seed = derive(key, "cards") if deal_seed is None else as_seed_sequence(deal_seed)
        seat_seeds = ([derive(key, "bot", s) for s in range(n)] if bot_seeds is None
                      else [as_seed_sequence(b) for b in bot_seeds])
        if draw_seeds is None:  # keyed by the game's seed where there is one, so rotations of a deal_seed draw afresh
            draw_seeds = [derive(key, "draws", s) for s in range(n)] if key else mix_seeds(card_seed, n)
        self.state = state = GameState.new(n, rules, deal_seed=card_seed, draw_seeds=draw_seeds, deck=deck,
                                           treasures=treasures, money=money, dealer=dealer, restrict=restrict,
                                           quintets=self.quintets)
        self.rules = state.rules  # the state's own copy: nothing the caller (or a bot that reached theirs) changes it
        table = state.table
        self.table = table
        self.seats = [Seat(i, bot, table, strict=strict, limit=decision_timeout, max_timeouts=max_timeouts,
                           ends_game=ends_game) for i, bot in enumerate(self.strategies)]
        self._hands: list[HandRecord] = []
        self._checked_end = False  # the chips and cards checked once the game is over (`integrity.check_game_end`)
        for seat in self.seats:  # each bot gets its own copy of the rules, in setup and in every observation
            seat.setup(n, table.bot_rules[seat.index], np.random.default_rng(seat_seeds[seat.index]))
        state.errors = [seat.errors for seat in self.seats]  # each seat's own list, kept up to date by it
        every = frozenset(QUESTIONS)
        state.asks = [every if on_decision is not None else seat.questions() for seat in self.seats]
        self._on_decision = on_decision
        self._told = any("on_hand_end" in seat.asks for seat in self.seats)  # anyone to tell after a hand?
        self._timed = decision_timeout is not None
        self._acts = [seat.act for seat in self.seats]  # what the state's loops ask (`GameState.play`)
        self._answers = [seat.answer for seat in self.seats]  # and every question that is not a bet
        self._drive()  # the votes before the first hand

    # ----- public state between hands ------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return self.table.n

    @property
    def money(self) -> tuple[int, ...]:
        return tuple(self.table.money)

    @property
    def treasures(self) -> tuple[tuple[str, ...], ...]:
        return self.table.zones_as_names()

    @property
    def deck_size(self) -> int:
        return self.table.deck_size

    @property
    def deck_cards(self) -> tuple[str, ...]:
        """The deck, top card first (for tests and what-ifs; never shown to a bot)."""
        return names(self.table.deck_top_first())

    @property
    def removed_cards(self) -> tuple[str, ...]:
        """Cards out of the game for good (spent Diamonds under ``spent_diamonds = "removed"``), in order."""
        return names(self.table.removed)

    @property
    def dealer(self) -> int:
        return self.table.dealer

    @property
    def end_reason(self) -> str | None:
        return self.state.end_reason

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def hands(self) -> tuple[HandRecord, ...]:
        return tuple(self._hands)

    @property
    def errors(self) -> list[list[str]]:
        """Per seat, the messages of the bot's errors so far."""
        return [seat.errors for seat in self.seats]

    # ----- the game ------------------------------------------------------------------------------
    def play(self) -> GameResult:
        """Play hands until the game ends; the result."""
        while self.end_reason is None:
            self.play_hand()
        return self.result()

    def result(self) -> GameResult:
        money = self.table.money
        best = max(money)
        tied = [s for s, m in enumerate(money) if m == best]
        shares = tuple(1 / len(tied) if s in tied else 0.0 for s in range(self.n_players))
        return GameResult(
            n_players=self.n_players,
            strategies=tuple(seat.label for seat in self.seats),
            seed=self.seed,
            rules=self.rules.to_dict(),
            final_money=tuple(money),
            win_shares=shares,
            end_reason=self.end_reason or "",
            hands_played=len(self._hands),
            treasures=self.treasures,
            errors=tuple(tuple(seat.errors) for seat in self.seats),
            decisions=tuple(seat.decisions for seat in self.seats),
            decision_time=tuple(seat.seconds / seat.decisions if seat.decisions else 0.0 for seat in self.seats),
            hands=tuple(self._hands),
            timeouts=tuple(seat.timeouts for seat in self.seats),
            failed_decisions=tuple(seat.failed for seat in self.seats),
        )

    # ----- one hand ------------------------------------------------------------------------------
    def play_hand(self) -> HandRecord:
        """Play one hand (steps 1–17), and the votes before the next, and return its record."""
        if self.over:
            raise RuntimeError(f"the game is over ({self.end_reason})")
        if self._timed:  # the alarms' signal handler stays installed for the whole hand (timeouts.py)
            with AlarmScope():
                return self._play_hand()
        return self._play_hand()

    def _play_hand(self) -> HandRecord:
        self._drive()  # the hand, to its end (its record kept and told), step 17 and the votes before the next
        return self._hands[-1]

    def play_until(self, outside: Container[int]) -> Decision | None:
        """Play on, asking the bots through their seats, up to a question for a seat in ``outside`` (returned: the
        caller answers it with ``self.state.apply`` and calls again) or, as `play_hand` stops, to the votes after a
        hand (None; `over` says whether the game ended). The questions of the vote before the first hand, asked as
        the game is built, go to every seat's own `Strategy`.

        Why: an environment or a terminal player answers some seats itself, stepping the state, while the built-in
        bots at the table are asked exactly as `play` asks them."""
        if self.over:
            return None
        if self._timed:  # the alarms' signal handler stays installed while the bots are asked (timeouts.py)
            with AlarmScope():
                return self._drive(outside)
        return self._drive(outside)

    def _drive(self, outside: Container[int] = ()) -> Decision | None:
        """Ask the bots every question the state waits for, up to the start of the next hand (None) or a question
        for a seat in ``outside`` (returned unanswered). A finished hand's record is kept and told on the way.
        With no seat outside (and no `on_decision`), every question is answered in the state's own loops
        (`GameState.play`)."""
        state = self.state
        if outside or self._on_decision is not None:
            d = self._step(outside)
            if d is not None:
                return d
        else:
            play, acts, answers = state.play, self._acts, self._answers
            play(acts, answers)
            while state.phase == "hand_over":
                self._hand_over()
                play(acts, answers)
        if state.phase == "over" and self._hands and not self._checked_end:
            self._checked_end = True
            check_game_end(self)  # chips and cards once more: the last hands may not have been checked
        return None  # the votes are done ("ready") or the game is over

    def _step(self, outside: Container[int]) -> Decision | None:
        """`_drive` one decision at a time, each told to `on_decision`: up to a question for a seat in ``outside``
        (returned), or None when the votes before a hand are done or the game is over."""
        state, seats, told = self.state, self.seats, self._on_decision
        while True:
            d = state.decision(False)
            if d is None:
                if state.phase != "hand_over":
                    return None  # "ready" or "over"
                self._hand_over()
            elif d.seat in outside:
                return d
            else:
                if told is not None:
                    told(state, d)
                if d.kind == "bet":
                    self._bet(d)
                else:  # the seat asks its bot, checks the answer against d's options, else plays the default
                    state.answer(seats[d.seat].answer(d, state.observation))

    def _hand_over(self) -> None:
        record = self.state.record
        assert record is not None
        self._hands.append(record)
        check_hand(self, self.state.hand, record)  # chips, cards (and the code if watched) as they must be
        if self._told:
            for s in self.state.hand.order:  # in turn order
                self.seats[s].on_hand_end(record)

    def _bet(self, d: Decision) -> None:
        """A bet outside the state's betting loop (a caller told every decision), asked as the loop asks it: through
        the seat's `Seat.act`, which checks the answer against ``d``'s limits and falls back to the default."""
        state = self.state
        lim: BetLimits = d.limits  # type: ignore[assignment]  # a bet always has its limits
        answer = self._acts[d.seat](state.observation(d), lim, d.my_bet)
        if type(answer) is list:
            state.bet_drawn(answer, lim, d.my_bet)
        else:
            state.bet(*answer)


def play_game(strategies: Sequence[Strategy], rules: RuleSet = RuleSet(), seed: int = 0, *,
              restrict: Restrict | None = None, **kwargs: Any) -> GameResult:
    """Play a whole game and return its result (``restrict`` and the other keywords as for `Game`)."""
    return Game(strategies, rules, seed, restrict=restrict, **kwargs).play()


watch()  # the engine as loaded, before any bot runs: what integrity.check_hand compares with
