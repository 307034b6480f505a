"""A Treasure Poker bot that does not import treasure_sim: it speaks the line protocol (docs/protocol.md).

Run it in a tournament with an entrant such as

    [[entrants]]
    command = ["python3", "docs/examples/line_bot.py"]
    label = "line-caller"

It checks when it can, calls small bets and folds to big ones, moves every Spades Treasure to its hand,
always draws with Hearts, takes the first option it is offered, and never votes to stop.
Any language works the same way: read one JSON object per line, answer one per line with the same "id".
"""

import json
import sys


def answer(message):
    kind = message["type"]
    if kind == "hello":
        return {"name": "line-caller"}
    if kind == "act":
        obs = message["obs"]
        if "check" in obs["legal"]:
            return {"action": "check"}
        stack = obs["money"][obs["seat"]]
        return {"action": "call"} if obs["to_call"] * 4 <= stack else {"action": "fold"}
    if kind == "move_spades":
        obs = message["obs"]
        return {"cards": [card for card in obs["treasures"][obs["seat"]] if card.endswith("s")]}
    if kind == "draw_heart":
        return {"draw": True}
    if kind == "choose_joker_treasure":
        return {"card": message["options"][0]}
    if kind == "steal":
        return {"steal": 0 if message["options"] else None}
    if kind == "keep_playing":
        return {"keep": True}
    return {}  # setup, hand_end: nothing to say


for line in sys.stdin:
    request = json.loads(line)
    reply = answer(request)
    reply["id"] = request["id"]
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
