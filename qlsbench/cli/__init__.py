"""The ``qlsbench`` command line.

Each command's arguments sit beside its handler in one module per job
(:mod:`~qlsbench.cli.datasets`, :mod:`~qlsbench.cli.solve`, :mod:`~qlsbench.cli.ship`,
:mod:`~qlsbench.cli.in_loop`, :mod:`~qlsbench.cli.solvers`, :mod:`~qlsbench.cli.leaderboard`,
:mod:`~qlsbench.cli.board`, :mod:`~qlsbench.cli.config_check`, :mod:`~qlsbench.cli.pauli`,
:mod:`~qlsbench.cli.estimates`, :mod:`~qlsbench.cli.figures`), each listing its commands in ``COMMANDS``
(:class:`~qlsbench.cli.base.Command`); this module only puts them together and
runs one. Only the command being run gets its arguments, and with them the
imports they need, so ``qlsbench --help`` and ``qlsbench solvers`` answer at
once. Errors a user can cause print as one line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from qlsbench.cli import (
    board,
    config_check,
    datasets,
    estimates,
    figures,
    in_loop,
    leaderboard,
    pauli,
    ship,
    solve,
    solvers,
)
from qlsbench.cli.base import Command
from qlsbench.environment_variables import check_environment
from qlsbench.interrupts import INTERRUPTED_CODE, INTERRUPTED_STARTING, interrupts_as_usual

#: The command modules, in the order ``qlsbench --help`` lists their commands.
COMMAND_MODULES = (datasets, solve, ship, in_loop, solvers, leaderboard, board, config_check, pauli, estimates, figures)


class _Parser(argparse.ArgumentParser):
    """Usage mistakes in one line, like every other error (``--help`` has the rest)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _thread_count(text: str) -> int:
    from qlsbench.threads import THREADS

    return THREADS.parse(text)


def commands() -> list[Command]:
    """Every command, in the order ``qlsbench --help`` lists them."""
    return [command for module in COMMAND_MODULES for command in module.COMMANDS]


def build_parser(complete: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The ``qlsbench`` parser: its global options and every command.

    Parameters
    ----------
    complete : iterable of str, optional
        The commands that get their arguments (and ``--help``), importing
        what they need; the others are a name and a line of help, enough to
        list them and to tell which one a command line names. Default: all.
    """
    p = _Parser(
        prog="qlsbench",
        description="Datasets and benchmarks for quantum and quantum-inspired linear "
        "solvers. `qlsbench COMMAND --help` describes a command.",
    )
    p.add_argument(
        "--threads",
        type=_thread_count,
        metavar="N",
        help="most threads for compiled kernels and BLAS (default: $QLSBENCH_THREADS, else every core)",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    table = commands()
    chosen = {c.name for c in table} if complete is None else set(complete)
    for command in table:
        s = sub.add_parser(command.name, help=command.help, description=command.help, add_help=command.name in chosen)
        if command.name in chosen:
            command.arguments(s)
    return p


def _named_command(argv: list[str]) -> str:
    """The command ``argv`` names, found by the parser whose commands have no arguments yet.

    Global usage errors and ``qlsbench --help`` leave from here (``SystemExit``); everything after the
    command's name is left for its own parser.
    """
    args, _ = build_parser(complete=()).parse_known_args(argv)
    return args.command


def _paths(args, name: str) -> list:
    """The paths argument ``name`` holds: none, one, or a list of them."""
    value = getattr(args, name, None)
    return value if isinstance(value, list) else [value] if value else []


def _check_outputs(args) -> None:
    """Every output of the command can be written and is none of its inputs (before any work is done).

    A command's parser names them: ``writes`` as ``(argument, option, kind)``
    and ``reads`` as the arguments naming what it reads
    (:func:`qlsbench.outputs.check_output`).
    """
    from qlsbench.outputs import check_output

    inputs = tuple(path for name in getattr(args, "reads", []) for path in _paths(args, name))
    for name, option, kind in getattr(args, "writes", []):
        for path in _paths(args, name):
            check_output(path, option, kind=kind, inputs=inputs)


def _absent_outputs(args) -> list[Path]:
    """The command's outputs (``writes``) that do not exist yet: what a failed run may remove again."""
    return [
        Path(path)
        for name, _, _ in getattr(args, "writes", [])
        for path in _paths(args, name)
        if not Path(path).exists()
    ]


def _remove_empty(paths: list[Path]) -> None:
    """Remove the folders among ``paths`` (made by a run that then failed) that hold nothing: a failed run leaves
    no empty output behind (files are written whole or not at all)."""
    for path in paths:
        try:
            path.rmdir()  # only an empty folder
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``qlsbench`` console script."""
    from qlsbench.errors import QlsbenchError, refused_write

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        interrupts_as_usual()  # from here on an interrupt is a KeyboardInterrupt, each command's to turn into a line
        args = build_parser(complete=[_named_command(argv)]).parse_args(argv)
    except SystemExit as exc:  # a usage error (one line, already printed) or --help: return its code like any other
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:  # Ctrl-C while the command's modules load: nothing has run yet
        print(INTERRUPTED_STARTING, file=sys.stderr)
        return INTERRUPTED_CODE
    absent = _absent_outputs(args)
    try:
        check_environment()  # every variable qlsbench reads, whether this command reads it or not
        if args.threads is not None:
            from qlsbench.threads import set_threads

            set_threads(args.threads)
        _check_outputs(args)
        code = args.func(args)  # a command that found what it checks wrong returns its exit code
    except QlsbenchError as exc:
        _remove_empty(absent)
        print(f"qlsbench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _remove_empty(absent)
        print(f"qlsbench {args.command}: interrupted; nothing partial was written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`qlsbench info ... | head`): not an error of ours. Point stdout at devnull so
        # the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a write refused outside qlsbench's own writers (a library's cache, a log)
        refused = refused_write(exc)
        if refused is None:
            raise
        _remove_empty(absent)
        print(f"qlsbench {args.command}: error: {refused}", file=sys.stderr)
        return 2
    return code or 0


if __name__ == "__main__":
    sys.exit(main())
