"""Solving and ranking commands: ``solve``, ``merge``, ``ship``, ``in-loop``, ``solvers``, ``leaderboard``, ``board`` and ``compare``."""

from __future__ import annotations

import sys
from pathlib import Path

from qlsbench.checks import COUNT, SEED, TIME_LIMIT, Real, Whole
from qlsbench.cli.base import Command
from qlsbench.cli.options import (
    MAX_JOBS,
    MAX_REPEATS,
    add_options,
    add_solver_arguments,
    given_options,
    import_from_cwd,
    solver_spec,
)
from qlsbench.text import plural


def _board(args):
    from qlsbench.bench.board.folder import DEFAULT_BOARD, Board

    return Board(Path(args.board) if args.board else DEFAULT_BOARD)


def cmd_solve(args) -> None:
    from qlsbench.bench import add_repeats, run_solver

    spec = solver_spec(args)
    run = dict(repeats=args.repeats, seed=args.seed, time_limit=args.time_limit, max_qubits=args.max_qubits,
               progress=not args.quiet)
    if args.add_repeats:
        _check_add_repeats(args)
        df = add_repeats(spec, args.dataset, args.out, sequence=args.sequence, **run)
    else:
        df = run_solver(spec, args.dataset, args.out, shard=args.shard, sequence=args.sequence, **run)
    counts = ", ".join(f"{k} {v}" for k, v in df["status"].value_counts().sort_index().items())
    print(f"{spec.label}: {plural(len(df), 'solve')} ({counts}) -> {args.out}")
    print(accuracy_summary(df))


def _check_add_repeats(args) -> None:
    """``--add-repeats`` raises a finished, whole run's seeds: refuse what it cannot add to, before solving."""
    from pathlib import Path

    from qlsbench.errors import InputError

    if args.shard:
        raise InputError("--add-repeats: raises a whole run's seeds; it takes no --shard")
    if not Path(args.out).is_file():
        raise InputError(f"--add-repeats: {args.out} does not exist: there is no finished run to add repeats to "
                         "(without --add-repeats, solve writes it)")


def accuracy_summary(rows) -> str:
    """One line on how accurate the solves of results ``rows`` were.

    The median relative residual and fidelity over the solves that returned
    a solution, then per status (``converged 3: 2.1e-12 and 1.000000``), then
    the statuses of the solves that returned none. A fidelity needs a
    reference solution; without one it reads ``no reference``.
    """
    returned = rows[rows["rel_residual"].notna()]
    missing = rows[rows["rel_residual"].isna()]["status"].value_counts().sort_index()
    none = ("; no solution: " + ", ".join(f"{status} {n}" for status, n in missing.items())) if len(missing) else ""
    if returned.empty:
        return f"accuracy: none of the {plural(len(rows), 'solve')} returned a solution{none}"
    by_status = "; ".join(f"{status} {len(part)}: {_medians(part)}"
                          for status, part in returned.groupby("status", sort=True))
    return (f"accuracy: median relative residual and fidelity {_medians(returned)} over "
            f"{plural(len(returned), 'returned solution')} ({by_status}){none}")


def _medians(rows) -> str:
    """``2.1e-12 and 0.999998``: the median relative residual and the median fidelity of ``rows``."""
    fidelity = rows["fidelity"].dropna()
    shown = f"{fidelity.median():.6f}" if len(fidelity) else "no reference"
    return f"{rows['rel_residual'].median():.2e} and {shown}"


