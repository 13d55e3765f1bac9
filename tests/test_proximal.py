"""The proximal min-map Newton: it solves what Lemke solves, and it rescues the frictional steps where Newton stalls.

Nothing here hinges on one trajectory's branch. Which steps of a frictional pile make plain Newton stall depends on
the last bits of the arithmetic (the OpenBLAS kernel, the thread count), so the rescue is tested on stored LCPs on
which Newton stalls (tests/data/stalling_lcps.py says how they were found), and the simulation with the fallback is
held to invariants with tolerances.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.physics import (
    LCP,
    NewtonOptions,
    ProximalOptions,
    StepOptions,
    SubsystemRecorder,
    build_scene,
    detect_contacts,
    minmap_newton,
    proximal_minmap,
    simulate,
    solve_lcp,
)
from qlsbench.physics.lcp.lemke import lemke

NEWTON = NewtonOptions(regularization=1e-8)
#: An 8-sphere frictional sedimentation; from about step 195 on, plain min-map Newton stalls on many of its steps.
# The v1 chain (plain Newton first, no slop), whose fallbacks these tests are about; v2 starts from NSGS
# (tests/test_nsgs.py, tests/test_frictional_corpus.py).
STEPS, FRICTIONAL = 216, dict(h=1e-3, mu=0.3, newton=NEWTON, nsgs=None, slop=0.0)
STORED = Path(__file__).parent / "data" / "stalling_lcps.npz"


def _target(lcp: LCP) -> float:
    return NEWTON.tol * (1 + np.linalg.norm(lcp.r))


def _stored(k: int) -> tuple[LCP, np.ndarray, sp.csr_matrix, int]:
    """Entry ``k`` of the stored file: the LCP, its warm start, the velocity map ``V`` and the contact count."""
    with np.load(STORED) as z:
        m = len(z[f"{k}_r"])
        Q = sp.csr_matrix((z[f"{k}_Q_data"], z[f"{k}_Q_indices"], z[f"{k}_Q_indptr"]), shape=(m, m))
        V = sp.csr_matrix((z[f"{k}_V_data"], z[f"{k}_V_indices"], z[f"{k}_V_indptr"]), shape=(int(z[f"{k}_V_rows"]), m))
        return LCP(Q, z[f"{k}_r"]), z[f"{k}_y0"], V, int(z[f"{k}_contacts"])


with np.load(STORED) as _z:
    STORED_COUNT = int(_z["count"])


@pytest.mark.parametrize("n, seed", [(5, 0), (40, 1), (120, 2)])
def test_proximal_minmap_agrees_with_lemke_on_random_lcps(n, seed):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    lcp = LCP(B @ B.T + np.eye(n), rng.normal(size=n))  # positive definite: one solution
    result = proximal_minmap(lcp, options=NewtonOptions(tol=1e-12))
    assert result.status == "converged"
    np.testing.assert_allclose(result.y, lemke(lcp).y, atol=1e-8)
    assert result.residual <= 1e-12 * (1 + np.linalg.norm(lcp.r))
    assert solve_lcp(lcp, "proximal", tol=1e-12, proximal={"delta": 0.1}).status == "converged"


# ---------------------------------------------------------------- stored LCPs on which Newton stalls


def test_the_stored_lcps_are_frictional_contact_lcps():
    assert STORED_COUNT >= 3
    for k in range(STORED_COUNT):
        lcp, y0, V, nc = _stored(k)
        assert lcp.size == nc * (2 + 8) and y0.shape == (lcp.size,) and V.shape[1] == lcp.size


@pytest.mark.parametrize("k", range(STORED_COUNT))
def test_plain_newton_stalls_on_the_stored_lcps(k):
    """The premise: Newton from the warm start ends far above its tolerance (stored at >= 1e3 times)."""
    lcp, y0, _, _ = _stored(k)
    result = minmap_newton(lcp, y0, options=NEWTON)
    assert result.status != "converged"
    assert result.residual > 10 * _target(lcp)


@pytest.mark.parametrize("k", range(STORED_COUNT))
@pytest.mark.parametrize("start", ["warm", "zero"])
def test_proximal_solves_the_stored_lcps_as_lemke_does(k, start):
    lcp, y0, V, nc = _stored(k)
    result = proximal_minmap(lcp, y0 if start == "warm" else None, options=NEWTON)
    assert result.status == "converged", result.message
    y, target = result.y, _target(lcp)
    assert result.residual == lcp.natural_residual(y) <= target
    # A solution of the LCP: feasible and complementary, to the tolerance.
    w = lcp.Q @ y + lcp.r
    assert y.min() >= 0 and w.min() >= -target
    assert np.abs(y * w).max() <= target * max(1.0, np.abs(y).max(), np.abs(w).max())
    # Friction impulses need not be unique, so compare what must be: the velocity change and the normal
    # velocities (the first nc rows of w), against Lemke's exact basic solution.
    exact = lemke(lcp)
    assert exact.status == "converged"
    scale = np.abs(V @ exact.y).max()
    np.testing.assert_allclose(V @ y, V @ exact.y, rtol=0, atol=1e-7 * scale)
    np.testing.assert_allclose(w[:nc], (lcp.Q @ exact.y + lcp.r)[:nc], rtol=0, atol=1e-7 * scale)


def test_proximal_returns_its_best_iterate_and_says_when_it_is_short_of_the_tolerance():
    lcp, y0, _, _ = _stored(0)
    result = proximal_minmap(lcp, y0, options=NEWTON, proximal=ProximalOptions(max_outer=2))
    assert result.status == "max_iter" and result.info["subproblems"] == 2
    assert result.residual == lcp.natural_residual(result.y) == min(result.history) > _target(lcp)
    assert f"{result.residual:.2e}" in result.message


def test_a_time_budget_ends_the_fallback_with_a_recorded_status():
    """A budget spent before the first subproblem: none starts, the best start comes back and the status says
    why; the control without a budget solves the same LCP, so the early end is the budget's doing."""
    lcp, y0, _, _ = _stored(0)
    bounded = proximal_minmap(lcp, y0, options=NEWTON, proximal=ProximalOptions(max_seconds=1e-9))
    assert bounded.status == "max_iter" and "time budget" in bounded.message
    assert bounded.info["subproblems"] == 0
    assert bounded.residual == lcp.natural_residual(bounded.y) > _target(lcp)
    control = proximal_minmap(lcp, y0, options=NEWTON)
    assert control.status == "converged" and control.info["subproblems"] > 1


