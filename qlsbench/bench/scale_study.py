"""Piles at scale: every step of a large pile's run, its time, iterations, status and memory, resumable.

The pile is the sedimentation scene (seed 0) dropped by :data:`SETTLE` frictionless steps, then run with
friction (mu 0.3, h 1e-3) or without, with the settings of the asv piles at scale (``ThousandFrictional``,
``FourThousandFrictional``, ``TenThousandFrictionless``): the stepper's frictional defaults (APGD to the
tolerance study's tolerance) capped by the run's :class:`~qlsbench.physics.SweepBudget` at
:data:`STALL_MULTIPLE` times the median step's iterations (at least 3,000, at most 200,000), so no step runs
unbounded; a step past its cap ends ``max_iter`` and the run goes on. A run of 4,000 spheres can take long, so
the state (scene, warm start, budget, rows) is checkpointed after every step beside the results file, and the
results file is rewritten after every step: the same command run again resumes where a killed run stopped, and
the finished steps are on disk (and can be committed) as they land.
"""

from __future__ import annotations

import json
import os
import pickle
import time
from dataclasses import replace
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
#: What issue 66 asks of the 10,000-sphere frictionless run, in steps per second.
GOAL_FRICTIONLESS_STEPS_PER_SECOND = 2.0
#: Stamp of the results file's layout (2: friction coefficient, method, tolerance and memory recorded).
FORMAT = 2


def step_options(mu: float = MU) -> StepOptions:
    """The settings of the piles at scale (asv's piles at scale): the stepper's defaults for frictional steps (APGD
    to the tolerance study's tolerance), capped at :data:`STALL_MULTIPLE` times the run's median step; frictionless
    steps take their Newton directions by conjugate gradients (``lu="cg"``, :attr:`NewtonOptions.lu`): on the
    settled 10,000-sphere pile 0.39 s of CPU a step against 2.8 s with SuperLU, to the same tolerance."""
    newton = NewtonOptions(regularization=1e-8, lu="cg" if mu == 0 else NewtonOptions.lu)
    return StepOptions(h=H, mu=mu, newton=newton, nsgs=NSGSOptions(stall_multiple=STALL_MULTIPLE))


def results_path(out: Path, spheres: int, mu: float = MU) -> Path:
    """The results file of an ``spheres``-sphere run in ``out`` (``frictionless-N.json`` for ``mu = 0``)."""
    return Path(out) / f"{'frictional' if mu > 0 else 'frictionless'}-{spheres}.json"


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
        "peak_memory_mib": _peak_memory_mib(),
    }


def _peak_memory_mib() -> float:
    """The process's peak resident memory so far (MiB): the interpreter, the libraries and the pile."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(spheres: int, steps: int, out: Path, *, settle: int = SETTLE, progress: bool = True, mu: float = MU) -> dict:
    """Run (or resume) ``steps`` steps of the ``spheres``-sphere pile at friction ``mu``; the results' content.

    ``settle`` frictionless steps drop the pile first. The results file and the checkpoint are rewritten after
    every step (temporary file, then rename).
    """
    if spheres < 1 or steps < 1 or settle < 0:
        raise InputError(
            f"spheres and steps must be at least 1 and settle at least 0 (got spheres={spheres}, steps={steps}, "
            f"settle={settle})"
        )
    results = results_path(out, spheres, mu)
    results.parent.mkdir(parents=True, exist_ok=True)
    state = _load_state(results, spheres, settle)
    if len(state["rows"]) > steps:
        raise InputError(f"{results}: holds {len(state['rows'])} steps, more than --steps {steps}")
    if not state["rows"]:
        _save_state(results, state)  # the dropped pile, which takes minutes at 4,000 spheres
    options = step_options(mu)
    warm_up(options)
    bar = tqdm(range(len(state["rows"]), steps), desc=f"{spheres} spheres", disable=not progress)
    for k in bar:
        cap = state["budget"].cap(options.nsgs)
        t0, c0 = time.perf_counter(), time.process_time()
        report = step(state["scene"], options, index=k, warm=state["warm"], budget=state["budget"])
        state["rows"].append(_row(k, time.perf_counter() - t0, time.process_time() - c0, cap, report))
        _save_state(results, state)
        content = _content(spheres, steps, settle, state["rows"], options)
        atomic_write_text(results, json.dumps(content, indent=1) + "\n")
        bar.set_postfix(sweeps=report.sweeps, status=str(report.status.value))
    return json.loads(results.read_text())


def warm_up(options: StepOptions) -> None:
    """Compile the stepper's kernels (numba, on first call in a process) on a small pile, so no timed step pays for
    it: a fresh clone's first frictional step otherwise takes some 10 s more."""
    scene = build_scene("sedimentation", n_spheres=20, seed=0)
    simulate(scene, 150, StepOptions(h=H, mu=0.0))
    warm = WarmStart()
    for k in range(3):
        step(scene, options, index=k, warm=warm)
    # APGD's rounds hand over to NSGS only on a hard step: without this its kernels compiled inside the 1,000-sphere
    # pile's step 5 in a fresh clone (7.5 s, against 2.0 s with them compiled)
    step(scene, replace(options, friction_solver="nsgs"), index=3, warm=warm)


