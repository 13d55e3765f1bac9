"""What a ``qlsbench`` command is: a name, one line of help, and the function that adds its arguments.

The command table lists every command by these alone, so ``qlsbench --help``
imports nothing a command needs; a command's arguments (and the modules they
need: option records, families, figures) are added only when it is the one
being run, or when the whole parser is built (:func:`qlsbench.cli.build_parser`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """One ``qlsbench`` command.

    Attributes
    ----------
    name : str
        What the user types (``qlsbench solve``).
    help : str
        One line, for ``qlsbench --help`` and as the description of the command's own ``--help``.
    arguments : callable
        ``arguments(parser)``: adds the command's arguments to its parser, and its handler as
        ``parser.set_defaults(func=...)``. It imports what it needs itself.
    """

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]


__all__ = ["Command"]
