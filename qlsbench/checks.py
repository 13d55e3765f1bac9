"""Checks of user-given numbers, with one message shape: ``<name> must be ..., got <value>``.

Every option, parameter and field that must be a whole number or a finite real
goes through :func:`whole_number` or :func:`real_number`, so the rule (``bool``
is not a number, NaN is not finite) and the wording are written once.

:class:`Whole` and :class:`Real` hold one quantity's bounds and check it twice
from the same record: as a value (an options field, a config entry) and as
text on the command line, where a bad value ends as argparse's one line
(``argument --every: must be a whole number >= 1, got '0'``) before any work
starts, instead of a traceback from deep inside a simulation.
"""

from __future__ import annotations

import argparse
import math
import numbers
from dataclasses import dataclass

from qlsbench.errors import InputError


def _bounds(low, high, open_low: bool = False, open_high: bool = False) -> str:
    if low is not None and high is not None:
        left, right = ("(" if open_low else "["), (")" if open_high else "]")
        return f"in {left}{low:g}, {high:g}{right}"
    if low is not None:
        return f"{'>' if open_low else '>='} {low:g}"
    if high is not None:
        return f"{'<' if open_high else '<='} {high:g}"
    return "finite"


def whole_number(value, name: str, *, low: int | None = None, high: int | None = None,
                 error: type[Exception] = InputError) -> int:
    """``value`` as an ``int`` if it is a whole number within ``[low, high]``, else raise ``error``.

    Parameters
    ----------
    value : object
        What the user gave; ``bool`` and non-integral floats are refused.
    name : str
        How the message names it (an option, a parameter, a column).
    low, high : int, optional
        Inclusive bounds.
    error : Exception class
        Raised on a bad value (default :class:`~qlsbench.errors.InputError`).

    Returns
    -------
    int
    """
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if ok and (low is None or value >= low) and (high is None or value <= high):
        return int(value)
    if low is not None and high is not None:
        rule = f"an integer from {low} to {high}"
    elif low is not None or high is not None:
        rule = f"an integer {_bounds(low, high)}"
    else:
        rule = "an integer"
    raise error(f"{name} must be {rule}, got {value!r}")


def real_number(value, name: str, *, low: float | None = None, high: float | None = None,
                open_low: bool = False, open_high: bool = False, allow_inf: bool = False,
                error: type[Exception] = InputError) -> float:
    """``value`` as a ``float`` if it is a real number within the bounds, else raise ``error``.

    Parameters
    ----------
    value : object
        What the user gave; ``bool``, strings and NaN are refused, infinities
        unless ``allow_inf``.
    name : str
        How the message names it.
    low, high : float, optional
        Bounds, inclusive unless ``open_low`` / ``open_high``.
    allow_inf : bool
        Accept ``inf`` (when within the bounds).
    error : Exception class
        Raised on a bad value.

    Returns
    -------
    float
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        x = float(value)
        finite = math.isfinite(x) or (allow_inf and not math.isnan(x))
        above = low is None or (x > low if open_low else x >= low)
        below = high is None or (x < high if open_high else x <= high)
        if finite and above and below:
            return x
    rule = _bounds(low, high, open_low, open_high)
    kind = "a number" if allow_inf else "a finite number"
    raise error(f"{name} must be {kind}{'' if rule == 'finite' else ' ' + rule}, got {value!r}")


@dataclass(frozen=True)
class Whole:
    """A whole number in ``[low, high]`` (``high`` None: no upper bound)."""

    low: int = 0
    high: int | None = None

    def check(self, value, name: str, error: type[Exception] = InputError) -> int:
        """``value`` as an ``int``, or ``error`` naming ``name``."""
        return whole_number(value, name, low=self.low, high=self.high, error=error)

    def parse(self, text: str) -> int:
        """Command-line text as an ``int`` (an ``argparse`` type)."""
        bounds = f">= {self.low}" if self.high is None else f"from {self.low} to {self.high}"
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < self.low or (self.high is not None and value > self.high):
            raise argparse.ArgumentTypeError(f"must be a whole number {bounds}, got {text!r}")
        return value


@dataclass(frozen=True)
class Real:
    """A real number between ``low`` and ``high`` (ends open as flagged); finite unless ``infinite``."""

    low: float = -math.inf
    high: float = math.inf
    open_low: bool = False
    open_high: bool = False
    infinite: bool = False

    def check(self, value, name: str, error: type[Exception] = InputError) -> float:
        """``value`` as a ``float``, or ``error`` naming ``name``."""
        return real_number(value, name, low=None if self.low == -math.inf else self.low,
                           high=None if self.high == math.inf else self.high, open_low=self.open_low,
                           open_high=self.open_high, allow_inf=self.infinite, error=error)

    def parse(self, text: str) -> float:
        """Command-line text as a ``float`` (an ``argparse`` type)."""
        left = "(" if self.open_low or self.low == -math.inf else "["
        right = ")" if self.open_high or (self.high == math.inf and not self.infinite) else "]"
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        low_ok = value > self.low if self.open_low else value >= self.low
        high_ok = value < self.high if self.open_high else value <= self.high
        if math.isnan(value) or not (low_ok and high_ok) or (math.isinf(value) and not self.infinite):
            what = "a number" if self.infinite else "a finite number"
            raise argparse.ArgumentTypeError(f"must be {what} in {left}{self.low:g}, {self.high:g}{right}, got {text!r}")
        return value


#: Seeds of numpy's generators: non-negative.
SEED = Whole(0)
#: Counts of things: at least one.
COUNT = Whole(1)
#: Strictly positive, finite: time steps, time limits, tolerances that must bite.
POSITIVE = Real(0.0, open_low=True)
#: Non-negative, finite: friction, regularisation, truncation tolerances, noise levels.
NON_NEGATIVE = Real(0.0)
#: A fidelity bar.
FRACTION = Real(0.0, 1.0, open_low=True)


__all__ = ["COUNT", "FRACTION", "NON_NEGATIVE", "POSITIVE", "Real", "SEED", "Whole", "real_number", "whole_number"]