def test_a_stalled_warm_start_is_abandoned_for_zero():
    """Stored entries carry sliding-speed multipliers near 1e6 from Newton's stalled iterates: one proximal
    subproblem moves them by at most ||w|| / c, so a pass from there stagnates; the pass from zero solves."""
    unsolved_without_restart = 0
    for k in range(STORED_COUNT):
        lcp, y0, _, _ = _stored(k)
        result = proximal_minmap(lcp, y0, options=NEWTON)
        assert result.status == "converged"
        # With more patience than budget the warm pass never gives up: where it fails, it says so.
        warm_only = proximal_minmap(lcp, y0, options=NEWTON, proximal=ProximalOptions(patience=40, max_outer=40))
        assert warm_only.info["restarts"] == 0
        assert (warm_only.status == "converged") == (warm_only.residual <= _target(lcp))
        unsolved_without_restart += warm_only.status == "max_iter"
        if warm_only.status != "converged":
            assert result.info["restarts"] == 1
    assert unsolved_without_restart


# ---------------------------------------------------------------- the simulation with the fallback


def _energy(scene) -> float:
    return float(
        0.5 * scene.masses @ (scene.velocities**2).sum(axis=1) - scene.masses @ (scene.positions @ scene.gravity)
    )


def _run(recorder=None, **options):
    """The frictional run, with each step's energy and deepest overlap (as a fraction of the radius)."""
    scene = build_scene("sedimentation", n_spheres=8, seed=0)
    energy, overlap = [_energy(scene)], []

    def observe(s, report):
        energy.append(_energy(s))
        overlap.append(-min(0.0, float(detect_contacts(s, 1e-12).gap.min(initial=0.0))) / float(s.radii.min()))

    reports = simulate(scene, STEPS, StepOptions(**FRICTIONAL, **options), capture=recorder, observer=observe)
    return scene, reports, recorder, np.array(energy), np.array(overlap)


@pytest.fixture(scope="module")
def runs():
    """The reference (Lemke re-solves what Newton leaves unsolved; all LCPs are small here) and the run whose
    fallback is the proximal method alone."""
    return _run(), _run(SubsystemRecorder(), lemke_fallback=0)


def test_proximal_fallback_runs_and_every_step_is_solved_or_says_so(runs):
    _, (_, reports, _, _, _) = runs
    assert any(r.solver == "proximal" for r in reports) and not any(r.solver == "lemke" for r in reports)
    for r in reports:
        assert r.status in ("converged", "no_contact", "max_iter", "stalled")
        # ||r|| stays far below 1e3 here, so 1e-10 (1 + 1e3) bounds the tolerance; an unconverged step may sit
        # above it, but not by much: the failing branch left 1e-3.
        assert r.residual <= (1e-10 * (1 + 1e3) if r.status == "converged" else 1e-6)


