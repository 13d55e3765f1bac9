"""The proximal min-map Newton: it solves what Lemke solves, and it rescues the frictional steps where Newton stalls."""

from __future__ import annotations

import numpy as np
import pytest

from qlsbench.errors import InputError
from qlsbench.physics import (
    LCP,
    NewtonOptions,
    ProximalOptions,
    StepOptions,
    SubsystemRecorder,
    build_scene,
    proximal_minmap,
    simulate,
    solve_lcp,
)
from qlsbench.physics.pivoting import lemke

#: An 8-sphere frictional sedimentation whose steps 195-215 include contact LCPs on which plain min-map Newton
#: stalls (found by running it with the fallbacks off): the fallback has to carry them.
STEPS, FRICTIONAL = 216, dict(h=1e-3, mu=0.3, newton=NewtonOptions(regularization=1e-8))


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


def _run(**options):
    scene = build_scene("sedimentation", n_spheres=8, seed=0)
    recorder = SubsystemRecorder()
    reports = simulate(scene, STEPS, StepOptions(**FRICTIONAL, **options), capture=recorder, progress=False)
    return scene, reports, recorder


def test_proximal_fallback_follows_lemke_where_newton_stalls():
    exact, exact_reports, _ = _run()  # Lemke re-solves every LCP Newton leaves unsolved (all are small here)
    assert any(r.solver == "lemke" for r in exact_reports)
    stalled, stalled_reports, _ = _run(lemke_fallback=0, proximal=None)
    assert sum(r.status == "max_iter" for r in stalled_reports) >= 5  # the premise: Newton alone fails here
    assert np.abs(stalled.velocities - exact.velocities).max() > 1e-2
    rescued, reports, recorder = _run(lemke_fallback=0)
    assert sum(r.solver == "proximal" for r in reports) >= 5
    assert all(r.status in ("converged", "no_contact") for r in reports)
    for r in reports:
        assert r.residual <= 1e-10 * (1 + 1e3)  # the Newton tolerance; ||r|| stays far below 1e3 here
    # Velocities are unique even where friction impulses are not: the trajectories agree.
    np.testing.assert_allclose(rescued.positions, exact.positions, atol=1e-9)
    np.testing.assert_allclose(rescued.velocities, exact.velocities, atol=1e-7)
    # Its reduced systems are captured and marked. The shift gives the sliding-speed rows (zero diagonal in Q) a
    # positive diagonal, so after the diag(Q)^-1/2 scaling every diagonal entry is 1 (+ epsilon); plain
    # frictional systems keep epsilon alone on those rows.
    marked = [(A, ctx) for A, _, ctx in recorder.records if "proximal_iter" in ctx]
    assert marked and all(ctx["proximal_shift"] > 0 for _, ctx in marked)
    for A, _ in marked:
        np.testing.assert_allclose(A.diagonal(), 1 + 1e-8, rtol=1e-12)
    plain = [A for A, _, ctx in recorder.records if "proximal_iter" not in ctx]
    assert any(A.diagonal().min() == pytest.approx(1e-8) for A in plain)


@pytest.mark.parametrize("bad, field", [(dict(delta=0.0), "min_delta <= delta"), (dict(shrink=1.5), "shrink"),
                                        (dict(max_outer=0), "max_outer"), (dict(delta=2.0), "max_delta")])
def test_bad_proximal_options_are_named(bad, field):
    with pytest.raises(InputError, match=field):
        ProximalOptions(**bad)
