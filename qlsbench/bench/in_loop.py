"""Solvers in the simulation loop: does the physics survive the solver?

Every other verdict of qlsbench is a fidelity on one isolated Newton system.
Here a registered solver (or a plug-in class) solves *every* Newton system of a
simulation, as the dataset exports it (padded to 2^n and normalised); its
answer, mapped back to the system's own scale, is the Newton direction, and the
step goes on with the stepper's own line search, convergence test and
fallbacks. A reference run from the same initial state, stepping alike but
solving the Newton systems by the stepper's own linear algebra (SuperLU for
spheres, GMRES for penalty), steps alongside, and each step is compared with
it: the difference between the two runs is the solver's. Both runs take
min-map Newton first on every step, frictional ones included (the v1 chain:
the v2 chain's Gauss-Seidel would leave the solver nothing to solve).

**Norm and sign.** A state-preparing solver returns a direction, not a vector.
Every answer ``x`` is therefore rescaled by the classical projection
``alpha = (b . A x) / |A x|^2``, the least-squares multiple of ``x``, which
fixes norm and global sign at once. On a state vector it costs one product
with ``A`` (what this module does); on a device, estimating ``b . A x`` and
``|A x|^2`` takes Hadamard or swap tests whose shots grow as ``1 / eps^2`` for
an error ``eps``: that cost is not counted here, and the page says so. For an
exact solver ``alpha`` is 1 to rounding.

**What ends a run.** A solver that raises, returns no answer, NaN, a vector of
the wrong length, or takes longer than the time limit on one system ends the
candidate run with that status, as does a run whose solves pass its iteration
budget; the steps simulated so far are kept. A run with a checkpoint
(:mod:`qlsbench.bench.checkpoints`) saves itself between steps and resumes. There is
no silent fallback to exact linear algebra: the stepper's own LCP fallbacks
(Lemke, the proximal method) are the only ones, and each step says whether one
was used.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from tqdm.auto import tqdm

from qlsbench.bench.checkpoints import Checkpoint, checkpoint_path, run_key
from qlsbench.checks import COUNT, NON_NEGATIVE, POSITIVE, SEED, TIME_LIMIT, Real, Whole
from qlsbench.errors import InputError, QlsbenchError
from qlsbench.options import Options, option
from qlsbench.physics.spheres.scenes import MAX_SPHERES
from qlsbench.problems import LinearSystem, pad_and_normalize, recover_solution
from qlsbench.solvers.base import can_start
from qlsbench.solvers.processes import exit_with_parent

#: Resources (:data:`~qlsbench.solvers.base.RESOURCE_KEYS`) that add up over a run's solves.
ADDITIVE_RESOURCES = ("circuit_executions", "mc_samples", "cost_evaluations")
#: Simulation families a solver can be put inside.
LOOP_FAMILIES = ("dem_c", "cd_lagrange", "penalty")
WARM_STARTS = ("off", "on", "converged")


class LoopAborted(QlsbenchError):
    """The solver in the loop failed on a Newton system: the candidate run ends with ``status``."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


def _status(result) -> str:
    """A solve's status as text (a plug-in may return it as a plain string)."""
    return str(getattr(result.status, "value", result.status))


