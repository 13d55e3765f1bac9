"""The leaderboard's columns: their human names and tooltips, which each track's ranking shows, how a cell prints.

Shared by the page's two renderings (Markdown,
:mod:`~qlsbench.report._leaderboard_page`, and HTML,
:mod:`~qlsbench.report._web_page`) and the board's pages
(:mod:`~qlsbench.report._board_pages`), so a column reads the same in each.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.report._tables import Link

#: Human names and tooltips of the columns the page shows: ``{column: (name, what it means)}``.
COLUMNS: dict[str, tuple[str, str]] = {
    "solver": ("solver", "the configuration's label: its name, or its name and options"),
    "kind": (
        "kind",
        "variational: records read-outs against a budget of cost evaluations; quantum: runs circuits "
        "without a variational budget (HHL); classical: the rest; control: a null solver (returns b, or "
        "a random vector), listed after the ranked rows and not ranked",
    ),
    "systems": ("systems run", "distinct systems (by content) the solver was run on"),
    "coverage": (
        "coverage",
        "share of the systems in view the solver was run on; the others are not run and do not count in its rates",
    ),
    "solves": ("solves", "solves attempted (systems x repeats), declined ones aside"),
    "skipped": (
        "declined",
        "solves the solver refused (too many qubits or circuits, a matrix it does not take); "
        "they count as unsuccessful",
    ),
    "failed": ("failed", "solves that raised, timed out or took their process down"),
    "success_rate": (
        "success",
        "share of its systems solved at this track's bar (mean over repeats); in "
        "brackets its 95 % Wilson interval, the systems as trials",
    ),
    "success_rate_low": (
        "variational success",
        "share of its systems solved at the variational track's bar; in brackets its 95 % Wilson interval",
    ),
    "overlaps_above": ("≈", "≈: its success interval overlaps the row above's: not separated at 95 %"),
    "null_b": (
        "null-b meets bar",
        "what returning b (the control null-b) does on this row's systems: on how many "
        "of them it meets this track's bar, of how many (in brackets: on how many it "
        "meets the fidelity bar alone, the residual aside); a rate null-b also reaches "
        "there is shown, not a verdict",
    ),
    "b_fidelity": (
        "b fidelity",
        "median over its systems of the fidelity b scores returned as the answer (what "
        "not solving scores); — outside the pinned set",
    ),
    "median_fidelity": (
        "median fidelity",
        "median over its systems of |<x|x*>|^2 / (|x|^2 |x*|^2); a solve with no solution counts 0",
    ),
    "seeds": ("n seeds", "seeds per system behind a variational row's median fidelity (repeat r uses seed r)"),
    "time_sgm_rel": (
        "time (x best)",
        "shifted geometric mean (shift 10 ms) of time per system, unsuccessful "
        "solves charged the time limit, over the fastest solver's: the largest ratio "
        "to any solver in view, each pair compared on the systems both ran",
    ),
    "error_sgm_rel": (
        "error (x best)",
        "shifted geometric mean of the relative error, unsuccessful solves "
        "charged at least 1, over the most accurate solver's: the largest ratio to "
        "any solver in view, each pair compared on the systems both ran",
    ),
    "time_sgm_ms": ("time SGM (ms)", "shifted geometric mean of time per system, in milliseconds"),
    "error_sgm": ("error SGM", "shifted geometric mean of the relative error"),
    "median_time_ms": (
        "charged time (ms)",
        "median over systems of the time the ranking charges: the measured "
        "time of a successful solve, the time limit of an unsuccessful one",
    ),
    "measured_time_ms": (
        "measured time (ms)",
        "median over systems of the measured time of the solves that "
        "returned a solution (each system's median over its repeats); "
        "time-outs, errors and declined solves are left out",
    ),
    "time_limit_s": (
        "time limit (s)",
        "the limit each solve ran under; a solve still running at it was stopped and counts as a time-out",
    ),
    "cost_evaluations": ("cost evaluations", "median per solve: evaluations of the cost (optimiser calls or SR steps)"),
    "circuit_executions": ("circuit executions", "median per solve: circuits run on a simulator"),
    "shots": ("shots per circuit", "median per solve; exact: expectation values without sampling"),
    "mc_samples": (
        "MC samples",
        "median per solve: Monte Carlo samples drawn; full sum: exact expectations over every basis state, no sampling",
    ),
    "qubits": ("qubits", "range of qubit counts of the systems solved"),
    "iterations": ("iterations", "median per solve"),
    "parameters": ("parameters", "median trainable parameters"),
    "circuit_depth": ("circuit depth", "median depth of the deepest transpiled circuit"),
    "circuits_per_evaluation": ("circuits / evaluation", "median distinct circuits behind one cost evaluation"),
    "pauli_terms": ("Pauli terms", "median Pauli strings of A the circuits use"),
    "routed_depth": (
        "routed depth",
        "median depth of the deepest circuit routed to the device's coupling map and basis gates",
    ),
    "two_qubit_gates": ("2q gates", "median two-qubit gates of the deepest routed circuit"),
    "device_seconds": ("device s", "median estimated device time per solve, from the backend's gate durations"),
    "options": ("options", "the solver's exact options (JSON)"),
    "name": ("name", "registered solver name, entry point or module:Class"),
}

#: The columns of each track's ranking, in order.
TRACK_COLUMNS = {
    "exact": (
        "solver",
        "kind",
        "systems",
        "coverage",
        "success_rate",
        "overlaps_above",
        "null_b",
        "b_fidelity",
        "time_sgm_rel",
        "error_sgm_rel",
        "failed",
        "skipped",
        "measured_time_ms",
        "median_time_ms",
        "time_limit_s",
    ),
    "variational": (
        "solver",
        "kind",
        "systems",
        "coverage",
        "success_rate",
        "overlaps_above",
        "null_b",
        "median_fidelity",
        "b_fidelity",
        "seeds",
        "cost_evaluations",
        "circuit_executions",
        "shots",
        "mc_samples",
        "time_sgm_rel",
        "failed",
        "measured_time_ms",
        "time_limit_s",
    ),
}

#: The line under each ranking that says what its ≈ means, and what its controls are.
OVERLAP_NOTE = (
    "≈: the success rate's 95 % Wilson interval (in brackets, systems as trials) overlaps the row "
    "above's: the two are not separated at 95 %, and their order is the tie-breakers'. Rows of kind "
    "control (null-b returns b, null-random a random vector) follow the ranked rows and are not ranked; "
    "the null-b column says on how many of each row's systems returning b meets the same bar (in "
    "brackets, the fidelity bar alone): a rate it also reaches there is shown, not a verdict."
)

#: Shares printed with their Wilson interval when the table has its ``_ci_low`` and ``_ci_high`` columns.
RATES = ("success_rate", "success_rate_low", "success_best_seed", "success_median_seed")


#: Costs whose 0 means "computed exactly, nothing sampled", printed as what it means rather than as no cost.
ZERO_MEANS = {"shots": "exact", "mc_samples": "full sum"}


def display_value(column: str, value) -> str:
    """One cell as the page prints it: NaN as an em dash, shares as percentages, ``shots`` 0 as ``exact`` and
    ``mc_samples`` 0 as ``full sum`` (a cost computed exactly draws no samples, which is not a cost of zero)."""
    if value is None or (isinstance(value, (float, np.floating)) and np.isnan(value)):
        return "—"
    if isinstance(value, Link):
        return value
    if column == "coverage":
        return f"{100 * value:.0f} %"
    if column in ZERO_MEANS and float(value) == 0:
        return ZERO_MEANS[column]
    if column == "overlaps_above":
        return "≈" if value else ""
    if column in (*RATES, "median_fidelity", "b_fidelity"):
        return f"{value:.3f}"
    if isinstance(value, (float, np.floating)):
        return f"{value:.3g}"
    return str(value)


def interval(low, high, digits: int = 3) -> str:
    """An interval as the page prints it beside its rate: ``[0.480, 0.740]``."""
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _display_column(df: pd.DataFrame, column: str) -> list[str]:
    """A column's cells as printed: a rate whose interval columns are in ``df`` reads ``rate [low, high]``."""
    cells = [display_value(column, v) for v in df[column]]
    low, high = f"{column}_ci_low", f"{column}_ci_high"
    if column not in RATES or low not in df or high not in df:
        return cells
    return [c if pd.isna(lo) else f"{c} {interval(lo, hi)}" for c, lo, hi in zip(cells, df[low], df[high])]


def display_table(df: pd.DataFrame, columns=None) -> pd.DataFrame:
    """``df``'s columns (all, or ``columns`` that exist) under their human names, every cell as printed text.

    A rate's interval columns are printed inside the rate's cell, not as columns of their own.
    """
    merged = {f"{r}_ci_{end}" for r in RATES if r in df for end in ("low", "high")}
    columns = [c for c in (columns or [c for c in df.columns if c not in merged]) if c in df]
    out = pd.DataFrame({COLUMNS.get(c, (c, ""))[0]: _display_column(df, c) for c in columns})
    out.attrs["tooltips"] = {COLUMNS.get(c, (c, ""))[0]: COLUMNS.get(c, (c, ""))[1] for c in columns}
    return out
