"""A game as one self-contained HTML page that steps through it hand by hand and action by action.

`replay_frames` turns a game's records into *frames*, one per thing that happens (an ante, a deal, a bet, Spades
moved, a Hearts draw, a pot won, a Treasure taken or stolen), each holding the whole visible state: every seat's
money behind and chips put in, the zones, the extra cards in hand, the board, the pot. The page only draws the
frame it is at, so what it shows can be checked frame by frame against the records (tests/test_replay.py does,
in a browser). `replay_html` embeds the frames, the script and the style in one file: no server, no network.

The records come from a replay of the game's seeds (`treasure_sim.run.replay`), not from the results tables:
those do not keep every action.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..game.cards import RANKS, parse_card, value_of
from ..game.history import GameResult, HandRecord
from ..game.rules import RuleSet

ROUND_STEPS = (4, 6, 8, 10)  # the card's betting steps
SHARED_STEPS = {2: 5, 4: 7, 5: 9}  # shared cards on the board after the card's steps 5, 7 and 9
SUIT_POWERS = {"s": "spades", "c": "clubs", "h": "hearts", "d": "diamonds"}


def power_text(card: str, rules: RuleSet) -> str:
    """What a Treasure does for the seat whose zone holds it, in a few words (the rules card's powers)."""
    if card in ("RJ", "BJ"):
        return "a Joker: the Treasure is instead a card of the last folder's choice, from hand or shared (step 15)"
    rank, suit = card[0], card[1]
    if not getattr(rules, SUIT_POWERS[suit]):
        return f"no power ({SUIT_POWERS[suit]} off under these rules)"
    word = {"T": "10"}.get(rank, rank)
    if suit == "s":
        return "may move to hand at step 11"
    if suit == "c":
        return f"every {word} is wild for this seat"
    if suit == "h":
        return f"draw +1 card per {word} in hand or shared"
    return f"may steal a Treasure worth ≤ {value_of(parse_card(card), rules.ace_value)}"


def _describe_action(kind: str, to: int, added: int, all_in: bool, opened: bool) -> str:
    text = {"raise": f"raises to {to}" if opened else f"bets {to}", "call": f"calls {added}"}.get(kind, kind + "s")
    return text + (" (all in)" if all_in else "")


class _Hand:
    """The state of one hand as it unfolds, and the frames it makes."""

    def __init__(self, rec: HandRecord, index: int, labels: Sequence[str], rules: RuleSet) -> None:
        self.rec, self.index, self.labels = rec, index, labels
        n = len(rec.in_hand)
        self.start = [m - p for m, p in zip(rec.money_after, rec.payouts, strict=True)]
        self.put = list(rec.antes)
        self.zones = [list(z) for z in (rec.treasures_before or rec.treasures_after)]
        self.extra: list[list[str]] = [[] for _ in range(n)]
        self.folded = [False] * n
        self.board = 0
        self.revealed = False
        self.pot_shown: int | None = None
        self.money_override: list[int] | None = None
        self.frames: list[dict[str, Any]] = []
        self.rules = rules

    def seat(self, s: int) -> str:
        return f"seat {s} ({self.labels[s]})"

    def frame(self, step: int, kind: str, text: str, actor: int | None = None) -> None:
        money = self.money_override or [st - p for st, p in zip(self.start, self.put, strict=True)]
        self.frames.append({
            "h": self.index, "step": step, "kind": kind, "text": text, "actor": actor, "money": list(money),
            "put": list(self.put), "pot": sum(self.put) if self.pot_shown is None else self.pot_shown,
            "board": self.board, "zones": [list(z) for z in self.zones], "extra": [list(e) for e in self.extra],
            "folded": list(self.folded), "revealed": self.revealed})

    def play(self) -> list[dict[str, Any]]:
        rec = self.rec
        dealt = [s for s, d in enumerate(rec.in_hand) if d]
        out = [s for s, d in enumerate(rec.in_hand) if not d]
        sitting_out = f"; out of the game: {', '.join(map(str, out))}" if out else ""
        self.frame(1, "ante", f"hand {rec.hand_no}, dealer seat {rec.dealer}: antes "
                   + ", ".join(f"seat {s} ${rec.antes[s]}" for s in dealt) + sitting_out)
        self.frame(2, "deal", "2 hole cards to each seat dealt in")
        if rec.new_treasure:
            self.frame(3, "new_treasure", f"the New Treasure is {rec.new_treasure}: "
                       + power_text(rec.new_treasure, self.rules))
        for rnd in range(4):
            if rnd:
                shown_before, shown_now = self.board, (0, 2, 4, 5)[rnd]
                if len(rec.shared) >= shown_now > shown_before:
                    self.board = shown_now
                    self.frame(SHARED_STEPS[shown_now], "shared",
                               f"shared: {' '.join(rec.shared[shown_before:shown_now])}")
            opened = False
            for a in (a for a in rec.actions if a.round == rnd):
                self.put[a.seat] += a.added
                if a.kind == "fold":
                    self.folded[a.seat] = True
                self.frame(ROUND_STEPS[rnd], "bet", f"{self.seat(a.seat)} "
                           + _describe_action(a.kind, a.to, a.added, a.all_in, opened), a.seat)
                opened = opened or a.kind == "raise"
        if rec.void:
            self.money_override = list(rec.money_after)
            self.put = [0] * len(self.put)
            self.frame(17, "void", "the deck ran out while dealing: the hand is void, every chip goes back")
            return self.end()
        self.board = len(rec.shared)
        for s, cards in enumerate(rec.spades_moved):
            if cards:
                for c in cards:
                    self.zones[s].remove(c)
                self.extra[s].extend(cards)
                self.frame(11, "spades", f"{self.seat(s)} moves Spades to hand: {' '.join(cards)}", s)
        if rec.shown:
            self.revealed = True
            self.frame(12, "reveal", "hands revealed: " + ", ".join(f"seat {sh.seat}" for sh in rec.shown))
        for s, cards in enumerate(rec.drawn):
            if cards:
                self.extra[s].extend(cards)
                self.frame(12, "hearts", f"{self.seat(s)} draws with Hearts: {' '.join(cards)}", s)
        if rec.deck_ran_out:
            self.frame(12, "deck_out", "the deck ran out during Hearts draws: this is the last hand")
        if rec.shown:
            self.frame(13, "quintets", "; ".join(
                f"seat {sh.seat}: {sh.description} ({' '.join(sh.quintet)})" for sh in rec.shown))
        self.award()
        self.treasure()
        for st in rec.steals:
            self.zones[st.seat].remove(st.diamond)
            self.zones[st.victim].remove(st.card)
            self.zones[st.seat].append(st.card)
            spent = "removes {} from the game" if st.diamond in rec.removed else "puts {} under the deck"
            self.frame(16, "steal", f"{self.seat(st.seat)} {spent.format(st.diamond)} and steals {st.card} from "
                       f"seat {st.victim}", st.seat)
        return self.end()

    def award(self) -> None:
        rec = self.rec
        parts = []
        if rec.returned:
            parts.append(f"uncalled ${rec.returned[1]} back to seat {rec.returned[0]}")
        for i, p in enumerate(rec.pots):
            label = "pot" if len(rec.pots) == 1 else "main pot" if i == 0 else f"side pot {i}"
            if len(p.winners) == 1:
                parts.append(f"{label} ${p.amount} to {self.seat(p.winners[0])}")
            else:
                parts.append(f"{label} ${p.amount} split: "
                             + ", ".join(f"seat {w} ${c}" for w, c in zip(p.winners, p.shares, strict=True)))
        self.pot_shown = rec.pot
        self.money_override = list(rec.money_after)
        self.frame(14, "award", "; ".join(parts), rec.pots[0].winners[0] if len(rec.pots) == 1 else None)
        self.pot_shown = 0
        self.put = [0] * len(self.put)

    def treasure(self) -> None:
        rec = self.rec
        for seat, card in rec.given_up:
            self.zones[seat].remove(card)
        made_room = "".join(f"; seat {s}'s zone was full: {c} went back into the deck to make room"
                            for s, c in rec.given_up)
        taker = rec.treasure_taker
        if taker is not None and rec.treasure_taken is not None:
            self.zones[taker].append(rec.treasure_taken)
            passed = "" if rec.treasure_passed_to is None else \
                f" (last folder seat {rec.last_folder} may not take it)"
            if rec.treasure_taken != rec.new_treasure:
                self.frame(15, "joker_treasure", f"Joker Treasure: {self.seat(taker)}{passed} puts "
                           f"{rec.treasure_taken} in their zone{made_room}", taker)
            else:
                self.frame(14, "treasure", f"{self.seat(taker)}{passed}, the last to fold, takes the New Treasure "
                           f"{rec.treasure_taken}{made_room}", taker)
        elif rec.new_treasure:
            why = "nobody folded" if rec.last_folder is None else \
                f"last folder seat {rec.last_folder} gains nothing" if rec.new_treasure in ("RJ", "BJ") else \
                "nobody takes it"
            self.frame(14, "treasure", f"the New Treasure {rec.new_treasure} goes back into the deck: {why}"
                       + made_room)
        elif made_room:
            self.frame(14, "treasure", made_room.removeprefix("; "))

    def end(self) -> list[dict[str, Any]]:
        rec = self.rec
        self.zones = [list(z) for z in rec.treasures_after]
        self.money_override = list(rec.money_after)
        self.pot_shown = 0
        self.frame(17, "end", "net this hand: " + ", ".join(
            f"seat {s} {p:+d}" for s, p in enumerate(rec.payouts) if rec.in_hand[s]))
        return self.frames


def replay_frames(result: GameResult, entrants: Sequence[str], rules: RuleSet, title: str = "") -> dict[str, Any]:
    """The page's data: the game (seats, rules, every hand's cards and money) and its frames, JSON-ready."""
    hands = []
    frames: list[dict[str, Any]] = []
    for i, rec in enumerate(result.hands):
        hands.append({
            "no": rec.hand_no, "dealer": rec.dealer, "in_hand": list(rec.in_hand),
            "hole": [list(h) if h is not None else None for h in rec.hole],
            "new_treasure": rec.new_treasure, "shared": list(rec.shared),
            "shown": [{"seat": sh.seat, "cards": list(sh.cards), "quintet": list(sh.quintet),
                       "description": sh.description} for sh in rec.shown],
            "first": len(frames), "money_after": list(rec.money_after),
            "powers": sum(map(len, rec.spades_moved)) + sum(map(len, rec.drawn)) + len(rec.steals)
            + (rec.treasure_taken is not None and rec.treasure_taken != rec.new_treasure)})
        frames.extend(_Hand(rec, i, entrants, rules).play())
    cards: set[str] = {c for f in frames for z in f["zones"] for c in z}
    cards |= {rec.new_treasure for rec in result.hands if rec.new_treasure}
    return {
        "title": title, "entrants": list(entrants), "starting_money": rules.starting_money,
        "end_reason": result.end_reason, "final_money": list(result.final_money), "hands": hands, "frames": frames,
        "powers": {c: power_text(c, rules) for c in sorted(cards)}, "ranks": RANKS}


def replay_html(result: GameResult, entrants: Sequence[str], rules: RuleSet, title: str) -> str:
    """One HTML page, script and style inline, that replays ``result`` (a game played by ``entrants``, by seat)."""
    data = json.dumps(replay_frames(result, entrants, rules, title), separators=(",", ":"))
    data = data.replace("</", "<\\/")  # nothing in the data can close the script element
    return (_PAGE.replace("__TITLE__", html.escape(title)).replace("__STYLE__", _STYLE)
            .replace("__SCRIPT__", _SCRIPT).replace("__DATA__", data))


def write_replay(path: str | Path, result: GameResult, entrants: Sequence[str], rules: RuleSet, title: str) -> Path:
    """Write `replay_html` to ``path`` (its folder made if needed); return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(replay_html(result, entrants, rules, title), encoding="utf-8")
    return path


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>__STYLE__</style></head>
<body>
<header><h1>__TITLE__</h1>
<div id="controls">
<button id="first" title="first hand (Home)">first</button>
<button id="prev-hand" title="previous hand (PageUp or p)">◀◀ hand</button>
<button id="prev" title="one step back (←)">◀ step</button>
<button id="next" title="one step on (→)">step ▶</button>
<button id="next-hand" title="next hand (PageDown or n)">hand ▶▶</button>
<button id="last" title="last hand (End)">last</button>
<button id="next-power" title="next hand where a power was used (w)">next power ✦</button>
<label>hole cards <select id="view"></select></label>
<span id="where"></span></div></header>
<main>
<section id="table">
<div id="centre"><div><span class="label">New Treasure</span> <span id="new-treasure"></span></div>
<div><span class="label">Board</span> <span id="board"></span></div>
<div><span class="label">Pot</span> <span id="pot"></span></div>
<div id="step-line"><span class="label">Step <span id="step-no"></span></span> <span id="event"></span></div></div>
<div id="seats"></div>
</section>
<aside><h2>This hand</h2><ol id="log"></ol></aside>
</main>
<section id="strip-box"><h2>Money over hands
<span class="hint">(colours as the seat names; click to jump; the dashed line marks this hand)</span></h2>
<svg id="strip" role="img" aria-label="money of each seat after every hand"></svg></section>
<footer>Keys: ← → one step, PageUp/PageDown (p / n) one hand, Home / End, w: next hand with a power used.
A dashed card was moved to the hand from a Treasure Zone (Spades) or drawn with Hearts.
Written by treasure-sim replay; no network needed.</footer>
<script id="replay-data" type="application/json">__DATA__</script>
<script>__SCRIPT__</script>
</body></html>
"""

_STYLE = """
body{font:15px/1.4 system-ui,sans-serif;margin:0;background:#f4f1ea;color:#1d1d1d}
header{padding:8px 16px;background:#1f3b2d;color:#fff}
h1{font-size:18px;margin:0 0 6px}h2{font-size:15px;margin:4px 0}
#controls{display:flex;flex-wrap:wrap;gap:6px;align-items:center}
button{font:inherit;padding:3px 9px;border-radius:4px;border:1px solid #9ab;background:#fff;cursor:pointer}
#where{margin-left:10px;font-weight:600}
main{display:flex;gap:12px;padding:12px 16px;align-items:flex-start}
#table{flex:1 1 auto}aside{flex:0 0 360px;background:#fff;border-radius:8px;padding:8px 12px;max-height:560px;
overflow:auto}
#log{padding-left:22px;margin:0;font-size:13px}#log li.now{font-weight:700;background:#fff3c4}
#centre{background:#2e6b47;color:#fff;border-radius:40px;padding:14px 28px;display:grid;gap:6px;
grid-template-columns:1fr 2fr 1fr}
#step-line{grid-column:1/4;background:#ffffff22;padding:4px 10px;border-radius:8px;min-height:22px}
.label{font-size:12px;text-transform:uppercase;letter-spacing:.05em;opacity:.85}
#pot{font-size:20px;font-weight:700}
#seats{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:10px;margin-top:10px}
.seat{background:#fff;border-radius:8px;padding:8px 10px;border:3px solid transparent}
.seat.actor{border-color:#e0a000}.seat.folded{opacity:.55}.seat.out{opacity:.35}
.seat .name{font-weight:700}.seat .money{font-size:18px;font-weight:700}
.seat .put{color:#555}.row{margin:4px 0;display:flex;flex-wrap:wrap;gap:4px;align-items:center}
.card{display:inline-block;min-width:30px;padding:2px 4px;border:1px solid #888;border-radius:4px;background:#fff;
text-align:center;font-weight:700;color:#111}
.card.r{color:#c0141c}
.card.back{background:repeating-linear-gradient(45deg,#3b5b9a,#3b5b9a 4px,#5577bb 4px,#5577bb 8px);
color:transparent}
.card.joker{color:#7b2cbf}.card.extra{border:2px dashed #7b2cbf}
.zone{display:flex;flex-direction:column;gap:2px}.zone-card{display:flex;gap:6px;align-items:center;font-size:12px}
.zone-card .does{color:#333}.empty{color:#777;font-size:12px}
#strip-box{padding:0 16px 8px}#strip{width:100%;height:150px;background:#fff;border-radius:8px;cursor:pointer}
.hint{font-weight:400;color:#666;font-size:12px}
footer{padding:6px 16px 14px;font-size:12px;color:#444}
"""

_SCRIPT = r"""
"use strict";
const D = JSON.parse(document.getElementById("replay-data").textContent);
const F = D.frames, H = D.hands, N = D.entrants.length;
const COLORS = ["#1f77b4","#d62728","#2ca02c","#9467bd","#ff7f0e","#17becf","#8c564b","#e377c2","#7f7f7f","#bcbd22"];
const SUITS = {s:"♠", c:"♣", h:"♥", d:"♦"};
let at = 0;
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text; return e; }
function card(name, hidden) {
  if (hidden) { const b = el("span", "card back", "??"); b.dataset.card = "hidden"; return b; }
  const joker = name === "RJ" || name === "BJ";
  const e = el("span", "card" + (joker ? " joker" : (name[1] === "h" || name[1] === "d") ? " r" : ""),
               joker ? (name === "RJ" ? "Joker R" : "Joker B") : name[0].replace("T", "10") + SUITS[name[1]]);
  e.dataset.card = name; e.title = name; return e;
}
const view = document.getElementById("view");
[["all", "all shown"], ["table", "as the table saw them"]].concat(D.entrants.map((e, s) =>
  ["seat" + s, "as seat " + s + " (" + e + ") saw them"])).forEach(([v, t]) => {
  const o = el("option", "", t); o.value = v; view.appendChild(o); });
view.addEventListener("change", () => { show(); view.blur(); });
function visible(f, hand, s) {
  const v = view.value;
  if (v === "all") return true;
  if (v === "seat" + s) return true;
  return f.revealed && hand.shown.some(x => x.seat === s);
}
function show() {
  const f = F[at], hand = H[f.h];
  document.getElementById("where").textContent = "hand " + hand.no + " of " + H.length + " · step " + (at + 1) +
    " of " + F.length;
  document.getElementById("where").dataset.hand = hand.no;
  document.getElementById("step-no").textContent = f.step;
  const ev = document.getElementById("event"); ev.textContent = f.text; ev.dataset.kind = f.kind;
  const nt = document.getElementById("new-treasure"); nt.replaceChildren();
  if (hand.new_treasure && f.kind !== "ante" && f.kind !== "deal") nt.appendChild(card(hand.new_treasure));
  else nt.appendChild(el("span", "empty", "—"));
  const board = document.getElementById("board"); board.replaceChildren();
  hand.shared.slice(0, f.board).forEach(c => board.appendChild(card(c)));
  if (!f.board) board.appendChild(el("span", "empty", "none yet"));
  const pot = document.getElementById("pot"); pot.textContent = "$" + f.pot; pot.dataset.value = f.pot;
  const seats = document.getElementById("seats"); seats.replaceChildren();
  for (let s = 0; s < N; s++) {
    const box = el("div", "seat"); box.dataset.seat = s;
    if (f.actor === s) box.classList.add("actor");
    if (f.folded[s]) box.classList.add("folded");
    if (!hand.in_hand[s]) box.classList.add("out");
    const top = el("div", "row");
    const name = el("span", "name", "seat " + s + " · " + D.entrants[s]); name.style.color = COLORS[s % 10];
    top.appendChild(name);
    if (hand.dealer === s) top.appendChild(el("span", "empty", "(dealer)"));
    box.appendChild(top);
    const m = el("div", "row"); const money = el("span", "money", "$" + f.money[s]); money.dataset.value = f.money[s];
    m.appendChild(money); const put = el("span", "put", f.put[s] ? "in the pot this hand: $" + f.put[s] : "");
    put.dataset.value = f.put[s]; m.appendChild(put);
    if (f.folded[s]) m.appendChild(el("span", "empty", "folded"));
    if (!hand.in_hand[s]) m.appendChild(el("span", "empty", "out: cannot pay the ante"));
    box.appendChild(m);
    const cards = el("div", "row hole"); cards.appendChild(el("span", "label", "hand"));
    if (hand.in_hand[s] && f.kind !== "ante") {
      (hand.hole[s] || ["?", "?"]).forEach(c => cards.appendChild(card(c, !visible(f, hand, s) || c === "?")));
      f.extra[s].forEach(c => { const x = card(c); x.classList.add("extra");
        x.title = c + ": moved from the zone (Spades) or drawn with Hearts"; cards.appendChild(x); });
    }
    box.appendChild(cards);
    const sh = f.revealed && (f.step >= 13) && hand.shown.find(x => x.seat === s);
    if (sh) box.appendChild(el("div", "row", sh.description + ": " + sh.quintet.join(" ")));
    const zone = el("div", "zone"); zone.dataset.cards = f.zones[s].join(" ");
    zone.appendChild(el("span", "label", "Treasure Zone (" + f.zones[s].length + ")"));
    if (!f.zones[s].length) zone.appendChild(el("span", "empty", "empty"));
    f.zones[s].forEach(c => { const z = el("div", "zone-card"); z.appendChild(card(c));
      z.appendChild(el("span", "does", D.powers[c] || "")); zone.appendChild(z); });
    box.appendChild(zone);
    seats.appendChild(box);
  }
  const log = document.getElementById("log"); log.replaceChildren();
  for (let i = hand.first; i < F.length && F[i].h === f.h; i++) {
    const li = el("li", i === at ? "now" : "", "(" + F[i].step + ") " + F[i].text);
    if (i > at) li.style.color = "#aaa";
    log.appendChild(li);
    if (i === at) { const box = log.parentElement;
      box.scrollTop = Math.max(0, li.offsetTop - box.offsetTop - box.clientHeight / 2); }
  }
  drawStrip(f.h);
}
function drawStrip(h) {
  const svg = document.getElementById("strip"), W = svg.clientWidth || 900, HH = svg.clientHeight || 150;
  const pad = 28, top = Math.max(...H.map(x => Math.max(...x.money_after)), D.starting_money);
  const x = i => pad + (W - 2 * pad) * i / Math.max(1, H.length);
  const y = v => HH - 14 - (HH - 28) * v / top;
  let out = "";
  for (let s = 0; s < N; s++) {
    const pts = [[x(0), y(D.starting_money)]].concat(H.map((hd, i) => [x(i + 1), y(hd.money_after[s])]));
    out += '<polyline fill="none" stroke-width="2" stroke="' + COLORS[s % 10] + '" points="' +
      pts.map(p => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ") + '"/>';
  }
  out += '<line id="strip-now" x1="' + x(h + 0.5) + '" x2="' + x(h + 0.5) + '" y1="4" y2="' + (HH - 10) +
    '" stroke="#000" stroke-dasharray="4 3"/>';
  out += '<text x="' + pad + '" y="12" font-size="11">$' + top + '</text><text x="' + (W - pad - 60) + '" y="' +
    (HH - 2) + '" font-size="11">hand ' + H.length + '</text>';
  svg.innerHTML = out;
}
function go(i) { at = Math.max(0, Math.min(F.length - 1, i)); show(); }
function hand(d) { const h = Math.max(0, Math.min(H.length - 1, F[at].h + d)); go(H[h].first); }
function nextPower() { for (let h = F[at].h + 1; h < H.length; h++) if (H[h].powers) return go(H[h].first); }
document.getElementById("first").onclick = () => go(0);
document.getElementById("last").onclick = () => go(H[H.length - 1].first);
document.getElementById("prev").onclick = () => go(at - 1);
document.getElementById("next").onclick = () => go(at + 1);
document.getElementById("prev-hand").onclick = () => F[at].h && at === H[F[at].h].first ? hand(-1) : hand(0);
document.getElementById("next-hand").onclick = () => hand(1);
document.getElementById("next-power").onclick = nextPower;
document.getElementById("strip").addEventListener("click", ev => {
  const r = ev.currentTarget.getBoundingClientRect();
  const i = Math.floor((ev.clientX - r.left - 28) / (r.width - 56) * H.length);
  go(H[Math.max(0, Math.min(H.length - 1, i))].first); });
document.addEventListener("keydown", ev => {
  const k = ev.key;
  if (k === "ArrowRight") go(at + 1); else if (k === "ArrowLeft") go(at - 1);
  else if (k === "PageDown" || k === "n") hand(1);
  else if (k === "PageUp" || k === "p") document.getElementById("prev-hand").click();
  else if (k === "Home") go(0); else if (k === "End") go(H[H.length - 1].first);
  else if (k === "w") nextPower(); else return;
  ev.preventDefault(); });
window.addEventListener("resize", () => drawStrip(F[at].h));
show();
"""
