"""Study and figure commands: ``pauli``, ``lcu``, ``resources``, ``crosscheck``, and ``figure NAME`` for every figure of :data:`qlsbench.report.FIGURES`."""

from __future__ import annotations

from functools import partial

from qlsbench.checks import COUNT, NON_NEGATIVE, POSITIVE
from qlsbench.cli.base import Command
from qlsbench.cli.options import add_options, given_options
from qlsbench.text import plural


def cmd_pauli(args) -> None:
    from qlsbench.bench.pauli_study import pauli_study

    df = pauli_study(args.dataset, args.out, tols=args.tol, reorder=args.reorder, progress=not args.quiet)
    abs_rows = df[(df["mode"] == "absolute") & (df["ordering"] == "identity")]
    summary = abs_rows.groupby("tol")["terms_kept"].median().to_dict()
    print(f"{plural(df['system_id'].nunique(), 'system')}; median terms per tolerance {summary} -> {args.out}")


def _arguments_pauli(s) -> None:
    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument("--tol", type=NON_NEGATIVE.parse, nargs="+", default=[0.0, 1e-6, 1e-3], help="truncation tolerances")
    s.add_argument("--reorder", action="store_true", help="also count terms after RCM and greedy reorderings")
    s.add_argument("--out", required=True, help="results .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_pauli, writes=[("out", "--out", "file")], reads=["dataset"])


def cmd_lcu(args) -> None:
    from qlsbench.bench.pauli_study import lcu_table

    df = lcu_table(args.dataset, args.out, terms=args.terms, progress=not args.quiet)
    print(f"{plural(len(df), 'system')}; median terms {int(df['terms_0'].median())} exact, {int(df['terms_1e-3'].median())} "
          f"at 1e-3; median LCU 1-norm {df['lcu_norm_0'].median():.3g} -> {args.out}")


def _arguments_lcu(s) -> None:
    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument("--terms", action="store_true",
                   help="also write every term: x and z bit masks and the coefficient (rebuilds SparsePauliOp)")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_lcu, writes=[("out", "--out", "file")], reads=["dataset"])


def cmd_resources(args) -> None:
    from qlsbench.bench.pauli_study import resource_table
    from qlsbench.data.validate import COND_CHECK_DIM

    df = resource_table(args.dataset, args.out, epsilons=args.epsilon, progress=not args.quiet)
    if df.empty:
        print(f"no system with a finite condition number -> {args.out}")
        return
    exact = df[df["tol"] == 0]
    for epsilon, rows in exact.groupby("epsilon"):
        # The costliest system, not the widest: kappa, not the qubit count, drives the query count, so the
        # system of most qubits can need the fewest queries.
        costliest = rows.loc[rows["adiabatic_queries_practical"].idxmax()]
        print(f"epsilon {epsilon:g}: median kappa_eff {rows['kappa_eff'].median():.3g}, QSVT degree "
              f"{rows['qsvt_degree'].median():.3g}, adiabatic queries {rows['adiabatic_queries_practical'].median():.3g}"
              f" (practical) / {rows['adiabatic_queries_bound'].median():.3g} (bound), largest "
              f"{costliest['adiabatic_queries_practical']:.3g} (system {costliest['system_id']}: "
              f"{plural(int(costliest['n_qubits']), 'qubit')}, {plural(int(costliest['terms']), 'term')}, kappa_eff "
              f"{costliest['kappa_eff']:.3g})")
    unchecked = df.loc[~df["kappa_checked"], "system_id"].nunique()
    note = (f"; kappa of {plural(unchecked, 'system')} (above dimension {COND_CHECK_DIM}) taken from the file, "
            "not recomputed") if unchecked else "; every kappa recomputed from its matrix"
    print(f"{plural(df['system_id'].nunique(), 'system')} -> {args.out}{note}")


def _arguments_resources(s) -> None:
    from qlsbench.bench.pauli_study import RESOURCE_EPSILONS

    s.add_argument("dataset", help="dataset file or folder")
    s.add_argument("--epsilon", type=POSITIVE.parse, nargs="+", default=list(RESOURCE_EPSILONS),
                   help="target errors (default: %(default)s)")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_resources, writes=[("out", "--out", "file")], reads=["dataset"])


def cmd_crosscheck(args) -> None:
    from qlsbench.bench.pauli_study import crosscheck_table

    df = crosscheck_table(args.dataset, args.out, qubit_terms=args.qubit_terms, progress=not args.quiet)
    counted = df.dropna(subset=["tool_select_toffolis"]) if "tool_select_toffolis" in df else df.iloc[:0]
    exact = int((counted["tool_select_toffolis"] == counted["ours_select_toffolis"]).sum())
    print(f"{plural(df['system_id'].nunique(), 'system')}, {plural(len(df), 'row')} ({df['tool'].iloc[0]} "
          f"{df['tool_version'].iloc[0]}); controlled SELECT Toffolis equal to ours on {exact} of {len(counted)} "
          f"-> {args.out}")


def _arguments_crosscheck(s) -> None:
    from qlsbench.pauli.crosscheck import QUBIT_TERMS

    s.add_argument("dataset", help="dataset file or folder (the pinned set: `qlsbench pinned --out DIR`)")
    s.add_argument("--qubit-terms", type=COUNT.parse, default=QUBIT_TERMS,
                   help="count SELECT's qubits (a term-by-term decomposition) up to this many terms "
                        "(default: %(default)s)")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_crosscheck, writes=[("out", "--out", "file")], reads=["dataset"])


def cmd_figure(figure, args) -> None:
    options = figure.options.from_mapping(given_options(args, figure.options))
    for out in args.out:
        print(f"wrote {figure(args.inputs, out, options)}")


def _arguments_figure(s) -> None:
    from qlsbench.report import FIGURES

    s.description = f"{FIGURE_HELP}: {', '.join(FIGURES)}"
    names = s.add_subparsers(dest="figure", required=True, metavar="NAME")
    for figure in FIGURES.values():
        f = names.add_parser(figure.name, help=figure.summary, description=figure.summary)
        f.add_argument("inputs", nargs=1 if figure.single_input else "+", metavar="INPUT", help=figure.inputs)
        add_options(f, [figure.options])
        f.add_argument("--out", nargs="+", required=True, metavar="PATH",
                       help=f"output file(s): {', '.join(figure.formats)}")
        f.set_defaults(func=partial(cmd_figure, figure), writes=[("out", "--out", "file")],
                       reads=["inputs"] + [n for n, (spec, _) in figure.options.specs().items() if spec.path == "read"])


#: ``qlsbench figure``'s line in ``qlsbench --help``; its own help lists the figures (importing the report).
FIGURE_HELP = "draw a figure or table of the report (qlsbench.report.FIGURES)"

#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command("pauli", "Pauli term counts, truncation errors and reorderings of a dataset", _arguments_pauli),
    Command("lcu", "each system's Pauli (LCU) form: term counts at 0 / 1e-6 / 1e-3, the 1-norm, and with --terms "
                   "every term", _arguments_lcu),
    Command("resources", "fault-tolerant cost estimates per system from its LCU form: block encoding, QSVT and "
                         "discrete-adiabatic query counts (no simulation)", _arguments_resources),
    Command("crosscheck", "the LCU block encoding's qubits, Toffolis and rotations by our formulas beside "
                          "Qualtran's count of the same terms (needs the estimates extra)", _arguments_crosscheck),
    Command("figure", FIGURE_HELP, _arguments_figure),
)
