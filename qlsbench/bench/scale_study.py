"""Frictional piles at scale: every step of a large pile's run, its time, sweeps and status, resumable.

The pile is the sedimentation scene (seed 0) dropped by :data:`SETTLE` frictionless steps, then run
frictionally (mu 0.3, h 1e-3) with the settings of the asv piles at scale (``ThousandFrictional``,
``FourThousandFrictional``): NSGS capped by the run's :class:`~qlsbench.physics.SweepBudget` at
:data:`STALL_MULTIPLE` times the median step's sweeps (at least 3,000, at most 200,000), so no step runs
unbounded; a step past its cap ends ``max_iter`` and the run goes on. A run of 4,000 spheres takes hours, so the
state (scene, warm start, budget, rows) is checkpointed after every step beside the results file, and the
results file is rewritten after every step: the same command run again resumes where a killed run stopped, and
the finished steps are on disk (and can be committed) as they land.
"""

from __future__ import annotations

import json
import os
import pickle
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from qlsbench import __version__
from qlsbench.data import atomic_write, atomic_write_text
from qlsbench.errors import InputError
from qlsbench.physics import (
    NewtonOptions,
    NSGSOptions,
    StepOptions,
    SweepBudget,
    WarmStart,
    build_scene,
    simulate,
    step,
)

#: Time step and friction of the piles.
H, MU = 1e-3, 0.3
#: Frictionless steps that drop the pile before the measured frictional steps.
SETTLE = 600
#: A step's NSGS sweeps are capped at this multiple of the run's median step (``NSGSOptions.stall_multiple``).
STALL_MULTIPLE = 20.0
#: What issue 54 asks of the 1,000-sphere run: steps per second, with no unconverged step.
GOAL_STEPS_PER_SECOND = 2.0
#: Stamp of the results file's layout.
FORMAT = 1


def step_options() -> StepOptions:
    """The frictional settings of the piles at scale (asv's ``AT_SCALE``)."""
    return StepOptions(
        h=H, mu=MU, newton=NewtonOptions(regularization=1e-8), nsgs=NSGSOptions(stall_multiple=STALL_MULTIPLE)
    )


def results_path(out: Path, spheres: int) -> Path:
    """The results file of an ``spheres``-sphere run in ``out``."""
    return Path(out) / f"frictional-{spheres}.json"


def _checkpoint_path(results: Path) -> Path:
    return results.with_name("." + results.name + ".checkpoint")


def dropped_pile(spheres: int, settle: int = SETTLE):
    """The sedimentation pile (seed 0) after ``settle`` frictionless steps: where every run at scale starts."""
    scene = build_scene("sedimentation", n_spheres=spheres, seed=0)
    simulate(scene, settle, StepOptions(h=H, mu=0.0))
    return scene


def _start(spheres: int, settle: int) -> dict:
    """A run's state before its first frictional step."""
    scene = dropped_pile(spheres, settle)
    return {
        "format": FORMAT,
        "spheres": spheres,
        "settle": settle,
        "scene": scene,
        "warm": WarmStart(),
        "budget": SweepBudget(),
        "rows": [],
    }


def _load_state(results: Path, spheres: int, settle: int) -> dict:
    """The checkpointed state of the run writing ``results``, or a fresh start."""
    path = _checkpoint_path(results)
    if not path.exists():
        return _start(spheres, settle)
    with open(path, "rb") as handle:
        state = pickle.load(handle)
    if state.get("format") != FORMAT or (state.get("spheres"), state.get("settle")) != (spheres, settle):
        raise InputError(
            f"{path}: a checkpoint of another run (spheres {state.get('spheres')}, settle {state.get('settle')}; "
            f"asked for spheres {spheres}, settle {settle}): remove it to start over"
        )
    return state


def _save_state(results: Path, state: dict) -> None:
    atomic_write(_checkpoint_path(results), lambda path: path.write_bytes(pickle.dumps(state)))


