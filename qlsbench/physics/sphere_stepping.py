"""Time stepping of the DEM-C sphere system: De et al., alg. 1, or the CD-Lagrange impact scheme.

Both integrators pose one contact LCP per step and solve it with the same
min-map Newton, so both yield Newton subsystems for the benchmark:

* ``dem_c`` (alg. 1): velocities take gravity, then the impulses of the LCP
  of eq. 6 (non-penetration ``gap + h D^T v^+ >= 0`` for contacts within a
  margin); positions follow with the new velocities.
* ``cd_lagrange`` (seed 000, app. A, eqs. 45-50): positions move first with
  the half-step velocity; contacts closed at the new positions (gap ``<= 0``)
  get impulses from Newton's restitution law as one LCP
  ``0 <= gamma _|_ D^T (v^+ + e min(0, v^-)) >= 0`` (:func:`assemble_impact`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from qlsbench.checks import POSITIVE, whole_number
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.assembly import (
    ContactLCP,
    assemble,
    assemble_impact,
    check_friction_params,
)
from qlsbench.physics.contacts import Contacts, detect_contacts
from qlsbench.physics.lcp import (
    Capture,
    LCPResult,
    NewtonOptions,
    ProximalOptions,
    lemke,
    minmap_newton,
    proximal_minmap,
)
from qlsbench.physics.scene import Scene

#: Time integrators of the sphere system.
INTEGRATORS = ("dem_c", "cd_lagrange")


@dataclass(frozen=True)
class StepOptions:
    """Settings of one time step.

    Attributes
    ----------
    h : float
        Time step (s).
    mu : float
        Coulomb friction coefficient; 0 gives the frictionless LCP.
    s : int
        Friction directions per contact (even, >= 4).
    margin : float or None
        Contact detection distance; ``None`` picks the larger of 5 % of the
        smallest radius and three times the farthest two surfaces can
        approach in one step, so no contact is missed.
    warm_start : bool
        Start Newton from the previous step's impulses of contacts that
        persist (alg. 1 starts from zero; warm starts cut Newton iterations).
    newton : NewtonOptions
        Settings of the LCP solver.
    integrator : str
        ``dem_c`` (alg. 1, inelastic non-penetration) or ``cd_lagrange``
        (restitution impacts, see the module docstring).
    restitution : float
        Newton's ``e`` in ``[0, 1]`` (``cd_lagrange`` only; ``dem_c`` is
        perfectly inelastic).
    lemke_fallback : int
        When min-map Newton does not converge, re-solve LCPs of at most this
        many unknowns with Lemke's method (0 disables). Frictional LCPs are
        degenerate (the impulses along the friction directions of a sticking
        contact are not unique) and Newton can stall on them; Lemke is exact
        but costs O(m^3), about 3 s at m = 1200 here.
    proximal : ProximalOptions or None
        When min-map Newton does not converge on an LCP too large for Lemke,
        re-solve it from the same start by :func:`proximal_minmap` (whose
        subsystems are captured too, marked ``proximal_iter``); ``None``
        disables. On a settled 100-sphere pile with friction, plain Newton
        leaves a residual of about 2 where the proximal iteration converges.
    """

    h: float = 1e-3
    mu: float = 0.0
    s: int = 8
    margin: float | None = None
    warm_start: bool = True
    newton: NewtonOptions = field(default_factory=NewtonOptions)
    lemke_fallback: int = 1200
    proximal: ProximalOptions | None = field(default_factory=ProximalOptions)
    integrator: str = "dem_c"
    restitution: float = 0.0

    def __post_init__(self) -> None:
        POSITIVE.check(self.h, "time step h")
        check_friction_params(self.mu, self.s)
        if self.margin is not None and not self.margin > 0:
            raise InputError(f"contact margin must be > 0, got {self.margin!r}")
        if self.lemke_fallback < 0:
            raise InputError(f"lemke_fallback must be >= 0, got {self.lemke_fallback!r}")
        if self.integrator not in INTEGRATORS:
            raise InputError(f"integrator must be one of {', '.join(INTEGRATORS)}, got {self.integrator!r}")
        if not (np.isfinite(self.restitution) and 0.0 <= self.restitution <= 1.0):
            raise InputError(f"restitution e must be in [0, 1], got {self.restitution!r}")
        if self.restitution and self.integrator != "cd_lagrange":
            raise InputError(f"restitution {self.restitution!r} needs integrator 'cd_lagrange' "
                             "(the dem_c step is perfectly inelastic)")


@dataclass
class StepReport:
    """What one step did."""

    step: int
    time: float
    contacts: int
    lcp_size: int
    newton_iterations: int
    residual: float
    status: Status  #: ``no_contact`` for a step without contacts, else the contact LCP's outcome
    solver: str = "minmap"
    pairs: np.ndarray = field(default_factory=lambda: np.empty((0, 2), np.int64))  # (body_i, body_j), -1 = wall
    normal_impulses: np.ndarray = field(default_factory=lambda: np.empty(0))  # gamma_nu per contact


def _margin(scene: Scene, v_known: np.ndarray, options: StepOptions) -> float:
    if options.margin is not None:
        return options.margin
    vmax = float(np.sqrt((v_known**2).sum(axis=1).max(initial=0.0)))
    return max(0.05 * float(scene.radii.min()), 3.0 * 2.0 * vmax * options.h)


class _WarmStart:
    """Carry impulses of persisting contacts (same body pair) from one step to the next."""

    def __init__(self) -> None:
        self.keys = np.empty(0, np.int64)
        self.per_contact = np.empty((0, 0))

    @staticmethod
    def _keys(contacts: Contacts, n: int) -> np.ndarray:
        return (contacts.body_i + 1) * (n + 1) + contacts.body_j

    def guess(self, contacts: Contacts, n: int, width: int) -> np.ndarray:
        """Initial ``y`` laid out as the LCP unknowns (blocks of gamma, beta, lambda)."""
        guess = np.zeros((contacts.count, width))
        if self.per_contact.shape[1] == width and len(self.keys):
            _, new_idx, old_idx = np.intersect1d(self._keys(contacts, n), self.keys, return_indices=True)
            guess[new_idx] = self.per_contact[old_idx]
        return _to_blocks(guess)

    def remember(self, contacts: Contacts, n: int, y: np.ndarray, width: int) -> None:
        self.keys = self._keys(contacts, n)
        self.per_contact = _from_blocks(y, contacts.count, width)


def _to_blocks(per_contact: np.ndarray) -> np.ndarray:
    """(nc, 1 + s + 1) rows of (gamma, beta_1..s, lambda) -> the LCP's block layout."""
    if per_contact.shape[1] == 1:
        return per_contact[:, 0].copy()
    return np.concatenate([per_contact[:, 0], per_contact[:, 1:-1].reshape(-1), per_contact[:, -1]])


