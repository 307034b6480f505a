"""Shared test helpers: a bot that plays a script, and a deck stacked in the engine's deal order."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hypothesis import settings

from treasure_sim import Action, Observation, Steal, Strategy
from treasure_sim.game.cards import parse_card

# No per-example deadline: on a shared 2-core CI machine a pause of a few hundred ms in one example is the machine's,
# not the code's, and hypothesis would report it as a flaky test.
settings.register_profile("no-deadline", deadline=None)
settings.load_profile("no-deadline")


def _action(step: str | Action) -> Action:
    if isinstance(step, Action):
        return step
    word, *amount = step.split()
    return Action.raise_to(int(amount[0])) if word == "raise" else Action(word)


class ScriptedBot(Strategy):
    """Plays ``actions`` in order ("check", "call", "fold", "raise 10" or Actions), then checks or calls.

    Other decisions: ``spades`` (cards to move, as names), ``draws`` (how many Hearts draws to
    accept, None = all), ``joker`` (the card name to choose), ``steals`` (a list of
    (diamond, victim, card) to try in order, names), ``keep`` (the keep_playing answer), ``room`` (make_room
    answers in order: a Treasure's name to give up, None to let the new one go, or any other object as is).
    Every call is logged in ``calls`` as (method, hand_no, phase), every observation in ``seen``, and
    (seat, method) in the list ``log`` if one is given (share it between bots to see the order).
    """

    def __init__(self, actions: Iterable[str | Action] = (), *, spades: Iterable[str] = (),
                 draws: int | None = None, joker: str | None = None,
                 steals: Iterable[tuple[str, int, str]] = (), keep: bool = True, log: list | None = None,
                 room: Iterable[object] = ()) -> None:
        self.script = [_action(a) for a in actions]
        self.spades = [parse_card(c) for c in spades]
        self.draws = draws
        self.joker = parse_card(joker) if joker else None
        self.steals = [Steal(parse_card(d), v, parse_card(c)) for d, v, c in steals]
        self.keep = keep
        self.room = [parse_card(r) if isinstance(r, str) else r for r in room]
        self.log = log  # shared between bots: (seat, method) in the order the engine asked
        self.calls: list[tuple[str, int, str]] = []
        self.seen: list[Observation] = []
        self.options: list[tuple] = []
        self.records: list = []

    @property
    def bets(self) -> list[Observation]:
        """The observations of betting decisions, in order."""
        return [o for o in self.seen if o.phase == "bet"]

    def _log(self, method: str, obs: Observation) -> None:
        self.calls.append((method, obs.hand_no, obs.phase))
        self.seen.append(obs)
        if self.log is not None:
            self.log.append((self.seat, method))

    def act(self, obs: Observation) -> Action:
        self._log("act", obs)
        if self.script:
            return self.script.pop(0)
        return Action.check() if "check" in obs.legal else Action.call()

    def move_spades(self, obs: Observation) -> list[int]:
        self._log("move_spades", obs)
        return list(self.spades)

    def draw_heart(self, obs: Observation) -> bool:
        self._log("draw_heart", obs)
        if self.draws is None:
            return True
        self.draws -= 1
        return self.draws >= 0

    def choose_joker_treasure(self, obs: Observation, options: tuple[int, ...]) -> int:
        self._log("choose_joker_treasure", obs)
        self.options.append(options)
        return self.joker if self.joker is not None else options[0]

    def make_room(self, obs: Observation, treasure: int):
        self._log("make_room", obs)
        self.options.append((treasure,))
        return self.room.pop(0) if self.room else None

    def steal(self, obs: Observation, options: tuple[Steal, ...]) -> Steal | None:
        self._log("steal", obs)
        self.options.append(options)
        return self.steals.pop(0) if self.steals else None

    def keep_playing(self, obs: Observation) -> bool:
        self._log("keep_playing", obs)
        return self.keep

    def on_hand_end(self, record) -> None:
        self.records.append(record)


def stacked(n: int, hole: Mapping[int, str], *, dealer: int = 0, new: str = "", shared: str = "",
            then: str = "", out: Iterable[int] = ()) -> str:
    """The top of a deck in rulings §3's deal order: hole cards one at a time in turn order (left of
    the dealer, players ``out`` skipped), two rounds; the New Treasure; shared; then Hearts draws."""
    order = [(dealer + 1 + i) % n for i in range(n) if (dealer + 1 + i) % n not in set(out)]
    cards = {s: hole[s].split() for s in order}
    dealt = [cards[s][r] for r in range(2) for s in order]
    return " ".join(dealt + new.split() + shared.split() + then.split())
