"""``qlsbench figure NAME``: draw any figure or table of the report (:func:`qlsbench.report.figures`: the built-in
ones and those registered under the ``qlsbench.figures`` entry point group)."""

from __future__ import annotations

from functools import partial

from qlsbench.cli.base import Command
from qlsbench.cli.options import add_options, given_options


def cmd_figure(figure, args) -> None:
    options = figure.options.from_mapping(given_options(args, figure.options))
    for out in args.out:
        print(f"wrote {figure(args.inputs, out, options)}")
    if figure.board_track is not None:
        print(board_reminder(figure.board_track))


def board_reminder(track: str) -> str:
    """What a page that shares its results files with the leaderboard's ``track`` says after it is drawn."""
    # The board keeps its own copy of each track (its tracks file), so a page drawn alone leaves it stale.
    return (
        f"the leaderboard's {track} track reads these results too: run `qlsbench board render` "
        "to bring its pages up to date"
    )


def _arguments_figure(s) -> None:
    from qlsbench.report import figures

    table = figures()
    s.description = f"{FIGURE_HELP}: {', '.join(table)}"
    names = s.add_subparsers(dest="figure", required=True, metavar="NAME")
    for figure in table.values():
        f = names.add_parser(figure.name, help=figure.summary, description=figure.summary)
        f.add_argument("inputs", nargs=1 if figure.single_input else "+", metavar="INPUT", help=figure.inputs)
        add_options(f, [figure.options])
        f.add_argument(
            "--out", nargs="+", required=True, metavar="PATH", help=f"output file(s): {', '.join(figure.formats)}"
        )
        f.set_defaults(
            func=partial(cmd_figure, figure),
            writes=[("out", "--out", "file")],
            reads=["inputs"] + [n for n, (spec, _) in figure.options.specs().items() if spec.path == "read"],
        )


#: ``qlsbench figure``'s line in ``qlsbench --help``; its own help lists the figures (importing the report).
FIGURE_HELP = "draw a figure or table of the report (qlsbench.report.figures(): built-ins and plug-ins)"

#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (Command("figure", FIGURE_HELP, _arguments_figure),)
