"""Processes that end with the process that started them.

A parent killed outright (SIGKILL, the OOM killer, a cluster's wall-time
limit) runs no clean-up, so nothing it would do on the way out can stop its
children: a solver's worker would solve on for nobody, then block on a pipe to
the dead parent, holding the caller's output pipes open for as long as it
lives. Every process qlsbench starts therefore asks, first thing, to die with
its parent:

- a :mod:`multiprocessing` child (a time-limited solve's worker, an in-loop
  run's worker) calls :func:`exit_with_parent` when it starts;
- a program run by :mod:`subprocess` gets ``preexec_fn=ends_with_this_process()``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
from collections.abc import Callable


def exit_with_parent() -> None:
    """End this :mod:`multiprocessing` child the moment its parent process dies.

    On Linux the kernel kills the child when its parent ends (``PR_SET_PDEATHSIG``): a solve inside one long
    C call holds the interpreter lock, and no Python thread of the child could act until it returns.
    Elsewhere, and as a second guard, a thread waits on the parent's sentinel, which becomes readable when
    the parent is gone. A no-op in a process that multiprocessing did not start.
    """
    import multiprocessing as mp
    import threading
    from multiprocessing.connection import wait

    parent = mp.parent_process()
    if parent is None or parent.pid is None:
        return
    kernel_ends_us_with(parent.pid)

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)  # nobody is left to read a result or an error

    threading.Thread(target=watch, name="qlsbench-parent-watch", daemon=True).start()


def kernel_ends_us_with(parent_pid: int) -> None:
    """Ask Linux to SIGKILL this process when its parent ends; a no-op where ``prctl`` is not there.

    The request only holds for a parent alive when it is made: one that ended before it ends this process
    here and now.
    """
    prctl = _prctl()
    if prctl is None:
        return
    prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent_pid:  # the parent ended before the request: the kernel will not send it now
        os._exit(0)


@functools.cache
def _prctl():
    """libc's ``prctl`` (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def ends_with_this_process() -> Callable[[], None]:
    """A ``preexec_fn`` for :mod:`subprocess`: the program it starts is killed when this process ends (Linux).

    Made in the parent: ``prctl`` is looked up here, so the forked child loads no library (a lock another
    thread held at the fork would never be let go there), and the child compares its parent with this pid.
    """
    _prctl()
    return functools.partial(kernel_ends_us_with, os.getpid())


__all__ = ["ends_with_this_process", "exit_with_parent", "kernel_ends_us_with"]
