"""The pinned DEM-C systems' contact problems in FCLIB (``qlsbench export --format fclib``).

A pinned DEM-C system is one Newton subsystem of one time step; the step's contact problem, the LCP Newton
solved, is not in the pinned file. :func:`export_contact_problems` runs each of ``board.yaml``'s DEM-C sources
again up to its last pinned step (:func:`qlsbench.families.spheres.rerun_steps`) and writes, per pinned system,
its step's problem in FCLIB's global form (``<name>.fclib.hdf5``, readable by
:func:`qlsbench.physics.lcp.read_fclib`, Siconos and FCLIB's own tools), and ``fclib.json``: per system its step,
contacts and friction, and whether the run gave the pinned system back (the same content hash, as on the machine
that pinned the set) or how far its matrix is from it (another CPU or BLAS kernel moves the last bits, and a long
run can amplify them).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from qlsbench.bench.board.folder import SHIPPED, Board
from qlsbench.bench.board.pinning import source_options, source_runs
from qlsbench.errors import InputError
from qlsbench.text import plural


def export_contact_problems(dataset, out, board: Board = SHIPPED, progress: bool = False) -> list[Path]:
    """``<name>.fclib.hdf5`` in ``out`` for every DEM-C system of ``dataset`` (the pinned set, or part of it), and
    ``fclib.json`` beside them; the problem files written.

    Raises
    ------
    InputError
        If ``dataset`` holds no DEM-C system, or one that ``board``'s manifest does not pin (its run is unknown).
    """
    from qlsbench.data import atomic_write_text, iter_systems

    systems = [s for s in iter_systems(dataset) if s.meta.get("family") == "dem_c"]
    # By name: one system can sit in two groups (the same bytes on the v1 and v2 chains), each file naming it.
    pinned = {e["name"]: e for e in board.manifest()["systems"]}
    if not systems:
        raise InputError(f"{dataset}: no DEM-C system; FCLIB problems are written for the pinned set's DEM-C "
                         "systems (a simulation of your own writes its steps with `qlsbench simulate --fclib`)")
    unknown = sorted({s.system_id for s in systems
                      if pinned.get(s.meta.get("pinned_name"), {}).get("system_id") != s.system_id})
    if unknown:
        raise InputError(f"{dataset}: {plural(len(unknown), 'DEM-C system')} not in the pinned set (e.g. "
                         f"{unknown[0]}): FCLIB problems are rebuilt from board.yaml's sources, which only the "
                         "pinned systems name; `qlsbench simulate --fclib` writes a run of your own")
    out = Path(out)
    written, report = [], {}
    for run, options, label in _dem_c_runs(board):
        mine = {s.meta["pinned_name"]: s for s in systems if pinned[s.meta["pinned_name"]]["group"] == run["group"]
                and s.meta.get("scene") == label}
        if mine:
            written += _write_run(options, label, list(mine.values()), out, report, progress)
    atomic_write_text(out / "fclib.json", json.dumps(dict(sorted(report.items())), indent=1) + "\n")
    return written


def _dem_c_runs(board: Board):
    """``(run, options, label)`` of every DEM-C source of ``board.yaml``."""
    for family, i, run, group in source_runs(board.config):
        if family.name == "dem_c":
            options = source_options(family, i, run)
            yield {**run, "group": group}, options, family.label(options)


def _write_run(options, label: str, systems: list, out: Path, report: dict, progress: bool) -> list[Path]:
    """Run one source to its last pinned step, writing each pinned system's step problem; fill ``report``."""
    from qlsbench.data import atomic_write
    from qlsbench.families.spheres import rerun_steps
    from qlsbench.physics.lcp import write_fclib_global

    at_step = defaultdict(list)
    for system in systems:
        at_step[int(system.meta["step"])].append(system)
    written = []

    def sink(step: int, problem) -> None:
        for system in at_step[step]:
            name = system.meta["pinned_name"]
            title = f"qlsbench pinned {name}: {label} step {step} (mu {problem.mu:g}, {plural(problem.nc, 'contact')})"
            written.append(atomic_write(out / f"{name}.fclib.hdf5",
                                        lambda tmp: write_fclib_global(tmp, *problem.global_form(), title=title)))
            report[name] = {"file": f"{name}.fclib.hdf5", "scene": label, "step": step,
                            "newton_iter": int(system.meta["newton_iter"]), "contacts": int(problem.nc),
                            "mu": float(problem.mu)}

    rebuilt = {_key(s): s for s in rerun_steps(options, at_step, sink, label=label, progress=progress)}
    for system in systems:
        again = rebuilt.get(_key(system))
        report[system.meta["pinned_name"]].update(_agreement(system, again))
    return written


def _key(system) -> tuple:
    """Where a system sits in its run: step, Newton iteration, and (v2 chain) the phase that captured it."""
    return int(system.meta["step"]), int(system.meta["newton_iter"]), system.meta.get("phase", "")


def _agreement(pinned, again) -> dict:
    """Whether the rerun's system at the same step and Newton iteration is the pinned one."""
    if again is None:
        return {"reproduced": False, "matrix_rel_diff": None}
    if again.system_id == pinned.system_id:
        return {"reproduced": True, "matrix_rel_diff": 0.0}
    if again.A.shape != pinned.A.shape:
        return {"reproduced": False, "matrix_rel_diff": None}
    diff = abs(again.A - pinned.A).max() / max(abs(pinned.A).max(), np.finfo(float).tiny)
    return {"reproduced": False, "matrix_rel_diff": float(diff)}


__all__ = ["export_contact_problems"]
