"""One line of ours when a solver takes the process down in the middle of an in-process solve.

Nothing of Python runs after a fatal signal (``os.abort()``, a segfault in a
plug-in's C code), so the line cannot be printed by this process. Python's
fault handler still writes its report (the cause and the solver's frames): it
writes it into a pipe read by a small watcher process, which outlives us by
the moment it takes to see the pipe close. On a report, the watcher keeps it
in a file and prints one line naming the solver, the signal and the advice;
on a clean close it prints nothing.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import os
import subprocess
import sys
from pathlib import Path

#: The watcher: standard library only, started with ``-I`` (nothing of the user's or ours imported).
_WATCHER = r"""
import sys
label, report = sys.argv[1], sys.argv[2]
text = sys.stdin.buffer.read().decode("utf-8", "replace")
if text.strip():
    causes = {"Aborted": "SIGABRT", "Segmentation fault": "SIGSEGV", "Bus error": "SIGBUS",
              "Floating-point exception": "SIGFPE", "Illegal instruction": "SIGILL"}
    first = next((l for l in text.splitlines() if l.startswith("Fatal Python error:")), "")
    cause = first.partition(":")[2].strip()
    signal = causes.get(cause, cause or "a fatal signal")
    try:
        with open(report, "w", encoding="utf-8") as f:
            f.write(text)
        where = "its frames are in " + report
    except OSError as exc:
        where = "its frames could not be kept (" + str(exc) + ")"
    sys.stderr.write("qlsbench: solver " + label + " took the process down with " + signal + " mid-solve; " + where
                     + "; rerun with --time-limit to solve each system in a child process (a crash then becomes a "
                     + "'crashed' row and the run goes on), or rerun as is: the solve is retried in one\n")
"""


@contextlib.contextmanager
def fault_report(label: str, report: str | os.PathLike):
    """While solving in this process, turn a fatal signal's report into one line naming ``label`` (the report
    itself kept in ``report``); nothing is printed when the block ends normally."""
    read, write = os.pipe()
    try:
        watcher = subprocess.Popen(
            [sys.executable, "-I", "-c", _WATCHER, repr(label), str(Path(report))],
            stdin=read,
            stdout=subprocess.DEVNULL,
            close_fds=True,
        )
    except OSError:  # no process to spare: Python's own report on standard error, as before
        os.close(read)
        os.close(write)
        yield from _to_stderr()
        return
    os.close(read)
    sink = os.fdopen(write, "wb", buffering=0)
    was = faulthandler.is_enabled()
    faulthandler.enable(file=sink, all_threads=False)
    try:
        yield
    finally:
        faulthandler.disable()
        if was:  # whoever had it on (pytest) gets it back, on standard error
            _enable_on_stderr()
        sink.close()  # the watcher reads end of file with no report, and ends quietly
        watcher.wait()


def _to_stderr():
    was = faulthandler.is_enabled()
    if not _enable_on_stderr():
        yield
        return
    try:
        yield
    finally:
        if not was:
            faulthandler.disable()


def _enable_on_stderr() -> bool:
    try:
        faulthandler.enable(file=sys.stderr, all_threads=False)
        return True
    except (ValueError, OSError, AttributeError, io.UnsupportedOperation):  # no usable stderr (captured, closed)
        return False
