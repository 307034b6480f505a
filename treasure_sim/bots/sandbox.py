"""The sandbox an isolated bot's process runs in (Linux, when the engine runs as root; else plain process isolation).

The bot is started as::

    unshare --pid --fork --kill-child --mount-proc  setpriv --reuid U --regid U --clear-groups --no-new-privs
            --pdeathsig KILL --inh-caps -all --bounding-set -all  COMMAND...

from a child that first (`preexec`): starts a session of its own, sets the rlimits (address space with
``memory_mb``, no core files, 256 open files, 64 processes, files of at most 64 MB), enters new mount, network, IPC
and UTS namespaces, and there mounts a fresh private tmpfs (64 MB) on ``/tmp``, ``/var/tmp``, ``/dev/shm`` and
``/run/lock`` (the only places the bot can write), an empty tmpfs over any directory others cannot enter on the
way to what the bot needs (``/root``: the Python it runs, its own file, the engine's working directory are bound
back read-only), and asks to be killed with its parent. So the bot:

- runs as a user id of its own (``UID_BASE`` + a number unique among the live bots of a machine), without
  capabilities or a way to gain them: it cannot signal, trace or read the engine's processes (which run as root)
  nor any other bot's; in its own PID namespace it sees only its own processes;
- writes only to its private tmpfs, which no other process shares, which dies with it and which the engine
  wipes before each game it plays (`wipe`); nothing it writes reaches another game with the same cards;
- has no network: a new network namespace holds only a loopback interface that is down;
- takes every process it starts with it: it is PID 1 of its namespace, so when it dies (killed with its parent,
  or by the engine) the kernel kills every process in it.

What it cannot do: hide the files every user may read (the installed Python, the project, results folders other
users may read: make those private when untrusted bots run sweeps); limit CPU (the decision time limit does);
work without root, ``unshare`` and ``setpriv`` (util-linux): then `available` says why, and isolated bots run as
the engine's user in their own session, as before.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import shutil
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .processes import exit_with_parent

UID_BASE = 100_000
PRIVATE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
SCRATCH_MB = 64
MAX_FILE_MB = 64
MAX_PROCESSES = 64
MAX_FILES = 256
_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC, _CLONE_NEWNET = 0x00020000, 0x04000000, 0x08000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
_O_PATH = getattr(os, "O_PATH", 0o10000000)
_counter = itertools.count()
_AVAILABLE: list[str | None] = []  # the probe's answer: None when the sandbox works, else why not


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _blocked(path: str) -> tuple[str, str] | None:
    """(the first ancestor of ``path`` others cannot enter, its child on the way to ``path``), or None."""
    parts = Path(path).parts
    for i in range(1, len(parts) - 1):
        ancestor = os.path.join(*parts[:i + 1])
        try:
            mode = os.stat(ancestor).st_mode
        except OSError:
            return None
        if not mode & stat.S_IXOTH:
            return ancestor, os.path.join(ancestor, parts[i + 1])
    return None


def _under(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def needed_paths(command: Sequence[str]) -> list[str]:
    """What the bot must see: the Python prefixes and import path (the host of a Python bot), treasure-sim's own
    packages (the bot host imports them; not the project folder around them, which may hold results), the command's
    existing paths (a script, a bot file: their folders, or the file alone in a folder others may not read), and
    the engine's working directory."""
    paths = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                           os.path.dirname(os.path.realpath(sys.executable)), os.getcwd())}
    paths.update(os.path.realpath(p) for p in sys.path if p and os.path.isdir(p))
    root = Path(__file__).resolve().parents[2]  # an editable install finds these two packages here, not on sys.path
    paths.update(str(root / package) for package in ("treasure_sim", "strategies") if (root / package).is_dir())
    for arg in command:
        for part in (arg, arg.split(":", 1)[0]):  # a strategy spec "path/file.py:Class"
            if part and os.path.exists(part):
                real = os.path.realpath(part)
                folder = real if os.path.isdir(real) else os.path.dirname(real)
                open_to_all = os.stat(folder).st_mode & (stat.S_IROTH | stat.S_IXOTH) == stat.S_IROTH | stat.S_IXOTH
                paths.add(folder if open_to_all else real)  # a private folder: only the file itself
    found = shutil.which(command[0]) if command else None
    if found:
        paths.add(os.path.dirname(os.path.realpath(found)))
    return sorted(p for p in paths if p not in ("/", ""))


