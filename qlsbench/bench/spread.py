"""Numbers over seeds: the median and spread of a stochastic result, and whether two spreads are separated.

A variational solve (VQLS, VNLS) is a stochastic result: the same system,
solved with another seed (repeat ``r`` uses seed ``seed + r``), gives another
fidelity. Every number of that kind is reported over its seeds as a median with
the interquartile range, and a claim that one configuration beats another is
only called reproduced where the spreads do not overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Spread:
    """Median and quartiles of a sample (NaN where the sample is empty).

    Attributes
    ----------
    n : int
        Sample size (seeds).
    median, q25, q75, low, high : float
        Median, lower and upper quartiles (linear interpolation), minimum and maximum.
    """

    n: int
    median: float
    q25: float
    q75: float
    low: float
    high: float

    @classmethod
    def of(cls, values) -> "Spread":
        """The spread of ``values``; NaN entries (a solve that returned nothing) are dropped."""
        v = np.asarray(values, dtype=float)
        v = v[~np.isnan(v)]
        if not len(v):
            return cls(0, *([float("nan")] * 5))
        q25, median, q75 = np.percentile(v, [25, 50, 75])
        return cls(len(v), float(median), float(q25), float(q75), float(v.min()), float(v.max()))

    def text(self, fmt: str = ".3f") -> str:
        """``0.620 [0.480, 0.740] (n = 5)``: median, interquartile range and seeds; ``—`` when empty."""
        if not self.n:
            return "—"
        if self.n == 1:
            return f"{self.median:{fmt}} (n = 1)"
        return f"{self.median:{fmt}} [{self.q25:{fmt}}, {self.q75:{fmt}}] (n = {self.n})"

    def below(self, other: "Spread") -> bool:
        """Whether this spread lies wholly below ``other``'s: upper quartile under the other's lower quartile."""
        return bool(self.n and other.n and self.q75 < other.q25)


def seed_spreads(results: pd.DataFrame, value: str = "fidelity",
                 by: tuple[str, ...] = ("solver", "n_qubits")) -> pd.DataFrame:
    """One row per group of ``by`` with the :class:`Spread` of ``value`` over its rows (its seeds).

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of results files, one per (system, repeat).
    value : str
        The column summarised.
    by : tuple of str
        Grouping columns; one system per group gives a spread over seeds.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``spread`` (a :class:`Spread`), ``n``, ``median``, ``q25`` and ``q75``.
    """
    rows = []
    for key, group in results.groupby(list(by), sort=True):
        spread = Spread.of(group[value])
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), "spread": spread, "n": spread.n, "median": spread.median,
                     "q25": spread.q25, "q75": spread.q75})
    return pd.DataFrame(rows, columns=[*by, "spread", "n", "median", "q25", "q75"])


__all__ = ["Spread", "seed_spreads"]
