"""``docs/estimates-crosscheck.md``: our block-encoding counts beside Qualtran's, generated from the shipped table.

``qlsbench figure estimates-crosscheck docs/estimates/*.parquet --out docs/estimates-crosscheck.md`` reads the
tables of ``qlsbench crosscheck`` (one per pinned group) (:func:`qlsbench.bench._pauli_study.crosscheck_table`) and writes how
far each of our counts (:mod:`qlsbench.pauli._estimates`) is from the independent tool's, and why, with every
number read from the table. Reading the table needs no Qualtran.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from qlsbench.data import atomic_write_text, read_parquet
from qlsbench.errors import InputError
from qlsbench.pauli._lcu import tol_label
from qlsbench.report._base import page
from qlsbench.report._tables import markdown_table

#: The comparisons of the agreement table: label, our column, the tool's column, our formula, the tool's bloq.
COMPARISONS = (
    (
        "SELECT, controlled: Toffolis",
        "ours_select_toffolis",
        "tool_select_toffolis",
        "L − 1",
        "`ApplyLthBloq`, a control",
    ),
    (
        "SELECT, controlled: T gates",
        "ours_select_t_gates",
        "tool_select_t_gates",
        "4 (L − 1)",
        "`ApplyLthBloq`, a control",
    ),
    (
        "SELECT, controlled: qubits",
        "ours_select_qubits",
        "tool_select_qubits",
        "n + a + (a − 1)",
        "`SelectPauliLCU`, a control",
    ),
    (
        "SELECT, uncontrolled: Toffolis",
        "ours_select_toffolis",
        "tool_select_uncontrolled_toffolis",
        "L − 1",
        "`ApplyLthBloq`",
    ),
    (
        "SELECT, uncontrolled: qubits",
        "ours_select_qubits",
        "tool_select_uncontrolled_qubits",
        "n + a + (a − 1)",
        "`SelectPauliLCU`",
    ),
    (
        "PREPARE, rotation tree: angles",
        "ours_prepare_rotations",
        "tool_rotation_tree_angles",
        "2^a − 1",
        "`StatePreparationViaRotations`",
    ),
    (
        "PREPARE, rotation tree: rotations",
        "ours_prepare_rotations",
        "tool_rotation_tree_rotations",
        "2^a − 1",
        "`StatePreparationViaRotations`",
    ),
    (
        "PREPARE, rotation tree: Toffolis",
        "ours_prepare_toffolis",
        "tool_rotation_tree_toffolis",
        "0",
        "`StatePreparationViaRotations`",
    ),
    (
        "PREPARE, rotation tree: qubits",
        "ours_prepare_qubits",
        "tool_rotation_tree_qubits",
        "a",
        "`StatePreparationViaRotations`",
    ),
    (
        "PREPARE, alias sampling: rotations",
        "ours_prepare_rotations",
        "tool_prepare_rotations",
        "2^a − 1",
        "`StatePreparationAliasSampling`",
    ),
    (
        "PREPARE, alias sampling: Toffolis",
        "ours_prepare_toffolis",
        "tool_prepare_toffolis",
        "0",
        "`StatePreparationAliasSampling`",
    ),
    (
        "PREPARE, alias sampling: qubits",
        "ours_prepare_qubits",
        "tool_prepare_qubits",
        "a",
        "`StatePreparationAliasSampling`",
    ),
    (
        "block encoding: Toffolis",
        "ours_block_encoding_toffolis",
        "tool_block_encoding_toffolis",
        "L − 1",
        "`LCUBlockEncoding`",
    ),
    (
        "block encoding: T gates",
        "ours_block_encoding_t_gates",
        "tool_block_encoding_t_gates",
        "4 (L − 1)",
        "`LCUBlockEncoding`",
    ),
    (
        "block encoding: rotations",
        "ours_block_encoding_rotations",
        "tool_block_encoding_rotations",
        "2 (2^a − 1)",
        "`LCUBlockEncoding`",
    ),
    (
        "block encoding: qubits",
        "ours_block_encoding_qubits",
        "tool_block_encoding_qubits",
        "n + a + (a − 1)",
        "`LCUBlockEncoding`",
    ),
)

#: Columns the page reads.
COLUMNS = (
    "system_id",
    "name",
    "n_qubits",
    "tol",
    "terms",
    "tool",
    "tool_version",
    "precision",
    "phase_bits",
    "qubit_terms",
    "tool_rotation_tree_phase_angles",
    "tool_prepare_mu",
    "tool_select_pauli_lcu_toffolis",
    "tool_prepare_uniform_toffolis",
    "tool_prepare_qrom_toffolis",
    "tool_prepare_compare_toffolis",
    "tool_prepare_swap_toffolis",
    *sorted({column for comparison in COMPARISONS for column in comparison[1:3]}),
)


def read_crosscheck(paths: list[str]) -> pd.DataFrame:
    """The ``qlsbench crosscheck`` tables of ``paths``, one frame; each file's columns checked. A system in two
    tables (pinned in two groups) is one set of rows, the first file's."""
    frames = [
        read_parquet(path, columns=COLUMNS, error=InputError, hint=" (not a `qlsbench crosscheck` table?)").to_pandas()
        for path in paths
    ]
    frames = [frame for frame in frames if len(frame)]
    if not frames:
        raise InputError("no cross-checked systems in " + ", ".join(map(str, paths)))
    return pd.concat(frames, ignore_index=True).drop_duplicates(["system_id", "tol"], ignore_index=True)


