"""``treasure-sim play``: the person's answers are read strictly, every decision a bot gets is asked, and a
scripted person plays whole games end to end in a real terminal (pexpect), in process and isolated."""

from __future__ import annotations

import contextlib
import io
import re
import signal
import sys
import time
import uuid
from pathlib import Path

import pytest

from strategies.calling_station import CallingStation
from treasure_sim import Game, RuleSet
from treasure_sim.cli import main
from treasure_sim.cli.play import Console, LeaveTable, TerminalPlayer, _play, read_bet, read_cards_from, read_choice
from treasure_sim.game.cards import parse_card

pexpect = pytest.importorskip("pexpect")

COMMAND = [sys.executable, "-c", "import sys; from treasure_sim.cli import main; sys.exit(main())"]
PROMPTS = {
    "bet": r"Your move, seat \d \(.*?\): .*?> ",
    "spades": r"Cards to move .*?> ",
    "hearts": r"draw a card with your Hearts\? .*?> ",
    "joker": r"Card 1\.\.\d+ > ",
    "steal": r"Steal 1\.\.\d+, or 0 / Enter to stop > ",
    "keep": r"Play another hand\? .*?> ",
}
ANSWERS = {"bet": "c", "spades": "all", "hearts": "y", "joker": "1", "steal": "1", "keep": "y"}


def bet_observation(**changes):
    """A real betting observation of seat 0 facing a bet of 5 (no-limit), changed as asked."""
    seen = []

    class Watcher(CallingStation):
        def act(self, obs):
            seen.append(obs)
            return super().act(obs)

    class Bettor(CallingStation):
        def act(self, obs):
            from treasure_sim import Action
            return Action.raise_to(5) if not obs.bets[obs.seat] else super().act(obs)

    Game([Watcher(), Bettor()], RuleSet(), seed=1, dealer=0).play_hand()
    return seen[0]._replace(**changes)


def test_read_bet_takes_legal_answers_and_says_why_not():
    obs = bet_observation()
    assert obs.to_call == 5 and obs.min_raise_to == 10
    assert read_bet("f", obs).kind == "fold"
    assert read_bet("c", obs).kind == "call" and read_bet("call", obs).kind == "call"
    assert read_bet("r 12", obs).amount == 12 and read_bet("12", obs).amount == 12
    assert read_bet("a", obs).amount == obs.max_raise_to == 99
    for text, reason in [("k", "cannot check: \\$5 to call"), ("r 7", "to 10 .. 99"), ("r 500", "to 10 .. 99"),
                         ("r", "say how much"), ("r lots", "not a whole number"), ("dance", "unknown action"),
                         ("", "type an action")]:
        with pytest.raises(ValueError, match=reason):
            read_bet(text, obs)
    free = obs._replace(to_call=0, legal=("fold", "check"), min_raise_to=0, max_raise_to=0)
    assert read_bet("c", free).kind == "check"
    with pytest.raises(ValueError, match="raising is not possible"):
        read_bet("r 10", free)
    fixed = obs._replace(min_raise_to=10, max_raise_to=10)
    assert read_bet("r", fixed).amount == 10
    with pytest.raises(ValueError, match="the most you may bet now is r 10"):
        read_bet("a", fixed)


def test_read_cards_and_choices():
    spades = [parse_card("9s"), parse_card("Ks")]
    assert read_cards_from("all", spades) == spades
    assert read_cards_from("ks", spades) == [parse_card("Ks")]
    with pytest.raises(ValueError, match="2s is not one of 9s Ks"):
        read_cards_from("2s", spades)
    assert read_choice("2", 3) == 1 and read_choice("", 3, stop=True) is None
    with pytest.raises(ValueError, match=r"1\.\.3"):
        read_choice("4", 3)


def scripted(answers: str) -> TerminalPlayer:
    player = TerminalPlayer(names=["you", "caller", "other"][:2])
    player.console = Console(io.StringIO(answers), io.StringIO())
    return player


