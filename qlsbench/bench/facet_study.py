"""What the friction facet count costs: post-step velocity error against the exact Coulomb cone, and time per step.

The DEM-C stepper solves eq. 6's ``s``-facet polygon. For ``s`` in :data:`FACETS` each pile runs its own warm-started
trajectory; every step's contact problem (from the stepper's ``problems`` sink, so the very contacts and free
velocities the step solved) is solved again on the exact cone by
:func:`~qlsbench.physics.spheres.exact_cone.exact_cone_nsgs`, and the step's error is
``||v_s - v_exact|| / ||v_exact - v_known||``: the share of the step's velocity change the facets turn or shorten.

The ``s`` runs advance in turn, one step each (the order turning every step), so a slower patch of the shared
machine falls on every ``s`` alike; times are reported as ratios to ``s = 8`` at the same step index.
"""

from __future__ import annotations

import copy
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from qlsbench import __version__
from qlsbench.data import atomic_write_text
from qlsbench.physics import NewtonOptions, StepOptions, WarmStart, build_scene, simulate, step
from qlsbench.physics.spheres import ContactLCP, Scene, exact_cone_nsgs, turning_gravity
from qlsbench.physics.spheres.scenes import GRAVITY

#: Facet counts studied (the stepper's default first: the ratios' reference).
FACETS = (8, 16, 32, 64)
#: Time step and friction of the piles (those of the asv frictional piles).
H, MU = 1e-3, 0.3
#: Unmeasured steps each s runs on its own before the measured ones.
OWN_STEPS = 5
#: Stamp of the results file's layout.
FORMAT = 1


@dataclass(frozen=True)
class Pile:
    """A study scene: the frictionless 100-sphere sedimentation after ``settle`` steps, then ``gravity(k)``."""

    name: str
    gravity: Callable[[int], np.ndarray]


def _upright(k: int) -> np.ndarray:
    return np.array([0.0, 0.0, -GRAVITY])


#: Gravity tilted 60 degrees and turning at 2 rad/s (asv ``SlidingPile``): the pile keeps sliding.
_turning = turning_gravity(60.0, 2.0, H)


PILES = (Pile("settled", _upright), Pile("sliding", _turning))


def start_pile(spheres: int, settle: int) -> Scene:
    """The 100-sphere sedimentation (seed 0) after ``settle`` frictionless steps: where both piles start."""
    scene = build_scene("sedimentation", n_spheres=spheres, seed=0)
    simulate(scene, settle, StepOptions(h=H, mu=0.0))
    return scene


def step_options(s: int) -> StepOptions:
    """The frictional step settings of the asv piles, with ``s`` facets."""
    # NSGS at Newton's tolerance: the settings the shipped facet runs were made with
    return StepOptions(
        h=H, mu=MU, s=s, newton=NewtonOptions(regularization=1e-8), friction_solver="nsgs", friction_tol=None
    )


def run_pile(pile: Pile, steps: int, *, spheres: int = 100, settle: int = 400, warmup: int = 0) -> list[dict]:
    """``steps`` steps of ``pile`` at every facet count, interleaved; one row per (s, step).

    ``warmup`` frictional steps at ``s = 8`` first take the pile from the frictionless start into its regime
    (the settled pile comes to rest under friction); they are not measured.
    """
    scene = start_pile(spheres, settle)
    warm = WarmStart()
    for k in range(warmup):
        scene.gravity = pile.gravity(k)
        step(scene, step_options(8), warm=warm)
    runs = {s: (scene.copy(), copy.deepcopy(warm)) for s in FACETS}
    # a few unmeasured steps at each s give every run a warm start of its own (one made at s = 8 does not fit
    # another s's unknowns, so its first step would start cold)
    for s, (current, carried) in runs.items():
        for k in range(warmup, warmup + OWN_STEPS):
            current.gravity = pile.gravity(k)
            step(current, step_options(s), warm=carried)
    warmup += OWN_STEPS
    rows = []
    for k in tqdm(range(steps), desc=pile.name, leave=False):
        # the order turns every step, so no s always runs right after another's exact-cone solve
        for s in FACETS[k % len(FACETS) :] + FACETS[: k % len(FACETS)]:
            current, carried = runs[s]
            current.gravity = pile.gravity(warmup + k)
            seen: list[ContactLCP] = []
            t0 = time.perf_counter()
            report = step(current, step_options(s), index=k, warm=carried, problems=_keep(seen))
            seconds = time.perf_counter() - t0
            rows.append(_row(pile.name, s, k, seconds, report, seen[0] if seen else None, current.velocities))
    return rows


def _keep(seen: list[ContactLCP]) -> Callable[[int, ContactLCP], None]:
    """A problem sink that keeps the step's contact problem in ``seen``."""
    return lambda index, problem: seen.append(problem)


