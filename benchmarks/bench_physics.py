"""asv suites for the DEM-C physics: one time step of a settled pile, the contact LCP alone, frictional piles.

Each suite tracks accuracy next to speed: the step's LCP residual and the
deepest overlap it leaves, the LCP's min-map residual and complementarity
error. A change that buys speed with accuracy shows up in both columns.
"""

import copy
import time

import numpy as np

from qlsbench.bench import scale_study
from qlsbench.physics import (
    NewtonOptions,
    StepOptions,
    SweepBudget,
    WarmStart,
    build_scene,
    detect_contacts,
    minmap_newton,
    simulate,
    spheres,
    step,
)
from qlsbench.physics.spheres.assembly import assemble

from .timing import best_of

H = 1e-3
#: The stepper's frictional defaults (APGD to the tolerance study's tolerance; the datasets pin NSGS at Newton's).
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
#: A loaded contact slides when its surfaces' tangential relative speed after the step exceeds this (m/s): 1e-7 m
#: per step of 1 ms, where sticking contacts creep at 1e-10 m/s and sliding ones move at 1e-2 to 1 m/s.
SLIDING_SPEED = 1e-4


def _kinetic(scene):
    return 0.5 * float(scene.masses @ (scene.velocities**2).sum(axis=1))


def _at_rest(n_spheres):
    """The sedimentation pile simulated with friction until its kinetic energy is below ``SETTLED_ENERGY``."""
    scene, warm = build_scene("sedimentation", n_spheres=n_spheres, seed=0), WarmStart()
    for k in range(5000):
        step(scene, FRICTIONAL, index=k, warm=warm)
        if k > 100 and _kinetic(scene) < SETTLED_ENERGY:
            break
    return scene


def turning_gravity(start_deg, omega):
    """``gravity(k)`` of the sliding piles: :func:`qlsbench.physics.spheres.turning_gravity` at this suite's step."""
    return spheres.turning_gravity(start_deg, omega, H)


def _sliding_share(scene, report):
    """Share of the step's loaded contacts (normal impulse > 0) whose surfaces slide after it, faster than
    :data:`SLIDING_SPEED`.

    A wall contact is against the spherical container (the only wall of these scenes): its normal is radial.
    """
    loaded = report.normal_impulses > 0
    if not loaded.any():
        return 0.0
    i, j = report.pairs[loaded, 0], report.pairs[loaded, 1]
    wall, other = (j < 0)[:, None], np.maximum(j, 0)  # j = -1: the wall, which does not move
    normal = np.where(wall, scene.positions[i] - scene.walls[0].center, scene.positions[other] - scene.positions[i])
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-300)
    relative = np.where(wall, 0.0, scene.velocities[other]) - scene.velocities[i]
    tangential = relative - (relative * normal).sum(axis=1, keepdims=True) * normal
    return float(np.mean(np.linalg.norm(tangential, axis=1) > SLIDING_SPEED))


def _warm_run(scene, warm, options, steps, gravity=None, sliding=False):
    """``steps`` warm-started steps from copies of ``scene`` and ``warm`` (``gravity(k)``, if given, sets the
    gravity of step ``k``): seconds, the reports, the seconds spent solving contact LCPs and, with ``sliding``,
    the share of loaded contacts sliding after each step (computed outside the timed steps).

    The solve is timed from the step's contact problem reaching the ``problems`` sink (contacts detected, LCP
    assembled) to the step's end; the rest of a step is detection, assembly and the position update.
    """
    scene, warm = scene.copy(), copy.deepcopy(warm)
    seconds, solving, reports, shares = 0.0, 0.0, [], []
    assembled = {}

    def mark(index, problem):  # the step's LCP is assembled; its solve starts now
        assembled[index] = time.perf_counter()

    for k in range(steps):
        if gravity is not None:
            scene.gravity = gravity(k)
        t0 = time.perf_counter()
        reports.append(step(scene, options, index=k, warm=warm, problems=mark))
        t1 = time.perf_counter()
        seconds, solving = seconds + t1 - t0, solving + t1 - assembled.pop(k, t1)  # no contacts: nothing solved
        if sliding:
            shares.append(_sliding_share(scene, reports[-1]))
    return seconds, reports, solving, shares


