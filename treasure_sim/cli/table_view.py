"""The table as a person at it sees it: an `Observation` drawn as text (``treasure-sim play``, ``--watch``).

Why from the Observation alone: the person at the table must see exactly what a bot in their seat would
(rulings §10), no more; everything here is a pure function of what the engine already hands a bot.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..game.cards import RANK, RANK_NAMES, SUIT, format_card, is_joker, value_of
from ..game.history import ActionEvent
from ..game.rules import RuleSet
from ..game.strategy import Observation

ROUND_STEPS = ("pre-flop, step 4", "2 shared cards, step 6", "4 shared cards, step 8", "5 shared cards, step 10")
PHASES = {"spades": "step 11, Spades", "hearts": "step 12, Hearts draws", "joker_treasure": "step 15, Joker Treasure",
          "make_room": "steps 14-15, a full Treasure Zone", "steal": "step 16, steals", "keep_playing": "between hands"}
PLURAL = {4: "sixes"}  # rank names whose plural is not name + "s"


def cards(ids: Sequence[int]) -> str:
    return " ".join(format_card(c) for c in ids) or "-"


def rank_plural(rank: int) -> str:
    """"sevens", "sixes": a rank (0 = deuce) in the plural."""
    return PLURAL.get(rank, RANK_NAMES[rank] + "s")


def power(card: int, rules: RuleSet, owner: str = "its owner") -> str:
    """What a Treasure does while it sits in a zone (``rules`` may have switched the power off)."""
    suit = SUIT[card]
    on = (rules.spades, rules.clubs, rules.hearts, rules.diamonds)[suit]
    what = (
        "♠ may be moved to the hand after the betting (step 11)",
        f"♣ every {RANK_NAMES[RANK[card]]} in hand or shared is wild for {owner}",
        f"♥ one extra card per {RANK_NAMES[RANK[card]]} in hand or shared (step 12)",
        f"♦ may be spent to steal a Treasure worth {value_of(card, rules.ace_value)} or less (step 16)",
    )[suit]
    return what if on else what[:2] + "no power under these rules"


def describe_card(card: int, rules: RuleSet) -> str:
    """A card with what it would do as a Treasure (a Joker never becomes one)."""
    if is_joker(card):
        return f"{format_card(card)} (a Joker: wild, never a Treasure)"
    return f"{format_card(card)} ({power(card, rules)})"


def action_text(a: ActionEvent, opened: bool) -> str:
    if a.kind == "raise":
        text = f"seat {a.seat} {'raises to' if opened else 'bets'} {a.to}"
    elif a.kind == "call":
        text = f"seat {a.seat} calls {a.added}"
    else:
        text = f"seat {a.seat} {a.kind}s" if a.kind == "check" else f"seat {a.seat} folds"
    return text + (" (all in)" if a.all_in else "")


def history_lines(history: Sequence[ActionEvent]) -> list[str]:
    """This hand's betting so far, a line per round."""
    lines = []
    for rnd in range(4):
        acts = [a for a in history if a.round == rnd]
        if not acts:
            continue
        parts, opened = [], False
        for a in acts:
            parts.append(action_text(a, opened))
            opened = opened or a.kind == "raise"
        lines.append(f"  round {rnd + 1}: " + "; ".join(parts))
    return lines


def seat_status(obs: Observation, s: int) -> str:
    if obs.phase == "keep_playing":
        return "" if obs.in_hand[s] else "out of the game"
    if not obs.in_hand[s]:
        return "out of the game" if not obs.money[s] else "not dealt in"
    if obs.folded[s]:
        return "folded" + (" (the last folder so far)" if obs.last_folder == s else "")
    return "all in" if obs.all_in[s] else "in"


def render(obs: Observation, names: Sequence[str] | None = None, *, me: int | None = None) -> str:
    """The whole table: header, pot and New Treasure, shared cards, one line per seat, zones, my hand."""
    rules = obs.rules
    names = list(names) if names else [f"seat {s}" for s in range(obs.n_players)]
    me = obs.seat if me is None else me
    out = []
    between = obs.phase == "keep_playing"
    when = ROUND_STEPS[obs.round] if obs.phase == "bet" else PHASES[obs.phase]
    out.append(f"── Hand {obs.hand_no} · {when} · dealer: seat {obs.dealer} · {obs.deck_size} cards in the deck ──")
    if not between:
        out.append(f"Pot ${obs.pot} · Shared: {cards(obs.shared)}")
        if obs.new_treasure is not None:
            so_far = f"seat {obs.last_folder} so far" if obs.last_folder is not None else "nobody has folded yet"
            takes = "the last to fold takes it"
            if is_joker(obs.new_treasure):
                takes = ("the last to fold puts a card of their hand or the shared cards in their zone instead"
                         if rules.joker_treasure == "choose" else "a Joker: nobody gains it")
            out.append(f"New Treasure: {describe_card(obs.new_treasure, rules)}; {takes} ({so_far})")
    width = max(len(n) for n in names)
    out.append(f"   seat  {'player':<{width}}   stack    bet  in pot")
    for s in range(obs.n_players):
        mark = ">" if s == me else " "
        dealer = "D" if s == obs.dealer else " "
        bet = f"{obs.bets[s]:>5}" if obs.in_hand[s] and not between else "    -"
        put = f"{obs.committed[s]:>6}" if obs.in_hand[s] and not between else "     -"
        out.append(f" {mark} {s:>3} {dealer} {names[s]:<{width}} {'$' + str(obs.money[s]):>7}  {bet}  {put}  "
                   f"{seat_status(obs, s)}")
    out.append("Treasure Zones:")
    for s in range(obs.n_players):
        zone = obs.treasures[s]
        owner = "you" if s == me else f"seat {s}"
        text = "; ".join(f"{format_card(c)} {power(c, rules, owner)}" for c in zone) if zone else "empty"
        out.append(f"  seat {s} {names[s]}: {text}")
    if any(h is not None for h in obs.revealed):
        out.append("Hands revealed (step 12): " + "; ".join(f"seat {s} [{cards(h)}]" for s, h in enumerate(obs.revealed)
                                                             if h is not None))
    if obs.history:
        out.append("This hand:")
        out.extend(history_lines(obs.history))
    if obs.hand:
        wild = [rank_plural(r) for r in range(13) if obs.wild_ranks >> r & 1]
        jokers = any(is_joker(c) for c in obs.hand + obs.shared)
        wild = (["Jokers"] if jokers else []) + wild
        out.append(f"Your hand: {cards(obs.hand)}" + (f"   (wild for you: {', '.join(wild)})" if wild else ""))
    return "\n".join(out)


def standings(money: Sequence[int], zones: Sequence[Sequence[str]], names: Sequence[str]) -> str:
    """Stacks and zones between hands (watch mode, the end of a game)."""
    width = max(len(n) for n in names)
    return "\n".join(f"  seat {s} {names[s]:<{width}} {'$' + str(m):>7}   zone: {' '.join(zones[s]) or 'empty'}"
                     for s, m in enumerate(money))
