"""Nonsmooth Gauss-Seidel (NSGS) on the contact LCP of eq. 6: one contact at a time, each solved exactly.

The contact LCP couples contacts only through the sphere velocities
``v = v_known + M^-1 (D_nu gamma + D_hat beta)``. Holding every other contact's
impulse fixed, contact ``c`` sees its relative velocity ``u = u_free + w P`` with
``P`` its own impulse and ``w = 1/m_i + 1/m_j`` (``1/m_j`` against a wall): the
spheres do not rotate, so each contact's Delassus block is ``w`` times the 3x3
identity and the local problem separates:

* normal: ``0 <= gamma _|_ u_n + offset >= 0`` gives ``gamma = max(0, -(u_free_n + offset) / w)``;
* tangent: the impulse ``P_t = sum_l beta_l d_l`` minimises ``w/2 |P_t|^2 + P_t . u_free_t``
  over the friction polygon ``{sum beta_l d_l : beta >= 0, sum beta_l <= mu gamma}`` (eq. 6's
  maximal dissipation with ``s`` directions), i.e. it is the projection of
  ``-u_free_t / w`` onto the regular ``s``-gon of circumradius ``mu gamma``;
* ``beta`` is that point in the two directions of its sector (the basic solution: at
  most two positive ``beta`` per contact, as a pivoting method would give), and
  ``lambda = max(0, max_l -d_l . u_t)`` is the smallest sliding-speed multiplier
  (0 when the contact sticks).

Each update satisfies contact ``c``'s rows of the LCP exactly, so a sweep over all
contacts is the block Gauss-Seidel method of Siconos' ``fc3d`` NSGS, here on the
polyhedral cone of the paper instead of the exact Coulomb cone. A sweep costs
``O(nc s)`` (30 us for 300 contacts). It is not guaranteed to converge on
frictional problems: on a settled pile it needs a few sweeps per step, on a
100-sphere pile that is still sliding and settling most steps take hundreds
and about one in two hundred tens of thousands (at most 58,285 in asv's
``FrictionalPile`` run of 1,000 steps, over-relaxed past 3,000 sweeps as
:func:`nsgs` says; 190,000 before that; they converge, and still cost less
than the proximal fallback on the same steps). Min-map
Newton from a warm start stalls on most steps of such piles. The stepper's v2
chain is built on it (:mod:`~qlsbench.physics.spheres.stepping`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from qlsbench.checks import COUNT, POSITIVE, whole_number
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.lcp import LCP, LCPResult, lemke
from qlsbench.physics.spheres.assembly import ContactLCP


@dataclass(frozen=True)
class NSGSOptions:
    """How the stepper's v2 chain uses NSGS on frictional contact LCPs (:class:`~qlsbench.physics.StepOptions`).

    Attributes
    ----------
    presolve_tol : float
        On steps whose subsystems are kept, NSGS first runs from the warm
        start until ``||min(y, Q y + r)|| <= presolve_tol (1 + ||r||)`` and
        min-map Newton (whose subsystems are the dataset) goes on from there.
    max_sweeps : int
        Sweep cap of each NSGS run.
    newton_max_iter : int
        Newton iterations allowed on a kept step. From an NSGS point Newton
        converges within a few iterations or is stalling on a degenerate
        active set; more would only cost time (NSGS finishes the step).
    repairs : int
        Block repairs per NSGS run (:func:`nsgs`).
    stall_multiple : float or None
        In a run that keeps a :class:`SweepBudget` (:func:`~qlsbench.physics.simulate` does), a step's NSGS
        sweeps are capped at this multiple of the median sweeps of the run's earlier steps (but never below
        ``stall_floor``, nor above ``max_sweeps``). A step that reaches the cap keeps NSGS's closest answer and
        ends as ``max_iter`` with its residual in its report, instead of stalling the run: on a 1,000-sphere
        pile the fixed cap alone let single steps run 25-30 times the median step. ``None`` (the default): the
        fixed cap only. Off by default because the bound trades convergence for time: a pile sliding to rest
        has median steps of a few hundred sweeps (none once at rest) and single steps that converge after tens
        of thousands, a second or two at 100 spheres, which any relative cap would leave unconverged.
    stall_ratio : float
        A chunk of 50 sweeps that leaves more than this share of the residual counts as stalled and sets off a
        block repair (:func:`nsgs`). At 0.8 a steady crawl is left to the sweeps: at 0.5, on the slowest steps
        of the 100-sphere sliding pile, ten Lemke repairs ran per step for 1 % fewer sweeps and the whole
        300-step run took 1.56 times as long (6.33 s against 4.05 s). The v2 datasets were made with 0.5
        (:mod:`qlsbench.families.spheres` keeps it for them, so their bytes stay).
    stall_floor : int
        The smallest cap the multiple can set. Settled piles need a handful of sweeps a step, so their median
        alone would cut short the occasional step that needs thousands; 3,000 is where sweeps start to be
        over-relaxed.
    """

    presolve_tol: float = 1e-6
    max_sweeps: int = 200_000
    newton_max_iter: int = 10
    repairs: int = 10
    stall_ratio: float = 0.8
    stall_multiple: float | None = None
    stall_floor: int = 3_000

    def __post_init__(self) -> None:
        POSITIVE.check(self.presolve_tol, "NSGS presolve_tol")
        COUNT.check(self.max_sweeps, "NSGS max_sweeps")
        COUNT.check(self.newton_max_iter, "NSGS newton_max_iter")
        whole_number(self.repairs, "NSGS repairs", low=0)
        _check_stall_ratio(self.stall_ratio)
        if self.stall_multiple is not None:
            POSITIVE.check(self.stall_multiple, "NSGS stall_multiple")
        whole_number(self.stall_floor, "NSGS stall_floor", low=1)


def _check_stall_ratio(ratio: float) -> None:
    if not (np.isfinite(ratio) and 0.0 < ratio < 1.0):
        raise InputError(f"NSGS stall_ratio must be in (0, 1), got {ratio!r}")


class SweepBudget:
    """A run's record of the NSGS sweeps its steps took, and the cap that sets on the next step.

    The cap is ``stall_multiple`` times the median of the recorded sweeps, at least ``stall_floor`` and at most
    ``max_sweeps`` (:class:`NSGSOptions`); with nothing recorded yet it is ``max_sweeps``. Sweeps, not seconds, so
    that the same run stops at the same sweep on any machine: a sweep's cost grows with the contacts, which change
    slowly within a run.
    """

    def __init__(self) -> None:
        self.sweeps: list[int] = []

    def cap(self, options: NSGSOptions) -> int:
        """The sweep cap of the next step under ``options``."""
        if options.stall_multiple is None or not self.sweeps:
            return options.max_sweeps
        relative = int(np.ceil(options.stall_multiple * float(np.median(self.sweeps))))
        return min(options.max_sweeps, max(options.stall_floor, relative))

    def record(self, sweeps: int) -> None:
        """Add one step's sweeps."""
        self.sweeps.append(int(sweeps))


