"""Solving and ranking commands: ``solve``, ``merge``, ``ship``, ``in-loop``, ``solvers``, ``leaderboard``, ``board``, ``compare`` and ``check-config``."""

from __future__ import annotations

from pathlib import Path

from qlsbench.checks import COUNT, POSITIVE, SEED, Real, Whole
from qlsbench.cli.options import (
    MAX_REPEATS,
    add_options,
    add_solver_arguments,
    given_options,
    solver_spec,
)


def _board(args):
    from qlsbench.bench.board import DEFAULT_BOARD, Board

    return Board(Path(args.board) if args.board else DEFAULT_BOARD)


def cmd_solve(args) -> None:
    from qlsbench.bench import run_solver

    spec = solver_spec(args)
    df = run_solver(spec, args.dataset, args.out, repeats=args.repeats, seed=args.seed,
                    time_limit=args.time_limit, max_qubits=args.max_qubits, progress=not args.quiet,
                    shard=args.shard, sequence=args.sequence)
    counts = ", ".join(f"{k} {v}" for k, v in df["status"].value_counts().sort_index().items())
    print(f"{spec.label}: {len(df)} solves ({counts}) -> {args.out}")


def _parser_solve(sub) -> None:
    s = sub.add_parser("solve", help="run one solver over a dataset into a results file")
    add_solver_arguments(s)
    s.add_argument("--dataset", required=True, help="dataset file or folder")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--repeats", type=Whole(1, MAX_REPEATS).parse, default=1)
    s.add_argument("--seed", type=SEED.parse, default=0)
    s.add_argument("--time-limit", type=POSITIVE.parse, default=None, help="seconds per solve (runs in a child process)")
    s.add_argument("--max-qubits", type=COUNT.parse, default=None, help="systems of more qubits get a 'skipped' row")
    s.add_argument("--shard", type=_shard, default=None, metavar="I/K",
                   help="solve only shard I of K (largest systems first, dealt round-robin); `qlsbench merge` joins them")
    s.add_argument("--sequence", action="store_true",
                   help="solve the systems in the order the simulation met them, each from the previous solve's "
                        "state (warm start: Krylov x0, VQLS angles, VNLS weights); in this process, unsharded")
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
    print(f"merged {len(args.shards)} shard(s): {len(rows)} rows -> {args.out}")


def _parser_merge(sub) -> None:
    s = sub.add_parser("merge", help="merge the shards of one solve (qlsbench solve --shard) into one results file")
    s.add_argument("shards", nargs="+", help="the shards' results .parquet files")
    s.add_argument("--dataset", required=True, help="the dataset they solved (for its order and hash)")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.set_defaults(func=cmd_merge, writes=[("out", "--out", "file")], reads=["shards", "dataset"])


def cmd_ship(args) -> None:
    from qlsbench.bench.shipped import collect

    manifest = collect(args.run, args.out, config=args.config, logs=args.log, figure_datasets=args.figure_dataset,
                       snapshots=args.snapshots, add=args.add)
    part = manifest["collections"][-1]
    print(f"{len(part['files'])} files from {args.run}, {part['wall_minutes']:.1f} min of wall clock over "
          f"{len(part['invocations'])} invocation(s); {len(manifest['files'])} files in "
          f"{len(manifest['collections'])} collection(s) -> {args.out}")


def _parser_ship(sub) -> None:
    from qlsbench.report.reproduction import FIG3_LABEL, FIG5_DATASETS

    s = sub.add_parser("ship", help="copy a workflow run's results into a small folder with their hashes, for a "
                                    "page generated from them (qlsbench figure reproduction)")
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
    from qlsbench.bench.in_loop import InLoopOptions, success_bar, sweep, write_in_loop

    options = InLoopOptions.from_mapping(given_options(args, InLoopOptions))
    steps, summaries = sweep(options, solver_spec(args), seeds=args.seeds, fidelities=args.fidelity or (),
                             progress=not args.quiet)
    write_in_loop(args.out, steps, summaries, options)
    for s in summaries:
        level = f" fidelity {s['fidelity']:g}" if s["fidelity"] == s["fidelity"] else ""
        left = "never" if s["divergence_step"] is None else f"step {s['divergence_step']}"
        print(f"{s['solver']}{level} seed {s['seed']}: {s['status']} after {s['steps_run']} of {s['steps']} steps, "
              f"left {options.position_tol:g} m: {left}, largest position error {s['position_error_max']:.2e} m, "
              f"{s['linear_solves']} solves, {s['fallback_steps']} fallback steps, {s['seconds_per_step']:.3g} s/step"
              + (f" ({s['message']})" if s["message"] else ""))
    if args.fidelity:
        bar = success_bar(summaries)
        print(f"success bar: fidelity {bar:g}" if bar is not None else "success bar: none of the levels stayed within")
    print(f"-> {args.out}")


