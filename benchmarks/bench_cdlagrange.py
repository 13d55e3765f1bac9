"""asv suites for the CD-Lagrange impact integrator: a 100-sphere step and a single-node trajectory.

Accuracy next to speed: how far the step's impulses leave the restitution
law unmet (``D^T v+ + e min(0, D^T v-)`` should be >= 0 on every closed
contact), the impact LCP's residual, and the energy an elastic ball loses
over 100 bounces.
"""

import time

import numpy as np

from qlsbench.physics import StepOptions, build_scene, detect_contacts, simulate, step
from qlsbench.physics.cdlagrange import run_scene
from qlsbench.physics.spheres.assembly import normal_velocities

H = 1e-3
IMPACT = StepOptions(h=H, integrator="cd_lagrange", restitution=0.5)
INELASTIC = StepOptions(h=H)


def _one_step(scene, options):
    scene = scene.copy()
    t0 = time.perf_counter()
    report = step(scene, options)
    return time.perf_counter() - t0, report, scene


class ImpactStep:
    """One CD-Lagrange step (e = 0.5) of 100 spheres after 0.4 s of sedimentation.

    ``track_time_ratio`` divides the step time by an alg. 1 (``dem_c``) step of
    the same pile in the same process: the cost of the impact formulation
    against the inelastic one, comparable across commits on a shared machine.
    ``track_restitution_violation`` is the largest ``-(D^T v+ + e min(0,
    D^T v-))`` over the contacts the step closed, relative to the largest
    approach speed (0 when the law holds exactly).
    """

    timeout = 600

    def setup_cache(self):
        scene = build_scene("sedimentation", n_spheres=100, seed=0)
        simulate(scene, 400, IMPACT)
        return scene

    def time_step(self, scene):
        step(scene.copy(), IMPACT)

    def track_steps_per_second(self, scene):
        return 1.0 / min(_one_step(scene, IMPACT)[0] for _ in range(3))

    track_steps_per_second.unit = "steps/s"

    def track_time_ratio(self, scene):
        impact = min(_one_step(scene, IMPACT)[0] for _ in range(5))
        inelastic = min(_one_step(scene, INELASTIC)[0] for _ in range(5))
        return impact / inelastic

    track_time_ratio.unit = "ratio"

    def track_lcp_residual(self, scene):
        return _one_step(scene, IMPACT)[1].residual

    track_lcp_residual.unit = "||min(y, Qy + r)||"

    def track_restitution_violation(self, scene):
        before = scene.copy()
        before.positions = before.positions + H * before.velocities  # where the step detects its contacts
        contacts = detect_contacts(before, 0.0)
        after = _one_step(scene, IMPACT)[2]
        v_minus = normal_velocities(contacts, scene.velocities)
        v_plus = normal_velocities(contacts, after.velocities)
        law = v_plus + IMPACT.restitution * np.minimum(v_minus, 0.0)
        return max(0.0, -float(law.min(initial=0.0))) / max(float(-v_minus.min(initial=0.0)), 1e-300)

    track_restitution_violation.unit = "relative"


class BallTrajectory:
    """An elastic bouncing ball, 14300 steps of h = 0.02 (100 bounces), the paper's app. B scene."""

    def time_trajectory(self):
        run_scene("bouncing-ball", 14300, e=1.0)

    def track_energy_drift(self):
        energy = run_scene("bouncing-ball", 14300, e=1.0).energy.to_numpy()
        return float(np.abs(energy / energy[0] - 1).max())

    track_energy_drift.unit = "relative"
