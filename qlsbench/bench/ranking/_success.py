"""What counts as a successful solve: a track's tolerances, and the success, charged time and error of each row."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from qlsbench.checks import FRACTION, POSITIVE
from qlsbench.outcomes import Status
from qlsbench.solvers.base import RETURNED


@dataclass(frozen=True)
class Tolerances:
    """What counts as a successful solve, and the geometric-mean shift.

    Attributes
    ----------
    fidelity : float
        Minimum state fidelity with the reference solution.
    residual : float
        Maximum relative residual ``||A x - b|| / ||b||``.
    shift : float
        Shift of the geometric means (time in milliseconds, relative error).
    require_converged : bool
        Whether the solver must also report ``converged``; otherwise
        ``max_iter`` and ``stalled`` solutions are judged by their accuracy alone.
    """

    fidelity: float = 0.99
    residual: float = 1e-6
    shift: float = 10.0
    require_converged: bool = True

    def __post_init__(self) -> None:
        FRACTION.check(self.fidelity, "fidelity tolerance")
        POSITIVE.check(self.residual, "residual tolerance")
        POSITIVE.check(self.shift, "shift")

    def describe(self) -> str:
        """One line for the leaderboard header."""
        status = (
            "status `converged`"
            if self.require_converged
            else "a solution returned (`converged`, `max_iter` or `stalled`)"
        )
        return f"{status}, fidelity >= {self.fidelity:g} and relative residual <= {self.residual:g}"


#: The variational track's criterion (qpbenchmark's "low accuracy"): what variational solvers are built for.
LOW_ACCURACY = Tolerances(fidelity=0.99, residual=1e-2, require_converged=False)


@dataclass(frozen=True)
class Track:
    """A named success criterion and what the page says of it."""

    name: str
    tol: Tolerances
    intuition: str


def tracks(tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY) -> tuple[Track, Track]:
    """The exact and the variational track for these two criteria."""
    return (
        Track(
            "exact",
            tol,
            "Could this solver replace a direct solve? Only a solution accurate to the "
            "residual bar, that the solver itself reports as converged, counts.",
        ),
        Track(
            "variational",
            low,
            "Did the solver's read-out land on the answer? A returned state with high "
            "fidelity and a residual a variational method can reach counts, whatever "
            "the optimiser reported.",
        ),
    )


def mark_success(results: pd.DataFrame, tol: Tolerances) -> pd.DataFrame:
    """Add ``success``, penalised ``time_ms``, penalised ``error``, ``fidelity_or_zero`` and ``measured_ms`` (the
    wall time of a solve that returned a solution, NaN for the others) columns."""
    df = results.copy()
    statuses = (Status.CONVERGED,) if tol.require_converged else RETURNED
    returned = df["status"].isin(RETURNED)
    df["success"] = (
        df["status"].isin(statuses) & (df["fidelity"] >= tol.fidelity) & (df["rel_residual"] <= tol.residual)
    )
    # A crashed solve took its process with it, and its time: charge the solver's longest known solve.
    wall = df["wall_time"].fillna(df.groupby("solver")["wall_time"].transform("max")).fillna(0.0)
    limit = df["time_limit"].where(df["time_limit"].notna(), wall)
    df["time_ms"] = 1e3 * wall.where(df["success"], np.maximum(limit, wall))
    # x_ref is itself a float64 direct solve, accurate only to about cond * eps:
    # smaller errors cannot be told apart, and ranking them would reward luck.
    cond = df["cond"].where(np.isfinite(df["cond"]), 1.0)
    floor = np.finfo(float).eps * np.maximum(cond, 1.0)
    err = df["rel_error"].where(np.isfinite(df["rel_error"]), 1.0)
    err = np.maximum(err, floor)
    df["error"] = err.where(df["success"], np.maximum(err, 1.0))
    # A solve that returned nothing (error, time-out, refusal) has no state: fidelity 0 in the medians.
    df["fidelity_or_zero"] = df["fidelity"].where(returned & df["fidelity"].notna(), 0.0)
    # What the solve took, where it came back with a solution: the ranking's time charges failures the limit,
    # and a page that showed only that would give the limit as a variational solver's time.
    df["measured_ms"] = 1e3 * df["wall_time"].where(returned)
    return df
