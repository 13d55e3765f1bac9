"""Dataset generators: run a problem source and write its systems to Parquet.

This is where physics meets files: ``qlsbench.physics`` produces subsystems
through a callback, and this module writes them with ``qlsbench.data``. The
same holds for sphere snapshots (fig. 3): an observer of the simulation loop
records them and this module writes them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from qlsbench.data import write_systems
from qlsbench.data.snapshots import write_snapshots
from qlsbench.errors import InputError
from qlsbench.physics import (
    StepOptions,
    SubsystemRecorder,
    build_scene,
    export_systems,
    simulate,
)
from qlsbench.physics.capture import FAMILY, SnapshotRecorder, container_of, snapshot_steps
from qlsbench.physics.minmap import NewtonOptions
from qlsbench.physics.scene import Scene

def scene_label(scene: str, n_spheres: int, mu: float, restitution: float | None = None) -> str:
    """Dataset scene name, e.g. ``sedimentation-n32-mu0.3``; ``-e0.5`` appended for a CD-Lagrange run."""
    label = f"{scene}-n{n_spheres}-mu{mu:g}"
    return label if restitution is None else f"{label}-e{restitution:g}"


def simulate_dataset(out_dir: str | os.PathLike, *, scene: str = "sedimentation", n_spheres: int = 32,
                     packing: float = 0.2, mu: float = 0.0, steps: int = 400, seed: int = 0, h: float = 1e-3, s: int = 8,
                     every: int = 1, kappa_cap: float | None = 1e12, max_systems: int | None = None,
                     newton_tol: float = 1e-10, newton_max_iter: int = 100, regularization: float = 0.0,
                     snapshots: str | os.PathLike | None = None, snapshot_count: int = 4,
                     integrator: str = "dem_c", restitution: float = 0.0, progress: bool = True) -> dict:
    """Simulate a DEM-C scene and write its Newton subsystems to ``out_dir/part-0000.parquet``.

    Parameters
    ----------
    out_dir : path
        Dataset folder.
    scene, n_spheres, seed : str, int, int
        Scene to build (see :data:`qlsbench.physics.SCENES`).
    packing : float
        Sphere volume fraction of the container.
    mu, h, s : float, float, int
        Friction coefficient, time step and friction directions.
    steps : int
        Time steps to run.
    every : int
        Keep the subsystems of every ``every``-th step.
    kappa_cap : float or None
        Drop systems whose condition number exceeds this.
    max_systems : int or None
        Keep at most this many subsystems.
    newton_tol, newton_max_iter : float, int
        Min-map Newton settings.
    regularization : float
        Tikhonov ``epsilon`` added to each reduced Newton system (and to the
        exported matrices, which are the systems as solved). Frictional
        subsystems are singular without it.
    snapshots : path, optional
        Also write the sphere states at ``snapshot_count`` evenly spaced
        steps (:func:`snapshot_steps`, the last step included) to this
        Parquet file: columns :data:`SNAPSHOT_COLUMNS`, the container and
        scene settings in its key-value metadata. The dataset file is the
        same with or without it.
    snapshot_count : int
        Number of snapshot steps.
    integrator : str
        ``dem_c`` (alg. 1; family ``dem_c``) or ``cd_lagrange`` (restitution
        impacts, seed 000 app. A; family ``cd_lagrange``, scene label ending
        in ``-e<restitution>``).
    restitution : float
        Newton's ``e`` of the ``cd_lagrange`` integrator.
    progress : bool
        Show a progress bar.

    Returns
    -------
    dict
        The dataset metadata written to the file: settings, export counts,
        condition-number range, steps per second and Newton statistics; not
        written but returned, ``steps_per_second`` and
        ``steps_solved_by_proximal`` (steps the proximal fallback solved); with
        ``snapshots``, also ``snapshot_steps`` and ``snapshot_write_seconds``.
    """
    newton = NewtonOptions(tol=newton_tol, max_iter=newton_max_iter, regularization=regularization)
    options = StepOptions(h=h, mu=mu, s=s, newton=newton, integrator=integrator, restitution=restitution)
    impacts = integrator == "cd_lagrange"
    # Checked before the run, so a bad count does not cost a whole simulation.
    chosen = snapshot_steps(steps, snapshot_count) if snapshots is not None else None
    state = build_scene(scene, n_spheres=n_spheres, packing=packing, seed=seed)
    container = container_of(state)
    recorder = SubsystemRecorder(every=every, max_systems=max_systems)
    observer = SnapshotRecorder(chosen) if chosen is not None else None
    t0 = time.perf_counter()
    reports = simulate(state, steps, options, capture=recorder, observer=observer, progress=progress)
    elapsed = time.perf_counter() - t0
    label = scene_label(scene, n_spheres, mu, restitution if impacts else None)
    systems, stats = export_systems(recorder, kappa_cap=kappa_cap, seed=seed, scene=label,
                                    family="cd_lagrange" if impacts else FAMILY)
    if not systems:  # an empty dataset would only fail later, in every rule that reads it
        raise InputError(f"simulation {label}: no Newton subsystem to export ({stats['captured']} captured, "
                         f"{stats['dropped_kappa']} over the kappa cap, {stats['skipped_trivial']} trivial) in "
                         f"{steps} steps with every={every}; run more steps or more spheres")
    iters = np.array([r.newton_iterations for r in reports if r.contacts]) if reports else np.zeros(0)
    meta = {
        "generator": "qlsbench.generate.simulate_dataset",
        "scene": scene, "n_spheres": n_spheres, "packing": packing, "mu": mu, "steps": steps, "seed": seed, "h": h, "s": s,
        "every": every, "newton_tol": newton_tol, "newton_max_iter": newton_max_iter,
        "regularization": regularization,
        **stats,
        "newton_iterations_mean": float(iters.mean()) if len(iters) else 0.0,
        "newton_iterations_max": int(iters.max()) if len(iters) else 0,
        "steps_not_converged": sum(r.status not in ("converged", "no_contact") for r in reports),
        "steps_solved_by_lemke": sum(r.solver == "lemke" for r in reports),
        "max_contacts": max((r.contacts for r in reports), default=0),
    }
    if impacts:  # only then: DEM-C files stay byte for byte what they were (the pinned set hashes them)
        meta.update(family="cd_lagrange", integrator=integrator, restitution=restitution, scene_label=label)
    # Wall-clock facts vary run to run; they are returned, not written, so files stay byte-identical.
    write_systems(systems, Path(out_dir) / "part-0000.parquet", metadata=meta)
    extra = {"steps_per_second": steps / elapsed if elapsed > 0 else float("inf"),
             # Returned, not written: DEM-C files keep their metadata keys (the pinned set hashes them).
             "steps_solved_by_proximal": sum(r.solver == "proximal" for r in reports)}
    if observer is not None:
        t0 = time.perf_counter()
        if observer.missing:
            raise InputError(f"snapshot steps {observer.missing} were never reached by the simulation")
        write_snapshots(observer.records, snapshots, _snapshot_metadata(meta, label, container, state, snapshot_count))
        extra.update(snapshots=str(snapshots), snapshot_steps=observer.steps,
                     snapshot_write_seconds=time.perf_counter() - t0)
    return {**meta, **extra}


def _snapshot_metadata(meta: dict, label: str, container: dict, scene: Scene, count: int) -> dict:
    """What a snapshot file says about its run: settings, container, gravity and the chosen steps.

    Only settings, never the output paths or timings, so the file depends on
    the configuration and seed alone.
    """
    settings = {k: meta[k] for k in ("scene", "n_spheres", "packing", "mu", "steps", "seed", "h", "s",
                                     "regularization", "newton_tol", "newton_max_iter")}
    settings.update({k: meta[k] for k in ("integrator", "restitution") if k in meta})
    return {"generator": "qlsbench.generate.simulate_dataset", "scene_label": label, **settings, **container,
            "gravity": [float(g) for g in scene.gravity], "snapshot_count": int(count),
            "snapshot_steps": snapshot_steps(meta["steps"], count).tolist(),
            "impulse": "sum over the sphere's contacts of the normal impulse magnitude in that step (N s); "
                       "divide by h for the mean contact force"}


#: Largest Newton system a penalty run assembles for export (the issue's limit; bigger ones are counted, not kept).
PENALTY_EXPORT_LIMIT = 4096


def penalty_capture(recorder: SubsystemRecorder, max_dim: int = PENALTY_EXPORT_LIMIT):
    """A Newton ``capture`` callback for the penalty stepper that assembles ``H`` and hands it to ``recorder``.

    Systems above ``max_dim`` unknowns are counted in the callback's
    ``too_large`` attribute instead (assembling them is what the matrix-free
    solver avoids).
    """
    def capture(evaluation, rhs, dz, context):
        if context["step"] % recorder.every:  # the recorder checks this too, but only after H is assembled
            return
        if len(rhs) > max_dim:
            capture.too_large += 1
            return
        A = evaluation.matrix()
        recorder(A, rhs, {**context, "sliding_fraction": context["sliding"] / max(context["contacts"], 1)})

    capture.too_large = 0
    return capture


def simulate_penalty_dataset(out_dir: str | os.PathLike, *, scene: str = "incline-block", steps: int = 200,
                             h: float | None = None, every: int = 1, kappa_cap: float | None = 1e12,
                             max_systems: int | None = None, newton_tol: float = 1e-9, newton_max_iter: int = 50,
                             progress: bool = True, **params) -> dict:
    """Run a penalty-friction scene and write its Newton systems (family ``penalty``) to ``out_dir/part-0000.parquet``.

    Parameters
    ----------
    out_dir : path
        Dataset folder.
    scene : str
        A name in :data:`qlsbench.physics.penalty.PENALTY_SCENES`.
    steps : int
        Time steps.
    h : float or None
        Time step; ``None`` takes the scene's own.
    every, kappa_cap, max_systems : int, float, int
        As for :func:`simulate_dataset`.
    newton_tol, newton_max_iter : float, int
        Newton tolerance (relative to one step's gravity impulse) and iteration cap.
    progress : bool
        Show a progress bar.
    **params
        Scene parameters (``mu``, ``angle``, ``n``, ...; see the scene builders).

    Returns
    -------
    dict
        The dataset metadata written, with ``steps_per_second`` added.
    """
    from qlsbench.physics.penalty import PENALTY_SCENES, PenaltyNewtonOptions, build_penalty_scene, simulate_penalty

    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise InputError(f"steps must be an integer >= 1, got {steps!r}")
    model = build_penalty_scene(scene, **params)
    h = PENALTY_SCENES[scene][1] if h is None else h
    if not (np.isfinite(h) and h > 0):
        raise InputError(f"h (time step) must be > 0, got {h!r}")
    options = PenaltyNewtonOptions(tol=newton_tol, max_iter=newton_max_iter)
    recorder = SubsystemRecorder(every=every, max_systems=max_systems)
    capture = penalty_capture(recorder)
    t0 = time.perf_counter()
    reports = simulate_penalty(model, steps, h, options, capture=capture, progress=progress)
    elapsed = time.perf_counter() - t0
    systems, stats = export_systems(recorder, kappa_cap=kappa_cap, scene=model.name, family="penalty")
    if not systems:
        raise InputError(f"simulation {model.name}: no Newton system to export ({stats['captured']} captured, "
                         f"{capture.too_large} above {PENALTY_EXPORT_LIMIT} unknowns, {stats['dropped_kappa']} over "
                         f"the kappa cap) in {steps} steps with every={every}")
    iters = np.array([r.newton.iterations for r in reports])
    meta = {
        "generator": "qlsbench.generate.simulate_penalty_dataset", "family": "penalty", "scene": scene,
        "scene_label": model.name, "params": {k: params[k] for k in sorted(params)}, "mu": model.mu,
        "stiffness": model.stiffness, "steps": steps, "h": h, "every": every, "newton_tol": newton_tol,
        "newton_max_iter": newton_max_iter, "ndof": model.ndof, **stats, "too_large": capture.too_large,
        "newton_iterations_mean": float(iters.mean()), "newton_iterations_max": int(iters.max()),
        "steps_not_converged": sum(not r.newton.converged for r in reports),
        "max_contacts": max(r.contacts for r in reports), "max_sliding": max(r.sliding for r in reports),
        "non_symmetric": sum(not s.meta["symmetric"] for s in systems),
    }
    write_systems(systems, Path(out_dir) / "part-0000.parquet", metadata=meta)
    return {**meta, "steps_per_second": steps / elapsed if elapsed > 0 else float("inf")}


def trajectory_dataset(out: str | os.PathLike, *, scene: str, steps: int, h: float = 0.02,
                       sigmas: Sequence[float] = (0.2, 0.02), seed: int = 0, mode: str = "sequential",
                       **params) -> Path:
    """Write a CD-Lagrange trajectory (for learning dynamics from data) to one Parquet file.

    The clean columns of :func:`qlsbench.physics.cdlagrange.run_scene` (``t``,
    ``q_i``, ``qdot_i``, ``contact``, ``energy``) stay as they are; for each
    ``sigma`` a separate set ``q_i_sigma<s>``, ``qdot_i_sigma<s>`` adds
    centred Gaussian noise of that standard deviation (the paper: 0.2 and
    0.02), drawn from ``numpy.random.default_rng(seed)``. The settings go into
    the file's ``qlsbench.dataset_meta``; same settings, same bytes.
    """
    import json

    import pyarrow as pa

    from qlsbench.data import atomic_write_table
    from qlsbench.data.schema import DATASET_META_KEY
    from qlsbench.physics.cdlagrange import run_scene

    sigmas = [float(s) for s in sigmas]
    if any(not (np.isfinite(s) and s >= 0) for s in sigmas):
        raise InputError(f"noise sigmas must be finite and >= 0, got {sigmas}")
    df = run_scene(scene, steps, h=h, mode=mode, **params)
    rng = np.random.default_rng(seed)
    state = [c for c in df.columns if c.startswith(("q_", "qdot_"))]
    for sigma in sigmas:
        for column in state:
            df[f"{column}_sigma{sigma:g}"] = df[column].to_numpy() + rng.normal(0.0, sigma, len(df))
    meta = {"generator": "qlsbench.generate.trajectory_dataset", "family": "cd_lagrange_trajectory", "scene": scene,
            "steps": steps, "h": h, "sigmas": sigmas, "seed": seed, "mode": mode,
            "params": {k: params[k] for k in sorted(params)}}
    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.replace_schema_metadata({DATASET_META_KEY: json.dumps(meta, sort_keys=True).encode()})
    return atomic_write_table(table, out)
