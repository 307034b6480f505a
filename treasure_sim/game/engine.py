"""The engine: the 17 steps of a hand as the card names them, and a game of hands until one ends it.

Every question to a bot goes through its `Seat` (``seats.py``), which returns answers already checked
against the options computed here; the deck, the zones and the chips change only through `Table`
and `Hand` (``state.py``). The Treasure steps (11, 12, 14–16) and restricted play are in ``powers.py``.
What is left here is the rules of betting, the showdown and the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import evaluator
from .betting import bet_limits, split_pots, uncalled_bet
from .cards import make_deck
from .history import GameResult, HandRecord, MixedDecision, ShownHand, name_quintet
from .powers import (
    Restrict,
    award_new_treasure,
    barred_seats,
    check_restrict,
    draw_hearts,
    move_spades,
    steal,
)
from .rules import RuleSet
from .seats import Seat, StrategyError
from .seeding import as_seed_sequence, derive, root_key
from .state import (
    DeckEmpty,
    Hand,
    Table,
    check_money,
    check_stacked_deck,
    check_treasures,
    names,
    observe,
    observe_between,
)
from .strategy import CALL, CHECK, FOLD, RAISE, Strategy
from .timeouts import AlarmScope

__all__ = ["Game", "StrategyError", "play_game"]

_new_record = tuple.__new__  # ShownHand(*values) checks arity; the showdown builds them in field order
_LEGAL = {to_call_free: {raise_ok: (FOLD, CHECK if to_call_free else CALL) + ((RAISE,) if raise_ok else ())
                         for raise_ok in (False, True)} for to_call_free in (False, True)}
"""The legal action kinds at a betting decision, by (nothing to call, a raise is possible)."""


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
    """

    def __init__(self, strategies: Sequence[Strategy], rules: RuleSet = RuleSet(),
                 seed: int | np.random.SeedSequence | None = 0, *, deck: str | Sequence | None = None,
                 treasures: Mapping[int, str | Sequence] | None = None, money: Sequence[int] | None = None,
                 dealer: int = 0, strict: bool = False, quintets: bool | None = None,
                 deal_seed: int | np.random.SeedSequence | None = None,
                 bot_seeds: Sequence[int | np.random.SeedSequence] | None = None,
                 draw_seeds: Sequence[np.random.SeedSequence] | None = None,
                 decision_timeout: float | None = None, max_timeouts: int | None = 3,
                 restrict: Restrict | None = None,
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
        rules = rules.replace()  # our own copy: nothing the caller (or a bot that reached theirs) does changes it
        self.rules = rules
        self.strict = strict
        self.quintets = bool(quintets)  # name every quintet at once (else lazily)
        self.seed = seed if isinstance(seed, int) else None
        # every stream from its own keyed hash of the seed: no bot's seed reveals the cards (seeding.py)
        key = root_key(seed) if deal_seed is None or bot_seeds is None else b""
        card_seed = derive(key, "cards") if deal_seed is None else as_seed_sequence(deal_seed)
        seat_seeds = ([derive(key, "bot", s) for s in range(n)] if bot_seeds is None
                      else [as_seed_sequence(b) for b in bot_seeds])
        self._card_rng = np.random.default_rng(card_seed)
        full = make_deck(rules.jokers)
        zones = check_treasures(treasures, n, rules.zone_limit)
        stacked = check_stacked_deck(deck, zones, full)
        restricted = check_restrict(restrict, n)
        self._barred = barred_seats(restricted)  # per power, the seats that may not use it
        self.table = Table(n, rules, full, check_money(money, n, rules.starting_money), zones, dealer, restricted)
        self.seats = [Seat(i, bot, self.table, strict=strict, limit=decision_timeout, max_timeouts=max_timeouts,
                           ends_game=ends_game) for i, bot in enumerate(self.strategies)]
        self._hands: list[HandRecord] = []
        self.end_reason: str | None = None
        self.table.reshuffle(self._card_rng, stacked)
        if draw_seeds is not None:
            draws = [as_seed_sequence(d) for d in draw_seeds]
        else:  # keyed by the game's seed where there is one, so rotations of a deal_seed draw afresh
            draws = [derive(key, "draws", s) for s in range(n)] if key else mix_seeds(card_seed, n)
        for seat, draw_seed in zip(self.seats, draws, strict=True):
            seat.mix_rng = np.random.default_rng(draw_seed)
        for seat in self.seats:  # each bot gets its own copy of the rules, in setup and in every observation
            seat.setup(n, self.table.bot_rules[seat.index], np.random.default_rng(seat_seeds[seat.index]))
        self._told = any("on_hand_end" in seat.asks for seat in self.seats)  # anyone to tell after a hand?
        self._errors = [seat.errors for seat in self.seats]  # each seat's own list, kept up to date by it
        self._timed = decision_timeout is not None
        self._check_next_hand()

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
    def over(self) -> bool:
        return self.end_reason is not None

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
        )

    def _check_next_hand(self) -> None:
        """Before each hand: who can pay the ante, the hand cap, and the vote to go on (rulings §3, §7)."""
        t = self.table
        money, out = t.money, t.out
        ante = t.ante = self.rules.ante_at(t.hand_no + 1)  # the ante of the hand about to start
        able = []
        for s in range(t.n):
            if money[s] < ante:
                out[s] = True
            elif not out[s]:
                able.append(s)
        if len(able) < 2:
            self.end_reason = "too_few_players"
        elif len(self._hands) >= self.rules.max_hands:
            self.end_reason = "hand_limit"
        else:
            voters = [s for s in able if self.seats[s].votes]  # the others always go on
            if voters:
                views = observe_between(t, voters)
                votes = [self.seats[s].keep_playing(view) for s, view in zip(voters, views, strict=True)]
                if len(voters) == len(able) and not any(votes):
                    self.end_reason = "all_stopped"

    # ----- one hand ------------------------------------------------------------------------------
    def play_hand(self) -> HandRecord:
        """Play one hand (steps 1–17) and return its record."""
        if self.over:
            raise RuntimeError(f"the game is over ({self.end_reason})")
        if self._timed:  # the alarms' signal handler stays installed for the whole hand (timeouts.py)
            with AlarmScope():
                return self._play_hand()
        return self._play_hand()

    def _play_hand(self) -> HandRecord:
        t = self.table
        t.hand_no += 1
        h = Hand(t, [len(seat.errors) for seat in self.seats])
        h.pay_antes(t)  # step 1
        try:
            h.deal_hole(t)  # step 2
            if self.rules.new_treasure:
                h.deal_new_treasure(t)  # step 3, face up
            for rnd, deal in enumerate((2, 2, 1, 0)):
                if h.live < 2:  # all but one folded: no more betting, no more cards
                    h.start_round(3)
                    break
                h.start_round(rnd)
                self._betting(h)
                if deal and h.live > 1:
                    h.deal_shared(t, deal)  # steps 5, 7, 9
        except DeckEmpty:
            h.void = True  # rulings §7: every chip goes back, nothing else happens
            for s in h.order:
                h.give_back(t, s, h.committed[s])
        if not h.void:
            self._finish(h)
        record = h.record(t, self._errors)
        self._hands.append(record)
        if self._told:
            for s in h.order:
                self.seats[s].on_hand_end(record)
        if h.void or h.ran_out:
            self.end_reason = "deck_empty"
        t.dealer = (t.dealer + 1) % t.n
        t.reshuffle(self._card_rng)  # step 17
        if self.end_reason is None:
            self._check_next_hand()
        return record

    def _finish(self, h: Hand) -> None:
        """Steps 11–16: Spades, Hearts and quintets if more than one is left, the pots, the treasures."""
        t = self.table
        contenders = h.contenders()
        scores: dict[int, int] = {}
        rules, seats, barred = self.rules, self.seats, self._barred
        if len(contenders) > 1:
            if rules.spades:
                move_spades(t, h, seats, contenders, barred["spades"])
            h.revealed = True  # step 12 begins by revealing the hands still in (rulings §6)
            if rules.hearts:
                h.ran_out = draw_hearts(t, h, seats, contenders, rules, barred["hearts"])
            scores = self._choose_quintets(h, contenders)
        h.returned = returned = uncalled_bet(h.committed)
        if returned:
            h.give_back(t, *returned)
        h.pots = split_pots(h.committed, contenders, scores, h.order)
        for pot in h.pots:
            for w, chips in zip(pot.winners, pot.shares, strict=True):
                h.pay(t, w, chips)
        h.taken = award_new_treasure(t, h, seats, rules, barred["new_treasure"])
        if rules.diamonds:
            h.steals = steal(t, h, seats, barred["diamonds"])

    def _betting(self, h: Hand) -> None:
        """Steps 4, 6, 8, 10: one betting round; folding is legal at every decision.

        ``queue`` holds the seats still to act, in turn order; a raise refills it with everyone
        else who can still act, starting after the raiser. A raise needs someone else still in who
        could put in more than the high bet: what each player can bet in all this round (``reach``,
        its stack at the start of the round) does not change as it bets, so the best two are kept.
        """
        t, rules, rnd, seats = self.table, self.rules, h.round, self.seats
        money, bets, folded, order = t.money, h.bets, h.folded, h.order
        live = [s for s in order if not folded[s]]
        if len(live) < 2:
            return
        reach = {s: money[s] for s in live}
        (top, top_seat), (second, _) = _best_two(reach)
        queue = [s for s in live if money[s] > 0]
        high = largest = raises = 0
        i = 0
        while i < len(queue):
            s = queue[i]
            i += 1
            my_bet = bets[s]
            stack = money[s]
            answerable = my_bet + stack > high and (second if s == top_seat else top) > high
            lim = bet_limits(rules, rnd, high, my_bet, stack, largest, raises, h.pot, answerable)
            legal = _LEGAL[lim[0] == 0][lim[2] > 0]
            obs = observe(t, h, s, "bet", lim[0], lim[1], lim[2], legal)
            seat = seats[s]
            kind, target = seat.act(obs, lim, my_bet)
            if seat.mixed is not None:  # drawn from declared chances: what the action correction needs
                h.mixed.append(MixedDecision(rnd, s, seat.mixed, tuple(h.committed), tuple(
                    [dealt and not f for dealt, f in zip(h.in_hand, folded, strict=True)]), lim[0], kind == FOLD))
                seat.mixed = None
            if kind == FOLD:
                h.fold(rnd, s)
                del reach[s]
                if len(reach) < 2:
                    return
                (top, top_seat), (second, _) = _best_two(reach)
                continue
            h.bet(t, rnd, s, kind, target)
            if kind == RAISE:
                largest = max(largest, target - high)
                high = target
                raises += 1
                queue = [o for o in t.after(order)[s] if not folded[o] and money[o] > 0]
                i = 0

    def _choose_quintets(self, h: Hand, seats: list[int]) -> dict[int, int]:
        """Step 13: every hand still in is shown and scored in one batched evaluator call."""
        t = self.table
        rows = [h.hands[s] + h.shared for s in seats]
        masks = [t.wilds[s] for s in seats]
        scores = evaluator.score_rows(rows, masks)  # ids are ours: no numpy, no checks
        board = names(h.shared)
        shown = [_new_record(ShownHand, (t.hand_no, s, names(h.hands[s]), scores[i],
                                         evaluator.category_name(scores[i]), board, masks[i]))
                 for i, s in enumerate(seats)]
        if self.quintets:  # name them now (else only when a record is printed or written)
            for hand in shown:
                name_quintet(hand.cards + hand.board, hand.wild_ranks)
        h.shown = shown
        t.showdowns = t.showdowns + tuple(shown)
        return dict(zip(seats, scores, strict=True))


def mix_seeds(card_seed: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """The default streams for drawing `Mixed` answers, one per seat: children of the card seed, which no bot sees, so
    no bot can predict its draws from its own generator's seed; separate per seat, so one bot's draws change no one
    else's. The fallback when a game has no seed of its own; right for one game per card seed only."""
    return [np.random.SeedSequence(card_seed.entropy, spawn_key=(*card_seed.spawn_key, _MIX_KEY, s)) for s in range(n)]


_MIX_KEY = 0x6D6978  # "mix": a spawn-key branch the card stream never uses


def _best_two(reach: dict[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The largest and second largest (amount, seat) of ``reach`` (at least two seats)."""
    first = second = (-1, -1)
    for seat, amount in reach.items():
        if amount > first[0]:
            first, second = (amount, seat), first
        elif amount > second[0]:
            second = (amount, seat)
    return first, second


def play_game(strategies: Sequence[Strategy], rules: RuleSet = RuleSet(), seed: int = 0, *,
              restrict: Restrict | None = None, **kwargs: Any) -> GameResult:
    """Play a whole game and return its result (``restrict`` and the other keywords as for `Game`)."""
    return Game(strategies, rules, seed, restrict=restrict, **kwargs).play()