#: Sweeps between two checks of progress.
_CHUNK = 50
#: Contacts carrying at least this share of the largest contact's squared residual seed a block repair.
_SEED_SHARE = 0.1
#: Largest block (unknowns) handed to Lemke: its dense tableau costs O(m^2) per pivot.
_MAX_BLOCK = 400
#: Sweeps after which the sweeps are over-relaxed by ``_OMEGA``. A run this long is a slow one (a pile sliding to
#: rest, its impulses redistributing through nearly indeterminate contact loops); on the six hardest steps of a
#: 100-sphere sliding pile, over-relaxing from here cut 22.7 s of sweeps to 8.7 s (omega 1.3: 14.8 s, 1.8: 16.0 s,
#: 1.9: 26.2 s). The first sweeps stay plain: over-relaxing every step from the start was slower on most steps
#: and sent more of them to the fallbacks, and a run that ends before this (every step of the default workflow's
#: frictional datasets does) is exactly the plain method's.
_RELAX_AFTER = 3_000
_OMEGA = 1.6


def nsgs(
    problem: ContactLCP,
    y0: np.ndarray | None = None,
    *,
    tol: float = 1e-10,
    max_sweeps: int = 200_000,
    repairs: int = 10,
    stall_ratio: float = 0.8,
) -> LCPResult:
    """Solve a contact LCP by nonsmooth Gauss-Seidel sweeps over its contacts, with block repairs.

    On a statically indeterminate pile (a closed loop of contacts, e.g. two
    spheres touching each other and the wall) the sweeps can reach a state
    where the velocities no longer change but the impulses drift along the
    loop at a constant rate, the residual stuck above the tolerance (seen at
    1.2e-8 against a target of 2.2e-9 for 15,000 sweeps): the active pattern the
    sweeps keep has no solution, and the one that has lies where the drift
    would take an impulse to zero, hundreds of thousands of sweeps away. When
    a chunk of ``50`` sweeps leaves more than ``stall_ratio`` of the residual, the contacts that
    carry it and every contact touching one of their spheres are solved
    together, exactly, by Lemke's method with the rest held fixed (a block
    Gauss-Seidel step), and the sweeps go on from there.

    A pile sliding to rest can also need tens of thousands of sweeps (a
    100-sphere pile: 24,000-190,000 plain sweeps, 1-7 s, on its six hardest
    steps of 1,000). Past ``3,000`` sweeps they are over-relaxed (``omega =
    1.6``), which takes those steps to 11,000-61,000 sweeps, less than the
    fallbacks measured on them (proximal min-map Newton: 3-15 s).

    Parameters
    ----------
    problem : ContactLCP
        An assembled contact LCP (frictionless or eq. 6 with friction).
    y0 : numpy.ndarray, optional
        Start in the LCP's layout ``(gamma, beta, lambda)``; zero by default.
        It is projected onto ``y >= 0``.
    tol : float
        Stop when ``||min(y, Q y + r)|| <= tol (1 + ||r||)``, as min-map Newton does.
    max_sweeps : int
        Sweep cap.
    repairs : int
        Cap on block repairs (0: plain sweeps).
    stall_ratio : float
        A chunk of sweeps that leaves more than this share of the residual counts as stalled
        (:attr:`NSGSOptions.stall_ratio`).

    Returns
    -------
    LCPResult
        ``iterations`` counts sweeps; ``residual`` is the natural residual of
        the returned ``y`` (:meth:`ContactLCP.natural_residual`, recomputed from
        the impulses: the sweeps track it through velocities updated one contact
        at a time, which round differently); ``info`` holds ``sweeps``,
        ``repairs`` (block solves that were kept) and ``repair_unknowns``
        (their total size).
    """
    POSITIVE.check(tol, "NSGS tol")
    whole_number(max_sweeps, "NSGS max_sweeps", low=1)
    whole_number(repairs, "NSGS repairs", low=0)
    _check_stall_ratio(stall_ratio)
    y = np.zeros(problem.size) if y0 is None else np.maximum(np.asarray(y0, dtype=np.float64), 0.0)
    if y.shape != (problem.size,):
        raise InputError(f"NSGS start y0 has shape {y.shape}, expected ({problem.size},)")
    state = _Sweeps(problem, y)
    target = tol * (1.0 + float(np.linalg.norm(problem.r)))
    info = {"sweeps": 0, "repairs": 0, "repair_unknowns": 0}
    residual, previous = state.residual(), np.inf
    while residual > target and info["sweeps"] < max_sweeps:
        omega = 1.0 if info["sweeps"] < _RELAX_AFTER else _OMEGA
        ran, residual = state.sweep(min(_CHUNK, max_sweeps - info["sweeps"]), target, omega)
        info["sweeps"] += ran
        if residual <= target or residual < stall_ratio * previous:
            previous = residual
            continue
        previous = residual
        if info["repairs"] < repairs and _repair(problem, state, info):
            residual = state.residual()
    y = state.y()
    residual = problem.natural_residual(y)
    if residual <= target:
        return LCPResult(y, Status.CONVERGED, info["sweeps"], residual, "", [residual], info)
    return LCPResult(
        y,
        Status.MAX_ITER,
        info["sweeps"],
        residual,
        f"NSGS: residual {residual:.2e} above {target:.2e} after {info['sweeps']} sweeps",
        [residual],
        info,
    )


