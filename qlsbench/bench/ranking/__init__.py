"""Rank solvers from results files, in the style of qpbenchmark, on two tracks.

A *track* is a success criterion (:class:`Tolerances`) and the ranking it
gives. The **exact** track asks what a linear-algebra library promises: the
solver reports ``converged``, fidelity >= 0.99 and relative residual <= 1e-6.
The **variational** track asks what a variational (quantum or neural-state)
solver is built for: a solution came back (``converged``, ``max_iter`` or
``stalled``) with fidelity >= 0.99 and relative residual <= 1e-2; it judges the
read-out, not the solver's own claim (SPSA never "converges"). Each track ranks
every solver on its own: by success rate, then the shifted geometric mean
``shift * expm1(mean(log1p(v / shift)))`` of time (and of relative error),
given as "x best": how many times the best solver's its mean is, each pair of
solvers compared on the systems both ran (:func:`times_best`; where all ran
every system, the best solver is 1.0). The variational track also shows the
median fidelity, so a 0.95-fidelity solver and one that never started differ.

A solver is measured on the systems it was run on: a system it was not
configured for is *not run* and leaves its rates alone, and ``coverage`` says
which share of all the systems in the results it ran. A system it was run on
but declined (``skipped``: too many qubits, a matrix of the wrong structure)
counts as unsuccessful, like an error, a time-out or a crash. Unsuccessful
solves are charged rather than dropped, so a solver cannot look fast by failing
fast: their time is the time limit (or their own time without one) and their
error at least 1.0, the error of returning zero. Errors are floored at the
accuracy of the reference solution itself, ``cond * eps``.

A system is its content (``system_id``): one that occurs many times (a 2x2
contact system at 27 steps of a simulation, or the same system in two
datasets) is ranked once. Repeats of one system are reduced to one value
(mean success, median time, error and fidelity) before the means over
systems, so a solver run three times does not weigh three times as much.

Every success rate carries its 95 % Wilson score interval
(:func:`wilson_interval`) over the systems it counts, and a ranking row says
whether its interval overlaps the row above's (``overlaps_above``): two such
rows are not separated at 95 %, and their order is the tie-breakers'.

The null solvers (:mod:`qlsbench.solvers.nulls`, kind ``control``: returning
``b``, a random vector) are rows of every table, listed after the ranked
solvers and never ranked among them nor taken as the "best" of a ratio: a bar
a control meets is no verdict. Beside every row's rate stands what returning
``b`` does on the same systems: its fidelity there (``b_fidelity``) and on how
many of them null-b meets the bar (``null_b``).
"""

from __future__ import annotations

from qlsbench.bench.ranking._details import (
    failing_systems,
    resource_table,
    seed_table,
    success_by_dataset,
    system_outcomes,
)
from qlsbench.bench.ranking._kinds import solver_kinds
from qlsbench.bench.ranking._statistics import (
    overlaps_above,
    rate_columns,
    shifted_geometric_mean,
    times_best,
    wilson_interval,
)
from qlsbench.bench.ranking._success import LOW_ACCURACY, Tolerances, Track, mark_success, tracks
from qlsbench.bench.ranking._systems import QUBIT_BANDS, VARIATIONAL_COSTS, band_order, per_system, qubit_band
from qlsbench.bench.ranking._tables import (
    NULL_B,
    band_tables,
    leaderboard,
    null_b_note,
    rank_systems,
    ranking_rows,
    track_table,
)

__all__ = [
    "LOW_ACCURACY",
    "NULL_B",
    "QUBIT_BANDS",
    "Tolerances",
    "Track",
    "VARIATIONAL_COSTS",
    "band_order",
    "band_tables",
    "failing_systems",
    "leaderboard",
    "mark_success",
    "null_b_note",
    "overlaps_above",
    "per_system",
    "qubit_band",
    "rank_systems",
    "ranking_rows",
    "rate_columns",
    "resource_table",
    "seed_table",
    "shifted_geometric_mean",
    "solver_kinds",
    "success_by_dataset",
    "system_outcomes",
    "times_best",
    "track_table",
    "tracks",
    "wilson_interval",
]
