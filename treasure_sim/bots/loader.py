"""Find a strategy by spec and build it: a registry name, ``module:Class`` or ``path/to/file.py:Class``.

The registry is discovered, not hand-kept: every public module of the ``strategies`` package is
imported and each ``Strategy`` subclass it defines with a class attribute ``name`` is listed
under that name. Specs are plain strings so a tournament worker (another process) can rebuild
its bots from the spec instead of unpickling them; :func:`strategy_factory` packages a spec and
its parameters as a picklable zero-argument callable for exactly that.

Every failure is a ``ValueError`` that says what went wrong and what would have worked.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.util
import inspect
import pkgutil
import sys
import types
import typing
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..game.strategy import Strategy

_FILE_PREFIX = "treasure_sim_user_bot_"


def _strategy_classes(module) -> list[type[Strategy]]:
    """The Strategy subclasses defined in ``module`` itself (not imported into it)."""
    return [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Strategy)
        and obj is not Strategy
        and obj.__module__ == module.__name__
    ]


def _ours_or_error(package: types.ModuleType) -> None:
    """Refuse a ``strategies`` package that is not the one installed beside ``treasure_sim``: a folder of that name
    ahead on ``sys.path`` (the current directory under ``python -m``) would otherwise pass for the built-in bots."""
    ours = Path(__file__).resolve().parents[2] / "strategies"
    found = [Path(p).resolve() for p in package.__path__]
    if found != [ours]:
        where = ", ".join(map(str, found)) or "a namespace package"
        raise ValueError(
            f"the package 'strategies' imported from {where} is not treasure-sim's built-in bots ({ours}): "
            "rename that folder (or run from another directory) and load its bots as 'path/to/file.py:Class'"
        )


@cache
def registry() -> dict[str, type[Strategy]]:
    """Registry name -> class, from every public module of the ``strategies`` package."""
    import strategies

    _ours_or_error(strategies)
    found: dict[str, type[Strategy]] = {}
    for info in sorted(pkgutil.iter_modules(strategies.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"strategies.{info.name}")
        for cls in _strategy_classes(module):
            name = cls.__dict__.get("name")
            if not name:
                continue
            if name in found and found[name] is not cls:
                raise ValueError(
                    f"two built-in strategies are named {name!r}: {_qualname(found[name])} and {_qualname(cls)}"
                )
            found[name] = cls
    return found


def available() -> list[str]:
    """The registry names, sorted."""
    return sorted(registry())


def _qualname(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _help() -> str:
    return f"available: {', '.join(available())}; or give 'package.module:Class' or 'path/to/file.py:Class'"


# ----- files: importable under a name that encodes their path, so pickles can find them again ----
class _FileBotFinder(importlib.abc.MetaPathFinder):
    """Imports ``treasure_sim_user_bot_<hex path>`` from that path (so pickled bots load in workers)."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_FILE_PREFIX):
            return None
        try:
            file = bytes.fromhex(fullname[len(_FILE_PREFIX) :].split("_", 1)[1]).decode()
        except (IndexError, ValueError):
            return None
        return importlib.util.spec_from_file_location(fullname, file)


if not any(isinstance(f, _FileBotFinder) for f in sys.meta_path):
    sys.meta_path.append(_FileBotFinder())


def _module_name_for(path: Path) -> str:
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    return f"{_FILE_PREFIX}{digest}_{str(path).encode().hex()}"


def _load_file(file: str, spec: str):
    path = Path(file).expanduser().resolve()
    if not path.is_file():
        raise ValueError(f"strategy file {file!r} not found (spec {spec!r}, looked at {path}); {_help()}")
    name = _module_name_for(path)
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ValueError(f"cannot import {file!r} as Python (spec {spec!r})")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[name]
        raise ValueError(f"importing strategy file {file!r} failed: {type(err).__name__}: {err}") from err
    return module


def _looks_like_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


_OUTSIDE = [False]


def outside_code_loaded() -> bool:
    """Whether this process has loaded a bot that is not a built-in one (a file, a module or a class of the caller's):
    from then on its code could change the engine's, whichever table it sits at (`integrity`'s code watch)."""
    return _OUTSIDE[0]


