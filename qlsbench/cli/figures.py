"""Study and figure commands: ``pauli`` and the figure and table commands."""

from __future__ import annotations

from qlsbench.cli.types import COUNT, NON_NEGATIVE
from qlsbench.errors import InputError


def cmd_pauli(args) -> None:
    from qlsbench.bench.pauli_runs import pauli_study

    df = pauli_study(args.dataset, args.out, tols=args.tol, reorder=args.reorder, progress=not args.quiet)
    abs_rows = df[(df["mode"] == "absolute") & (df["ordering"] == "identity")]
    summary = abs_rows.groupby("tol")["terms_kept"].median().to_dict()
    print(f"{df['system_id'].nunique()} systems; median terms per tolerance {summary} -> {args.out}")


def _parser_pauli(sub) -> None:
    s = sub.add_parser("pauli", help="Pauli term counts, truncation errors and reorderings of a dataset")
    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument("--tol", type=NON_NEGATIVE, nargs="+", default=[0.0, 1e-6, 1e-3], help="truncation tolerances")
    s.add_argument("--reorder", action="store_true", help="also count terms after RCM and greedy reorderings")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_pauli, writes=[("out", "--out", "file")], reads=["dataset"])


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


def _parser_figure(sub) -> None:
    s = sub.add_parser("figure", help="fig. 5: Pauli term counts per qubit count from `qlsbench pauli` results")
    s.add_argument("results", nargs="+", help="Pauli study .parquet files")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_figure, writes=[("out", "--out", "file")], reads=["results"])


def cmd_loss_figure(args) -> None:
    from qlsbench.bench import load_results
    from qlsbench.bench.loss_curves import plot_loss_curves

    results = load_results(args.results)
    print(f"wrote {plot_loss_curves(results, args.out, solvers=args.solvers, n_qubits=args.n_qubits)}")


def _parser_loss_figure(sub) -> None:
    s = sub.add_parser("loss-figure", help="fig. 2 / fig. 4: loss curves of variational solvers from results files")
    s.add_argument("results", nargs="+", help="results .parquet files (qlsbench solve)")
    s.add_argument("--solvers", nargs="+", help="solver labels, one panel each (default: all with histories)")
    s.add_argument("--n-qubits", type=COUNT, nargs="+", help="only systems of these qubit counts")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_loss_figure, writes=[("out", "--out", "file")], reads=["results"])


def cmd_budget_figure(args) -> None:
    from qlsbench.bench import load_results
    from qlsbench.bench.budget_curves import plot_budget_curves

    results = load_results(args.results)
    try:
        print(f"wrote {plot_budget_curves(results, args.out, solvers=args.solvers)}")
    except InputError as exc:
        raise InputError(f"{', '.join(map(str, args.results))}: {exc}") from None


def _parser_budget_figure(sub) -> None:
    s = sub.add_parser("budget-figure", help="success against cost evaluations of variational solvers, best and "
                                             "median seed, from results files")
    s.add_argument("results", nargs="+", help="results .parquet files or folders")
    s.add_argument("--solvers", nargs="+", help="solver labels (default: every solver with progress read-outs)")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_budget_figure, writes=[("out", "--out", "file")], reads=["results"])


def cmd_snapshot_figure(args) -> None:
    from qlsbench.bench.physics_figures import plot_snapshots
    from qlsbench.data.snapshots import read_snapshots

    snapshots, meta = read_snapshots(args.snapshots)
    print(f"wrote {plot_snapshots(snapshots, meta, args.out, columns=args.columns)}")


def _parser_snapshot_figure(sub) -> None:
    s = sub.add_parser("snapshot-figure", help="fig. 3: side views of the spheres coloured by contact impulse")
    s.add_argument("snapshots", help="snapshot .parquet of `qlsbench simulate --snapshots`")
    s.add_argument("--columns", type=COUNT, default=4, help="panels per row")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_snapshot_figure, writes=[("out", "--out", "file")], reads=["snapshots"])


def cmd_kappa_figure(args) -> None:
    from qlsbench.bench.physics_figures import plot_kappa_time

    print(f"wrote {plot_kappa_time(args.datasets, args.out)}")


def _parser_kappa_figure(sub) -> None:
    s = sub.add_parser("kappa-figure", help="condition number of DEM-C subsystems against simulated time")
    s.add_argument("datasets", nargs="+", help="DEM-C dataset files or folders, one series each")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_kappa_figure, writes=[("out", "--out", "file")], reads=["datasets"])


def cmd_truncation_figure(args) -> None:
    from qlsbench.bench.pauli_runs import plot_truncation_errors, read_pauli_results

    print(f"wrote {plot_truncation_errors(read_pauli_results(args.results), args.out, mode=args.mode)}")


def _parser_truncation_figure(sub) -> None:
    s = sub.add_parser("truncation-figure", help="Pauli truncation error and terms kept against tolerance")
    s.add_argument("results", nargs="+", help="`qlsbench pauli` results .parquet files")
    s.add_argument("--mode", choices=["absolute", "relative"], default="absolute",
                   help="tolerance on |c| (absolute) or on |c| / max |c| (relative)")
    s.add_argument("--out", required=True, help="output .png")
    s.set_defaults(func=cmd_truncation_figure, writes=[("out", "--out", "file")], reads=["results"])


def cmd_checkpoint_table(args) -> None:
    from qlsbench.bench.checkpoint_table import write_checkpoint_table

    print(f"wrote {write_checkpoint_table(args.results, args.out, dataset=args.dataset)}")


def _parser_checkpoint_table(sub) -> None:
    s = sub.add_parser("checkpoint-table", help="fig. 4(b): per checkpoint its step, time, qubits, kappa and the "
                                                "solver's loss, fidelity, residual")
    s.add_argument("results", help="results .parquet of a solver run on a checkpoint dataset")
    s.add_argument("--dataset", default=None,
                   help="the checkpoint dataset (default: datasets/<dataset column> below the current folder)")
    s.add_argument("--out", required=True, help="output .html or .md")
    s.set_defaults(func=cmd_checkpoint_table, writes=[("out", "--out", "file")], reads=["results", "dataset"])


#: Parser builders of this module's commands, in the order `qlsbench --help` lists them.

PARSERS = (_parser_pauli, _parser_figure, _parser_loss_figure, _parser_budget_figure, _parser_snapshot_figure, _parser_kappa_figure, _parser_truncation_figure, _parser_checkpoint_table)
