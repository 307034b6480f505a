"""Which code an entrant runs, and whether it is ours: the bots' part of the config fingerprint, and trust.

A results folder may be extended or repaired only by the same games, and a bot's games depend on its code as
much as on its params. So the fingerprint of an experiment covers a SHA-256 of each entrant's source:

- a built-in bot (a registry name, or ``strategies.<module>:Class``): its module in the ``strategies`` package
  and the package's private helper modules (``strategies/_*.py``);
- ``path/file.py:Class``: that file; ``package.module:Class``: that module's file, found on ``sys.path``
  without running it (a package's other modules are not covered);
- ``command = [...]``: every argument that names an existing file (the script, the jar, a program given by
  its path); a program found on ``PATH`` (``python3``, ``java``) is not covered.

Trust: a built-in bot is treasure-sim's own code. Any other bot that plays in-process is trusted code: it runs
in the engine's interpreter and can read the engine's state (docs/protocol.md); ``untrusted = true`` (or
``--untrusted``) isolates every entrant that is not built in.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_CACHE: dict[tuple[str, int, int], str] = {}  # (path, mtime_ns, size) -> sha256 of the file


def _builtin_module(spec: str) -> str | None:
    """The module of the ``strategies`` package a spec names, or None when it is not a built-in bot."""
    spec = spec.strip()
    target, sep, _ = spec.rpartition(":")
    if not sep:
        if not spec.isidentifier():
            return None
        from ..bots.loader import registry

        cls = registry().get(spec)
        return cls.__module__ if cls is not None else None
    if target.startswith("strategies.") and target.replace(".", "").replace("_", "").isalnum() \
            and target.count(".") == 1:
        return target
    return None


def is_builtin(strategy: str, command: Iterable[str] = ()) -> bool:
    """Whether an entrant is one of treasure-sim's built-in bots (a command never is)."""
    return not tuple(command) and bool(strategy) and _builtin_module(strategy) is not None


def _package_dir() -> Path:
    import strategies

    return Path(strategies.__file__).resolve().parent


def _module_file(module: str) -> Path | None:
    """The source file of ``module``, found without importing it (its parent packages are not run either)."""
    loaded = sys.modules.get(module)
    if loaded is not None and getattr(loaded, "__file__", None):
        return Path(loaded.__file__)  # type: ignore[arg-type]
    search: list[str] | None = None
    spec = None
    parts = module.split(".")
    for i in range(len(parts)):
        try:
            spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:i + 1]), search)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        search = list(spec.submodule_search_locations or [])
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin and origin not in ("built-in", "frozen", "namespace") else None


def source_files(strategy: str, command: Iterable[str] = ()) -> list[Path]:
    """The files whose bytes decide what an entrant plays (see the module docstring); [] when none is found."""
    command = tuple(command)
    if command:
        return [Path(arg) for i, arg in enumerate(command)
                if (i > 0 or "/" in arg) and Path(arg).is_file()]
    builtin = _builtin_module(strategy)
    if builtin is not None:
        base = _package_dir()
        own = base / f"{builtin.split('.', 1)[1]}.py"
        return [own, *sorted(p for p in base.glob("_*.py") if p.name != "__init__.py")]
    target, sep, _ = strategy.strip().rpartition(":")
    if not sep:
        target = strategy.strip()
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target).expanduser()
        return [path] if path.is_file() else []
    found = _module_file(target)
    return [found] if found is not None and found.is_file() else []


def _file_sha256(path: Path) -> str:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    digest = _CACHE.get(key)
    if digest is None:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        _CACHE[key] = digest
    return digest


def code_record(strategy: str, command: Iterable[str] = ()) -> dict[str, Any]:
    """``{"files": [...], "sha256": ...}``: the entrant's source files and one hash over their bytes."""
    files = source_files(strategy, command)
    h = hashlib.sha256()
    names = []
    for path in files:
        try:
            digest = _file_sha256(path)
        except OSError:
            digest = "unreadable"
        names.append(path.name if is_builtin(strategy, command) else str(path))
        h.update(f"{digest}\n".encode())  # the bytes, not the path: the same file reached another way is the same
    return {"files": names, "sha256": h.hexdigest()[:16] if files else ""}



def in_process_outsiders(entrants: Iterable[Any]) -> list[Any]:
    """The entrants (with ``label``, ``strategy``, ``command``, ``isolate``) that play in the engine's process and
    are not built-in bots: trusted code from outside treasure-sim."""
    return [e for e in entrants if not e.isolate and not e.command and not is_builtin(e.strategy)]


def trust_note(entrants: Iterable[Any]) -> str | None:
    """The summary's line naming the in-process entrants from outside the package, or None when there are none."""
    outsiders = in_process_outsiders(entrants)
    if not outsiders:
        return None
    names = ", ".join(f"{e.label} ({e.strategy})" for e in outsiders)
    return (f"trusted code: {names} played in this process, where a bot can read the engine's state and the cards "
            f"and change them; only code you trust belongs there. --untrusted (or untrusted = true in the config) "
            f"runs every bot that is not built in isolated (docs/protocol.md)")
