"""One run: the candidate (a solver in the loop) beside the reference, step by step, from the same state."""

from __future__ import annotations

import copy
import dataclasses
import time

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from qlsbench.bench._checkpoints import Checkpoint, checkpoint_path, run_key
from qlsbench.bench.in_loop.options import FALLBACK_BOUND, InLoopOptions, loop_families
from qlsbench.bench.in_loop.solver import LoopAborted, LoopSolver, SolveCount
from qlsbench.errors import InputError
from qlsbench.solvers.base import can_start


def world(options: InLoopOptions):
    """The simulation of ``options``: its family's world (:class:`~qlsbench.families.base.World`)."""
    return loop_families()[options.family].loop.make(options)


def run_in_loop(
    options: InLoopOptions, solver, *, seed: int = 0, progress: bool = False, checkpoint=None, position: int = 0
) -> tuple[pd.DataFrame, dict]:
    """Run the candidate (``solver`` in the loop) beside the reference, step by step, from the same state.

    Parameters
    ----------
    options : InLoopOptions
        The simulation and the tolerance.
    solver : object
        Meets the :class:`~qlsbench.solvers.base.Solver` protocol (``qlsbench.solvers.registry.get``).
    seed : int
        Base seed of the solver's solves.
    progress : bool
        Show a progress bar (at line ``position``, for runs side by side).
    checkpoint : Checkpoint or None
        Where the run saves itself between steps (:mod:`qlsbench.bench._checkpoints`); a run whose checkpoint
        exists continues from the step after the saved one, or returns the saved result if it had finished.

    Returns
    -------
    steps : pandas.DataFrame
        One row per step the candidate finished: ``step``, ``time``, ``position_error`` (largest distance of a
        body from its reference position, m), ``velocity_error`` (m/s), ``kinetic_energy`` and the reference's,
        ``penetration_max`` / ``penetration_mean`` (m, spheres), ``complementarity`` (the natural residual of
        the step's LCP; for penalty the Newton residual), ``newton_iterations`` (and the reference's),
        ``fallback`` (Lemke or the proximal method finished the step; for penalty, Newton took a gradient
        step), ``step_status`` (the step's LCP or Newton outcome), ``linear_solves`` (and the reference's,
        :class:`SolveCount`), ``seconds``. Both runs cap Newton and use fallbacks as ``options`` say; only the
        linear solves differ.
    summary : dict
        ``status`` (``completed`` or why the run ended), ``message``, ``steps_run``, ``divergence_step`` and
        ``divergence_time`` (first step past ``position_tol``; ``None`` if never), the largest errors, the
        kinetic-energy drift at the end, the solves (``linear_solves``, ``linear_solves_ref``), Newton
        iterations (``newton_iterations``, ``newton_iterations_ref``), seconds and summed resources, and the
        projection factors' range. Files written before the reference's solves were counted lack
        ``linear_solves_ref`` (and the per-step column).
    """
    simulation = world(options)
    build, advance, measure = simulation.build, simulation.advance, simulation.measure
    check_warm_start(options, solver)
    key = run_key(
        dataclasses.asdict(options),
        getattr(solver, "name", type(solver).__name__),
        dict(getattr(solver, "options", {}) or {}),
        seed,
    )
    saved = checkpoint.load(key) if checkpoint is not None else None
    if saved is not None and saved["summary"] is not None:
        return pd.DataFrame(saved["rows"], columns=STEP_COLUMNS), saved["summary"]
    if saved is not None:
        reference, candidate, rows, first = saved["reference"], saved["candidate"], saved["rows"], saved["next_step"]
        loop = LoopSolver(solver, **saved["loop"])
    else:
        if options.start_step:
            reference = start_state(options, progress, checkpoint.path.parent if checkpoint is not None else None)
            candidate = copy.deepcopy(reference)
        else:
            reference, candidate = build(), build()
        rows, first = [], options.start_step
        loop = LoopSolver(
            solver,
            seed=seed,
            time_limit=options.time_limit,
            iteration_budget=options.iteration_budget,
            warm=options.warm_start,
        )
    status, message = "completed", ""
    for k in tqdm(
        range(first, options.start_step + options.steps),
        desc=f"{getattr(solver, 'name', 'solver')} seed {seed} in the loop",
        disable=not progress,
        unit="step",
        initial=first - options.start_step,
        total=options.steps,
        position=position,
    ):
        count = SolveCount()
        ref = measure(reference, advance(reference, k, None, count))
        ref["linear_solves"] = count.solves
        solves, t0 = loop.solves, time.perf_counter()
        try:
            report = advance(candidate, k, loop)
        except LoopAborted as exc:
            status, message = exc.status, f"step {k}: {exc}"
            break
        rows.append(_row(k, report, measure(candidate, report), ref, loop.solves - solves, time.perf_counter() - t0))
        if checkpoint is not None:
            checkpoint.save(
                key,
                {
                    "reference": reference,
                    "candidate": candidate,
                    "rows": rows,
                    "next_step": k + 1,
                    "loop": loop.saved(),
                    "summary": None,
                },
            )
        why = decided(rows, options) if options.stop_when_decided == "on" else ""
        if why:
            status, message = "decided", f"step {k}: {why}"
            break
    steps = pd.DataFrame(rows, columns=STEP_COLUMNS)
    summary = _summary(steps, options, loop, status, message)
    if checkpoint is not None:
        checkpoint.save(key, {"rows": rows, "summary": summary}, force=True)
    return steps, summary


