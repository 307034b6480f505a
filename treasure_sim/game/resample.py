"""Determinizations for search: a steppable state in which what one seat cannot see is drawn afresh.

`redraw_hidden` (`GameState.sample_hidden`) redraws it in a copy of a state the caller holds. A bot never holds the
engine's state, only its `Observation`; to search, it needs a `GameState` that agrees with everything it sees and
draws the rest. `state_from_observation` builds one: the table (stacks, zones, button,
who is out, earlier showdowns), the hand (bets, commitments, pot, folds, the board, its own hand, the New Treasure,
the hands revealed from step 12 on), the betting round's state (replayed from ``obs.history``: high bet, largest
raise, raise count, who is still to act), and the question pending (the Spades, Hearts, Joker, make_room or steal
turn, or the vote before a hand). Everything the seat cannot see is drawn uniformly from ``rng``: the other seats'
hole cards and the order of the deck, from the cards it has not seen.

What one observation cannot tell, and what is assumed instead (pass what the seat remembers to do better):
- Spades other seats moved in step 11 before its own turn (not shown until step 12): ``moved`` names them, else
  those cards are taken to be unseen (in the deck or a hole).
- Which extra cards of a hand are moved Spades and which are Hearts draws: ``moved`` again; else the leading
  Spades after the hole cards are taken as moved. This matters only for what a Hearts turn still owes.
- Cards out of the game (spent Diamonds under ``spent_diamonds = "removed"``, a Treasure given up at a full zone
  this hand): as many unseen cards as the deck size leaves over, Diamonds first where spent Diamonds leave the game.
- Other seats' restrictions (restricted play): none. Its own are in the observation.
- The votes before its own (keep_playing): all to go on.
- In the steal step (step 16), seen cards that went back under the deck cannot always be placed (a New Treasure
  or a Joker's stand-in spent or stolen on since): the deck is then short by as many cards. Nothing is drawn
  before the reshuffle of step 17, which counts the cards afresh, so the rest of the game is unchanged.
- The make_room question's waiting card is not in the observation: ``treasure`` (the method's argument) gives it.
  The Diamonds a seat held when step 16 began: ``options`` (the steal question's options) give its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .cards import DIAMONDS, HEARTS, RANK, SPADES, SUIT, is_joker, make_deck
from .gamestate import GameState
from .powers import barred_seats
from .state import Hand, Table
from .strategy import FOLD, Observation, Steal

__all__ = ["redraw_hidden", "state_from_observation"]

_AFTER_BETS = ("spades", "hearts", "joker_treasure", "make_room", "steal")


def redraw_hidden(state: GameState, seat: int, rng: np.random.Generator) -> GameState:
    """`GameState.sample_hidden`: a copy of ``state`` in which everything ``seat`` cannot see is redrawn uniformly
    among what fits all it has seen.

    Redrawn: the hole cards of every other seat whose hand is not face up to it, and the order of the deck
    (except spent Diamonds it saw go under it this hand); every stream (the shuffles of later hands, every seat's
    `Mixed` draws) is reseeded from ``rng``. What it sees stays: its hand, the shared cards, the New Treasure,
    the zones, revealed hands, moved Spades, cards drawn with Hearts, cards out of the game. The copy carries no
    record of past hands (they hold hands that were never shown).
    """
    new = state.clone()
    new.record = None
    t, h = new.table, new.hand
    hidden: list[tuple[int, int]] = []  # (other seat, hole card index) whose card seat cannot see
    if h is not None:
        for o in range(t.n):
            if o == seat or not h.hole[o]:
                continue
            if h.revealed and h.in_hand[o] and not h.folded[o]:
                continue  # face up from step 12 on
            hidden.extend((o, k) for k in range(len(h.hole[o])))
    deck = t.deck_list()
    fixed = len(h.steals) if h is not None and not t.removes_spent else 0  # spent Diamonds it saw go under
    pool = [h.hole[o][k] for o, k in hidden] + deck[fixed:]
    rng.shuffle(pool)
    if hidden:
        holes = {o: list(h.hole[o]) for o, _ in hidden}
        for (o, k), card in zip(hidden, pool, strict=False):
            holes[o][k] = card
        for o, cards in holes.items():
            hole = tuple(cards)
            h.hole[o] = hole
            h.hands[o] = hole + h.hands[o][len(hole):]  # moved Spades, drawn Hearts stay
    t.set_deck(deck[:fixed] + pool[len(hidden):])
    seeds = rng.integers(0, 2**63, size=1 + len(new.mix_rngs))
    new._card_rng = np.random.default_rng(int(seeds[0]))
    new.mix_rngs = [np.random.default_rng(int(x)) for x in seeds[1:]]
    new._mix_left = [[] for _ in new.mix_rngs]
    new._shared_rngs = False
    return new


def state_from_observation(obs: Observation, rng: np.random.Generator, *, treasure: int | None = None,
                           options: Sequence[Steal | None] | None = None,
                           moved: Mapping[int, Sequence[int]] | None = None,
                           holes: Mapping[int, Sequence[int]] | None = None) -> GameState:
    """A `GameState` waiting for ``obs.seat``'s answer to the question ``obs`` was shown for, consistent with all
    ``obs`` shows; what the seat cannot see is drawn uniformly from ``rng``. `ValueError` if ``obs`` is not a
    position the rules can reach (its history does not replay to its chips, or its cards do not add up).

    ``treasure``: for make_room, the card waiting to enter the zone (default the New Treasure). ``options``: for a
    steal, its options (they tell which Diamonds the seat held when step 16 began). ``moved``: per seat, Spades it
    moved to its hand in step 11 this hand, as far as the seat knows (see the module notes). ``holes``: per seat
    whose hand it cannot see, two hole cards to give it (from the cards it has not seen; e.g. drawn from a range
    its bets suggest) instead of drawing them; the rest is drawn as usual.
    """
    seat, n, rules = obs.seat, obs.n_players, obs.rules.replace()
    phase = "vote" if obs.phase == "keep_playing" else obs.phase
    if phase != "vote" and phase != "bet" and phase not in _AFTER_BETS:
        raise ValueError(f"cannot rebuild a state at phase {obs.phase!r}")
    full = make_deck(rules.jokers)
    restricted = tuple(tuple(obs.restricted) if s == seat else () for s in range(n))
    zones = [list(z) for z in obs.treasures]
    dealt = phase != "vote"
    money = list(obs.money)
    if phase == "bet":  # the round is replayed from its start
        money = [m + b for m, b in zip(obs.money, obs.bets, strict=True)]
    table = Table(n, rules, full, money, zones, obs.dealer, restricted)
    table.hand_no = obs.hand_no
    table.ante = rules.ante_at(obs.hand_no + (0 if dealt else 1))
    table.out = [not x for x in obs.in_hand]
    table.showdowns = obs.showdowns

    # ----- the cards: seen, and the rest drawn ------------------------------------------------------------------
    revealed = dealt and any(r is not None for r in obs.revealed)
    moved = {s: tuple(c) for s, c in (moved or {}).items()}
    hands: list[tuple[int, ...]] = [()] * n
    seen = {c for z in zones for c in z}
    if dealt:
        seen.update(obs.hand)
        seen.update(obs.shared)
        if obs.new_treasure is not None:
            seen.add(obs.new_treasure)
        hands[seat] = tuple(obs.hand)
        for o in range(n):
            if o == seat or not obs.in_hand[o]:
                continue
            shown = obs.revealed[o]
            if shown is not None:
                hands[o] = tuple(shown)
                seen.update(shown)
            elif moved.get(o):
                seen.update(moved[o])
    hidden_seats = [o for o in range(n) if dealt and o != seat and obs.in_hand[o] and obs.revealed[o] is None]
    unseen = [c for c in full if c not in seen]
    rng.shuffle(unseen)
    if holes:
        unseen = _with_holes(unseen, hidden_seats, holes)
    pinned: dict[int, int] = {}  # a hidden seat's hole card known after all (the Joker Treasure's stand-in)
    under: list[int] = []  # a card known to be at the bottom of the deck (the New Treasure, spent this step)
    spare = len(unseen) - 2 * len(hidden_seats) - obs.deck_size
    if spare < 0 and phase == "steal":  # a card it saw is back in the deck or a hole; the steps say which
        nt, zone_cards = obs.new_treasure, {c for z in zones for c in z}
        if nt is not None and SUIT[nt] == DIAMONDS and nt not in zone_cards and rules.spent_diamonds != "removed":
            under, spare = [nt], spare + 1  # taken in step 15, spent on a steal since: under the deck
        taker = obs.last_folder
        if spare < 0 and nt is not None and is_joker(nt) and taker in hidden_seats and zones[taker] \
                and zones[taker][-1] not in obs.shared:
            pinned[taker], spare = zones[taker][-1], spare + 1  # its choice came from its own hole cards
    if spare < 0 and phase == "steal":  # deck cards it cannot place: the deck is short (see the module notes)
        spare = 0
    if spare < 0:
        raise ValueError(f"the observation shows too many cards: {len(unseen)} unseen for {len(hidden_seats)} "
                         f"hidden hands and a deck of {obs.deck_size}")
    k = 0
    for o in hidden_seats:
        if o in pinned:
            hands[o] = (pinned[o], unseen[k])
            k += 1
        else:
            hands[o] = (unseen[k], unseen[k + 1])
            k += 2
        hands[o] += tuple(moved.get(o, ()))
    rest = unseen[k:]
    if spare and rules.spent_diamonds == "removed":  # spent Diamonds first: they are what leaves the game
        rest.sort(key=lambda c: SUIT[c] != DIAMONDS)  # stable: each group stays in its random order
    removed, deck = rest[:spare], under + rest[spare:]
    table.rebuild(deck, removed)

    state = GameState(table, rules, np.random.default_rng(_seed(rng)),
                      [np.random.default_rng(_seed(rng)) for _ in range(n)], barred_seats(restricted))
    if not dealt:
        _vote(state, obs)
        return state

    # ----- the hand ---------------------------------------------------------------------------------------------
    h = Hand(table)
    h.hands = list(hands)
    h.hole = [hand[:2] for hand in hands]
    for o in range(n):
        extra = hands[o][2:]
        k = len(moved[o]) if o in moved else _leading_spades(extra)
        h.spades_moved[o], h.drawn[o] = extra[:k], extra[k:]
    h.shared = tuple(obs.shared)
    h.new_treasure = obs.new_treasure
    h.revealed = revealed
    if phase == "bet":
        _replay_round(state, h, obs)
        return state
    h.bets, h.committed, h.pot = list(obs.bets), list(obs.committed), obs.pot
    h.folded, h.all_in = list(obs.folded), list(obs.all_in)
    h.live = sum(1 for s in range(n) if obs.in_hand[s] and not obs.folded[s])
    h.actions, h.last_folder, h.round = tuple(obs.history), obs.last_folder, obs.round
    h.start_money = [m + c for m, c in zip(obs.money, obs.committed, strict=True)]
    h._view = h._still = None
    state.hand = h
    state.phase = phase
    state._in = h.contenders()  # from step 11 on, nobody folds
    if phase in ("spades", "hearts"):
        state._i = state._in.index(seat)
        if phase == "hearts":
            state._hearts = _hearts_turn(state, seat)
    elif phase in ("joker_treasure", "make_room"):
        state._i = seat
        if phase == "make_room":
            state._waiting = treasure if treasure is not None else obs.new_treasure
    else:  # steal
        in_zones = {c for z in zones for c in z}
        nt = obs.new_treasure
        if under or (nt is not None and nt in in_zones):
            h.taken = nt
        elif nt is not None and is_joker(nt):  # its stand-in is in a zone and still in a hand or on the board
            h.taken = next((c for c in (*h.shared, *(c for hand in h.hands for c in hand)) if c in in_zones), None)
        state._i = h.order.index(seat)
        barred = state.barred["diamonds"]
        held = {s: table.zone_suit(s, DIAMONDS) for s in h.order[state._i:]
                if table.suits_held[s] >> DIAMONDS & 1 and s not in barred}
        if options is not None:
            held[seat] = list(dict.fromkeys(o.diamond for o in options if o is not None))
        state._held = held
    return state


def _with_holes(unseen: list[int], hidden: Sequence[int], holes: Mapping[int, Sequence[int]]) -> list[int]:
    """``unseen`` reordered so that each hidden seat in ``holes`` takes its given hole cards (the hidden seats take
    two cards each, in order, from the front); the other cards keep their drawn order."""
    given = [c for o in hidden if o in holes for c in holes[o]]
    if len(set(given)) != len(given) or not set(given) <= set(unseen) \
            or any(len(holes[o]) != 2 for o in hidden if o in holes):
        raise ValueError(f"the hole cards {dict(holes)} are not two unseen cards a seat, each once")
    taken = set(given)
    rest = iter([c for c in unseen if c not in taken])
    out: list[int] = []
    for o in hidden:
        out.extend(holes[o] if o in holes else (next(rest), next(rest)))
    out.extend(rest)
    return out


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**63))


def _leading_spades(cards: Sequence[int]) -> int:
    k = 0
    while k < len(cards) and SUIT[cards[k]] == SPADES:
        k += 1
    return k


def _vote(state: GameState, obs: Observation) -> None:
    """Before a hand: the seats able to pay vote in seat order; the ones before ``obs.seat`` said go on."""
    t = state.table
    state._votes = [s for s in range(t.n) if not t.out[s] and t.money[s] >= t.ante]
    state._i = state._votes.index(obs.seat)
    state._stops = 0
    state.phase = "vote"


def _replay_round(state: GameState, h: Hand, obs: Observation) -> None:
    """The betting round of ``obs`` from its start, its actions so far played again (so the round's high bet,
    largest raise, raise count and queue are the engine's own); checked against the chips ``obs`` shows."""
    n, rnd = obs.n_players, obs.round
    history = tuple(obs.history)
    this = [a for a in history if a.round == rnd]
    before = history[:len(history) - len(this)]
    if any(a.round >= rnd for a in before):
        raise ValueError("the history is not in round order")
    folded_now = {a.seat for a in this if a.kind == FOLD}
    h.folded = [obs.folded[s] and s not in folded_now for s in range(n)]
    h.committed = [c - b for c, b in zip(obs.committed, obs.bets, strict=True)]
    h.pot = obs.pot - sum(obs.bets)
    h.all_in = [obs.in_hand[s] and not state.table.money[s] for s in range(n)]
    h.live = sum(1 for s in range(n) if obs.in_hand[s] and not h.folded[s])
    h.actions = before
    h.last_folder = next((a.seat for a in reversed(before) if a.kind == FOLD), None)
    h.start_money = [m + c for m, c in zip(obs.money, obs.committed, strict=True)]
    h._view = h._still = None  # the folds were set again: the cached views of them go
    state.hand = h
    state._round(rnd)
    if state.phase != "bet":
        raise ValueError(f"round {rnd} cannot start in this position")
    for a in this:
        queue = state._bet[0]
        if state._i >= len(queue) or queue[state._i] != a.seat:
            raise ValueError(f"the history does not replay: {a} out of turn")
        state.bet(a.kind, a.to)
    d = state._bet[0][state._i] if state._i < len(state._bet[0]) else None
    if d != obs.seat:
        raise ValueError(f"after the history, seat {d} is to act, not {obs.seat}")
    view = (tuple(state.table.money), tuple(h.bets), tuple(h.committed), tuple(h.folded), tuple(h.all_in))
    if view != (obs.money, obs.bets, obs.committed, obs.folded, obs.all_in) or h.pot != obs.pot:
        raise ValueError("the history does not replay to the chips the observation shows")


def _hearts_turn(state: GameState, s: int) -> list:
    """The Hearts turn of ``s`` in progress: [its Hearts ranks, draws still owed, room left under the cap]."""
    h, t, rules = state.hand, state.table, state.rules
    ranks = {RANK[c] for c in t.zone_suit(s, HEARTS)}
    drawn = h.drawn[s]
    before = h.hands[s][:len(h.hands[s]) - len(drawn)]
    counted = (h.hands[s] if rules.hearts_chain else before) + h.shared
    owed = sum(1 for c in counted if not is_joker(c) and RANK[c] in ranks) - len(drawn)
    return [ranks, owed, (rules.hearts_cap or 1 << 30) - len(drawn)]