class _Sweeps:
    """The sweep state: impulses split by kind and the sphere velocities they give."""

    def __init__(self, problem: ContactLCP, y: np.ndarray) -> None:
        self.problem = problem
        nc, s = problem.nc, problem.s
        self.frictional = problem.D_hat is not None
        self.s = s if self.frictional else 0
        self.mu = problem.mu if self.frictional else 0.0
        angles = 2.0 * np.pi * np.arange(self.s) / max(self.s, 1)
        self.cos, self.sin = np.cos(angles), np.sin(angles)
        self.inv_mass = problem.inv_mass[::3].copy()
        c = problem.contacts
        self.geometry = (c.body_i, c.body_j, c.normal, c.t1, c.t2, problem.normal_offset)
        self.split = (nc, nc * (1 + self.s))
        self.set_y(y)

    def set_y(self, y: np.ndarray) -> None:
        """Take the impulses ``y`` (LCP layout) and recompute the velocities from them."""
        nc, end = self.split
        self.gamma, self.beta, self.lam = y[:nc].copy(), y[nc:end].copy(), y[end:].copy()
        self.v = (self.problem.v_known + self.problem.velocity_change(y)).reshape(-1, 3)

    def y(self) -> np.ndarray:
        return np.concatenate([self.gamma, self.beta, self.lam])

    def _arrays(self) -> tuple[float, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (self.mu, self.s, self.cos, self.sin, self.v, self.gamma, self.beta, self.lam)

    def sweep(self, count: int, target: float, omega: float = 1.0) -> tuple[int, float]:
        """At most ``count`` sweeps (over-relaxed by ``omega``), fewer when the residual meets ``target``; the
        sweeps run and the residual."""
        bi, bj, n, t1, t2, offset = self.geometry
        return _sweep_until(bi, bj, n, t1, t2, offset, self.inv_mass, *self._arrays(), target, count, omega)

    def residual(self) -> float:
        return float(np.sqrt(self.contact_residuals().sum()))

    def contact_residuals(self) -> np.ndarray:
        """Each contact's share of ``||min(y, Q y + r)||^2``."""
        return _contact_residuals(*self.geometry, *self._arrays())


def _repair(problem: ContactLCP, state: _Sweeps, info: dict) -> bool:
    """Solve the contacts that carry the residual, and their spheres' other contacts, exactly by Lemke.

    The block's LCP is ``(Q_BB, r_B + Q_BR y_R)`` with the other unknowns
    ``y_R`` fixed; a block over ``_MAX_BLOCK`` unknowns shrinks to the
    contacts of largest residual. Returns whether the block's solution was
    kept (Lemke converged): the neighbours of the block then see new impulses
    and the residual may rise before the next sweeps bring it down.
    """
    per = state.contact_residuals()
    seeds = np.flatnonzero(per >= _SEED_SHARE * per.max())
    c = problem.contacts
    spheres = np.setdiff1d(np.concatenate([c.body_i[seeds], c.body_j[seeds]]), [-1])
    block = np.flatnonzero(np.isin(c.body_i, spheres) | np.isin(c.body_j, spheres))
    index = _unknowns(block, problem.nc, state.s)
    if len(index) > _MAX_BLOCK:
        largest = np.argsort(per)[::-1][: max(1, _MAX_BLOCK // (state.s + 2))]
        index = _unknowns(np.intersect1d(seeds, largest), problem.nc, state.s)
    y, Q = state.y(), problem.lcp.Q
    rest = np.ones(len(y), bool)
    rest[index] = False
    rows = Q[index]
    sub = LCP(rows[:, index], problem.r[index] + rows[:, rest] @ y[rest])
    solved = lemke(sub)
    if solved.status != Status.CONVERGED:
        return False
    trial = y.copy()
    trial[index] = solved.y
    state.set_y(trial)
    info["repairs"] += 1
    info["repair_unknowns"] += len(index)
    return True


def _unknowns(contacts: np.ndarray, nc: int, s: int) -> np.ndarray:
    """Indices of the LCP unknowns of ``contacts``: their gamma, then beta and lambda (friction only)."""
    if s == 0:
        return np.sort(contacts)
    beta = nc + (contacts[:, None] * s + np.arange(s)).ravel()
    return np.sort(np.concatenate([contacts, beta, nc * (1 + s) + contacts]))


@numba.njit(cache=True, inline="always")
def _polygon_point(q1, q2, radius, s, cos, sin):
    """Project ``(q1, q2)`` onto the regular ``s``-gon with vertices ``radius (cos_l, sin_l)``.

    Returns the sector ``l`` and the weights ``(b_l, b_{l+1})`` of the
    projection on ``d_l`` and ``d_{l+1}``. A point in sector ``l`` (between the
    rays through vertices ``l`` and ``l + 1``) projects onto edge ``l`` or one
    of its two ends, never onto another edge, since each edge's outer strip
    lies inside its own sector.
    """
    step = 2.0 * np.pi / s
    angle = np.arctan2(q2, q1)
    if angle < 0.0:
        angle += 2.0 * np.pi
    sector = min(int(angle / step), s - 1)
    nxt = (sector + 1) % s
    # the outward normal of edge `sector` bisects its two vertices
    e1, e2 = cos[sector] + cos[nxt], sin[sector] + sin[nxt]
    norm = np.sqrt(e1 * e1 + e2 * e2)
    e1, e2 = e1 / norm, e2 / norm
    apothem = radius * np.cos(0.5 * step)
    if q1 * e1 + q2 * e2 > apothem:  # outside: the nearest point of the edge segment
        half = radius * np.sin(0.5 * step)
        along = min(max(-e2 * q1 + e1 * q2, -half), half)
        q1, q2 = apothem * e1 - along * e2, apothem * e2 + along * e1
    det = cos[sector] * sin[nxt] - sin[sector] * cos[nxt]
    b0 = max((q1 * sin[nxt] - q2 * cos[nxt]) / det, 0.0)
    b1 = max((cos[sector] * q2 - sin[sector] * q1) / det, 0.0)
    return sector, b0, b1


@numba.njit(cache=True, inline="always")
def _along(frame, c, x0, x1, x2):
    """``frame[c] . (x0, x1, x2)`` (scalar arithmetic: no temporary arrays in the sweeps)."""
    return frame[c, 0] * x0 + frame[c, 1] * x1 + frame[c, 2] * x2


@numba.njit(cache=True, inline="always")
def _relative(v, i, j):
    """Velocity of sphere ``j`` relative to ``i`` (to the wall for ``i < 0``)."""
    if i < 0:
        return v[j, 0], v[j, 1], v[j, 2]
    return v[j, 0] - v[i, 0], v[j, 1] - v[i, 1], v[j, 2] - v[i, 2]


@numba.njit(cache=True, inline="always")
def _update_contact(c, body_i, body_j, normal, t1, t2, offset, inv_mass, mu, s, cos, sin, v, gamma, beta, lam, omega):
    """Solve contact ``c``'s rows exactly with the others fixed; ``v`` follows the impulse change.

    With ``omega != 1`` the step from the old impulse to the exact one is stretched by ``omega`` and projected
    back (normal impulse onto ``>= 0``, friction onto the polygon of the new normal impulse): over-relaxation.
    """
    i, j = body_i[c], body_j[c]
    w = inv_mass[j] + (inv_mass[i] if i >= 0 else 0.0)
    g0, pt1, pt2 = gamma[c], 0.0, 0.0
    for k in range(s):
        pt1 += beta[c * s + k] * cos[k]
        pt2 += beta[c * s + k] * sin[k]
    r0, r1, r2 = _relative(v, i, j)
    # the relative velocity without this contact's own impulse, in the contact frame
    un = _along(normal, c, r0, r1, r2) - w * g0
    u1 = _along(t1, c, r0, r1, r2) - w * pt1
    u2 = _along(t2, c, r0, r1, r2) - w * pt2
    g = -(un + offset[c]) / w
    if g < 0.0:
        g = 0.0
    if omega != 1.0:
        g = max(g0 + omega * (g - g0), 0.0)
    q1, q2 = 0.0, 0.0
    if s > 0:
        for k in range(s):
            beta[c * s + k] = 0.0
        if mu * g > 0.0:
            x1, x2 = -u1 / w, -u2 / w
            if omega != 1.0:
                x1, x2 = pt1 + omega * (x1 - pt1), pt2 + omega * (x2 - pt2)
            sector, b0, b1 = _polygon_point(x1, x2, mu * g, s, cos, sin)
            nxt = (sector + 1) % s
            beta[c * s + sector], beta[c * s + nxt] = b0, b1
            q1 = b0 * cos[sector] + b1 * cos[nxt]
            q2 = b0 * sin[sector] + b1 * sin[nxt]
        ut1, ut2 = u1 + w * q1, u2 + w * q2
        slide = 0.0
        for k in range(s):
            along = -(cos[k] * ut1 + sin[k] * ut2)
            if along > slide:
                slide = along
        lam[c] = slide
    gamma[c] = g
    dg, d1, d2 = g - g0, q1 - pt1, q2 - pt2
    c0 = dg * normal[c, 0] + d1 * t1[c, 0] + d2 * t2[c, 0]
    c1 = dg * normal[c, 1] + d1 * t1[c, 1] + d2 * t2[c, 1]
    c2 = dg * normal[c, 2] + d1 * t1[c, 2] + d2 * t2[c, 2]
    m = inv_mass[j]
    v[j, 0] += m * c0
    v[j, 1] += m * c1
    v[j, 2] += m * c2
    if i >= 0:
        m = inv_mass[i]
        v[i, 0] -= m * c0
        v[i, 1] -= m * c1
        v[i, 2] -= m * c2


@numba.njit(cache=True)
def _contact_residuals(body_i, body_j, normal, t1, t2, offset, mu, s, cos, sin, v, gamma, beta, lam):
    """Each contact's sum of ``min(y_k, (Q y + r)_k)^2`` over its rows, ``Q y + r`` read off the velocities."""
    per = np.zeros(body_i.shape[0])
    for c in range(body_i.shape[0]):
        r0, r1, r2 = _relative(v, body_i[c], body_j[c])
        x = min(gamma[c], _along(normal, c, r0, r1, r2) + offset[c])
        total = x * x
        if s > 0:
            u1, u2 = _along(t1, c, r0, r1, r2), _along(t2, c, r0, r1, r2)
            used = 0.0
            for k in range(s):
                b = beta[c * s + k]
                used += b
                x = min(b, cos[k] * u1 + sin[k] * u2 + lam[c])
                total += x * x
            x = min(lam[c], mu * gamma[c] - used)
            total += x * x
        per[c] = total
    return per


@numba.njit(cache=True)
def _sweep_until(
    body_i, body_j, normal, t1, t2, offset, inv_mass, mu, s, cos, sin, v, gamma, beta, lam, target, count, omega
):
    """At most ``count`` sweeps over the contacts in order (relaxation factor ``omega``), stopping once the
    residual meets ``target``.

    Returns the sweeps run and the residual after the last one.
    """
    residual = 0.0
    for sweep in range(1, count + 1):
        for c in range(body_i.shape[0]):
            _update_contact(
                c, body_i, body_j, normal, t1, t2, offset, inv_mass, mu, s, cos, sin, v, gamma, beta, lam, omega
            )
        residual = np.sqrt(
            _contact_residuals(body_i, body_j, normal, t1, t2, offset, mu, s, cos, sin, v, gamma, beta, lam).sum()
        )
        if residual <= target:
            return sweep, residual
    return count, residual


__all__ = ["NSGSOptions", "SweepBudget", "nsgs"]