def _from_blocks(y: np.ndarray, nc: int, width: int) -> np.ndarray:
    if width == 1:
        return y.reshape(nc, 1).copy()
    s = width - 2
    return np.column_stack([y[:nc], y[nc: nc * (1 + s)].reshape(nc, s), y[nc * (1 + s):]])


def _solve(lcp, y0, options: StepOptions, hook) -> tuple[LCPResult, str]:
    """Min-map Newton (whose subsystems are captured); if it does not converge, Lemke for an LCP of at most
    ``options.lemke_fallback`` unknowns, else the proximal min-map Newton (captured too) from the same start.

    The reported iterations are all Newton iterations run, as every one of them produced a captured subsystem.
    """
    result = minmap_newton(lcp, y0, options=options.newton, capture=hook)
    if result.status == Status.CONVERGED:
        return result, "minmap"
    if lcp.size <= options.lemke_fallback:
        fallback, name, extra = lemke(lcp), "lemke", 0
        better = fallback.status == Status.CONVERGED
    elif options.proximal is not None:
        fallback = proximal_minmap(lcp, y0, options=options.newton, proximal=options.proximal, capture=hook)
        name, extra = "proximal", fallback.iterations
        # Kept even short of the tolerance when it is closer than Newton's last iterate.
        better = fallback.status == Status.CONVERGED or fallback.residual < result.residual
    else:
        return result, "minmap"
    if not better:
        return LCPResult(result.y, result.status, result.iterations + extra, result.residual), "minmap"
    return LCPResult(fallback.y, fallback.status, result.iterations + extra, fallback.residual), name


def _resolve(scene: Scene, contacts: Contacts, problem: ContactLCP, options: StepOptions, context: dict,
             capture: Capture | None, warm: _WarmStart | None, report: StepReport) -> np.ndarray:
    """Solve the step's contact LCP, fill ``report`` and return the flat velocity change ``M^-1 D y``."""
    width = 1 if options.mu == 0 else options.s + 2
    y0 = warm.guess(contacts, scene.n_spheres, width) if warm is not None else None
    hook = None if capture is None else (lambda A, b, info: capture(A, b, {**context, **info}))
    result, report.solver = _solve(problem.lcp, y0, options, hook)
    if warm is not None:
        warm.remember(contacts, scene.n_spheres, result.y, width)
    report.lcp_size, report.newton_iterations = problem.lcp.size, result.iterations
    report.pairs = np.column_stack([contacts.body_i, contacts.body_j])
    report.normal_impulses = problem.impulses(result.y)[0].copy()
    report.residual, report.status = result.residual, result.status
    return problem.velocity_change(result.y)


def _context(scene: Scene, options: StepOptions, index: int, contacts: Contacts) -> dict:
    context = {"step": index, "time": scene.time + options.h, "contacts": contacts.count, "mu": options.mu,
               "s": options.s, "h": options.h, "scene": scene.name}
    if options.integrator == "cd_lagrange":
        context.update(integrator="cd_lagrange", restitution=options.restitution)
    return context


