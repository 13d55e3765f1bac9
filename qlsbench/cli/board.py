"""The pinned board: ``board ACTION`` (pin, run, publish, render, add, verify) and ``compare``, which ranks a new
solver against it and writes the submission ``board add`` and ``board verify`` take."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

from qlsbench.checks import COUNT, SEED, TIME_LIMIT, Whole
from qlsbench.cli.base import Command
from qlsbench.cli.options import (
    MAX_REPEATS,
    add_solver_arguments,
    import_from_cwd,
    solver_spec,
)
from qlsbench.text import plural


def _board(args):
    from qlsbench.bench.board.folder import DEFAULT_BOARD, Board

    return Board(Path(args.board) if args.board else DEFAULT_BOARD)


def cmd_board_pin(args) -> None:
    from qlsbench.bench.board.pinning import pin

    board = _board(args)
    manifest = pin(board, progress=not args.quiet, groups=args.group)
    print(
        f"pinned {plural(len(manifest['systems']), 'system')} in {plural(len(manifest['groups']), 'group')} -> "
        f"{board.folder}"
    )


def cmd_board_run(args) -> None:
    from qlsbench.bench.board.running import run_board

    files = run_board(_board(args), args.results, progress=not args.quiet, groups=args.group)
    print(f"{plural(len(files), 'results file')} in {args.results}")


def cmd_board_publish(args) -> None:
    from qlsbench.report._board_pages import publish

    board = _board(args)
    results = publish(
        board,
        args.results,
        args.pages,
        in_loop=_in_loop_files(args),
        noisy=_noisy_files(args),
        local=args.submissions,
        progress=not args.quiet,
    )
    print(
        f"published {plural(len(results), 'solve')} of {plural(results['solver'].nunique(), 'solver')} -> "
        f"{board.results_path}, {Path(args.pages) / 'index.html'}"
    )


def cmd_board_render(args) -> None:
    from qlsbench.report._board_pages import render_board

    board = _board(args)
    render_board(
        board,
        pages=args.pages,
        in_loop=_in_loop_files(args),
        noisy=_noisy_files(args),
        local=args.submissions,
        progress=not args.quiet,
        keep_tracks=True,
    )
    print(f"pages rewritten from {board.results_path} in {args.pages}")


def cmd_board_add(args) -> None:
    """``board add``: the pages are rendered with the submission first, from a view of the submissions folder with
    it added; the submission enters the folder (one rename) only after they are written. A run killed at any
    moment leaves the folder as it was, so the same ``board add`` runs again; its view is swept by the next."""
    from qlsbench.bench.board.submissions import addition, keep_submission
    from qlsbench.report import render_board, self_submission_pages

    board = _board(args)
    pages = self_submission_pages(args.pages)
    moved = pages != Path(args.pages)
    kept = addition(board, args.submission, args.submissions)
    with _with_added(Path(args.submissions), Path(args.submission), kept) as view:
        render_board(
            board,
            pages=pages,
            in_loop=_in_loop_files(args),
            noisy=_noisy_files(args),
            local=view,
            progress=not args.quiet,
        )
        keep_submission(args.submission, kept)
    print(
        f"added {args.submission} as {kept} (self-submitted: on your pages, not the published board; "
        f"contrib/README.md says how it reaches the published one); pages rewritten in {os.path.relpath(pages)}"
        + (f" ({args.pages} holds the published board, shipped with the clone: left as it is)" if moved else "")
    )


@contextlib.contextmanager
def _with_added(folder: Path, submission: Path, kept: Path):
    """A temporary folder beside the submissions (``folder/.adding.<pid>-*``) holding copies of them and of
    ``submission`` as ``kept``'s name; removed on leaving, and ``folder`` itself if it was made for it."""
    from qlsbench.bench.board.submissions import local_files
    from qlsbench.outputs import owned_temporary_folder

    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    view = owned_temporary_folder(folder, ".adding.")
    try:
        for path in local_files(folder):
            shutil.copyfile(path, view / path.name)
        shutil.copyfile(submission, view / kept.name)
        yield view
    finally:
        shutil.rmtree(view, ignore_errors=True)
        if made and not any(folder.iterdir()):
            folder.rmdir()


