"""Conjugate gradients and min-map Newton's ``lu="cg"`` steps.

Truth: dense solves (numpy) of SPD systems, with and without the shift; Lemke's method and the FCLIB
spheres-in-a-box problem for the Newton answers; the factorisations' own answer for frictional (non-symmetric)
problems, which ``"cg"`` must leave to them bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import qlsbench.physics.lcp.minmap as minmap
from qlsbench.errors import InputError
from qlsbench.physics import StepOptions, build_scene
from qlsbench.physics.lcp import LCP, NewtonOptions, lemke, minmap_newton
from qlsbench.physics.lcp.krylov import conjugate_gradient
from qlsbench.physics.spheres.stepping import step

FCLIB = Path(__file__).resolve().parents[2] / "shared" / "external" / "fclib"


def _spd(n: int, seed: int) -> sp.csr_matrix:
    """A sparse SPD matrix: a random graph Laplacian plus a random positive diagonal."""
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, size=(2, 4 * n))
    W = sp.coo_matrix((rng.uniform(0.1, 1.0, 4 * n), (rows, cols)), shape=(n, n)).tocsr()
    W = W + W.T
    L = sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W
    return sp.csr_matrix(L + sp.diags(rng.uniform(0.01, 1.0, n)))


@pytest.mark.parametrize("n, seed, shift", [(10, 0, 0.0), (200, 1, 0.0), (500, 2, 1e-3)])
def test_cg_solves_spd_systems_to_the_asked_residual(n, seed, shift):
    A = _spd(n, seed)
    b = np.random.default_rng(seed + 10).normal(size=n)
    exact = np.linalg.solve(A.toarray() + shift * np.eye(n), b)
    for rtol in (1e-3, 1e-12):
        x, iterations, converged = conjugate_gradient(A, b, rtol=rtol, max_iter=10 * n, shift=shift)
        assert converged and 0 < iterations <= 10 * n
        # the recursive residual drifts from the true one by rounding only
        assert np.linalg.norm(A @ x + shift * x - b) <= 1.01 * rtol * np.linalg.norm(b) + 1e-13
        if rtol == 1e-12:
            np.testing.assert_allclose(x, exact, rtol=1e-8, atol=1e-10 * np.abs(exact).max())


def test_cg_says_when_it_did_not_get_there():
    A = _spd(300, 3)
    b = np.ones(300)
    x, iterations, converged = conjugate_gradient(A, b, rtol=1e-12, max_iter=3)
    assert not converged and iterations == 3
    indefinite = sp.csr_matrix(np.diag([1.0, -1.0, 2.0]))
    assert not conjugate_gradient(indefinite, np.ones(3), rtol=1e-10, max_iter=50)[2]
    zero = conjugate_gradient(A, np.zeros(300), rtol=1e-10, max_iter=5)
    assert zero[2] and zero[1] == 0 and not zero[0].any()


def test_cg_refuses_bad_input_by_name():
    A = _spd(5, 0)
    with pytest.raises(InputError, match="rtol"):
        conjugate_gradient(A, np.ones(5), rtol=0.0, max_iter=5)
    with pytest.raises(InputError, match="b has 4"):
        conjugate_gradient(A, np.ones(4), rtol=1e-6, max_iter=5)
    with pytest.raises(InputError, match="lu must be one of"):
        NewtonOptions(lu="gmres")


@pytest.mark.parametrize("n, seed", [(20, 1), (120, 3)])
def test_cg_newton_agrees_with_lemke(n, seed):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    lcp = LCP(sp.csr_matrix(B @ B.T + np.eye(n)), rng.normal(size=n))
    result = minmap_newton(lcp, options=NewtonOptions(tol=1e-12, lu="cg"))
    assert result.status == "converged" and result.residual <= 1e-12 * (1 + np.linalg.norm(lcp.r))
    assert result.info["cg_iterations"] > 0 and result.info["cg_fallbacks"] == 0
    np.testing.assert_allclose(result.y, lemke(lcp).y, atol=1e-8)


@pytest.mark.skipif(not FCLIB.exists(), reason=f"external FCLIB problems not found at {FCLIB}")
def test_cg_newton_solves_the_fclib_spheres_in_a_box_normal_lcp():
    from qlsbench.physics.lcp.fclib import normal_lcp, read_fclib

    lcp = normal_lcp(read_fclib(FCLIB / "spheres-in-a-box-98-i10000-256-10.hdf5"))
    lcp = LCP(sp.csr_matrix(lcp.Q), lcp.r)
    reference = lemke(lcp).y
    result = minmap_newton(lcp, options=NewtonOptions(tol=1e-8, max_iter=200, lu="cg"))
    assert result.status == "converged", result.message
    np.testing.assert_allclose(result.y, reference, atol=1e-6 * np.abs(reference).max())


def test_cg_hands_what_it_cannot_finish_to_the_factorisation(monkeypatch):
    rng = np.random.default_rng(7)
    B = rng.normal(size=(80, 80))
    lcp = LCP(sp.csr_matrix(B @ B.T + 0.01 * np.eye(80)), rng.normal(size=80))
    monkeypatch.setattr(minmap, "CG_MAX_ITER", 2)
    result = minmap_newton(lcp, options=NewtonOptions(tol=1e-12, lu="cg"))
    exact = minmap_newton(lcp, options=NewtonOptions(tol=1e-12))
    assert result.status == "converged" and result.info["cg_fallbacks"] == result.iterations > 0
    np.testing.assert_array_equal(result.y, exact.y)  # every direction was the factorisation's


def _pile(lu: str, mu: float, steps: int):
    scene = build_scene("sedimentation", n_spheres=60, seed=0)
    options = StepOptions(h=1e-3, mu=mu, newton=NewtonOptions(regularization=1e-8, lu=lu), nsgs=None)
    reports = [step(scene, options, index=k) for k in range(steps)]
    return scene, reports


def test_a_frictional_pile_is_solved_as_without_cg():
    """Friction makes Q non-symmetric: ``"cg"`` leaves every system to COLAMD, so the run is the same to the bit."""
    theirs, their_reports = _pile("symmetric", 0.3, 40)
    ours, our_reports = _pile("cg", 0.3, 40)
    assert sum(r.contacts for r in our_reports) > 0
    np.testing.assert_array_equal(ours.positions, theirs.positions)


def test_a_frictionless_pile_stepped_with_cg_meets_the_tolerance_and_keeps_its_course():
    theirs, their_reports = _pile("symmetric", 0.0, 120)
    ours, our_reports = _pile("cg", 0.0, 120)
    assert sum(r.newton_iterations for r in our_reports) > 0
    assert all(r.status == "converged" for r in our_reports)
    radius = float(np.max(ours.radii))
    # two answers within the Newton tolerance of the same LCPs: the trajectories part by far less than a radius
    assert np.max(np.abs(ours.positions - theirs.positions)) <= 1e-6 * radius
