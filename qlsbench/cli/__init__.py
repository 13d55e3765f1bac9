"""The ``qlsbench`` command line.

Each command's parser sits beside its handler in one module per kind of
command (:mod:`~qlsbench.cli.datasets`, :mod:`~qlsbench.cli.solving`,
:mod:`~qlsbench.cli.figures`); this module only puts them together and runs
one. Heavy modules are imported inside each handler so ``qlsbench --help``
and ``qlsbench solvers`` start quickly. Errors a user can cause print as one
line.
"""

from __future__ import annotations

import argparse
import os
import sys

from qlsbench.cli import datasets, figures, solving
from qlsbench.errors import InputError

#: The command modules, in the order ``qlsbench --help`` lists their commands.
COMMAND_MODULES = (datasets, solving, figures)


class _Parser(argparse.ArgumentParser):
    """Usage mistakes in one line, like every other error (``--help`` has the rest)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")



def _thread_count(text: str) -> int:
    from qlsbench.threads import parse_threads

    try:
        return parse_threads(text, "--threads")
    except InputError:
        raise argparse.ArgumentTypeError(f"expected a whole number of threads >= 1, got {text!r}") from None



def build_parser() -> argparse.ArgumentParser:
    """The ``qlsbench`` parser: global options, then every command module's parsers."""
    p = _Parser(prog="qlsbench", description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=_thread_count, metavar="N",
                   help="most threads for compiled kernels and BLAS (default: $QLSBENCH_THREADS, else every core)")
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        for add in module.PARSERS:
            add(sub)
    return p


def _check_outputs(args) -> None:
    """Every output of the command can be written and is none of its inputs (before any work is done).

    A command's parser names them: ``writes`` as ``(argument, option, kind)``
    and ``reads`` as the arguments naming what it reads
    (:func:`qlsbench.outputs.check_output`).
    """
    from qlsbench.outputs import check_output

    inputs = []
    for name in getattr(args, "reads", []):
        value = getattr(args, name)
        inputs += value if isinstance(value, list) else [value] if value else []
    for name, option, kind in getattr(args, "writes", []):
        value = getattr(args, name)
        for path in value if isinstance(value, list) else [value] if value else []:
            check_output(path, option, kind=kind, inputs=tuple(inputs))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``qlsbench`` console script."""
    from qlsbench.errors import QlsbenchError

    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # a usage error (one line, already printed) or --help: return its code like any other
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.threads is not None:
            from qlsbench.threads import set_threads

            set_threads(args.threads)
        _check_outputs(args)
        code = args.func(args)  # a command that found what it checks wrong returns its exit code
    except QlsbenchError as exc:
        print(f"qlsbench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"qlsbench {args.command}: interrupted; nothing partial was written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`qlsbench info ... | head`): not an error of ours. Point stdout at devnull so
        # the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code or 0



if __name__ == "__main__":
    sys.exit(main())
