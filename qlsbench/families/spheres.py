"""What the two sphere-simulation families share: their options and the run that writes their datasets.

``dem_c`` (De et al., alg. 1) and ``cd_lagrange`` (seed 000's restitution
impacts) run the same scenes through the same stepper and capture the same
min-map Newton subsystems; they differ in the integrator and the label.
"""

from __future__ import annotations

import inspect
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from qlsbench.checks import COUNT, NON_NEGATIVE, POSITIVE, SEED, Real, Whole
from qlsbench.data import write_systems
from qlsbench.data._snapshots import write_snapshots
from qlsbench.errors import InputError
from qlsbench.machine import GIB, check_memory
from qlsbench.options import Options, option
from qlsbench.physics import (
    NewtonOptions,
    NSGSOptions,
    ProximalOptions,
    SnapshotRecorder,
    StepOptions,
    SubsystemRecorder,
    build_scene,
    container_of,
    export_systems,
    simulate,
    snapshot_steps,
)
from qlsbench.physics.spheres.scenes import MAX_SPHERES, SCENES, Scene, sedimentation
from qlsbench.text import plural

#: The name written into every sphere dataset's metadata since v1, kept so the bytes (and the pinned hashes) stay.
GENERATOR = "qlsbench.generate.simulate_dataset"
#: ``lcp_chain`` values, newest first (see :class:`qlsbench.physics.StepOptions` and :attr:`SphereOptions.lcp_chain`).
LCP_CHAINS = ("v2", "v1")
#: ``newton_start`` values: the previous step's impulses of persisting contacts (the default since v1), or zero
#: (De et al., alg. 1: SolveLCP(Q, r, 0)). Which Newton subsystems exist depends on it.
NEWTON_STARTS = ("warm", "zero")
#: The scene builder's own defaults, so the options restate none of them.
_SCENE = inspect.signature(sedimentation).parameters