def ratios(table: pd.DataFrame, ours: str, tool: str) -> pd.Series:
    """``ours / tool`` on the rows where the tool counted and its count is not 0."""
    rows = table.dropna(subset=[tool])
    rows = rows[rows[tool] != 0]
    return rows[ours] / rows[tool]


def agreement(table: pd.DataFrame, comparisons=COMPARISONS) -> pd.DataFrame:
    """Per comparison (:data:`COMPARISONS`): rows the tool counted, rows equal, and the ratio ours / tool."""
    out = []
    for label, ours, tool, formula, bloq in comparisons:
        rows = table.dropna(subset=[tool])
        r = ratios(rows, ours, tool)
        out.append(
            {
                "count": label,
                "ours": formula,
                "Qualtran": bloq,
                "rows": len(rows),
                "equal": int((rows[ours] == rows[tool]).sum()),
                "ours / Qualtran: min": r.min() if len(r) else "—",
                "median": r.median() if len(r) else "—",
                "max": r.max() if len(r) else "—",
            }
        )
    return pd.DataFrame(out)


def _span(values: pd.Series, fmt: str = "g") -> str:
    """``a`` when every value is ``a``, else ``min–max`` (NaN left out)."""
    values = values.dropna()
    low, high = values.min(), values.max()
    return format(low, fmt) if low == high else f"{low:{fmt}}–{high:{fmt}}"


def _of(rows: pd.DataFrame, mask: pd.Series) -> str:
    return f"{int(mask.sum())} of {len(rows)}"