#: In-loop options that leave the steps before the solver comes in as they are: runs that differ only in them
#: share a start (:func:`start_state`).
NOT_THE_START = ("steps", "position_tol", "time_limit", "warm_start", "iteration_budget", "stop_when_decided")


def start_state(options: InLoopOptions, progress: bool = False, folder=None):
    """The simulation after ``options.start_step`` steps of the reference's stepper (no solver in it): where
    both runs of a window start.

    With ``folder``, the state is kept there (a hidden checkpoint file per start, named by a hash of the options
    it depends on), so every seed and solver of a sweep takes it from disk; a damaged file is named, removed
    and the steps taken again (:class:`~qlsbench.bench._checkpoints.Checkpoint`).
    """
    import hashlib
    import json
    from pathlib import Path

    from qlsbench.bench._results import jsonable

    simulation = world(options)
    state = simulation.build()
    wanted = {k: v for k, v in dataclasses.asdict(options).items() if k not in NOT_THE_START}
    key = json.dumps(wanted, sort_keys=True, default=jsonable)
    store = None
    if folder is not None:
        name = f".start-{hashlib.sha256(key.encode()).hexdigest()[:16]}.checkpoint"
        store = Checkpoint(Path(folder) / name)
        saved = store.load(key)
        if saved is not None:
            return saved["world"]
    for k in tqdm(range(options.start_step), desc="steps before the solver", disable=not progress, unit="step"):
        simulation.advance(state, k, None, SolveCount())
    if store is not None:
        store.save(key, {"world": state}, force=True)
    return state


#: Columns of the per-step table, in order.
STEP_COLUMNS = [
    "step",
    "time",
    "position_error",
    "velocity_error",
    "kinetic_energy",
    "kinetic_energy_ref",
    "penetration_max",
    "penetration_mean",
    "complementarity",
    "newton_iterations",
    "newton_iterations_ref",
    "fallback",
    "step_status",
    "linear_solves",
    "linear_solves_ref",
    "seconds",
]


def _row(k: int, report, cand: dict, ref: dict, solves: int, seconds: float) -> dict:
    return {
        "step": k,
        "time": float(report.time),
        "position_error": float(np.linalg.norm(cand["positions"] - ref["positions"], axis=1).max(initial=0.0)),
        "velocity_error": float(np.linalg.norm(cand["velocities"] - ref["velocities"], axis=1).max(initial=0.0)),
        "kinetic_energy": cand["kinetic_energy"],
        "kinetic_energy_ref": ref["kinetic_energy"],
        "penetration_max": cand["penetration_max"],
        "penetration_mean": cand["penetration_mean"],
        "complementarity": cand["complementarity"],
        "newton_iterations": cand["newton_iterations"],
        "newton_iterations_ref": ref["newton_iterations"],
        "fallback": cand["fallback"],
        "step_status": cand["step_status"],
        "linear_solves": solves,
        "linear_solves_ref": ref["linear_solves"],
        "seconds": seconds,
    }


