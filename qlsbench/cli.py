"""The ``qlsbench`` command line.

Heavy modules are imported inside each command so ``qlsbench --help`` and
``qlsbench solvers`` start quickly. Errors a user can cause print as one line.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from pathlib import Path

from qlsbench.cli_types import COUNT, FRACTION, NON_NEGATIVE, POSITIVE, SEED, real, whole
from qlsbench.errors import InputError
from qlsbench.physics.scene import MAX_SPHERES
from qlsbench.problems.ising import MAX_QUBITS as ISING_MAX_QUBITS

#: Repeats of one solve per system: more is likelier a typo than a plan.
MAX_REPEATS = 1000


def _parse_option(text: str) -> tuple[str, object]:
    """``key=value`` with value read as a Python literal when it is one."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"option {text!r} is not of the form key=value")
    key, raw = text.split("=", 1)
    lowered = raw.strip().lower()
    if lowered in ("true", "false", "none", "null"):
        return key, {"true": True, "false": False}.get(lowered)
    try:
        return key, ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return key, raw


def cmd_ising(args) -> None:
    from qlsbench.data import write_systems
    from qlsbench.problems import ising_inspired

    systems = [ising_inspired(n, kappa=args.kappa, J=args.J) for n in args.n]
    path = write_systems(systems, args.out)
    print(f"wrote {len(systems)} Ising systems (kappa={args.kappa:g}, n={args.n}) to {path}")


#: ``qlsbench simulate`` options that only DEM-C scenes take, with their DEM-C defaults.
DEM_C_ONLY = {"n_spheres": 32, "packing": 0.2, "s": 8, "regularization": 0.0, "snapshots": None, "snapshot_count": 4,
              "integrator": "dem_c", "restitution": 0.0}


def _scene_params(pairs: list[str]) -> dict:
    """``--param key=value`` pairs as a dict, values parsed as YAML scalars (numbers stay numbers)."""
    import yaml

    params = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--param {pair!r}: expected KEY=VALUE")
        params[key.strip().replace("-", "_")] = yaml.safe_load(value)
    return params


def cmd_simulate_penalty(args) -> None:
    from qlsbench.generate import simulate_penalty_dataset

    given = [f"--{k.replace('_', '-')}" for k in DEM_C_ONLY if getattr(args, k) is not None]
    if given:
        raise InputError(f"{', '.join(given)} only apply to DEM-C scenes, not to --scene {args.scene}")
    params = _scene_params(args.param)
    if args.mu is not None:
        params["mu"] = args.mu
    meta = simulate_penalty_dataset(args.out, scene=args.scene, steps=args.steps, h=args.h, every=args.every,
                                    kappa_cap=args.kappa_cap, max_systems=args.max_systems,
                                    progress=not args.quiet, **params)
    print(f"{meta['scene_label']}: {meta['steps']} steps of h={meta['h']:g} at {meta['steps_per_second']:.1f} "
          f"steps/s, Newton {meta['newton_iterations_mean']:.2f} it/step (max {meta['newton_iterations_max']}), "
          f"{meta['exported']} of {meta['captured']} systems exported ({meta['non_symmetric']} non-symmetric), "
          f"cond {meta['cond_min']} .. {meta['cond_max']} -> {args.out}")
    if meta["steps_not_converged"]:
        print(f"warning: Newton did not reach its tolerance in {meta['steps_not_converged']} of "
              f"{meta['steps']} steps", file=sys.stderr)


def cmd_trajectory(args) -> None:
    from qlsbench.generate import trajectory_dataset

    path = trajectory_dataset(args.out, scene=args.scene, steps=args.steps, h=args.h, sigmas=args.sigma,
                              seed=args.seed, mode=args.impacts, **_scene_params(args.param))
    print(f"{args.scene}: {args.steps} steps of h={args.h:g}, noise sigma {args.sigma} -> {path}")


