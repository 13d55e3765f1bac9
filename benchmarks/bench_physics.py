"""asv suites for the DEM-C physics: one time step of a settled pile, and the contact LCP alone.

Each suite tracks accuracy next to speed: the step's LCP residual and the
deepest overlap it leaves, the LCP's min-map residual and complementarity
error. A change that buys speed with accuracy shows up in both columns.
"""

import copy
import time

import numpy as np

from qlsbench.physics import (
    NewtonOptions,
    StepOptions,
    WarmStart,
    build_scene,
    detect_contacts,
    minmap_newton,
    simulate,
    step,
)
from qlsbench.physics.spheres.assembly import assemble

from .timing import best_of


H = 1e-3
#: The frictional settings of the default workflow.
FRICTIONAL = StepOptions(h=H, mu=0.3, newton=NewtonOptions(regularization=1e-8))
FRICTIONLESS = StepOptions(h=H, mu=0.0)
#: Detection distance that finds only overlapping pairs (``detect_contacts`` needs a margin > 0).
PENETRATION_MARGIN = 1e-12


def _settled(n_spheres, steps):
    scene = build_scene("sedimentation", n_spheres=n_spheres, seed=0)
    simulate(scene, steps, FRICTIONLESS)
    return scene


def _max_penetration(scene):
    """Deepest sphere-sphere or sphere-wall overlap, as a fraction of the smallest radius.

    Contacts with a margin of (almost) zero are exactly the overlapping ones;
    0 means no overlap at all.
    """
    gaps = detect_contacts(scene, PENETRATION_MARGIN).gap
    return max(0.0, -float(gaps.min(initial=0.0))) / float(scene.radii.min())


def _complementarity_error(lcp, y):
    """``|y . (Q y + r)|``, zero at a solution.

    Each pair contributes ``min(y_i, w_i) * max(y_i, w_i)``: the min-map
    residual's violation weighted by its partner, so a small violation next to
    a large impulse or velocity shows here more than there.
    """
    return abs(float(y @ (lcp.Q @ y + lcp.r)))


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

    Accuracy of the same step: ``track_lcp_residual`` is the min-map residual
    ``||min(y, Q y + r)||`` of the LCP the step solved (the solver stops at
    ``1e-10 (1 + ||r||)``), ``track_max_penetration`` the deepest overlap the
    step leaves, relative to the sphere radius (the settled pile starts with
    about 7e-6).
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

    def track_lcp_residual(self, settled, mu):
        return step(self.settled.copy(), self.options).residual

    track_lcp_residual.unit = "||min(y, Qy + r)||"

    def track_max_penetration(self, settled, mu):
        scene = self.settled.copy()
        step(scene, self.options)
        return _max_penetration(scene)

    track_max_penetration.unit = "radius"


class ContactLCP:
    """The frictionless contact LCP of a settled 400-sphere pile (about 1000 contacts), solved alone.

    ``track_minmap_residual`` is ``||min(y, Q y + r)||`` of the returned ``y``,
    recomputed from ``(Q, r)`` rather than read from the result, and
    ``track_complementarity_error`` is ``|y . (Q y + r)|``; both are zero at an
    exact solution.
    """

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

    def track_minmap_residual(self, lcp):
        return lcp.natural_residual(minmap_newton(lcp).y)

    track_minmap_residual.unit = "||min(y, Qy + r)||"

    def track_complementarity_error(self, lcp):
        return _complementarity_error(lcp, minmap_newton(lcp).y)

    track_complementarity_error.unit = "|y.w|"

    def track_time_ratio(self, lcp):
        # Best of five, like the yardstick: a single 20 ms solve on a shared machine
        # swung this ratio by 1.7x between two runs of the same code.
        return best_of(minmap_newton, lcp, repeats=5) / _reference_seconds()

    track_time_ratio.unit = "ratio"


#: A pile counts as settled when its kinetic energy is below this (J); 100 spheres of 0.52 kg at 1e-5 m/s have 3e-9.
SETTLED_ENERGY = 1e-10


def _kinetic(scene):
    return 0.5 * float(scene.masses @ (scene.velocities**2).sum(axis=1))


def _warm_run(scene, warm, options, steps):
    """``steps`` warm-started steps from copies of ``scene`` and ``warm``: seconds and the reports."""
    scene, warm = scene.copy(), copy.deepcopy(warm)
    t0 = time.perf_counter()
    reports = [step(scene, options, index=k, warm=warm) for k in range(steps)]
    return time.perf_counter() - t0, reports