@dataclass(frozen=True)
class SphereOptions(Options):
    """A rigid-sphere simulation and which of its Newton subsystems to keep."""

    scene: str = option("sedimentation", "scene to simulate", choices=tuple(SCENES))
    n_spheres: int = option(_SCENE["n_spheres"].default, "number of spheres", bounds=Whole(1, MAX_SPHERES))
    packing: float = option(
        _SCENE["packing"].default,
        "sphere volume fraction of the container",
        bounds=Real(0.0, 0.5, open_low=True, open_high=True),
    )
    mu: float = option(StepOptions.mu, "friction coefficient", bounds=NON_NEGATIVE)
    steps: int = option(400, "time steps", bounds=COUNT)
    seed: int = option(_SCENE["seed"].default, "seed of the sphere placement", bounds=SEED)
    h: float = option(StepOptions.h, "time step (s)", bounds=POSITIVE)
    friction_directions: int = option(
        StepOptions.s,
        "friction directions per contact (the polyhedral cone's edges s; even, >= 4)",
        bounds=Whole(4, 1024),
    )
    every: int = option(1, "keep the subsystems of every k-th step", bounds=COUNT)
    kappa_cap: float | None = option(
        1e12,
        "drop systems with a larger condition number (inf keeps every system)",
        bounds=Real(1.0, infinite=True),
        nullable=True,
    )
    max_systems: int | None = option(None, "keep at most this many subsystems", bounds=COUNT)
    newton_tol: float = option(NewtonOptions.tol, "min-map Newton tolerance", bounds=POSITIVE, cli=False)
    newton_max_iter: int = option(NewtonOptions.max_iter, "min-map Newton iteration cap", bounds=COUNT, cli=False)
    regularization: float = option(
        NewtonOptions.regularization,
        "Tikhonov epsilon added to each Newton subsystem (frictional ones are singular without it)",
        bounds=NON_NEGATIVE,
    )
    lcp_chain: str = option(
        "v2",
        "how contact LCPs are solved: v2 (frictional: nonsmooth Gauss-Seidel to every step's "
        "tolerance and min-map Newton from an NSGS point on the steps whose subsystems are kept, "
        "surfaces within the slop touching; every reduced system exactly symmetric factorised in "
        "SuperLU's symmetric mode) or v1 (min-map Newton from the warm start, COLAMD, then Lemke or "
        "the proximal method: the datasets of qlsbench before dataset version 2)",
        choices=LCP_CHAINS,
    )
    newton_start: str = option(
        "warm",
        "where each step's LCP solve starts: warm (the previous step's impulses of the "
        "contacts that persist; fewer Newton iterations) or zero (De et al.'s alg. 1, "
        "SolveLCP(Q, r, 0)); the Newton subsystems a dataset holds depend on it",
        choices=NEWTON_STARTS,
    )
    snapshots: str | None = option(
        None,
        "also write sphere states and contact impulses at evenly spaced steps to this .parquet (fig. 3)",
        path="file",
    )
    snapshot_count: int = option(4, "number of snapshot steps, the last step always among them", bounds=COUNT)
    fclib: str | None = option(
        None,
        "also write each step's contact problem (every fclib_every-th step with "
        "contacts) in FCLIB's global form to this folder, step-NNNNNN.hdf5",
        path="folder",
    )
    fclib_every: int = option(1, "with fclib: write every k-th step", bounds=COUNT)
    name: str | None = option(
        None,
        "dataset name (default: scene-nN-muM): two runs of one scene and size, e.g. a "
        "short and a long one, need different names",
    )

    def check(self) -> None:
        if self.friction_directions % 2:
            raise InputError(f"friction_directions must be even, got {self.friction_directions}")
        if self.name is not None and ("/" in self.name or self.name.startswith(".") or not self.name):
            raise InputError(f"name {self.name!r} must be a non-empty file name (no '/', not starting with '.')")

    def step_options(self, integrator: str, restitution: float = 0.0) -> StepOptions:
        v1 = self.lcp_chain == "v1"
        newton = NewtonOptions(
            tol=self.newton_tol,
            max_iter=self.newton_max_iter,
            regularization=self.regularization,
            lu="colamd" if v1 else NewtonOptions.lu,
        )
        # Each chain keeps the settings its files were made with, so a file of either version rebuilds byte for byte:
        # v1 plain Newton first, v2 NSGS whose block repairs start at a chunk that does not halve the residual.
        legacy: dict[str, Any] = (
            {"nsgs": None, "slop": 0.0, "proximal": ProximalOptions(max_outer=100)}
            if v1
            else {"nsgs": NSGSOptions(stall_ratio=0.5)}
        )
        # Datasets finish frictional steps with NSGS at Newton's tolerance, as every dataset file was made (the
        # stepper's defaults, APGD at the tolerance study's 1e-7, came later).
        legacy |= {"friction_solver": "nsgs", "friction_tol": self.newton_tol}
        return StepOptions(
            h=self.h,
            mu=self.mu,
            s=self.friction_directions,
            newton=newton,
            integrator=integrator,
            restitution=restitution,
            warm_start=self.newton_start == "warm",
            **legacy,
        )

    @property
    def dataset_version(self) -> int:
        """The dataset version this chain writes: 2, or 1 with ``lcp_chain = "v1"`` (byte for byte the v1 files)."""
        return int(self.lcp_chain[1:])


def _say_memory(estimate: float, what: str, progress: bool) -> None:
    """Refuse a run the machine cannot hold (:func:`~qlsbench.machine.check_memory`); state a large one's need."""
    check_memory(estimate, what)
    if progress and estimate >= GIB:
        print(f"{what}: needs about {estimate / GIB:,.1f} GiB of memory or more", file=sys.stderr)


def base_label(options: SphereOptions) -> str:
    """``sedimentation-n32-mu0.3``, or the run's ``name``."""
    return options.name or f"{options.scene}-n{options.n_spheres}-mu{options.mu:g}"


