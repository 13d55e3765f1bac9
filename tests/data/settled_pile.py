"""Write ``settled_pile.npz``: a 40-sphere frictional pile come to rest in its bowl (tests/test_nsgs.py).

The sedimentation scene (40 spheres, seed 0) run for 700 steps of ``StepOptions(mu=0.3, newton=NewtonOptions(
regularization=1e-8))``: the spheres fall, bounce and stick, and after 0.7 s the kinetic energy is below 1e-8 J.
That run is 20-30 s of CPU, so the test starts from its end instead: the centres, velocities and the scene's
clock. Another machine settles the pile into another arrangement of the same kind (the last bits of the
arithmetic decide which sphere rolls where); the test asks only for a settled sticking pile.
Written on an AMD EPYC (numpy 2.4, scipy 1.17) by ``python tests/data/settled_pile.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from qlsbench.physics import NewtonOptions, StepOptions, build_scene, simulate

OUT = Path(__file__).with_name("settled_pile.npz")
N_SPHERES, SEED, STEPS = 40, 0, 700


def main() -> None:
    scene = build_scene("sedimentation", n_spheres=N_SPHERES, seed=SEED)
    simulate(
        scene,
        STEPS,
        StepOptions(mu=0.3, newton=NewtonOptions(regularization=1e-8), friction_solver="nsgs", friction_tol=None),
    )
    kinetic = 0.5 * float(scene.masses @ (scene.velocities**2).sum(axis=1))
    assert kinetic < 1e-8, kinetic
    tmp = OUT.with_suffix(".tmp.npz")
    np.savez(
        tmp,
        positions=scene.positions,
        velocities=scene.velocities,
        time=scene.time,
        n_spheres=N_SPHERES,
        seed=SEED,
        steps=STEPS,
    )
    tmp.replace(OUT)
    print(f"{OUT.name}: {N_SPHERES} spheres after {STEPS} steps, kinetic energy {kinetic:.1e} J")


if __name__ == "__main__":
    main()
