"""The game as a state the caller steps: it says what it waits for (a `Decision`) and takes an answer (`apply`).

Why passive: a caller that holds the state can copy it (`clone`), redraw what one seat cannot see
(`sample_hidden`) and try an answer, which is what a search player needs; an environment or a terminal player
steps it without threads. `treasure_sim.bots.driver.Game` is a small driver loop over it that asks bots
through their seats.

Chance is inside the state, from keyed streams of its own: the shuffles, Hearts draws (off the deck) and the
draws from a bot's declared `Mixed` chances (one stream per seat). Nothing that the caller answers through `apply`
is trusted: it is checked against the state's own options (`IllegalAnswer` names what is wrong). The loops for a
driver that asks its own bots (`play`, which runs `play_bets` and `play_answers`) take answers its seats have already
checked.

The steps are the card's 17 (each method names the steps it plays: betting, 4–10, in `betting_steps`, the
Treasure steps 11, 12 and 14–16 in `treasure_steps`, the rest below); a hand runs through the phases
``vote`` (before a hand: go on?), ``ready`` (votes done, nothing dealt), ``bet``, ``spades``, ``hearts``,
``joker_treasure``, ``make_room``, ``steal``, ``hand_over`` (its record is in `record`) and, at the end, ``over``.
Only the decision phases wait for an answer; the others pass by themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from . import evaluator
from .betting import BetLimits, split_pots, uncalled_bet
from .betting_steps import BettingSteps
from .cards import make_deck
from .history import HandRecord, ShownHand, name_quintet
from .observe import observe, observe_between
from .powers import Restrict, barred_seats, check_restrict
from .questions import QUESTIONS, Decision, IllegalAnswer, check_answer, plain_bet
from .rules import RuleSet
from .scenario import check_money, check_stacked_deck, check_treasures
from .seeding import as_seed_sequence, derive, root_key
from .state import DeckEmpty, Hand, Table, names
from .strategy import Observation

__all__ = ["Decision", "GameState", "IllegalAnswer"]

_new = tuple.__new__  # NamedTuple(*values) checks arity; the state builds its records in field order
_YES_NO = (True, False)


class GameState(BettingSteps):
    """One game's state. Build it, then loop: ``d = state.decision()``; ``state.apply(answer)`` until it is None.

    ``asks``: per seat, the questions with a fixed default (``Question.skippable`` in `questions.QUESTIONS`) that seat
    answers; the others are answered with their default without a `Decision` (the engine passes what each bot
    overrides; by default every seat is asked everything). ``errors``: per seat, a list the driver appends a bot's
    error messages to; each hand's record names those made during it.
    """

    __slots__ = (
        "_card_rng",
        "_paused",
        "_shared_rngs",
        "_stops",
        "_vote_asks",
        "_vote_views",
        "_votes",
        "asks",
        "barred",
        "end_reason",
        "errors",
        "hand",
        "mix_rngs",
        "quintets",
        "record",
        "rules",
        "table",
    )

    def __init__(self, table: Table, rules: RuleSet, card_rng: np.random.Generator,
                 mix_rngs: Sequence[np.random.Generator], barred: dict[str, frozenset[int]],
                 asks: Sequence[frozenset[str]] | None = None, quintets: bool = False) -> None:
        self.table = table
        self.quintets = quintets  # name every shown quintet at once (else only when a record is printed)
        self.rules = rules
        self._card_rng = card_rng
        self.mix_rngs = list(mix_rngs)
        self._mix_left: list[list[float]] = [[] for _ in self.mix_rngs]  # per seat, drawn and not used yet, last first
        self._shared_rngs = False  # the streams are shared with a clone: copy them before drawing (copy on write)
        self.barred = barred
        everything = frozenset(QUESTIONS)
        self.asks: list[frozenset[str]] = list(asks) if asks is not None else [everything] * table.n
        self.errors: list[list[str]] = [[] for _ in range(table.n)]
        self.end_reason: str | None = None
        self.phase = "start"
        self.hand: Hand = None  # type: ignore[assignment]  # the hand in progress or just played; None before one
        self.record: HandRecord | None = None  # the last finished hand's record
        self._i = 0  # the index of whoever is to answer in the phase's list (voters, contenders, turn order)
        self._votes: list[int] = []  # before a hand: the seats able to pay the ante, who vote in turn
        self._vote_asks = tuple(_new(Decision, (s, "keep_playing", _YES_NO, True, None, 0, None))
                                for s in range(table.n))  # per seat, its vote's Decision: always the same
        self._vote_views: tuple | None = None  # (the _votes list they were built for, {voter: its Observation})
        self._stops = 0  # how many of them said stop
        self._paused = False  # a driver that stops between hands has stopped at this phase
        self._bet: list = []  # a betting round: [queue, high, largest, raises, reach, top, top_seat, second]
        self._hearts: list = []  # a Hearts turn: [ranks, owed, room]
        self._held: dict[int, list[int]] = {}  # Diamonds held when step 16 began, per seat that may steal
        self._waiting: int | None = None  # make_room: the card waiting to enter a full zone
        self._in: list[int] = []  # from step 11 on: the seats still in, in turn order

    @classmethod
    def new(cls, n_players: int, rules: RuleSet = RuleSet(), seed: int | np.random.SeedSequence | None = 0, *,
            deal_seed: int | np.random.SeedSequence | None = None,
            draw_seeds: Sequence[int | np.random.SeedSequence] | None = None, deck: str | Sequence | None = None,
            treasures: Mapping[int, str | Sequence] | None = None, money: Sequence[int] | None = None,
            dealer: int = 0, restrict: Restrict | None = None, quintets: bool = False) -> GameState:
        """A new game of ``n_players`` (2–10) as `treasure_sim.Game` sets one up (the same arguments, the same streams
        for the same seeds), before the votes of the first hand; every seat is asked every question."""
        if isinstance(n_players, bool) or not isinstance(n_players, int) or not 2 <= n_players <= 10:
            raise ValueError(f"a game needs 2 to 10 players, got {n_players!r}")
        if not isinstance(rules, RuleSet):
            raise ValueError(f"rules must be a RuleSet, got {type(rules).__name__}")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n_players:
            raise ValueError(f"dealer must be a seat 0..{n_players - 1}, got {dealer!r}")
        if draw_seeds is not None and len(draw_seeds) != n_players:
            raise ValueError(f"draw_seeds must be {n_players} seeds, one per seat; got {len(draw_seeds)}")
        rules = rules.replace()  # our own copy: nothing the caller does to theirs changes it
        key = root_key(seed) if deal_seed is None or draw_seeds is None else b""
        card_seed = derive(key, "cards") if deal_seed is None else as_seed_sequence(deal_seed)
        full = make_deck(rules.jokers)
        zones = check_treasures(treasures, n_players, rules.zone_limit)
        stacked = check_stacked_deck(deck, zones, full)
        restricted = check_restrict(restrict, n_players)
        table = Table(n_players, rules, full, check_money(money, n_players, rules.starting_money), zones, dealer,
                      restricted)
        card_rng = np.random.default_rng(card_seed)
        table.reshuffle(card_rng, stacked)
        if draw_seeds is not None:
            draws = [as_seed_sequence(d) for d in draw_seeds]
        else:  # keyed by the game's seed where there is one, so rotations of a deal_seed draw afresh
            draws = [derive(key, "draws", s) for s in range(n_players)] if key else mix_seeds(card_seed, n_players)
        return cls(table, rules, card_rng, [np.random.default_rng(d) for d in draws], barred_seats(restricted),
                   quintets=quintets)

    # ----- what it waits for ----------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase == "over"

    def decision(self, through_hands: bool = True, questions: bool = True) -> Decision | None:
        """The question the state waits for, after playing every step that needs none; None once the game is over.

        ``through_hands=False`` also stops (None) at the end of a hand (``phase == "hand_over"``, its record in
        `record`) and when the votes before a hand are done (``"ready"``): the driver tells its bots, and the game
        between hands can be looked at; the next call goes on. ``questions=False`` plays only the steps that need no
        answer and stops (None) where a question may wait, without making its `Decision`: for a driver that answers
        them with `play_bets` and `play_answers`.
        """
        while True:
            phase = self.phase
            if phase in _ASKING:
                if not questions:
                    return None
                d = _ASKING[phase](self)
                if d is not None:
                    return d
            elif phase == "ready" or phase == "hand_over":
                if self._between_hands(not through_hands):
                    return None
            elif phase == "start":
                self._start()
            else:
                return None

    def observation(self, decision: Decision | None = None) -> Observation:
        """What the seat of ``decision`` (by default the one waited for) sees as it answers."""
        d = decision if decision is not None else self.decision()
        if d is None:
            raise RuntimeError("the game is over: nobody is asked anything")
        kind = d[1]  # indexed: a NamedTuple's fields are slower to read by name
        if kind == "keep_playing":
            return self._voter_view(d)
        if kind == "bet":
            lim = d.limits
            return observe(self.table, self.hand, d[0], "bet", lim[0], lim[1], lim[2], d.options)  # type: ignore[index]
        return self._hand_view(d)

    def _voter_view(self, d: Decision) -> Observation:
        """What a voter sees: nothing changes while the seats vote, so every voter's view is built once."""
        views, votes = self._vote_views, self._votes
        if views is None or views[0] is not votes:
            views = self._vote_views = (votes, dict(zip(votes, observe_between(self.table, votes), strict=True)))
        view = views[1].get(d[0])
        return view if view is not None else observe_between(self.table, (d[0],))[0]

    def _hand_view(self, d: Decision) -> Observation:
        """What the seat of ``d``, a question of the hand that is not a bet, sees: the observation's phase is the
        question."""
        return observe(self.table, self.hand, d[0], d[1])

    # ----- answers ----------------------------------------------------------------------------------------------
    def apply(self, answer: Any) -> None:
        """Answer the decision waited for: checked against the state's own options (`IllegalAnswer` if it is not
        legal; the state is then unchanged). Bets take an `Action` or a `Mixed` (the state draws from its chances)."""
        d = self.decision()
        if d is None:
            raise RuntimeError(f"the game is over ({self.end_reason}): nothing to answer")
        kind = d.kind
        if kind == "bet":
            lim = d.limits
            plain = plain_bet(answer, lim, d.my_bet)  # type: ignore[arg-type]
            if type(plain) is list:
                self.bet_drawn(plain, lim, d.my_bet)  # type: ignore[arg-type]
            else:
                self.bet(*plain)
            return
        self.answer(check_answer(d, answer))

    def answer(self, value: Any) -> None:
        """A legal answer to the question waited for that is not a bet (already checked)."""
        _ANSWER[self.phase](self, value)

    def play_answers(self, answers: Sequence[Callable[[Decision, Callable[[Decision], Observation]], Any]]) -> None:
        """Answer every question that is not a bet the state waits for in a row (the votes, the Treasure steps),
        ``answers[seat](decision, look)`` giving a checked answer (``look(decision)``: what the seat sees, built only
        if asked for): the questions `decision` gives, without a call of it for each; it returns at a betting round,
        between hands and at the end. Why: a driver asks its bots several such questions a hand."""
        look = self._hand_view  # what `observation` gives, without finding out what kind of question it is
        while True:
            phase = self.phase
            if phase == "vote":  # `_vote_decision`, inline: every hand begins with a vote
                votes, asks, decisions, view = self._votes, self.asks, self._vote_asks, self._voter_view
                for i in range(self._i, len(votes)):
                    s = votes[i]
                    if "keep_playing" in asks[s]:
                        self._i = i  # the voter asked, should its answering function raise
                        self._vote(answers[s](decisions[s], view))
                self._all_voted()
            elif phase == "bet" or phase not in _ASKING:
                return
            else:
                d = _ASKING[phase](self)
                if d is not None:
                    _ANSWER[phase](self, answers[d[0]](d, look))  # asking a bot changes nothing here: the same phase

    def play(self, acts: Sequence[Callable[[Observation, BetLimits, int], Any]],
             answers: Sequence[Callable[[Decision, Callable[[Decision], Observation]], Any]]) -> None:
        """Answer every question in a row, the bets with ``acts`` (as `play_bets`) and the others with ``answers``
        (as `play_answers`), up to the end of a hand (``phase == "hand_over"``, its record in `record`), the end of
        the votes before one (``"ready"``) or the game's end; as `decision` with ``through_hands=False``, the next
        call goes on. Why: a driver that asks its own bots everything, with no `decision` call between the loops."""
        while True:
            phase = self.phase
            if phase == "bet":
                self.play_bets(acts=acts)
            elif phase in _ASKING:
                self.play_answers(answers)
            elif phase == "ready" or phase == "hand_over":
                if self._between_hands(True):
                    return
            elif phase == "start":
                self._start()
            else:  # over
                return

    def _between_hands(self, stop: bool) -> bool:
        """At the end of a hand or of the votes before one: stop there (True) if ``stop`` and not stopped there
        already, else go on (the next hand's checks and votes, or its deal)."""
        if stop and not self._paused:
            self._paused = True  # stop here once: the next call goes on
            return True
        self._paused = False
        if self.phase == "ready":
            self._deal()
        else:
            self._next_hand()
        return False

    # ----- cloning and hidden information ------------------------------------------------------------------------
    def clone(self) -> GameState:
        """An independent copy: playing on it never changes this state (its streams are copies too)."""
        new = GameState.__new__(GameState)
        new.table = self.table.copy()
        new.rules = self.rules
        new._card_rng = self._card_rng  # shared until either draws (`_own_rngs`): most clones never do
        new.mix_rngs = self.mix_rngs
        new._mix_left = [list(left) for left in self._mix_left]
        new._shared_rngs = self._shared_rngs = True
        new.barred = self.barred
        new.asks = list(self.asks)
        new.errors = [[] for _ in self.errors]
        new.end_reason = self.end_reason
        new.phase = self.phase
        new.hand = self.hand.copy() if self.hand is not None else None
        new.quintets = self.quintets
        new._paused = self._paused
        new._stops = self._stops
        new._waiting = self._waiting
        new._in = self._in  # never changed in place
        new.record = self.record
        new._i = self._i
        new._votes = list(self._votes)
        new._vote_asks = self._vote_asks
        new._vote_views = None
        b = self._bet
        new._bet = [list(b[0]), *b[1:4], dict(b[4]), *b[5:]] if b else []
        new._hearts = list(self._hearts)
        new._held = {s: list(v) for s, v in self._held.items()}
        return new

    def sample_hidden(self, seat: int, rng: np.random.Generator) -> GameState:
        """A copy in which everything ``seat`` cannot see is redrawn uniformly among what fits all it has seen
        (`resample.redraw_hidden` says what is redrawn and what stays)."""
        from .resample import redraw_hidden  # resample builds states: it imports this module

        return redraw_hidden(self, seat, rng)

    def _own_rngs(self) -> None:
        """Copies of the streams this state shares with a clone, at the state they are in, before it draws."""
        self._card_rng = _copy_rng(self._card_rng)
        self.mix_rngs = [_copy_rng(r) for r in self.mix_rngs]
        self._shared_rngs = False

    # ----- the game between hands ----------------------------------------------------------------------------------
    def _start(self) -> None:
        """Before each hand: who can pay the ante, the hand cap, then the vote to go on (rulings §3, §7)."""
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
            self._end("too_few_players")
        elif t.hand_no >= self.rules.max_hands:
            self._end("hand_limit")
        else:
            self._votes, self._stops, self._i = able, 0, 0
            self.phase = "vote"
            self.hand = None  # type: ignore[assignment]

    def _vote_decision(self) -> Decision | None:
        votes, asks = self._votes, self.asks
        i, end = self._i, len(votes)  # the index kept in a local, stored only where a question waits
        while i < end:
            s = votes[i]
            if "keep_playing" in asks[s]:
                self._i = i
                return self._vote_asks[s]
            i += 1
        self._all_voted()
        return None

    def _vote(self, go_on: bool) -> None:
        if not go_on:
            self._stops += 1
        self._i += 1

    def _all_voted(self) -> None:
        if self._stops == len(self._votes):  # every player able to pay said stop
            self._end("all_stopped")
        else:
            self.phase = "ready"
        self._votes, self._stops, self._i = [], 0, 0

    def _end(self, reason: str) -> None:
        self.end_reason = reason
        self.phase = "over"
        self.hand = None  # type: ignore[assignment]

    def _next_hand(self) -> None:
        """Step 17 and on: the button moves, the deck is shuffled, and the next hand's checks begin."""
        t, h = self.table, self.hand
        if h.void or h.ran_out:
            self.end_reason = "deck_empty"
        t.dealer = (t.dealer + 1) % t.n
        if self._shared_rngs:
            self._own_rngs()
        t.reshuffle(self._card_rng)  # step 17
        self._i = 0
        if self.end_reason is None:
            self.phase = "start"
            self._start()
        else:
            self.phase = "over"
            self.hand = None  # type: ignore[assignment]

    # ----- one hand ---------------------------------------------------------------------------------------------
    def _deal(self) -> None:
        """Steps 1–3 and the first betting round's start."""
        t = self.table
        t.hand_no += 1
        self.record = None
        h = self.hand = Hand(t, [len(e) for e in self.errors])
        h.pay_antes(t)  # step 1
        try:
            h.deal_hole(t)  # step 2
            if self.rules.new_treasure:
                h.deal_new_treasure(t)  # step 3, face up
        except DeckEmpty:
            self._void()
            return
        self._round(0)

    def _void(self) -> None:
        """The deck ran out while dealing (rulings §7): every chip goes back, nothing else happens."""
        h, t = self.hand, self.table
        h.void = True
        for s in h.order:
            h.give_back(t, s, h.committed[s])
        self._hand_over()

    def _finish(self) -> None:
        """Steps 11–12 (when more than one is in) as decisions, then the rest of the hand."""
        h = self.hand
        self._i = 0
        self._in = h.contenders()  # nobody folds from here on
        if len(self._in) > 1:
            if self.rules.spades:
                self.phase = "spades"
            else:
                self._reveal()
        else:
            self._pots()

    def _showdown(self) -> None:
        """Step 13: every hand still in is shown and scored in one batched evaluator call; then the pots."""
        t, h = self.table, self.hand
        seats = self._in
        shared, hands, wilds = h.shared, h.hands, t.wilds
        rows, masks = [], []
        for s in seats:  # loops, not comprehensions (each a function call in 3.11)
            rows.append(hands[s] + shared)
            masks.append(wilds[s])
        scores = evaluator.score_rows(rows, masks)  # ids are ours: no numpy, no checks
        board = names(shared)
        shown = []
        for i, s in enumerate(seats):
            shown.append(_new(ShownHand, (t.hand_no, s, names(hands[s]), scores[i],
                                          evaluator.category_name(scores[i]), board, masks[i])))
        if self.quintets:  # name them now (else only when a record is printed or written)
            for hand in shown:
                name_quintet(hand.cards + hand.board, hand.wild_ranks)
        h.shown = shown
        t.showdowns = t.showdowns + tuple(shown)
        self._pots(dict(zip(seats, scores, strict=True)))

    def _pots(self, scores: dict[int, int] | None = None) -> None:
        """The uncalled bet goes back, the pots are paid, then the New Treasure (steps 14–15)."""
        t, h = self.table, self.hand
        h.returned = returned = uncalled_bet(h.committed)
        if returned:
            h.give_back(t, *returned)
        h.pots = split_pots(h.committed, self._in, scores or {}, h.order)
        for pot in h.pots:
            shares = pot.shares
            for i, w in enumerate(pot.winners):  # not zip(..., strict=True): its keyword makes the call slow
                h.pay(t, w, shares[i])
        self._new_treasure()

    def _hand_over(self) -> None:
        self.record = self.hand.record(self.table, self.errors)
        self._i = 0
        self.phase = "hand_over"


