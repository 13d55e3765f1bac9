"""The advantage map's systems: the Poisson control's exact spectrum, and the profile every system gets (issue 63).

Truth here: the Laplacian's eigenvalues are known in closed form, dense SVD is exact to rounding, and the sparse
estimates used above 4,096 unknowns must agree with it at every size where both run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from qlsbench.data import pinned, to_system
from qlsbench.errors import InputError
from qlsbench.problems import ising_inspired, poisson, poisson_kappa, poisson_matrix, profile


@pytest.mark.parametrize(("dims", "points"), [(1, 1), (1, 40), (2, 12), (3, 6)])
def test_the_laplacians_spectrum_is_the_closed_form(dims, points):
    A = poisson_matrix(dims, points).toarray()
    eigenvalues = np.linalg.eigvalsh(A)
    k = np.arange(1, points + 1)
    one_axis = 4 * np.sin(k * np.pi / (2 * (points + 1))) ** 2
    grid = np.meshgrid(*[one_axis] * dims, indexing="ij")
    assert np.allclose(np.sort(sum(g.ravel() for g in grid)), eigenvalues, rtol=1e-12, atol=1e-12)
    assert eigenvalues[-1] / eigenvalues[0] == pytest.approx(poisson_kappa(points), rel=1e-10)


def test_the_controls_kappa_grows_as_n_to_the_two_over_d():
    """kappa = cot^2(pi / (2 (m + 1))) ~ (2 (m + 1) / pi)^2: doubling m multiplies it by about 4 in any dimension."""
    assert poisson_kappa(1) == pytest.approx(1.0)
    ratios = [poisson_kappa(2 * m) / poisson_kappa(m) for m in (50, 100, 200)]
    assert all(3.9 < r < 4.01 for r in ratios), ratios
    assert poisson_kappa(1000) == pytest.approx((2 * 1001 / np.pi) ** 2, rel=1e-5)


def _sizes():
    """Systems of every kind the map holds, small enough for a dense SVD in well under a second."""
    df = pinned("dem_c-mu0")
    dem = to_system(df.loc[df["n_qubits"].idxmax()])
    return {
        "poisson-1d-800": poisson_matrix(1, 800),
        "poisson-2d-40": poisson_matrix(2, 40),
        "poisson-3d-9": poisson_matrix(3, 9),
        "ising-9": ising_inspired(9, kappa=100.0).A,
        f"dem_c-{dem.dim}": dem.A,
        "nonsymmetric-300": sp.random(300, 300, density=0.02, random_state=1) + 3 * sp.identity(300),
    }


@pytest.mark.parametrize("name", list(_sizes()))
def test_the_sparse_kappa_estimate_matches_dense_svd(name):
    A = _sizes()[name]
    dense, sparse = profile(A), profile(A, dense_limit=0)
    assert dense["kappa_method"] == "dense" and sparse["kappa_method"] == "sparse"
    assert sparse["norm2"] == pytest.approx(dense["norm2"], rel=1e-8)
    assert sparse["kappa"] == pytest.approx(dense["kappa"], rel=1e-6)


def test_the_profile_counts_the_stencil():
    m = 9
    p = profile(poisson_matrix(2, m))
    assert (p["N"], p["s"], p["max_abs"]) == (m * m, 5, 4.0)
    assert p["nnz"] == 5 * m * m - 4 * m  # each of 4 directions loses one neighbour per boundary row
    assert p["kappa"] == pytest.approx(poisson_kappa(m), rel=1e-10)
    A = sp.csr_matrix(np.array([[1.0, 0.0, 5.0], [0.0, 2.0, 0.0], [0.0, 0.0, -7.0]]))
    A.data[A.data == 2.0] = 0.0  # a stored zero is not an entry
    q = profile(A)
    assert (q["nnz"], q["s"], q["max_abs"], q["kappa"]) == (3, 2, 7.0, np.inf)


def test_the_control_system_and_its_bad_input():
    system = poisson(2, 8)
    assert system.dim == 64 and system.meta["kappa"] == poisson_kappa(8) and np.linalg.norm(system.b) == 1.0
    with pytest.raises(InputError, match="dims must be 1, 2 or 3"):
        poisson(4, 3)
    with pytest.raises(InputError, match="above the limit"):
        poisson(3, 300)
    with pytest.raises(InputError, match="points"):
        poisson(1, 0)


# ---------------------------------------------------------------- the classical side, measured


def _reference(system):
    from qlsbench.problems import reference_solution

    return reference_solution(system.A, system.b)


def _installed(rows):
    """The rows of methods that run here: CHOLMOD is an optional extra, its row says so where it is absent."""
    from qlsbench.bench.advantage import cholmod_installed

    absent = set() if cholmod_installed() else {"cholmod"}
    assert all(r["not_run"] == "scikit-sparse is not installed" for r in rows if r["method"] in absent)
    return [r for r in rows if r["method"] not in absent]


@pytest.mark.parametrize("epsilon", [1e-2, 1e-4])
def test_every_method_reaches_the_quantum_accuracy_on_the_control(epsilon):
    from qlsbench.bench.advantage import METHODS, cholmod_installed, classical_best

    system = poisson(2, 20)
    rows = classical_best(system.A, system.b, _reference(system), epsilon, isolate=False)
    assert {r["method"] for r in rows} == set(METHODS)  # the Laplacian is SPD: every method takes it
    for r in rows:
        if r["method"] == "cholmod" and not cholmod_installed():  # the optional extra: a row that says so
            assert r["not_run"] == "scikit-sparse is not installed" and not r["reached"], r
            continue
        assert r["reached"] and r["fidelity"] >= 1 - epsilon and r["rel_residual"] <= epsilon, r
        assert r["rtol"] <= epsilon and r["seconds"] > 0 and r["kind"] == "spd"


def test_a_method_stops_at_the_loosest_tolerance_that_is_enough():
    """CG with Jacobi on the 2-D Laplacian: the iterations needed grow as the tolerance tightens, and the run
    that counts is the first rung of the ladder that reaches the target, not a tighter one."""
    from qlsbench.bench.advantage import time_to_accuracy

    system = poisson(2, 40)
    x = _reference(system)
    loose, tight = (time_to_accuracy("cg-jacobi", system.A, system.b, x, eps) for eps in (1e-2, 1e-8))
    assert loose["reached"] and tight["reached"]
    assert loose["rtol"] == 1e-2  # the smooth solution: the loosest rung is already within 1e-2
    assert loose["iterations"] < tight["iterations"] and tight["rtol"] <= 1e-8


def test_methods_are_chosen_by_what_the_matrix_is_and_bad_names_refused():
    from qlsbench.bench.advantage import applicable, matrix_kind, time_to_accuracy

    nonsymmetric = sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 5.0]]))
    indefinite = sp.csr_matrix(np.diag([3.0, -1.0, 2.0]))
    assert matrix_kind(nonsymmetric) == "any" and applicable("any") == ["splu", "gmres-ilu"]
    assert matrix_kind(indefinite) == "symmetric" and "cg-jacobi" not in applicable("symmetric")
    assert matrix_kind(poisson_matrix(1, 5)) == "spd"
    with pytest.raises(InputError, match="classical method 'qr' is unknown"):
        time_to_accuracy("qr", indefinite, np.ones(3), np.ones(3), 1e-2)


@pytest.mark.parametrize("seed", range(12))
def test_the_kind_of_a_symmetric_matrix_equals_its_dense_spectrum(seed):
    """Diagonally dominant or not, singular blocks or not: ``spd`` exactly when numpy's lowest eigenvalue is
    positive (the dominance shortcut and the Lanczos test, both against the oracle)."""
    from qlsbench.bench.advantage import matrix_kind

    rng = np.random.default_rng(seed)
    n = 12
    off = sp.random(n, n, density=0.25, random_state=rng, data_rvs=lambda k: rng.choice([-1.0, 1.0], k))
    off = sp.triu(off, 1)
    off = off + off.T
    rows = np.asarray(abs(off).sum(axis=1)).ravel()
    # dominant rows (some strictly), rows that are not, and a zero row: the cases the shortcut must tell apart
    d = rows + rng.choice([0.0, 0.0, 1.0, -0.5], n)
    A = sp.csr_matrix(off + sp.diags(d))
    lowest = np.linalg.eigvalsh(A.toarray())[0]
    if abs(lowest) < 1e-8:  # singular to rounding: either answer would be the margin's, not the test's
        pytest.skip("singular to rounding")
    assert (matrix_kind(A) == "spd") == (lowest > 0), (lowest, d - rows)


def test_the_laplacian_is_told_spd_without_lanczos():
    """At N = 65,536 the lowest eigenvalue sits in a cluster Lanczos needed over 12 minutes to resolve; the
    diagonal says it at once."""
    from unittest import mock

    from qlsbench.bench.advantage import matrix_kind

    with mock.patch("scipy.sparse.linalg.eigsh", side_effect=AssertionError("Lanczos ran")):
        assert matrix_kind(poisson_matrix(1, 65536)) == "spd"
        assert matrix_kind(poisson_matrix(3, 10)) == "spd"


def test_an_isolated_measurement_equals_the_one_in_process():
    """Each method in a fresh process of its own returns the same solution quality (memory is its own there)."""
    from qlsbench.bench.advantage import classical_best

    system = poisson(1, 50)
    x = _reference(system)
    here = classical_best(system.A, system.b, x, 1e-4, isolate=False)
    there = classical_best(system.A, system.b, x, 1e-4)
    assert [(r["method"], r["iterations"], r["rtol"]) for r in _installed(here)] == [
        (r["method"], r["iterations"], r["rtol"]) for r in _installed(there)
    ]
    assert all(r["peak_mb"] > 10 for r in _installed(there))  # a Python process with numpy and scipy loaded, at least


def test_classical_times_are_medians_with_their_spread_and_a_rerun_falls_near_it():
    """Each reaching time is the median of REPEATS runs inside their range; a second measurement of the same
    system reproduces the rung and iterations exactly, the fidelity to rounding, and its time within a band around
    the first (a factor 4 beyond the spread: the machine is shared, the band is what a test anywhere can hold)."""
    from qlsbench.bench.advantage import REPEATS, time_to_accuracy

    system = poisson(2, 24)
    x = _reference(system)
    first, second = (time_to_accuracy("cg-amg", system.A, system.b, x, 1e-4) for _ in range(2))
    for row in (first, second):
        assert row["reached"] and row["repeats"] == REPEATS
        assert row["seconds_low"] <= row["seconds"] <= row["seconds_high"]
    assert (first["rtol"], first["iterations"]) == (second["rtol"], second["iterations"])
    assert second["fidelity"] == pytest.approx(first["fidelity"], abs=1e-9)  # pyamg's spectral radius: a random start
    assert first["seconds_low"] / 4 <= second["seconds"] <= first["seconds_high"] * 4


# ---------------------------------------------------------------- the sweep


def test_a_sweep_resumes_at_the_next_size_and_keeps_what_it_wrote(tmp_path):
    from qlsbench.bench.advantage import sweep

    first = sweep("poisson-1d", (16,), tmp_path, ["superconducting-1e-4"], progress=False)
    again = sweep("poisson-1d", (16, 32), tmp_path, ["superconducting-1e-4"], progress=False)
    assert list(again["systems"]["size"]) == [16, 32]
    assert again["systems"]["kappa"].tolist() == pytest.approx([poisson_kappa(16), poisson_kappa(32)], rel=1e-10)
    assert (again["systems"]["kappa_sparse_rel_error"] < 1e-6).all()
    for name, table in again.items():
        assert (table["size"] == 16).sum() == (first[name]["size"] == 16).sum() > 0, name
    written = {name: (tmp_path / f"poisson-1d.{name}.parquet").stat().st_mtime_ns for name in again}
    sweep("poisson-1d", (16, 32), tmp_path, ["superconducting-1e-4"], progress=False)  # nothing new: nothing written
    assert {name: (tmp_path / f"poisson-1d.{name}.parquet").stat().st_mtime_ns for name in again} == written
    quantum = again["quantum"]
    assert set(quantum["readout"]) == {"observable", "sampling"} and set(quantum["solver"]) == {"qsvt", "adiabatic"}
    assert set(quantum["encoding"]) == {"sparse-access", "pauli-lcu"}
    sampled = quantum[quantum["readout"] == "sampling"]
    assert (sampled["solves"] == sampled["N"] / sampled["epsilon"] ** 2).all()


@pytest.fixture(scope="module")
def pile30():
    """The 30-sphere pile axis's system and the seconds its build took (built once: 1,200 steps)."""
    import time

    from qlsbench.bench.advantage import grown

    start = time.perf_counter()
    system = grown("dem_c-mu0", 30)
    return system, time.perf_counter() - start


