"""Ctrl-C before a command has run: one line and exit 130, from the program's first instructions on.

Loading :mod:`qlsbench.cli` (argparse, every command's options, the environment checks) takes a tenth of a
second or more, and the console script pip writes runs a line of its own before calling the program's ``main``.
An interrupt in that time used to end in the interpreter's ``KeyboardInterrupt`` traceback and exit -2.
:mod:`qlsbench.console`, loaded by the program, calls :func:`take_interrupts_while_starting`;
:func:`qlsbench.cli.main` calls :func:`interrupts_as_usual` as the first thing it does, after which every command
turns a ``KeyboardInterrupt`` into its own one line. Only the interpreter's own start, before any of qlsbench runs,
is left.
"""

from __future__ import annotations

import signal
import sys

#: What an interrupt before the command has run says (one line), and its exit code (128 + SIGINT).
INTERRUPTED_STARTING, INTERRUPTED_CODE = "qlsbench: interrupted while starting; nothing was run", 130


def _interrupted_starting(signum, frame) -> None:
    """SIGINT before the command line runs: one line, then exit 130 (``SystemExit`` unwinds without a traceback)."""
    sys.stderr.write(INTERRUPTED_STARTING + "\n")
    raise SystemExit(INTERRUPTED_CODE)


def take_interrupts_while_starting() -> None:
    """From now until :func:`interrupts_as_usual`, SIGINT is one line and exit 130."""
    signal.signal(signal.SIGINT, _interrupted_starting)


def interrupts_as_usual() -> None:
    """Give SIGINT back to Python (``KeyboardInterrupt``) if :func:`take_interrupts_while_starting` had taken it;
    else change nothing (a caller of :func:`qlsbench.cli.main` keeps its own handler)."""
    if signal.getsignal(signal.SIGINT) is _interrupted_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)


__all__ = ["INTERRUPTED_CODE", "INTERRUPTED_STARTING", "interrupts_as_usual", "take_interrupts_while_starting"]
