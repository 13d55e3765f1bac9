"""Fault-tolerant resource estimates: the formulas on hand-computed cases, their monotonicity, and the table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from qlsbench.errors import InputError
from qlsbench.pauli import ADIABATIC_BOUND, adiabatic_queries, block_encoding, estimate, qsvt_degree


def test_hand_computed_cases():
    # kappa 10, epsilon 1e-2: b = ceil(100 ln 1000) = 691, j0 = ceil(sqrt(691 ln(276400))) = 94, degree 189
    assert qsvt_degree(10, 1e-2) == 189
    # 2305 * 10 walk steps and a filter of degree 2 ceil(10 ln(200) / sqrt 2) = 2 * 38
    assert adiabatic_queries(10, 1e-2) == 23050 + 76
    assert adiabatic_queries(10, 1e-2, 1.84) == 19 + 76
    # 5 terms: 3 selection qubits, unary iteration over 5 items: 4 Toffolis; a 3-level rotation tree
    assert block_encoding(3, 5) == {
        "select_qubits": 3,
        "qubits": 6,
        "work_qubits": 2,
        "select_toffolis": 4,
        "select_t_gates": 16,
        "prepare_rotations": 7,
        "prepare_cnots": 6,
    }
    one = estimate(2, 1, 1.0, 1.0, 0.5)  # the identity: kappa 1
    assert one["kappa_eff"] == 1.0 and one["select_toffolis"] == 0


def test_costs_grow_with_kappa_precision_and_alpha():
    kappas, epsilons, alphas = [1.5, 4, 10, 100, 1e4], [1e-1, 1e-3, 1e-6, 1e-10], [1.0, 2.0, 8.0, 50.0]
    for f in (qsvt_degree, adiabatic_queries):
        assert np.all(np.diff([f(k, 1e-3) for k in kappas]) > 0)
        assert np.all(np.diff([f(10, e) for e in epsilons]) > 0)
    rows = [estimate(4, 20, a, 10.0, 1e-3) for a in alphas]
    for key in (
        "kappa_eff",
        "qsvt_degree",
        "qsvt_queries_amplified",
        "adiabatic_queries_bound",
        "adiabatic_queries_practical",
    ):
        assert np.all(np.diff([r[key] for r in rows]) > 0), key
    assert np.all(np.diff([block_encoding(4, L)["qubits"] for L in (2, 4, 5, 16, 17)]) >= 0)
    # optimal scaling: the adiabatic count grows linearly in kappa, QSVT's degree faster
    ratio = lambda f: f(1e4, 1e-3) / f(1e2, 1e-3)  # noqa: E731
    assert ratio(adiabatic_queries) == pytest.approx(100, rel=0.05) and ratio(qsvt_degree) > 100
    assert adiabatic_queries(1e4, 1e-3) > ADIABATIC_BOUND * 1e4


def test_bad_inputs_are_named():
    for call, match in [
        (lambda: qsvt_degree(0.5, 1e-2), "kappa"),
        (lambda: qsvt_degree(10, 1.0), "epsilon"),
        (lambda: block_encoding(2, 0), "at least one term"),
        (lambda: estimate(2, 3, 0.0, 2, 0.1), "alpha"),
    ]:
        with pytest.raises(InputError, match=match):
            call()


def test_the_table_has_a_row_per_system_tolerance_and_epsilon(tmp_path):
    from qlsbench.bench import resource_table
    from qlsbench.families import FAMILIES

    family = FAMILIES["ising"]
    data = tmp_path / "ising.parquet"
    family.build(family.options.from_mapping({"n_qubits": [2, 3], "kappa": 10.0}), data, False)
    table = resource_table(data, tmp_path / "r.parquet", epsilons=(1e-2, 1e-6), progress=False)
    assert len(table) == 2 * 3 * 2
    assert pd.read_parquet(tmp_path / "r.parquet").shape == table.shape
    assert _card_columns() == list(table.columns)
    exact = table[(table["tol"] == 0) & (table["epsilon"] == 1e-2)]
    np.testing.assert_allclose(exact["kappa"], 10.0, rtol=1e-9)
    assert np.all(exact["alpha"] >= 1.0 - 1e-12)
    # truncation never raises alpha or the term count
    for _, rows in table[table["epsilon"] == 1e-2].groupby("system_id"):
        rows = rows.sort_values("tol")
        assert np.all(np.diff(rows["alpha"]) <= 1e-12) and np.all(np.diff(rows["terms"]) <= 0)


def _card_columns() -> list[str]:
    """The columns the dataset card's resources table documents, in its order."""
    from pathlib import Path

    from markdown_check import tables

    card = (Path(__file__).resolve().parents[1] / "datasets" / "README.md").read_text()
    table = next(t for t in tables(card) if "qsvt_degree" in " ".join(r[0] for r in t["rows"]))
    return [name.strip(" `") for row in table["rows"] for name in row[0].split(",")]