def cmd_board_verify(args) -> int:
    """``board verify``: re-run a sample of a submission's systems; exit code 1 when any disagrees.

    A ``module:Class`` solver is imported from the current folder first, as ``compare`` imports it, so the
    folder a submission was made in verifies it.
    """
    from qlsbench.bench.board.submissions import read_submission, verify_submission

    import_from_cwd(read_submission(args.submission)[1]["name"])
    table = verify_submission(
        _board(args), args.submission, sample=args.sample, work=Path("results") / "verify", progress=not args.quiet
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    bad = int((~table["agrees"]).sum())
    if bad:
        print(
            f"qlsbench board verify: {args.submission}: {bad} of {plural(len(table), 're-run system')} disagree "
            "with the submission",
            file=sys.stderr,
        )
        return 1
    print(f"{args.submission}: all {plural(len(table), 're-run system')} agree with the submission")
    return 0


def _track_files(given: list[str], option: str) -> list[str]:
    """Parquet files of a track: files as given, folders searched (``*.parquet``); a missing path is refused."""
    files = []
    for name in given:
        path = Path(name)
        if path.is_dir():
            files += sorted(str(p) for p in path.glob("*.parquet"))
        elif path.is_file():
            files.append(str(path))
        else:
            from qlsbench.errors import InputError

            raise InputError(f"{option} {name}: no such file or folder (--no-tracks leaves the extra tracks out)")
    return files


def _in_loop_files(args) -> list[str] | str | None:
    """The physics track's in-loop results files, the board's published track, or none with ``--no-tracks``."""
    return _track(args, args.in_loop, "--in-loop", "docs/in-loop")


def _noisy_files(args) -> list[str] | str | None:
    """The noisy track's device results files, the board's published track, or none with ``--no-tracks``."""
    return _track(args, args.noisy, "--noisy", "docs/noisy")


def _track(args, given: list[str] | None, option: str, default: str) -> list[str] | str | None:
    """Given paths (each must exist), else the default folder when this checkout has it, else the track as the
    board published it (its tracks file, shipped with the package: the same track from any folder), else none."""
    from qlsbench.report._board_pages import PUBLISHED_TRACK, tracks_path

    if args.no_tracks:
        return None
    if given is not None:
        return _track_files(given, option)
    if Path(default).is_dir():
        return _track_files([default], option)
    return PUBLISHED_TRACK if tracks_path(_board(args)).is_file() else None


def _arguments_board(s) -> None:
    """``qlsbench board ACTION``: each action a command of its own, with only the options it takes."""
    actions = s.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, help_text, add in BOARD_ACTIONS:
        a = actions.add_parser(name, help=help_text, description=help_text)
        a.add_argument("--board", help="board folder (default: the one shipped in qlsbench/pinned)")
        add(a)


def _board_pin(a) -> None:
    _group_option(a, "pin only this group (repeatable); every other group is kept as it is")
    a.add_argument("--quiet", action="store_true", help="no progress bars")
    a.set_defaults(func=cmd_board_pin)


def _board_run(a) -> None:
    _results_option(a, "folder the board's results files are written to (resumed when there)")
    _group_option(a, "run only on this group (repeatable)")
    a.add_argument("--quiet", action="store_true", help="no progress bars")
    a.set_defaults(func=cmd_board_run, writes=[("results", "--results", "folder")])


def _board_publish(a) -> None:
    _results_option(a, "folder of the board's results files (`qlsbench board run` wrote them)")
    _page_options(a)
    a.set_defaults(func=cmd_board_publish, reads=["results", "in_loop", "noisy"])


def _board_render(a) -> None:
    _page_options(a)
    a.set_defaults(func=cmd_board_render)


def _board_add(a) -> None:
    a.add_argument("submission", help="the submission.parquet `qlsbench compare` wrote")
    _page_options(a)
    a.set_defaults(func=cmd_board_add, reads=["submission", "in_loop", "noisy"])


def _board_verify(a) -> None:
    a.add_argument("submission", help="the submission.parquet `qlsbench compare` wrote")
    a.add_argument(
        "--sample",
        type=Whole(1, 1000).parse,
        default=5,
        help="how many systems to re-run, spread over the sizes (default 5)",
    )
    a.add_argument("--quiet", action="store_true", help="no progress bars")
    a.set_defaults(func=cmd_board_verify, reads=["submission"])


def _results_option(a, help_text: str) -> None:
    a.add_argument("--results", default="results/board", help=f"{help_text} (default: %(default)s)")


def _group_option(a, help_text: str) -> None:
    a.add_argument("--group", action="append", default=None, metavar="GROUP", help=help_text)


def _page_options(a) -> None:
    """Where the pages go and which extra tracks they show (publish, render, add)."""
    a.add_argument(
        "--pages",
        default="leaderboard",
        help="folder for index.html, leaderboard.md and .csv and the plots (default: %(default)s)",
    )
    a.add_argument(
        "--in-loop",
        nargs="+",
        default=None,
        metavar="PATH",
        help="in-loop results files or folders for the page's physics track (default: docs/in-loop "
        "where it exists, else the track as the board published it, from its tracks.json)",
    )
    a.add_argument(
        "--noisy",
        nargs="+",
        default=None,
        metavar="PATH",
        help="solve results of the device backends for the page's noisy track (default: docs/noisy "
        "where it exists, else the track as the board published it, from its tracks.json)",
    )
    a.add_argument("--no-tracks", action="store_true", help="no physics or noisy track on the page")
    a.add_argument(
        "--submissions",
        default="submissions",
        metavar="DIR",
        help="self-submitted files to rank too, marked; add keeps the submission there (default: "
        "./submissions, where it exists)",
    )
    a.add_argument("--quiet", action="store_true", help="no progress line")
    a.set_defaults(writes=[("pages", "--pages", "folder")], reads=["in_loop", "noisy"])


#: ``qlsbench board``'s actions: name, one line of help, and what adds the options of that action.
BOARD_ACTIONS = (
    ("pin", "build the pinned set from board.yaml's sources", _board_pin),
    ("run", "run board.yaml's solvers on the pinned set (resumable)", _board_run),
    ("publish", "write the board's results beside the pinned set, and its pages", _board_publish),
    ("render", "rewrite the pages from the published results (and the tracks' files)", _board_render),
    ("add", "put a `qlsbench compare` submission on your pages (self-submitted, marked) and rewrite them", _board_add),
    ("verify", "re-run a sample of a submission's systems and compare them with its rows", _board_verify),
)


def cmd_compare(args) -> None:
    import numpy as np

    from qlsbench.bench.board.comparing import COMPARE_TIME_LIMIT, compare

    spec = solver_spec(args)
    limit = COMPARE_TIME_LIMIT if args.time_limit is None else args.time_limit
    result = compare(
        spec,
        _board(args),
        work=args.work,
        time_limit=limit,
        max_qubits=args.max_qubits,
        repeats=args.repeats,
        seed=args.seed,
        calibrate_times=not args.no_calibrate,
        progress=not args.quiet,
        local=args.with_local,
        quick=args.quick,
    )
    board, n = result.board, len(result.board)
    mine = board[board["solver"] == result.label].iloc[0]
    if result.quick:
        print(_quick_words(result))

    def rate(column: str) -> str:
        value, low, high = result.interval(column)
        return f"success {value:.2f} [{low:.2f}, {high:.2f}]"

    print(
        f"{result.label}: rank {result.rank('success_rate')} of {n} on the exact track "
        f"({rate('success_rate')}), rank {result.rank('success_rate_low')} of {n} on the variational "
        f"track ({rate('success_rate_low')}, median fidelity {mine['median_fidelity']:.3f}); "
        f"time {mine['time_sgm_rel']:.3g}x the fastest (on the systems both ran)"
    )
    print("rates are over systems, with their 95 % Wilson intervals; ", end="")
    for track, column in (("exact", "success_rate"), ("variational", "success_rate_low")):
        tied = result.not_separated(column)
        print(
            f"{track} track, not separated at 95 % from: {', '.join(tied) if tied else 'none'}",
            end="; " if track == "exact" else "\n",
        )
    print(result.calibration.describe())
    shown = board.assign(new=np.where(board["solver"] == result.label, "<- new", ""))
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    failing = result.failing()
    if len(failing):
        print(
            f"\nnot solved at the variational track's bar ({len(failing)} of {plural(len(result.results), 'solve')}):"
        )
        print(failing.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if result.quick:
        print(f"\n{_quick_words(result)}")
        return
    print(
        f"\nsubmission: {result.submission} (`qlsbench board add {result.submission}` puts it on your pages, "
        f"`qlsbench board verify {result.submission}` re-runs a sample as CI will; contrib/README.md says how it "
        "reaches the published board)"
    )


def _quick_words(result) -> str:
    """What a quick look is and is not: first and last line of ``compare --quick``'s output."""
    return (
        f"quick look: {plural(result.systems, 'pinned system')} (one per group and qubit band), ranked against "
        "the published rows on those systems only; not a submission (none written): `qlsbench compare` without "
        "--quick runs every pinned system and writes the file `qlsbench board add` takes"
    )


def _arguments_compare(s) -> None:
    add_solver_arguments(s)
    s.add_argument(
        "--time-limit",
        type=TIME_LIMIT.parse,
        default=None,
        help="seconds per solve (default: the board's, qlsbench.bench.board.comparing.COMPARE_TIME_LIMIT)",
    )
    s.add_argument(
        "--max-qubits",
        type=COUNT.parse,
        default=None,
        help="systems of more qubits get a 'skipped' row (counted unsolved); recorded in the submission, "
        "and `board verify` re-runs under it",
    )
    s.add_argument(
        "--quick",
        action="store_true",
        help="a first look: one pinned system per group and qubit band, ranked against the published "
        "rows on those systems; writes no submission (in <work>/<solver name>/quick/)",
    )
    s.add_argument("--repeats", type=Whole(1, MAX_REPEATS).parse, default=1)
    s.add_argument("--seed", type=SEED.parse, default=0)
    s.add_argument(
        "--work",
        default="results/compare",
        help="folder for its results, in <work>/<solver name>/ (a finished comparison is read back, an "
        "interrupted one resumes)",
    )
    s.add_argument(
        "--no-calibrate",
        action="store_true",
        help="keep this machine's times instead of scaling them by the dense-LU ratio",
    )
    s.add_argument("--board", help="board folder (default: the one shipped in qlsbench/pinned)")
    s.add_argument(
        "--with-local",
        default=None,
        metavar="DIR",
        help="also rank against the self-submitted files in DIR (`board add`'s folder), marked; by "
        "default only the published board counts",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bars")
    s.set_defaults(func=cmd_compare, writes=[("work", "--work", "folder")])


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command(
        "board",
        "the pinned board: pin its systems, run its solvers, publish it, add or verify a submission",
        _arguments_board,
    ),
    Command("compare", "rank a new solver against the published leaderboard on the pinned set", _arguments_compare),
)

__all__ = ["BOARD_ACTIONS", "COMMANDS"]