def reasons(table: pd.DataFrame) -> list[str]:
    """Why the counts differ, one paragraph per part, each number from ``table``."""
    counted = table.dropna(subset=["tool_select_toffolis"])
    sized = counted.dropna(subset=["tool_select_qubits"])
    decomposed = counted.dropna(subset=["tool_select_pauli_lcu_toffolis"])
    u = counted["tool_select_uncontrolled_toffolis"]
    not_pow2 = counted[(counted["terms"] & (counted["terms"] - 1)) != 0]
    alias_median = {
        step: counted[f"tool_prepare_{step}_toffolis"].median() for step in ("uniform", "qrom", "compare", "swap")
    }
    qrom_short = counted["tool_prepare_qrom_toffolis"] < counted["terms"] - 2
    be_extra = counted["tool_block_encoding_qubits"] - counted["tool_prepare_qubits"] - counted["n_qubits"]
    be_toffolis = counted["tool_block_encoding_toffolis"] - u - 2 * counted["tool_prepare_toffolis"]
    larger = counted[counted["tool_select_qubits"].isna()]
    unsized = (
        (
            "Qubits are counted on SELECT's decomposition, which Cirq builds term by term (milliseconds a "
            f"term): up to {_span(table['qubit_terms'])} terms, so not on the {len(larger)} larger rows "
            f"({int(larger['terms'].sum())} terms)."
        )
        if len(larger)
        else ""
    )
    per_angle = counted["tool_rotation_tree_toffolis"] / (
        counted["tool_rotation_tree_angles"] + counted["tool_rotation_tree_phase_angles"]
    )
    return [
        (
            "**SELECT, Toffolis and T gates.** Qualtran's unary iteration counts one `And` (4 T gates; its uncompute "
            "is a measurement and costs none) for every node of its segment tree that splits an interval of the "
            "selection register in two (`_unary_iteration_callgraph` in `qualtran.bloqs.multiplexers`): with a "
            "control qubit that is L − 1 `And`s, our count (Babbush et al. 2018, fig. 7: the controlled SELECT), "
            f"equal on {_of(counted, counted['tool_select_toffolis'] == counted['ours_select_toffolis'])} rows. "
            "Without a control it splits the root on the top selection bit itself (two X gates, no `And`): L − 2, "
            f"on {_of(counted, u == counted['terms'] - 2)} rows, so ours is (L − 1)/(L − 2) of the uncontrolled "
            "SELECT that the block encoding holds. `SelectPauliLCU`, decomposed term by term through Cirq on the "
            f"{len(decomposed)} rows of up to {_span(table['qubit_terms'])} terms, gives `ApplyLthBloq`'s Toffolis "
            "on "
            f"{_of(decomposed, decomposed['tool_select_pauli_lcu_toffolis'] == decomposed['tool_select_toffolis'])}."
        ),
        (
            "**SELECT, qubits.** Without a control Qualtran's SELECT holds the n system and a selection qubits and "
            "the a − 1 `And` ancillas of the tree's levels below the root, which is our count "
            f"(equal on {_of(sized, sized['tool_select_uncontrolled_qubits'] == sized['ours_select_qubits'])} rows "
            "counted). With a control it holds "
            f"{_span(sized['tool_select_qubits'] - sized['ours_select_qubits'])} more: the control and the root's "
            "`And` of it with the top selection bit. Our Toffolis are the controlled SELECT's, our qubits the "
            f"uncontrolled one's. {unsized}"
        ),
        (
            "**PREPARE, rotations.** Qualtran's rotation tree (`StatePreparationViaRotations`, Low, Kliuchnikov and "
            "Schaeffer 2018) loads exactly our 2^a − 1 amplitude angles, read from its call graph (layer i is a "
            "`PRGAViaPhaseGradient` addressed by the i qubits above it), equal on "
            f"{_of(counted, counted['tool_rotation_tree_angles'] == counted['ours_prepare_rotations'])} rows, and "
            "then 2^a phase angles that it always applies (our amplitudes are non-negative: all 0). It applies "
            "none as an arbitrary rotation: each layer loads its angles by QROM into a "
            f"{_span(table['phase_bits'])}-bit register and adds that into a phase-gradient state, so the tree "
            f"costs Toffolis ({_span(per_angle, '.2f')} per angle) and its only rotations are Rx(±π/2), Cliffords: "
            f"{_span(counted['tool_rotation_tree_rotations'])} counted. Its qubits add the phase-gradient register "
            "and the QROM's and adder's ancillas to our a. Alias sampling has no tree: its rotations are the 2 of "
            f"the uniform superposition's amplitude amplification when L is not a power of 2 ({len(not_pow2)} rows), "
            "else none."
        ),
        (
            "**PREPARE, alias sampling (Babbush et al. 2018, sec. III D).** Ours is 0 Toffolis on a qubits; "
            "Qualtran's is Toffolis in four steps of its call graph (medians over the rows: uniform superposition "
            f"{alias_median['uniform']:g}, QROM {alias_median['qrom']:g}, comparison {alias_median['compare']:g}, "
            f"swap {alias_median['swap']:g}). The QROM reads the `alt` and `keep` values of the L entries by unary "
            "iteration, at most L − 2 `And`s, fewer where a run of entries holds the same values (Qualtran's QROM "
            f"stops its tree early there: {_of(counted, qrom_short)} rows); the comparison of two μ-bit registers "
            f"(μ = {_span(counted['tool_prepare_mu'])} bits, to keep each |c_j| to "
            f"{', '.join(map(tol_label, sorted(table['precision'].unique())))} × max |c|) costs 2μ − 1, the swap a. "
            "Its qubits hold, besides the a "
            "selection qubits, the junk registers σ (μ), `alt` (a), `keep` (μ) and the comparison bit, and the "
            "comparator's ancillas."
        ),
        (
            "**Block encoding.** `LCUBlockEncoding` is PREPARE, the uncontrolled SELECT and PREPARE's inverse: its "
            "Toffolis are the SELECT's L − 2 plus twice alias sampling's (difference "
            f"{_span(be_toffolis)}), where ours has L − 1 Toffolis and 2 (2^a − 1) rotations; alias sampling's "
            "junk registers stay allocated through SELECT, so its qubits are PREPARE's peak plus the n system "
            f"qubits (difference {_span(be_extra)}) against our n + a + (a − 1)."
        ),
    ]