def _warm_figures(scene, warm, steps, gravity=None):
    """One warm run of ``steps`` frictional steps, then the frictionless steps of the same pile.

    Returns steps/s, unconverged steps, the time ratio frictional / frictionless, the share of the frictional
    step time spent solving, and per step the NSGS sweeps and the share of loaded contacts sliding.
    """
    seconds, reports, solving, sliding = _warm_run(scene, warm, FRICTIONAL, steps, gravity, sliding=True)
    frictionless, *_ = _warm_run(scene, WarmStart(), FRICTIONLESS, steps, gravity)
    return {
        "steps_per_second": steps / seconds,
        "unconverged": sum(not r.status.solved for r in reports),
        "ratio": seconds / frictionless,
        "solve_share": solving / seconds,
        "sweeps": np.array([r.sweeps for r in reports]),
        "sliding": np.array(sliding),
    }


def _own_warm_start(pile, gravity=None):
    """A warm start that belongs to the pile: the impulses of one frictional step from it."""
    warm, pile = WarmStart(), pile.copy()
    if gravity is not None:
        pile.gravity = gravity(0)
    step(pile, FRICTIONAL, warm=warm)
    return warm


class _PileFigures:
    """The figures every frictional pile reports, from its warm run made once in ``setup_cache``."""

    def track_steps_per_second(self, *args):
        return self.figures["steps_per_second"]

    track_steps_per_second.unit = "steps/s"

    def track_unconverged_steps(self, *args):
        return self.figures["unconverged"]

    track_unconverged_steps.unit = "steps"

    def track_ratio_to_frictionless(self, *args):
        return self.figures["ratio"]

    track_ratio_to_frictionless.unit = "ratio"

    def track_solve_share(self, *args):
        return self.figures["solve_share"]

    track_solve_share.unit = "share of step time"

    def track_median_sweeps(self, *args):
        return float(np.median(self.figures["sweeps"]))

    track_median_sweeps.unit = "NSGS sweeps per step"

    def track_max_sweeps(self, *args):
        return int(self.figures["sweeps"].max())

    track_max_sweeps.unit = "NSGS sweeps"


class FrictionalPile(_PileFigures):
    """100 spheres at mu = 0.3, 1,000 warm-started steps (dataset v2's chain): a pile that slides to rest, and the
    contact detection and assembly of a pile at rest.

    ``slides-to-rest``: the frictionless pile of :class:`SedimentationStep` (median speed 0.15 m/s, every closed
    contact slides once friction is on). It comes to rest between steps 300 and 400: steps 0-99 take about
    70 % of its solve time and from step 400 the median step needs no sweep, so its steps/s averages some 300
    hard steps with some 700 resting ones (the hard phase alone is :class:`SlidingPile`). Its hardest step
    needs 58,285 NSGS sweeps here. ``detection-and-assembly``: the same spheres simulated with friction from
    the start until the kinetic energy is below ``SETTLED_ENERGY`` = 1e-10 J (about 1,060 steps); its contacts
    stick, NSGS finishes in about one sweep and the solve is about a fifth of the step
    (``track_solve_share``): what it times is contact detection and the LCP's assembly. Goals on 2 cores:
    >= 20 steps/s over the 1,000 steps, every step converged, and a frictional step at most 10x the
    frictionless step of the same pile (``track_ratio_to_frictionless``). The figures come from one run per
    pile, made once in ``setup_cache`` (1,000 steps of the pile sliding to rest take about 40 s).
    """

    params = ["slides-to-rest", "detection-and-assembly"]
    param_names = ["pile"]
    timeout = 1800
    steps = 1000

    def setup_cache(self):
        piles = {"slides-to-rest": _settled(100, 400), "detection-and-assembly": _at_rest(100)}
        warms = {name: _own_warm_start(pile) for name, pile in piles.items()}
        figures = {name: _warm_figures(pile, warms[name], self.steps) for name, pile in piles.items()}
        return piles, warms, figures

    def setup(self, cache, pile):
        piles, warms, figures = cache
        self.scene, self.warm, self.figures = piles[pile], warms[pile], figures[pile]

    def time_warm_steps(self, cache, pile):
        _warm_run(self.scene, self.warm, FRICTIONAL, 10)


