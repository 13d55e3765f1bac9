"""What solvers there are: ``solvers`` lists them, plug-ins included, and with a name shows one solver's options."""

from __future__ import annotations

from qlsbench.cli.base import Command
from qlsbench.cli.options import import_from_cwd


def cmd_solvers(args) -> None:
    from qlsbench.solvers import available, describe

    if args.name:
        _print_solver(args.name)
        return
    for name in available():
        print(f"{name:12s} {describe(name)}")


def _print_solver(name: str) -> None:
    """A solver's summary, then its options as a table (:func:`_option_table`)."""
    import shutil

    from qlsbench.solvers.registry import describe, options_of

    import_from_cwd(name)
    options = options_of(name)
    print(f"{name}: {describe(name) or 'no description'}")
    if not options:
        print("options: none")
        return
    print("options (--option NAME=VALUE; in a workflow config, under the solver's options:)")
    for line in _option_table(options, shutil.get_terminal_size((100, 24)).columns):
        print(line)


def _option_table(options, width: int) -> list[str]:
    """One row per option (name, type, default, meaning), the meaning wrapped to ``width`` under its column."""
    import textwrap

    header = ("name", "type", "default")
    rows = [(o.name, o.type, _default_text(o.default), o.help) for o in options]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    indent = 2 + sum(w + 2 for w in widths)  # where the meaning column starts
    lines = ["  " + "  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  meaning"]
    for row in rows:
        meaning = textwrap.wrap(row[3], max(width - indent, 30), break_on_hyphens=False) or [""]
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + meaning[0])
        lines += [" " * indent + more for more in meaning[1:]]
    return lines


def _default_text(default) -> str:
    """How ``qlsbench solvers NAME`` shows a default: ``required`` when there is none, ``none`` for ``None``."""
    import dataclasses

    if default is dataclasses.MISSING:
        return "required"
    if default is None:
        return "none"
    return f"{default:g}" if isinstance(default, float) else str(default)


def _arguments_solvers(s) -> None:
    s.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help="a solver (registered name, entry point or module:Class): list its options, with their "
        "types, defaults and meanings",
    )
    s.set_defaults(func=cmd_solvers)


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command("solvers", "list the solvers, plug-ins included; with a NAME, that solver's options", _arguments_solvers),
)

__all__ = ["COMMANDS"]