def step(scene: Scene, options: StepOptions, *, index: int = 0, capture: Capture | None = None,
         warm: _WarmStart | None = None) -> StepReport:
    """Advance ``scene`` by one step in place with ``options.integrator``.

    ``dem_c`` (alg. 1): velocities first take the external force, then the
    contact impulses of the LCP (eq. 5); positions follow with the new
    velocities. ``cd_lagrange``: see :func:`step_cd_lagrange`.
    """
    if options.integrator == "cd_lagrange":
        return step_cd_lagrange(scene, options, index=index, capture=capture, warm=warm)
    h = options.h
    v_known = scene.velocities + h * scene.gravity
    contacts = detect_contacts(scene, _margin(scene, v_known, options))
    report = StepReport(index, scene.time + h, contacts.count, 0, 0, 0.0, Status.NO_CONTACT)
    if contacts.count:
        problem = assemble(contacts, scene.masses, v_known, h, options.mu, options.s)
        context = _context(scene, options, index, contacts)
        v_known = v_known + _resolve(scene, contacts, problem, options, context, capture, warm, report).reshape(-1, 3)
    scene.velocities = v_known
    scene.positions = scene.positions + h * v_known
    scene.time += h
    return report


def step_cd_lagrange(scene: Scene, options: StepOptions, *, index: int = 0, capture: Capture | None = None,
                     warm: _WarmStart | None = None) -> StepReport:
    """One CD-Lagrange step (seed 000, eqs. 45-50) of the sphere system, in place.

    The scene's velocities are the half-step velocities ``v_{n+1/2}``:

    1. ``x_{n+1} = x_n + h v_{n+1/2}`` (45);
    2. contacts with gap ``<= 0`` at ``x_{n+1}`` are closed;
    3. ``v^S = v_{n+1/2} + h g`` (47, the smooth force);
    4. the impulses solve ``0 <= gamma _|_ D^T v^+ + e min(0, D^T v^-) >= 0``
       with ``v^- = v_{n+1/2}`` (44, 48-49), by min-map Newton (captured);
    5. ``v_{n+3/2} = v^S + M^-1 D y`` (50).

    Unlike alg. 1, a contact is seen only once it has closed, so spheres
    overlap by up to ``h`` times their approach speed; the restitution law
    then stops the overlap from growing (``e = 0``) or reverses the approach.
    """
    h = options.h
    v_before = scene.velocities
    scene.positions = scene.positions + h * v_before  # (45)
    v_free = v_before + h * scene.gravity
    contacts = detect_contacts(scene, 0.0)
    report = StepReport(index, scene.time + h, contacts.count, 0, 0, 0.0, Status.NO_CONTACT)
    if contacts.count:
        problem = assemble_impact(contacts, scene.masses, v_free, v_before, options.restitution, h, options.mu,
                                  options.s)
        context = _context(scene, options, index, contacts)
        v_free = v_free + _resolve(scene, contacts, problem, options, context, capture, warm, report).reshape(-1, 3)
    scene.velocities = v_free
    scene.time += h
    return report


#: Called after every step with the advanced scene and that step's report.
Observer = Callable[[Scene, StepReport], None]


def simulate(scene: Scene, steps: int, options: StepOptions, *, capture: Capture | None = None,
             observer: Observer | None = None, progress: bool = False) -> list[StepReport]:
    """Run ``steps`` time steps, returning one report per step.

    Parameters
    ----------
    scene : Scene
        Advanced in place.
    steps : int
        Number of steps.
    options : StepOptions
        Step size, friction and solver settings.
    capture : callable, optional
        Receives every Newton subsystem with its context (step, time, Newton
        iteration, contacts, ``|A|``, mu, s, h).
    observer : callable, optional
        ``observer(scene, report)`` after every step: the scene as the step
        left it (positions and velocities at ``report.time``) and the step's
        report (contact pairs and normal impulses). It must not modify the
        scene; it is how callers record states without the stepper knowing
        what they keep or where it goes.
    progress : bool
        Show a progress bar with steps/s, contacts and Newton iterations.
    """
    whole_number(steps, "steps", low=0)
    warm = _WarmStart() if options.warm_start else None
    reports = []
    label = f"{scene.name} N={scene.n_spheres} mu={options.mu:g}"
    if options.integrator == "cd_lagrange":
        label += f" cd_lagrange e={options.restitution:g}"
    with tqdm(total=steps, desc=label, unit="step",
              disable=not progress) as bar:
        for k in range(steps):
            rep = step(scene, options, index=k, capture=capture, warm=warm)
            reports.append(rep)
            if observer is not None:
                observer(scene, rep)
            bar.update()
            if progress and (k % 10 == 0 or k == steps - 1):
                bar.set_postfix(contacts=rep.contacts, newton=rep.newton_iterations, refresh=False)
    return reports