def cmd_simulate(args) -> None:
    from qlsbench.physics.penalty import PENALTY_SCENES

    if args.scene in PENALTY_SCENES:
        return cmd_simulate_penalty(args)
    if args.param:
        raise InputError(f"--param applies to penalty scenes ({', '.join(PENALTY_SCENES)}), not to {args.scene}")
    for key, default in DEM_C_ONLY.items():
        if getattr(args, key) is None:
            setattr(args, key, default)
    args.mu = 0.0 if args.mu is None else args.mu
    args.h = 1e-3 if args.h is None else args.h
    from qlsbench.generate import simulate_dataset

    meta = simulate_dataset(args.out, scene=args.scene, n_spheres=args.n_spheres, packing=args.packing,
                            mu=args.mu, steps=args.steps,
                            seed=args.seed, h=args.h, s=args.s, every=args.every, kappa_cap=args.kappa_cap,
                            max_systems=args.max_systems, regularization=args.regularization,
                            snapshots=args.snapshots, snapshot_count=args.snapshot_count,
                            integrator=args.integrator, restitution=args.restitution, progress=not args.quiet)
    how = f" cd_lagrange e={meta['restitution']:g}" if args.integrator == "cd_lagrange" else ""
    print(f"{meta['scene']} N={meta['n_spheres']} mu={meta['mu']:g}{how}: {meta['steps']} steps at "
          f"{meta['steps_per_second']:.1f} steps/s, Newton {meta['newton_iterations_mean']:.1f} it/step "
          f"(max {meta['newton_iterations_max']}), {meta['exported']} of {meta['captured']} subsystems exported "
          f"({meta['dropped_kappa']} over the kappa cap), cond {meta['cond_min']} .. {meta['cond_max']} -> {args.out}")
    if args.snapshots:
        print(f"sphere snapshots at steps {meta['snapshot_steps']} -> {meta['snapshots']}")
    if meta["steps_solved_by_proximal"]:
        print(f"{meta['steps_solved_by_proximal']} of {meta['steps']} steps were solved by the proximal min-map "
              f"fallback (plain Newton stalled on an LCP above 1200 unknowns)")
    if meta["steps_not_converged"]:
        print(f"warning: the contact LCP of {meta['steps_not_converged']} of {meta['steps']} steps was not solved to "
              f"tolerance (min-map Newton stalled and its fallback, Lemke up to 1200 unknowns or the proximal "
              f"min-map Newton above, did not reach it either); those steps used the closer of the two iterates",
              file=sys.stderr)


def cmd_pauli(args) -> None:
    from qlsbench.bench.pauli_runs import pauli_study

    df = pauli_study(args.dataset, args.out, tols=args.tol, reorder=args.reorder, progress=not args.quiet)
    abs_rows = df[(df["mode"] == "absolute") & (df["ordering"] == "identity")]
    summary = abs_rows.groupby("tol")["terms_kept"].median().to_dict()
    print(f"{df['system_id'].nunique()} systems; median terms per tolerance {summary} -> {args.out}")


def cmd_figure(args) -> None:
    import pandas as pd

    from qlsbench.bench.pauli_runs import plot_term_counts
    from qlsbench.errors import InputError

    frames = []
    for path in args.results:
        try:
            frames.append(pd.read_parquet(path))
        except (OSError, ValueError) as exc:  # missing file; pyarrow's ArrowInvalid is a ValueError
            raise InputError(f"{path}: not a readable Pauli study ({exc})") from None
    print(f"wrote {plot_term_counts(pd.concat(frames, ignore_index=True), args.out)}")


def cmd_checkpoints(args) -> None:
    from qlsbench.data.select import write_checkpoints

    print(f"wrote {write_checkpoints(args.dataset, args.out, args.count)}")


def cmd_loss_figure(args) -> None:
    from qlsbench.bench import load_results
    from qlsbench.bench.loss_curves import plot_loss_curves

    results = load_results(args.results)
    print(f"wrote {plot_loss_curves(results, args.out, solvers=args.solvers, n_qubits=args.n_qubits)}")


