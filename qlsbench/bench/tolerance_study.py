"""What a frictional run's tolerance costs in physical terms: piles run at each tolerance beside a tight reference.

Each pile starts from one state and runs :data:`STEPS` frictional steps (mu 0.3, h 1e-3, warm-started) once per
tolerance of the frictional chain (:attr:`~qlsbench.physics.StepOptions.friction_tol`, the natural residual
``||min(y, Q y + r)|| <= tol (1 + ||r||)``), once at the reference tolerance :data:`REFERENCE_TOL`, and three
more times beside it: the *facets* control, the reference's model with :data:`CONTROL_FACETS` facets instead of
8 (how far the pile's physics is pinned by the model itself: a tolerance whose trajectory departs less than this
changes nothing the model resolves), the *nudge* control, the reference from a start moved by :data:`NUDGE`
radii (how far two equally tight runs of a chaotic pile part), and the *null* at :data:`NULL_TOL` (a rule that
this passes judges nothing).
Every run records, per step, the deepest overlap, the kinetic energy, the pile's height and packing fraction, the
normal impulses of the last step, and each step's answer judged on Siconos' merit too (its fc3d error of the
exact Coulomb cone, :func:`siconos_error`). The reference run also solves each step at every swept tolerance from
its own start, so the *post-step velocity error* of a tolerance is measured on the same state:
``||dv_tol - dv_ref|| / ||dv_ref||``, ``dv`` the step's velocity change by the contact impulses.

A tolerance passes when its deepest overlap stays within :data:`PENETRATION_BOUND` radii, its velocity error
within :data:`VELOCITY_BOUND` at the median step, and its trajectory's departures from the reference (kinetic
energy, height, packing, contact-force distribution) within the facets control's. Results are written per run
(``docs/tolerance``), checkpointed after every step, so a killed run resumes. The page:
:mod:`qlsbench.bench.tolerance_page`.
"""

from __future__ import annotations

import json
import pickle
import time
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
from scipy.stats import ks_2samp
from tqdm.auto import tqdm

from qlsbench import __version__
from qlsbench.bench import scale_study
from qlsbench.data import atomic_write, atomic_write_text
from qlsbench.errors import InputError
from qlsbench.physics import (
    StepOptions,
    SweepBudget,
    WarmStart,
    build_scene,
    detect_contacts,
    step,
)
from qlsbench.physics.spheres import ContactLCP, Scene, turning_gravity
from qlsbench.physics.spheres.apgd import apgd_polished

#: Frictional steps per run, their length and the friction coefficient.
STEPS, H, MU = 100, 1e-3, 0.3
#: Tolerances swept, the reference's, and the null's.
TOLERANCES = (1e-4, 1e-5, 1e-6, 1e-7, 1e-8)
REFERENCE_TOL, NULL_TOL = 1e-10, 1e-1
#: The nudge control's start: every sphere moved by this share of its radius, in a random direction (seed 1).
NUDGE = 1e-9
#: The facets control's friction polygon.
CONTROL_FACETS = 16
#: The controls, each run at the reference tolerance.
CONTROLS = ("facets", "nudge")
#: Stated bounds: deepest overlap (radii) and the median step's post-step velocity error (of the velocity change).
PENETRATION_BOUND, VELOCITY_BOUND = 1e-2, 1e-3
#: The iteration cap of every step (the scale study's largest; no relative cap) and every run's first-order method.
MAX_ITER, SOLVER = 200_000, "apgd"
#: A pile counts as at rest when its kinetic energy is below this (J), as asv's settled pile.
AT_REST_ENERGY = 1e-10
#: The sliding pile's gravity: tilted 60 degrees at the start, turning at 2 rad/s (asv's ``SlidingPile``).
TILT, OMEGA = 60.0, 2.0
#: Stamp of the results files' layout.
#: 3: runs and velocity errors by the stepper's APGD finish in rounds with NSGS (qlsbench 0.2.4); 2 was plain APGD.
FORMAT = 3


@dataclass
class Pile:
    """A pile's start: the scene and its warm start (its gravity per step: :func:`pile_gravity`)."""

    name: str
    scene: Scene
    warm: WarmStart


def pile_gravity(name: str):
    """``gravity(k)`` of a pile whose gravity turns (the sliding pile), else ``None``."""
    return turning_gravity(TILT, OMEGA, H) if name == "sliding" else None


def step_options(tol: float, facets: int | None = None) -> StepOptions:
    """The runs' settings at ``tol``: the scale study's frictional chain finished by :data:`SOLVER` (with
    ``facets``: that many friction directions instead of the stepper's 8)."""
    base = scale_study.step_options()
    # No cap relative to the run's median step: the study measures what a tolerance buys, not what a cap cuts.
    nsgs = replace(base.nsgs, max_sweeps=MAX_ITER, stall_multiple=None) if base.nsgs is not None else None
    return replace(base, nsgs=nsgs, friction_solver=SOLVER, friction_tol=tol, s=facets or base.s)


