"""The engine: the 17 steps of a hand as the card names them, and a game of hands until one ends it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from time import perf_counter
from typing import Any

import numpy as np

from . import evaluator
from .betting import bet_limits, split_pots, uncalled_bet
from .cards import DIAMONDS, HEARTS, SPADES, card_names, format_card, make_deck, parse_cards, value_of
from .history import ActionEvent, GameResult, HandRecord, ShownHand, StealEvent
from .rules import RuleSet
from .state import DeckEmpty, Hand, Table, observe
from .strategy import CALL, CHECK, FOLD, RAISE, Action, Steal, Strategy

_FAILED = object()


class StrategyError(RuntimeError):
    """A bot misbehaved and the game is strict (``Game(..., strict=True)``)."""


class Game:
    """One game of Treasure Poker between ``strategies`` (one per seat, 2–10).

    Scenarios: ``deck`` stacks cards on top of the first hand's deck in deal order, ``treasures``
    pre-fills zones (``{2: "7c Kh"}``), ``money`` sets the stacks, ``dealer`` the first button.
    ``deal_seed`` (default: derived from ``seed``) drives the cards alone, so duplicate deals can
    share cards while bots get their own streams.
    """

    def __init__(self, strategies: Sequence[Strategy], rules: RuleSet = RuleSet(),
                 seed: int | np.random.SeedSequence | None = 0, *, deck: str | Sequence | None = None,
                 treasures: Mapping[int, str | Sequence] | None = None, money: Sequence[int] | None = None,
                 dealer: int = 0, strict: bool = False, quintets: bool = True,
                 deal_seed: int | np.random.SeedSequence | None = None) -> None:
        n = len(strategies)
        if not 2 <= n <= 10:
            raise ValueError(f"a game needs 2 to 10 strategies, got {n}")
        for i, s in enumerate(strategies):
            if not isinstance(s, Strategy):
                raise ValueError(f"strategy {i} is a {type(s).__name__}, not a treasure_sim.Strategy")
        if not isinstance(rules, RuleSet):
            raise ValueError(f"rules must be a RuleSet, got {type(rules).__name__}")
        if not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer}")
        self.strategies = list(strategies)
        self.rules = rules
        self.strict = strict
        self.quintets = quintets
        self.seed = seed if isinstance(seed, int) else None
        root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        children = root.spawn(n + 1)
        if deal_seed is not None:
            children[0] = (deal_seed if isinstance(deal_seed, np.random.SeedSequence)
                           else np.random.SeedSequence(deal_seed))
        self._card_rng = np.random.default_rng(children[0])
        full = make_deck(rules.jokers)
        stacks = self._check_money(money, n, rules.starting_money)
        zones = self._check_treasures(treasures, n, full)
        self.table = Table(n, rules, full, stacks, zones, dealer)
        self.errors: list[list[str]] = [[] for _ in range(n)]
        self._decisions = [0] * n
        self._time = [0.0] * n
        self._hands: list[HandRecord] = []
        self.end_reason: str | None = None
        self._shuffle(self._check_stacked_deck(deck, zones, full))
        for seat, strategy in enumerate(self.strategies):
            strategy.setup(seat, n, rules, np.random.default_rng(children[seat + 1]))
        self._check_next_hand()

    # ----- scenario validation -----------------------------------------------------------------
    @staticmethod
    def _check_money(money: Sequence[int] | None, n: int, starting: int) -> list[int]:
        if money is None:
            return [starting] * n
        if len(money) != n or any(isinstance(m, bool) or not isinstance(m, int | np.integer) or m < 0
                                  for m in money):
            raise ValueError(f"money must be {n} whole numbers >= 0, one per seat; got {list(money)!r}")
        return [int(m) for m in money]

    def _check_treasures(self, treasures: Mapping | None, n: int, full: tuple[int, ...]) -> list[list[int]]:
        zones: list[list[int]] = [[] for _ in range(n)]
        seen: dict[int, int] = {}
        for seat, cards in (treasures or {}).items():
            if not isinstance(seat, int) or not 0 <= seat < n:
                raise ValueError(f"treasures: seat {seat!r} is not a seat 0..{n - 1}")
            for c in parse_cards(cards, distinct=True).tolist():
                if c >= 52:
                    raise ValueError(f"treasures: seat {seat} has {format_card(c)}; Jokers never enter a zone")
                if c in seen:
                    raise ValueError(f"treasures: {format_card(c)} is in the zones of seats {seen[c]} and {seat}")
                seen[c] = seat
                zones[seat].append(c)
        return zones

    @staticmethod
    def _check_stacked_deck(deck: str | Sequence | None, zones: list[list[int]],
                            full: tuple[int, ...]) -> list[int]:
        if deck is None:
            return []
        stacked = parse_cards(deck, distinct=True).tolist()
        in_zone = {c for z in zones for c in z}
        for c in stacked:
            if c not in full:
                raise ValueError(f"deck: {format_card(c)} is not in a deck with these rules' Jokers")
            if c in in_zone:
                raise ValueError(f"deck: {format_card(c)} is also in a Treasure Zone")
        return stacked

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
        return len(self.table.deck)

    @property
    def deck_cards(self) -> tuple[str, ...]:
        """The deck, top card first (for tests and what-ifs; never shown to a bot)."""
        return card_names(reversed(self.table.deck))

    @property
    def dealer(self) -> int:
        return self.table.dealer

    @property
    def over(self) -> bool:
        return self.end_reason is not None

    @property
    def hands(self) -> tuple[HandRecord, ...]:
        return tuple(self._hands)

    # ----- the game ------------------------------------------------------------------------------
    def play(self) -> GameResult:
        while not self.over:
            self.play_hand()
        return self.result()

    def result(self) -> GameResult:
        money = self.table.money
        best = max(money)
        tied = [s for s, m in enumerate(money) if m == best]
        shares = tuple(1 / len(tied) if s in tied else 0.0 for s in range(self.n_players))
        return GameResult(
            n_players=self.n_players,
            strategies=tuple(repr(s) for s in self.strategies),
            seed=self.seed,
            rules=self.rules.to_dict(),
            final_money=tuple(money),
            win_shares=shares,
            end_reason=self.end_reason or "",
            hands_played=len(self._hands),
            treasures=self.treasures,
            errors=tuple(tuple(e) for e in self.errors),
            decisions=tuple(self._decisions),
            decision_time=tuple(t / d if d else 0.0 for t, d in zip(self._time, self._decisions, strict=True)),
            hands=tuple(self._hands),
        )

    def _check_next_hand(self) -> None:
        """Before each hand: who can pay the ante, the hand cap, and the vote to go on (RULES.md 3, 7)."""
        t = self.table
        for s in range(t.n):
            if t.money[s] < self.rules.ante:
                t.out[s] = True
        able = [s for s in range(t.n) if not t.out[s]]
        if len(able) < 2:
            self.end_reason = "too_few_players"
        elif len(self._hands) >= self.rules.max_hands:
            self.end_reason = "hand_limit"
        else:
            votes = [self._ask(s, "keep_playing", observe(t, Hand(t), s, "keep_playing")) for s in able]
            if all(v is False for v in votes):
                self.end_reason = "all_stopped"

    def _shuffle(self, stacked: Sequence[int] = ()) -> None:
        """Step 17: every card not in a Treasure Zone back into the deck, shuffled."""
        t = self.table
        held = {c for z in t.treasures for c in z}
        held.update(stacked)
        rest = np.array([c for c in t.full_deck if c not in held], dtype=np.int16)
        self._card_rng.shuffle(rest)
        t.deck = rest.tolist() + list(reversed(stacked))

    # ----- asking bots ---------------------------------------------------------------------------
    def _ask(self, seat: int, method: str, obs, *args):
        self._decisions[seat] += 1
        start = perf_counter()
        try:
            return getattr(self.strategies[seat], method)(obs, *args)
        except Exception as err:
            self._error(seat, f"{method} raised {type(err).__name__}: {err}", err)
            return _FAILED
        finally:
            self._time[seat] += perf_counter() - start

    def _error(self, seat: int, message: str, cause: BaseException | None = None) -> None:
        text = f"hand {self.table.hand_no}: {message}"
        if self.strict:
            raise StrategyError(f"seat {seat} ({self.strategies[seat]!r}): {text}") from cause
        self.errors[seat].append(text)

    # ----- one hand ------------------------------------------------------------------------------
    def play_hand(self) -> HandRecord:
        """Play one hand (steps 1–17) and return its record."""
        if self.over:
            raise RuntimeError(f"the game is over ({self.end_reason})")
        t = self.table
        t.hand_no += 1
        h = Hand(t)
        start_money = list(t.money)
        errors_before = [len(e) for e in self.errors]
        returned = None
        pots, shown, steals = [], [], []
        taken = None
        void = ran_out = False
        self._ante(h)
        try:
            self._deal_hole_cards(h)
            self._deal_new_treasure(h)
            for rnd, deal in enumerate((2, 2, 1, 0)):
                h.round = rnd
                self._betting(h)
                if deal and len(h.contenders()) > 1:
                    self._deal_shared(h, deal)
        except DeckEmpty:
            void = True
            for s in range(t.n):
                t.money[s] += h.committed[s]
        if not void:
            contenders = h.contenders()
            scores: dict[int, int] = {}
            if len(contenders) > 1:
                self._move_spades(h)
                ran_out = self._draw_hearts(h)
                scores, shown = self._choose_quintets(h)
            returned = uncalled_bet(h.committed)
            if returned:
                h.committed[returned[0]] -= returned[1]
                t.money[returned[0]] += returned[1]
            pots = split_pots(h.committed, contenders, scores, h.order)
            for pot in pots:
                for w, chips in zip(pot.winners, pot.shares, strict=True):
                    t.money[w] += chips
            taken = self._award_new_treasure(h)
            steals = self._steal(h)
        record = self._record(h, start_money, errors_before, returned, pots, shown, steals, taken, void, ran_out)
        self._hands.append(record)
        public = record.public()
        for seat in range(t.n):
            if h.in_hand[seat]:
                self._ask(seat, "on_hand_end", public)
                self._decisions[seat] -= 1  # being told is not a decision
        if void or ran_out:
            self.end_reason = "deck_empty"
        t.dealer = (t.dealer + 1) % t.n
        self._shuffle()
        if not self.over:
            self._check_next_hand()
        return record

    def _ante(self, h: Hand) -> None:
        """Step 1: everyone still in the game pays the ante."""
        ante = self.rules.ante
        for s in h.order:
            self.table.money[s] -= ante
            h.committed[s] += ante

    def _deal_hole_cards(self, h: Hand) -> None:
        """Step 2: two cards each, one at a time in turn order."""
        for _ in range(2):
            for s in h.order:
                h.hands[s].append(self.table.draw())
        for s in h.order:
            h.hole[s] = tuple(h.hands[s])

    def _deal_new_treasure(self, h: Hand) -> None:
        """Step 3: the New Treasure, face up."""
        if self.rules.new_treasure:
            h.new_treasure = self.table.draw()

    def _deal_shared(self, h: Hand, count: int) -> None:
        """Steps 5, 7, 9: shared cards."""
        for _ in range(count):
            h.shared.append(self.table.draw())

    def _betting(self, h: Hand) -> None:
        """Steps 4, 6, 8, 10: one betting round; folding is legal at every decision."""
        t, money, bets = self.table, self.table.money, h.bets
        for s in h.order:
            bets[s] = 0
        movable = [s for s in h.order if not h.folded[s] and money[s] > 0]
        if len(h.contenders()) < 2 or not movable:
            return
        high = largest = raises = 0
        pending = set(movable)
        order = h.order
        i = 0
        while pending:
            s = order[i % len(order)]
            i += 1
            if s not in pending:
                continue
            pending.discard(s)
            answerers = sum(1 for o in order if o != s and not h.folded[o] and money[o] > 0)
            lim = bet_limits(self.rules, h.round, high, bets[s], money[s], largest, raises,
                             sum(h.committed), answerers > 0)
            legal = (FOLD, CHECK if lim.to_call == 0 else CALL) + ((RAISE,) if lim.max_raise_to else ())
            obs = observe(t, h, s, "bet", to_call=lim.to_call, min_raise_to=lim.min_raise_to,
                          max_raise_to=lim.max_raise_to, legal=legal)
            action = self._legal_action(s, self._ask(s, "act", obs), lim)
            if action.kind == FOLD:
                h.folded[s] = True
                h.last_folder = s
                h.actions.append(ActionEvent(h.round, s, FOLD, bets[s]))
                if len(h.contenders()) < 2:
                    return
                continue
            target = bets[s] + lim.to_call if action.kind != RAISE else action.amount
            added = target - bets[s]
            money[s] -= added
            bets[s] = target
            h.committed[s] += added
            kind = action.kind if action.kind != CALL or added else CHECK
            h.actions.append(ActionEvent(h.round, s, kind, target, added, money[s] == 0))
            if kind == RAISE:
                largest = max(largest, target - high)
                high = target
                raises += 1
                pending = {o for o in order if o != s and not h.folded[o] and money[o] > 0}

    def _legal_action(self, seat: int, action: Any, lim) -> Action:
        """The bot's action if legal; otherwise the error is recorded and it checks, or folds."""
        if action is _FAILED:
            problem = None
        elif not isinstance(action, Action):
            problem = f"act returned {action!r}, not an Action"
        elif action.kind in (FOLD, CALL) or (action.kind == CHECK and lim.to_call == 0):
            return action
        elif action.kind == CHECK:
            problem = f"cannot check facing a bet of {lim.to_call}"
        elif action.kind != RAISE:
            problem = f"unknown action kind {action.kind!r}"
        elif not lim.max_raise_to:
            problem = "raising is not legal here"
        elif not lim.min_raise_to <= action.amount <= lim.max_raise_to:
            problem = f"raise to {action.amount} is outside {lim.min_raise_to}..{lim.max_raise_to}"
        else:
            return action
        if problem:
            self._error(seat, problem)
        return Action.check() if lim.to_call == 0 else Action.fold()

    def _move_spades(self, h: Hand) -> None:
        """Step 11: in turn order, players still in may move Spades Treasures to their hand."""
        if not self.rules.spades:
            return
        t = self.table
        for s in h.contenders():
            mine = [c for c in t.treasures[s] if c < 52 and c & 3 == SPADES]
            if not mine:
                continue
            chosen = self._ask(s, "move_spades", observe(t, h, s, "spades"))
            if chosen is _FAILED:
                continue
            try:
                moves = [int(c) for c in chosen]
            except (TypeError, ValueError):
                self._error(s, f"move_spades returned {chosen!r}, not a list of card ids")
                continue
            bad = [c for c in moves if c not in mine] + [c for i, c in enumerate(moves) if c in moves[:i]]
            if bad:
                self._error(s, f"move_spades asked for {bad!r}, not distinct Spades Treasures of its own")
                continue
            for c in moves:
                t.treasures[s].remove(c)
                h.hands[s].append(c)
            h.spades_moved[s] = tuple(moves)

    def _draw_hearts(self, h: Hand) -> bool:
        """Step 12: Hearts draws, in turn order, one optional card at a time. True if the deck ran out."""
        if not self.rules.hearts:
            return False
        t = self.table
        for s in h.contenders():
            ranks = {c >> 2 for c in t.treasures[s] if c < 52 and c & 3 == HEARTS}
            if not ranks:
                continue
            owed = sum(1 for c in h.hands[s] + h.shared if c < 52 and c >> 2 in ranks)
            while owed > 0:
                if not t.deck:
                    return True
                if self._ask(s, "draw_heart", observe(t, h, s, "hearts")) is not True:
                    break
                card = t.draw()
                h.hands[s].append(card)
                h.drawn[s].append(card)
                owed -= 1
                if self.rules.hearts_chain and card < 52 and card >> 2 in ranks:
                    owed += 1
        return False

    def _choose_quintets(self, h: Hand) -> tuple[dict[int, int], list[ShownHand]]:
        """Step 13: every hand still in is shown and scored in one batched evaluator call."""
        t = self.table
        seats = h.contenders()
        rows = [h.hands[s] + h.shared for s in seats]
        width = max(len(r) for r in rows)
        cards = np.full((len(rows), width), -1, dtype=np.int8)
        for i, r in enumerate(rows):
            cards[i, : len(r)] = r
        masks = np.array([t.wild_mask(s) for s in seats], dtype=np.int64)
        scores = evaluator.evaluate(cards, masks).tolist()
        shown = []
        for i, s in enumerate(seats):
            if self.quintets:
                q = evaluator.best_quintet(cards[i], int(masks[i]))
                extra = dict(quintet=q.cards, wilds=q.wilds, description=q.description)
            else:
                extra = dict(description=evaluator.describe(scores[i]))
            shown.append(ShownHand(t.hand_no, s, card_names(h.hands[s]), score=scores[i],
                                   category=evaluator.CATEGORY_NAMES[evaluator.category(scores[i])], **extra))
        t.showdowns = t.showdowns + tuple(shown)
        return dict(zip(seats, scores, strict=True)), shown

    def _award_new_treasure(self, h: Hand) -> int | None:
        """Steps 14–15: the last folder takes the New Treasure (a Joker: a card of their choice)."""
        card = h.new_treasure
        if card is None or h.last_folder is None:
            return None
        s, t = h.last_folder, self.table
        if card < 52:
            t.treasures[s].append(card)
            return card
        if self.rules.joker_treasure == "discard":
            return None
        options = tuple(c for c in h.hole[s] + tuple(h.shared) if c < 52)
        if not options:
            return None
        choice = self._ask(s, "choose_joker_treasure", observe(t, h, s, "joker_treasure"), options)
        if choice is not _FAILED and choice not in options:
            self._error(s, f"choose_joker_treasure returned {choice!r}, not one of {card_names(options)}")
        if choice not in options:
            choice = options[0]
        t.treasures[s].append(choice)
        return choice

    def _steal(self, h: Hand) -> list[StealEvent]:
        """Step 16: in turn order, Diamonds held when the step began may each buy one steal."""
        if not self.rules.diamonds:
            return []
        t, ace = self.table, self.rules.ace_value
        held = {s: [c for c in t.treasures[s] if c < 52 and c & 3 == DIAMONDS] for s in h.order}
        events = []
        for s in h.order:
            while True:
                usable = [d for d in held[s] if d in t.treasures[s]]
                options = tuple(Steal(d, v, c) for d in usable for v in range(t.n) if v != s
                                for c in t.treasures[v] if value_of(c, ace) <= value_of(d, ace))
                if not options:
                    break
                choice = self._ask(s, "steal", observe(t, h, s, "steal"), options)
                if choice is None or choice is _FAILED:
                    break
                if choice not in options:
                    self._error(s, f"steal returned {choice!r}, not one of the {len(options)} options")
                    break
                t.treasures[s].remove(choice.diamond)
                t.deck.insert(0, choice.diamond)  # the bottom of the deck
                t.treasures[choice.victim].remove(choice.card)
                t.treasures[s].append(choice.card)
                events.append(StealEvent(s, format_card(choice.diamond), choice.victim, format_card(choice.card)))
        return events

    def _record(self, h: Hand, start_money, errors_before, returned, pots, shown, steals, taken,
                void, ran_out) -> HandRecord:
        t = self.table
        n = t.n
        return HandRecord(
            hand_no=t.hand_no,
            dealer=t.dealer,
            in_hand=tuple(h.in_hand),
            antes=tuple(self.rules.ante if h.in_hand[s] else 0 for s in range(n)),
            hole=tuple(card_names(h.hole[s]) for s in range(n)),
            new_treasure=format_card(h.new_treasure) if h.new_treasure is not None else None,
            actions=tuple(h.actions),
            shared=card_names(h.shared),
            folded=tuple(h.folded),
            last_folder=h.last_folder,
            treasure_taken=format_card(taken) if taken is not None else None,
            spades_moved=tuple(card_names(m) for m in h.spades_moved),
            drawn=tuple(card_names(d) for d in h.drawn),
            shown=tuple(shown),
            pots=tuple(pots),
            returned=returned,
            payouts=tuple(t.money[s] - start_money[s] for s in range(n)),
            steals=tuple(steals),
            treasures_after=t.zones_as_names(),
            money_after=tuple(t.money),
            deck_size_after=len(t.deck),
            void=void,
            deck_ran_out=ran_out,
            errors=tuple((s, e) for s in range(n) for e in self.errors[s][errors_before[s]:]),
        )


def play_game(strategies: Sequence[Strategy], rules: RuleSet = RuleSet(), seed: int = 0, **kwargs: Any) -> GameResult:
    """Play a whole game and return its result."""
    return Game(strategies, rules, seed, **kwargs).play()
