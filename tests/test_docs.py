"""The documentation names only what exists: every path, module, `treasure-sim` subcommand and flag that the
README and docs/ name in code spans, code blocks and links is checked against the tree, the import system and
the command's own argparse parser (read at test time, so a doc and a flag added by anyone are both seen)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import re
import shlex
from functools import cache
from pathlib import Path

import pytest

from treasure_sim.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "seeds").glob("*.md")])
# the folders and files of the repository a doc may point into; anything else is an example of the reader's own
# (`my_bot.py`), a placeholder (`DIR/histories/`) or an output a command writes (`results/default/games`)
TOP = {p.name for p in ROOT.iterdir() if not p.name.startswith(".") or p.name == ".ci"} - {"results"}
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH = re.compile(r"^(?:\./)?[\w.-]+(?:/[\w.*-]+)*/?$")
MODULE = re.compile(r"^(treasure_sim|strategies)(\.\w+)+$")
FLAG = re.compile(r"^--[a-z][a-z0-9-]*$")


def _text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def _blocks(text: str) -> list[str]:
    return FENCE.findall(text)


def _spans(text: str) -> list[str]:
    """Inline code spans outside fenced blocks."""
    return SPAN.findall(FENCE.sub("", text))


def _where(doc: Path) -> str:
    return str(doc.relative_to(ROOT))


# ----- the parser ----------------------------------------------------------------------------------------------
@cache
def _parser() -> tuple[dict[str, set[str]], set[str]]:
    """Per subcommand its option strings (the main parser's included); and the main parser's own."""
    parser = build_parser()
    top = {s for a in parser._actions for s in a.option_strings}
    subs: dict[str, set[str]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                subs[name] = top | {s for a in sub._actions for s in a.option_strings}
    return subs, top


def _commands(text: str) -> list[list[str]]:
    """Every `treasure-sim ...` invocation in code blocks and spans, as tokens after the program name."""
    out = []
    for chunk in [*_blocks(text), *_spans(text)]:
        for line in chunk.splitlines():
            for part in re.split(r"&&|;|\|", line.split(" #")[0]):
                words = part.strip()
                if "treasure-sim " not in words:
                    continue
                words = words[words.index("treasure-sim ") + len("treasure-sim "):]
                try:
                    tokens = shlex.split(words)
                except ValueError:
                    tokens = words.split()
                out.append(tokens)
    return out


def _check_command(tokens: list[str]) -> list[str]:
    subs, top = _parser()
    words = [t for t in tokens if not t.startswith("-")]
    flags = [t.split("=")[0] for t in tokens if t.startswith("--")]
    if not words:
        return [f"--{f}" for f in flags if f not in top]
    sub = words[0]
    if sub in ("COMMAND", "...") or not re.fullmatch(r"[a-z]+", sub):
        return []
    if sub not in subs:
        return [f"subcommand {sub!r}"]
    if sub == "bench":  # flags after the benchmark's name are the benchmark's own
        flags = [t.split("=")[0] for t in tokens[:tokens.index(words[1])] if t.startswith("--")] \
            if len(words) > 1 else flags
    return [f"{sub} {f}" for f in flags if f not in subs[sub]]


# ----- paths and modules ---------------------------------------------------------------------------------------
def _path_exists(token: str, doc: Path) -> bool | None:
    """True or False for a path into the repository; None for what is not one (outputs, examples, placeholders)."""
    token = token.removeprefix("./").split("#")[0]
    if not token or token.startswith(("http:", "https:", "mailto:")):
        return None
    first = token.split("/")[0]
    candidates = [doc.parent / token]
    if first in TOP:
        candidates.append(ROOT / token)
    elif not (doc.parent / first).exists():
        return None
    if "*" in token:
        return any(ROOT.glob(token)) or any(doc.parent.glob(token))
    return any(c.exists() for c in candidates)


def _module_exists(name: str) -> bool:
    """The longest importable prefix, then the rest as attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            spec = importlib.util.find_spec(module)
        except ModuleNotFoundError:
            spec = None
        if spec is None:
            continue
        obj = importlib.import_module(module)
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


# ----- the tests -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("doc", DOCS, ids=_where)
def test_every_treasure_sim_command_and_flag_exists(doc):
    missing = [f"{' '.join(t)}: {m}" for t in _commands(_text(doc)) for m in _check_command(t)]
    assert not missing, f"{_where(doc)} names what `treasure-sim` does not have: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=_where)
def test_every_flag_in_a_span_exists(doc):
    """A lone `--flag` span names an option of some subcommand (or of the script the doc runs next to it)."""
    subs, _ = _parser()
    known = set().union(*subs.values()) | _script_flags()
    spans = [s.split()[0].split("=")[0] for s in _spans(_text(doc)) if s.startswith("--")]
    missing = sorted({f for f in spans if FLAG.match(f) and f not in known})
    assert not missing, f"{_where(doc)} names flags no command has: {missing}"


@cache
def _script_flags() -> set[str]:
    """Options of the scripts the docs run directly (python experiments/*.py, docs/examples/*.py, benchmarks)."""
    flags = set()
    for script in [*ROOT.glob("experiments/*.py"), *ROOT.glob("docs/examples/*.py"),
                   *ROOT.glob("treasure_sim/benchmarks/*.py")]:
        flags |= set(re.findall(r"add_argument\(\s*\"(--[a-z0-9-]+)\"", script.read_text(encoding="utf-8")))
    return flags


@pytest.mark.parametrize("doc", DOCS, ids=_where)
def test_every_path_named_exists(doc):
    text = _text(doc)
    tokens = [t for s in _spans(text) for t in s.split()] + LINK.findall(text)
    tokens += [t for b in _blocks(text) for line in b.splitlines() for t in line.split()
               if re.search(r"\.(?:py|toml|md|ipynb|png)$", t) or t.endswith("/")]
    missing = sorted({t for t in tokens if PATH.match(t.removeprefix("./").split("#")[0] or "x")
                      and ("/" in t or re.search(r"\.(?:md|toml|py|ipynb|png|txt)$", t))
                      and _path_exists(t, doc) is False})
    assert not missing, f"{_where(doc)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=_where)
def test_every_module_named_exists(doc):
    text = _text(doc)
    names = {t for s in [*_spans(text), *_blocks(text)] for t in re.findall(r"[\w.]+", s)}
    missing = sorted(n for n in names if MODULE.match(n) and not _module_exists(n))
    assert not missing, f"{_where(doc)} names modules or attributes that do not exist: {missing}"


def test_the_checker_catches_what_is_stale(tmp_path):
    """The checks above fail on a doc that names a missing path, module, subcommand or flag."""
    assert _check_command(["run", "--no-such-flag"]) == ["run --no-such-flag"]
    assert _check_command(["frobnicate"]) == ["subcommand 'frobnicate'"]
    assert _check_command(["report", "results/x", "--multiplicity", "bh"]) == []
    assert _check_command(["bench", "engine", "--anything"]) == []
    doc = ROOT / "docs" / "x.md"
    assert _path_exists("treasure_sim/strategy.py", doc) is False
    assert _path_exists("treasure_sim/game/strategy.py", doc) is True
    assert _path_exists("images/balance-powers.png", doc) is True
    assert _path_exists("results/default/games", doc) is None
    assert _path_exists("my_bot.py", doc) is None
    assert not _module_exists("treasure_sim.strategy") and _module_exists("treasure_sim.run.store.read_games")
    assert _commands("run `treasure-sim sweep --deals 5`\n```bash\npip x && treasure-sim run --until-ci 0.1\n```") \
        == [["run", "--until-ci", "0.1"], ["sweep", "--deals", "5"]]


def test_every_environment_variable_the_notebooks_read_is_documented():
    read = set()
    for notebook in ROOT.glob("notebooks/*.ipynb"):
        read |= set(re.findall(r"os\.environ(?:\.get)?\(?\[?\\?\"(TREASURE_\w+)", notebook.read_text(encoding="utf-8")))
    assert read >= {"TREASURE_RESULTS", "TREASURE_SWEEP", "TREASURE_STUDY"}
    documented = set(re.findall(r"TREASURE_\w+", " ".join(_text(d) for d in DOCS)))
    assert read <= documented, f"the notebooks read {sorted(read - documented)}, which no doc names"


def test_the_environment_page_states_the_code_s_sizes():
    env = pytest.importorskip("treasure_sim.env")
    text = _text(ROOT / "docs" / "env.md")
    width = int(re.search(r"^\| phase \| (\d+) \|", text, re.M).group(1))
    assert width == len(env.PHASES)
    stated = int(re.search(r"\((\d+) at four seats\)", text).group(1))
    assert stated == len(env.PHASES) + 4 * 54 + 4 * (52 + 54 + env.PLAYER_FEATURES) + 7 + 13
    table = env.raw_env()  # one learner and three bots: four seats
    assert table.observation_space("player_0")["observation"].shape == (stated,)


def test_the_readme_says_where_the_report_goes():
    readme = _text(ROOT / "README.md")
    assert "next to the data" not in readme and "results/default/report/" in readme