def test_the_leaderboard_page_adds_the_estimates_per_family(tmp_path):
    """`qlsbench leaderboard --estimates`: one row per family (frictional DEM-C apart), the numbers of the tables."""

    from qlsbench.bench import SolverSpec, resource_table, run_solver
    from qlsbench.cli import main
    from qlsbench.families import FAMILIES

    family = FAMILIES["ising"]
    data = tmp_path / "ising" / "part-0000.parquet"
    family.build(family.options.from_mapping({"n_qubits": [2, 3], "kappa": 10.0}), data, False)
    table = resource_table(data, tmp_path / "r.parquet", epsilons=(1e-6,), progress=False)
    run_solver(SolverSpec("lu"), data, tmp_path / "results" / "lu.parquet", progress=False)
    md = tmp_path / "board.md"
    assert (
        main(
            [
                "leaderboard",
                str(tmp_path / "results"),
                "--md",
                str(md),
                "--csv",
                str(tmp_path / "b.csv"),
                "--estimates",
                str(tmp_path / "r.parquet"),
            ]
        )
        == 0
    )
    text = md.read_text()
    assert "What a fault-tolerant solver would cost" in text
    row = next(line for line in text.splitlines() if line.startswith("| ising |"))
    exact = table[table["tol"] == 0]
    assert "| 2 | 2-3 |" in row and f"{exact['adiabatic_queries_practical'].max():.3g} (3 qubits)" in row
    # a file that is not a resources table is named
    assert (
        main(
            [
                "leaderboard",
                str(tmp_path / "results"),
                "--md",
                str(md),
                "--csv",
                str(tmp_path / "b.csv"),
                "--estimates",
                str(data),
            ]
        )
        != 0
    )


def test_the_summary_splits_the_sphere_families_by_their_mu():
    """A frictional DEM-C system with nothing sliding is symmetric: the scene's mu, not symmetry, decides."""
    from qlsbench.report import estimate_summary

    base = dict(
        system_id="a",
        n_qubits=3,
        tol=0.0,
        epsilon=1e-6,
        kappa=5.0,
        alpha=2.0,
        qubits=6,
        qsvt_degree=9.0,
        adiabatic_queries_practical=20.0,
        adiabatic_queries_bound=900.0,
    )
    rows = pd.DataFrame(
        [
            dict(base, family="dem_c", scene="sedimentation-n16-mu0.3", symmetric=True),
            dict(base, family="dem_c", scene="sedimentation-n16-mu0", symmetric=True, system_id="b"),
            dict(base, family="penalty", scene="cloth-on-cloth-a30-mu0.3", symmetric=False),
        ]
    )
    summary = estimate_summary(rows, 1e-6).set_index("family")
    assert list(summary.index) == ["dem_c", "dem_c (friction)", "penalty"]
    assert (summary["systems"] == 1).all()
