"""``docs/qsvt.md``: QSVT run for real on the pinned systems, generated from its results files (never typed).

``qlsbench figure qsvt FILE... --out docs/qsvt.md`` reads results of the
``qsvt`` solver run with ``find_degree=true`` (:mod:`qlsbench.solvers.qsvt`)
and writes, per system, the degree the Childs-Kothari-Somma estimate predicts
(:func:`qlsbench.pauli._estimates.qsvt_degree` for the system's ``kappa_eff`` and
``epsilon``) beside the smallest degree of the same polynomial family whose
simulated solution met ``epsilon``, with the fidelity, success probability,
amplification rounds, circuit size and time of the solve at the predicted
degree; and, for the systems the solver declined, why.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench._results import load_results
from qlsbench.data import atomic_write_text
from qlsbench.report._base import page
from qlsbench.report._tables import markdown_table


def qsvt_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The ``qsvt`` solves of ``results``, one row per system (the first repeat), with their resources as
    columns and the pinned name of each system."""
    from qlsbench.data._matrix_market import system_names

    rows = results[results["solver_name"] == "qsvt"].sort_values(["system_id", "repeat"])
    rows = rows.drop_duplicates("system_id").copy()
    meta = rows["resources"].map(lambda r: json.loads(r or "{}"))
    names = system_names()
    rows["name"] = rows["system_id"].map(lambda s: names.get(s, s))
    for key in (
        "kappa",
        "alpha",
        "kappa_eff",
        "pauli_terms",
        "total_qubits",
        "epsilon",
        "predicted_degree",
        "degree",
        "needed_degree",
        "needed_degree_error",
        "spectral_degree",
        "success_probability",
        "amplification_rounds",
        "queries_amplified",
        "logical_two_qubit_gates",
        "phase_seconds",
        "circuit_seconds",
    ):
        rows[key] = meta.map(lambda m, k=key: m.get(k))
    return rows.sort_values(["n_qubits", "kappa_eff", "name"], ignore_index=True)


def degree_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per system solved: predicted against needed degree, and what the solve at the predicted degree gave."""
    solved = rows[rows["status"].isin(["converged", "max_iter"])]
    out = []
    for _, r in solved.iterrows():
        needed = None if r["needed_degree"] is None or pd.isna(r["needed_degree"]) else r["needed_degree"]
        out.append(
            {
                "system": r["name"],
                "qubits": int(r["n_qubits"]),
                "qubits in all": _whole(r["total_qubits"]),
                "Pauli terms": _whole(r["pauli_terms"]),
                "κ": r["kappa"],
                "α": r["alpha"],
                "κ_eff": r["kappa_eff"],
                "ε": r["epsilon"],
                "predicted degree": _whole(r["predicted_degree"]),
                "needed degree": "none ≤ max_degree" if needed is None else _whole(needed),
                "predicted / needed": "—" if needed is None else f"{r['predicted_degree'] / needed:.2f}",
                "degree for any b": _whole(r["spectral_degree"]),
                "fidelity": f"{r['fidelity']:.6f}",
                "success probability": r["success_probability"],
                "amplification rounds": _whole(r["amplification_rounds"]),
                "CX (whole circuit)": _whole(r["logical_two_qubit_gates"]),
                "seconds at the predicted degree": f"{r['phase_seconds'] + r['circuit_seconds']:.1f}",
                "seconds with the bisection": f"{r['wall_time']:.1f}",
            }
        )
    return pd.DataFrame(out)


def declined_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per system the solver did not solve: its status and the one-line reason."""
    declined = rows[~rows["status"].isin(["converged", "max_iter"])]
    return pd.DataFrame(
        {
            "system": declined["name"],
            "qubits": declined["n_qubits"].astype(int),
            "status": declined["status"],
            "why": declined["message"],
        }
    )


def _whole(value) -> object:
    return "—" if value is None or (isinstance(value, float) and np.isnan(value)) else int(value)