def test_a_showdown_asks_spades_hearts_steals_and_keep_playing():
    # seat 0 (the person) holds 9s, 5h, Kd as Treasures; seat 1 holds 4c, which the Kd may steal
    person = scripted("r 1000\nc\nc\nc\nc\n9s\ny\nn\n1\nn\n")
    game = Game([person, CallingStation()], RuleSet(), seed=2, dealer=0, treasures={0: "9s 5h Kd", 1: "4c"},
                deck="2c 5s 3c 5d 7d 5c 7h 8d 9c Jd Qh")
    record = game.play_hand()
    text = person.console.stdout.getvalue()
    assert "! a raise must bring your bet this round to" in text  # the bad answer, and asked again
    assert "Step 11: you may move Spades Treasures to your hand (9s)" in text
    assert "draw a card with your Hearts?" in text
    assert "Hands revealed (step 12): seat 0 [5s 5d 9s]; seat 1 [2c 3c]" in text
    assert "1: spend Kd, take 4c" in text
    assert "Play another hand?" in text and str(record) in text  # the hand's history at its end
    assert record.spades_moved[0] == ("9s",) and record.drawn[0] == ("Qh",)
    assert [(s.seat, s.card) for s in record.steals] == [(0, "4c")]
    assert "♣ every four in hand or shared is wild for seat 1" in text  # each Treasure says what it does
    assert not game.errors[0]


def test_the_command_steps_the_state_and_plays_the_hand_a_seat_would():
    """`play` answers the person's questions off the state (no seat between them): the same answers play the same
    hand as through the engine's seat, and an answer the state refuses is asked again."""
    script = "r 1000\nc\nc\nc\nc\n9s\ny\nn\n1\nn\n"  # the showdown above; then the input ends: the person leaves

    def table(person):
        return Game([person, CallingStation()], RuleSet(), seed=2, dealer=0, treasures={0: "9s 5h Kd", 1: "4c"},
                    deck="2c 5s 3c 5d 7d 5c 7h 8d 9c Jd Qh")

    through_seat = table(scripted(script)).play_hand()
    person = scripted(script)
    game = table(person)
    with pytest.raises(LeaveTable):
        _play(game, ["you", "caller"], watch=False, person=person, seat=0)
    assert str(game.hands[0]) == str(through_seat) and len(game.hands) == 1
    assert "! a raise must bring your bet this round to" in person.console.stdout.getvalue()
    assert not game.errors[0] and game.seats[0].decisions == 1  # through its seat: only the vote at sitting down


def test_a_joker_treasure_is_the_persons_choice():
    person = scripted("f\n2\ny\n")
    game = Game([person, CallingStation()], RuleSet(diamonds=False), seed=3, dealer=1, deck="Ah Kh Qc Jc RJ")
    record = game.play_hand()
    text = person.console.stdout.getvalue()
    assert "the New Treasure is a Joker, and you folded last" in text and "1: Ah (" in text and "2: Qc (" in text
    assert record.treasure_taken == "Qc" and game.treasures[0] == ("Qc",)


def test_a_full_zone_asks_the_person_what_to_give_up():
    # the person folds at once (the last folder), its zone of two is full: it gives up 2c for the New Treasure
    person = scripted("f\n7\n1\ny\n")
    rules = RuleSet(diamonds=False, zone_limit=2, at_limit="choose")
    game = Game([person, CallingStation()], rules, seed=3, dealer=1, treasures={0: "2c 9d"}, deck="Ah Kh Qc Jc As")
    record = game.play_hand()
    text = person.console.stdout.getvalue()
    assert "Your Treasure Zone is full (2 cards): give one up for As" in text
    assert "! " in text  # 7 is not a choice: said why, and asked again
    assert record.given_up == ((0, "2c"),) and sorted(game.treasures[0]) == ["9d", "As"]


