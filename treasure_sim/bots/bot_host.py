"""Run a Python `Strategy` in its own process, speaking the line protocol on stdin/stdout.

``python -m treasure_sim.bots.bot_host SPEC [PARAMS_JSON]``: SPEC is what an experiment's ``strategy``
takes (a registry name, ``pkg.mod:Class``, ``path/file.py:Class``). Each ``setup`` builds a fresh
instance, so one process serves game after game. An exception in the bot is answered as an error
(the engine records it and plays the default answer); the process goes on.

The protocol keeps file descriptors of its own: the host moves the pipes it was given on 0 and 1 to new
descriptors before the bot is loaded, and gives the bot an empty standard input and a standard output that goes
to its standard error, so a bot's ``print()`` is its own business, not a protocol answer.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

import numpy as np

from ..game.cards import parse_card
from ..game.questions import BY_METHOD
from ..game.rules import RuleSet
from ..game.strategy import Strategy
from . import protocol
from .loader import load_strategy


def serve(spec: str, params: dict[str, Any], stdin: Any = None, stdout: Any = None) -> None:
    """Answer messages until the input ends."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    bot: Strategy | None = None
    showdowns: tuple = ()  # the hands shown so far this game, from the hand_end records
    for line in stdin:
        request = json.loads(line)
        method, ident = request.get("type"), request.get("id")
        try:
            reply: dict[str, Any] = {}
            if method == "hello":
                reply = {"name": spec}
            elif method == "setup":
                bot, showdowns = load_strategy(spec, **params), ()
                bot.setup(request["seat"], request["n_players"], RuleSet.from_dict(request["rules"]),
                          np.random.default_rng(request["seed"]))
            elif method == "hand_end":
                record = protocol.hand_record_from_json(request["record"])
                showdowns += record.shown
                if bot is not None:
                    bot.on_hand_end(record)
            else:
                if bot is None:
                    raise RuntimeError(f"{method} before setup")
                obs = protocol.observation_from_json(request["obs"], showdowns)
                question = BY_METHOD[method]  # a KeyError for an unknown question: reported as the error
                options = protocol.options_from_json(method, request.get("options", []))
                given: tuple = ()  # what the method takes besides the observation (the catalogue says)
                if question.asked_with == "options":
                    given = (options,)
                elif question.asked_with == "treasure":
                    given = (parse_card(request["treasure"]),)
                answer = getattr(bot, question.method)(obs, *given)
                reply = protocol.answer_to_json(method, answer, options)
        except Exception as err:  # the bot's own failure: reported, and the process serves on
            traceback.print_exc(file=sys.stderr)  # its frames, kept in the results folder (stderr/<label>.log)
            reply = {"error": f"{type(err).__name__}: {err}{_where(err)}"}
        stdout.write(json.dumps({"id": ident, **reply}, separators=(",", ":")) + "\n")
        stdout.flush()


def _where(err: BaseException) -> str:
    """`` (at file:line in function)`` of the innermost frame of ``err`` in the bot's own code, else ''."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [f for f in traceback.extract_tb(err.__traceback__) if not f.filename.startswith(package)]
    return f" (at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""


def own_channel() -> tuple[Any, Any]:
    """The protocol's pipes (stdin and stdout as given) on descriptors of their own; stdin becomes empty and stdout
    goes to stderr, for the bot's prints."""
    sys.stdout.flush()
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    os.dup2(2, 1)
    return requests, answers


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2:
        print("usage: python -m treasure_sim.bots.bot_host SPEC [PARAMS_JSON]", file=sys.stderr)
        return 2
    try:
        params = json.loads(args[1]) if len(args) > 1 else {}
        load_strategy(args[0], **params)  # fail now, with the loader's message, if the spec is wrong
    except (ValueError, TypeError) as err:
        print(f"cannot load the bot: {err}", file=sys.stderr)
        return 2
    requests, answers = own_channel()
    serve(args[0], params, requests, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
