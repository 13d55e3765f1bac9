"""The time yardstick of a comparison: the board's dense LU times over this machine's on the same systems.

Times come from different machines, so :func:`~qlsbench.bench.board.comparing.compare`
runs the board's reference solver here too and scales the new solver's times
by the ratio of the two LU timings (a :class:`Calibration`, one factor per
repeat of the reference run, so its spread shows).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.text import plural

#: The board's time yardstick, run again on the comparing machine by
#: :func:`~qlsbench.bench.board.comparing.compare`.
REFERENCE_SOLVER = "lu"
#: Repeats of the reference solver when calibrating: enough to show how much the factor moves.
CALIBRATION_REPEATS = 5


@dataclass
class Calibration:
    """The time yardstick of a comparison: board LU time / LU time here, per repeat of the reference run.

    Attributes
    ----------
    factors : list of float
        One factor per repeat of the reference solver here (the geometric mean
        over systems of board time / time here); empty when not calibrated.
    """

    factors: list[float]

    @property
    def factor(self) -> float:
        """The median factor (1.0 when not calibrated): what the new solver's times are multiplied by."""
        return float(np.median(self.factors)) if self.factors else 1.0

    def describe(self) -> str:
        if not self.factors:
            return "times as measured here, not calibrated to the board's machine"
        lo, hi = min(self.factors), max(self.factors)
        return (
            f"times scaled by {self.factor:.3g} (board's dense LU time / this machine's on the same systems; "
            f"{plural(len(self.factors), 'repeat')} ranged {lo:.3g} to {hi:.3g}, "
            f"spread {100 * (hi - lo) / self.factor:.0f} %)"
        )


def _lu_times(results: pd.DataFrame) -> pd.Series:
    lu = results[(results["solver_name"] == REFERENCE_SOLVER) & (results["status"] == Status.CONVERGED)]
    return lu.groupby("system_id")["wall_time"].median()


def time_factor(board_results: pd.DataFrame, local_reference: pd.DataFrame) -> float:
    """Geometric mean over systems of board LU time / local LU time."""
    ratio = (_lu_times(board_results) / _lu_times(local_reference)).dropna()
    if ratio.empty:
        raise InputError(f"no converged {REFERENCE_SOLVER!r} solves to calibrate times with")
    return float(np.exp(np.mean(np.log(ratio))))


def calibrate(published: pd.DataFrame, reference: pd.DataFrame) -> Calibration:
    """One :func:`time_factor` per repeat of the local reference run."""
    return Calibration([time_factor(published, part) for _, part in reference.groupby("repeat", sort=True)])
