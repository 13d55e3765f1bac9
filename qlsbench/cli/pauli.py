"""The Pauli form of a dataset's systems: ``pauli`` (term counts, truncation errors, reorderings) and ``lcu`` (each
system's LCU form, every term with ``--terms``)."""

from __future__ import annotations

from qlsbench.checks import NON_NEGATIVE
from qlsbench.cli.base import Command
from qlsbench.text import plural


def cmd_pauli(args) -> None:
    from qlsbench.bench._pauli_study import pauli_study

    df = pauli_study(args.dataset, args.out, tols=args.tol, reorder=args.reorder, progress=not args.quiet)
    abs_rows = df[(df["mode"] == "absolute") & (df["ordering"] == "identity")]
    summary = abs_rows.groupby("tol")["terms_kept"].median().to_dict()
    print(f"{plural(df['system_id'].nunique(), 'system')}; median terms per tolerance {summary} -> {args.out}")


def _arguments_pauli(s) -> None:
    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument(
        "--tol",
        type=NON_NEGATIVE.parse,
        nargs="+",
        default=None,
        help="truncation tolerances (default: the LCU tolerances, qlsbench.pauli.LCU_TOLS)",
    )
    s.add_argument("--reorder", action="store_true", help="also count terms after RCM and greedy reorderings")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_pauli, writes=[("out", "--out", "file")], reads=["dataset"])


def cmd_lcu(args) -> None:
    from qlsbench.bench._pauli_study import lcu_table

    df = lcu_table(args.dataset, args.out, terms=args.terms, progress=not args.quiet)
    print(
        f"{plural(len(df), 'system')}; median terms {int(df['terms_0'].median())} exact, "
        f"{int(df['terms_1e-3'].median())} "
        f"at 1e-3; median LCU 1-norm {df['lcu_norm_0'].median():.3g} -> {args.out}"
    )


def _arguments_lcu(s) -> None:
    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument(
        "--terms",
        action="store_true",
        help="also write every term: x and z bit masks and the coefficient (rebuilds SparsePauliOp)",
    )
    s.add_argument("--out", required=True, help="output .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_lcu, writes=[("out", "--out", "file")], reads=["dataset"])


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command("pauli", "Pauli term counts, truncation errors and reorderings of a dataset", _arguments_pauli),
    Command(
        "lcu",
        "each system's Pauli (LCU) form: term counts at 0 / 1e-6 / 1e-3, the 1-norm, and with --terms every term",
        _arguments_lcu,
    ),
)
