"""Solving a dataset: ``solve`` (one solver over a dataset into a results file) and ``merge`` (its shards into one)."""

from __future__ import annotations

from qlsbench.checks import COUNT, SEED, TIME_LIMIT, Whole
from qlsbench.cli.base import Command
from qlsbench.cli.options import MAX_REPEATS, add_solver_arguments, solver_spec
from qlsbench.text import plural


def cmd_solve(args) -> None:
    from qlsbench.bench import add_repeats, run_solver

    spec = solver_spec(args)
    run = dict(
        repeats=args.repeats,
        seed=args.seed,
        time_limit=args.time_limit,
        max_qubits=args.max_qubits,
        progress=not args.quiet,
    )
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
        raise InputError(
            f"--add-repeats: {args.out} does not exist: there is no finished run to add repeats to "
            "(without --add-repeats, solve writes it)"
        )


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
    by_status = "; ".join(
        f"{status} {len(part)}: {_medians(part)}" for status, part in returned.groupby("status", sort=True)
    )
    return (
        f"accuracy: median relative residual and fidelity {_medians(returned)} over "
        f"{plural(len(returned), 'returned solution')} ({by_status}){none}"
    )


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
    s.add_argument(
        "--time-limit", type=TIME_LIMIT.parse, default=None, help="seconds per solve (runs in a child process)"
    )
    s.add_argument("--max-qubits", type=COUNT.parse, default=None, help="systems of more qubits get a 'skipped' row")
    s.add_argument(
        "--shard",
        type=_shard,
        default=None,
        metavar="I/K",
        help="solve only shard I of K (largest systems first, dealt round-robin); `qlsbench merge` joins them",
    )
    s.add_argument(
        "--sequence",
        action="store_true",
        help="solve the systems in the order the simulation met them, each from the previous solve's "
        "state (warm start: Krylov x0, VQLS angles, VNLS weights); in this process, unsharded",
    )
    s.add_argument(
        "--add-repeats",
        action="store_true",
        help="--out holds a finished run of this solver, options, seed and dataset: keep its rows and "
        "solve only the repeats up to --repeats (raising a run's seeds without redoing the old ones)",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_solve, writes=[("out", "--out", "file")], reads=["dataset"])


def _shard(text: str) -> tuple[int, int]:
    import argparse

    from qlsbench.bench._shards import parse_shard
    from qlsbench.errors import InputError

    try:
        return parse_shard(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_merge(args) -> None:
    from qlsbench.bench._shards import merge

    rows = merge(args.dataset, args.shards, args.out)
    print(f"merged {plural(len(args.shards), 'shard')}: {plural(len(rows), 'row')} -> {args.out}")


def _arguments_merge(s) -> None:
    s.add_argument("shards", nargs="+", help="the shards' results .parquet files")
    s.add_argument("--dataset", required=True, help="the dataset they solved (for its order and hash)")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.set_defaults(func=cmd_merge, writes=[("out", "--out", "file")], reads=["shards", "dataset"])


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command("solve", "run one solver over a dataset into a results file", _arguments_solve),
    Command("merge", "merge the shards of one solve (qlsbench solve --shard) into one results file", _arguments_merge),
)

__all__ = ["COMMANDS", "accuracy_summary"]
