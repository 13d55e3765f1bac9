"""Sweeps: a solver over seeds (or the oracle over fidelity levels), checked before the first run, and seeds
added to a finished sweep's file."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from qlsbench.bench.in_loop.options import InLoopOptions, loop_families
from qlsbench.bench.in_loop.results_file import read_in_loop, write_in_loop
from qlsbench.bench.in_loop.run import check_warm_start, solver_of
from qlsbench.bench.in_loop.workers import run_all
from qlsbench.errors import InputError


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
        check_warm_start(options, solver_of(spec, fidelity)[0])
    check = loop_families()[options.family].loop.check
    if check is not None:  # the scene builds with its parameters
        check(options)


def sweep(
    options: InLoopOptions,
    spec,
    *,
    seeds: int = 1,
    fidelities=(),
    progress: bool = False,
    first_seed: int = 0,
    out=None,
    jobs: int = 1,
) -> tuple[pd.DataFrame, list[dict]]:
    """Run ``spec`` in the loop over seeds ``first_seed..seeds-1``, or the oracle so at each of ``fidelities``.

    With ``out`` (the results file to be written) each run saves a checkpoint beside it
    (:func:`~qlsbench.bench._checkpoints.checkpoint_path`), so a killed sweep run again resumes where it was;
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


def add_seeds(
    path, options: InLoopOptions, spec, *, seeds: int, fidelities=(), progress: bool = False, jobs: int = 1
) -> tuple[pd.DataFrame, list[dict]]:
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
        raise InputError(
            f"{path} does not exist: there is no finished in-loop run to add seeds to (without "
            "--add-seeds, in-loop writes it)"
        )
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

    from qlsbench.bench._results import jsonable

    def plain(value):
        return json.loads(json.dumps(value, sort_keys=True, default=jsonable))

    # a file written before an option existed ran with its default
    held = {**plain(dataclasses.asdict(InLoopOptions())), **meta["options"]}
    differ = sorted(k for k, v in plain(dataclasses.asdict(options)).items() if held.get(k) != v)
    if differ:
        raise InputError(
            f"{path}: written with other in-loop options ({', '.join(differ)}): seeds can only be "
            "added to a run of the same options"
        )
    levels = sorted({float(f) for f in fidelities} or {np.nan}, key=str)
    for run in meta["runs"]:
        given = {**spec.options, **({"fidelity": run["fidelity"]} if fidelities else {})}
        if run["solver"] != spec.label or run["solver_name"] != spec.name or run["solver_options"] != plain(given):
            raise InputError(
                f"{path}: a run of solver {run['solver']!r} with options {run['solver_options']}, "
                f"not {spec.label!r} with {plain(given)}"
            )
    held_levels = sorted({float(r["fidelity"]) for r in meta["runs"]}, key=str)
    if [str(x) for x in held_levels] != [str(x) for x in levels]:
        raise InputError(f"{path}: holds fidelity levels {held_levels}, not {levels}")


def _seeds_held(path, summaries: list[dict]) -> int:
    """How many seeds each level of the file holds (``0..k-1`` at every level, else refused)."""
    by_level: dict[str, list[int]] = {}
    for run in summaries:
        by_level.setdefault(str(float(run["fidelity"])), []).append(int(run["seed"]))
    counts = {len(s) for s in by_level.values()}
    if len(counts) != 1 or any(sorted(s) != list(range(len(s))) for s in by_level.values()):
        raise InputError(f"{path}: its runs' seeds are not 0..k-1 at every level ({by_level}): seeds cannot be added")
    return counts.pop()


__all__ = ["add_seeds", "check_sweep", "sweep"]