class SlidingPile(_PileFigures):
    """100 spheres at mu = 0.3 kept sliding: the hard phase of a frictional pile, for every step of the run.

    The pile that slides to rest in :class:`FrictionalPile`, in the same spherical container, but its gravity
    starts tilted by 60 degrees and turns on at 2 rad/s (``turning_gravity``: a container tumbling about a
    horizontal axis, its centrifugal and Coriolis forces left out), so the bottom keeps running ahead of the
    pile at about 0.9 m/s and the pile slides after it along the wall. Over the 300 warm steps timed in
    ``setup_cache`` 97-100 % of the loaded contacts slide (``track_late_sliding_share``: the last 100 steps)
    and every step needs hundreds of NSGS sweeps (median about 230, over the last 100 steps as over the
    first: ``track_late_median_sweeps``), where the pile sliding to rest needs about 500-700 in its first 80
    steps and none from step 400. ``time_warm_steps`` times its first 10 steps, as hard as the rest.
    """

    timeout = 600
    steps = 300
    #: Gravity's tilt at the start (degrees) and its turning rate (rad/s).
    tilt, omega = 60.0, 2.0
    #: The run's last steps, where a pile that comes to rest would have stopped sliding.
    late = 100

    def setup_cache(self):
        pile, gravity = _settled(100, 400), turning_gravity(self.tilt, self.omega)
        warm = _own_warm_start(pile, gravity)
        return pile, warm, _warm_figures(pile, warm, self.steps, gravity)

    def setup(self, cache):
        self.scene, self.warm, self.figures = cache

    def time_warm_steps(self, cache):
        _warm_run(self.scene, self.warm, FRICTIONAL, 10, turning_gravity(self.tilt, self.omega))

    def track_late_median_sweeps(self, cache):
        return float(np.median(self.figures["sweeps"][-self.late :]))

    track_late_median_sweeps.unit = "NSGS sweeps per step"

    def track_late_sliding_share(self, cache):
        return float(np.mean(self.figures["sliding"][-self.late :]))

    track_late_sliding_share.unit = "share of loaded contacts"


class ThousandSpheres:
    """1000 frictionless spheres, 1,000 warm-started steps of a pile that has fallen (600 steps), run once in
    ``setup_cache``. Goal: >= 20 steps/s, every step converged."""

    timeout = 1800
    steps = 1000

    def setup_cache(self):
        scene = _settled(1000, 600)
        warm = WarmStart()
        step(scene.copy(), FRICTIONLESS, warm=warm)
        seconds, reports, *_ = _warm_run(scene, warm, FRICTIONLESS, self.steps)
        figures = {
            "seconds": seconds,
            "unconverged": sum(not r.status.solved for r in reports),
            "reference": _reference_seconds(),
        }
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


class SiconosSideBySide:
    """The stepper's contact solves against Siconos 4.4's fc3d NSGS and NSN_AC on the same contacts, each step
    solved by both in turn from the same warm start (``siconos_side``: the local form, the worker, what differs).

    ``settled``: the 100-sphere pile of :class:`FrictionalPile`'s ``detection-and-assembly`` (simulated with
    friction until it is at rest), 200 warm steps. ``sliding``: :class:`SlidingPile`'s 300 steps. The ratios are
    per step, the stepper's time over Siconos' (below 1: ours is faster); goals (issue 54): the settled pile's
    median at most 1.0 against NSGS, the sliding pile's worst step at most 2. Needs Debian's python3-siconos
    and python3-scipy (or ``QLSBENCH_SICONOS_PYTHON``); skipped where they are absent.
    """

    params = ["settled", "sliding"]
    param_names = ["pile"]
    timeout = 3600
    steps = {"settled": 200, "sliding": 300}

    def setup_cache(self):
        from .siconos_side import ratio_figures, side_by_side, unavailable

        if unavailable():
            return None
        settled = _at_rest(100)
        sliding, gravity = _settled(100, 400), turning_gravity(SlidingPile.tilt, SlidingPile.omega)
        runs = {
            "settled": side_by_side(settled, _own_warm_start(settled), FRICTIONAL, self.steps["settled"]),
            "sliding": side_by_side(
                sliding, _own_warm_start(sliding, gravity), FRICTIONAL, self.steps["sliding"], gravity
            ),
        }
        return {name: ratio_figures(rows) for name, rows in runs.items()}

    def setup(self, cache, pile):
        if cache is None:
            raise NotImplementedError("Siconos is not installed beside the system Python")
        self.figures = cache[pile]

    def track_nsgs_median_ratio(self, cache, pile):
        return self.figures["NSGS_median"]

    track_nsgs_median_ratio.unit = "ratio"

    def track_nsgs_worst_ratio(self, cache, pile):
        return self.figures["NSGS_worst"]

    track_nsgs_worst_ratio.unit = "ratio"

    def track_nsn_ac_median_ratio(self, cache, pile):
        return self.figures["NSN_AC_median"]

    track_nsn_ac_median_ratio.unit = "ratio"

    def track_nsn_ac_worst_ratio(self, cache, pile):
        return self.figures["NSN_AC_worst"]

    track_nsn_ac_worst_ratio.unit = "ratio"

    def track_unconverged_steps(self, cache, pile):
        return self.figures["ours_unconverged"]

    track_unconverged_steps.unit = "steps"