def system_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per system, every term kept (``tol = 0``): our count / Qualtran's for the main comparisons."""

    def pair(ours, tool):
        return [f"{int(o)} / —" if pd.isna(t) else f"{int(o)} / {int(t)}" for o, t in zip(ours, tool)]

    rows = table[table["tol"] == 0].sort_values(["n_qubits", "name"], kind="stable")
    return pd.DataFrame(
        {
            "system": rows["name"].to_numpy(),
            "n": rows["n_qubits"].to_numpy(),
            "L": rows["terms"].to_numpy(),
            "SELECT Toffolis (controlled)": pair(rows["ours_select_toffolis"], rows["tool_select_toffolis"]),
            "SELECT qubits (uncontrolled)": pair(rows["ours_select_qubits"], rows["tool_select_uncontrolled_qubits"]),
            "PREPARE rotations / tree angles": pair(rows["ours_prepare_rotations"], rows["tool_rotation_tree_angles"]),
            "PREPARE Toffolis (alias)": pair(rows["ours_prepare_toffolis"], rows["tool_prepare_toffolis"]),
            "block encoding Toffolis": pair(rows["ours_block_encoding_toffolis"], rows["tool_block_encoding_toffolis"]),
            "block encoding qubits": pair(rows["ours_block_encoding_qubits"], rows["tool_block_encoding_qubits"]),
        }
    )


def render(inputs: list[str], out: str | os.PathLike, figures: str | os.PathLike | None = None) -> Path:
    """Write the page from ``qlsbench crosscheck`` tables (``figures`` unused: the page has none)."""
    table = read_crosscheck(sorted(inputs))
    tools = sorted({f"{tool} {version}" for tool, version in zip(table["tool"], table["tool_version"])})
    single = table[table["terms"] < 2]
    single = f" (the other {len(single)} kept a single term, and Qualtran's SELECT needs two)" if len(single) else ""
    counted = table.dropna(subset=["tool_select_toffolis"])
    header = f"""# Resource estimates cross-checked by an independent tool

`qlsbench resources` counts what a fault-tolerant solver would cost from each system's LCU form by formulas
(`qlsbench/pauli/_estimates.py`): the block encoding of A = Σ_j c_j P_j with L Pauli terms on n qubits and
a = ⌈log₂ L⌉ selection qubits, SELECT by unary iteration and PREPARE by a tree of rotations. Here an
independent tool, {", ".join(tools)} (Google's library of fault-tolerant subroutines; `pip install
'qlsbench[estimates]'`), builds the same parts from the same terms and counts them by walking their call
graphs (`get_cost_value(bloq, QECGatesCost())`, `QubitCount()`): SELECT as `ApplyLthBloq` and
`SelectPauliLCU` over the Pauli strings, PREPARE as `StatePreparationAliasSampling` (the PREPARE its
`LCUBlockEncoding` takes) and as `StatePreparationViaRotations` (a rotation tree like ours), and the block
encoding as `LCUBlockEncoding`. Toffolis are Qualtran's Toffoli-class gates (`Toffoli`, `And`, `CSwap`), T
gates 4 per Toffoli plus bare T gates, rotations its arbitrary-angle rotations, qubits its peak count with
every ancilla. The systems are the pinned set (`qlsbench pinned`), {table["system_id"].nunique()} systems,
each at the truncation tolerances of `qlsbench resources` ({", ".join(map(tol_label, sorted(table["tol"].unique())))}):
{len(table)} rows, {len(counted)} counted by the tool{single}. **This page is generated** from the tables in
`docs/estimates/`, one per pinned group (`qlsbench pinned --out pinned`, then `qlsbench crosscheck pinned/GROUP
--out docs/estimates/GROUP.parquet` with the `estimates` extra), by `qlsbench figure estimates-crosscheck
docs/estimates/*.parquet --out docs/estimates-crosscheck.md`; `tests/test_estimates_crosscheck.py` fails when they disagree.
"""
    text = [
        header,
        "## Agreement",
        "",
        "Ratio: our count over Qualtran's, on the rows where Qualtran's is not 0 (— where it is 0 on every row).",
        "",
        markdown_table(agreement(table)),
        "",
        "## Why they differ",
        "",
    ]
    text += [f"- {paragraph}" for paragraph in reasons(table)]
    text += [
        "",
        "## Per system, every term kept",
        "",
        "Our count / Qualtran's (— where not counted); L is the number of terms.",
        "",
        markdown_table(system_table(table)),
        "",
    ]
    return atomic_write_text(out, "\n".join(text).rstrip("\n") + "\n")


FIGURE = page(
    "estimates-crosscheck",
    "docs/estimates-crosscheck.md: our block-encoding counts beside "
    "Qualtran's for the pinned systems, and why they differ",
    "`qlsbench crosscheck` tables",
    render,
)

__all__ = ["COMPARISONS", "FIGURE", "agreement", "read_crosscheck", "reasons", "render", "system_table"]
