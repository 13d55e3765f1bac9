"""Types of the command line's numeric options: each value is checked against its bounds as it is parsed.

A bad value then ends as argparse's one line naming the option (``argument
--every: must be a whole number >= 1, got '0'``) before any work starts,
instead of a traceback from deep inside a simulation, or a run that loops,
allocates without bound or scores every solve as an error.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def whole(low: int = 0, high: int | None = None) -> Callable[[str], int]:
    """A whole number in ``[low, high]``."""
    bounds = f">= {low}" if high is None else f"from {low} to {high}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be a whole number {bounds}, got {text!r}")
        return value

    return parse


def real(low: float = -math.inf, high: float = math.inf, *, open_low: bool = False, open_high: bool = False,
         infinite: bool = False) -> Callable[[str], float]:
    """A number in the interval from ``low`` to ``high`` (ends open as flagged); finite unless ``infinite``."""
    left = "(" if open_low or low == -math.inf else "["
    right = ")" if open_high or (high == math.inf and not infinite) else "]"
    interval = f"{left}{low:g}, {high:g}{right}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        inside = (value > low if open_low else value >= low) and (value < high if open_high else value <= high)
        if math.isnan(value) or not inside or (math.isinf(value) and not infinite):
            what = "a number" if infinite else "a finite number"
            raise argparse.ArgumentTypeError(f"must be {what} in {interval}, got {text!r}")
        return value

    return parse


#: Seeds of numpy's generators: non-negative.
SEED = whole(0)
#: Counts of things: at least one.
COUNT = whole(1)
#: Strictly positive, finite: time steps, time limits, tolerances that must bite.
POSITIVE = real(0.0, open_low=True)
#: Non-negative, finite: friction, regularisation, truncation tolerances, noise levels.
NON_NEGATIVE = real(0.0)
#: A fidelity bar.
FRACTION = real(0.0, 1.0, open_low=True)
