"""Lemke and projected Gauss-Seidel on random, classic and real contact LCPs; the FCLIB reader."""

from __future__ import annotations

import time
from pathlib import Path

import h5py
import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.errors import DatasetError, InputError
from qlsbench.outcomes import Status
from qlsbench.physics import LCP
from qlsbench.physics.lcp import lemke, pgs, read_lcp_dat
from qlsbench.physics.lcp.fclib import normal_lcp, read_fclib

# The repo is cloned with shared/ beside it (/work/main next to /work/shared).
EXTERNAL = Path(__file__).resolve().parents[2] / "shared" / "external"
needs_external = pytest.mark.skipif(
    not EXTERNAL.is_dir(), reason=f"external problems not found at {EXTERNAL} (shared/ not beside the repo)"
)
SPHERES_BOX = EXTERNAL / "fclib" / "spheres-in-a-box-98-i10000-256-10.hdf5"
LMGC = EXTERNAL / "fclib" / "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5"
BOX_STACKS = EXTERNAL / "fclib" / "Box_Stacks-i0122-82-5.hdf5"
CLASSIC = ["CPS_1", "deudeu", "exp_murty", "mmc", "ortiz", "tobenna"]


def assert_solves(lcp: LCP, y: np.ndarray, *, atol: float = 1e-8) -> None:
    """``y`` is a verified solution: feasible, complementary, small natural residual."""
    w = lcp.Q @ y + lcp.r
    assert np.all(y >= 0)
    assert w.min() >= -atol
    assert abs(y @ w) <= atol * (1 + np.linalg.norm(y) * np.linalg.norm(w))
    assert lcp.natural_residual(y) <= atol


def well_posed_lcp(n: int, seed: int) -> LCP:
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    return LCP(B @ B.T + np.eye(n), rng.normal(size=n))


# --------------------------------------------------------------------------- random


@pytest.mark.parametrize("n", [5, 12, 30, 60])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lemke_and_pgs_agree_on_positive_definite_lcps(n, seed):
    lcp = well_posed_lcp(n, seed)
    by_lemke = lemke(lcp)
    # Tight enough that the error bound residual * ||M|| / lambda_min stays below 1e-8.
    by_pgs = pgs(lcp, tol=1e-12)
    for result in (by_lemke, by_pgs):
        assert result.status is Status.CONVERGED, result.message
        assert_solves(lcp, result.y)
        assert result.residual == pytest.approx(lcp.natural_residual(result.y))
    assert by_lemke.residual <= 1e-12  # a direct solve on the final basis: exact to rounding
    np.testing.assert_allclose(by_lemke.y, by_pgs.y, rtol=0, atol=1e-8)
    assert len(by_pgs.history) == by_pgs.iterations


def test_projected_sor_matches_lemke():
    lcp = well_posed_lcp(20, 7)
    sor = pgs(lcp, tol=1e-12, omega=1.3)
    assert sor.status is Status.CONVERGED and sor.info["omega"] == 1.3
    np.testing.assert_allclose(sor.y, lemke(lcp).y, rtol=0, atol=1e-8)


def test_nonnegative_r_gives_zero_without_pivoting():
    result = lemke(LCP(np.array([[1.0, -3.0], [2.0, 1.0]]), [0.0, 2.0]))
    assert result.status is Status.CONVERGED and result.iterations == 0
    np.testing.assert_array_equal(result.y, [0.0, 0.0])