def _row(k: int, seconds: float, cpu: float, cap: int, report) -> dict:
    return {
        "step": k,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "load": os.getloadavg()[0],
        "contacts": int(report.contacts),
        "unknowns": int(report.lcp_size),
        "solver": str(report.solver),
        "sweeps": int(report.sweeps),
        "cap": int(cap),
        "status": str(report.status.value),
        "residual": float(report.residual),
    }


def run(spheres: int, steps: int, out: Path, *, settle: int = SETTLE, progress: bool = True) -> dict:
    """Run (or resume) ``steps`` frictional steps of the ``spheres``-sphere pile; returns the results' content.

    ``settle`` frictionless steps drop the pile first. The results file and the checkpoint are rewritten after
    every step (temporary file, then rename).
    """
    if spheres < 1 or steps < 1 or settle < 0:
        raise InputError(
            f"spheres and steps must be at least 1 and settle at least 0 (got spheres={spheres}, steps={steps}, "
            f"settle={settle})"
        )
    results = results_path(out, spheres)
    results.parent.mkdir(parents=True, exist_ok=True)
    state = _load_state(results, spheres, settle)
    if len(state["rows"]) > steps:
        raise InputError(f"{results}: holds {len(state['rows'])} steps, more than --steps {steps}")
    if not state["rows"]:
        _save_state(results, state)  # the dropped pile, which takes minutes at 4,000 spheres
    options = step_options()
    bar = tqdm(range(len(state["rows"]), steps), desc=f"{spheres} spheres", disable=not progress)
    for k in bar:
        cap = state["budget"].cap(options.nsgs)
        t0, c0 = time.perf_counter(), time.process_time()
        report = step(state["scene"], options, index=k, warm=state["warm"], budget=state["budget"])
        state["rows"].append(_row(k, time.perf_counter() - t0, time.process_time() - c0, cap, report))
        _save_state(results, state)
        content = _content(spheres, steps, settle, state["rows"])
        atomic_write_text(results, json.dumps(content, indent=1) + "\n")
        bar.set_postfix(sweeps=report.sweeps, status=str(report.status.value))
    return json.loads(results.read_text())


def _content(spheres: int, steps: int, settle: int, rows: list[dict]) -> dict:
    return {
        "format": FORMAT,
        "qlsbench": __version__,
        "spheres": spheres,
        "steps": steps,
        "settle": settle,
        "stall_multiple": STALL_MULTIPLE,
        "summary": summarise(rows),
        "rows": rows,
    }


def summarise(rows: list[dict]) -> dict:
    """Steps run, steps per second over them, median and slowest step, unconverged steps, sweeps and load."""
    seconds = np.array([r["seconds"] for r in rows])
    sweeps = np.array([r["sweeps"] for r in rows])
    loads = [r["load"] for r in rows]
    slowest = int(np.argmax(seconds))
    return {
        "steps_run": len(rows),
        "steps_per_second": len(rows) / float(seconds.sum()),
        "median_step_seconds": float(np.median(seconds)),
        "slowest_step_seconds": float(seconds[slowest]),
        "slowest_step": int(rows[slowest]["step"]),
        "unconverged": sum(r["status"] != "converged" for r in rows),
        "median_sweeps": float(np.median(sweeps)),
        "max_sweeps": int(sweeps.max()),
        "median_contacts": float(np.median([r["contacts"] for r in rows])),
        "load": [float(min(loads)), float(max(loads))],
    }


