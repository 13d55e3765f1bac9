"""The ``qlsbench`` command line.

Heavy modules are imported inside each command so ``qlsbench --help`` and
``qlsbench solvers`` start quickly. Errors a user can cause print as one line.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys


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


def cmd_simulate(args) -> None:
    from qlsbench.generate import simulate_dataset

    meta = simulate_dataset(args.out, scene=args.scene, n_spheres=args.n_spheres, packing=args.packing,
                            mu=args.mu, steps=args.steps,
                            seed=args.seed, h=args.h, s=args.s, every=args.every, kappa_cap=args.kappa_cap,
                            max_systems=args.max_systems, regularization=args.regularization,
                            progress=not args.quiet)
    print(f"{meta['scene']} N={meta['n_spheres']} mu={meta['mu']:g}: {meta['steps']} steps at "
          f"{meta['steps_per_second']:.1f} steps/s, Newton {meta['newton_iterations_mean']:.1f} it/step "
          f"(max {meta['newton_iterations_max']}), {meta['exported']} of {meta['captured']} subsystems exported "
          f"({meta['dropped_kappa']} over the kappa cap), cond {meta['cond_min']} .. {meta['cond_max']} -> {args.out}")
    if meta["steps_not_converged"]:
        print(f"warning: the contact LCP of {meta['steps_not_converged']} of {meta['steps']} steps was not solved to "
              f"tolerance (min-map Newton stalled, LCP too large for the Lemke fallback); those steps used "
              f"Newton's last iterate", file=sys.stderr)


def cmd_pauli(args) -> None:
    from qlsbench.bench.pauli_runs import pauli_study

    df = pauli_study(args.dataset, args.out, tols=args.tol, reorder=args.reorder, progress=not args.quiet)
    abs_rows = df[(df["mode"] == "absolute") & (df["ordering"] == "identity")]
    summary = abs_rows.groupby("tol")["terms_kept"].median().to_dict()
    print(f"{df['system_id'].nunique()} systems; median terms per tolerance {summary} -> {args.out}")


def cmd_figure(args) -> None:
    import pandas as pd

    from qlsbench.bench.pauli_runs import plot_term_counts

    frames = []
    for path in args.results:
        try:
            frames.append(pd.read_parquet(path))
        except Exception as exc:
            raise SystemExit(f"qlsbench figure: error: {path}: not a readable Pauli study ({exc})") from None
    print(f"wrote {plot_term_counts(pd.concat(frames, ignore_index=True), args.out)}")


def cmd_checkpoints(args) -> None:
    from qlsbench.data.select import write_checkpoints

    print(f"wrote {write_checkpoints(args.dataset, args.out, args.count)}")


def cmd_loss_figure(args) -> None:
    from qlsbench.bench import load_results
    from qlsbench.bench.loss_curves import plot_loss_curves

    results = load_results(args.results)
    print(f"wrote {plot_loss_curves(results, args.out, solvers=args.solvers, n_qubits=args.n_qubits)}")


def cmd_solve(args) -> None:
    from qlsbench.bench import SolverSpec, run_solver

    options = dict(args.option or [])
    if args.options:
        try:
            options.update(json.loads(args.options))
        except json.JSONDecodeError as exc:
            raise SystemExit(f"error: --options is not valid JSON: {exc}") from None
    spec = SolverSpec(args.solver, options, args.label or "")
    df = run_solver(spec, args.dataset, args.out, repeats=args.repeats, seed=args.seed,
                    time_limit=args.time_limit, progress=not args.quiet)
    counts = ", ".join(f"{k} {v}" for k, v in df["status"].value_counts().sort_index().items())
    print(f"{spec.label}: {len(df)} solves ({counts}) -> {args.out}")


def cmd_leaderboard(args) -> None:
    from qlsbench.bench import Tolerances, load_results, write_leaderboard
    from qlsbench.bench.leaderboard import leaderboard

    tol = Tolerances(fidelity=args.fidelity, residual=args.residual, shift=args.shift)
    results = load_results(args.results)
    write_leaderboard(results, args.md, args.csv, tol)
    print(leaderboard(results, tol).to_string(index=False))


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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="qlsbench", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ising", help="write Ising-inspired VQLS systems to a Parquet dataset")
    s.add_argument("--n", type=int, nargs="+", required=True, help="numbers of qubits")
    s.add_argument("--kappa", type=float, default=10.0, help="condition number (> 1)")
    s.add_argument("--J", type=float, default=0.1, help="ZZ coupling")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.set_defaults(func=cmd_ising)

    s = sub.add_parser("simulate", help="run a DEM-C simulation and write its Newton subsystems")
    s.add_argument("--scene", default="sedimentation", help="scene name")
    s.add_argument("--n-spheres", type=int, default=32)
    s.add_argument("--packing", type=float, default=0.2, help="sphere volume fraction of the container")
    s.add_argument("--mu", type=float, default=0.0, help="friction coefficient (>= 0)")
    s.add_argument("--steps", type=int, default=400)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--h", type=float, default=1e-3, help="time step (> 0)")
    s.add_argument("--s", type=int, default=8, help="friction directions (even, >= 4)")
    s.add_argument("--every", type=int, default=1, help="keep subsystems of every k-th step")
    s.add_argument("--kappa-cap", type=float, default=1e12, help="drop systems with a larger condition number")
    s.add_argument("--regularization", type=float, default=0.0,
                   help="Tikhonov epsilon added to each Newton subsystem (frictional ones are singular without it)")
    s.add_argument("--max-systems", type=int, default=None)
    s.add_argument("--out", required=True, help="dataset folder")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate)

    s = sub.add_parser("solve", help="run one solver over a dataset into a results file")
    s.add_argument("--solver", required=True, help="solver name (see `qlsbench solvers`)")
    s.add_argument("--option", type=_parse_option, action="append", metavar="KEY=VALUE",
                   help="solver option, repeatable")
    s.add_argument("--options", help="solver options as a JSON object")
    s.add_argument("--label", help="leaderboard label (default: name plus options)")
    s.add_argument("--dataset", required=True, help="dataset file or folder")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--repeats", type=int, default=1)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--time-limit", type=float, default=None, help="seconds per solve (runs in a child process)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_solve)

    s = sub.add_parser("leaderboard", help="rank solvers from results files")
    s.add_argument("results", nargs="+", help="results files or folders")
    s.add_argument("--md", default="results/leaderboard.md")
    s.add_argument("--csv", default="results/leaderboard.csv")
    s.add_argument("--fidelity", type=float, default=0.99)
    s.add_argument("--residual", type=float, default=1e-6)
    s.add_argument("--shift", type=float, default=10.0)
    s.set_defaults(func=cmd_leaderboard)

    s = sub.add_parser("pauli", help="Pauli term counts, truncation errors and reorderings of a dataset")
    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument("--tol", type=float, nargs="+", default=[0.0, 1e-6, 1e-3], help="truncation tolerances")
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
    s.add_argument("--count", type=int, default=4, help="number of steps (first Newton iteration of each)")
    s.add_argument("--out", required=True, help="output folder (or .parquet file)")
    s.set_defaults(func=cmd_checkpoints)

    s = sub.add_parser("loss-figure", help="fig. 2 / fig. 4: loss curves of variational solvers from results files")
    s.add_argument("results", nargs="+", help="results .parquet files (qlsbench solve)")
    s.add_argument("--solvers", nargs="+", help="solver labels, one panel each (default: all with histories)")
    s.add_argument("--n-qubits", type=int, nargs="+", help="only systems of these qubit counts")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_loss_figure)

    s = sub.add_parser("solvers", help="list available solvers, plug-ins included")
    s.set_defaults(func=cmd_solvers)

    s = sub.add_parser("info", help="summarise a dataset")
    s.add_argument("dataset", help="dataset file or folder")
    s.set_defaults(func=cmd_info)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``qlsbench`` console script."""
    from qlsbench.errors import QlsbenchError

    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except QlsbenchError as exc:
        print(f"qlsbench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"qlsbench {args.command}: interrupted; nothing partial was written", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
