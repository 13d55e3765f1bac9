"""Checks of user-given numbers, with one message shape: ``<name> must be ..., got <value>``.

Every option, parameter and field that must be a whole number or a finite real
goes through :func:`whole_number` or :func:`real_number`, so the rule (``bool``
is not a number, NaN is not finite) and the wording are written once.
"""

from __future__ import annotations

import math
import numbers

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


__all__ = ["real_number", "whole_number"]