def _warm_figures(scene, warm, steps):
    """One warm run of ``steps`` frictional steps, then the frictionless steps of the same pile.

    Returns steps/s and unconverged steps of the frictional run and the time ratio frictional / frictionless.
    """
    seconds, reports = _warm_run(scene, warm, FRICTIONAL, steps)
    frictionless, _ = _warm_run(scene, WarmStart(), FRICTIONLESS, steps)
    return {"steps_per_second": steps / seconds, "unconverged": sum(not r.status.solved for r in reports),
            "ratio": seconds / frictionless}


class FrictionalPile:
    """100 spheres at mu = 0.3, 1,000 warm-started steps (dataset v2's chain), on a sliding and on a settled pile.

    ``sliding``: the frictionless pile of :class:`SedimentationStep` (median speed 0.15 m/s, every closed
    contact slides once friction is on; it slides to rest over the run, its hardest steps needing up to
    190,000 NSGS sweeps). ``settled``: the same spheres simulated with friction from the start until the
    kinetic energy is below ``SETTLED_ENERGY`` = 1e-10 J (about 700 steps); its contacts stick. Goals on 2
    cores: >= 20 steps/s over the 1,000 steps, every step converged, and a frictional step at most 10x the
    frictionless step of the same pile (``track_ratio_to_frictionless``). The three figures come from one run
    per pile, made once in ``setup_cache`` (1,000 steps of a sliding pile take about 40 s).
    """

    params = ["sliding", "settled"]
    param_names = ["pile"]
    timeout = 1800
    steps = 1000

    def setup_cache(self):
        piles = {"sliding": _settled(100, 400)}
        scene, warm = build_scene("sedimentation", n_spheres=100, seed=0), WarmStart()
        for k in range(5000):
            step(scene, FRICTIONAL, index=k, warm=warm)
            if k > 100 and _kinetic(scene) < SETTLED_ENERGY:
                break
        piles["settled"] = scene
        warms, figures = {}, {}
        for name, pile in piles.items():  # a warm start that belongs to the pile: one frictional step's impulses
            warms[name] = WarmStart()
            step(pile.copy(), FRICTIONAL, warm=warms[name])
            figures[name] = _warm_figures(pile, warms[name], self.steps)
        return piles, warms, figures

    def setup(self, cache, pile):
        piles, warms, figures = cache
        self.scene, self.warm, self.figures = piles[pile], warms[pile], figures[pile]

    def time_warm_steps(self, cache, pile):
        _warm_run(self.scene, self.warm, FRICTIONAL, 10)

    def track_steps_per_second(self, cache, pile):
        return self.figures["steps_per_second"]

    track_steps_per_second.unit = "steps/s"

    def track_unconverged_steps(self, cache, pile):
        return self.figures["unconverged"]

    track_unconverged_steps.unit = "steps"

    def track_ratio_to_frictionless(self, cache, pile):
        return self.figures["ratio"]

    track_ratio_to_frictionless.unit = "ratio"


class ThousandSpheres:
    """1000 frictionless spheres, 1,000 warm-started steps of a pile that has fallen (600 steps), run once in
    ``setup_cache``. Goal: >= 20 steps/s, every step converged."""

    timeout = 1800
    steps = 1000

    def setup_cache(self):
        scene = _settled(1000, 600)
        warm = WarmStart()
        step(scene.copy(), FRICTIONLESS, warm=warm)
        seconds, reports = _warm_run(scene, warm, FRICTIONLESS, self.steps)
        figures = {"seconds": seconds, "unconverged": sum(not r.status.solved for r in reports),
                   "reference": _reference_seconds()}
        return scene, warm, figures

    def time_warm_steps(self, cache):
        _warm_run(cache[0], cache[1], FRICTIONLESS, 5)

    def track_steps_per_second(self, cache):
        return self.steps / cache[2]["seconds"]

    track_steps_per_second.unit = "steps/s"

    def track_unconverged_steps(self, cache):
        return cache[2]["unconverged"]

    track_unconverged_steps.unit = "steps"

    def track_time_ratio(self, cache):
        return cache[2]["seconds"] / self.steps / cache[2]["reference"]

    track_time_ratio.unit = "ratio"