def test_the_proximal_fallback_is_bounded_by_the_lcp_size_and_a_larger_step_says_so(runs):
    """Above ``proximal_max_unknowns`` the proximal method (whose cost has no practical bound on large piles) does
    not run: the step keeps the chain's closest answer and its report says it missed the tolerance."""
    _, (_, rescued, _, _, _) = runs
    k = next(i for i, r in enumerate(rescued) if r.solver == "proximal")
    size = rescued[k].lcp_size
    recorder = SubsystemRecorder()
    scene = build_scene("sedimentation", n_spheres=8, seed=0)
    options = StepOptions(**FRICTIONAL, lemke_fallback=0, proximal_max_unknowns=size - 1)
    bounded = simulate(scene, k + 1, options, capture=recorder)
    assert bounded[k].lcp_size == size and bounded[k].solver == "minmap"
    assert bounded[k].status in ("max_iter", "stalled") and not bounded[k].status.solved
    assert np.isfinite(bounded[k].residual) and bounded[k].residual > 1e-10 * (1 + 1e3)  # above any converged step
    assert not any("proximal_iter" in ctx for _, _, ctx in recorder.records)
    at_the_bound = simulate(
        build_scene("sedimentation", n_spheres=8, seed=0), k + 1, replace(options, proximal_max_unknowns=size)
    )
    assert at_the_bound[k].solver == "proximal" and at_the_bound[k].residual == rescued[k].residual


@pytest.mark.parametrize("bad", [-1, 2.5, "many"])
def test_a_bad_proximal_bound_is_named(bad):
    with pytest.raises(InputError, match="proximal_max_unknowns"):
        StepOptions(**FRICTIONAL, proximal_max_unknowns=bad)


def test_proximal_fallback_keeps_the_physics_of_the_lemke_run(runs):
    (exact, _, _, exact_energy, exact_overlap), (rescued, _, _, energy, overlap) = runs
    # Inelastic contacts, friction and symplectic Euler only take energy out (0.5 m h^2 g^2 per sphere and step).
    assert np.diff(energy).max() <= 1e-9 and np.diff(exact_energy).max() <= 1e-9
    assert overlap.max() <= 1e-3 and exact_overlap.max() <= 1e-3  # measured: 1e-4 of a radius
    # Velocities are unique even where friction impulses are not, and 216 steps of this settling pile do not
    # amplify rounding much (Lemke runs under different OpenBLAS kernels agree to 2e-12 m): the runs agree to
    # far below what one step left at the residual of 1e-3 does (9e-6 m, 1e-3 m/s).
    np.testing.assert_allclose(rescued.positions, exact.positions, rtol=0, atol=1e-6)
    np.testing.assert_allclose(rescued.velocities, exact.velocities, rtol=0, atol=1e-4)


def test_proximal_subsystems_are_captured_and_marked(runs):
    """The shift gives the sliding-speed rows (zero diagonal in Q) a positive diagonal, so after the diag(Q)^-1/2
    scaling every diagonal entry is 1 (+ epsilon); plain frictional systems keep epsilon alone on those rows."""
    _, (_, _, recorder, _, _) = runs
    marked = [(A, ctx) for A, _, ctx in recorder.records if "proximal_iter" in ctx]
    assert marked and all(ctx["proximal_shift"] > 0 for _, ctx in marked)
    for A, _ in marked:
        np.testing.assert_allclose(A.diagonal(), 1 + 1e-8, rtol=1e-12)
    plain = [A for A, _, ctx in recorder.records if "proximal_iter" not in ctx]
    assert any(A.diagonal().min() == pytest.approx(1e-8) for A in plain)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "bad, field",
    [
        (dict(delta=0.0), "min_delta <= delta"),
        (dict(shrink=1.5), "shrink"),
        (dict(max_outer=0), "max_outer"),
        (dict(delta=2.0), "max_delta"),
        (dict(patience=0), "patience"),
        (dict(progress=1.0), "progress"),
        (dict(max_seconds=0.0), "max_seconds"),
    ],
)
def test_bad_proximal_options_are_named(bad, field):
    with pytest.raises(InputError, match=field):
        ProximalOptions(**bad)


def test_a_start_of_the_wrong_length_is_named():
    with pytest.raises(InputError, match=r"y0 has shape \(3,\), expected \(4,\)"):
        proximal_minmap(LCP(np.eye(4), -np.ones(4)), np.ones(3))