HEADER = """# QSVT run for real: the degree the estimate predicts against the degree a solve needs

`qsvt` (`qlsbench/solvers/qsvt/`, `docs/solvers.md`) runs quantum singular value transformation on Aer: the
system's Pauli (LCU) form block-encoded as A/α by PREPARE and SELECT on ⌈log₂ L⌉ selection qubits, Childs, Kothari
and Somma's odd polynomial for 1/x on [1/κ_eff, 1] (κ_eff = α/σ_min(A), from the matrix) with phases from `pyqsp`,
one signal qubit, and post-selection of the selection register and the signal qubit on 0. *Predicted degree* is
`qsvt_degree(κ_eff, ε)` (`qlsbench/pauli/_estimates.py`), the degree every solve below ran at; *needed degree*
is the smallest degree of the same polynomial family (a lower degree is the construction for a smaller κ) whose
exact post-selected state is within ε of the normalised reference solution, found by bisection, each probe a
simulated circuit. The estimate bounds the polynomial's error on every singular value of [1/κ_eff, 1], so on
every right-hand side; the needed degree is for the system's own b, and is lowest where b lies mostly on large
singular values (the Ising systems' b = |+⟩^n from 3 qubits on; the small frictionless DEM-C systems' b lies in
one eigenspace of A, so that degree 1, A†b, already points the right way). *Degree for any b* is the smallest
degree of the family whose polynomial inverts every singular value of A/α to relative error ε, from the
spectrum (no circuit): what every right-hand side of that matrix needs. Fidelity, success probability and CX
count are those of the solve at the predicted degree on the exact (statevector) backend, and so is the first
time (pyqsp's phases and the circuit's run; the second is the whole solve, bisection included, on a shared
2-core machine); amplification rounds are counted from the success probability, not simulated. The systems are
the pinned ones up to the solver's size limit (8 system qubits, 14 qubits in all, degree 1001). **This page is
generated** from the results files in `docs/qsvt/` by `qlsbench figure qsvt docs/qsvt/*.parquet --out
docs/qsvt.md`; `tests/test_qsvt_page.py` fails when they disagree.
"""


def _summary(table: pd.DataFrame) -> str:
    """One sentence over the systems solved: the range of predicted over needed degree."""
    ratios = [float(v) for v in table.get("predicted / needed", []) if v != "—"]
    if not ratios:
        return "No system was solved."
    text = (
        f"Over {len(table)} systems solved the estimate asked for {min(ratios):.2f} to {max(ratios):.2f} times "
        f"the degree the solution needed (median {np.median(ratios):.2f})."
    )
    spectral = [p / a for p, a in zip(table["predicted degree"], table["degree for any b"]) if a != "—"]
    if spectral:
        text += (
            f" Against the degree every b needs it asked for {min(spectral):.2f} to {max(spectral):.2f} times "
            f"as much (median {np.median(spectral):.2f})."
        )
    return text


def render(inputs: list[str], out: str | os.PathLike, figures: str | os.PathLike | None = None) -> Path:
    """Write the QSVT page from results files of ``qsvt`` solves (``figures`` is unused: the page has none)."""
    rows = qsvt_rows(load_results(sorted(inputs)))
    if rows.empty:
        from qlsbench.errors import InputError

        raise InputError(f"none of {', '.join(map(str, inputs))} holds a qsvt solve")
    table = degree_table(rows)
    text = [
        HEADER,
        _summary(table),
        "",
        "## Predicted against needed degree",
        "",
        markdown_table(table),
        "",
        "## Systems declined",
        "",
        markdown_table(declined_table(rows)),
        "",
    ]
    return atomic_write_text(Path(out), "\n".join(text).rstrip("\n") + "\n")


FIGURE = page(
    "qsvt",
    "docs/qsvt.md: QSVT on the pinned systems, the predicted degree against the degree needed",
    "results of qsvt solves run with find_degree=true",
    render,
)