def cmd_budget_figure(args) -> None:
    from qlsbench.bench import load_results
    from qlsbench.bench.budget_curves import plot_budget_curves

    results = load_results(args.results)
    try:
        print(f"wrote {plot_budget_curves(results, args.out, solvers=args.solvers)}")
    except InputError as exc:
        raise InputError(f"{', '.join(map(str, args.results))}: {exc}") from None


def cmd_snapshot_figure(args) -> None:
    from qlsbench.bench.physics_figures import plot_snapshots
    from qlsbench.data.snapshots import read_snapshots

    snapshots, meta = read_snapshots(args.snapshots)
    print(f"wrote {plot_snapshots(snapshots, meta, args.out, columns=args.columns)}")


def cmd_kappa_figure(args) -> None:
    from qlsbench.bench.physics_figures import plot_kappa_time

    print(f"wrote {plot_kappa_time(args.datasets, args.out)}")


def cmd_truncation_figure(args) -> None:
    from qlsbench.bench.pauli_runs import plot_truncation_errors, read_pauli_results

    print(f"wrote {plot_truncation_errors(read_pauli_results(args.results), args.out, mode=args.mode)}")


def cmd_checkpoint_table(args) -> None:
    from qlsbench.bench.checkpoint_table import write_checkpoint_table

    print(f"wrote {write_checkpoint_table(args.results, args.out, dataset=args.dataset)}")


def _solver_spec(args):
    """The solver of ``--solver``, ``--option``/``--options`` and ``--label``.

    A ``module:Class`` solver is imported as ``python -m`` would: from the
    current directory first.
    """
    from qlsbench.bench import SolverSpec
    from qlsbench.errors import InputError

    options = dict(args.option or [])
    if args.options:
        try:
            extra = json.loads(args.options)
        except json.JSONDecodeError as exc:
            raise InputError(f"--options is not valid JSON: {exc}") from None
        if not isinstance(extra, dict):
            raise InputError(f"--options must be a JSON object, got {type(extra).__name__}")
        options.update(extra)
    if ":" in args.solver and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return SolverSpec(args.solver, options, args.label or "")


def cmd_solve(args) -> None:
    from qlsbench.bench import run_solver

    spec = _solver_spec(args)
    df = run_solver(spec, args.dataset, args.out, repeats=args.repeats, seed=args.seed,
                    time_limit=args.time_limit, max_qubits=args.max_qubits, progress=not args.quiet)
    counts = ", ".join(f"{k} {v}" for k, v in df["status"].value_counts().sort_index().items())
    print(f"{spec.label}: {len(df)} solves ({counts}) -> {args.out}")


def _board(args):
    from qlsbench.bench.board import DEFAULT_BOARD, Board

    return Board(Path(args.board) if args.board else DEFAULT_BOARD)


def cmd_board(args) -> None:
    from qlsbench.bench.board import pin, publish, run_board

    board = _board(args)
    if args.action == "pin":
        manifest = pin(board, progress=not args.quiet)
        print(f"pinned {len(manifest['systems'])} systems in {len(manifest['groups'])} groups -> {board.folder}")
    elif args.action == "run":
        files = run_board(board, args.results, progress=not args.quiet)
        print(f"{len(files)} results files in {args.results}")
    else:
        results = publish(board, args.results, args.pages)
        print(f"published {len(results)} solves of {results['solver'].nunique()} solvers -> "
              f"{board.results_path}, {Path(args.pages) / 'leaderboard.md'}")


def cmd_compare(args) -> None:
    import numpy as np

    from qlsbench.bench.board import compare

    spec = _solver_spec(args)
    work = Path(args.work)
    result = compare(spec, _board(args), work=work, time_limit=args.time_limit, repeats=args.repeats,
                     seed=args.seed, calibrate=not args.no_calibrate, progress=not args.quiet)
    board, n = result.board, len(result.board)
    mine = board[board["solver"] == result.label].iloc[0]
    print(f"{result.label}: rank {result.rank('success_rate')} of {n} at high accuracy "
          f"(success {mine['success_rate']:.2f}), rank {result.rank('success_rate_low')} of {n} at low accuracy "
          f"(success {mine['success_rate_low']:.2f}); time {mine['time_sgm_rel']:.3g}x the fastest")
    if args.no_calibrate:
        print("times as measured here, not calibrated to the board's machine")
    else:
        print(f"times scaled by {result.time_factor:.3g} (board's dense LU time / this machine's, same systems)")
    shown = board.assign(new=np.where(board["solver"] == result.label, "<- new", ""))
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.3g}"))


