"""Fault-tolerant cost estimates: ``resources`` (our formulas per system, from a dataset's LCU form),
``crosscheck`` (our counts beside Qualtran's for the same terms) and ``advantage`` (the advantage map's sweep:
each family's systems as they grow, the best classical solve measured, a fault-tolerant solve estimated)."""

from __future__ import annotations

from pathlib import Path

from qlsbench.checks import COUNT, POSITIVE
from qlsbench.cli.base import Command
from qlsbench.text import plural


def cmd_resources(args) -> None:
    from qlsbench.bench._pauli_study import resource_table
    from qlsbench.data._validate import COND_CHECK_DIM

    df = resource_table(args.dataset, args.out, epsilons=args.epsilon, progress=not args.quiet)
    if df.empty:
        print(f"no system with a finite condition number -> {args.out}")
        return
    exact = df[df["tol"] == 0]
    for epsilon, rows in exact.groupby("epsilon"):
        # The costliest system, not the widest: kappa, not the qubit count, drives the query count, so the
        # system of most qubits can need the fewest queries.
        costliest = rows.loc[rows["adiabatic_queries_practical"].idxmax()]
        print(
            f"epsilon {epsilon:g}: median kappa_eff {rows['kappa_eff'].median():.3g}, QSVT degree "
            f"{rows['qsvt_degree'].median():.3g}, adiabatic queries {rows['adiabatic_queries_practical'].median():.3g}"
            f" (practical) / {rows['adiabatic_queries_bound'].median():.3g} (bound), largest "
            f"{costliest['adiabatic_queries_practical']:.3g} (system {costliest['system_id']}: "
            f"{plural(int(costliest['n_qubits']), 'qubit')}, {plural(int(costliest['terms']), 'term')}, kappa_eff "
            f"{costliest['kappa_eff']:.3g})"
        )
    unchecked = df.loc[~df["kappa_checked"], "system_id"].nunique()
    note = (
        (
            f"; kappa of {plural(unchecked, 'system')} (above dimension {COND_CHECK_DIM}) taken from the file, "
            "not recomputed"
        )
        if unchecked
        else "; every kappa recomputed from its matrix"
    )
    print(f"{plural(df['system_id'].nunique(), 'system')} -> {args.out}{note}")