def _row(pile: str, s: int, k: int, seconds: float, report, problem: ContactLCP | None, v: np.ndarray) -> dict:
    row = {"pile": pile, "s": s, "step": k, "seconds": seconds, "sweeps": int(report.sweeps)}
    row.update(contacts=int(report.contacts), status=str(report.status.value), error=float("nan"))
    if problem is None:
        return row
    exact = exact_cone_nsgs(problem, tol=1e-10)
    change = float(np.linalg.norm(exact.velocities - problem.v_known.reshape(-1, 3)))
    row.update(exact_status=str(exact.status.value), exact_sweeps=exact.sweeps)
    if change > 0:
        row["error"] = float(np.linalg.norm(v - exact.velocities)) / change
    return row


def summarise(rows: list[dict]) -> list[dict]:
    """Per pile and ``s``: median and worst error over steps, median time ratio to ``s = 8`` at the same step."""
    out = []
    for pile in dict.fromkeys(r["pile"] for r in rows):
        base = {r["step"]: r["seconds"] for r in rows if r["pile"] == pile and r["s"] == FACETS[0]}
        for s in FACETS:
            mine = [r for r in rows if r["pile"] == pile and r["s"] == s]
            errors = np.array([r["error"] for r in mine if np.isfinite(r["error"])])
            ratios = np.array([r["seconds"] / base[r["step"]] for r in mine])
            out.append(
                {
                    "pile": pile,
                    "s": s,
                    "steps": len(mine),
                    "median_error": float(np.median(errors)) if len(errors) else None,
                    "worst_error": float(errors.max()) if len(errors) else None,
                    "median_time_ratio": float(np.median(ratios)),
                    "ratio_q25": float(np.quantile(ratios, 0.25)),
                    "ratio_q75": float(np.quantile(ratios, 0.75)),
                    "median_step_ms": 1e3 * float(np.median([r["seconds"] for r in mine])),
                    "median_sweeps": float(np.median([r["sweeps"] for r in mine])),
                }
            )
    return out


def write_study(out: Path, steps: int, warmup: int) -> dict:
    """Run both piles and write ``facets.json`` (rows, summary, stamp, load) into ``out``; returns its content."""
    rows = []
    for pile in PILES:
        rows += run_pile(pile, steps, warmup=warmup if pile.name == "settled" else 1)
    content = {
        "format": FORMAT,
        "qlsbench": __version__,
        "facets": list(FACETS),
        "steps": steps,
        "load": os.getloadavg()[0],
        "summary": summarise(rows),
        "rows": rows,
    }
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "facets.json", json.dumps(content, indent=1) + "\n")
    return content


def page(content: dict) -> str:
    """The study page (``docs/facets.md``) from the results file's content: one table, every figure from it."""
    lines = [
        "# What the friction facet count costs",
        "",
        "<!-- generated by `python -m qlsbench.bench.facet_study --page` from docs/facets/facets.json; do not edit -->",
        "",
        "The DEM-C stepper solves the paper's `s`-facet friction polygon (eq. 6, `--friction-directions`, default 8);",
        "the FCLIB files state the exact Coulomb cone. Each step's contact problem is solved again on the exact cone",
        "(`qlsbench.physics.spheres.exact_cone_nsgs`, checked against analytic contacts and Siconos fc3d) and the",
        "error is `||v_s - v_exact|| / ||v_exact - v_known||`, the share of the step's velocity change the facets",
        "turn or shorten. Times are per whole step, as a ratio to `s = 8` at the same step (the runs advance in",
        f"turn, one step each), median and quartiles over {content['steps']} steps per pile; load average",
        f"{content['load']:.2f} on 2 shared cores; qlsbench {content['qlsbench']}. Every `s` starts from the same pile",
        f"and warm start, made at `s = 8`, and runs {OWN_STEPS} unmeasured steps of its own first. A step's time",
        "follows the stepper's path (NSGS sweeps, or min-map Newton when the warm start needs no sweep), so the",
        "sweeps are shown beside it.",
        "",
        "| pile | s | median error | worst error | time ratio to s = 8 (median [q25, q75]) | median step (ms) "
        "| median sweeps |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in content["summary"]:
        median = "-" if row["median_error"] is None else f"{100 * row['median_error']:.2f} %"
        worst = "-" if row["worst_error"] is None else f"{100 * row['worst_error']:.2f} %"
        ratio = f"{row['median_time_ratio']:.2f} [{row['ratio_q25']:.2f}, {row['ratio_q75']:.2f}]"
        step = f"{row['median_step_ms']:.1f} | {row['median_sweeps']:.0f}"
        lines.append(f"| {row['pile']} | {row['s']} | {median} | {worst} | {ratio} | {step} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """``python -m qlsbench.bench.facet_study [--steps N] [--page]``: run the study into ``docs/facets/``, or
    (``--page``) write ``docs/facets.md`` from the shipped results."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m qlsbench.bench.facet_study", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/facets"))
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=500, help="frictional steps that bring the settled pile to rest")
    parser.add_argument("--page", type=Path, nargs="?", const=Path("docs/facets.md"), default=None)
    args = parser.parse_args(argv)
    if args.page is not None:
        content = json.loads((args.out / "facets.json").read_text())
        atomic_write_text(args.page, page(content))
        return
    write_study(args.out, args.steps, args.warmup)


__all__ = ["FACETS", "PILES", "main", "page", "run_pile", "start_pile", "step_options", "summarise", "write_study"]

if __name__ == "__main__":
    main()