def resolve(spec: str | type[Strategy]) -> type[Strategy]:
    """The Strategy class a spec names (see the module docstring); a class is returned as is."""
    if inspect.isclass(spec):
        if not issubclass(spec, Strategy):
            raise ValueError(f"{spec!r} is not a subclass of treasure_sim.Strategy")
        if spec not in registry().values():
            _OUTSIDE[0] = True
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a strategy spec must be a non-empty string, got {spec!r}; {_help()}")
    spec = spec.strip()
    target, sep, attr = spec.rpartition(":")
    if _looks_like_file(attr):  # a path with a drive letter ("C:\\bots\\my_bot.py"), no class
        target, sep, attr = spec, "", ""
    if not sep:
        if _looks_like_file(spec):
            target, attr = spec, ""
        else:
            table = registry()
            if spec in table:
                return table[spec]
            raise ValueError(f"unknown strategy {spec!r}; {_help()}")
    _OUTSIDE[0] = True  # a file or module of the caller's: its code runs in this process from here on
    if _looks_like_file(target):
        module = _load_file(target, spec)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as err:
            raise ValueError(f"cannot import module {target!r} (spec {spec!r}): {err}; {_help()}") from err
    classes = _strategy_classes(module)
    names = ", ".join(c.__name__ for c in classes) or "none"
    if not attr:
        if len(classes) == 1:
            return classes[0]
        raise ValueError(
            f"{target!r} defines {len(classes)} Strategy classes ({names}); say which one, as '{target}:ClassName'"
        )
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{target!r} has no {attr!r} (spec {spec!r}); Strategy classes there: {names}")
        obj = getattr(obj, part)
    if not (inspect.isclass(obj) and issubclass(obj, Strategy)):
        kind = f"class {obj.__name__}" if inspect.isclass(obj) else type(obj).__name__
        raise ValueError(
            f"{spec!r} is a {kind}, not a subclass of treasure_sim.Strategy; Strategy classes there: {names}"
        )
    return obj


def parameters(cls: type[Strategy]) -> dict[str, Any]:
    """The constructor's keyword parameters and their defaults (``inspect.Parameter.empty`` if none)."""
    sig = inspect.signature(cls.__init__)
    return {
        n: p.default
        for n, p in sig.parameters.items()
        if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def _check_params(cls: type[Strategy], params: dict[str, Any], spec: Any) -> None:
    if not params:  # nothing to check (and reading the signature costs more than building the bot)
        return
    sig = inspect.signature(cls.__init__)
    if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        accepted = parameters(cls)
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            listing = ", ".join(f"{n}={d!r}" if d is not inspect.Parameter.empty else n for n, d in accepted.items())
            raise ValueError(
                f"strategy {spec!r} ({cls.__name__}) got unknown parameter(s) {', '.join(unknown)}; "
                f"accepted: {listing or 'none'}"
            )
    expected = _parameter_types(cls)
    for name, value in params.items():
        kinds = expected.get(name)
        if kinds and not _is_a(value, kinds):
            wanted = " or ".join(_TYPE_WORDS.get(k, k.__name__) for k in kinds)
            raise ValueError(f"strategy {spec!r} ({cls.__name__}): {name} must be {wanted}, got {value!r}")


_TYPE_WORDS = {int: "an int", float: "a number", bool: "true or false", str: "a string", type(None): "none"}


def _parameter_types(cls: type[Strategy]) -> dict[str, tuple[type, ...]]:
    """The simple types (int, float, bool, str, None) each constructor parameter accepts, from its annotation
    or, without one, from its default; parameters of other types are not checked here."""
    try:
        hints = typing.get_type_hints(cls.__init__)
    except Exception:  # an annotation that does not resolve: fall back to the defaults
        hints = {}
    found: dict[str, tuple[type, ...]] = {}
    for name, default in parameters(cls).items():
        hint = hints.get(name)
        if hint is not None:
            options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        elif default is not inspect.Parameter.empty and default is not None:
            options = (type(default),)
        else:
            continue
        if options and all(o in _TYPE_WORDS for o in options):
            found[name] = tuple(options)
    return found


def _is_a(value: Any, kinds: tuple[type, ...]) -> bool:
    """TOML values against simple types: an int is not a bool, a number may be an int."""
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, int):
        return int in kinds or float in kinds
    return any(isinstance(value, k) for k in kinds if k is not bool)


def load_strategy(spec: str | type[Strategy], **params: Any) -> Strategy:
    """A new instance of the strategy ``spec`` names, built with keyword ``params``."""
    cls = resolve(spec)
    _check_params(cls, params, spec)
    try:
        return cls(**params)
    except (TypeError, ValueError) as err:
        raise ValueError(f"strategy {spec!r} ({cls.__name__}) rejected parameters {params!r}: {err}") from err


@dataclass(frozen=True)
class StrategyFactory:
    """A picklable recipe for fresh instances: call it to get a new bot (one per game)."""

    spec: str
    params: dict[str, Any] = field(default_factory=dict)

    def __call__(self) -> Strategy:
        return load_strategy(self.spec, **self.params)

    @property
    def label(self) -> str:
        """The spec with its parameters, for tables: ``equity(rollouts=100)``."""
        args = ", ".join(f"{k}={v!r}" for k, v in sorted(self.params.items()))
        return f"{self.spec}({args})" if args else self.spec


def strategy_factory(spec: str, params: dict[str, Any] | None = None) -> StrategyFactory:
    """Check ``spec`` and ``params`` now (a bad one fails here, not in a worker) and return a factory."""
    factory = StrategyFactory(spec, dict(params or {}))
    load_strategy(spec, **factory.params)
    return factory
