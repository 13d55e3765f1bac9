"""Success against budget: what share of the systems a variational solver has solved after k cost evaluations
(or t seconds).

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

from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances, qubit_band
from qlsbench.errors import InputError
from qlsbench.outcomes import Status

#: What a budget is counted in, and the results column that records it at each read-out. ``samples`` are
#: measurement outcomes drawn: shots times circuits for a circuit solver, Monte Carlo samples for VNLS, counted
#: at each read-out as its cost evaluations times the solve's samples per evaluation; a solve that drew none
#: (exact expectation values or state vectors) has no samples axis.
AXES = {"evaluations": "progress_evaluations", "seconds": "progress_seconds", "samples": "progress_evaluations"}


def samples_per_evaluation(row) -> float:
    """Measurement outcomes one cost evaluation drew (NaN for a solve that drew none, or did not say).

    ``circuit_executions`` times ``shots`` for circuit solvers, ``mc_samples``
    for VNLS, each divided by the solve's ``cost_evaluations``.
    """

    def value(name):
        v = getattr(row, name, None)
        return float(v) if v is not None and not pd.isna(v) else 0.0

    drawn = value("circuit_executions") * value("shots") + value("mc_samples")
    evaluations = value("cost_evaluations")
    return drawn / evaluations if drawn > 0 and evaluations > 0 else float("nan")


def first_fidelity(rows: pd.DataFrame) -> np.ndarray:
    """Each solve's fidelity at its first cost evaluation (its first progress read-out: where training started);
    NaN for a solve without read-outs (a classical solver, HHL, the null solvers)."""
    if "progress_fidelity" not in rows:
        return np.full(len(rows), np.nan)
    return np.array([v[0] if v is not None and len(v) else np.nan for v in rows["progress_fidelity"]], dtype=float)


def budget_marks(row, axis: str) -> np.ndarray | None:
    """One solve's read-out marks on ``axis`` (``None`` when it has none there)."""
    marks = getattr(row, AXES[axis])
    if marks is None or len(marks) == 0:
        return None
    k = np.asarray(marks, dtype=float)
    if axis == "samples":
        rate = samples_per_evaluation(row)
        return None if np.isnan(rate) else k * rate
    return k


def _solved_at(k: np.ndarray | None, row, budgets: np.ndarray, tol: Tolerances, above: float = -np.inf) -> np.ndarray:
    """Whether one solve's read-out, at marks ``k`` (:func:`budget_marks`), meets ``tol`` at each budget, with a
    fidelity above ``above`` (a control's on this system); False before its first read-out, or without any."""
    if k is None:
        return np.zeros(len(budgets), dtype=bool)
    fidelity = np.asarray(row.progress_fidelity, dtype=float)
    ok = (
        (fidelity >= tol.fidelity)
        & (fidelity > above)
        & (np.asarray(row.progress_residual, dtype=float) <= tol.residual)
    )
    last = np.searchsorted(k, budgets, side="right") - 1  # the read-out the solve had reached by each budget
    return np.where(last >= 0, ok[np.maximum(last, 0)], False)


#: The columns :func:`success_curve` reads; the rest (solutions, histories) is left alone, since iterating
#: over rows of every column cost seconds per curve.
_CURVE_COLUMNS = (
    "solver",
    "system_id",
    "seed",
    "status",
    "n_qubits",
    "progress_evaluations",
    "progress_fidelity",
    "progress_residual",
    "progress_seconds",
    "circuit_executions",
    "shots",
    "mc_samples",
    "cost_evaluations",
)


def success_curve(
    results: pd.DataFrame,
    tol: Tolerances = LOW_ACCURACY,
    budgets=None,
    *,
    axis: str = "evaluations",
    by_band: bool = False,
    above: dict | None = None,
) -> pd.DataFrame:
    """Share of systems solved after each budget, per solver (and qubit band), over the best and the median seed.

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
        Budgets on ``axis``; default every recorded one.
    axis : str
        ``evaluations`` (cost evaluations), ``seconds`` (wall time since the
        solve started; rows of results schema 3 and older have none) or
        ``samples`` (measurement outcomes drawn, :func:`samples_per_evaluation`).
    by_band : bool
        One curve per qubit band (:data:`~qlsbench.bench.ranking.QUBIT_BANDS`) instead of one over all systems.
    above : dict, optional
        ``system_id`` -> a control's fidelity there (``null-b``'s: what returning ``b`` scores); a read-out
        counts only above it, so a bar the control meets by itself does not count as solved.

    Returns
    -------
    pandas.DataFrame
        Columns ``solver``, ``band`` (``all`` unless ``by_band``), the budget
        (named by ``axis``), ``best`` and ``median`` (shares in ``[0, 1]`` over
        the solver's systems, keyed by ``system_id``), ``systems``, ``seeds``.

    Raises
    ------
    InputError
        When no row has progress on that axis.
    """
    if axis not in AXES:
        raise InputError(f"budget axis must be one of {', '.join(AXES)}, got {axis!r}")
    if AXES[axis] not in results:
        results = results.assign(**{AXES[axis]: None})
    results = results[[c for c in _CURVE_COLUMNS if c in results]]
    marks = pd.Series([budget_marks(row, axis) for row in results.itertuples()], index=results.index, dtype=object)
    has = marks.map(lambda v: v is not None)
    if not has.any():
        why = {
            "seconds": "; wall time since results schema 4",
            "samples": "; samples only where shots or Monte Carlo samples were drawn",
        }.get(axis, "")
        raise InputError(f"no results row has progress read-outs in {axis} (only variational solvers record them{why})")
    if budgets is None:
        budgets = np.unique(np.concatenate(list(marks[has])))
    rows = results[results["solver"].isin(results.loc[has, "solver"]) & (results["status"] != Status.SKIPPED)]
    rows = rows.assign(band=rows["n_qubits"].map(qubit_band) if by_band else "all")
    budgets = np.asarray(budgets, dtype=float)
    # Each solve's verdict at every budget, once: a band's curves and the one over all systems share them.
    above = above or {}
    solved_at = {
        r.Index: _solved_at(marks[r.Index], r, budgets, tol, above.get(r.system_id, -np.inf)).astype(float)
        for r in rows.itertuples()
    }
    out = []
    for (solver, band), part in rows.groupby(["solver", "band"], sort=True):
        per_system = []
        seeds = 0
        distinct = part.drop_duplicates(["system_id", "seed"])
        for _, positions in sorted(distinct.groupby("system_id").indices.items()):  # systems in order: same sums
            solved = np.array([solved_at[i] for i in distinct.index[positions]])
            per_system.append((solved.max(axis=0), np.median(solved, axis=0)))
            seeds = max(seeds, len(positions))
        best = np.mean([b for b, _ in per_system], axis=0)
        median = np.mean([m for _, m in per_system], axis=0)
        out.append(
            pd.DataFrame(
                {
                    "solver": solver,
                    "band": band,
                    axis: budgets,
                    "best": best,
                    "median": median,
                    "systems": len(per_system),
                    "seeds": seeds,
                }
            )
        )
    return pd.concat(out, ignore_index=True)
