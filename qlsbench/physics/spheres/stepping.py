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
from dataclasses import dataclass, field, fields, replace

import numpy as np
from tqdm.auto import tqdm

from qlsbench.checks import POSITIVE, whole_number
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.lcp import (
    Capture,
    LCPResult,
    LinearSolve,
    NewtonOptions,
    ProximalOptions,
    lemke,
    minmap_newton,
    proximal_minmap,
)
from qlsbench.physics.spheres.apgd import apgd_polished
from qlsbench.physics.spheres.assembly import (
    ContactLCP,
    assemble,
    assemble_impact,
    check_friction_params,
)
from qlsbench.physics.spheres.contacts import Contacts, detect_contacts
from qlsbench.physics.spheres.nsgs import NSGSOptions, SweepBudget, nsgs
from qlsbench.physics.spheres.scenes import Scene

#: Time integrators of the sphere system.
INTEGRATORS = ("dem_c", "cd_lagrange")
#: First-order methods that finish a frictional step in the v2 chain (:attr:`StepOptions.friction_solver`).
FRICTION_SOLVERS = ("apgd", "nsgs")
#: The default tolerance of frictional steps: the loosest one whose physical errors the tolerance study finds
#: within its bounds on every pile (docs/tolerance.md, which a test holds equal to this).
FRICTION_TOL = 1e-7
#: The StepOptions fields only a frictional step reads (left out of a frictionless run's identity).
FRICTION_ONLY_FIELDS = ("friction_solver", "friction_tol")


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
    slop : float
        Frictional ``dem_c`` steps only: surfaces whose gap (or overlap) is
        within ``slop`` times the smallest radius count as touching, so their
        normal rows carry no ``gap / h`` term. Spheres do not rotate here, so a
        sticking contact fixes all three relative velocity components and a
        settled frictional pile has about twice as many constraints as degrees
        of freedom; the ``gap / h`` terms of its contacts, left at 1e-10 m by
        the previous steps, then ask for normal velocities no rigid motion can
        give, the LCP's exact solution needs load on a consistent subset of
        contacts only, and NSGS creeps towards it (residual 5e-7 after 5,000
        sweeps on a settled 100-sphere pile; 25 sweeps with the slop). The
        default, 2e-7 radii (1e-8 m on 5 cm spheres), is far below any
        overlap the step makes. Frictionless steps are exactly eq. 6.
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
    proximal_max_unknowns : int
        The proximal fallback takes LCPs of at most this many unknowns. Its
        cost has no practical bound above: up to ``max_outer`` x
        ``inner_max_iter`` Newton iterations, each a sparse factorisation (on
        the 35,000 unknowns of a 1,000-sphere pile it ran for more than 8.5
        minutes after NSGS's 117 s, without an answer). A larger step that the
        chain before it did not finish keeps that chain's closest answer and
        ends as ``max_iter`` with its residual, in the step's report: a run
        records it and goes on (:func:`simulate`'s reports, the dataset's
        step metadata). The bound of such a step is NSGS's ``max_sweeps``.
        The default keeps every pile of up to about 250 spheres (10 unknowns
        per contact with 8 facets) on the full chain.
    nsgs : NSGSOptions or None
        Frictional LCPs only (``mu > 0``): the v2 chain. Every step is solved
        to the tolerance by nonsmooth Gauss-Seidel
        (:func:`~qlsbench.physics.spheres.nsgs.nsgs`) from the warm start; on steps
        whose subsystems are kept, min-map Newton runs first (at most
        ``nsgs.newton_max_iter`` iterations) from an NSGS point at
        ``nsgs.presolve_tol``, or from the warm start where NSGS already met
        the tolerance, and its subsystems are captured with ``phase``
        ``nsgs_newton`` or ``newton``; Lemke or the proximal method take what
        NSGS does not finish. Plain Newton from a warm start stalls on the
        degenerate LCPs of frictional piles (a 100-sphere pile: residual 2.1
        after 100 iterations, 3 s a step). ``None``: the v1 chain, plain
        Newton first (frictional datasets before v2). Frictionless LCPs are
        always solved by Newton from the warm start.
    friction_solver : str
        The v2 chain's method that finishes a frictional step: ``apgd`` (the default,
        :func:`~qlsbench.physics.spheres.apgd.apgd_polished`: APGD in rounds with a few NSGS sweeps between them,
        capped like NSGS by ``nsgs.max_sweeps`` and the run's :class:`SweepBudget`, an iteration standing for a
        sweep) or ``nsgs`` (the datasets', which pin it). On
        the 1,000-sphere pile's steps APGD took 0.2-0.3x NSGS's time at 1e-6 and 1e-8; on 100-sphere piles the
        two are level or APGD ahead. The presolve of kept steps stays NSGS.
    friction_tol : float or None
        The natural-residual tolerance a frictional step of the v2 chain is solved to (default
        :data:`FRICTION_TOL`, the tolerance study's choice); ``None``: ``newton.tol``. The datasets keep
        ``newton.tol`` (:class:`~qlsbench.families.spheres.SphereOptions` ``friction_tol``).
    """

    h: float = 1e-3
    mu: float = 0.0
    s: int = 8
    margin: float | None = None
    warm_start: bool = True
    newton: NewtonOptions = field(default_factory=NewtonOptions)
    lemke_fallback: int = 1200
    proximal: ProximalOptions | None = field(default_factory=ProximalOptions)
    proximal_max_unknowns: int = 10_000
    nsgs: NSGSOptions | None = field(default_factory=NSGSOptions)
    integrator: str = "dem_c"
    restitution: float = 0.0
    slop: float = 2e-7
    friction_solver: str = "apgd"
    friction_tol: float | None = FRICTION_TOL

    def __post_init__(self) -> None:
        POSITIVE.check(self.h, "time step h")
        check_friction_params(self.mu, self.s)
        if self.margin is not None and not self.margin > 0:
            raise InputError(f"contact margin must be > 0, got {self.margin!r}")
        if self.lemke_fallback < 0:
            raise InputError(f"lemke_fallback must be >= 0, got {self.lemke_fallback!r}")
        whole_number(self.proximal_max_unknowns, "proximal_max_unknowns", low=0)
        if self.friction_solver not in FRICTION_SOLVERS:
            raise InputError(
                f"friction_solver must be one of {', '.join(FRICTION_SOLVERS)}, got {self.friction_solver!r}"
            )
        if self.friction_tol is not None:
            POSITIVE.check(self.friction_tol, "friction_tol")
        if self.integrator not in INTEGRATORS:
            raise InputError(f"integrator must be one of {', '.join(INTEGRATORS)}, got {self.integrator!r}")
        if not (np.isfinite(self.restitution) and 0.0 <= self.restitution <= 1.0):
            raise InputError(f"restitution e must be in [0, 1], got {self.restitution!r}")
        if not (np.isfinite(self.slop) and self.slop >= 0):
            raise InputError(f"contact slop must be >= 0, got {self.slop!r}")
        if self.restitution and self.integrator != "cd_lagrange":
            raise InputError(
                f"restitution {self.restitution!r} needs integrator 'cd_lagrange' "
                "(the dem_c step is perfectly inelastic)"
            )

    def identity(self) -> str:
        """The options' ``repr`` less what this run never reads: what a checkpoint of a run is keyed by.

        A frictionless step never reads ``friction_solver`` or ``friction_tol``; leaving them out of its
        identity keeps a long frictionless build (the advantage map's 30,000 spheres, hours) resumable across a
        qlsbench that added them, while any field the run does read still tells two runs apart.
        """
        unread = FRICTION_ONLY_FIELDS if self.mu == 0 else ()
        shown = (f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.name not in unread)
        return f"{type(self).__name__}({', '.join(shown)})"

    @property
    def solved_friction_tol(self) -> float:
        """The tolerance a frictional step of the v2 chain is solved to: ``friction_tol``, else ``newton.tol``."""
        return self.newton.tol if self.friction_tol is None else self.friction_tol


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
    solver: str = (
        "minmap"  #: what produced the kept impulses: minmap, newton, nsgs_newton, nsgs, apgd, lemke or proximal
    )
    sweeps: int = 0  #: first-order iterations: NSGS sweeps (presolve and finish) or APGD iterations (finish)
    pairs: np.ndarray = field(default_factory=lambda: np.empty((0, 2), np.int64))  # (body_i, body_j), -1 = wall
    normal_impulses: np.ndarray = field(default_factory=lambda: np.empty(0))  # gamma_nu per contact


@dataclass(frozen=True)
class StepSolution:
    """How one step's contact LCP was solved, in the LCP's unknowns ``y = (gamma, beta, lambda)``.

    Attributes
    ----------
    start : numpy.ndarray
        Where the solve started: the warm start (the previous step's impulses of the contacts that persist),
        or zeros for a step without one.
    y : numpy.ndarray
        The kept answer, whose impulses the step applied.
    status : Status
        Its outcome (``converged`` when the tolerance was met).
    residual : float
        ``||min(y, Q y + r)||_2`` of the kept answer.
    solver : str
        What produced it (as :attr:`StepReport.solver`).
    """

    start: np.ndarray
    y: np.ndarray
    status: Status
    residual: float
    solver: str


#: Receives a step's :class:`StepSolution` (see :data:`ProblemSink`).
SolutionSink = Callable[[StepSolution], None]


def _margin(scene: Scene, v_known: np.ndarray, options: StepOptions) -> float:
    if options.margin is not None:
        return options.margin
    vmax = float(np.sqrt((v_known**2).sum(axis=1).max(initial=0.0)))
    return max(0.05 * float(scene.radii.min()), 3.0 * 2.0 * vmax * options.h)


class WarmStart:
    """Carry impulses of persisting contacts (same body pair) from one step to the next.

    :func:`simulate` keeps one for its run; a caller stepping with :func:`step` passes its own.
    """

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
    return np.column_stack([y[:nc], y[nc : nc * (1 + s)].reshape(nc, s), y[nc * (1 + s) :]])


def _solve(
    problem: ContactLCP, y0, options: StepOptions, hook, linear=None, max_sweeps: int | None = None
) -> tuple[LCPResult, str, int]:
    """The step's solver chain; returns the kept result, what produced it and the NSGS sweeps run.

    ``hook`` is ``None`` when nobody keeps this step's subsystems. Frictionless LCPs, and frictional ones
    without ``options.nsgs`` (v1): min-map Newton from ``y0``, then :func:`_fallback`. Frictional LCPs with
    ``options.nsgs`` (v2, see :class:`StepOptions`): on kept steps, NSGS to the presolve tolerance and min-map
    Newton (captured) from there or from ``y0``; then, or on other steps at once, NSGS to the tolerance; then
    :func:`_fallback`. Reported iterations are the Newton iterations run, each of which produced a subsystem.
    With ``linear`` (a solver in the loop) every LCP goes to min-map Newton first, its subsystems solved by
    ``linear``: NSGS would leave it nothing to solve; the fallbacks stay, and the report names them.
    ``max_sweeps`` caps each NSGS run (default: ``options.nsgs.max_sweeps``; see :class:`SweepBudget`).
    """
    chain = _nsgs_chain(problem, options, linear)
    if chain is None:
        result = minmap_newton(problem.lcp, y0, options=options.newton, capture=hook, linear=linear)
        if result.status == Status.CONVERGED:
            return result, "minmap", 0
        return *_fallback(problem.lcp, y0, result, "minmap", options, hook), 0
    start, sweeps, newton = y0, 0, None
    cap = chain.max_sweeps if max_sweeps is None else max_sweeps
    if hook is not None:
        pre = nsgs(
            problem, y0, tol=chain.presolve_tol, max_sweeps=cap, repairs=chain.repairs, stall_ratio=chain.stall_ratio
        )
        sweeps = pre.iterations
        # Where the presolve already met the step's tolerance (isolated contacts are solved exactly in one sweep),
        # Newton would have nothing to do from there: it starts from the warm start instead, as in v1.
        solved = pre.residual <= options.newton.tol * (1.0 + float(np.linalg.norm(problem.r)))
        phase = "newton" if solved else "nsgs_newton"
        newton = minmap_newton(
            problem.lcp,
            y0 if solved else pre.y,
            options=replace(options.newton, max_iter=chain.newton_max_iter),
            capture=_tagged(hook, phase=phase, presolve_sweeps=0 if solved else sweeps),
        )
        if newton.status == Status.CONVERGED:
            return newton, phase, sweeps
        if solved:
            return LCPResult(pre.y, pre.status, newton.iterations, pre.residual), "nsgs", sweeps
        start = pre.y
    full = _finish(problem, start, options, chain, cap)
    sweeps += full.iterations
    iterations = newton.iterations if newton is not None else 0
    kept = LCPResult(full.y, full.status, iterations, full.residual, full.message)
    if full.status == Status.CONVERGED:
        return kept, options.friction_solver, sweeps
    # The proximal passes start from the warm start: from a stalled NSGS point they converge less often.
    proximal_hook = None if hook is None else _tagged(hook, phase="proximal")
    return *_fallback(problem.lcp, y0, kept, options.friction_solver, options, proximal_hook), sweeps


def _finish(problem: ContactLCP, start, options: StepOptions, chain: NSGSOptions, cap: int) -> LCPResult:
    """The v2 chain's first-order solve of a frictional step to its tolerance (``options.friction_solver``)."""
    tol = options.solved_friction_tol
    if options.friction_solver == "apgd":
        return apgd_polished(problem, start, tol=tol, max_iter=cap)
    return nsgs(problem, start, tol=tol, max_sweeps=cap, repairs=chain.repairs, stall_ratio=chain.stall_ratio)


def _nsgs_chain(problem: ContactLCP, options: StepOptions, linear) -> NSGSOptions | None:
    """The v2 chain's NSGS settings where they solve ``problem`` (frictional, no solver in the loop), else ``None``."""
    return options.nsgs if problem.mu > 0 and linear is None else None


def _fallback(lcp, start, result: LCPResult, name: str, options: StepOptions, hook) -> tuple[LCPResult, str]:
    """After ``result`` (of method ``name``) missed the tolerance: Lemke for an LCP of at most
    ``options.lemke_fallback`` unknowns, else the proximal min-map Newton (captured) from ``start`` for one of at
    most ``options.proximal_max_unknowns``; the closer of the two answers is kept, with the name of the method that
    produced it. A larger LCP keeps ``result``: its time is bounded by the chain before (see :class:`StepOptions`)."""
    if lcp.size <= options.lemke_fallback:
        fallback, method, extra = lemke(lcp), "lemke", 0
        better = fallback.status == Status.CONVERGED
    elif options.proximal is not None and lcp.size <= options.proximal_max_unknowns:
        fallback = proximal_minmap(lcp, start, options=options.newton, proximal=options.proximal, capture=hook)
        method, extra = "proximal", fallback.iterations
        # Kept even short of the tolerance when it is closer than the last answer.
        better = fallback.status == Status.CONVERGED or fallback.residual < result.residual
    else:
        return result, name
    if not better:
        return LCPResult(result.y, result.status, result.iterations + extra, result.residual), name
    return LCPResult(fallback.y, fallback.status, result.iterations + extra, fallback.residual), method


def _tagged(hook, **tags):
    """A capture hook that adds ``tags`` to every subsystem's context."""
    return lambda A, b, info: hook(A, b, {**info, **tags})


def _resolve(
    scene: Scene,
    contacts: Contacts,
    problem: ContactLCP,
    options: StepOptions,
    context: dict,
    capture: Capture | None,
    warm: WarmStart | None,
    report: StepReport,
    linear=None,
    solved: SolutionSink | None = None,
    max_sweeps: int | None = None,
) -> np.ndarray:
    """Solve the step's contact LCP, fill ``report``, hand ``solved`` the :class:`StepSolution` and return the flat
    velocity change ``M^-1 D y``."""
    width = 1 if options.mu == 0 else options.s + 2
    y0 = warm.guess(contacts, scene.n_spheres, width) if warm is not None else None
    kept = capture is not None and getattr(capture, "wants", lambda step: True)(context["step"])
    hook = (lambda A, b, info: capture(A, b, {**context, **info})) if capture is not None and kept else None
    result, report.solver, report.sweeps = _solve(problem, y0, options, hook, linear, max_sweeps)
    if solved is not None:  # every method starts from zero when given no start (minmap_newton, nsgs)
        solved(
            StepSolution(
                np.zeros(problem.size) if y0 is None else y0,
                result.y,
                result.status,
                float(result.residual),
                report.solver,
            )
        )
    if warm is not None:
        warm.remember(contacts, scene.n_spheres, result.y, width)
    report.lcp_size, report.newton_iterations = problem.size, result.iterations
    report.pairs = np.column_stack([contacts.body_i, contacts.body_j])
    report.normal_impulses = problem.impulses(result.y)[0].copy()
    report.residual, report.status = result.residual, result.status
    return problem.velocity_change(result.y)


def _context(scene: Scene, options: StepOptions, index: int, contacts: Contacts) -> dict:
    context = {
        "step": index,
        "time": scene.time + options.h,
        "contacts": contacts.count,
        "mu": options.mu,
        "s": options.s,
        "h": options.h,
        "scene": scene.name,
    }
    if options.integrator == "cd_lagrange":
        context.update(integrator="cd_lagrange", restitution=options.restitution)
    return context


def _gap_offset(scene: Scene, contacts: Contacts, options: StepOptions) -> np.ndarray | None:
    """The normal rows' ``gap / h``, zero within the slop for frictional steps (``None``: eq. 6 as printed)."""
    if options.mu == 0 or options.slop == 0:
        return None
    touching = np.abs(contacts.gap) <= options.slop * float(scene.radii.min())
    return np.where(touching, 0.0, contacts.gap / options.h)


def step(
    scene: Scene,
    options: StepOptions,
    *,
    index: int = 0,
    capture: Capture | None = None,
    warm: WarmStart | None = None,
    linear: LinearSolve | None = None,
    problems: ProblemSink | None = None,
    budget: SweepBudget | None = None,
) -> StepReport:
    """Advance ``scene`` by one step in place with ``options.integrator``.

    ``dem_c`` (alg. 1): velocities first take the external force, then the
    contact impulses of the LCP (eq. 5); positions follow with the new
    velocities. ``cd_lagrange``: see :func:`step_cd_lagrange`. ``linear``
    solves the min-map Newton subsystems (:data:`~qlsbench.physics.lcp.minmap.LinearSolve`). ``problems``
    receives the step's contact problem before it is solved, and what it returns the solution
    (:data:`ProblemSink`). ``budget`` caps a frictional step's NSGS sweeps relative to the run's earlier steps
    and records this step's (:class:`~qlsbench.physics.spheres.nsgs.SweepBudget`; ``None``: the fixed cap).
    """
    if options.integrator == "cd_lagrange":
        return step_cd_lagrange(
            scene, options, index=index, capture=capture, warm=warm, linear=linear, problems=problems, budget=budget
        )
    h = options.h
    v_known = scene.velocities + h * scene.gravity
    contacts = detect_contacts(scene, _margin(scene, v_known, options))
    v_known, report = _impulses(
        scene,
        contacts,
        v_known,
        options,
        index,
        capture,
        warm,
        linear,
        problems,
        budget,
        lambda: assemble(
            contacts,
            scene.masses,
            v_known,
            h,
            options.mu,
            options.s,
            normal_offset=_gap_offset(scene, contacts, options),
        ),
    )
    scene.velocities = v_known
    scene.positions = scene.positions + h * v_known
    scene.time += h
    return report


def step_cd_lagrange(
    scene: Scene,
    options: StepOptions,
    *,
    index: int = 0,
    capture: Capture | None = None,
    warm: WarmStart | None = None,
    linear: LinearSolve | None = None,
    problems: ProblemSink | None = None,
    budget: SweepBudget | None = None,
) -> StepReport:
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
    v_free, report = _impulses(
        scene,
        contacts,
        v_free,
        options,
        index,
        capture,
        warm,
        linear,
        problems,
        budget,
        lambda: assemble_impact(
            contacts, scene.masses, v_free, v_before, options.restitution, h, options.mu, options.s
        ),
    )
    scene.velocities = v_free
    scene.time += h
    return report


def _impulses(
    scene: Scene,
    contacts: Contacts,
    v: np.ndarray,
    options: StepOptions,
    index: int,
    capture: Capture | None,
    warm: WarmStart | None,
    linear: LinearSolve | None,
    problems: ProblemSink | None,
    budget: SweepBudget | None,
    build: Callable[[], ContactLCP],
) -> tuple[np.ndarray, StepReport]:
    """``v`` after the step's contact impulses, and the step's report; shared by both integrators.

    ``build()`` assembles the integrator's contact problem; it is called only when there are contacts, and the
    problem goes to ``problems`` before it is solved (what ``problems`` returns gets the step's solution).
    ``budget`` sets the step's NSGS sweep cap and records its sweeps (frictional steps of the NSGS chain only).
    """
    report = StepReport(index, scene.time + options.h, contacts.count, 0, 0, 0.0, Status.NO_CONTACT)
    if contacts.count:
        problem = build()
        solved = problems(index, problem) if problems is not None else None
        context = _context(scene, options, index, contacts)
        chain = _nsgs_chain(problem, options, linear)
        cap = budget.cap(chain) if budget is not None and chain is not None else None
        change = _resolve(scene, contacts, problem, options, context, capture, warm, report, linear, solved, cap)
        v = v + change.reshape(-1, 3)
        if budget is not None and cap is not None:
            budget.record(report.sweeps)
    return v, report


#: Called after every step with the advanced scene and that step's report.
Observer = Callable[[Scene, StepReport], None]
#: Called with each step's index and contact problem (before it is solved; steps without contacts have none):
#: how a caller exports the problems (FCLIB) without the stepper knowing where they go. A sink that also wants
#: the step's answer returns a :data:`SolutionSink`, which gets it once the problem is solved; one that returns
#: ``None`` gets nothing more (a timer of the solve, for instance, wants the moment before it).
ProblemSink = Callable[[int, ContactLCP], SolutionSink | None]


def simulate(
    scene: Scene,
    steps: int,
    options: StepOptions,
    *,
    capture: Capture | None = None,
    observer: Observer | None = None,
    problems: ProblemSink | None = None,
    progress: bool = False,
) -> list[StepReport]:
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
    problems : callable, optional
        ``problems(step, contact_problem)`` with each step's contact LCP before it is solved; what it returns, if
        not ``None``, is called with the step's :class:`StepSolution` (:data:`ProblemSink`).
    progress : bool
        Show a progress bar with steps/s, contacts and Newton iterations.
    """
    whole_number(steps, "steps", low=0)
    warm = WarmStart() if options.warm_start else None
    budget = SweepBudget()
    reports = []
    label = f"{scene.name} N={scene.n_spheres} mu={options.mu:g}"
    if options.integrator == "cd_lagrange":
        label += f" cd_lagrange e={options.restitution:g}"
    with tqdm(total=steps, desc=label, unit="step", disable=not progress) as bar:
        for k in range(steps):
            rep = step(scene, options, index=k, capture=capture, warm=warm, problems=problems, budget=budget)
            reports.append(rep)
            if observer is not None:
                observer(scene, rep)
            bar.update()
            if progress and (k % 10 == 0 or k == steps - 1):
                bar.set_postfix(contacts=rep.contacts, newton=rep.newton_iterations, refresh=False)
    return reports
