"""Success against budget: what share of the systems a variational solver has solved after k cost evaluations.

Variational solvers record their read-out at marks of the cost-evaluation
budget (results columns ``progress_evaluations``, ``progress_fidelity``,
``progress_residual``). A solve counts as solved at ``k`` when its last
recorded read-out at or before ``k`` meets the tolerances, so one cut-off no
longer decides the verdict. With several seeds per system, the best seed and
the median seed give two curves. A solve that ended without read-outs (an
error, a crash, a time-out before the first mark) stays in the denominator as
never solved: leaving it out would flatter the solver.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances
from qlsbench.errors import InputError
from qlsbench.outcomes import Status


def _solved_at(row, budgets: np.ndarray, tol: Tolerances) -> np.ndarray:
    """Whether one solve's read-out meets ``tol`` at each budget (False before its first read-out, or without any)."""
    if row.progress_evaluations is None or len(row.progress_evaluations) == 0:
        return np.zeros(len(budgets), dtype=bool)
    k = np.asarray(row.progress_evaluations, dtype=float)
    ok = (np.asarray(row.progress_fidelity, dtype=float) >= tol.fidelity) & \
        (np.asarray(row.progress_residual, dtype=float) <= tol.residual)
    last = np.searchsorted(k, budgets, side="right") - 1  # the read-out the solve had reached by each budget
    return np.where(last >= 0, ok[np.maximum(last, 0)], False)


def success_curve(results: pd.DataFrame, tol: Tolerances = LOW_ACCURACY, budgets=None) -> pd.DataFrame:
    """Share of systems solved after each budget, per solver, over the best and the median seed.

    Parameters
    ----------
    results : pandas.DataFrame
        Results rows. Solvers with no progress in any row (classical ones) are
        left out; for the others every system they ran on counts (``skipped``
        rows do not: the solver refused the system), a solve without progress
        as never solved.
    tol : Tolerances
        Fidelity and residual a read-out must meet (its status is not asked).
    budgets : array-like, optional
        Cost-evaluation counts; default every recorded count.

    Returns
    -------
    pandas.DataFrame
        Columns ``solver``, ``evaluations``, ``best`` and ``median`` (shares in
        ``[0, 1]`` over the solver's systems, keyed by ``system_id``), ``systems``, ``seeds``.

    Raises
    ------
    InputError
        When no row has progress.
    """
    has = results["progress_evaluations"].map(lambda v: v is not None and len(v) > 0)
    if not has.any():
        raise InputError("no results row has progress read-outs (only variational solvers record them)")
    if budgets is None:
        budgets = np.unique(np.concatenate([np.asarray(v, dtype=float)
                                            for v in results.loc[has, "progress_evaluations"]]))
    rows = results[results["solver"].isin(results.loc[has, "solver"]) & (results["status"] != Status.SKIPPED)]
    budgets = np.asarray(budgets, dtype=float)
    out = []
    for solver, part in rows.groupby("solver", sort=True):
        per_system = []
        seeds = 0
        for _, solves in part.drop_duplicates(["system_id", "seed"]).groupby("system_id"):
            solved = np.array([_solved_at(r, budgets, tol) for r in solves.itertuples()], dtype=float)
            per_system.append((solved.max(axis=0), np.median(solved, axis=0)))
            seeds = max(seeds, len(solves))
        best = np.mean([b for b, _ in per_system], axis=0)
        median = np.mean([m for _, m in per_system], axis=0)
        out.append(pd.DataFrame({"solver": solver, "evaluations": budgets, "best": best, "median": median,
                                 "systems": len(per_system), "seeds": seeds}))
    return pd.concat(out, ignore_index=True)
