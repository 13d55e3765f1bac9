"""Ranking results files: ``leaderboard`` ranks solvers from results files and writes the leaderboard page."""

from __future__ import annotations

from qlsbench.checks import Real
from qlsbench.cli.base import Command
from qlsbench.cli.options import add_options, given_options


def cmd_leaderboard(args) -> None:
    from qlsbench.bench import leaderboard, load_results
    from qlsbench.report._leaderboard_page import LeaderboardOptions, write_leaderboard

    tol, low = LeaderboardOptions.from_mapping(given_options(args, LeaderboardOptions)).tolerances()
    results = load_results(args.results)
    extra = None
    if args.estimates:
        from qlsbench.report._resource_figures import estimate_blocks, read_resources

        extra = estimate_blocks(read_resources(args.estimates), args.epsilon)
    write_leaderboard(results, args.md, args.csv, tol, low, html_path=args.html, extra=extra)
    print(leaderboard(results, tol, low).to_string(index=False))


def _arguments_leaderboard(s) -> None:
    from qlsbench.report._leaderboard_page import LeaderboardOptions

    s.add_argument("results", nargs="+", help="results files or folders")
    s.add_argument("--md", default="results/leaderboard.md")
    s.add_argument("--csv", default="results/leaderboard.csv")
    s.add_argument(
        "--html",
        default=None,
        help="also write the page as HTML (the workflow's report shows it), its downloads in <name>-data/ beside it",
    )
    s.add_argument(
        "--estimates",
        nargs="+",
        default=None,
        metavar="FILE",
        help="`qlsbench resources` tables: add what a fault-tolerant solver would cost, per family",
    )
    s.add_argument(
        "--epsilon",
        type=Real(0.0, 1.0, open_low=True, open_high=True).parse,
        default=1e-6,
        help="the estimates' target error (default 1e-6)",
    )
    add_options(s, [LeaderboardOptions])
    s.set_defaults(
        func=cmd_leaderboard,
        writes=[("md", "--md", "file"), ("csv", "--csv", "file"), ("html", "--html", "file")],
        reads=["results", "estimates"],
    )


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command("leaderboard", "rank solvers from results files (and write the leaderboard page)", _arguments_leaderboard),
)

__all__ = ["COMMANDS"]
