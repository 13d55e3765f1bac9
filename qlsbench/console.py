"""The ``qlsbench`` program's entry (the console script and ``python -m qlsbench``): it takes interrupts before the
command line loads (:mod:`qlsbench.interrupts`), then runs :func:`qlsbench.cli.main`.

Loaded by the program itself, this module takes SIGINT at once, so an interrupt while the command line's modules
load (or in the console script's own line before :func:`main`) is one line and exit 130. Imported by anything else
(a test, a notebook), it changes no handler.
"""

from __future__ import annotations

import sys
from pathlib import Path

from qlsbench.interrupts import INTERRUPTED_CODE, INTERRUPTED_STARTING, take_interrupts_while_starting


def _loaded_by_the_program() -> bool:
    """Whether the running program is qlsbench's console script or ``python -m qlsbench``."""
    program = sys.modules.get("__main__")
    spec = getattr(program, "__spec__", None)
    if spec is not None and spec.name == "qlsbench.__main__":
        return True
    return Path(getattr(program, "__file__", "") or "").name == "qlsbench"


def main() -> int:
    """Load the command line and run it; an interrupt while it loads is one line and exit 130."""
    try:
        from qlsbench.cli import main as run
    except KeyboardInterrupt:  # loaded by something other than the program: Python's handler was in place
        print(INTERRUPTED_STARTING, file=sys.stderr)
        return INTERRUPTED_CODE
    return run()


if _loaded_by_the_program():
    take_interrupts_while_starting()


__all__ = ["main"]