def _arguments_solve(s) -> None:
    add_solver_arguments(s)
    s.add_argument("--dataset", required=True, help="dataset file or folder")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--repeats", type=Whole(1, MAX_REPEATS).parse, default=1)
    s.add_argument("--seed", type=SEED.parse, default=0)
    s.add_argument("--time-limit", type=TIME_LIMIT.parse, default=None, help="seconds per solve (runs in a child process)")
    s.add_argument("--max-qubits", type=COUNT.parse, default=None, help="systems of more qubits get a 'skipped' row")
    s.add_argument("--shard", type=_shard, default=None, metavar="I/K",
                   help="solve only shard I of K (largest systems first, dealt round-robin); `qlsbench merge` joins them")
    s.add_argument("--sequence", action="store_true",
                   help="solve the systems in the order the simulation met them, each from the previous solve's "
                        "state (warm start: Krylov x0, VQLS angles, VNLS weights); in this process, unsharded")
    s.add_argument("--add-repeats", action="store_true",
                   help="--out holds a finished run of this solver, options, seed and dataset: keep its rows and "
                        "solve only the repeats up to --repeats (raising a run's seeds without redoing the old ones)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_solve, writes=[("out", "--out", "file")], reads=["dataset"])


def _shard(text: str) -> tuple[int, int]:
    import argparse

    from qlsbench.bench.shards import parse_shard
    from qlsbench.errors import InputError

    try:
        return parse_shard(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_merge(args) -> None:
    from qlsbench.bench.shards import merge

    rows = merge(args.dataset, args.shards, args.out)
    print(f"merged {plural(len(args.shards), 'shard')}: {plural(len(rows), 'row')} -> {args.out}")


def _arguments_merge(s) -> None:
    s.add_argument("shards", nargs="+", help="the shards' results .parquet files")
    s.add_argument("--dataset", required=True, help="the dataset they solved (for its order and hash)")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.set_defaults(func=cmd_merge, writes=[("out", "--out", "file")], reads=["shards", "dataset"])


def cmd_ship(args) -> None:
    from qlsbench.bench.shipped import collect

    manifest = collect(args.run, args.out, config=args.config, logs=args.log, figure_datasets=args.figure_dataset,
                       snapshots=args.snapshots, add=args.add)
    part = manifest["collections"][-1]
    print(f"{plural(len(part['files']), 'file')} from {args.run}, {part['wall_minutes']:.1f} min of wall clock over "
          f"{plural(len(part['invocations']), 'invocation')}; {plural(len(manifest['files']), 'file')} in "
          f"{plural(len(manifest['collections']), 'collection')} -> {args.out}")


def _arguments_ship(s) -> None:
    from qlsbench.report.reproduction import FIG3_LABEL, FIG5_DATASETS

    s.add_argument("run", help="the folder the workflow ran in (results/ and datasets/ inside)")
    s.add_argument("--config", required=True, help="the run's configuration file (hashed into the manifest)")
    s.add_argument("--log", nargs="*", default=[], help="Snakemake logs of the run (wall and job times; default: the run's "
                   ".snakemake/log/*.snakemake.log that finished a job)")
    s.add_argument("--figure-dataset", nargs="*", default=list(FIG5_DATASETS),
                   help="family/scene whose Pauli and truncation studies are shipped (default: fig. 5's runs)")
    s.add_argument("--snapshots", nargs="*", default=[FIG3_LABEL], help="labels whose snapshot files are shipped")
    s.add_argument("--add", action="store_true", help="extend an earlier collection in --out with this run's files "
                                                      "(a run split over sessions: same config, same dataset bytes)")
    s.add_argument("--out", required=True, help="the shipped folder (replaced as a whole, or extended with --add)")
    s.set_defaults(func=cmd_ship, writes=[("out", "--out", "folder")], reads=["run", "config", "log"])


def cmd_in_loop(args) -> None:
    from qlsbench.bench.in_loop import InLoopOptions, add_seeds, success_bar, sweep, write_in_loop

    options = InLoopOptions.from_mapping(given_options(args, InLoopOptions))
    if args.add_seeds:
        steps, summaries = add_seeds(args.out, options, solver_spec(args), seeds=args.seeds,
                                     fidelities=args.fidelity or (), progress=not args.quiet, jobs=args.jobs)
    else:
        steps, summaries = sweep(options, solver_spec(args), seeds=args.seeds, fidelities=args.fidelity or (),
                                 progress=not args.quiet, out=args.out, jobs=args.jobs)
        write_in_loop(args.out, steps, summaries, options)
    for s in summaries:
        level = f" fidelity {s['fidelity']:g}" if s["fidelity"] == s["fidelity"] else ""
        left = "never" if s["divergence_step"] is None else f"step {s['divergence_step']}"
        print(f"{s['solver']}{level} seed {s['seed']}: {s['status']} after {s['steps_run']} of "
              f"{plural(s['steps'], 'step')}, left {options.position_tol:g} m: {left}, largest position error "
              f"{s['position_error_max']:.2e} m, {plural(s['linear_solves'], 'solve')}, "
              f"{plural(s['fallback_steps'], 'fallback step')}, {s['seconds_per_step']:.3g} s/step"
              + (f" ({s['message']})" if s["message"] else ""))
    if args.fidelity:
        bar = success_bar(summaries)
        print(f"success bar: fidelity {bar:g}" if bar is not None else "success bar: none of the levels stayed within")
    print(f"-> {args.out}")


def _arguments_in_loop(s) -> None:
    from qlsbench.bench.in_loop import InLoopOptions

    add_solver_arguments(s)
    add_options(s, [InLoopOptions])
    s.add_argument("--seeds", type=Whole(1, MAX_REPEATS).parse, default=1, help="runs with seeds 0..k-1")
    s.add_argument("--fidelity", type=Real(0.0, 1.0).parse, nargs="+",
                   help="with --solver oracle: sweep these target fidelities (each over --seeds seeds)")
    s.add_argument("--out", required=True, help="results .parquet file (one row per run and step); each run "
                   "checkpoints beside it, so the same command run again resumes a killed run")
    s.add_argument("--add-seeds", action="store_true",
                   help="raise the finished run in --out to --seeds seeds, keeping its runs (written after each "
                        "new seed, so an interrupted raise resumes when run again)")
    s.add_argument("--jobs", type=Whole(1, MAX_JOBS).parse, default=1,
                   help="runs side by side, one process each (each capped at its share of the cores, or at "
                        "qlsbench --threads); the results are the same as one run after another")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_in_loop, writes=[("out", "--out", "file")])


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
    s.add_argument("name", nargs="?", metavar="NAME",
                   help="a solver (registered name, entry point or module:Class): list its options, with their "
                        "types, defaults and meanings")
    s.set_defaults(func=cmd_solvers)


def cmd_leaderboard(args) -> None:
    from qlsbench.bench import leaderboard, load_results
    from qlsbench.report.leaderboard_page import LeaderboardOptions, write_leaderboard

    tol, low = LeaderboardOptions.from_mapping(given_options(args, LeaderboardOptions)).tolerances()
    results = load_results(args.results)
    extra = None
    if args.estimates:
        from qlsbench.report.resource_figures import estimate_blocks, read_resources

        extra = estimate_blocks(read_resources(args.estimates), args.epsilon)
    write_leaderboard(results, args.md, args.csv, tol, low, html_path=args.html, extra=extra)
    print(leaderboard(results, tol, low).to_string(index=False))


def _arguments_leaderboard(s) -> None:
    from qlsbench.report.leaderboard_page import LeaderboardOptions

    s.add_argument("results", nargs="+", help="results files or folders")
    s.add_argument("--md", default="results/leaderboard.md")
    s.add_argument("--csv", default="results/leaderboard.csv")
    s.add_argument("--html", default=None, help="also write the page as HTML (the workflow's report shows it), its downloads in <name>-data/ "
                        "beside it")
    s.add_argument("--estimates", nargs="+", default=None, metavar="FILE",
                   help="`qlsbench resources` tables: add what a fault-tolerant solver would cost, per family")
    s.add_argument("--epsilon", type=Real(0.0, 1.0, open_low=True, open_high=True).parse, default=1e-6,
                   help="the estimates' target error (default 1e-6)")
    add_options(s, [LeaderboardOptions])
    s.set_defaults(func=cmd_leaderboard, writes=[("md", "--md", "file"), ("csv", "--csv", "file"),
                                                 ("html", "--html", "file")], reads=["results", "estimates"])


def cmd_board_pin(args) -> None:
    from qlsbench.bench.board.pinning import pin

    board = _board(args)
    manifest = pin(board, progress=not args.quiet, groups=args.group)
    print(f"pinned {plural(len(manifest['systems']), 'system')} in {plural(len(manifest['groups']), 'group')} -> "
          f"{board.folder}")


def cmd_board_run(args) -> None:
    from qlsbench.bench.board.running import run_board

    files = run_board(_board(args), args.results, progress=not args.quiet, groups=args.group)
    print(f"{plural(len(files), 'results file')} in {args.results}")


def cmd_board_publish(args) -> None:
    from qlsbench.report.board_pages import publish

    board = _board(args)
    results = publish(board, args.results, args.pages, in_loop=_in_loop_files(args), noisy=_noisy_files(args),
                      local=args.submissions, progress=not args.quiet)
    print(f"published {plural(len(results), 'solve')} of {plural(results['solver'].nunique(), 'solver')} -> "
          f"{board.results_path}, {Path(args.pages) / 'index.html'}")


def cmd_board_render(args) -> None:
    from qlsbench.report.board_pages import render_board

    board = _board(args)
    render_board(board, pages=args.pages, in_loop=_in_loop_files(args), noisy=_noisy_files(args),
                 local=args.submissions, progress=not args.quiet, keep_tracks=True)
    print(f"pages rewritten from {board.results_path} in {args.pages}")


def cmd_board_add(args) -> None:
    from qlsbench.bench.board.submissions import add_submission
    from qlsbench.report.board_pages import render_board

    board = _board(args)
    kept = add_submission(board, args.submission, args.submissions)
    render_board(board, pages=args.pages, in_loop=_in_loop_files(args), noisy=_noisy_files(args),
                 local=args.submissions, progress=not args.quiet)
    print(f"added {args.submission} as {kept} (self-submitted: on your pages, not the published board; "
          f"contrib/README.md says how it reaches the published one); pages rewritten in {args.pages}")


def cmd_board_verify(args) -> int:
    """``board verify``: re-run a sample of a submission's systems; exit code 1 when any disagrees.

    A ``module:Class`` solver is imported from the current folder first, as ``compare`` imports it, so the
    folder a submission was made in verifies it.
    """
    from qlsbench.bench.board.submissions import read_submission, verify_submission

    import_from_cwd(read_submission(args.submission)[1]["name"])
    table = verify_submission(_board(args), args.submission, sample=args.sample, work=Path("results") / "verify",
                              progress=not args.quiet)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    bad = int((~table["agrees"]).sum())
    if bad:
        print(f"qlsbench board verify: {args.submission}: {bad} of {plural(len(table), 're-run system')} disagree "
              "with the submission", file=sys.stderr)
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
    from qlsbench.report.board_pages import PUBLISHED_TRACK, tracks_path

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
    a.add_argument("--sample", type=Whole(1, 1000).parse, default=5,
                   help="how many systems to re-run, spread over the sizes (default 5)")
    a.add_argument("--quiet", action="store_true", help="no progress bars")
    a.set_defaults(func=cmd_board_verify, reads=["submission"])


def _results_option(a, help_text: str) -> None:
    a.add_argument("--results", default="results/board", help=f"{help_text} (default: %(default)s)")


def _group_option(a, help_text: str) -> None:
    a.add_argument("--group", action="append", default=None, metavar="GROUP", help=help_text)


def _page_options(a) -> None:
    """Where the pages go and which extra tracks they show (publish, render, add)."""
    a.add_argument("--pages", default="leaderboard",
                   help="folder for index.html, leaderboard.md and .csv and the plots (default: %(default)s)")
    a.add_argument("--in-loop", nargs="+", default=None, metavar="PATH",
                   help="in-loop results files or folders for the page's physics track (default: docs/in-loop "
                        "where it exists, else the track as the board published it, from its tracks.json)")
    a.add_argument("--noisy", nargs="+", default=None, metavar="PATH",
                   help="solve results of the device backends for the page's noisy track (default: docs/noisy "
                        "where it exists, else the track as the board published it, from its tracks.json)")
    a.add_argument("--no-tracks", action="store_true", help="no physics or noisy track on the page")
    a.add_argument("--submissions", default="submissions", metavar="DIR",
                   help="self-submitted files to rank too, marked; add keeps the submission there (default: "
                        "./submissions, where it exists)")
    a.add_argument("--quiet", action="store_true", help="no progress line")
    a.set_defaults(writes=[("pages", "--pages", "folder")], reads=["in_loop", "noisy"])


#: ``qlsbench board``'s actions: name, one line of help, and what adds the options of that action.
BOARD_ACTIONS = (
    ("pin", "build the pinned set from board.yaml's sources", _board_pin),
    ("run", "run board.yaml's solvers on the pinned set (resumable)", _board_run),
    ("publish", "write the board's results beside the pinned set, and its pages", _board_publish),
    ("render", "rewrite the pages from the published results (and the tracks' files)", _board_render),
    ("add", "put a `qlsbench compare` submission on your pages (self-submitted, marked) and rewrite them",
     _board_add),
    ("verify", "re-run a sample of a submission's systems and compare them with its rows", _board_verify),
)


def cmd_compare(args) -> None:
    import numpy as np

    from qlsbench.bench.board.comparing import COMPARE_TIME_LIMIT, compare

    spec = solver_spec(args)
    limit = COMPARE_TIME_LIMIT if args.time_limit is None else args.time_limit
    result = compare(spec, _board(args), work=args.work, time_limit=limit, max_qubits=args.max_qubits,
                     repeats=args.repeats, seed=args.seed, calibrate_times=not args.no_calibrate,
                     progress=not args.quiet, local=args.with_local, quick=args.quick)
    board, n = result.board, len(result.board)
    mine = board[board["solver"] == result.label].iloc[0]
    if result.quick:
        print(_quick_words(result))

    def rate(column: str) -> str:
        value, low, high = result.interval(column)
        return f"success {value:.2f} [{low:.2f}, {high:.2f}]"

    print(f"{result.label}: rank {result.rank('success_rate')} of {n} on the exact track "
          f"({rate('success_rate')}), rank {result.rank('success_rate_low')} of {n} on the variational "
          f"track ({rate('success_rate_low')}, median fidelity {mine['median_fidelity']:.3f}); "
          f"time {mine['time_sgm_rel']:.3g}x the fastest (on the systems both ran)")
    print("rates are over systems, with their 95 % Wilson intervals; ", end="")
    for track, column in (("exact", "success_rate"), ("variational", "success_rate_low")):
        tied = result.not_separated(column)
        print(f"{track} track, not separated at 95 % from: {', '.join(tied) if tied else 'none'}",
              end="; " if track == "exact" else "\n")
    print(result.calibration.describe())
    shown = board.assign(new=np.where(board["solver"] == result.label, "<- new", ""))
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    failing = result.failing()
    if len(failing):
        print(f"\nnot solved at the variational track's bar ({len(failing)} of "
              f"{plural(len(result.results), 'solve')}):")
        print(failing.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if result.quick:
        print(f"\n{_quick_words(result)}")
        return
    print(f"\nsubmission: {result.submission} (`qlsbench board add {result.submission}` puts it on your pages, "
          f"`qlsbench board verify {result.submission}` re-runs a sample as CI will; contrib/README.md says how it "
          "reaches the published board)")


def _quick_words(result) -> str:
    """What a quick look is and is not: first and last line of ``compare --quick``'s output."""
    return (f"quick look: {plural(result.systems, 'pinned system')} (one per group and qubit band), ranked against "
            "the published rows on those systems only; not a submission (none written): `qlsbench compare` without "
            "--quick runs every pinned system and writes the file `qlsbench board add` takes")


def _arguments_compare(s) -> None:
    add_solver_arguments(s)
    s.add_argument("--time-limit", type=TIME_LIMIT.parse, default=None,
                   help="seconds per solve (default: the board's, qlsbench.bench.board.comparing.COMPARE_TIME_LIMIT)")
    s.add_argument("--max-qubits", type=COUNT.parse, default=None,
                   help="systems of more qubits get a 'skipped' row (counted unsolved); recorded in the submission, "
                        "and `board verify` re-runs under it")
    s.add_argument("--quick", action="store_true",
                   help="a first look: one pinned system per group and qubit band, ranked against the published "
                        "rows on those systems; writes no submission (in <work>/<solver name>/quick/)")
    s.add_argument("--repeats", type=Whole(1, MAX_REPEATS).parse, default=1)
    s.add_argument("--seed", type=SEED.parse, default=0)
    s.add_argument("--work", default="results/compare",
                   help="folder for its results, in <work>/<solver name>/ (a finished comparison is read back, an "
                        "interrupted one resumes)")
    s.add_argument("--no-calibrate", action="store_true",
                   help="keep this machine's times instead of scaling them by the dense-LU ratio")
    s.add_argument("--board", help="board folder (default: the one shipped in qlsbench/pinned)")
    s.add_argument("--with-local", default=None, metavar="DIR",
                   help="also rank against the self-submitted files in DIR (`board add`'s folder), marked; by "
                        "default only the published board counts")
    s.add_argument("--quiet", action="store_true", help="no progress bars")
    s.set_defaults(func=cmd_compare, writes=[("work", "--work", "folder")])


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command("solve", "run one solver over a dataset into a results file", _arguments_solve),
    Command("merge", "merge the shards of one solve (qlsbench solve --shard) into one results file", _arguments_merge),
    Command("ship", "copy a workflow run's results into a small folder with their hashes, for a page generated "
                    "from them (qlsbench figure reproduction)", _arguments_ship),
    Command("in-loop", "run a simulation with a solver solving its Newton systems, beside the exact run from the "
                       "same state; per-step physics errors", _arguments_in_loop),
    Command("solvers", "list the solvers, plug-ins included; with a NAME, that solver's options", _arguments_solvers),
    Command("leaderboard", "rank solvers from results files (and write the leaderboard page)", _arguments_leaderboard),
    Command("board", "the pinned board: pin its systems, run its solvers, publish it, add or verify a submission",
            _arguments_board),
    Command("compare", "rank a new solver against the published leaderboard on the pinned set", _arguments_compare),
)
