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


def number_text(value):
    """``value``, or the number its text spells when it is text Python's ``float()`` reads (``"1e6"``,
    ``" 2e-1 "``, ``"1_000"``, ``"inf"``): the one reading of a number given as text, on every path (flags,
    ``--option``, ``--param``, configuration files, environment variables). A whole number spelt without a
    point or exponent stays an ``int``; other text is returned as it is, for the check to refuse by name."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return value


def whole_number(
    value, name: str, *, low: int | None = None, high: int | None = None, error: type[Exception] = InputError
) -> int:
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
    number = number_text(value)
    if isinstance(number, float) and number.is_integer() and isinstance(value, str):
        number = int(number)  # "1e3" is a whole number spelt as a float; 4.0 given as a value stays refused
    ok = isinstance(number, numbers.Integral) and not isinstance(number, bool)
    if ok and (low is None or number >= low) and (high is None or number <= high):
        return int(number)
    if low is not None and high is not None:
        rule = f"an integer from {low} to {high}"
    elif low is not None or high is not None:
        rule = f"an integer {_bounds(low, high)}"
    else:
        rule = "an integer"
    raise error(f"{name} must be {rule}, got {value!r}")


def real_number(
    value,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
    allow_inf: bool = False,
    error: type[Exception] = InputError,
) -> float:
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
    number = number_text(value)
    ok = isinstance(number, numbers.Real) and not isinstance(number, bool)
    if ok:
        x = float(number)
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
        value = number_text(text)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or value < self.low or (self.high is not None and value > self.high):
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
        return real_number(
            value,
            name,
            low=None if self.low == -math.inf else self.low,
            high=None if self.high == math.inf else self.high,
            open_low=self.open_low,
            open_high=self.open_high,
            allow_inf=self.infinite,
            error=error,
        )

    def parse(self, text: str) -> float:
        """Command-line text as a ``float`` (an ``argparse`` type)."""
        left = "(" if self.open_low or self.low == -math.inf else "["
        right = ")" if self.open_high or (self.high == math.inf and not self.infinite) else "]"
        value = number_text(text)
        value = float(value) if isinstance(value, (int, float)) else math.nan
        low_ok = value > self.low if self.open_low else value >= self.low
        high_ok = value < self.high if self.open_high else value <= self.high
        if math.isnan(value) or not (low_ok and high_ok) or (math.isinf(value) and not self.infinite):
            what = "a number" if self.infinite else "a finite number"
            raise argparse.ArgumentTypeError(
                f"must be {what} in {left}{self.low:g}, {self.high:g}{right}, got {text!r}"
            )
        return value


# Every number a user gives has both bounds (tests/test_bounds.py walks every record and flag). The upper ones
# below are far beyond any use and only stop what would overflow or never end.

#: Largest magnitude of a generic quantity: far beyond any scene or tolerance, small enough that its square
#: (and a product of two) stays finite.
MAX_QUANTITY = 1e12
#: Seeds of numpy's generators: non-negative, and stored as 64-bit integers.
SEED = Whole(0, 2**63 - 1)
#: Counts of things: at least one, at most a billion (more is a typo, and would never end).
COUNT = Whole(1, 10**9)
#: Strictly positive, finite: time steps, tolerances that must bite, scales.
POSITIVE = Real(0.0, MAX_QUANTITY, open_low=True)
#: Non-negative, finite: friction, regularisation, truncation tolerances, noise levels.
NON_NEGATIVE = Real(0.0, MAX_QUANTITY)
#: A fidelity bar.
FRACTION = Real(0.0, 1.0, open_low=True)
#: A tolerance relative to the right-hand side: a relative residual of 1 is what x = 0 scores.
RELATIVE = Real(0.0, 1.0)
#: Seconds a solve or job may run: at most 10^7 (about 116 days; the standard library's waits overflow
#: beyond about 9e9).
TIME_LIMIT = Real(0.0, 1e7, open_low=True)


__all__ = [
    "COUNT",
    "FRACTION",
    "MAX_QUANTITY",
    "NON_NEGATIVE",
    "POSITIVE",
    "RELATIVE",
    "Real",
    "SEED",
    "TIME_LIMIT",
    "Whole",
    "number_text",
    "real_number",
    "whole_number",
]
