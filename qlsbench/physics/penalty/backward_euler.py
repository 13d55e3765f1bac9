"""Time stepping (alg. 1, TIME_STEP): Newton on backward Euler, state update, attachment update."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from qlsbench.physics.penalty.attachments import seed_pair_contact, seed_sphere_contact
from qlsbench.physics.penalty.equations import Evaluation, evaluate
from qlsbench.physics.penalty.model import PenaltyModel
from qlsbench.physics.penalty.newton import (
    NewtonReport,
    PenaltyNewtonOptions,
    newton_solve,
)


@dataclass
class PenaltyStepReport:
    """One step: Newton's report and the contacts of the accepted configuration."""

    step: int
    time: float
    newton: NewtonReport
    contacts: int
    sliding: int


def _update_attachments(model: PenaltyModel, ev: Evaluation) -> None:
    """UPDATE_ATTACHMENT: keep each active attachment at its relaxed point ``Y``; drop the rest.

    A sphere's material point is re-chosen as its current deepest point and
    the anchor shifted with it, so a rolling sphere keeps the tangential
    spring it had instead of dragging a point that has rolled away.
    """
    sph, kept = model.spheres, {}
    for term in ev.contacts:
        kind, body, other = term.key
        if kind == "particle":
            kept[term.key] = {"anchor": term.Y.copy()}
            continue
        if kind == "particle_sphere":  # DR: the attachment rides with the body (frame-inverse-times)
            kept[term.key] = {"anchor_body": sph.R[other].T @ (term.Y - sph.x[other])}
            continue
        if kind == "particle_mesh":  # a sticking attachment keeps (e0, w0); a moved one takes (e, w)
            kept[term.key] = dict(term.update)
            continue
        shift = term.Y - term.Z  # the tangential spring the attachment had
        if kind == "sphere":
            offset, anchor = seed_sphere_contact(model.obstacles[other], sph.x[body], sph.radius[body], shift)
            kept[term.key] = {"offset_body": sph.R[body].T @ offset, "anchor": anchor}
            continue
        offset, anchor_offset = seed_pair_contact(sph.x[body], sph.radius[body], sph.x[other], sph.radius[other], shift)
        kept[term.key] = {"offset_body": sph.R[body].T @ offset, "anchor_body": sph.R[other].T @ anchor_offset}
    model.attachments = kept


def time_step(
    model: PenaltyModel,
    h: float,
    options: PenaltyNewtonOptions,
    capture: Callable | None = None,
    linear: Callable | None = None,
) -> PenaltyStepReport:
    """Advance ``model`` by one backward Euler step of length ``h`` (in place).

    Parameters
    ----------
    model : PenaltyModel
    h : float
        Time step.
    options : PenaltyNewtonOptions
    capture : callable, optional
        ``capture(evaluation, rhs, dz, context)`` for every Newton linear system;
        ``context`` names the step, Newton iteration, time and contact counts.
    linear : callable, optional
        Solves the Newton systems instead of GMRES (see :func:`newton_solve`).
    """
    step = model.steps_taken
    gravity_impulse = h * float(np.linalg.norm(model.mass_vector())) * max(float(np.linalg.norm(model.gravity)), 1.0)

    def forward(ev, rhs, dz, it, info):
        if capture is not None:
            sliding = sum(not t.sticking for t in ev.contacts)
            capture(
                ev,
                rhs,
                dz,
                {
                    "step": step,
                    "newton_iter": it,
                    "time": model.time,
                    "h": h,
                    "mu": model.mu,
                    "contacts": len(ev.contacts),
                    "sliding": sliding,
                    "gmres_info": int(info),
                    "stiffness": model.stiffness,
                    "scene": model.name,
                },
            )

    ev: Evaluation  # newton_solve is generic in what evaluate returns
    dv, ev, report = newton_solve(
        lambda z: evaluate(model, z, h),
        np.zeros(model.ndof),
        options,
        scale=gravity_impulse,
        gradient_scale=float(model.mass_vector().max()),
        capture=forward,
        linear=linear,
    )
    cand = ev.candidate
    model.particles.v, model.particles.x = cand.vp, cand.xp
    sph = model.spheres
    sph.v, sph.omega, sph.x = cand.vs, cand.omega, cand.xs
    sph.R = np.einsum("bij,bjk->bik", cand.step_rotation, sph.R)
    _update_attachments(model, ev)
    model.time += h
    model.steps_taken += 1
    return PenaltyStepReport(step, model.time, report, len(ev.contacts), sum(not t.sticking for t in ev.contacts))


def simulate_penalty(
    model: PenaltyModel,
    steps: int,
    h: float,
    options: PenaltyNewtonOptions | None = None,
    capture: Callable | None = None,
    observer: Callable | None = None,
    progress: bool = False,
) -> list[PenaltyStepReport]:
    """Run ``steps`` time steps; ``observer(model, report)`` after each."""
    from tqdm.auto import tqdm

    options = options or PenaltyNewtonOptions()
    reports = []
    for _ in tqdm(range(steps), desc=model.name or "penalty", disable=not progress, unit="step"):
        report = time_step(model, h, options, capture)
        reports.append(report)
        if observer is not None:
            observer(model, report)
    return reports
