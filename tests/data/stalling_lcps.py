"""Write ``stalling_lcps.npz``: frictional contact LCPs on which plain min-map Newton stalls (tests/test_proximal.py).

How they were found
-------------------
The 8-sphere frictional sedimentation of tests/test_proximal.py (seed 0, h = 1e-3, mu = 0.3, s = 8, Tikhonov
1e-8) runs for 216 steps with plain min-map Newton alone (``lemke_fallback=0, proximal=None``), warm-started as
every run is. From step 195 on the pile settles, contacts stick and Newton stalls on most steps; its unconverged
iterates become the next warm starts, which then hold sliding-speed multipliers near 1e6 where the solutions
need about 1. That is the start on which the proximal fallback of commit c846732 ran out of subproblems at
residuals of 1e-3 (the failure that made these tests branch-free): it did so on 10 of the 18 LCPs this run gives.

Kept are LCPs on which Newton from its warm start ends at least ``MARGIN`` times above its tolerance (a stall,
not a near miss, so the premise holds under any arithmetic) and Lemke converges; stored are the first of them
and the ``FARTHEST`` with the largest warm start. Each entry holds ``Q`` (CSR parts), ``r``, the warm start
``y0``, the step, the contact count and ``V = M^-1 [D_nu D_hat 0]``, which maps a solution to the velocity
change it causes (velocities are what two solutions of a frictional LCP must share; impulses need not be unique).

Which steps stall depends on the last bits of the arithmetic (the OpenBLAS kernel above all), so a run elsewhere
writes LCPs of the same kind, not the same bytes. The stored file was written on an AMD EPYC (numpy 2.4.6, scipy
1.17.1) by ``OPENBLAS_CORETYPE=Prescott python tests/data/stalling_lcps.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

import qlsbench.physics.spheres.stepping as stepper
from qlsbench.physics import (
    NewtonOptions,
    StepOptions,
    build_scene,
    minmap_newton,
    simulate,
)
from qlsbench.physics.lcp.lemke import lemke

OUT = Path(__file__).with_suffix(".npz")
STEPS = 216
NEWTON = NewtonOptions(regularization=1e-8)
#: Newton must end this many times above its tolerance for an LCP to count as stalled.
MARGIN = 1e3
FARTHEST = 5


def record_stalls() -> list[dict]:
    """Run the scene with Newton alone and return every step's LCP on which Newton did not converge.

    The stepper has no hook for its LCPs, so this script (not the library, not a test) wraps the two
    module-level functions that see them: ``assemble`` (the velocity map) and ``_solve`` (the warm start).
    """
    problems, seen = {}, []
    assemble, solve = stepper.assemble, stepper._solve

    def assemble_spy(*args, **kwargs):
        problem = assemble(*args, **kwargs)
        problems[id(problem.lcp)] = problem
        return problem

    def solve_spy(lcp, y0, options, hook):
        result, name = solve(lcp, y0, options, hook)
        seen.append((lcp, y0, problems.pop(id(lcp)), result))
        return result, name

    stalls = []

    def observer(scene, report):
        if report.contacts:
            lcp, y0, problem, result = seen.pop()
            if result.status != "converged":
                stalls.append(
                    dict(
                        step=report.step,
                        lcp=lcp,
                        y0=np.array(y0),
                        contacts=problem.nc,
                        V=_velocity_map(problem, lcp.size),
                    )
                )

    stepper.assemble, stepper._solve = assemble_spy, solve_spy
    try:
        scene = build_scene("sedimentation", n_spheres=8, seed=0)
        simulate(
            scene,
            STEPS,
            StepOptions(
                h=1e-3,
                mu=0.3,
                newton=NEWTON,
                lemke_fallback=0,
                proximal=None,
                friction_solver="nsgs",
                friction_tol=None,
            ),
            observer=observer,
        )
    finally:
        stepper.assemble, stepper._solve = assemble, solve
    return stalls


def _velocity_map(problem, m: int) -> sp.csr_matrix:
    """``M^-1 [D_nu D_hat 0]``: ``V @ y`` is ``problem.velocity_change(y)``."""
    blocks = [problem.D_nu, problem.D_hat, sp.csc_matrix((problem.D_nu.shape[0], m - problem.nc * (1 + problem.s)))]
    return (sp.diags(problem.inv_mass) @ sp.hstack(blocks)).tocsr()


def select(stalls: list[dict]) -> list[dict]:
    """The first clear stall and the ``FARTHEST`` clear stalls with the largest warm start."""

    def clear(case):
        lcp = case["lcp"]
        target = NEWTON.tol * (1 + np.linalg.norm(lcp.r))
        newton = minmap_newton(lcp, case["y0"], options=NEWTON)
        return newton.residual > MARGIN * target and lemke(lcp).status == "converged"

    kept = [case for case in stalls if clear(case)]
    farthest = sorted(kept[1:], key=lambda case: -case["y0"].max())[:FARTHEST]
    return sorted(kept[:1] + farthest, key=lambda case: case["step"])


def write(cases: list[dict], path: Path = OUT) -> None:
    """One ``.npz``; entry ``k`` is stored under keys ``k_<field>``."""
    arrays = {}
    for k, case in enumerate(cases):
        Q, V = case["lcp"].Q, case["V"]
        arrays.update(
            {
                f"{k}_Q_data": Q.data,
                f"{k}_Q_indices": Q.indices,
                f"{k}_Q_indptr": Q.indptr,
                f"{k}_r": case["lcp"].r,
                f"{k}_y0": case["y0"],
                f"{k}_V_data": V.data,
                f"{k}_V_indices": V.indices,
                f"{k}_V_indptr": V.indptr,
                f"{k}_V_rows": V.shape[0],
                f"{k}_step": case["step"],
                f"{k}_contacts": case["contacts"],
            }
        )
    np.savez_compressed(path, count=len(cases), **arrays)


if __name__ == "__main__":
    chosen = select(record_stalls())
    write(chosen)
    print(f"wrote {len(chosen)} LCPs (steps {', '.join(str(c['step']) for c in chosen)}) to {OUT}")