@dataclass
class LoopSolver:
    """A solver as the Newton direction of a stepper: ``loop(A, b, info) -> x`` (see the module docstring).

    Attributes
    ----------
    solver : object
        Meets the :class:`~qlsbench.solvers.base.Solver` protocol.
    seed : int
        Base seed; the k-th system is solved with ``seed + k``.
    time_limit : float or None
        Seconds one solve may take; longer ends the run (checked after the solve returns).
    iteration_budget : int or None
        Solver iterations all solves may use; more ends the run (checked after each solve). A solver trapped
        solve after solve would otherwise drag a run on for hours.
    warm : {"off", "on", "converged"}
        ``on``: start each solve from the previous solve's ``state``; ``converged``: from the state of the
        last solve that converged, so a solve that failed hands on nothing (:func:`~qlsbench.solvers.base.can_start`
        solvers only; the solver decides whether the state fits the new system).
    solves, seconds, max_qubits, projections : int, float, int, list
        Systems solved, seconds spent in the solver, the largest system's qubits (padded), and each
        answer's projection factor ``alpha``.
    iterations, warm_starts : int
        The solver's iterations summed over the solves, and the solves that started from the previous one.
    resources : dict
        Sums of the solver's :data:`ADDITIVE_RESOURCES` over the solves.
    """

    solver: Any
    seed: int = 0
    time_limit: float | None = None
    iteration_budget: int | None = None
    warm: str = "off"
    solves: int = 0
    seconds: float = 0.0
    max_qubits: int = 0
    projections: list = field(default_factory=list)
    resources: dict = field(default_factory=dict)
    iterations: int = 0
    warm_starts: int = 0
    _state: Any = None

    def saved(self) -> dict[str, Any]:
        """Everything but the solver: what a checkpoint keeps so a resumed run solves as this one would."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "solver"}

    def __call__(self, A: sp.spmatrix, b: np.ndarray, info: dict) -> np.ndarray:
        A = sp.csr_matrix(A)
        b = np.asarray(b, dtype=float)
        if not np.any(b):  # nothing to solve (the datasets skip these too): x = 0, no solver call
            return np.zeros(A.shape[0])
        system = pad_and_normalize(LinearSystem(A, b, {}), min_qubits=1)
        where = f"solve {self.solves + 1} (Newton iteration {info.get('newton_iter', '?')}, {A.shape[0]} unknowns)"
        t0 = time.perf_counter()
        start = {"start": self._state} if self.warm != "off" and self._state is not None else {}
        try:
            result = self.solver.solve(system, seed=self.seed + self.solves, **start)
        except Exception as exc:  # a solver's own failure ends the run; it is reported, not re-raised
            raise LoopAborted("error", f"{where}: the solver raised {type(exc).__name__}: {exc}") from None
        elapsed = time.perf_counter() - t0
        self.solves += 1
        self.seconds += elapsed
        self.max_qubits = max(self.max_qubits, int(system.meta["n_qubits"]))
        self.iterations += int(result.iterations or 0)
        self.warm_starts += (result.resources or {}).get("started_from") == "previous"
        if self.warm != "converged" or _status(result) == "converged":
            # A variational solve that failed can leave its parameters in a trap the next, nearby system's
            # solve starts inside of and fails again (measured: VNLS in the dem_c16 loop, every solve from
            # solve 112 on at its iteration cap); "converged" hands on only what reached its tolerance.
            self._state = getattr(result, "state", None)
        for key in ADDITIVE_RESOURCES:
            value = (result.resources or {}).get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.resources[key] = self.resources.get(key, 0) + value
        if self.time_limit is not None and elapsed > self.time_limit:
            raise LoopAborted("time_limit", f"{where}: took {elapsed:.1f} s, over the limit of {self.time_limit:g} s")
        if self.iteration_budget is not None and self.iterations > self.iteration_budget:
            raise LoopAborted("budget", f"{where}: the run's solves have used {self.iterations:,} solver iterations, "
                                        f"over its budget of {self.iteration_budget:,}")
        return self._direction(A, b, system, result, where)

    def _direction(self, A, b, system, result, where: str) -> np.ndarray:
        if result.x is None:
            status = _status(result)
            raise LoopAborted(status, f"{where}: the solver returned no answer ({status}"
                                      f"{': ' + result.message if result.message else ''})")
        x = np.asarray(result.x)
        if x.shape != (system.dim,):
            raise LoopAborted("wrong_length", f"{where}: the solver returned shape {x.shape}, the system has "
                                              f"{system.dim} unknowns")
        if not np.all(np.isfinite(x)):
            raise LoopAborted("nan", f"{where}: the solver returned NaN or inf")
        x = np.real(recover_solution(system, x))
        Ax = A @ x
        denom = float(Ax @ Ax)
        alpha = float(b @ Ax) / denom if denom > 0 else 0.0
        self.projections.append(alpha)
        return alpha * x


@dataclass(frozen=True)
class InLoopOptions(Options):
    """A simulation to run with a solver in its loop, and what counts as leaving the reference trajectory."""

    family: str = option("dem_c", "simulation family: dem_c, cd_lagrange (spheres) or penalty", choices=LOOP_FAMILIES)
    scene: str | None = option(None, "scene (default: sedimentation for spheres, incline-block for penalty)")
    n_spheres: int = option(8, "spheres (dem_c, cd_lagrange)", bounds=Whole(1, MAX_SPHERES))
    mu: float = option(0.0, "friction coefficient (spheres; penalty scenes take theirs from --param)",
                       bounds=NON_NEGATIVE)
    h: float | None = option(None, "time step (s); default: the scene's", bounds=POSITIVE)
    steps: int = option(60, "time steps", bounds=COUNT)
    scene_seed: int = option(0, "seed of the sphere placement", bounds=SEED)
    restitution: float = option(0.0, "restitution e (cd_lagrange)", bounds=Real(0.0, 1.0))
    params: dict = option({}, "penalty scene parameter, e.g. --param n=3", pairs=True, flag="--param")
    regularization: float | None = option(None, "Tikhonov epsilon on each sphere Newton system (default: 1e-8 with "
                                          "friction, whose systems are singular without it, as in the datasets; "
                                          "else 0)", bounds=NON_NEGATIVE)
    newton_max_iter: int | None = option(None, "Newton iteration cap per step (default: the stepper's, 100 for "
                                         "spheres, 50 for penalty): a small cap asks how far a solver's "
                                         "directions carry a step, not only whether Newton converges in the end",
                                         bounds=COUNT)
    fallbacks: str = option("on", "on: the stepper's LCP fallbacks (Lemke, the proximal method) finish a step "
                            "Newton leaves unconverged; off: the step keeps Newton's last iterate, so a capped "
                            "Newton shows what the solver's directions alone give", choices=("on", "off"))
    newton_start: str = option("previous", "spheres: where each step's min-map Newton starts, previous (the last "
                               "step's impulses, the stepper's warm start) or zero (as the paper's runs)",
                               choices=("previous", "zero"))
    position_tol: float = option(1e-3, "position error (m) beyond which the run has left the reference",
                                 bounds=POSITIVE)
    time_limit: float | None = option(None, "seconds one linear solve may take", bounds=TIME_LIMIT)
    warm_start: str = option("off", "on: each solve starts from the previous one's state (Krylov: its solution as "
                             "x0; VQLS: its angles; VNLS: its network weights) where the solver can and the "
                             "state fits; converged: from the last solve that converged, so a failed solve's "
                             "state is not handed on", choices=WARM_STARTS)
    iteration_budget: int | None = option(None, "solver iterations (SR steps, optimiser iterations) the run's solves "
                                          "may use in all; past it the run ends with status budget. Counted, not "
                                          "timed, so a run ends at the same step on any machine", bounds=COUNT)

    def check(self) -> None:
        if self.family == "penalty" and (self.n_spheres != 8 or self.mu or self.restitution
                                         or self.regularization is not None):
            raise InputError("--n-spheres, --mu, --restitution and --regularization are sphere options; a penalty "
                             "scene takes its own (e.g. --param mu=0.3)")
        if self.family == "penalty" and self.newton_start != "previous":
            raise InputError("--newton-start is a sphere option: penalty Newton starts each step from zero already")
        if self.family != "penalty" and self.params:
            raise InputError("--param is for penalty scenes; sphere scenes take --n-spheres, --mu, --restitution")


def _sphere_world(options: InLoopOptions):
    from qlsbench.physics import NewtonOptions, StepOptions, build_scene
    from qlsbench.physics.spheres.contacts import detect_contacts
    from qlsbench.physics.spheres.stepping import WarmStart, step

    integrator = "cd_lagrange" if options.family == "cd_lagrange" else "dem_c"
    eps = options.regularization if options.regularization is not None else (1e-8 if options.mu > 0 else 0.0)
    # Reference and candidate step alike, min-map Newton first (frictional steps too: the v1 chain, as NSGS would
    # leave the solver nothing to solve), capped and with fallbacks as the options say; the reference solves the
    # Newton systems by the stepper's own factorisation, so the difference between the two runs is the solver's.
    step_options = StepOptions(h=options.h or StepOptions.h, mu=options.mu, integrator=integrator,
                               restitution=options.restitution, nsgs=None,
                               newton=NewtonOptions(regularization=eps,
                                                    max_iter=options.newton_max_iter or NewtonOptions.max_iter),
                               **({} if options.fallbacks == "on" else {"lemke_fallback": 0, "proximal": None}))

    def build():
        scene = build_scene(options.scene or "sedimentation", n_spheres=options.n_spheres, seed=options.scene_seed)
        # Newton from zero: no impulses handed on from step to step (the stepper then starts at y = 0)
        return {"scene": scene, "warm": WarmStart() if options.newton_start == "previous" else None}

    def advance(state, k, linear, count=None):
        capture = None if count is None else _sphere_counter(count)
        return step(state["scene"], step_options, index=k, warm=state["warm"], linear=linear, capture=capture)

    def measure(state, report) -> dict:
        scene = state["scene"]
        gaps = detect_contacts(scene, 0.0).gap
        depth = np.maximum(-gaps, 0.0)
        ke = 0.5 * float(np.sum(scene.masses[:, None] * scene.velocities**2))
        return {"positions": scene.positions.copy(), "velocities": scene.velocities.copy(), "kinetic_energy": ke,
                "penetration_max": float(depth.max(initial=0.0)),
                "penetration_mean": float(depth.mean()) if len(depth) else 0.0,
                "complementarity": float(report.residual), "newton_iterations": int(report.newton_iterations),
                "fallback": report.solver in ("lemke", "proximal"), "step_status": str(report.status)}

    return build, advance, measure


@dataclass
class SolveCount:
    """The Newton systems the reference run solves, counted as :class:`LoopSolver` counts the candidate's.

    The reference solves by the stepper's own linear algebra, so its solves are counted where the stepper
    hands each system to its capture hook; a system with ``b = 0`` is not counted (the loop answers it with
    ``x = 0`` and no solve), so ``solves`` of an exact solver in the loop equals the reference's.
    """

    solves: int = 0

    def see(self, b) -> None:
        """Count one Newton system of right-hand side ``b``, unless ``b`` is zero."""
        self.solves += bool(np.any(np.asarray(b)))


def _sphere_counter(count: SolveCount):
    """A sphere capture hook feeding ``count``: min-map Newton's systems only, as the candidate's solver sees
    them (the proximal fallback's inner systems, tagged ``proximal_iter``, never reach the solver in the loop)."""
    def hook(A, b, info):
        if "proximal_iter" not in info:
            count.see(b)
    return hook


def _penalty_world(options: InLoopOptions):
    from qlsbench.families.penalty import PenaltyOptions
    from qlsbench.physics.penalty import PenaltyNewtonOptions, build_penalty_scene
    from qlsbench.physics.penalty.backward_euler import time_step

    scene = PenaltyOptions(scene=options.scene or "incline-block", params=options.params, h=options.h)
    h = scene.time_step()
    newton = PenaltyNewtonOptions(max_iter=options.newton_max_iter or PenaltyNewtonOptions.max_iter)

    def build():
        return {"model": build_penalty_scene(scene.scene, **scene.scene_params())}

    def advance(state, k, linear, count=None):
        capture = None if count is None else (lambda ev, rhs, dz, context: count.see(rhs))
        return time_step(state["model"], h, newton, capture=capture, linear=linear)

    def measure(state, report) -> dict:
        model = state["model"]
        positions = np.concatenate([model.particles.x, model.spheres.x]).copy()
        velocities = np.concatenate([model.particles.v, model.spheres.v]).copy()
        return {"positions": positions, "velocities": velocities, "kinetic_energy": float(model.kinetic_energy()),
                "penetration_max": np.nan, "penetration_mean": np.nan,
                "complementarity": float(report.newton.residual), "newton_iterations": int(report.newton.iterations),
                "fallback": report.newton.gradient_directions > 0, "step_status": str(report.newton.status)}

    return build, advance, measure


def run_in_loop(options: InLoopOptions, solver, *, seed: int = 0, progress: bool = False,
                checkpoint=None, position: int = 0) -> tuple[pd.DataFrame, dict]:
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
        Where the run saves itself between steps (:mod:`qlsbench.bench.checkpoints`); a run whose checkpoint
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
    build, advance, measure = _penalty_world(options) if options.family == "penalty" else _sphere_world(options)
    _check_warm_start(options, solver)
    key = run_key(dataclasses.asdict(options), getattr(solver, "name", type(solver).__name__),
                  dict(getattr(solver, "options", {}) or {}), seed)
    saved = checkpoint.load(key) if checkpoint is not None else None
    if saved is not None and saved["summary"] is not None:
        return pd.DataFrame(saved["rows"], columns=STEP_COLUMNS), saved["summary"]
    if saved is not None:
        reference, candidate, rows, first = saved["reference"], saved["candidate"], saved["rows"], saved["next_step"]
        loop = LoopSolver(solver, **saved["loop"])
    else:
        reference, candidate, rows, first = build(), build(), [], 0
        loop = LoopSolver(solver, seed=seed, time_limit=options.time_limit, iteration_budget=options.iteration_budget,
                          warm=options.warm_start)
    status, message = "completed", ""
    for k in tqdm(range(first, options.steps), desc=f"{getattr(solver, 'name', 'solver')} seed {seed} in the loop",
                  disable=not progress, unit="step", initial=first, total=options.steps, position=position):
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
            checkpoint.save(key, {"reference": reference, "candidate": candidate, "rows": rows, "next_step": k + 1,
                                  "loop": loop.saved(), "summary": None})
    steps = pd.DataFrame(rows, columns=STEP_COLUMNS)
    summary = _summary(steps, options, loop, status, message)
    if checkpoint is not None:
        checkpoint.save(key, {"rows": rows, "summary": summary}, force=True)
    return steps, summary


#: Columns of the per-step table, in order.
STEP_COLUMNS = ["step", "time", "position_error", "velocity_error", "kinetic_energy", "kinetic_energy_ref",
                "penetration_max", "penetration_mean", "complementarity", "newton_iterations",
                "newton_iterations_ref", "fallback", "step_status", "linear_solves", "linear_solves_ref", "seconds"]


def _row(k: int, report, cand: dict, ref: dict, solves: int, seconds: float) -> dict:
    return {"step": k, "time": float(report.time),
            "position_error": float(np.linalg.norm(cand["positions"] - ref["positions"], axis=1).max(initial=0.0)),
            "velocity_error": float(np.linalg.norm(cand["velocities"] - ref["velocities"], axis=1).max(initial=0.0)),
            "kinetic_energy": cand["kinetic_energy"], "kinetic_energy_ref": ref["kinetic_energy"],
            "penetration_max": cand["penetration_max"], "penetration_mean": cand["penetration_mean"],
            "complementarity": cand["complementarity"], "newton_iterations": cand["newton_iterations"],
            "newton_iterations_ref": ref["newton_iterations"], "fallback": cand["fallback"],
            "step_status": cand["step_status"], "linear_solves": solves, "linear_solves_ref": ref["linear_solves"],
            "seconds": seconds}


def divergence_step(steps: pd.DataFrame, tol: float) -> int | None:
    """The first step whose position error exceeds ``tol`` (``None`` if none does)."""
    over = steps.index[steps["position_error"] > tol]
    return int(steps.loc[over[0], "step"]) if len(over) else None


def _summary(steps: pd.DataFrame, options: InLoopOptions, loop: LoopSolver, status: str, message: str) -> dict:
    first = divergence_step(steps, options.position_tol)
    last = steps.iloc[-1] if len(steps) else None
    drift = (float((last["kinetic_energy"] - last["kinetic_energy_ref"]) / max(last["kinetic_energy_ref"], 1e-300))
             if last is not None else np.nan)
    return {"status": status, "message": message, "steps_run": len(steps), "steps": options.steps,
            "divergence_step": first,
            "divergence_time": float(steps.loc[steps["step"] == first, "time"].iloc[0]) if first is not None else None,
            "position_error_max": float(steps["position_error"].max()) if len(steps) else np.nan,
            "position_error_final": float(last["position_error"]) if last is not None else np.nan,
            "penetration_max": float(steps["penetration_max"].max()) if len(steps) else np.nan,
            "kinetic_energy_drift": drift, "fallback_steps": int(steps["fallback"].sum()) if len(steps) else 0,
            "linear_solves": loop.solves, "linear_solves_ref": int(steps["linear_solves_ref"].sum()),
            "newton_iterations": int(steps["newton_iterations"].sum()),
            "newton_iterations_ref": int(steps["newton_iterations_ref"].sum()),
            "solver_seconds": loop.seconds, "max_qubits": loop.max_qubits,
            "solver_iterations": loop.iterations, "warm_starts": loop.warm_starts, "warm_start": options.warm_start,
            "seconds_per_step": float(steps["seconds"].mean()) if len(steps) else np.nan,
            "resources": dict(loop.resources),
            "projection_min": min(loop.projections, default=np.nan),
            "projection_max": max(loop.projections, default=np.nan),
            "stayed_within": status == "completed" and first is None}




#: File-level metadata key of an in-loop results file (JSON: the options and one summary per run).
IN_LOOP_META_KEY = b"qlsbench.in_loop"


def check_sweep(options: InLoopOptions, spec, fidelities=()) -> None:
    """Refuse, before any run starts, what would stop a sweep of ``spec`` in the loop once it runs.

    The fidelity levels sweep the oracle only; the solver builds with its options (at each level); it can
    take the warm start the options ask for; the scene builds (a penalty scene with its parameters). ``qlsbench
    in-loop`` checks this before its first run (:func:`sweep`, :func:`add_seeds`), and the workflow on each of
    a config's ``in_loop:`` entries (:func:`qlsbench.workflow.in_loop_runs`: ``check-config``, ``snakemake -n``),
    so a config they pass does not fail at its in-loop rule over any of these.

    Raises
    ------
    InputError
        One line saying what would stop the run.
    """
    if fidelities and spec.name != "oracle":
        raise InputError(f"fidelity levels sweep the oracle, not {spec.name!r} (use --solver oracle)")
    for fidelity in list(fidelities) or [None]:
        _check_warm_start(options, _solver(spec, fidelity)[0])
    _check_scene(options)


def _check_warm_start(options: InLoopOptions, solver) -> None:
    if options.warm_start != "off" and not can_start(solver):
        raise InputError(f"--warm-start {options.warm_start}: {getattr(solver, 'name', 'the solver')} cannot start "
                         "from an earlier solve (no start_from); run it with --warm-start off")


def _check_scene(options: InLoopOptions) -> None:
    """The scene a run would build exists and takes its parameters (spheres: by name, as building 50,000 of
    them takes seconds; penalty: built, as its parameters are only checked by the builder)."""
    if options.family == "penalty":
        build, _, _ = _penalty_world(options)
        build()
        return
    from qlsbench.physics.spheres.scenes import SCENES

    if (options.scene or "sedimentation") not in SCENES:
        raise InputError(f"unknown scene {options.scene!r} for {options.family}; available: "
                         f"{', '.join(sorted(SCENES))}")


def _solver(spec, fidelity):
    """The solver of one run of ``spec`` (the oracle at target ``fidelity``, when given) and its options."""
    from qlsbench.solvers import registry

    options = {**spec.options, **({"fidelity": fidelity} if fidelity is not None else {})}
    return registry.get(spec.name, **options), options


def sweep(options: InLoopOptions, spec, *, seeds: int = 1, fidelities=(), progress: bool = False,
          first_seed: int = 0, out=None, jobs: int = 1) -> tuple[pd.DataFrame, list[dict]]:
    """Run ``spec`` in the loop over seeds ``first_seed..seeds-1``, or the oracle so at each of ``fidelities``.

    With ``out`` (the results file to be written) each run saves a checkpoint beside it
    (:func:`~qlsbench.bench.checkpoints.checkpoint_path`), so a killed sweep run again resumes where it was;
    :func:`write_in_loop` removes them once ``out`` holds the runs. With ``jobs`` > 1 the runs go to that
    many worker processes (:func:`run_all`); the result is the same as one after another.

    Returns
    -------
    steps : pandas.DataFrame
        Every run's per-step rows (:func:`run_in_loop`), with ``solver``, ``seed`` and ``fidelity`` (the
        oracle's target; NaN for another solver) in front.
    summaries : list of dict
        One per run, with the same three keys and the solver's options.
    """
    check_sweep(options, spec, fidelities)
    levels = list(fidelities) or [None]
    runs = [(fidelity, seed) for fidelity in levels for seed in range(first_seed, seeds)]
    frames, summaries = [], []
    for steps, summary in run_all(options, spec, runs, progress=progress, out=out, jobs=jobs):
        frames.append(steps)
        summaries.append(summary)
    return pd.concat(frames, ignore_index=True), summaries


def run_all(options: InLoopOptions, spec, runs: list, *, progress: bool = False, out=None, jobs: int = 1):
    """Yield each of ``runs`` (``(fidelity, seed)`` pairs) as ``(rows, summary)``, in their order.

    With ``jobs`` > 1 they run in that many fresh (spawned) processes, each capped at its share of the cores
    (:func:`_worker_threads`): a VNLS run is one core's work for hours, and two side by side on two cores
    finish in the time of one, where threads within a run would only wait on each other. A run still
    checkpoints beside ``out``, so a killed parallel sweep resumes as a serial one does.
    """
    jobs = min(int(jobs), len(runs))
    if jobs <= 1:
        for fidelity, seed in runs:
            yield _one_run(options, spec, fidelity, seed, progress, out, 0)
        return
    import multiprocessing as mp
    import os
    from concurrent.futures import ProcessPoolExecutor

    from qlsbench import threads

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    share = threads.configured() or max(1, cores // jobs)  # the cores this process may use (a batch job's)
    context = mp.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_start_worker,
                             initargs=(share, progress_lines(context, jobs))) as pool:
        futures = [pool.submit(_one_run, options, spec, fidelity, seed, progress, out, None)
                   for fidelity, seed in runs]
        for future in futures:
            yield future.result()


def progress_lines(context, jobs: int):
    """A queue of the progress-bar lines ``0..jobs-1``, each taken by one worker (:func:`_worker_threads`) for
    every run it does."""
    lines = context.Queue()
    for line in range(jobs):
        lines.put(line)
    return lines


#: The progress-bar line of this worker process (:func:`run_all`); 0 in the main process.
_LINE = 0


def _start_worker(count: int, lines=None) -> None:
    """Start a worker of :func:`run_all`: it dies with the parent (a killed sweep leaves no run going on for
    nobody, holding the caller's output pipes), then :func:`_worker_threads`."""
    exit_with_parent()
    _worker_threads(count, lines)


def _worker_threads(count: int, lines=None) -> None:
    """Cap a worker process at ``count`` threads: BLAS, numba and XLA (read when JAX is first imported); take a
    progress-bar line from ``lines``, so ``jobs`` workers draw on ``jobs`` lines however many runs they do."""
    import os

    from qlsbench import threads

    global _LINE
    if lines is not None:
        _LINE = lines.get()

    threads.set_threads(count)
    if count == 1 and "XLA_FLAGS" not in os.environ:
        os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def _one_run(options: InLoopOptions, spec, fidelity, seed: int, progress: bool, out, position: int | None):
    """One run of :func:`sweep`: its rows with ``solver``, ``seed`` and ``fidelity`` in front, and its summary;
    its progress bar at line ``position`` (``None``: this worker's line)."""
    position = _LINE if position is None else position
    solver, solver_options = _solver(spec, fidelity)
    checkpoint = None if out is None else Checkpoint(checkpoint_path(out, spec.label, seed, fidelity))
    steps, summary = run_in_loop(options, solver, seed=seed, progress=progress, checkpoint=checkpoint,
                                 position=position)
    key = {"solver": spec.label, "seed": seed, "fidelity": np.nan if fidelity is None else float(fidelity)}
    return (steps.assign(**key)[list(key) + STEP_COLUMNS],
            {**key, "solver_name": spec.name, "solver_options": solver_options, **summary})


def add_seeds(path, options: InLoopOptions, spec, *, seeds: int, fidelities=(), progress: bool = False,
              jobs: int = 1) -> tuple[pd.DataFrame, list[dict]]:
    """Raise the in-loop results file ``path`` to ``seeds`` seeds, keeping the runs it holds.

    The file must be a run of the same solver, options and fidelity levels over seeds ``0..k-1``; seeds
    ``k..seeds-1`` are run (``jobs`` at a time, :func:`run_all`) and the file is rewritten (atomically) as
    each next seed in order finishes, so an interrupted raise resumes where it stopped when run again. A
    seed's run depends only on the seed, so the result equals a ``seeds``-seed run from scratch.

    Raises
    ------
    InputError
        Naming the file and what differs, before any run, when the file is not such a run.
    """
    from pathlib import Path

    if not Path(path).exists():
        raise InputError(f"{path} does not exist: there is no finished in-loop run to add seeds to (without "
                         "--add-seeds, in-loop writes it)")
    check_sweep(options, spec, fidelities)
    steps, meta = read_in_loop(path)
    _check_same_sweep(path, meta, options, spec, fidelities)
    summaries = list(meta["runs"])
    levels = list(fidelities) or [None]
    held = _seeds_held(path, summaries)
    # seed by seed, every level of a seed before the next seed: the file always holds seeds 0..j at every level
    runs = [(fidelity, seed) for seed in range(held, seeds) for fidelity in levels]
    for at, (more, summary) in enumerate(run_all(options, spec, runs, progress=progress, out=path, jobs=jobs)):
        steps = pd.concat([steps, more], ignore_index=True)
        summaries.append(summary)
        if (at + 1) % len(levels) == 0:
            write_in_loop(path, steps, summaries, options)
    return steps, summaries


def _check_same_sweep(path, meta: dict, options: InLoopOptions, spec, fidelities) -> None:
    """Refuse to add seeds to a file of other options, another solver or other fidelity levels."""
    import json

    from qlsbench.bench.results import jsonable

    def plain(value):
        return json.loads(json.dumps(value, sort_keys=True, default=jsonable))

    # a file written before an option existed ran with its default
    held = {**plain(dataclasses.asdict(InLoopOptions())), **meta["options"]}
    differ = sorted(k for k, v in plain(dataclasses.asdict(options)).items() if held.get(k) != v)
    if differ:
        raise InputError(f"{path}: written with other in-loop options ({', '.join(differ)}): seeds can only be "
                         "added to a run of the same options")
    levels = sorted({float(f) for f in fidelities} or {np.nan}, key=str)
    for run in meta["runs"]:
        given = {**spec.options, **({"fidelity": run["fidelity"]} if fidelities else {})}
        if run["solver"] != spec.label or run["solver_name"] != spec.name or run["solver_options"] != plain(given):
            raise InputError(f"{path}: a run of solver {run['solver']!r} with options {run['solver_options']}, "
                             f"not {spec.label!r} with {plain(given)}")
    held = sorted({float(r["fidelity"]) for r in meta["runs"]}, key=str)
    if [str(x) for x in held] != [str(x) for x in levels]:
        raise InputError(f"{path}: holds fidelity levels {held}, not {levels}")


def _seeds_held(path, summaries: list[dict]) -> int:
    """How many seeds each level of the file holds (``0..k-1`` at every level, else refused)."""
    by_level: dict[str, list[int]] = {}
    for run in summaries:
        by_level.setdefault(str(float(run["fidelity"])), []).append(int(run["seed"]))
    counts = {len(s) for s in by_level.values()}
    if len(counts) != 1 or any(sorted(s) != list(range(len(s))) for s in by_level.values()):
        raise InputError(f"{path}: its runs' seeds are not 0..k-1 at every level ({by_level}): seeds cannot be added")
    return counts.pop()


def write_in_loop(path, steps: pd.DataFrame, summaries: list[dict], options: InLoopOptions) -> None:
    """Write the per-step rows to ``path`` (Parquet, atomically), the options and summaries in its metadata;
    then remove the runs' checkpoints (:func:`sweep`), which the file now holds."""
    import json

    import pyarrow as pa

    from qlsbench.bench.results import jsonable
    from qlsbench.data import atomic_write_table

    table = pa.Table.from_pandas(steps, preserve_index=False)
    meta = {"options": dataclasses.asdict(options), "runs": summaries}
    text = json.dumps(meta, sort_keys=True, default=jsonable)
    table = table.replace_schema_metadata({IN_LOOP_META_KEY: text})
    atomic_write_table(table, path)
    for run in summaries:
        level = None if run["fidelity"] != run["fidelity"] else run["fidelity"]
        Checkpoint(checkpoint_path(path, run["solver"], run["seed"], level)).remove()


def read_in_loop(path) -> tuple[pd.DataFrame, dict]:
    """The per-step rows and the metadata (``options``, ``runs``) of an in-loop results file.

    Raises
    ------
    InputError
        Naming the file when it is not an in-loop results file.
    """
    import json

    from qlsbench.data import read_parquet

    table = read_parquet(path, kind="in-loop results file", columns=("step", "position_error", "solver", "seed"),
                         error=InputError, hint=" (not written by `qlsbench in-loop`?)")
    raw = (table.schema.metadata or {}).get(IN_LOOP_META_KEY)
    if raw is None:
        raise InputError(f"{path}: no in-loop metadata (not written by `qlsbench in-loop`)")
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: damaged in-loop metadata ({exc})") from None
    return table.to_pandas(), meta


def success_bar(summaries: list[dict]) -> float | None:
    """The lowest oracle fidelity at which every seed stayed within the tolerance (and every higher level did).

    ``None`` when even the highest level left it. Levels are walked from the highest down; the bar is the last
    level before the first one at which some seed left.
    """
    by_level: dict[float, list[bool]] = {}
    for s in summaries:
        by_level.setdefault(float(s["fidelity"]), []).append(bool(s["stayed_within"]))
    bar = None
    for level in sorted(by_level, reverse=True):
        if not all(by_level[level]):
            break
        bar = level
    return bar


__all__ = ["IN_LOOP_META_KEY", "LOOP_FAMILIES", "InLoopOptions", "LoopAborted", "LoopSolver", "STEP_COLUMNS",
           "check_sweep", "divergence_step", "read_in_loop", "run_in_loop", "success_bar", "sweep", "write_in_loop"]
