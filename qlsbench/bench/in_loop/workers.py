"""Runs side by side: one spawned worker process per job, each capped at its share of the cores."""

from __future__ import annotations

from qlsbench.bench.in_loop.options import InLoopOptions
from qlsbench.bench.in_loop.run import one_run
from qlsbench.solvers.processes import exit_with_parent


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
            yield one_run(options, spec, fidelity, seed, progress, out, 0)
        return
    import multiprocessing as mp
    import os
    from concurrent.futures import ProcessPoolExecutor

    from qlsbench import threads

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    share = threads.configured() or max(1, cores // jobs)  # the cores this process may use (a batch job's)
    context = mp.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_start_worker, initargs=(share, progress_lines(context, jobs))
    ) as pool:
        futures = [pool.submit(_worker_run, options, spec, fidelity, seed, progress, out) for fidelity, seed in runs]
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


def _worker_run(options: InLoopOptions, spec, fidelity, seed: int, progress: bool, out):
    """:func:`~qlsbench.bench.in_loop.run.one_run` in a worker, its progress bar on the worker's line."""
    return one_run(options, spec, fidelity, seed, progress, out, _LINE)


__all__ = ["progress_lines", "run_all"]