def _arguments_resources(s) -> None:
    from qlsbench.bench._pauli_study import RESOURCE_EPSILONS

    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument(
        "--epsilon",
        type=POSITIVE.parse,
        nargs="+",
        default=list(RESOURCE_EPSILONS),
        help="target errors (default: %(default)s)",
    )
    s.add_argument("--out", required=True, help="output .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_resources, writes=[("out", "--out", "file")], reads=["dataset"])


def cmd_crosscheck(args) -> None:
    from qlsbench.bench._pauli_study import crosscheck_table

    df = crosscheck_table(args.dataset, args.out, qubit_terms=args.qubit_terms, progress=not args.quiet)
    counted = df.dropna(subset=["tool_select_toffolis"]) if "tool_select_toffolis" in df else df.iloc[:0]
    exact = int((counted["tool_select_toffolis"] == counted["ours_select_toffolis"]).sum())
    print(
        f"{plural(df['system_id'].nunique(), 'system')}, {plural(len(df), 'row')} ({df['tool'].iloc[0]} "
        f"{df['tool_version'].iloc[0]}); controlled SELECT Toffolis equal to ours on {exact} of {len(counted)} "
        f"-> {args.out}"
    )


def _arguments_crosscheck(s) -> None:
    from qlsbench.pauli._crosscheck import QUBIT_TERMS

    s.add_argument("dataset", help="dataset file or folder (the pinned set: `qlsbench pinned --out DIR`)")
    s.add_argument(
        "--qubit-terms",
        type=COUNT.parse,
        default=QUBIT_TERMS,
        help="count SELECT's qubits (a term-by-term decomposition) up to this many terms (default: %(default)s)",
    )
    s.add_argument("--out", required=True, help="output .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_crosscheck, writes=[("out", "--out", "file")], reads=["dataset"])


def cmd_loadcheck(args) -> None:
    import pandas as pd
    import pyarrow as pa

    from qlsbench.data import atomic_write_table
    from qlsbench.errors import InputError
    from qlsbench.estimates import crosscheck_loading, require_qualtran

    require_qualtran()  # before reading anything: the one line naming the extra
    for path in args.systems:
        if not path.endswith(".systems.parquet") or not Path(path).is_file():
            raise InputError(f"{path}: not an advantage sweep's systems table (<family>.systems.parquet)")
    systems = pd.concat([pd.read_parquet(path) for path in args.systems], ignore_index=True)
    df = crosscheck_loading(systems)
    atomic_write_table(pa.Table.from_pandas(df, preserve_index=False), args.out)
    ratio = df["ours_compute_toffolis"] / df["tool_compute_toffolis"]
    print(
        f"{plural(len(df), 'lookup')} of {plural(len(systems), 'system')} ({df['tool'].iloc[0]} "
        f"{df['tool_version'].iloc[0]}): our compute Toffolis over the tool's {ratio.min():.3g} to {ratio.max():.3g}"
        f" -> {args.out}"
    )


def _arguments_loadcheck(s) -> None:
    s.add_argument("systems", nargs="+", help="the advantage sweep's systems tables (<family>.systems.parquet)")
    s.add_argument("--out", required=True, help="output .parquet file (docs/advantage/loading.crosscheck.parquet)")
    s.set_defaults(func=cmd_loadcheck, writes=[("out", "--out", "file")], reads=["systems"])


def cmd_advantage(args) -> None:
    from qlsbench.bench.advantage import AXES, check_sizes, sweep
    from qlsbench.errors import InputError

    if args.sizes is not None and len(args.families) != 1:
        raise InputError("--sizes needs exactly one family in --families")
    # every family's sizes checked before any work; the models and the estimator by the first sweep, before its own
    plan = {
        family: check_sizes(family, args.sizes or getattr(AXES.get(family), args.sweep, ())) for family in args.families
    }
    for family, sizes in plan.items():
        tables = sweep(family, sizes, args.out, args.models, datasets=args.datasets, progress=not args.quiet)
        systems = tables["systems"]
        print(f"{family}: {plural(len(systems), 'size')}, N up to {int(systems['N'].max())} -> {args.out}")


def _arguments_advantage(s) -> None:
    from qlsbench.bench.advantage import AXES
    from qlsbench.estimates import HARDWARE_MODELS

    s.add_argument("--families", nargs="+", default=list(AXES), metavar="FAMILY", help=", ".join(AXES))
    s.add_argument("--sweep", choices=("small", "full"), default="small", help="the axes' sizes (default small)")
    s.add_argument("--sizes", nargs="+", type=COUNT.parse, default=None, help="these sizes instead (one family)")
    s.add_argument("--models", nargs="+", default=list(HARDWARE_MODELS), help=", ".join(HARDWARE_MODELS))
    s.add_argument("--out", required=True, help="folder of the tables (<family>.systems|classical|quantum.parquet)")
    s.add_argument("--datasets", default=None, help="also write each system as a dataset under this folder")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(
        func=cmd_advantage, writes=[("out", "--out", "folder"), ("datasets", "--datasets", "folder")], reads=[]
    )


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command(
        "resources",
        "fault-tolerant cost estimates per system from its LCU form: block encoding, QSVT and "
        "discrete-adiabatic query counts (no simulation)",
        _arguments_resources,
    ),
    Command(
        "crosscheck",
        "the LCU block encoding's qubits, Toffolis and rotations by our formulas beside "
        "Qualtran's count of the same terms (needs the estimates extra)",
        _arguments_crosscheck,
    ),
    Command(
        "loadcheck",
        "the advantage map's table lookups and rotations by our formulas beside Qualtran's count of the same "
        "bloqs (needs the estimates extra)",
        _arguments_loadcheck,
    ),
    Command(
        "advantage",
        "the advantage map's sweep: each family's systems as they grow, the best classical solve measured and "
        "a fault-tolerant solve estimated, resumably (needs the advantage extra)",
        _arguments_advantage,
    ),
)
