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

What such a program starts in turn is beyond that request (the kernel sends the
parent-death signal to one process, not its children), and a descendant that
holds the program's output pipes keeps a reader waiting for as long as it
lives. A program run by :func:`run_program` therefore runs in a session of its
own, its output goes to files, and when it ends (answer, error, time-out or
interrupt) every process of its session ends too, with every descendant that
left the session and was handed to this process (a child subreaper) when its
parent died. :func:`end_orphans` does the same for a worker killed at its time
limit: what the worker started comes to the process that killed it.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


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


#: ``prctl`` option: orphaned descendants of this process are handed to it, not to init.
_PR_SET_CHILD_SUBREAPER = 36
#: How long :func:`end_orphans` watches for descendants still being handed over (the kernel ends a killed
#: worker's program by its parent-death signal, asynchronously, and only then are that program's children orphans).
ORPHAN_SETTLE_SECONDS = 1.0


@dataclass(frozen=True)
class Finished:
    """How a program run by :func:`run_program` ended: its exit code (negative: the signal) and its output."""

    returncode: int
    stdout: str
    stderr: str


def become_subreaper() -> None:
    """Make this process the one its orphaned descendants are handed to (Linux; elsewhere a no-op), so that
    :func:`run_program` and :func:`end_orphans` can find and end them."""
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def run_program(argv: Sequence[str], *, timeout: float | None = None) -> Finished:
    """Run ``argv`` to its end with nothing on its standard input; whatever it started ends with it.

    The program runs in a session of its own and dies with this process; its output goes to temporary files, so
    its own exit ends the wait whatever still holds them (a child it left running neither delays the answer nor
    counts in the time it took). When it has ended, or on a time-out or an interrupt here, every process of its
    session is killed, and every descendant that left the session and was handed to this process.

    Raises
    ------
    subprocess.TimeoutExpired
        Past ``timeout`` seconds, once everything is ended.
    """
    become_subreaper()
    before = _children(os.getpid())
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        program = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=ends_with_this_process(),
        )
        try:
            code = program.wait(timeout)
        finally:
            _end(program, before)
        out.seek(0)
        err.seek(0)
        return Finished(code, out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def _end(program: subprocess.Popen, before: set[int]) -> None:
    """Kill ``program`` if it still runs, every process of its session, and the orphans handed here since."""
    if program.poll() is None:
        program.kill()
        program.wait()
    for _ in range(200):  # a process that forks as it is killed can leave one more behind, a few times at most
        if not _kill(_session(program.pid) | _orphans(before)):
            return
        time.sleep(0.005)


def end_orphans(before: set[int], settle: float = ORPHAN_SETTLE_SECONDS) -> None:
    """Kill the descendants handed to this process (a subreaper) since ``before`` (:func:`children_now`) and the
    processes of their sessions, watching ``settle`` seconds for more: after a worker is killed, what its program
    started arrives here only once the kernel has ended that program."""
    end = time.monotonic() + settle
    ours = os.getsid(0)  # an orphan still in this process's session (a solver's plain child): it alone is ended
    while True:
        orphans = _orphans(before)
        sessions = {_session_of(orphan) for orphan in orphans} - {ours}
        _kill(orphans | {pid for session in sessions for pid in _session(session)})
        if time.monotonic() >= end:
            return
        time.sleep(0.02)


def children_now() -> set[int]:
    """This process's children now: what :func:`end_orphans` leaves alone."""
    return _children(os.getpid())


def _processes() -> list[tuple[int, str, int, int]]:
    """Every process as ``(pid, state, parent, session)``, from ``/proc`` (empty where there is none)."""
    found: list[tuple[int, str, int, int]] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
        except OSError:  # it ended between the listing and the read
            continue
        found.append((int(name), fields[0].decode(), int(fields[1]), int(fields[3])))
    return found


def _children(pid: int) -> set[int]:
    """``pid``'s children: from its threads' ``children`` lists where the kernel keeps them (a few small files
    against every process of the machine), else from the whole table."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        found: set[int] = set()
        for task in tasks:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.update(int(child) for child in handle.read().split())
        return found
    except (OSError, ValueError):
        return {child for child, _, parent, _ in _processes() if parent == pid}


def _orphans(before: set[int]) -> set[int]:
    """Children of this process that it did not have before: descendants handed to it as their parents died."""
    return _children(os.getpid()) - before


def _session(session: int | None) -> set[int]:
    """The live processes of ``session`` (its leader's pid)."""
    if session is None or session <= 1:
        return set()
    return {pid for pid, state, _, sid in _processes() if sid == session and state != "Z"}


def _session_of(pid: int) -> int | None:
    for other, _, _, sid in _processes():
        if other == pid:
            return sid
    return None


def _kill(pids: set[int]) -> bool:
    """SIGKILL ``pids`` (never this process) and collect those that are this process's children; whether there
    were any alive."""
    me, alive = os.getpid(), False
    for pid in pids - {me}:
        try:
            os.kill(pid, signal.SIGKILL)
            alive = True
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)  # an orphan handed here is ours to collect, or it stays a zombie
        except ChildProcessError:
            pass
    return alive


__all__ = [
    "Finished",
    "become_subreaper",
    "children_now",
    "end_orphans",
    "ends_with_this_process",
    "exit_with_parent",
    "kernel_ends_us_with",
    "run_program",
]