def page(contents: list[dict], siconos: list[dict] | None = None) -> str:
    """The page (``docs/scale.md``) from the results files' contents, one table line per pile size, and the
    side-by-side files' steps (:func:`read_siconos`) under *Beside Siconos*."""
    lines = [
        "# Frictional piles at scale",
        "",
        "<!-- generated by `python -m qlsbench.bench.scale_study --page` from docs/scale/*.json; do not edit -->",
        "",
        f"The sedimentation pile (seed 0) dropped by frictionless steps ({SETTLE} by default), then run with",
        f"friction (mu = {MU}, h = {H:g} s) as `simulate` runs it, warm-started, NSGS capped at",
        f"{STALL_MULTIPLE:g}x the run's median step (`NSGSOptions.stall_multiple`, at least 3,000 and at most",
        "200,000 sweeps): a step past its cap ends",
        "`max_iter`, counted below as unconverged, and the run goes on. One row per run; each step's time, sweeps,",
        "cap, status and residual are in its results file. Run (resumable; a run of 4,000 spheres takes hours):",
        "`python -m qlsbench.bench.scale_study --spheres 1000 --steps 100`. The goal issue 54 set for 1,000",
        f"spheres is >= {GOAL_STEPS_PER_SECOND:g} steps/s with no unconverged step.",
        "",
        "| spheres | dropped by (steps) | median contacts | steps run | steps/s | median step (s) | slowest step (s) "
        "| goal (>= 2 steps/s, none unconverged) | unconverged steps "
        "| median sweeps | most sweeps | load (1 min) | qlsbench |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for content in sorted(contents, key=lambda c: c["spheres"]):
        s = content["summary"]
        lines.append(
            f"| {content['spheres']:,} | {content['settle']} | {s['median_contacts']:,.0f} "
            f"| {s['steps_run']} of {content['steps']} "
            f"| {s['steps_per_second']:.3g} | {_seconds(s['median_step_seconds'])} "
            f"| {_seconds(s['slowest_step_seconds'])} (step {s['slowest_step']}) | {_goal(s)} | {s['unconverged']} "
            f"| {s['median_sweeps']:,.0f} | {s['max_sweeps']:,} | {s['load'][0]:.1f}-{s['load'][1]:.1f} "
            f"| {content['qlsbench']} |"
        )
    if siconos:
        lines += ["", *siconos_section(siconos)]
    return "\n".join(lines) + "\n"


#: What the side-by-side files hold (``python -m benchmarks.siconos_side``).
SICONOS_SOLVERS = ("NSGS", "NSN_AC")


def siconos_section(contents: list[dict]) -> list[str]:
    """*Beside Siconos*: each side-by-side step's times, iterations and outcome, and the stepper's time ratios."""
    lines = [
        "## Beside Siconos",
        "",
        "Each step's contact problem solved by the stepper (the run's settings; no step below reached the run's",
        "sweep cap) and then, from the same start, by Siconos' fc3d NSGS and NSN_AC (Alart-Curnier Newton), one",
        "solve each, timed in turn on the same machine: `python -m benchmarks.siconos_side --spheres 1000 --steps 4`",
        "(benchmarks/siconos_side.py). Siconos solves the exact Coulomb cone, the stepper the polygon of "
        f"{step_options().s} facets;",
        "each stops at its own error measure below the same tol. A ratio below 1: the stepper took less time.",
        "",
        "| spheres | step | contacts | stepper (s) | sweeps | NSGS (s) | NSGS iterations | NSGS "
        "| NSN_AC (s) | NSN_AC iterations | NSN_AC | stepper / NSGS | stepper / NSN_AC |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for content in sorted(contents, key=lambda c: c["spheres"]):
        for row in content["rows"]:
            cells = [f"{content['spheres']:,}", str(row["step"]), f"{row['contacts']:,}", _seconds(row["ours"])]
            cells += [f"{row['sweeps']:,}"]
            for solver in SICONOS_SOLVERS:
                cells += _siconos_cells(row, solver)
            cells += [_ratio(row, solver) for solver in SICONOS_SOLVERS]
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [siconos_summary(content) for content in sorted(contents, key=lambda c: c["spheres"])]
    return lines


def _siconos_cells(row: dict, solver: str) -> list[str]:
    """Seconds, iterations and outcome of one Siconos solve (a worker that died has neither)."""
    if row.get(f"{solver}_died") is not None:
        return ["-", "-", f"worker died (exit {row[f'{solver}_died']})"]
    outcome = "converged" if row[f"{solver}_info"] == 0 else f"not converged (error {row[f'{solver}_error']:.1e})"
    return [_seconds(row[f"{solver}_seconds"]), f"{row[f'{solver}_iterations']:,}", outcome]


def _time_ratio(row: dict, solver: str) -> float | None:
    """The stepper's time over ``solver``'s on one step; ``None`` where the solver has no time (its worker died)."""
    seconds = row.get(f"{solver}_seconds")
    return None if seconds is None or not np.isfinite(seconds) else row["ours"] / seconds


def _ratio(row: dict, solver: str) -> str:
    ratio = _time_ratio(row, solver)
    return "-" if ratio is None else f"{ratio:.2f}"


def siconos_summary(content: dict) -> str:
    """One paragraph per pile: the stepper's median and worst time ratio to each Siconos solver over the steps
    that solver finished, and how many steps it left unconverged or did not finish (its worker died)."""
    rows = content["rows"]
    parts = []
    for solver in SICONOS_SOLVERS:
        ratios = [ratio for row in rows if (ratio := _time_ratio(row, solver)) is not None]
        died = sum(row.get(f"{solver}_died") is not None for row in rows)
        failed = sum(row.get(f"{solver}_died") is None and row[f"{solver}_info"] != 0 for row in rows)
        timing = (
            f"the stepper took {np.median(ratios):.2f}x its time at the median step and {max(ratios):.2f}x at the "
            f"worst, over the {len(ratios)} steps it finished"
            if ratios
            else "it finished no step"
        )
        parts.append(f"{solver}: {timing}; {failed} not converged, {died} worker deaths.")
    ours = sum(row["status"] != "converged" for row in rows)
    return (
        f"{content['spheres']:,} spheres, {len(rows)} steps (load {content['load'][0]:.1f}-{content['load'][1]:.1f},"
        f" the Siconos worker bounded to {content['siconos_memory_gib']:g} GiB of address space, qlsbench "
        f"{content['qlsbench']}). {' '.join(parts)} The stepper left {ours} unconverged."
    )


def _goal(summary: dict) -> str:
    """Whether a run meets issue 54's goal, and what it lacks."""
    lacks = []
    if summary["steps_per_second"] < GOAL_STEPS_PER_SECOND:
        lacks.append(f"{GOAL_STEPS_PER_SECOND / summary['steps_per_second']:,.0f}x too slow")
    if summary["unconverged"]:
        lacks.append(f"{summary['unconverged']} unconverged")
    return "not met: " + ", ".join(lacks) if lacks else "met"


def _seconds(value: float) -> str:
    """Three significant figures, in whole seconds from 100 s up (no exponent)."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def read_results(out: Path) -> list[dict]:
    """Every results file in ``out``."""
    return [json.loads(p.read_text()) for p in sorted(Path(out).glob("frictional-*.json"))]


def siconos_path(out: Path, spheres: int) -> Path:
    """The side-by-side file of an ``spheres``-sphere pile in ``out`` (``python -m benchmarks.siconos_side``)."""
    return Path(out) / f"siconos-{spheres}.json"


def read_siconos(out: Path) -> list[dict]:
    """Every side-by-side file in ``out``."""
    return [json.loads(p.read_text()) for p in sorted(Path(out).glob("siconos-*.json"))]


def main(argv: list[str] | None = None) -> None:
    """``python -m qlsbench.bench.scale_study --spheres N --steps K``: run or resume a pile into ``docs/scale/``;
    ``--page`` writes ``docs/scale.md`` from the shipped results."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m qlsbench.bench.scale_study", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/scale"))
    parser.add_argument("--spheres", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--page", type=Path, nargs="?", const=Path("docs/scale.md"), default=None)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.page is not None:
        atomic_write_text(args.page, page(read_results(args.out), read_siconos(args.out)))
        return
    run(args.spheres, args.steps, args.out, progress=not args.quiet)


__all__ = [
    "dropped_pile",
    "page",
    "read_results",
    "read_siconos",
    "results_path",
    "run",
    "siconos_path",
    "step_options",
    "summarise",
]

if __name__ == "__main__":
    main()