def _own_warm_start(name: str, scene: Scene) -> Pile:
    """The pile ``scene`` with the warm start of one reference step from it (taken on a copy)."""
    warm, trial, gravity = WarmStart(), scene.copy(), pile_gravity(name)
    if gravity is not None:
        trial.gravity = gravity(0)
    step(trial, step_options(REFERENCE_TOL), index=0, warm=warm)
    return Pile(name, scene, warm)


def build_pile(name: str) -> Pile:
    """The study's piles.

    ``settled``: 100 spheres run with friction from the sedimentation start until at rest (kinetic energy below
    :data:`AT_REST_ENERGY`); ``sliding``: 100 spheres dropped by 400 frictionless steps, then gravity tilted and
    turning (:data:`TILT`, :data:`OMEGA`) so the pile keeps sliding; ``thousand``: the scale study's 1,000-sphere
    pile (600 frictionless steps). Each starts with the warm start of one reference step from it.
    """
    if name == "settled":
        scene, warm = build_scene("sedimentation", n_spheres=100, seed=0), WarmStart()
        options = step_options(REFERENCE_TOL)
        for k in range(5000):
            step(scene, options, index=k, warm=warm)
            if k > 100 and kinetic_energy(scene) < AT_REST_ENERGY:
                break
        return Pile(name, scene, warm)
    if name == "sliding":
        return _own_warm_start(name, scale_study.dropped_pile(100, 400))
    if name == "thousand":
        return _own_warm_start(name, scale_study.dropped_pile(1000))
    raise InputError(f"unknown pile {name!r}; the study's piles: {', '.join(PILES)}")


PILES = ("settled", "sliding", "thousand")


def kinetic_energy(scene) -> float:
    """``1/2 sum m |v|^2`` (J)."""
    return 0.5 * float(scene.masses @ (scene.velocities**2).sum(axis=1))


def deepest_overlap(scene) -> float:
    """The deepest sphere-sphere or sphere-wall overlap, in radii of the smallest sphere (0: none)."""
    gaps = detect_contacts(scene, 1e-12).gap
    return max(0.0, -float(gaps.min(initial=0.0))) / float(scene.radii.min())


def height_and_packing(scene) -> tuple[float, float]:
    """The pile's height along gravity above the container's lowest point (m), and its packing fraction: the
    spheres' volume over the container's cap up to that height."""
    wall = scene.walls[0]
    down = scene.gravity / np.linalg.norm(scene.gravity)
    height = float(np.max(-(scene.positions - wall.center) @ down + scene.radii)) + wall.radius
    height = min(height, 2.0 * wall.radius)
    cap = np.pi * height**2 * (3.0 * wall.radius - height) / 3.0
    return height, float(np.sum(4.0 / 3.0 * np.pi * scene.radii**3) / cap)


def siconos_error(problem: ContactLCP, y: np.ndarray) -> float:
    """Siconos' fc3d error of the answer ``y`` on the exact Coulomb cone, relative to ``||q||`` (as
    ``fc3d_compute_error`` given that norm, which a test checks).

    Per contact, in its frame, impulse ``r = (gamma, P_t)`` and velocity ``u`` (the normal row with its
    offset): ``||r - proj_K(r - (u + mu |u_t| e_n))||``, ``K`` the cone ``|P_t| <= mu gamma`` (De Saxce's
    natural map); the root of the sum of squares, over ``||q||`` with ``q`` the velocities before any
    impulse (unscaled where ``q`` vanishes). A polygon's answer has a floor here: a sliding contact's friction
    lies on the polygon, not against its sliding direction.
    """
    M, Hm, f, w, mu = problem.global_form()
    inv_mass = 1.0 / M.diagonal()
    r = problem.global_solution(y)[2]
    q = Hm.T @ (inv_mass * f) + w
    u = (Hm.T @ (inv_mass * (Hm @ r)) + q).reshape(-1, 3)
    r = r.reshape(-1, 3)
    slide = np.linalg.norm(u[:, 1:], axis=1)
    z = r - u - np.column_stack([mu * slide, np.zeros((len(u), 2))])
    norm = float(np.linalg.norm(q))
    return float(np.linalg.norm(r - _cone_projection(z, mu))) / (norm if norm > np.finfo(float).eps else 1.0)