def cmd_leaderboard(args) -> None:
    from qlsbench.bench import Tolerances, load_results, write_leaderboard
    from qlsbench.bench.leaderboard import leaderboard

    tol = Tolerances(fidelity=args.fidelity, residual=args.residual, shift=args.shift)
    low = Tolerances(fidelity=args.low_fidelity, residual=args.low_residual, shift=args.shift, require_converged=False)
    results = load_results(args.results)
    write_leaderboard(results, args.md, args.csv, tol, low, html_path=args.html)
    print(leaderboard(results, tol, low).to_string(index=False))


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


def cmd_solvers(args) -> None:
    from qlsbench.solvers import available, describe

    for name in available():
        print(f"{name:12s} {describe(name)}")


def cmd_info(args) -> None:
    from qlsbench.data import dataset_files, dataset_hash, load_dataset
    from qlsbench.data.schema import SCHEMA_VERSION

    df = load_dataset(args.dataset)
    files = dataset_files(args.dataset)
    print(f"dataset   {args.dataset}  ({len(files)} file(s), schema v{SCHEMA_VERSION}, hash {dataset_hash(args.dataset)})")
    print(f"systems   {len(df)}")
    summary = df.groupby(["family", "scene"]).agg(
        systems=("system_id", "size"), dim_min=("dim", "min"), dim_max=("dim", "max"),
        nnz_max=("nnz", "max"), cond_min=("cond", "min"), cond_max=("cond", "max"),
        symmetric=("symmetric", "all"))
    print(summary.to_string())


