"""Time stepping of the DEM-C sphere system (De et al., alg. 1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from qlsbench.errors import InputError
from qlsbench.physics.assembly import assemble, check_friction_params
from qlsbench.physics.contacts import Contacts, detect_contacts
from qlsbench.physics.lcp import LCPResult, LCPStatus
from qlsbench.physics.minmap import Capture, NewtonOptions, minmap_newton
from qlsbench.physics.pivoting import lemke
from qlsbench.physics.scene import Scene


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
    lemke_fallback : int
        When min-map Newton does not converge, re-solve LCPs of at most this
        many unknowns with Lemke's method (0 disables). Frictional LCPs are
        degenerate (the impulses along the friction directions of a sticking
        contact are not unique) and Newton can stall on them; Lemke is exact
        but costs O(m^3), about 3 s at m = 1200 here.
    """

    h: float = 1e-3
    mu: float = 0.0
    s: int = 8
    margin: float | None = None
    warm_start: bool = True
    newton: NewtonOptions = field(default_factory=NewtonOptions)
    lemke_fallback: int = 1200

    def __post_init__(self) -> None:
        if not (np.isfinite(self.h) and self.h > 0):
            raise InputError(f"time step h must be > 0, got {self.h!r}")
        check_friction_params(self.mu, self.s)
        if self.margin is not None and not self.margin > 0:
            raise InputError(f"contact margin must be > 0, got {self.margin!r}")
        if self.lemke_fallback < 0:
            raise InputError(f"lemke_fallback must be >= 0, got {self.lemke_fallback!r}")


@dataclass
class StepReport:
    """What one step did."""

    step: int
    time: float
    contacts: int
    lcp_size: int
    newton_iterations: int
    residual: float
    status: str
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
    """Min-map Newton (whose subsystems are captured), then Lemke if Newton did not converge."""
    result = minmap_newton(lcp, y0, options=options.newton, capture=hook)
    if result.status == LCPStatus.CONVERGED or lcp.size > options.lemke_fallback:
        return result, "minmap"
    fallback = lemke(lcp)
    if fallback.status != LCPStatus.CONVERGED:
        return result, "minmap"
    # Keep Newton's iteration count: it is what produced the captured subsystems.
    return LCPResult(fallback.y, fallback.status, result.iterations, fallback.residual), "lemke"


def step(scene: Scene, options: StepOptions, *, index: int = 0, capture: Capture | None = None,
         warm: _WarmStart | None = None) -> StepReport:
    """Advance ``scene`` by one step in place (alg. 1).

    Velocities first take the external force, then the contact impulses of
    the LCP (eq. 5); positions follow with the new velocities.
    """
    h = options.h
    v_known = scene.velocities + h * scene.gravity
    contacts = detect_contacts(scene, _margin(scene, v_known, options))
    report = StepReport(index, scene.time + h, contacts.count, 0, 0, 0.0, "no_contact")
    if contacts.count:
        problem = assemble(contacts, scene.masses, v_known, h, options.mu, options.s)
        width = 1 if options.mu == 0 else options.s + 2
        y0 = warm.guess(contacts, scene.n_spheres, width) if warm is not None else None
        context = {"step": index, "time": scene.time + h, "contacts": contacts.count, "mu": options.mu,
                   "s": options.s, "h": h, "scene": scene.name}
        hook = None if capture is None else (lambda A, b, info: capture(A, b, {**context, **info}))
        result, report.solver = _solve(problem.lcp, y0, options, hook)
        if warm is not None:
            warm.remember(contacts, scene.n_spheres, result.y, width)
        v_known = v_known + problem.velocity_change(result.y).reshape(-1, 3)
        report.lcp_size, report.newton_iterations = problem.lcp.size, result.iterations
        report.pairs = np.column_stack([contacts.body_i, contacts.body_j])
        report.normal_impulses = problem.impulses(result.y)[0].copy()
        report.residual, report.status = result.residual, str(result.status)
    scene.velocities = v_known
    scene.positions = scene.positions + h * v_known
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
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise InputError(f"steps must be an integer >= 0, got {steps!r}")
    warm = _WarmStart() if options.warm_start else None
    reports = []
    with tqdm(total=steps, desc=f"{scene.name} N={scene.n_spheres} mu={options.mu:g}", unit="step",
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