def _parser_in_loop(sub) -> None:
    from qlsbench.bench.in_loop import InLoopOptions

    s = sub.add_parser("in-loop", help="run a simulation with a solver solving its Newton systems, beside the "
                                       "exact run from the same state; per-step physics errors")
    add_solver_arguments(s)
    add_options(s, [InLoopOptions])
    s.add_argument("--seeds", type=Whole(1, MAX_REPEATS).parse, default=1, help="runs with seeds 0..k-1")
    s.add_argument("--fidelity", type=Real(0.0, 1.0).parse, nargs="+",
                   help="with --solver oracle: sweep these target fidelities (each over --seeds seeds)")
    s.add_argument("--out", required=True, help="results .parquet file (one row per run and step)")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_in_loop, writes=[("out", "--out", "file")])


def cmd_solvers(args) -> None:
    from qlsbench.solvers import available, describe

    for name in available():
        print(f"{name:12s} {describe(name)}")


def _parser_solvers(sub) -> None:
    s = sub.add_parser("solvers", help="list available solvers, plug-ins included")
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


def _parser_leaderboard(sub) -> None:
    from qlsbench.report.leaderboard_page import LeaderboardOptions

    s = sub.add_parser("leaderboard", help="rank solvers from results files (and write the leaderboard page)")
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


def cmd_board(args) -> None:
    from qlsbench.bench.board import add_submission, pin, run_board
    from qlsbench.report.board_pages import publish, render_board

    board = _board(args)
    if args.submission and args.action != "add":
        from qlsbench.errors import InputError

        raise InputError(f"board {args.action} takes no submission file ({args.submission}); only `board add` does")
    if args.action == "pin":
        manifest = pin(board, progress=not args.quiet, groups=args.group)
        print(f"pinned {len(manifest['systems'])} systems in {len(manifest['groups'])} groups -> {board.folder}")
    elif args.action == "run":
        files = run_board(board, args.results, progress=not args.quiet, groups=args.group)
        print(f"{len(files)} results files in {args.results}")
    elif args.action == "render":
        render_board(board, pages=args.pages, in_loop=_in_loop_files(args), noisy=_noisy_files(args),
                     progress=not args.quiet)
        print(f"pages rewritten from {board.results_path} in {args.pages}")
    elif args.action == "publish":
        results = publish(board, args.results, args.pages, in_loop=_in_loop_files(args), noisy=_noisy_files(args),
                          progress=not args.quiet)
        print(f"published {len(results)} solves of {results['solver'].nunique()} solvers -> "
              f"{board.results_path}, {Path(args.pages) / 'index.html'}")
    else:
        if not args.submission:
            from qlsbench.errors import InputError

            raise InputError("board add needs the submission file `qlsbench compare` wrote (board add FILE)")
        kept = add_submission(board, args.submission)
        render_board(board, pages=args.pages, in_loop=_in_loop_files(args), noisy=_noisy_files(args),
                     progress=not args.quiet)
        print(f"added {args.submission} as {kept}; pages rewritten in {args.pages}")


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


def _in_loop_files(args) -> list[str] | None:
    """The physics track's in-loop results files, or none with ``--no-tracks``."""
    return _track(args, args.in_loop, "--in-loop", "docs/in-loop")


def _noisy_files(args) -> list[str] | None:
    """The noisy track's device results files, or none with ``--no-tracks``."""
    return _track(args, args.noisy, "--noisy", "docs/noisy")


def _track(args, given: list[str] | None, option: str, default: str) -> list[str] | None:
    """Given paths (each must exist), else the default folder when this checkout has it, else no track."""
    if args.no_tracks:
        return None
    if given is None:
        return _track_files([default], option) if Path(default).is_dir() else None
    return _track_files(given, option)