class _Parser(argparse.ArgumentParser):
    """Usage mistakes in one line, like every other error (``--help`` has the rest)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_solver_arguments(s: argparse.ArgumentParser) -> None:
    """``--solver``, ``--option``, ``--options`` and ``--label``, read back by :func:`_solver_spec`."""
    s.add_argument("--solver", required=True, help="registered name (see `qlsbench solvers`), entry point or module:Class")
    s.add_argument("--option", type=_parse_option, action="append", metavar="KEY=VALUE",
                   help="solver option, repeatable")
    s.add_argument("--options", help="solver options as a JSON object")
    s.add_argument("--label", help="leaderboard label (default: name plus options)")


def _thread_count(text: str) -> int:
    from qlsbench.threads import parse_threads

    try:
        return parse_threads(text, "--threads")
    except InputError:
        raise argparse.ArgumentTypeError(f"expected a whole number of threads >= 1, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="qlsbench", description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=_thread_count, metavar="N",
                   help="most threads for compiled kernels and BLAS (default: $QLSBENCH_THREADS, else every core)")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ising", help="write Ising-inspired VQLS systems to a Parquet dataset")
    s.add_argument("--n", type=whole(1, ISING_MAX_QUBITS), nargs="+", required=True, help="numbers of qubits")
    s.add_argument("--kappa", type=real(1.0, open_low=True), default=10.0, help="condition number (> 1)")
    s.add_argument("--J", type=real(), default=0.1, help="ZZ coupling")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.set_defaults(func=cmd_ising)

    s = sub.add_parser("simulate", help="run a simulation (DEM-C or penalty) and write its Newton subsystems")
    s.add_argument("--scene", default="sedimentation",
                   help="sedimentation (DEM-C, family dem_c) or incline-block, cloth-sphere, spheres-incline "
                        "(penalty friction, family penalty)")
    s.add_argument("--n-spheres", type=whole(1, MAX_SPHERES), default=None, help="DEM-C: number of spheres (default 32)")
    s.add_argument("--packing", type=real(0.0, 0.5, open_low=True, open_high=True), default=None,
                   help="DEM-C: sphere volume fraction of the container (default 0.2)")
    s.add_argument("--mu", type=NON_NEGATIVE, default=None, help="friction coefficient (>= 0; DEM-C default 0)")
    s.add_argument("--steps", type=COUNT, default=400)
    s.add_argument("--seed", type=SEED, default=0)
    s.add_argument("--h", type=POSITIVE, default=None, help="time step (> 0; DEM-C default 1e-3, penalty: the scene's)")
    s.add_argument("--s", type=whole(4), default=None, help="DEM-C: friction directions (even, >= 4; default 8)")
    s.add_argument("--integrator", choices=["dem_c", "cd_lagrange"], default=None,
                   help="DEM-C: dem_c (alg. 1, family dem_c) or cd_lagrange (restitution impacts, family cd_lagrange)")
    s.add_argument("--restitution", type=real(0.0, 1.0), default=None,
                   help="DEM-C with --integrator cd_lagrange: Newton's restitution e in [0, 1] (default 0)")
    s.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="penalty scene parameter, e.g. --param angle=30 --param n=3 (see the scene builders)")
    s.add_argument("--every", type=COUNT, default=1, help="keep subsystems of every k-th step")
    s.add_argument("--kappa-cap", type=real(1.0, infinite=True), default=1e12,
                   help="drop systems with a larger condition number (inf keeps every system)")
    s.add_argument("--regularization", type=NON_NEGATIVE, default=None,
                   help="Tikhonov epsilon added to each Newton subsystem (frictional ones are singular without it)")
    s.add_argument("--max-systems", type=COUNT, default=None)
    s.add_argument("--out", required=True, help="dataset folder")
    s.add_argument("--snapshots", metavar="PATH", default=None,
                   help="also write sphere states and contact impulses at evenly spaced steps to this .parquet (fig. 3)")
    s.add_argument("--snapshot-count", type=COUNT, default=None, metavar="K",
                   help="number of snapshot steps, the last step always among them")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate)

    s = sub.add_parser("trajectory", help="write a CD-Lagrange trajectory (clean and noisy columns) to Parquet")
    s.add_argument("--scene", required=True, help="pendulum, bouncing-ball or newtons-cradle")
    s.add_argument("--steps", type=COUNT, required=True)
    s.add_argument("--h", type=POSITIVE, default=0.02, help="time step (the paper: 0.02)")
    s.add_argument("--sigma", type=NON_NEGATIVE, nargs="+", default=[0.2, 0.02], help="noise standard deviations")
    s.add_argument("--seed", type=SEED, default=0, help="seed of the noise")
    s.add_argument("--impacts", choices=["sequential", "simultaneous"], default="sequential",
                   help="how contacts closing in the same step are resolved")
    s.add_argument("--param", action="append", metavar="KEY=VALUE", help="scene parameter, e.g. --param e=0.8")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.set_defaults(func=cmd_trajectory)

    s = sub.add_parser("solve", help="run one solver over a dataset into a results file")
    _add_solver_arguments(s)
    s.add_argument("--dataset", required=True, help="dataset file or folder")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--repeats", type=whole(1, MAX_REPEATS), default=1)
    s.add_argument("--seed", type=SEED, default=0)
    s.add_argument("--time-limit", type=POSITIVE, default=None, help="seconds per solve (runs in a child process)")
    s.add_argument("--max-qubits", type=COUNT, default=None, help="systems of more qubits get a 'skipped' row")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_solve)

    s = sub.add_parser("leaderboard", help="rank solvers from results files")
    s.add_argument("results", nargs="+", help="results files or folders")
    s.add_argument("--md", default="results/leaderboard.md")
    s.add_argument("--csv", default="results/leaderboard.csv")
    s.add_argument("--html", default=None, help="also write the page as HTML (the workflow's report shows it)")
    s.add_argument("--fidelity", type=FRACTION, default=0.99)
    s.add_argument("--residual", type=POSITIVE, default=1e-6)
    s.add_argument("--shift", type=POSITIVE, default=10.0)
    s.add_argument("--low-fidelity", type=FRACTION, default=0.99, help="low-accuracy setting: fidelity bar")
    s.add_argument("--low-residual", type=POSITIVE, default=1e-2, help="low-accuracy setting: residual bar")
    s.set_defaults(func=cmd_leaderboard)

    s = sub.add_parser("board", help="leaderboard v1: pin the benchmark set, run the board's solvers, publish")
    s.add_argument("action", choices=["pin", "run", "publish"],
                   help="pin: build the pinned set; run: run board.yaml's solvers on it; publish: write the board")
    s.add_argument("--board", help="board folder (default: the one shipped in qlsbench/pinned)")
    s.add_argument("--results", default="results/board", help="folder of the board's results files (run, publish)")
    s.add_argument("--pages", default="leaderboard", help="folder for leaderboard.md and .csv (publish)")
    s.add_argument("--quiet", action="store_true", help="no progress bars")
    s.set_defaults(func=cmd_board)

    s = sub.add_parser("compare", help="rank a new solver against the published leaderboard on the pinned set")
    _add_solver_arguments(s)
    s.add_argument("--time-limit", type=POSITIVE, default=120.0, help="seconds per solve, as on the board")
    s.add_argument("--repeats", type=whole(1, MAX_REPEATS), default=1)
    s.add_argument("--seed", type=SEED, default=0)
    s.add_argument("--work", default="results/compare", help="folder for its results (reruns resume)")
    s.add_argument("--no-calibrate", action="store_true",
                   help="keep this machine's times instead of scaling them by the dense-LU ratio")
    s.add_argument("--board", help="board folder (default: the one shipped in qlsbench/pinned)")
    s.add_argument("--quiet", action="store_true", help="no progress bars")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("pauli", help="Pauli term counts, truncation errors and reorderings of a dataset")
    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument("--tol", type=NON_NEGATIVE, nargs="+", default=[0.0, 1e-6, 1e-3], help="truncation tolerances")
    s.add_argument("--reorder", action="store_true", help="also count terms after RCM and greedy reorderings")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_pauli)

    s = sub.add_parser("figure", help="fig. 5: Pauli term counts per qubit count from `qlsbench pauli` results")
    s.add_argument("results", nargs="+", help="Pauli study .parquet files")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_figure)

    s = sub.add_parser("checkpoints", help="a sub-dataset of a simulation's systems at a few evenly spaced steps")
    s.add_argument("dataset", help="physics dataset file or folder")
    s.add_argument("--count", type=COUNT, default=4, help="number of steps (first Newton iteration of each)")
    s.add_argument("--out", required=True, help="output folder (or .parquet file)")
    s.set_defaults(func=cmd_checkpoints)

    s = sub.add_parser("loss-figure", help="fig. 2 / fig. 4: loss curves of variational solvers from results files")
    s.add_argument("results", nargs="+", help="results .parquet files (qlsbench solve)")
    s.add_argument("--solvers", nargs="+", help="solver labels, one panel each (default: all with histories)")
    s.add_argument("--n-qubits", type=COUNT, nargs="+", help="only systems of these qubit counts")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_loss_figure)

    s = sub.add_parser("budget-figure", help="success against cost evaluations of variational solvers, best and "
                                             "median seed, from results files")
    s.add_argument("results", nargs="+", help="results .parquet files or folders")
    s.add_argument("--solvers", nargs="+", help="solver labels (default: every solver with progress read-outs)")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_budget_figure)

    s = sub.add_parser("snapshot-figure", help="fig. 3: side views of the spheres coloured by contact impulse")
    s.add_argument("snapshots", help="snapshot .parquet of `qlsbench simulate --snapshots`")
    s.add_argument("--columns", type=COUNT, default=4, help="panels per row")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_snapshot_figure)

    s = sub.add_parser("kappa-figure", help="condition number of DEM-C subsystems against simulated time")
    s.add_argument("datasets", nargs="+", help="DEM-C dataset files or folders, one series each")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_kappa_figure)

    s = sub.add_parser("truncation-figure", help="Pauli truncation error and terms kept against tolerance")
    s.add_argument("results", nargs="+", help="`qlsbench pauli` results .parquet files")
    s.add_argument("--mode", choices=["absolute", "relative"], default="absolute",
                   help="tolerance on |c| (absolute) or on |c| / max |c| (relative)")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_truncation_figure)

    s = sub.add_parser("checkpoint-table", help="fig. 4(b): per checkpoint its step, time, qubits, kappa and the "
                                                "solver's loss, fidelity, residual")
    s.add_argument("results", help="results .parquet of a solver run on a checkpoint dataset")
    s.add_argument("--dataset", default=None,
                   help="the checkpoint dataset (default: datasets/<dataset column> below the current folder)")
    s.add_argument("--out", required=True, help="output .html or .md")
    s.set_defaults(func=cmd_checkpoint_table)

    s = sub.add_parser("check-config", help="check a workflow config file before running it (one line per problem)")
    s.add_argument("config", help="config YAML (as given to snakemake --configfile)")
    s.add_argument("--defaults", default="workflows/config/default.yaml",
                   help="config it is merged over, key by key, as Snakemake does ('' for none)")
    s.add_argument("--schema", default="workflows/config/schema.yaml")
    s.set_defaults(func=cmd_check_config)

    s = sub.add_parser("solvers", help="list available solvers, plug-ins included")
    s.set_defaults(func=cmd_solvers)

    s = sub.add_parser("info", help="summarise a dataset")
    s.add_argument("dataset", help="dataset file or folder")
    s.set_defaults(func=cmd_info)
    return p


#: What each command writes, ``(argument, option, kind)``, and the arguments naming what it reads: outputs are
#: checked against both before any work (:func:`qlsbench.outputs.check_output`).
OUTPUTS = {
    "ising": [("out", "--out", "file")],
    "simulate": [("out", "--out", "folder"), ("snapshots", "--snapshots", "file")],
    "trajectory": [("out", "--out", "file")],
    "solve": [("out", "--out", "file")],
    "leaderboard": [("md", "--md", "file"), ("csv", "--csv", "file"), ("html", "--html", "file")],
    "board": [("results", "--results", "folder"), ("pages", "--pages", "folder")],
    "compare": [("work", "--work", "folder")],
    "pauli": [("out", "--out", "file")],
    "figure": [("out", "--out", "file")],
    "checkpoints": [("out", "--out", "any")],
    "loss-figure": [("out", "--out", "file")],
    "budget-figure": [("out", "--out", "file")],
    "snapshot-figure": [("out", "--out", "file")],
    "kappa-figure": [("out", "--out", "file")],
    "truncation-figure": [("out", "--out", "file")],
    "checkpoint-table": [("out", "--out", "file")],
}
INPUTS = {"solve": ["dataset"], "leaderboard": ["results"], "pauli": ["dataset"], "figure": ["results"],
          "checkpoints": ["dataset"], "loss-figure": ["results"], "budget-figure": ["results"],
          "snapshot-figure": ["snapshots"],
          "kappa-figure": ["datasets"], "truncation-figure": ["results"], "checkpoint-table": ["results", "dataset"]}


def _check_outputs(args) -> None:
    """Every output of the command can be written and is none of its inputs (before any work is done)."""
    from qlsbench.outputs import check_output

    inputs = []
    for name in INPUTS.get(args.command, []):
        value = getattr(args, name)
        inputs += value if isinstance(value, list) else [value] if value else []
    for name, option, kind in OUTPUTS.get(args.command, []):
        if getattr(args, name):
            check_output(getattr(args, name), option, kind=kind, inputs=tuple(inputs))


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
        args.func(args)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
