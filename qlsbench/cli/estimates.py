"""Fault-tolerant cost estimates from a dataset's LCU form: ``resources`` (our formulas, per system) and
``crosscheck`` (our counts beside Qualtran's for the same terms)."""

from __future__ import annotations

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
)