def _parser_board(sub) -> None:
    s = sub.add_parser("board", help="the pinned board: pin its systems, run its solvers, publish it, add a submission")
    s.add_argument("action", choices=["pin", "run", "publish", "render", "add"],
                   help="pin: build the pinned set; run: run board.yaml's solvers on it; publish: write the board's "
                        "results and pages; render: rewrite the pages from the published results (and the "
                        "tracks' files); add: put a `qlsbench compare` submission on the board")
    s.add_argument("submission", nargs="?", help="add: the submission.parquet `qlsbench compare` wrote")
    s.add_argument("--board", help="board folder (default: the one shipped in qlsbench/pinned)")
    s.add_argument("--results", default="results/board", help="folder of the board's results files (run, publish)")
    s.add_argument("--pages", default="leaderboard",
                   help="folder for index.html, leaderboard.md and .csv and the plots (publish, render, add)")
    s.add_argument("--group", action="append", default=None, metavar="GROUP",
                   help="pin, run: only this group (repeatable); pin keeps every other group as it is")
    s.add_argument("--in-loop", nargs="+", default=None, metavar="PATH",
                   help="publish, render, add: in-loop results files or folders for the page's physics track "
                        "(default: docs/in-loop where it exists)")
    s.add_argument("--noisy", nargs="+", default=None, metavar="PATH",
                   help="publish, render, add: solve results of the device backends for the page's noisy track "
                        "(default: docs/noisy where it exists)")
    s.add_argument("--no-tracks", action="store_true", help="publish, render, add: no physics or noisy track on the page")
    s.add_argument("--quiet", action="store_true", help="no progress bars")
    s.set_defaults(func=cmd_board, writes=[("results", "--results", "folder"), ("pages", "--pages", "folder")],
                   reads=["submission", "in_loop", "noisy"])


def cmd_compare(args) -> None:
    import numpy as np

    from qlsbench.bench.board import compare

    spec = solver_spec(args)
    result = compare(spec, _board(args), work=args.work, time_limit=args.time_limit, repeats=args.repeats,
                     seed=args.seed, calibrate_times=not args.no_calibrate, progress=not args.quiet)
    board, n = result.board, len(result.board)
    mine = board[board["solver"] == result.label].iloc[0]
    print(f"{result.label}: rank {result.rank('success_rate')} of {n} on the exact track "
          f"(success {mine['success_rate']:.2f}), rank {result.rank('success_rate_low')} of {n} on the variational "
          f"track (success {mine['success_rate_low']:.2f}, median fidelity {mine['median_fidelity']:.3f}); "
          f"time {mine['time_sgm_rel']:.3g}x the fastest (on the systems both ran)")
    print(result.calibration.describe())
    shown = board.assign(new=np.where(board["solver"] == result.label, "<- new", ""))
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    failing = result.failing()
    if len(failing):
        print(f"\nnot solved at the variational track's bar ({len(failing)} of {len(result.results)} solves):")
        print(failing.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"\nsubmission: {result.submission} (`qlsbench board add {result.submission}` puts it on the board)")


def _parser_compare(sub) -> None:
    s = sub.add_parser("compare", help="rank a new solver against the published leaderboard on the pinned set")
    add_solver_arguments(s)
    s.add_argument("--time-limit", type=POSITIVE.parse, default=120.0, help="seconds per solve, as on the board")
    s.add_argument("--repeats", type=Whole(1, MAX_REPEATS).parse, default=1)
    s.add_argument("--seed", type=SEED.parse, default=0)
    s.add_argument("--work", default="results/compare",
                   help="folder for its results, in <work>/<solver name>/ (a finished comparison is read back, an "
                        "interrupted one resumes)")
    s.add_argument("--no-calibrate", action="store_true",
                   help="keep this machine's times instead of scaling them by the dense-LU ratio")
    s.add_argument("--board", help="board folder (default: the one shipped in qlsbench/pinned)")
    s.add_argument("--quiet", action="store_true", help="no progress bars")
    s.set_defaults(func=cmd_compare, writes=[("work", "--work", "folder")])


def cmd_check_config(args) -> None:
    from qlsbench.errors import ConfigError
    from qlsbench.workflow import check_config
    from qlsbench.yaml_files import load_yaml

    config = {}
    for path in [args.defaults, args.config] if args.defaults else [args.config]:
        layer = load_yaml(path, "YAML file") or {}
        if not isinstance(layer, dict):
            raise ConfigError(f"{path}: a config is a mapping of keys, got {type(layer).__name__}")
        config.update(layer)  # as Snakemake merges --configfile over the Snakefile's: key by key
    try:
        check_config(config, args.schema)
    except ConfigError as exc:
        raise ConfigError(f"{args.config}: {exc}") from None
    print(f"{args.config}: valid")


def _parser_check_config(sub) -> None:
    s = sub.add_parser("check-config", help="check a workflow config file before running it (one line per problem)")
    s.add_argument("config", help="config YAML (as given to snakemake --configfile)")
    s.add_argument("--defaults", default="workflows/config/default.yaml",
                   help="config it is merged over, key by key, as Snakemake does ('' for none)")
    s.add_argument("--schema", default="workflows/config/schema.yaml")
    s.set_defaults(func=cmd_check_config)


#: Parser builders of this module's commands, in the order `qlsbench --help` lists them.

PARSERS = (_parser_solve, _parser_merge, _parser_ship, _parser_in_loop, _parser_solvers, _parser_leaderboard, _parser_board, _parser_compare, _parser_check_config)
