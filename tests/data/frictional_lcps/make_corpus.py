"""Rebuild the regression corpus of frictional contact LCPs on which plain min-map Newton stalls.

Usage (from the repository root, a few minutes): ``python tests/data/frictional_lcps/make_corpus.py``

Runs frictional sedimentations of 8, 32 and 100 spheres (mu = 0.3, dataset v2 stepper), and keeps, per run,
the first steps whose contact LCP plain min-map Newton (from the step's warm start, 100 iterations, the v1
chain's first attempt) does not solve, and that the v2 chain solves within a few seconds here. Each file holds
what the LCP is assembled from (contacts, masses, known velocities, h, mu, s, the normal offsets) and the warm
start, so ``tests/test_frictional_corpus.py`` re-assembles it with :func:`qlsbench.physics.spheres.assembly.assemble`.
The bytes of the files depend on this machine's arithmetic; the test only needs each LCP to stay hard for
Newton and solvable by the chain, which holds on any machine. One more file comes from the asv pile sliding to rest: a
step Gauss-Seidel finishes only after tens of thousands of sweeps.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from qlsbench.physics import (
    NewtonOptions,
    StepOptions,
    build_scene,
    minmap_newton,
    simulate,
    step,
)
from qlsbench.physics.spheres import stepping

HERE = Path(__file__).parent
RUNS = [(8, 0, 400, 3), (32, 0, 600, 3), (100, 0, 700, 4)]  # spheres, seed, steps, files kept
#: A kept LCP is one on which NSGS too has work (so it tests the chain, not one sweep), and kept LCPs are at least
#: this many steps apart (so they come from different stages of the fall and the settling).
MIN_SWEEPS, SPACING = 30, 40
OPTIONS = StepOptions(mu=0.3, newton=NewtonOptions(regularization=1e-8), friction_solver="nsgs", friction_tol=None)


def _save(path: Path, problem, y0: np.ndarray, masses: np.ndarray) -> None:
    c = problem.contacts
    np.savez_compressed(
        path,
        body_i=c.body_i,
        body_j=c.body_j,
        normal=c.normal,
        gap=c.gap,
        t1=c.t1,
        t2=c.t2,
        masses=masses,
        v_known=problem.v_known.reshape(-1, 3),
        normal_offset=problem.normal_offset,
        h=OPTIONS.h,
        mu=problem.mu,
        s=problem.s,
        y0=np.zeros(problem.lcp.size) if y0 is None else y0,
    )


def collect(n_spheres: int, seed: int, steps: int, keep: int) -> None:
    scene = build_scene("sedimentation", n_spheres=n_spheres, seed=seed)
    warm, kept, chain, last = stepping.WarmStart(), 0, stepping._solve, -SPACING

    def spy(problem, y0, options, hook):
        nonlocal kept, last
        start = time.perf_counter()
        result = chain(problem, y0, options, hook)
        took = time.perf_counter() - start
        if (
            kept < keep
            and spy.step - last >= SPACING
            and result[2] >= MIN_SWEEPS
            and took < 3.0
            and result[0].status == "converged"
        ):
            plain = minmap_newton(problem.lcp, y0, options=options.newton)
            if plain.status != "converged":
                name = HERE / f"n{n_spheres}-s{seed}-step{spy.step:04d}.npz"
                _save(name, problem, y0, scene.masses)
                kept, last = kept + 1, spy.step
                print(
                    f"{name.name}: {problem.lcp.size} unknowns, plain Newton {plain.status} at "
                    f"{plain.residual:.1e}; chain {result[1]}, {result[2]} sweeps, {took:.2f} s",
                    flush=True,
                )
        return result

    stepping._solve = spy
    try:
        for k in range(steps):
            spy.step = k
            step(scene, OPTIONS, index=k, warm=warm)
            if kept >= keep:
                break
    finally:
        stepping._solve = chain


def collect_sliding(max_seconds: float = 1.5) -> None:
    """One step of the asv pile sliding to rest (100 spheres settled without friction, then friction on) that NSGS
    finishes only past 20,000 sweeps (the v2 chain's first cap, where the proximal fallback took over)."""
    scene = build_scene("sedimentation", n_spheres=100, seed=0)
    simulate(scene, 400, StepOptions(mu=0.0))
    warm, chain = stepping.WarmStart(), stepping._solve
    step(scene.copy(), OPTIONS, warm=warm)  # the benchmark's warm start: one frictional step's impulses
    found = []

    def spy(problem, y0, options, hook):
        start = time.perf_counter()
        result = chain(problem, y0, options, hook)
        took = time.perf_counter() - start
        if not found and result[2] > 20_000 and took < max_seconds and result[0].status == "converged":
            plain = minmap_newton(problem.lcp, y0, options=options.newton)
            if plain.status != "converged":
                name = HERE / f"n100-sliding-step{spy.step:04d}.npz"
                _save(name, problem, y0, scene.masses)
                found.append(name)
                print(
                    f"{name.name}: {problem.size} unknowns, plain Newton {plain.status} at {plain.residual:.1e}; "
                    f"chain {result[1]}, {result[2]} sweeps, {took:.2f} s",
                    flush=True,
                )
        return result

    stepping._solve = spy
    try:
        for k in range(300):
            spy.step = k
            step(scene, OPTIONS, index=k, warm=warm)
            if found:
                break
    finally:
        stepping._solve = chain


if __name__ == "__main__":
    for run in RUNS:
        collect(*run)
    collect_sliding()
    sys.exit(0)