#: Memory a pile takes per sphere beyond the process (the 10,000-sphere frictionless pile of docs/scale.md peaked at
#: 0.81 GiB, about 0.3 of them the interpreter and its libraries), and a kept Newton system per sphere (a settled
#: pile's holds about 2.4 unknowns a sphere, 7 entries a row at 12 bytes, and its vectors).
BYTES_PER_SPHERE, SYSTEM_BYTES_PER_SPHERE = 48 * 1024, 260


def memory_estimate(options: SphereOptions) -> float:
    """Bytes a run of ``options`` takes at least: the pile, and one Newton system a kept step (a step keeps one
    per Newton iteration it runs), all held until the file is written."""
    kept = -(-options.steps // options.every)
    if options.max_systems is not None:
        kept = min(kept, options.max_systems)
    return float(options.n_spheres * (BYTES_PER_SPHERE + kept * SYSTEM_BYTES_PER_SPHERE))


def simulate_spheres(
    options: SphereOptions,
    out: Path,
    progress: bool,
    *,
    label: str,
    family: str,
    integrator: str = "dem_c",
    restitution: float = 0.0,
) -> dict:
    """Simulate, write the Newton subsystems to ``out/part-0000.parquet`` (and the snapshots), return the facts.

    Returns
    -------
    dict
        The dataset metadata written to the file: settings, export counts,
        condition-number range and Newton statistics; not written but
        returned, ``steps_per_second`` and ``steps_solved_by_proximal``; with
        snapshots, also ``snapshots``, ``snapshot_steps`` and ``snapshot_write_seconds``.
    """
    step_options = options.step_options(integrator, restitution)
    _say_memory(memory_estimate(options), f"simulation {label} ({options.n_spheres:,} spheres)", progress)
    # Checked before the run, so a bad count does not cost a whole simulation.
    chosen = snapshot_steps(options.steps, options.snapshot_count) if options.snapshots is not None else None
    observer = SnapshotRecorder(chosen.tolist()) if chosen is not None else None
    problems = FclibWriter(Path(options.fclib), options.fclib_every, label) if options.fclib is not None else None
    state, reports, systems, stats, elapsed = _run(
        options,
        options.steps,
        step_options,
        label=label,
        family=family,
        observer=observer,
        problems=problems,
        progress=progress,
    )
    if not systems:  # an empty dataset would only fail later, in every rule that reads it
        raise InputError(
            f"simulation {label}: no Newton subsystem to export ({stats['captured']} captured, "
            f"{stats['dropped_kappa']} over the kappa cap, {stats['skipped_trivial']} trivial) in "
            f"{plural(options.steps, 'step')} with every={options.every}; run more steps or more spheres"
        )
    meta = _metadata(options, stats, reports, step_options)
    if integrator != "dem_c":  # only then: DEM-C files stay byte for byte what they were (the pinned set hashes them)
        meta.update(family=family, integrator=integrator, restitution=restitution, scene_label=label)
    # Wall-clock facts vary run to run; they are returned, not written, so files stay byte-identical.
    write_systems(systems, Path(out) / "part-0000.parquet", metadata=meta, progress=progress)
    facts = {
        **meta,
        "out": str(out),
        "steps_per_second": options.steps / elapsed if elapsed > 0 else float("inf"),
        "steps_solved_by_proximal": sum(r.solver == "proximal" for r in reports),
    }
    facts.setdefault("dataset_version", 1)
    if observer is not None and options.snapshots is not None:  # the one with the other
        t0 = time.perf_counter()
        if observer.missing:
            raise InputError(f"snapshot steps {observer.missing} were never reached by the simulation")
        write_snapshots(
            observer.records,
            options.snapshots,
            _snapshot_metadata(meta, label, container_of(state), state, options.snapshot_count),
        )
        facts.update(
            snapshots=str(options.snapshots),
            snapshot_steps=observer.steps,
            snapshot_write_seconds=time.perf_counter() - t0,
        )
    if problems is not None:
        facts.update(fclib=str(options.fclib), fclib_files=problems.written)
    return facts


def rerun_steps(
    options: SphereOptions, steps, sink, *, label: str, family: str = "dem_c", progress: bool = False
) -> list:
    """Simulate ``options``'s run again up to the last of ``steps``, handing ``sink(step, problem)`` the contact
    problem of each of ``steps`` before it is solved (what ``sink`` returns gets the step's solution, as for a
    :data:`~qlsbench.physics.spheres.stepping.ProblemSink`); return the Newton subsystems the run exports on the way.

    The run is :func:`simulate_spheres`'s, step for step, cut after the last step asked for, so its systems
    are those of the full run's file up to that step (on the machine that wrote the file, the same bytes).
    """
    wanted = sorted({int(k) for k in steps})
    if not wanted:
        return []
    chosen = set(wanted)

    def problems(step: int, problem):
        return sink(step, problem) if step in chosen else None

    _, _, systems, _, _ = _run(
        options,
        wanted[-1] + 1,
        options.step_options("dem_c"),
        label=label,
        family=family,
        problems=problems,
        progress=progress,
    )
    return systems


def _run(
    options: SphereOptions,
    steps: int,
    step_options: StepOptions,
    *,
    label: str,
    family: str,
    observer=None,
    problems=None,
    progress: bool = False,
) -> tuple:
    """Build ``options``'s scene and simulate ``steps`` steps, recording the Newton subsystems of every
    ``options.every``-th step; the one run both :func:`simulate_spheres` and :func:`rerun_steps` make.

    Returns
    -------
    tuple
        The scene after the run, the step reports, the exported systems with their statistics
        (:func:`export_systems`), and the seconds the simulation took (export not counted).
    """
    state = build_scene(options.scene, n_spheres=options.n_spheres, packing=options.packing, seed=options.seed)
    recorder = SubsystemRecorder(every=options.every, max_systems=options.max_systems)
    t0 = time.perf_counter()
    reports = simulate(
        state, steps, step_options, capture=recorder, observer=observer, problems=problems, progress=progress
    )
    elapsed = time.perf_counter() - t0
    systems, stats = export_systems(
        recorder, kappa_cap=options.kappa_cap, seed=options.seed, scene=label, family=family
    )
    return state, reports, systems, stats, elapsed


class FclibWriter:
    """Writes a step's contact problem as ``folder/step-NNNNNN.hdf5`` in FCLIB's global form (a
    :data:`~qlsbench.physics.spheres.stepping.ProblemSink`), every ``every``-th step, each file atomically once the
    step is solved (:func:`write_step_fclib`: with the step's solution and warm start)."""

    def __init__(self, folder: Path, every: int, label: str) -> None:
        self.folder, self.every, self.label, self.written = folder, every, label, 0

    def __call__(self, step: int, problem):
        if step % self.every:
            return None
        title = f"qlsbench {self.label} step {step} (mu {problem.mu:g}, {plural(problem.nc, 'contact')})"

        def solved(solution) -> None:
            write_step_fclib(
                self.folder / f"step-{step:06d}.hdf5",
                problem,
                solution,
                title,
                f"Time step {step} of qlsbench's {self.label} run.",
            )
            self.written += 1

        return solved


def write_step_fclib(path: Path, problem, solution, title: str, about: str) -> Path:
    """One step's contact problem in FCLIB's global form, written atomically, with FCLIB's ``solution`` (the
    impulses the step applied) and one guess (where its solve started), and the info strings saying what each is.

    Parameters
    ----------
    path : pathlib.Path
        The ``.hdf5`` file.
    problem : ContactLCP
        The step's contact problem (:meth:`~qlsbench.physics.spheres.assembly.ContactLCP.global_form`).
    solution : StepSolution
        How the step solved it (:class:`~qlsbench.physics.spheres.stepping.StepSolution`).
    title : str
        ``info/title``.
    about : str
        The description's first sentence: which run and step this is.
    """
    from qlsbench.data import atomic_write
    from qlsbench.physics.lcp import write_fclib_global

    M, H, f, w, mu = problem.global_form()
    described = f"{about} {_fclib_fields(problem, M.shape[0])} {_fclib_states(problem, solution)}"
    return atomic_write(
        path,
        lambda tmp: write_fclib_global(
            tmp,
            M,
            H,
            f,
            w,
            mu,
            title=title,
            description=described,
            math_info=_fclib_math(problem),
            solution=problem.global_solution(solution.y),
            guesses=(problem.global_solution(solution.start),),
        ),
    )


def _fclib_fields(problem, ndof: int) -> str:
    """What the global form's fields hold, for ``info/description``."""
    return (
        f"{plural(ndof // 3, 'sphere')} without rotation ({ndof} velocities), "
        f"{plural(problem.nc, 'contact')}. M: the sphere masses; H: each contact's frame (normal, t1, t2) on "
        "its second sphere and minus it on its first (a wall has none); f = M v, v the velocities before the "
        "contact impulses; w: the normal rows' offset (gap / h, or the impact term); mu: the Coulomb "
        "coefficient."
    )


def _fclib_states(problem, solution) -> str:
    """What ``solution`` and ``guesses/1`` hold, for ``info/description``."""
    lcp = "frictionless LCP" if problem.mu == 0 else f"LCP whose friction is an inscribed {problem.s}-sided polygon"
    return (
        f"solution: the impulses r the step applied, its velocities v and u = H^T v + w; r solves the "
        f"step's {lcp} (solved by {solution.solver}, {solution.status.value}, residual "
        f"{solution.residual:.1e}). guesses/1: where that solve started: the previous step's impulses of the "
        "contacts that persist, zero elsewhere (all zero in a run that starts every step from zero)."
    )


def _fclib_math(problem) -> str:
    """``info/math_info``: what is known of the problem and how far its stored solution solves it."""
    known = "M is diagonal and positive, so W = H^T M^-1 H is symmetric positive semidefinite."
    if problem.mu == 0:
        return f"{known} mu = 0: the stored solution solves this problem (to its residual)."
    return (
        f"{known} The stored r lies in the Coulomb cone (the {problem.s}-sided polygon is inscribed in it) and "
        "solves the polygon's LCP; against the exact cone it is a solution only within that approximation."
    )


def _metadata(options: SphereOptions, stats: dict, reports: list, step_options: StepOptions) -> dict:
    """The file's metadata: the settings under their v1 keys (``s`` for the friction directions), then the run.

    A v2 file (frictional, NSGS chain) adds ``dataset_version``, ``friction_tol`` and ``friction_solver`` (what each
    step was solved to, and by what), the chain's settings and
    how many steps each method finished; v1 files keep exactly their v1 keys.
    """
    iters = np.array([r.newton_iterations for r in reports if r.contacts]) if reports else np.zeros(0)
    meta = {
        "generator": GENERATOR,
        "scene": options.scene,
        "n_spheres": options.n_spheres,
        "packing": options.packing,
        "mu": options.mu,
        "steps": options.steps,
        "seed": options.seed,
        "h": options.h,
        "s": options.friction_directions,
        "every": options.every,
        "newton_tol": options.newton_tol,
        "newton_max_iter": options.newton_max_iter,
        "regularization": options.regularization,
        **stats,
        "newton_iterations_mean": float(iters.mean()) if len(iters) else 0.0,
        "newton_iterations_max": int(iters.max()) if len(iters) else 0,
        "steps_not_converged": sum(not r.status.solved for r in reports),
        "steps_solved_by_lemke": sum(r.solver == "lemke" for r in reports),
        "max_contacts": max((r.contacts for r in reports), default=0),
    }
    if options.newton_start != "warm":  # only then: files of the default (warm) start keep their bytes
        meta["newton_start"] = options.newton_start
    if options.dataset_version == 2:
        meta.update(
            dataset_version=2,
            lcp_chain=options.lcp_chain,
            newton_lu=step_options.newton.lu,
            steps_by_solver={
                name: sum(r.solver == name for r in reports)
                for name in ("minmap", "newton", "nsgs_newton", "nsgs", "lemke", "proximal")
            },
        )
        chain = step_options.nsgs
        if options.mu > 0 and chain is not None:  # the v2 chain always has its NSGS options
            meta.update(
                slop=step_options.slop,
                # what each step was solved to, and by what: the tolerance study (docs/tolerance.md) gives the
                # physical errors of each tolerance
                friction_tol=step_options.friction_tol,
                friction_solver=step_options.friction_solver,
                nsgs_presolve_tol=chain.presolve_tol,
                nsgs_newton_max_iter=chain.newton_max_iter,
                nsgs_sweeps_mean=float(np.mean([r.sweeps for r in reports])) if reports else 0.0,
            )
    return meta


def _snapshot_metadata(meta: dict, label: str, container: dict, scene: Scene, count: int) -> dict:
    """What a snapshot file says about its run: settings, container, gravity and the chosen steps.

    Only settings, never the output paths or timings, so the file depends on
    the configuration and seed alone.
    """
    settings = {
        k: meta[k]
        for k in (
            "scene",
            "n_spheres",
            "packing",
            "mu",
            "steps",
            "seed",
            "h",
            "s",
            "regularization",
            "newton_tol",
            "newton_max_iter",
        )
    }
    settings.update({k: meta[k] for k in ("integrator", "restitution", "newton_start") if k in meta})
    return {
        "generator": GENERATOR,
        "scene_label": label,
        **settings,
        **container,
        "gravity": [float(g) for g in scene.gravity],
        "snapshot_count": int(count),
        "snapshot_steps": snapshot_steps(meta["steps"], count).tolist(),
        "impulse": "sum over the sphere's contacts of the normal impulse magnitude in that step (N s); "
        "divide by h for the mean contact force",
    }


def report(facts: dict) -> list[str]:
    """What ``qlsbench simulate`` prints after a sphere simulation."""
    how = f" cd_lagrange e={facts['restitution']:g}" if facts.get("integrator") == "cd_lagrange" else ""
    lines = [
        f"{facts['scene']} N={facts['n_spheres']} mu={facts['mu']:g}{how}: {plural(facts['steps'], 'step')} at "
        f"{facts['steps_per_second']:.1f} steps/s, Newton {facts['newton_iterations_mean']:.1f} it/step "
        f"(max {facts['newton_iterations_max']}), {facts['exported']} of {plural(facts['captured'], 'subsystem')} "
        f"exported ({facts['dropped_kappa']} over the kappa cap), cond {facts['cond_min']} .. "
        f"{facts['cond_max']} -> {facts['out']}"
    ]
    if facts.get("snapshots"):
        lines.append(f"sphere snapshots at steps {facts['snapshot_steps']} -> {facts['snapshots']}")
    if facts.get("fclib"):
        lines.append(f"{plural(facts['fclib_files'], 'contact problem')} as FCLIB (global form) -> {facts['fclib']}")
    if "nsgs_sweeps_mean" in facts:
        lines.append(
            "steps finished by "
            + ", ".join(f"{name} {count}" for name, count in facts["steps_by_solver"].items() if count)
            + f" (NSGS {facts['nsgs_sweeps_mean']:.0f} sweeps/step)"
        )
    elif facts["steps_solved_by_proximal"]:
        solved = facts["steps_solved_by_proximal"]
        lines.append(
            f"{solved} of {plural(facts['steps'], 'step')} {'was' if solved == 1 else 'were'} solved by the "
            f"proximal min-map fallback (plain Newton stalled on an LCP above {StepOptions.lemke_fallback} "
            "unknowns)"
        )
    if facts["steps_not_converged"]:
        lines.append(
            f"warning: the contact LCP of {facts['steps_not_converged']} of {plural(facts['steps'], 'step')} "
            f"was not solved to tolerance by any method of the chain (Newton, NSGS, Lemke up to "
            f"{StepOptions.lemke_fallback} unknowns or the proximal min-map Newton above, up to "
            f"{StepOptions.proximal_max_unknowns}); those steps used the closest answer"
        )
    return lines


__all__ = [
    "GENERATOR",
    "NEWTON_STARTS",
    "SphereOptions",
    "base_label",
    "report",
    "rerun_steps",
    "simulate_spheres",
    "write_step_fclib",
]
