"""The tolerance study's page (``docs/tolerance.md``): each pile's runs side by side, judged, and the tolerance chosen.

Generated from the results files of :mod:`qlsbench.bench.tolerance_study` by
``python -m qlsbench.bench.tolerance_page``; a test regenerates it from the shipped files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from qlsbench.bench.tolerance_study import (
    CONTROL_FACETS,
    CONTROLS,
    FINISHES,
    NUDGE,
    NULL_TOL,
    PENETRATION_BOUND,
    PILES,
    REFERENCE_TOL,
    TOLERANCES,
    VELOCITY_BOUND,
    departures,
    read_results,
    run_label,
)
from qlsbench.data import atomic_write_text

#: Departures from the reference judged against the control's, with their column titles.
TRAJECTORY = {
    "kinetic": "kinetic-energy departure (of sum m g r)",
    "height": "height departure (radii)",
    "packing": "packing departure",
    "forces": "force distribution (KS distance)",
}


def allowed_departures(results: dict) -> dict[str, float] | None:
    """The largest departure of the facets control from its reference over the piles with both, per measure: how
    far the model's own friction polygon moves a pile where friction decides the motion (``None``: no pile has
    its facets control yet)."""
    piles = [p for p in PILES if (p, "reference") in results and (p, "facets") in results]
    if not piles:
        return None
    each = [departures(results[(p, "facets")], results[(p, "reference")]) for p in piles]
    return {name: max(d[name] for d in each) for name in TRAJECTORY}


def judge(run: dict, reference: dict, allowed: dict[str, float] | None) -> dict:
    """A run's figures and verdict: the deepest overlap and the reference's velocity errors against the stated
    bounds, its trajectory departures against ``allowed`` (:func:`allowed_departures`; ``None``: no control yet,
    so no verdict)."""
    rows = run["rows"]
    key = f"{run['tol']:.0e}"  # the reference and the control are at the reference tolerance: no error measured
    errors = [r["velocity_error"][key] for r in reference["rows"] if key in r.get("velocity_error", {})]
    figures = {
        "steps": len(rows),
        "seconds": float(sum(r["seconds"] for r in rows)),
        "median_step": float(np.median([r["seconds"] for r in rows])),
        "unconverged": sum(r["status"] != "converged" for r in rows),
        "iterations": float(np.median([r["iterations"] for r in rows])),
        "overlap": max(r["overlap"] for r in rows),
        "velocity_median": float(np.median(errors)) if errors else np.nan,
        "velocity_max": float(np.max(errors)) if errors else np.nan,
        "siconos": float(np.median([r["siconos"] for r in rows if "siconos" in r])),
        **departures(run, reference),
    }
    failed = []
    if figures["overlap"] > PENETRATION_BOUND:
        failed.append("overlap")
    if figures["velocity_median"] > VELOCITY_BOUND:
        failed.append("velocity")
    if allowed is not None and run["label"] not in ("reference", *CONTROLS):
        failed += [name for name in TRAJECTORY if figures[name] > allowed[name]]
    if len(rows) < run["steps"]:
        failed.append("unfinished")
    figures["failed"] = failed
    figures["verdict"] = "-" if allowed is None else ("passes" if not failed else "fails: " + ", ".join(failed))
    return figures


def null_passes(pile: str, results: dict, allowed: dict[str, float] | None) -> bool:
    """Whether ``pile``'s null passes the rule (then the pile is not a test: the rule judges nothing there and the
    pile takes no part in the choice); ``False`` without a null run or a control."""
    if allowed is None or (pile, "null") not in results or (pile, "reference") not in results:
        return False
    return not judge(results[(pile, "null")], results[(pile, "reference")], allowed)["failed"]


def judged_piles(results: dict) -> list[str]:
    """The piles that decide the choice: with their reference, facets control and null, the null failing."""
    allowed = allowed_departures(results)
    return [
        p
        for p in PILES
        if (p, "reference") in results
        and (p, "facets") in results
        and (p, "null") in results
        and not null_passes(p, results, allowed)
    ]


def chosen_tolerance(results: dict) -> float | None:
    """The loosest swept tolerance that passes on every judged pile (:func:`judged_piles`; ``None``: none does, or
    no pile is judged yet)."""
    piles = judged_piles(results)
    allowed = allowed_departures(results)
    if allowed is None or not piles:
        return None
    for tol in sorted(TOLERANCES, reverse=True):
        label = run_label(tol)
        verdicts = [
            judge(results[(p, label)], results[(p, "reference")], allowed)["failed"]
            for p in piles
            if (p, label) in results
        ]
        if len(verdicts) == len(piles) and not any(verdicts):
            return tol
    return None


def _order(label: str) -> float:
    """Rows from the null down to the reference, the control last."""
    fixed = {"null": 0.0, "reference": 10.0, "facets": 11.0, "nudge": 12.0}
    return fixed[label] if label in fixed else -float(np.log10(float(label[4:])))


def _number(value: float) -> str:
    return "-" if not np.isfinite(value) else (f"{value:.2g}" if value else "0")


def pile_table(pile: str, results: dict) -> list[str]:
    """One pile's runs, a line each, null first."""
    reference, allowed = results[(pile, "reference")], allowed_departures(results)
    lines = [
        f"### {pile} ({reference['spheres']:,} spheres)",
        "",
        "| run | tol | steps | s/step (median) | unconverged | median iterations | deepest overlap (radii) "
        "| velocity error (median / max) | "
        + " | ".join(TRAJECTORY.values())
        + " | Siconos error (median) | verdict |",
        "|---|---|---|---|---|---|---|---|" + "---|" * len(TRAJECTORY) + "---|---|",
    ]
    if null_passes(pile, results, allowed):
        lines[1:1] = [
            "",
            f"Not a test: the null (tolerance {NULL_TOL:.0e}) passes on this pile, so no verdict here judges "
            "anything and the pile takes no part in the choice.",
        ]
    labels = sorted((label for p, label in results if p == pile), key=_order)
    for label in labels:
        run = results[(pile, label)]
        f = judge(run, reference, allowed)
        cells = [
            label,
            f"{run['tol']:.0e}",
            f"{f['steps']} of {run['steps']}",
            f"{f['median_step']:.3g}",
            str(f["unconverged"]),
            f"{f['iterations']:,.0f}",
            _number(f["overlap"]),
            f"{_number(f['velocity_median'])} / {_number(f['velocity_max'])}",
            *(_number(f[name]) for name in TRAJECTORY),
            _number(f["siconos"]),
            f["verdict"],
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def page(results: dict) -> str:
    """The whole page from the results files' contents (:func:`~qlsbench.bench.tolerance_study.read_results`)."""
    chosen = chosen_tolerance(results)
    lines = [
        "# What a frictional run's tolerance costs",
        "",
        "<!-- generated by `python -m qlsbench.bench.tolerance_page` from docs/tolerance/*.json; do not edit -->",
        "",
        "Each pile runs 100 frictional steps (mu 0.3, h 1e-3 s, warm-started, APGD finishing each step) once per",
        "tolerance of the natural residual `||min(y, Qy + r)|| <= tol (1 + ||r||)`, once at the reference",
        f"tolerance {REFERENCE_TOL:.0e}, and three times beside it: the *facets* control (the reference with a",
        f"friction polygon of {CONTROL_FACETS} facets instead of 8: how far the model itself pins the pile's",
        f"physics), the *nudge* control (the reference from a start moved by {NUDGE:.0e} radii: how far two",
        f"equally tight runs of a chaotic pile part) and the *null* at tolerance {NULL_TOL:.0e}. Run",
        "(resumable): `python -m qlsbench.bench.tolerance_study --pile settled`.",
        "",
        f"A tolerance passes when its deepest overlap stays within {PENETRATION_BOUND:g} radii, its post-step",
        f"velocity error within {VELOCITY_BOUND:g} of the step's velocity change at the median step (each step of",
        "the reference solved again at that tolerance from the same start; the worst step is shown beside it: on",
        "the 1,000-sphere pile a few steps, those the reference itself needs tens of thousands of iterations",
        "for, depart by percents even at 1e-7), and each departure of its trajectory",
        "from the reference's (largest over the steps; the force distribution is the last step's loaded normal",
        "impulses, a two-sample Kolmogorov-Smirnov distance) within the facets control's, the largest over the",
        "piles: a tolerance that moves a pile less than the model's own friction polygon moves the pile where",
        "friction decides the motion changes nothing the model resolves (a pile at rest barely feels its facets,",
        "so its own control would judge by chaos alone). The Siconos column is",
        "Siconos' fc3d error of each step's answer on the exact Coulomb cone: the stepper solves the polygon of 8",
        "facets, so it has a floor that no tolerance lowers. A pile where the null passes is not a test: the",
        "rule judges nothing there, and the pile takes no part in the choice.",
        "",
    ]
    lines += [_finishes(results), ""]
    allowed = allowed_departures(results)
    if chosen is None:
        lines.append("No swept tolerance passes on every judged pile yet.")
    else:
        lines.append(
            f"**Chosen: {chosen:.0e}**, the loosest swept tolerance that passes on every pile where the null "
            f"fails ({', '.join(judged_piles(results))})."
        )
    untested = [p for p in PILES if null_passes(p, results, allowed)]
    if untested:
        lines += ["", f"Not a test, so not in the choice: {', '.join(untested)} (the null passes there)."]
    if allowed is not None:
        bounds = ", ".join(f"{title} {_number(allowed[name])}" for name, title in TRAJECTORY.items())
        lines += ["", f"Trajectory bounds from the facets controls: {bounds}."]
    for pile in PILES:
        if (pile, "reference") in results:
            lines += ["", *pile_table(pile, results)]
    return "\n".join(lines) + "\n"


def _finishes(results: dict) -> str:
    """Which finish made each pile's runs (the results files' format, :data:`FINISHES`)."""
    made: dict[int, list[str]] = {}
    for pile in PILES:
        formats = {content["format"] for (name, _), content in results.items() if name == pile}
        for number in sorted(formats):
            made.setdefault(number, []).append(pile)
    parts = [f"{FINISHES[number]}: {', '.join(piles)}" for number, piles in sorted(made.items())]
    return "Each step ended by " + "; ".join(parts) + "." if parts else "No runs yet."


def main(argv: list[str] | None = None) -> None:
    """``python -m qlsbench.bench.tolerance_page``: write ``docs/tolerance.md`` from ``docs/tolerance/*.json``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m qlsbench.bench.tolerance_page", description=main.__doc__)
    parser.add_argument("--results", type=Path, default=Path("docs/tolerance"))
    parser.add_argument("--out", type=Path, default=Path("docs/tolerance.md"))
    args = parser.parse_args(argv)
    atomic_write_text(args.out, page(read_results(args.results)))


__all__ = [
    "TRAJECTORY",
    "allowed_departures",
    "chosen_tolerance",
    "judge",
    "judged_piles",
    "null_passes",
    "page",
    "pile_table",
]

if __name__ == "__main__":
    main()