def test_the_growth_axes_build_their_systems_and_refuse_unknown_ones(pile30):
    from qlsbench.bench.advantage import AXES, grown

    assert {"dem_c-mu0", "ising", "poisson-1d", "poisson-2d", "poisson-3d"} <= set(AXES)
    pile = pile30[0]
    assert pile.meta["spheres"] == 30 and 10 <= pile.dim <= 30 * 6  # a few contacts per sphere once settled
    assert abs(pile.A - pile.A.T).max() < 1e-12  # frictionless min-map Newton systems are symmetric
    assert grown("ising", 5).dim == 32
    with pytest.raises(InputError, match="growth family 'cloth' is unknown"):
        grown("cloth", 4)
    with pytest.raises(InputError, match="hardware model 'qpu' is unknown"):
        from qlsbench.bench.advantage import sweep

        sweep("ising", (4,), Path("never-written"), ["qpu"], progress=False)
    assert not Path("never-written").exists()


def test_a_pile_build_interrupted_part_way_resumes_to_the_same_system(tmp_path, pile30):
    """The resumable build (the 15,000-sphere pile takes hours): stopped by an interrupt part way, then run
    again, it gives the uninterrupted build's system to the last bit and counts the first part's seconds."""
    import signal

    from qlsbench.bench.advantage import grown, growth_checkpoint

    whole, seconds = pile30

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5 * seconds)  # half way, as this machine runs it now
        with pytest.raises(KeyboardInterrupt):
            grown("dem_c-mu0", 30, state=tmp_path, every=0.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    saved = growth_checkpoint(tmp_path, "dem_c-mu0", 30)
    assert saved.exists()
    resumed = grown("dem_c-mu0", 30, state=tmp_path, every=0.0)
    assert resumed.meta.pop("earlier_seconds") > 0
    assert resumed.meta == whole.meta and np.array_equal(resumed.b, whole.b)
    assert (resumed.A != whole.A).nnz == 0 and resumed.A.shape == whole.A.shape


def test_a_pile_past_the_cg_size_is_built_by_cg_newton_to_the_same_kind_of_system(monkeypatch):
    """Above ``DEM_CG_ABOVE`` spheres the pile takes CG Newton directions: its system says so, is the symmetric
    positive semidefinite Newton system of the same pile (within a contact of the factorised build's size), and its
    build is another run (checkpoint key) from the factorised one's."""
    import qlsbench.bench.advantage._growth as growth
    from qlsbench.bench.advantage import grown

    monkeypatch.setattr(growth, "DEM_STEPS", 400)  # a pile with contacts, in a third of the axis's time
    factorised = grown("dem_c-mu0", 30)
    monkeypatch.setattr(growth, "DEM_CG_ABOVE", 20)
    by_cg = grown("dem_c-mu0", 30)
    assert by_cg.meta.pop("newton_lu") == "cg" and "newton_lu" not in factorised.meta
    assert by_cg.meta == factorised.meta and abs(by_cg.dim - factorised.dim) <= 1
    A = by_cg.A.toarray()
    eigenvalues = np.linalg.eigvalsh(A)  # positive semidefinite: a settled pile's active set can be hyperstatic
    assert np.array_equal(A, A.T) and eigenvalues.min() >= -1e-12 * eigenvalues.max()


def test_a_run_is_identified_by_the_options_it_reads():
    """A checkpoint's key: a frictionless run's leaves out the friction-only fields (so a build saved before they
    existed resumes), a frictional run's keeps them, and a field the run reads still tells two runs apart."""
    from dataclasses import fields, replace

    from qlsbench.physics import StepOptions

    frictionless = StepOptions(h=1e-3, mu=0.0)
    assert replace(frictionless, friction_tol=1e-4, friction_solver="nsgs").identity() == frictionless.identity()
    assert (
        "friction" not in frictionless.identity()
        and replace(frictionless, h=2e-3).identity() != frictionless.identity()
    )
    frictional = StepOptions(h=1e-3, mu=0.3)
    assert frictional.identity() == repr(frictional)  # every field, in the dataclass's own repr
    assert replace(frictional, friction_tol=1e-4).identity() != frictional.identity()
    # the frictionless identity is the dataclass repr of the fields it keeps, in their order
    kept = [f.name for f in fields(frictionless) if not f.name.startswith("friction_")]
    assert (
        frictionless.identity() == "StepOptions(" + ", ".join(f"{n}={getattr(frictionless, n)!r}" for n in kept) + ")"
    )


# ---------------------------------------------------------------- the map


def test_a_power_law_is_recovered_and_two_lines_cross_where_the_algebra_says():
    from qlsbench.bench.advantage import crossover, power_fit

    N = np.array([1e2, 1e3, 1e4, 1e5])
    classical = power_fit(N, 1e-6 * N**2)
    quantum = power_fit(N, 1e3 * N)
    assert classical.p == pytest.approx(2.0) and classical.c == pytest.approx(1e-6)
    assert classical.low == pytest.approx(2.0) and classical.high == pytest.approx(2.0)  # exact data: no spread
    assert crossover(classical, quantum) == pytest.approx(1e9, rel=1e-9)  # 1e-6 N^2 = 1e3 N
    assert crossover(quantum, classical) == np.inf  # the quantum cost grows faster: no size favours it
    # a band line through the classical points' centre: at p = 3 it meets the data's mean, not c
    steeper = crossover(classical, quantum, 3.0)
    centre_n = np.exp(np.log(N).mean())
    assert classical.at(centre_n, 3.0) == pytest.approx(classical.at(centre_n))
    assert 1e3 * steeper == pytest.approx(classical.at(steeper, 3.0), rel=1e-9)


def test_noisy_points_give_an_interval_around_the_exponent():
    from qlsbench.bench.advantage import power_fit

    rng = np.random.default_rng(3)
    N = np.geomspace(1e2, 1e6, 12)
    fit = power_fit(N, 5e-8 * N**1.5 * np.exp(rng.normal(0, 0.2, N.size)))
    assert fit.low < 1.5 < fit.high and fit.high - fit.low < 0.2 and fit.points == 12
    assert np.isnan(power_fit([10.0], [1.0]).p)  # one size: nothing to fit


def test_the_sweep_and_its_page_refuse_bad_input_before_any_work(tmp_path, capsys):
    """One line naming the family, size, model or file, and nothing written."""
    from qlsbench.bench.advantage import sweep
    from qlsbench.cli import main
    from qlsbench.report import figures

    out = ["--out", str(tmp_path / "a"), "--datasets", str(tmp_path / "d")]
    assert main(["advantage", "--families", "cloth", *out]) != 0
    assert "growth family 'cloth' is unknown" in capsys.readouterr().err
    assert main(["advantage", "--families", "ising", "--sizes", "21", *out]) != 0
    assert "growth ising: qubits must be an integer from 1 to 20, got 21" in capsys.readouterr().err
    assert main(["advantage", "--families", "ising", "poisson-1d", "--sizes", "4", *out]) != 0
    assert "--sizes needs exactly one family" in capsys.readouterr().err
    assert main(["advantage", "--models", "qpu", *out]) != 0
    assert "hardware model 'qpu' is unknown" in capsys.readouterr().err
    with pytest.raises(InputError, match="points must be an integer from 1"):
        sweep("poisson-1d", (0,), tmp_path / "a", progress=False)
    with pytest.raises(InputError, match="not a sweep table"):
        figures()["advantage"]([str(tmp_path / "x.parquet")], tmp_path / "page.md")
    assert list(tmp_path.iterdir()) == []


def test_the_best_of_each_side_is_taken_within_a_family():
    """Two families at the same size are never mixed: each keeps its own fastest method and cheapest estimate."""
    from qlsbench.bench.advantage import best_classical, cheapest_quantum

    classical = pd.DataFrame(
        {
            "family": ["a", "a", "b"],
            "size": [8, 8, 8],
            "N": [64, 64, 512],
            "epsilon": [1e-2] * 3,
            "reached": [True, True, True],
            "seconds": [2.0, 3.0, 1.0],
            "method": ["x", "y", "z"],
        }
    )
    best = best_classical(classical)
    assert best[["family", "method"]].values.tolist() == [["a", "x"], ["b", "z"]]
    quantum = classical.drop(columns=["reached", "method"]).assign(
        readout="observable", model="m", solver=["p", "q", "r"]
    )
    assert cheapest_quantum(quantum)["solver"].tolist() == ["p", "r"]


def test_a_method_past_its_time_or_a_direct_solve_that_would_not_fit_is_a_row_saying_why():
    """The sweep outlives a method that overruns (its process is stopped: no process answers in a microsecond)
    and one left out by the axis."""
    from qlsbench.bench.advantage import classical_best

    system = poisson(1, 40)
    x = _reference(system)
    rows = _installed(classical_best(system.A, system.b, x, 1e-2, timeout=1e-6))
    assert len(rows) >= 5 and all(not r["reached"] and r["not_run"] == "over 1e-06 s" for r in rows)
    rows = {r["method"]: r for r in classical_best(system.A, system.b, x, 1e-2, isolate=False, factorise=False)}
    assert rows["splu"]["not_run"] == "its factors would not fit" and not rows["splu"]["reached"]
    assert rows["cg-jacobi"]["reached"] and rows["cg-jacobi"]["not_run"] == ""


def test_sigma_min_by_conjugate_gradients_equals_the_dense_value():
    """The factorisation-free path (the Ising axis above 2^13) against a dense SVD."""
    import numpy.linalg as npl

    from qlsbench.problems import ising_inspired, profile

    system = ising_inspired(7, 25.0)
    sparse = profile(system.A, dense_limit=0, factorise=False)
    dense = npl.svd(system.A.toarray(), compute_uv=False)
    assert sparse["kappa_method"] == "sparse-cg"
    assert sparse["sigma_min"] == pytest.approx(dense[-1], rel=1e-8) and sparse["norm2"] == pytest.approx(
        dense[0], rel=1e-8
    )


def test_a_method_that_fails_on_a_system_is_a_row_saying_so_not_a_failed_sweep():
    """SuperLU on an exactly singular matrix raises; the row records it and the other methods still run."""
    import scipy.sparse as sp

    from qlsbench.bench.advantage import applicable, classical_best, matrix_kind

    singular = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]]))
    rows = {r["method"]: r for r in classical_best(singular, np.ones(3), np.ones(3), 1e-2, isolate=False)}
    assert not rows["splu"]["reached"] and rows["splu"]["not_run"].startswith("failed: ")
    assert set(rows) == set(applicable(matrix_kind(singular)))


def test_two_nearly_parallel_fits_cross_past_every_double_as_no_crossover():
    """Exponents 1e-6 apart put the meeting point past 1e308: inf, not an overflow."""
    import math

    from qlsbench.bench.advantage import Fit, crossover

    classical = Fit(1.000001, 0.9, 1.1, 1e-3, 5)
    quantum = Fit(1.0, 0.9, 1.1, 1e3, 5)
    assert crossover(classical, quantum) == math.inf
    assert crossover(Fit(2.0, 1.9, 2.1, 1.0, 5), Fit(1.0, 0.9, 1.1, 100.0, 5)) == pytest.approx(100.0)