def available() -> str | None:
    """None if bots can be sandboxed here, else why not (once per process: a probe starts ``true`` in it)."""
    if not _AVAILABLE:
        _AVAILABLE.append(_probe())
    return _AVAILABLE[0]


def _probe() -> str | None:
    import subprocess

    if not sys.platform.startswith("linux"):
        return f"only on Linux (this is {sys.platform})"
    if os.geteuid() != 0:
        return "the engine does not run as root (it needs to switch the bot to a user of its own)"
    for tool in ("unshare", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} (util-linux) is not installed"
    argv, preexec, env, _ = wrap(("true",), None, os.getpid())
    try:
        done = subprocess.run(argv, preexec_fn=preexec, env=env, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as err:
        return f"the sandbox could not start a process: {err}"
    if done.returncode != 0:
        return f"the sandbox could not start a process: {done.stderr.decode(errors='replace').strip()[:200]}"
    return None


def wrap(command: Sequence[str], memory_mb: int | None,
         parent: int) -> tuple[list[str], Callable[[], None], dict[str, str], list[str]]:
    """(argv, preexec_fn, environment, the paths bound into its scratch space) that run ``command`` in the
    sandbox."""
    uid = UID_BASE + (os.getpid() % 100_000) * 100 + next(_counter) % 100
    needed = needed_paths(command)
    hidden = sorted({b[0] for p in needed if (b := _blocked(p)) is not None and not _under(b[0], PRIVATE)})
    exposed = [p for p in needed if _under(p, [*PRIVATE, *hidden])]
    exposed = [p for p in exposed if not any(q != p and _under(p, [q]) for q in exposed)]  # a bound folder: all in it
    argv = ["unshare", "--pid", "--fork", "--kill-child=KILL", "--mount-proc", "--",
            "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs", "--pdeathsig=KILL",
            "--inh-caps=-all", "--bounding-set=-all", "--", *command]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "TMPDIR": "/tmp",
           "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    libc = _libc()

    def preexec() -> None:
        os.setsid()  # Ctrl-C at the terminal is the engine's to handle
        limits(memory_mb)
        _check(libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS), "unshare")
        _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
        fds = [os.open(p, _O_PATH) for p in exposed]  # what to bind back, opened before it is hidden
        for target in PRIVATE:
            if os.path.isdir(target):
                options = f"size={SCRATCH_MB}m,mode=1777".encode()
                _check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options),
                       f"mount tmpfs on {target}")
        for target in hidden:
            _check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=1m,mode=755"),
                   f"mount tmpfs on {target}")
        for path, fd in zip(exposed, fds, strict=True):
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(path, mode=0o755, exist_ok=True)
            else:  # a file: its folders, and an empty file to bind it on
                os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
                if not os.path.exists(path):
                    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
            source = f"/proc/self/fd/{fd}".encode()
            _check(libc.mount(source, path.encode(), None, _MS_BIND | _MS_REC, None), f"bind {path}")
            _check(libc.mount(None, path.encode(), None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID, None),
                   f"read-only {path}")
            os.close(fd)
        exit_with_parent(parent)

    return argv, preexec, env, [p for p in exposed if _under(p, PRIVATE)]


def limits(memory_mb: int | None) -> None:
    """The rlimits of a bot's process (and of everything it starts)."""
    import resource

    if memory_mb is not None:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_FILES, MAX_FILES))
    resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_MB << 20, MAX_FILE_MB << 20))


def wipe(pid: int, keep: Sequence[str] = ()) -> None:
    """Empty the private tmpfs of the sandbox whose outer process is ``pid`` (before each game it plays), but for
    ``keep``: what was bound into it (the bot's own file), and the folders on the way."""
    for target in PRIVATE:
        _empty(f"/proc/{pid}/root", target, keep)


def _empty(root: str, folder: str, keep: Sequence[str]) -> None:
    try:
        entries = list(os.scandir(root + folder))
    except OSError:
        return
    for entry in entries:
        inside = os.path.join(folder, entry.name)
        if inside in keep:
            continue
        try:
            if any(k.startswith(inside + "/") for k in keep):
                _empty(root, inside, keep)
            elif entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass
