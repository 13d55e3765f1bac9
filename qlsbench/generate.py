"""Dataset generators: run a problem source and write its systems to Parquet.

This is where physics meets files: ``qlsbench.physics`` produces subsystems
through a callback, and this module writes them with ``qlsbench.data``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from qlsbench.data import write_systems
from qlsbench.physics import StepOptions, SubsystemRecorder, build_scene, export_systems, simulate
from qlsbench.physics.minmap import NewtonOptions


def scene_label(scene: str, n_spheres: int, mu: float) -> str:
    """Dataset scene name, e.g. ``sedimentation-n32-mu0.3``."""
    return f"{scene}-n{n_spheres}-mu{mu:g}"


def simulate_dataset(out_dir: str | os.PathLike, *, scene: str = "sedimentation", n_spheres: int = 32,
                     packing: float = 0.2, mu: float = 0.0, steps: int = 400, seed: int = 0, h: float = 1e-3, s: int = 8,
                     every: int = 1, kappa_cap: float | None = 1e12, max_systems: int | None = None,
                     newton_tol: float = 1e-10, newton_max_iter: int = 100, regularization: float = 0.0,
                     progress: bool = True) -> dict:
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
    progress : bool
        Show a progress bar.

    Returns
    -------
    dict
        The dataset metadata written to the file: settings, export counts,
        condition-number range, steps per second and Newton statistics.
    """
    newton = NewtonOptions(tol=newton_tol, max_iter=newton_max_iter, regularization=regularization)
    options = StepOptions(h=h, mu=mu, s=s, newton=newton)
    state = build_scene(scene, n_spheres=n_spheres, packing=packing, seed=seed)
    recorder = SubsystemRecorder(every=every, max_systems=max_systems)
    t0 = time.perf_counter()
    reports = simulate(state, steps, options, capture=recorder, progress=progress)
    elapsed = time.perf_counter() - t0
    label = scene_label(scene, n_spheres, mu)
    systems, stats = export_systems(recorder, kappa_cap=kappa_cap, seed=seed, scene=label)
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
    # Wall-clock facts vary run to run; they are returned, not written, so files stay byte-identical.
    write_systems(systems, Path(out_dir) / "part-0000.parquet", metadata=meta)
    return {**meta, "steps_per_second": steps / elapsed if elapsed > 0 else float("inf")}
