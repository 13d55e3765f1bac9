"""docs/qsvt.md is generated from the qsvt results shipped in docs/qsvt/: page and results must agree; the page's
tables are checked on rows made by hand."""

import json
from pathlib import Path

import pandas as pd
import pytest

from qlsbench.report import _qsvt_page as qsvt_page

ROOT = Path(__file__).resolve().parents[1]
RESULTS = sorted((ROOT / "docs" / "qsvt").glob("*.parquet"))


def test_the_page_is_what_the_shipped_qsvt_results_give(tmp_path):
    if not RESULTS:
        pytest.skip("no qsvt results shipped in docs/qsvt/ yet")
    out = qsvt_page.render([str(p) for p in RESULTS], tmp_path / "qsvt.md")
    committed = (ROOT / "docs" / "qsvt.md").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8").splitlines() == committed.splitlines(), (
        "docs/qsvt.md differs from what docs/qsvt/ gives: run "
        "`qlsbench figure qsvt docs/qsvt/*.parquet --out docs/qsvt.md`"
    )


def test_the_shipped_results_are_qsvt_solves_that_looked_for_the_needed_degree():
    if not RESULTS:
        pytest.skip("no qsvt results shipped in docs/qsvt/ yet")
    from qlsbench.bench import load_results

    rows = qsvt_page.qsvt_rows(load_results([str(p) for p in RESULTS]))
    solved = rows[rows["status"].isin(["converged", "max_iter"])]
    assert len(solved) >= 1
    for _, r in solved.iterrows():
        assert r["degree"] == r["predicted_degree"]
        if not pd.isna(r["needed_degree"]):
            assert r["needed_degree"] % 2 == 1 and r["needed_degree_error"] <= r["epsilon"]


def _rows() -> pd.DataFrame:
    """Three systems by hand: one solved with a needed degree, one solved without one, one declined."""

    def row(system, n, status, message, **resources):
        return {
            "solver_name": "qsvt",
            "system_id": system,
            "n_qubits": n,
            "status": status,
            "message": message,
            "repeat": 0,
            "fidelity": 0.999,
            "wall_time": 12.34,
            "resources": json.dumps(resources),
        }

    common = {
        "kappa": 10.0,
        "alpha": 1.02,
        "pauli_terms": 4,
        "total_qubits": 5,
        "epsilon": 0.01,
        "success_probability": 0.0036,
        "amplification_rounds": 12,
        "logical_two_qubit_gates": 7000,
        "phase_seconds": 3.0,
        "circuit_seconds": 0.5,
    }
    return pd.DataFrame(
        [
            row(
                "a",
                2,
                "converged",
                "",
                kappa_eff=10.2,
                predicted_degree=193,
                degree=193,
                needed_degree=127,
                needed_degree_error=0.009,
                spectral_degree=141,
                **common,
            ),
            row("b", 3, "max_iter", "", kappa_eff=30.0, predicted_degree=701, degree=701, needed_degree=None, **common),
            row("c", 6, "skipped", "qsvt: 18 qubits (system 6, selection 11 for 1088 Pauli terms, signal 1) exceed 14"),
            {**row("a", 2, "converged", "", kappa_eff=10.2, predicted_degree=193, needed_degree=99), "repeat": 1},
        ]
    )


def test_the_degree_table_sets_the_predicted_against_the_needed_degree():
    rows = qsvt_page.qsvt_rows(_rows())
    assert list(rows["system_id"]) == ["a", "b", "c"]  # one row per system: the first repeat
    table = qsvt_page.degree_table(rows).set_index("system")
    assert table.loc["a", "predicted degree"] == 193 and table.loc["a", "needed degree"] == 127
    assert table.loc["a", "predicted / needed"] == f"{193 / 127:.2f}" and table.loc["a", "degree for any b"] == 141
    assert table.loc["a", "seconds at the predicted degree"] == "3.5"
    assert table.loc["a", "seconds with the bisection"] == "12.3"
    assert table.loc["b", "needed degree"] == "none ≤ max_degree" and table.loc["b", "predicted / needed"] == "—"
    declined = qsvt_page.declined_table(rows)
    assert list(declined["system"]) == ["c"] and "exceed 14" in declined["why"].iloc[0]
    summary = qsvt_page._summary(qsvt_page.degree_table(rows))
    assert "1.52 to 1.52 times the degree the solution needed" in summary
    assert f"it asked for {193 / 141:.2f} to {701 / 1:.2f}" not in summary  # b has no degree for any b: left out
    assert f"it asked for {193 / 141:.2f} to {193 / 141:.2f} times" in summary