def _content(spheres: int, steps: int, settle: int, rows: list[dict], options: StepOptions) -> dict:
    frictional = options.mu > 0
    return {
        "format": FORMAT,
        "qlsbench": __version__,
        "spheres": spheres,
        "steps": steps,
        "settle": settle,
        "mu": options.mu,
        # a frictionless run names how its Newton directions were solved when not by factorisation
        "method": options.friction_solver if frictional else ("minmap-cg" if options.newton.lu == "cg" else "minmap"),
        "tol": (options.friction_tol or options.newton.tol) if frictional else options.newton.tol,
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
    } | _memory(rows)


def _memory(rows: list[dict]) -> dict:
    """The run's peak memory, where its rows recorded it (format 1 rows, qlsbench 0.2.1, did not)."""
    if not all("peak_memory_mib" in r for r in rows):
        return {}
    return {"peak_memory_mib": float(max(r["peak_memory_mib"] for r in rows))}


def page(contents: list[dict], siconos: list[dict] | None = None, accuracy: list[dict] | None = None) -> str:
    """The page (``docs/scale.md``) from the results files' contents, one table line per run, the side-by-side
    files' steps (:func:`read_siconos`) under *Beside Siconos* and the time-to-accuracy files'
    (:func:`read_accuracy`) under *Time to accuracy*."""
    lines = [
        "# Piles at scale",
        "",
        "<!-- generated by `python -m qlsbench.bench.scale_study --page` from docs/scale/*.json; do not edit -->",
        "",
        f"The sedimentation pile (seed 0) dropped by frictionless steps ({SETTLE} by default), then run as",
        f"`simulate` runs it (h = {H:g} s, warm-started), with friction (mu = {MU}) or without. A frictional step",
        "is finished by the stepper's default method to its default tolerance (the tolerance study's choice,",
        "docs/tolerance.md), capped at",
        f"{STALL_MULTIPLE:g}x the run's median step (`NSGSOptions.stall_multiple`, at least 3,000 and at most",
        "200,000 iterations): a step past its cap ends",
        "`max_iter`, counted below as unconverged, and the run goes on. A frictionless step is min-map Newton's",
        "to 1e-10, its directions by LU (`minmap`) or by conjugate gradients to a relative residual of",
        "1e-3 (`minmap-cg`, `NewtonOptions.lu`). The load is the 1-minute average at each step, which lags",
        "what ran beside the pile by about a minute. One row per run; each step's time,",
        "iterations, cap, status, residual and the process's peak memory are in its results file. Run",
        "(resumable): `python -m qlsbench.bench.scale_study --spheres 1000 --steps 100` (`--mu 0`: frictionless).",
        f"Goals (issue 66): 1,000 spheres with friction >= {GOAL_STEPS_PER_SECOND:g} steps/s, no unconverged step",
        "and no step past 10x the median; 10,000 spheres frictionless >= "
        f"{GOAL_FRICTIONLESS_STEPS_PER_SECOND:g} steps/s; 4,000 with friction measured.",
        "",
        "| spheres | mu | method (tol) | dropped by (steps) | median contacts | steps run | steps/s | median step (s) "
        "| slowest step (s) | goal | unconverged steps | median iterations | most iterations | peak memory (GiB) "
        "| load (1 min) | qlsbench |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for content in sorted(contents, key=lambda c: (c.get("mu", MU) == 0, c["spheres"])):
        content = {**FORMAT_1, **content}
        s = {"peak_memory_mib": np.nan, **content["summary"]}
        lines.append(
            f"| {content['spheres']:,} | {content['mu']:g} | {content['method']} ({content['tol']:.0e}) "
            f"| {content['settle']} | {s['median_contacts']:,.0f} "
            f"| {s['steps_run']} of {content['steps']} "
            f"| {s['steps_per_second']:.3g} | {_seconds(s['median_step_seconds'])} "
            f"| {_seconds(s['slowest_step_seconds'])} (step {s['slowest_step']}) | {_goal(content)} "
            f"| {s['unconverged']} | {s['median_sweeps']:,.0f} | {s['max_sweeps']:,} "
            f"| {_gib(s['peak_memory_mib'])} | {s['load'][0]:.1f}-{s['load'][1]:.1f} | {content['qlsbench']} |"
        )
    if siconos:
        lines += ["", *siconos_section(siconos)]
    if accuracy:
        lines += ["", *accuracy_section(accuracy)]
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


#: What a format 1 file (qlsbench 0.2.1) did not record: its runs were frictional, NSGS to Newton's 1e-10.
FORMAT_1 = {"mu": MU, "method": "nsgs", "tol": 1e-10}


def _gib(mib: float) -> str:
    return "-" if not np.isfinite(mib) else f"{mib / 1024:.2f}"


def _goal(content: dict) -> str:
    """Whether a run meets its goal (issue 66), and what it lacks; ``measured`` for a run without one."""
    s, frictional = content["summary"], content["mu"] > 0
    if frictional and content["spheres"] != 1000 or not frictional and content["spheres"] != 10_000:
        return "measured"
    goal = GOAL_STEPS_PER_SECOND if frictional else GOAL_FRICTIONLESS_STEPS_PER_SECOND
    lacks = []
    if s["steps_per_second"] < goal:
        lacks.append(f"{goal / s['steps_per_second']:,.1f}x too slow")
    if s["unconverged"]:
        lacks.append(f"{s['unconverged']} unconverged")
    if frictional and s["slowest_step_seconds"] > 10 * s["median_step_seconds"]:
        lacks.append(f"slowest step {s['slowest_step_seconds'] / s['median_step_seconds']:.0f}x the median")
    return "not met: " + ", ".join(lacks) if lacks else "met"


def _seconds(value: float) -> str:
    """Three significant figures, in whole seconds from 100 s up (no exponent)."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


#: The Siconos solvers of the time-to-accuracy files (``python -m benchmarks.siconos_side --accuracy``).
ACCURACY_SOLVERS = ("NSGS", "ADMM", "VI_FPP", "VI_EG")


def accuracy_section(contents: list[dict]) -> list[str]:
    """*Time to accuracy*: each step solved to the same tolerance on Siconos' merit by qlsbench's exact-cone APGD
    and by Siconos' fc3d solvers, the times side by side, with the stepper's own polygon solve beside them."""
    lines = [
        "## Time to accuracy, beside Siconos",
        "",
        "Each step of the stepper's run (APGD on the polygon to its tolerance) is solved again from the same start,",
        "on the exact Coulomb cone, to the same tolerance on Siconos' merit (its fc3d error, relative to ||q||), by",
        "qlsbench's exact-cone APGD (`apgd_exact_cone`) and by Siconos' fc3d solvers that run at this size, timed",
        "in turn: `python -m benchmarks.siconos_side --spheres 1000 --steps 10 --accuracy [--tol 1e-6]` (the",
        "stepper's tolerance by default). PROX's MUMPS analysis ran",
        "out of memory at this size and NSN_AC converged on none of 4 steps (above), so they are not timed. A ratio",
        "below 1: APGD took less time. The stepper's own column solves the polygon of 8 facets to its natural",
        "residual; the Siconos error its answer reaches is the facets' floor, not its tolerance.",
        "",
        "| spheres | tol | step | contacts | stepper (s) | its Siconos error | APGD exact cone (s) | APGD iterations | "
        + " | ".join([*(f"{name} (s)" for name in ACCURACY_SOLVERS), *(f"APGD / {name}" for name in ACCURACY_SOLVERS)])
        + " |",
        "|" + "---|" * (8 + 2 * len(ACCURACY_SOLVERS)),
    ]
    summaries: list[str] = []
    for content in sorted(contents, key=lambda c: (c["spheres"], -c["tol"])):
        for row in content["rows"]:
            cells = [f"{content['spheres']:,}", f"{content['tol']:.0e}", str(row["step"]), f"{row['contacts']:,}"]
            cells += [_seconds(row["stepper"])]
            cells += [f"{row['stepper_siconos_error']:.1e}", _accuracy_cell(row, "APGD"), f"{row['APGD_iterations']:,}"]
            cells += [_accuracy_cell(row, name) for name in ACCURACY_SOLVERS]
            cells += [_accuracy_ratio(row, name) for name in ACCURACY_SOLVERS]
            lines.append("| " + " | ".join(cells) + " |")
        summaries.append(accuracy_summary(content))
    return [*lines, "", *summaries]


def _accuracy_cell(row: dict, solver: str) -> str:
    """A solve's seconds, marked where it did not reach the tolerance (or its worker died)."""
    if row.get(f"{solver}_died") is not None or row.get(f"{solver}_seconds") is None:
        return "died"
    mark = "" if row[f"{solver}_info"] == 0 else f" (not converged, {row[f'{solver}_error']:.1e})"
    return _seconds(row[f"{solver}_seconds"]) + mark


def _accuracy_ratio(row: dict, solver: str) -> str:
    seconds = row.get(f"{solver}_seconds")
    if seconds is None or row.get(f"{solver}_died") is not None:
        return "-"
    return f"{row['APGD_seconds'] / seconds:.2g}"


def accuracy_summary(content: dict) -> str:
    """One paragraph per pile: APGD's median and worst time ratio to each Siconos solver over the steps both
    reached the tolerance, and the steps each left short."""
    rows, parts = content["rows"], []
    for solver in ACCURACY_SOLVERS:
        both = [r for r in rows if r.get(f"{solver}_info") == 0 and r["APGD_info"] == 0]
        ratios = [r["APGD_seconds"] / r[f"{solver}_seconds"] for r in both]
        short = sum(r.get(f"{solver}_info") != 0 for r in rows)
        timing = f"median {np.median(ratios):.2g}x, worst {max(ratios):.2g}x" if ratios else "no step both reached"
        parts.append(f"{solver}: {timing} ({short} short)")
    apgd_short = sum(r["APGD_info"] != 0 for r in rows)
    return (
        f"{content['spheres']:,} spheres, {len(rows)} steps, tol {content['tol']:.0e} (load "
        f"{content['load'][0]:.1f}-{content['load'][1]:.1f}, qlsbench {content['qlsbench']}): APGD's time over "
        f"Siconos' at the same merit and tolerance: {'; '.join(parts)}. APGD left {apgd_short} short."
    )


def read_accuracy(out: Path) -> list[dict]:
    """Every time-to-accuracy file in ``out``."""
    return [json.loads(p.read_text()) for p in sorted(Path(out).glob("accuracy-*.json"))]


def read_results(out: Path) -> list[dict]:
    """Every results file in ``out``."""
    return [json.loads(p.read_text()) for p in sorted(Path(out).glob("friction*-*.json"))]


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
    parser.add_argument("--mu", type=float, default=MU, help="friction coefficient (0: frictionless)")
    parser.add_argument("--page", type=Path, nargs="?", const=Path("docs/scale.md"), default=None)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.page is not None:
        atomic_write_text(args.page, page(read_results(args.out), read_siconos(args.out), read_accuracy(args.out)))
        return
    if not (np.isfinite(args.mu) and args.mu >= 0):
        raise SystemExit(f"--mu must be a number >= 0 (got {args.mu})")
    run(args.spheres, args.steps, args.out, progress=not args.quiet, mu=args.mu)


__all__ = [
    "accuracy_section",
    "dropped_pile",
    "page",
    "read_accuracy",
    "read_results",
    "read_siconos",
    "results_path",
    "run",
    "siconos_path",
    "step_options",
    "summarise",
    "warm_up",
]

if __name__ == "__main__":
    main()