def mix_seeds(card_seed: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """The default streams for drawing `Mixed` answers, one per seat: children of the card seed, which no bot sees, so
    no bot can predict its draws from its own generator's seed; separate per seat, so one bot's draws change no one
    else's. The fallback when a game has no seed of its own; right for one game per card seed only."""
    return [np.random.SeedSequence(card_seed.entropy, spawn_key=(*card_seed.spawn_key, _MIX_KEY, s)) for s in range(n)]


_MIX_KEY = 0x6D6978  # "mix": a spawn-key branch the card stream never uses


def _copy_rng(rng: np.random.Generator) -> np.random.Generator:
    bits = type(rng.bit_generator)()
    bits.state = rng.bit_generator.state
    return np.random.Generator(bits)


# the phases that ask, and their answers: read-only tables, whose contents `integrity` compares with what it loaded
_ASKING: Mapping[str, Callable[[GameState], Decision | None]] = MappingProxyType({
    "vote": GameState._vote_decision,
    "bet": GameState._bet_decision,
    "spades": GameState._spades_decision,
    "hearts": GameState._hearts_decision,
    "joker_treasure": GameState._joker_decision,
    "make_room": GameState._room_decision,
    "steal": GameState._steal_decision,
})
_ANSWER: Mapping[str, Callable[[GameState, Any], None]] = MappingProxyType({
    "vote": GameState._vote,
    "spades": GameState._spades,
    "hearts": GameState._hearts_answer,
    "joker_treasure": GameState._take,
    "make_room": lambda state, out: state._make_room(state._waiting, out),
    "steal": GameState._steal,
})
