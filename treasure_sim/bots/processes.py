"""Child processes that never outlive the run: workers and isolated bots die with their parent."""

from __future__ import annotations

import os
import signal
import threading
import time

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def exit_with_parent(parent: int) -> None:
    """Make this worker die when the process that started it dies, even by SIGKILL.

    On Linux the kernel sends the worker SIGKILL when its parent thread exits (``prctl``); elsewhere a
    daemon thread checks once a second whether the parent is still there. Either way a killed run leaves
    no orphans playing games.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl")
    except (OSError, AttributeError):
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the request above
        os._exit(1)
