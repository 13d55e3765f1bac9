"""asv suites for the DEM-C physics: one time step of a settled pile, and the contact LCP alone."""

import time

import numpy as np

from qlsbench.physics import NewtonOptions, StepOptions, build_scene, detect_contacts, minmap_newton, simulate, step
from qlsbench.physics.assembly import assemble

from .timing import best_of


H = 1e-3
#: The frictional settings of the default workflow.
FRICTIONAL = StepOptions(h=H, mu=0.3, newton=NewtonOptions(regularization=1e-8))
FRICTIONLESS = StepOptions(h=H, mu=0.0)


def _settled(n_spheres, steps):
    scene = build_scene("sedimentation", n_spheres=n_spheres, seed=0)
    simulate(scene, steps, FRICTIONLESS)
    return scene


def _reference_seconds():
    """Best of five dense 256x256 solves: the in-process yardstick for ratios."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(256, 256)) + 256 * np.eye(256)
    b = rng.normal(size=256)
    return best_of(np.linalg.solve, A, b, repeats=5)


class SedimentationStep:
    """One time step of 100 spheres settled in the spherical container.

    Parameters
    ----------
    mu : float
        0 (frictionless LCP) or 0.3 (eq. 6 with s = 8, Tikhonov 1e-8).

    Notes
    -----
    Goals on 2 cores: at least 100 steps/s frictionless and 10 frictional.
    ``track_steps_per_second`` reports the rate; ``track_time_ratio`` divides
    the step time by a dense 256x256 solve in the same process, which is what
    to compare across commits on a shared machine.
    """

    params = [0.0, 0.3]
    param_names = ["mu"]
    timeout = 600

    def setup_cache(self):
        return _settled(100, 400)

    def setup(self, settled, mu):
        self.settled = settled
        self.options = FRICTIONLESS if mu == 0.0 else FRICTIONAL

    def _one_step(self):
        scene = self.settled.copy()
        t0 = time.perf_counter()
        step(scene, self.options)
        return time.perf_counter() - t0

    def time_step(self, settled, mu):
        step(self.settled.copy(), self.options)

    def track_steps_per_second(self, settled, mu):
        return 1.0 / min(self._one_step() for _ in range(3))

    track_steps_per_second.unit = "steps/s"

    def track_time_ratio(self, settled, mu):
        return min(self._one_step() for _ in range(3)) / _reference_seconds()

    track_time_ratio.unit = "ratio"


class ContactLCP:
    """The frictionless contact LCP of a settled 400-sphere pile (about 1000 contacts), solved alone."""

    timeout = 600

    def setup_cache(self):
        scene = _settled(400, 500)
        v_known = scene.velocities + H * scene.gravity
        contacts = detect_contacts(scene, 0.05 * scene.radii.min())
        return assemble(contacts, scene.masses, v_known, H, 0.0).lcp

    def time_minmap_newton(self, lcp):
        minmap_newton(lcp)

    def track_contacts(self, lcp):
        return lcp.size

    track_contacts.unit = "contacts"

    def track_newton_iterations(self, lcp):
        return minmap_newton(lcp).iterations

    track_newton_iterations.unit = "iterations"

    def track_time_ratio(self, lcp):
        t0 = time.perf_counter()
        minmap_newton(lcp)
        return (time.perf_counter() - t0) / _reference_seconds()

    track_time_ratio.unit = "ratio"