# ----- the command, end to end in a terminal ------------------------------------------------------------------
def _interactive_sigint() -> None:
    """Ctrl-C as at a terminal: a runner started in the background (``nohup pytest &``) passes SIGINT on ignored,
    and Python then never turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(*args: str, **kwargs) -> pexpect.spawn:
    child = pexpect.spawn(COMMAND[0], [*COMMAND[1:], "play", *args], encoding="utf-8", timeout=60,
                          dimensions=(50, 200), preexec_fn=_interactive_sigint, **kwargs)
    child.logfile_read = io.StringIO()
    return child


def play_out(child: pexpect.spawn, first_bet: str | None = None) -> set[str]:
    """Answer every prompt (the first bet with ``first_bet``) until the game is over; the decisions seen."""
    kinds = list(PROMPTS)
    seen = set()
    while True:
        index = child.expect([*PROMPTS.values(), r"Game over after .*\n", pexpect.EOF])
        if index >= len(kinds):
            assert index == len(kinds), child.logfile_read.getvalue()[-3000:]
            return seen
        kind = kinds[index]
        seen.add(kind)
        if kind == "bet" and first_bet is not None:
            child.sendline(first_bet)
            first_bet = None
            continue
        child.sendline(ANSWERS[kind])


def test_a_person_plays_a_whole_game_in_the_terminal():
    child = spawn("--bots", "calling_station,rock", "--seed", "4", "--rule", "max_hands=4")
    seen = play_out(child, first_bet="r 100000")
    child.expect(pexpect.EOF)
    child.close()
    transcript = child.logfile_read.getvalue()
    assert child.exitstatus == 0, transcript[-3000:]
    assert "! a raise must bring your bet this round to" in transcript
    assert "bet" in seen and "keep" in seen
    assert len(re.findall(r"^Hand #\d+, dealer seat", transcript, re.M)) == 4  # each hand's history
    assert "Game over after 4 hand(s) (hand limit)" in transcript


def processes_with(text: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if text in cmdline.read_text():
                found.append(cmdline.parent.name)
    return found


@pytest.mark.parametrize("isolated", [False, True])
def test_ctrl_c_leaves_the_table_cleanly(isolated):
    name = f"ctrl-c-{uuid.uuid4().hex[:8]}"  # in the isolated seat's command line: to find a process left behind
    child = spawn("--bots", "rock,rock", "--seed", "1", "--name", name, *(["--isolated"] if isolated else []))
    child.expect(PROMPTS["bet"])
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    transcript = child.logfile_read.getvalue()
    assert "You left the table after 0 hand(s)." in transcript and "Traceback" not in transcript
    assert child.exitstatus == 130
    for _ in range(50):  # the seat's process dies with the game's
        if not processes_with(name):
            break
        time.sleep(0.1)
    assert not processes_with(name)


def test_q_leaves_the_table():
    child = spawn("--bots", "rock", "--seed", "1")
    child.expect(PROMPTS["bet"])
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert "You left the table after 0 hand(s)." in child.logfile_read.getvalue() and child.exitstatus == 0


def test_watch_plays_bots_one_hand_per_key():
    child = spawn("--watch", "--bots", "random,rock,maniac", "--seed", "2", "--rule", "max_hands=3")
    for _ in range(2):
        child.expect("Any key: next hand, q: stop > ")
        child.send("x")
    child.expect(r"Game over after 3 hand\(s\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_watch_keeps_keys_pressed_before_its_prompt():
    """Keys typed ahead are read, not flushed: switching the terminal to key-at-a-time mode used to drop them (and a
    key pressed just as the prompt appeared)."""
    child = spawn("--watch", "--bots", "random,rock,maniac", "--seed", "2", "--rule", "max_hands=3")
    child.send("xy")  # both presses before the first prompt: one for each of the two prompts
    child.expect(r"Game over after 3 hand\(s\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_an_isolated_seat_plays_through_the_line_protocol():
    child = spawn("--bots", "calling_station", "--seed", "6", "--rule", "max_hands=2", "--isolated")
    seen = play_out(child)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.logfile_read.getvalue()[-3000:]
    assert "bet" in seen and "error, seat 0" not in child.logfile_read.getvalue()


@pytest.mark.parametrize("args, message", [
    (["--bots", "no_such_bot"], "unknown strategy 'no_such_bot'"),
    (["--seat", "5"], "--seat must be 0..3"),
    (["--rule", "ante"], "--rule takes FIELD=VALUE"),
    (["--rule", "betting=sideways"], "betting must be one of"),
    (["--rule", "ante=500"], "ante (500) must be smaller than starting_money"),
    (["--watch", "--seat", "1"], "--watch seats bots only"),
    (["--bots", ",".join(["rock"] * 10)], "a table seats 2 to 10 players"),
])
def test_bad_input_is_one_line(args, message, capsys):
    assert main(["play", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