def test_lemke_hand_worked_2x2():
    # Q = [[2, 1], [1, 2]], r = (-1, 1). Guess y2 = 0: 2 y1 - 1 = 0 gives y1 = 1/2,
    # then w2 = y1 + 1 = 3/2 >= 0, so y = (1/2, 0) with w = (0, 3/2).
    lcp = LCP(np.array([[2.0, 1.0], [1.0, 2.0]]), [-1.0, 1.0])
    result = lemke(lcp)
    assert result.status is Status.CONVERGED
    np.testing.assert_allclose(result.y, [0.5, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(lcp.Q @ result.y + lcp.r, [0.0, 1.5], rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(20))
def test_lemke_on_degenerate_rank_deficient_psd_lcps(seed):
    # Contact-like: Q = B B^T of low rank, and a planted solution where some
    # components have y_i = w_i = 0 (degenerate), so min-ratio ties are common.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    B = rng.normal(size=(n, int(rng.integers(1, n))))
    Q = B @ B.T
    y = np.where(rng.random(n) < 0.4, rng.random(n), 0.0)
    w = np.where((y == 0) & (rng.random(n) < 0.5), rng.random(n), 0.0)
    lcp = LCP(Q, w - Q @ y)
    result = lemke(lcp)
    assert result.status is Status.CONVERGED, result.message
    assert_solves(lcp, result.y, atol=1e-8 * (1 + np.abs(Q).max()))


def test_lemke_reports_ray_termination_on_infeasible_lcp():
    # w = -y - 1 < 0 for every y >= 0: no solution, Lemke must end on a ray.
    result = lemke(LCP(np.array([[-1.0]]), [-1.0]))
    assert result.status is Status.FAILED
    assert "ray termination" in result.message


def test_lemke_respects_max_pivots():
    result = lemke(well_posed_lcp(30, 0), max_pivots=3)
    assert result.status is Status.MAX_ITER and result.iterations == 3
    assert "max_pivots=3" in result.message


def test_pgs_rejects_zero_diagonal_naming_the_row():
    Q = sp.csr_matrix(np.array([[2.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 3.0]]))
    with pytest.raises(InputError, match=r"row 1\b"):
        pgs(LCP(Q, [-1.0, -1.0, -1.0]))


@pytest.mark.parametrize(
    "kwargs, name",
    [({"omega": 2.0}, "omega"), ({"tol": 0.0}, "tol"), ({"max_sweeps": 0}, "max_sweeps"), ({"y0": [1.0]}, "y0")],
)
def test_pgs_rejects_bad_parameters(kwargs, name):
    with pytest.raises(InputError, match=name):
        pgs(well_posed_lcp(3, 0), **kwargs)


# --------------------------------------------------------------------------- classic .dat


def test_read_lcp_dat_is_column_major(tmp_path):
    # Siconos writes the dense matrix in storage (column-major) order, one column per line.
    path = tmp_path / "lcp_small.dat"
    path.write_text("2\n0\n2\n2\n2\t2\n1 3\n2 4\n-1 -2\n\nremark: M = [[1, 2], [3, 4]]\n")
    lcp = read_lcp_dat(path)
    np.testing.assert_array_equal(lcp.Q.toarray(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(lcp.r, [-1.0, -2.0])


@pytest.mark.parametrize(
    "text, field",
    [
        ("2\n0\n2\n2\n2 2\n1 2\n3 4\n-1\n", "expected 6 numbers"),
        ("2\n1\n2\n2\n2 2\n1 2\n3 4\n-1 -2\n", "storage type"),
        ("2\n0\n3\n3\n3 3\n", "inconsistent"),
        ("2\n0\n2\n2\n2 2\n1 x\n3 4\n-1 -2\n", "non-numeric"),
    ],
)
def test_read_lcp_dat_rejects_malformed_files(tmp_path, text, field):
    path = tmp_path / "bad.dat"
    path.write_text(text)
    with pytest.raises(DatasetError, match=field) as excinfo:
        read_lcp_dat(path)
    assert "bad.dat" in str(excinfo.value)


@needs_external
@pytest.mark.parametrize("name", CLASSIC)
def test_lemke_on_classic_problems(name):
    lcp = read_lcp_dat(EXTERNAL / "lcp" / f"lcp_{name}.dat")
    result = lemke(lcp)
    if result.status is Status.FAILED:
        assert result.message
    else:
        assert result.status is Status.CONVERGED, result.message
        assert_solves(lcp, result.y)
    # All six are solvable (tobenna is a feasible copositive-plus game LCP, highly
    # degenerate: it needs the lexicographic tie-break to survive rounding).
    assert result.status is Status.CONVERGED


@needs_external
def test_classic_solutions_match_hand_solutions():
    # deudeu: both rows active, 2 y1 + y2 = 5 and y1 + 2 y2 = 6.
    deudeu = lemke(read_lcp_dat(EXTERNAL / "lcp" / "lcp_deudeu.dat"))
    np.testing.assert_allclose(deudeu.y, [4 / 3, 7 / 3], rtol=1e-14)
    # CPS_1: M = ones(2, 2), q = (-1, -1); the solutions are y1 + y2 = 1.
    cps = lemke(read_lcp_dat(EXTERNAL / "lcp" / "lcp_CPS_1.dat"))
    assert cps.y.sum() == pytest.approx(1.0, abs=1e-14)


# --------------------------------------------------------------------------- FCLIB


@needs_external
def test_spheres_in_a_box_delassus_is_symmetric_psd():
    problem = read_fclib(SPHERES_BOX)
    assert (problem.kind, problem.nc) == ("global", 256)
    assert problem.W.shape == (768, 768) and problem.q.shape == (768,)
    np.testing.assert_allclose(problem.mu, 0.1)
    W = problem.W.toarray()
    assert np.array_equal(W, W.T)
    eig = np.linalg.eigvalsh(W)
    assert eig[0] >= -1e-8 * eig[-1]


@needs_external
def test_local_fclib_file():
    problem = read_fclib(LMGC)
    assert (problem.kind, problem.nc, problem.W.shape) == ("local", 60, (180, 180))
    assert problem.source == LMGC


@needs_external
def test_global_sign_convention_gives_approaching_contacts():
    # A box stack resting under gravity: with q = H^T M^-1 f + w every contact
    # is approaching (q_n < 0), and the normal LCP has a nonzero solution.
    lcp = normal_lcp(read_fclib(BOX_STACKS))
    assert np.all(lcp.r < 0)
    result = lemke(lcp)
    assert result.status is Status.CONVERGED
    assert_solves(lcp, result.y, atol=1e-12)


@needs_external
def test_lemke_solves_frictionless_spheres_in_a_box():
    lcp = normal_lcp(read_fclib(SPHERES_BOX))
    assert lcp.size == 256
    start = time.perf_counter()
    result = lemke(lcp)
    elapsed = time.perf_counter() - start
    assert result.status is Status.CONVERGED, result.message
    assert_solves(lcp, result.y, atol=1e-12)
    assert elapsed < 5.0


def test_missing_fclib_file_names_it(tmp_path):
    path = tmp_path / "absent.hdf5"
    with pytest.raises(DatasetError, match="absent.hdf5"):
        read_fclib(path)


def test_corrupt_fclib_file_names_it(tmp_path):
    path = tmp_path / "garbage.hdf5"
    path.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(DatasetError, match="garbage.hdf5"):
        read_fclib(path)


def _write_local(path: Path, *, drop: str | None = None) -> None:
    """A valid 1-contact local FCLIB file, optionally missing one dataset."""
    W = sp.csr_matrix(np.diag([2.0, 1.0, 1.0]))
    fields = {
        "fclib_local/spacedim": [3],
        "fclib_local/W/m": [3],
        "fclib_local/W/n": [3],
        "fclib_local/W/nz": [-2],
        "fclib_local/W/nzmax": [W.nnz],
        "fclib_local/W/p": W.indptr.astype(np.int32),
        "fclib_local/W/i": W.indices.astype(np.int32),
        "fclib_local/W/x": W.data,
        "fclib_local/vectors/q": [-1.0, 0.0, 0.0],
        "fclib_local/vectors/mu": [0.3],
    }
    with h5py.File(path, "w") as h:
        for name, value in fields.items():
            if name != drop:
                h[name] = np.asarray(value)


def test_small_local_file_round_trip(tmp_path):
    path = tmp_path / "one.hdf5"
    _write_local(path)
    problem = read_fclib(path)
    assert problem.nc == 1 and problem.kind == "local"
    np.testing.assert_array_equal(problem.W.toarray(), np.diag([2.0, 1.0, 1.0]))
    result = lemke(normal_lcp(problem))
    np.testing.assert_allclose(result.y, [0.5])


@pytest.mark.parametrize("field", ["fclib_local/W/x", "fclib_local/vectors/q", "fclib_local/spacedim"])
def test_missing_fclib_field_names_file_and_field(tmp_path, field):
    path = tmp_path / "partial.hdf5"
    _write_local(path, drop=field)
    with pytest.raises(DatasetError, match="partial.hdf5") as excinfo:
        read_fclib(path)
    assert field.rsplit("/", 1)[-1] in str(excinfo.value)


def test_fclib_file_without_problem_group(tmp_path):
    path = tmp_path / "other.hdf5"
    with h5py.File(path, "w") as h:
        h["something/else"] = np.zeros(3)
    with pytest.raises(DatasetError, match="fclib_global"):
        read_fclib(path)