def decided(rows: list[dict], options: InLoopOptions) -> str:
    """Why a run can no longer carry the simulation after ``rows`` (its fallback steps past
    :data:`~qlsbench.bench.in_loop.options.FALLBACK_BOUND` of all its steps, or its last step past the position
    tolerance), or ``""`` while it still can."""
    fallbacks = sum(bool(r["fallback"]) for r in rows)
    if fallbacks > FALLBACK_BOUND * options.steps:
        return (
            f"the fallback finished {fallbacks} of its {options.steps} steps, past the protocol's "
            f"{FALLBACK_BOUND:.0%}: it can no longer carry the simulation"
        )
    if rows and rows[-1]["position_error"] > options.position_tol:
        error = rows[-1]["position_error"]
        return f"past the position tolerance ({error:.2e} m): it can no longer carry the simulation"
    return ""


def divergence_step(steps: pd.DataFrame, tol: float) -> int | None:
    """The first step whose position error exceeds ``tol`` (``None`` if none does)."""
    over = steps.index[steps["position_error"] > tol]
    return int(steps.loc[over[0], "step"]) if len(over) else None


def _summary(steps: pd.DataFrame, options: InLoopOptions, loop: LoopSolver, status: str, message: str) -> dict:
    first = divergence_step(steps, options.position_tol)
    last = steps.iloc[-1] if len(steps) else None
    drift = (
        float((last["kinetic_energy"] - last["kinetic_energy_ref"]) / max(last["kinetic_energy_ref"], 1e-300))
        if last is not None
        else np.nan
    )
    return {
        "status": status,
        "message": message,
        "steps_run": len(steps),
        "steps": options.steps,
        "divergence_step": first,
        "divergence_time": float(steps.loc[steps["step"] == first, "time"].iloc[0]) if first is not None else None,
        "position_error_max": float(steps["position_error"].max()) if len(steps) else np.nan,
        "position_error_final": float(last["position_error"]) if last is not None else np.nan,
        "penetration_max": float(steps["penetration_max"].max()) if len(steps) else np.nan,
        "kinetic_energy_drift": drift,
        "fallback_steps": int(steps["fallback"].sum()) if len(steps) else 0,
        "linear_solves": loop.solves,
        "linear_solves_ref": int(steps["linear_solves_ref"].sum()),
        "newton_iterations": int(steps["newton_iterations"].sum()),
        "newton_iterations_ref": int(steps["newton_iterations_ref"].sum()),
        "solver_seconds": loop.seconds,
        "max_qubits": loop.max_qubits,
        "solver_iterations": loop.iterations,
        "warm_starts": loop.warm_starts,
        "warm_start": options.warm_start,
        "seconds_per_step": float(steps["seconds"].mean()) if len(steps) else np.nan,
        "resources": dict(loop.resources),
        "projection_min": min(loop.projections, default=np.nan),
        "projection_max": max(loop.projections, default=np.nan),
        "stayed_within": status == "completed" and first is None,
    }


def check_warm_start(options: InLoopOptions, solver) -> None:
    """Refuse a warm start the solver cannot take."""
    if options.warm_start != "off" and not can_start(solver):
        raise InputError(
            f"--warm-start {options.warm_start}: {getattr(solver, 'name', 'the solver')} cannot start "
            "from an earlier solve (no start_from); run it with --warm-start off"
        )


def solver_of(spec, fidelity):
    """The solver of one run of ``spec`` (the oracle at target ``fidelity``, when given) and its options."""
    from qlsbench.solvers import registry

    options = {**spec.options, **({"fidelity": fidelity} if fidelity is not None else {})}
    return registry.get(spec.name, **options), options


def one_run(options: InLoopOptions, spec, fidelity, seed: int, progress: bool, out, position: int):
    """One run of a sweep: its rows with ``solver``, ``seed`` and ``fidelity`` in front, and its summary; its
    progress bar at line ``position``."""
    solver, solver_options = solver_of(spec, fidelity)
    checkpoint = None if out is None else Checkpoint(checkpoint_path(out, spec.label, seed, fidelity))
    steps, summary = run_in_loop(
        options, solver, seed=seed, progress=progress, checkpoint=checkpoint, position=position
    )
    key = {"solver": spec.label, "seed": seed, "fidelity": np.nan if fidelity is None else float(fidelity)}
    return (
        steps.assign(**key)[list(key) + STEP_COLUMNS],
        {**key, "solver_name": spec.name, "solver_options": solver_options, **summary},
    )


__all__ = [
    "STEP_COLUMNS",
    "check_warm_start",
    "divergence_step",
    "one_run",
    "run_in_loop",
    "solver_of",
    "start_state",
    "world",
]
