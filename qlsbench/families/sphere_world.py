"""The sphere families' world for a solver in the simulation loop (``qlsbench in-loop --family dem_c``).

Reference and candidate step alike, min-map Newton first (frictional steps too: the v1 chain, as the v2
chain's Gauss-Seidel would leave the solver nothing to solve), capped and with fallbacks as the options say;
the reference solves the Newton systems by the stepper's own factorisation, so the difference between the
two runs is the solver's (:mod:`qlsbench.bench.in_loop`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from qlsbench.families.base import LoopWorld
from qlsbench.physics import NewtonOptions, StepOptions, build_scene
from qlsbench.physics.spheres.scenes import SCENES

#: The sphere options the loop takes (from :class:`~qlsbench.families.spheres.SphereOptions`), in the order the
#: command line lists them.
FIELDS = ("scene", "n_spheres", "mu", "h", "steps", "seed")
#: Their defaults in the loop, where the dataset's differ: a short run of a small pile (the loop steps twice per
#: step); the scene's and the stepper's own time step and regularisation unless given.
DEFAULTS = {"scene": None, "n_spheres": 8, "h": None, "steps": 60, "regularization": None}


class SphereWorld:
    """A sphere scene stepped by :func:`~qlsbench.physics.spheres.stepping.step` (a
    :class:`~qlsbench.families.base.World`).

    ``regularization`` ``None`` is 1e-8 with friction (the frictional systems are singular without it, as in the
    datasets), else 0; ``newton_max_iter`` ``None`` is the stepper's cap.
    """

    def __init__(self, options: Any, integrator: str = "dem_c") -> None:
        self.options = options
        eps = options.regularization if options.regularization is not None else (1e-8 if options.mu > 0 else 0.0)
        restitution = getattr(options, "restitution", 0.0) if integrator == "cd_lagrange" else 0.0
        fallbacks: dict[str, Any] = {} if options.fallbacks == "on" else {"lemke_fallback": 0, "proximal": None}
        self.step_options = StepOptions(
            h=options.h or StepOptions.h,
            mu=options.mu,
            integrator=integrator,
            restitution=restitution,
            nsgs=None,
            newton=NewtonOptions(regularization=eps, max_iter=options.newton_max_iter or NewtonOptions.max_iter),
            **fallbacks,
        )

    def build(self) -> dict:
        from qlsbench.physics.spheres.stepping import WarmStart

        options = self.options
        scene = build_scene(options.scene or "sedimentation", n_spheres=options.n_spheres, seed=options.seed)
        # Newton from zero: no impulses handed on from step to step (the stepper then starts at y = 0)
        return {"scene": scene, "warm": WarmStart() if options.newton_start == "warm" else None}

    def advance(self, state: dict, k: int, linear, count=None):
        from qlsbench.physics.spheres.stepping import step

        capture = None if count is None else _counter(count)
        return step(state["scene"], self.step_options, index=k, warm=state["warm"], linear=linear, capture=capture)

    def measure(self, state: dict, report) -> dict:
        from qlsbench.physics.spheres.contacts import detect_contacts

        scene = state["scene"]
        depth = np.maximum(-detect_contacts(scene, 0.0).gap, 0.0)
        ke = 0.5 * float(np.sum(scene.masses[:, None] * scene.velocities**2))
        return {
            "positions": scene.positions.copy(),
            "velocities": scene.velocities.copy(),
            "kinetic_energy": ke,
            "penetration_max": float(depth.max(initial=0.0)),
            "penetration_mean": float(depth.mean()) if len(depth) else 0.0,
            "complementarity": float(report.residual),
            "newton_iterations": int(report.newton_iterations),
            "fallback": report.solver in ("lemke", "proximal"),
            "step_status": str(report.status),
        }


def _counter(count):
    """A sphere capture hook feeding ``count``: min-map Newton's systems only, as the candidate's solver sees
    them (the proximal fallback's inner systems, tagged ``proximal_iter``, never reach the solver in the loop)."""

    def hook(A, b, info):
        if "proximal_iter" not in info:
            count.see(b)

    return hook


def check_scene(options: Any) -> None:
    """The scene exists (by name: building a pile of 50,000 spheres takes seconds)."""
    from qlsbench.errors import InputError

    if (options.scene or "sedimentation") not in SCENES:
        raise InputError(
            f"unknown scene {options.scene!r} for {options.family}; available: {', '.join(sorted(SCENES))}"
        )


def loop_world(integrator: str, *extra: str) -> LoopWorld:
    """The loop of the sphere family of ``integrator``, taking :data:`FIELDS`, then ``extra`` (its own options,
    ``restitution``), the regularisation and where Newton starts."""
    return LoopWorld(
        fields=(*FIELDS, *extra, "regularization", "newton_start"),
        defaults=DEFAULTS,
        make=lambda options: SphereWorld(options, integrator),
        check=check_scene,
    )