def _cone_projection(z: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Each row ``(n, t1, t2)`` projected onto the cone ``|t| <= mu n``."""
    n, t = z[:, 0], np.linalg.norm(z[:, 1:], axis=1)
    inside, polar = mu * n >= t, mu * t <= -n
    scale = (n + mu * t) / (1.0 + mu**2)
    direction = z[:, 1:] / np.maximum(t, 1e-300)[:, None]
    out = np.column_stack([scale, (mu * scale)[:, None] * direction])
    out[inside] = z[inside]
    out[polar] = 0.0
    return out


def _cached_pile(pile: str, out: Path) -> Pile:
    """The pile's start, built once and kept beside the results (every run of a pile starts from it)."""
    path = Path(out) / f".start-{pile}.checkpoint"
    if path.exists():
        return Pile(**pickle.loads(path.read_bytes()))
    start = build_pile(pile)
    atomic_write(path, lambda target: target.write_bytes(pickle.dumps(vars(start))))
    return start


def run_label(tol: float, control: str | None = None) -> str:
    """A run's name: ``tol-1e-06``, ``reference`` (``tol-1e-10``), a control's name or ``null``."""
    if control is not None:
        if control not in CONTROLS:
            raise InputError(f"unknown control {control!r}; the study's controls: {', '.join(CONTROLS)}")
        return control
    if tol == REFERENCE_TOL:
        return "reference"
    return "null" if tol == NULL_TOL else f"tol-{tol:.0e}"


def results_path(out: Path, pile: str, label: str) -> Path:
    return Path(out) / f"{pile}-{label}.json"


def _start(pile: str, control: str | None, out: Path) -> dict:
    start = _cached_pile(pile, out)
    if control == "nudge":
        rng = np.random.default_rng(1)
        moves = rng.standard_normal(start.scene.positions.shape)
        moves *= (NUDGE * start.scene.radii / np.linalg.norm(moves, axis=1))[:, None]
        start.scene.positions = start.scene.positions + moves
    # plain fields, not the Pile: run as ``python -m``, this module's classes would pickle as ``__main__``'s
    return {"format": FORMAT, "pile": vars(start), "budget": SweepBudget(), "rows": []}


def run(pile: str, tol: float, out: Path, *, control: str | None = None, steps: int = STEPS, progress=True) -> dict:
    """Run (or resume) one pile at one tolerance; the results' content (:func:`results_path`).

    ``control`` (one of :data:`CONTROLS`) runs a control at ``tol`` instead. The reference run
    (``tol == REFERENCE_TOL``, no control) also solves every step at each of
    :data:`TOLERANCES` from the step's own start and records the velocity errors.
    """
    if pile not in PILES:
        raise InputError(f"unknown pile {pile!r}; the study's piles: {', '.join(PILES)}")
    if not (np.isfinite(tol) and tol > 0):
        raise InputError(f"--tol must be a positive number, got {tol!r}")
    label = run_label(tol, control)
    results = results_path(out, pile, label)
    results.parent.mkdir(parents=True, exist_ok=True)
    checkpoint = results.with_name("." + results.name + ".checkpoint")
    state = pickle.loads(checkpoint.read_bytes()) if checkpoint.exists() else _start(pile, control, out)
    if state.get("format") != FORMAT:
        raise InputError(f"{checkpoint}: a checkpoint of another layout: remove it to start over")
    facets = CONTROL_FACETS if control == "facets" else None
    start, options, gravity = Pile(**state["pile"]), step_options(tol, facets), pile_gravity(pile)
    reference = label == "reference"
    bar = tqdm(range(len(state["rows"]), steps), desc=f"{pile} {label}", disable=not progress)
    for k in bar:
        if gravity is not None:
            start.scene.gravity = gravity(k)
        held: dict = {}
        t0 = time.perf_counter()
        report = step(
            start.scene,
            options,
            index=k,
            warm=start.warm,
            budget=state["budget"],
            problems=partial(_hold, held),
        )
        seconds = time.perf_counter() - t0
        state["rows"].append(_row(k, seconds, report, start.scene, held, reference))
        atomic_write(checkpoint, lambda path: path.write_bytes(pickle.dumps(state)))
        content = _content(pile, label, tol, steps, state["rows"], report, start.scene)
        atomic_write_text(results, json.dumps(content, indent=1) + "\n")
        bar.set_postfix(iterations=report.sweeps, status=str(report.status.value))
    return json.loads(results.read_text())


def _hold(held: dict, index: int, problem: ContactLCP):
    """Hold the step's problem, and its solution once solved."""
    held["problem"] = problem
    return lambda solution: held.update(solution=solution)


def _row(k: int, seconds: float, report, scene, held: dict, reference: bool) -> dict:
    height, packing = height_and_packing(scene)
    row = {
        "step": k,
        "seconds": seconds,
        "contacts": int(report.contacts),
        "iterations": int(report.sweeps),
        "status": str(report.status.value),
        "residual": float(report.residual),
        "overlap": deepest_overlap(scene),
        "kinetic": kinetic_energy(scene),
        "height": height,
        "packing": packing,
    }
    if "solution" in held:
        problem, solution = held["problem"], held["solution"]
        row["merit"] = float(solution.residual) / (1.0 + float(np.linalg.norm(problem.r)))
        row["siconos"] = siconos_error(problem, solution.y)
        if reference:
            row["velocity_error"] = _velocity_errors(problem, solution)
    return row


def _velocity_errors(problem: ContactLCP, solution) -> dict[str, float]:
    """Each swept tolerance's post-step velocity error on this step, from the reference's start."""
    kept = problem.velocity_change(solution.y)
    scale = max(float(np.linalg.norm(kept)), 1e-300)
    out = {}
    for tol in (*TOLERANCES, NULL_TOL):
        answer = apgd_polished(problem, solution.start, tol=tol)  # the stepper's finish
        out[f"{tol:.0e}"] = float(np.linalg.norm(problem.velocity_change(answer.y) - kept)) / scale
    return out


def _content(pile: str, label: str, tol: float, steps: int, rows: list[dict], last, scene) -> dict:
    radius = float(scene.radii.min())
    return {
        "format": FORMAT,
        "qlsbench": __version__,
        "pile": pile,
        "label": label,
        "tol": tol,
        "steps": steps,
        "solver": SOLVER,
        "spheres": int(scene.n_spheres),
        "radius": radius,
        "energy_scale": float(np.sum(scene.masses) * np.linalg.norm(scene.gravity) * radius),
        "last_normal_impulses": [float(x) for x in last.normal_impulses if x > 0],
        "rows": rows,
    }


#: The formats read, and the finish that made each: format 2's runs (qlsbench 0.2.2) ended their steps with plain
#: APGD; format 3's with the stepper's APGD in rounds with NSGS. A step plain APGD finishes within a round (3,000
#: iterations) is the same to the bit under both.
FINISHES = {2: "plain APGD (qlsbench 0.2.2)", 3: "APGD in rounds with NSGS sweeps (qlsbench 0.2.4 on)"}


def read_results(out: Path) -> dict[tuple[str, str], dict]:
    """Every results file in ``out`` of a format read (:data:`FINISHES`), by ``(pile, label)``."""
    contents = [json.loads(p.read_text()) for p in sorted(Path(out).glob("*.json"))]
    return {(c["pile"], c["label"]): c for c in contents if c.get("format") in FINISHES}


def departures(run: dict, reference: dict) -> dict[str, float]:
    """A run's departures from the reference over the steps both ran: the largest kinetic-energy difference
    (relative to the pile's energy scale ``sum m g r``), height difference (radii), packing difference, and the
    two-sample Kolmogorov-Smirnov distance of the last step's loaded normal impulses."""
    steps = min(len(run["rows"]), len(reference["rows"]))
    a, b = run["rows"][:steps], reference["rows"][:steps]
    energy = [abs(x["kinetic"] - y["kinetic"]) for x, y in zip(a, b, strict=True)]
    height = [abs(x["height"] - y["height"]) for x, y in zip(a, b, strict=True)]
    packing = [abs(x["packing"] - y["packing"]) for x, y in zip(a, b, strict=True)]
    forces = ks_2samp(run["last_normal_impulses"], reference["last_normal_impulses"], method="asymp").statistic
    return {
        "kinetic": max(energy) / reference["energy_scale"],
        "height": max(height) / reference["radius"],
        "packing": max(packing),
        "forces": float(forces),
    }


def main(argv: list[str] | None = None) -> None:
    """``python -m qlsbench.bench.tolerance_study --pile NAME``: run or resume every run of a pile into
    ``docs/tolerance/`` (the reference first: it measures the velocity errors); ``--tol`` runs one tolerance.
    The page: ``python -m qlsbench.bench.tolerance_page``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m qlsbench.bench.tolerance_study", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/tolerance"))
    parser.add_argument("--pile", choices=PILES, default="settled")
    parser.add_argument("--tol", type=float, default=None)
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    runs = [(REFERENCE_TOL, None), *((REFERENCE_TOL, c) for c in CONTROLS), (NULL_TOL, None)]
    runs += [(t, None) for t in TOLERANCES]
    if args.tol is not None:
        runs = [(args.tol, None)]
    for tol, control in runs:
        run(args.pile, tol, args.out, control=control, steps=args.steps, progress=not args.quiet)


__all__ = [
    "CONTROLS",
    "NULL_TOL",
    "PILES",
    "REFERENCE_TOL",
    "TOLERANCES",
    "Pile",
    "build_pile",
    "deepest_overlap",
    "departures",
    "height_and_packing",
    "kinetic_energy",
    "pile_gravity",
    "read_results",
    "results_path",
    "run",
    "run_label",
    "siconos_error",
    "step_options",
]

if __name__ == "__main__":
    main()