class _FrictionalAtScale:
    """Steps of a large pile dropped by 600 frictionless steps, warm-started, run once in ``setup_cache``, as
    :func:`~qlsbench.physics.simulate` runs them: steps/s, unconverged steps, the slowest step, alone and over the
    median step, and the peak memory of the process that ran them. With friction (mu 0.3, ``scale_study.step_options``:
    the stepper's APGD to its default tolerance) a step's iterations are bounded by the run's
    :class:`~qlsbench.physics.SweepBudget` (20 times the median step's, at least 3,000) and, above
    ``StepOptions.proximal_max_unknowns``, no proximal fallback follows: a step past the cap ends as ``max_iter``
    and the run goes on."""

    timeout = 7200
    spheres, steps, mu = 1000, 100, 0.3

    def run_pile(self):
        """The run every figure reads; each suite calls it from a ``setup_cache`` of its own (asv keys a cache
        by where ``setup_cache`` is defined, so an inherited one would be one run shared by every suite)."""
        import resource

        scene, options = _settled(self.spheres, 600), scale_study.step_options(self.mu)
        scale_study.warm_up(options)  # numba compiles on first call: no timed step pays for it
        warm, budget, seconds, unconverged = WarmStart(), SweepBudget(), [], 0
        for k in range(self.steps):
            t0 = time.perf_counter()
            report = step(scene, options, index=k, warm=warm, budget=budget)
            seconds.append(time.perf_counter() - t0)
            unconverged += not report.status.solved
        return np.array(seconds), unconverged, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    def track_peak_memory(self, cache):
        return cache[2]

    track_peak_memory.unit = "MiB"

    def track_steps_per_second(self, cache):
        return self.steps / float(cache[0].sum())

    track_steps_per_second.unit = "steps/s"

    def track_unconverged_steps(self, cache):
        return cache[1]

    track_unconverged_steps.unit = "steps"

    def track_slowest_step(self, cache):
        return float(cache[0].max())

    track_slowest_step.unit = "seconds"

    def track_slowest_over_median_ratio(self, cache):
        return float(cache[0].max() / np.median(cache[0]))

    track_slowest_over_median_ratio.unit = "ratio"


class ThousandFrictional(_FrictionalAtScale):
    """1,000 spheres, 100 frictional steps (issue 66's goal: >= 2 steps/s, 0 unconverged, no step past 10x the
    median)."""

    spheres, steps = 1000, 100

    def setup_cache(self):
        return self.run_pile()


class FourThousandFrictional(_FrictionalAtScale):
    """4,000 spheres, 20 frictional steps, measured."""

    spheres, steps = 4000, 20

    def setup_cache(self):
        return self.run_pile()


class TenThousandFrictionless(_FrictionalAtScale):
    """10,000 spheres without friction, 100 steps (issue 66's goal: >= 2 steps/s, 0 unconverged)."""

    spheres, steps, mu = 10_000, 100, 0.0

    def setup_cache(self):
        return self.run_pile()
