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
(:mod:`qlsbench.bench._checkpoints`) saves itself between steps and resumes. There is
no silent fallback to exact linear algebra: the stepper's own LCP fallbacks
(Lemke, the proximal method) are the only ones, and each step says whether one
was used.

The package, one module per job: :mod:`~qlsbench.bench.in_loop.options` (the options, the scene's from the
families, whose worlds step the simulations: :class:`~qlsbench.families.base.LoopWorld`),
:mod:`~qlsbench.bench.in_loop.solver` (the solver as a Newton direction), :mod:`~qlsbench.bench.in_loop.run`
(one run beside its reference), :mod:`~qlsbench.bench.in_loop.sweep` (seeds and fidelity levels),
:mod:`~qlsbench.bench.in_loop.workers` (runs side by side) and :mod:`~qlsbench.bench.in_loop.results_file`.
"""

from qlsbench.bench.in_loop.options import (
    FALLBACK_BOUND,
    LOOP_FAMILIES,
    WARM_STARTS,
    InLoopOptions,
    LoopOptions,
    file_options,
)
from qlsbench.bench.in_loop.results_file import (
    IN_LOOP_META_KEY,
    merge_in_loop,
    read_in_loop,
    success_bar,
    write_in_loop,
)
from qlsbench.bench.in_loop.run import STEP_COLUMNS, divergence_step, run_in_loop, world
from qlsbench.bench.in_loop.solver import ADDITIVE_RESOURCES, LoopAborted, LoopSolver, SolveCount
from qlsbench.bench.in_loop.sweep import add_seeds, check_sweep, sweep
from qlsbench.bench.in_loop.workers import progress_lines, run_all

__all__ = [
    "ADDITIVE_RESOURCES",
    "FALLBACK_BOUND",
    "IN_LOOP_META_KEY",
    "LOOP_FAMILIES",
    "InLoopOptions",
    "LoopAborted",
    "LoopOptions",
    "LoopSolver",
    "STEP_COLUMNS",
    "SolveCount",
    "WARM_STARTS",
    "add_seeds",
    "check_sweep",
    "divergence_step",
    "file_options",
    "merge_in_loop",
    "progress_lines",
    "read_in_loop",
    "run_all",
    "run_in_loop",
    "success_bar",
    "sweep",
    "world",
    "write_in_loop",
]
