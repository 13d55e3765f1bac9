"""Numbers over seeds: the median and spread of a stochastic result, and whether it is separated from a control.

A variational solve (VQLS, VNLS) is a stochastic result: the same system,
solved with another seed (repeat ``r`` uses seed ``seed + r``), gives another
fidelity. Every number of that kind is reported over its seeds as a median with
the interquartile range, and a claim that one configuration beats another is
only called reproduced where the spreads do not overlap.

Every verdict is a comparison with a control (:mod:`qlsbench.solvers.nulls`):
:func:`separation` says whether a solver's outcomes over seeds lie above a
null solver's by the one rule every page uses, and :func:`stopped` is the
stopping rule that decides how many seeds a configuration needs.
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
    def of(cls, values) -> Spread:
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

    def below(self, other: Spread) -> bool:
        """Whether this spread lies wholly below ``other``'s: upper quartile under the other's lower quartile."""
        return bool(self.n and other.n and self.q75 < other.q25)


def seed_spreads(
    results: pd.DataFrame, value: str = "fidelity", by: tuple[str, ...] = ("solver", "n_qubits")
) -> pd.DataFrame:
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
        rows.append(
            {
                **dict(zip(by, key)),
                "spread": spread,
                "n": spread.n,
                "median": spread.median,
                "q25": spread.q25,
                "q75": spread.q75,
            }
        )
    return pd.DataFrame(rows, columns=[*by, "spread", "n", "median", "q25", "q75"])


#: A solver is separated from a control when its interquartile range lies above the control's and a one-sided
#: Mann-Whitney rank test rejects "no better than the control" at this level.
SEPARATION_LEVEL = 0.05


@dataclass(frozen=True)
class Separation:
    """Whether a solver's outcomes over seeds lie above a control's (:func:`separation`).

    Attributes
    ----------
    control : str
        What the control is, in words ("returning b", "a random vector").
    iqr_above : bool
        The solver's lower quartile lies above the control's upper quartile.
    p_value : float
        One-sided Mann-Whitney U test of "the solver's outcomes are no larger than the control's" (NaN without
        outcomes on either side).
    n, n_control : int
        Outcomes (seeds) on each side.
    """

    control: str
    iqr_above: bool
    p_value: float
    n: int
    n_control: int

    @property
    def separated(self) -> bool:
        """Both parts of the rule hold."""
        return bool(self.iqr_above and self.p_value < SEPARATION_LEVEL)

    def text(self) -> str:
        """``separated from returning b (IQR above, p = 0.004)`` or ``not separated from returning b (...)``."""
        if not self.n or not self.n_control:
            return f"no outcomes to set against {self.control}"
        why = f"IQR {'above' if self.iqr_above else 'not above'}, one-sided rank test p = {self.p_value:.2g}"
        return f"{'' if self.separated else 'not '}separated from {self.control} ({why})"


def separation(
    values, control_values, control: str = "returning b", higher_is_better: bool = True, deterministic: bool = False
) -> Separation:
    """Whether ``values`` (a solver's outcomes over seeds) lie above ``control_values`` (a null solver's).

    The rule: the solver's interquartile range lies wholly above the control's
    (lower quartile over upper quartile) and a one-sided Mann-Whitney U test
    gives p < :data:`SEPARATION_LEVEL`. A deterministic control (``null-b``
    gives the same answer at every seed) may be passed as one value; it is
    counted once per solver seed, as if run at each. NaN outcomes are dropped.
    ``higher_is_better=False`` judges a quantity where smaller is better (an
    error): the solver must lie below the control. ``deterministic=True``
    says the solver's outcome does not depend on its seed (a classical
    solver, run once): its one value likewise counts once per control seed,
    and at least :data:`FIRST_SEEDS` times, so an exact difference between
    two deterministic outcomes is a separation.
    """
    from scipy.stats import mannwhitneyu

    sign = 1.0 if higher_is_better else -1.0
    v = sign * np.asarray(values, dtype=float)
    c = sign * np.atleast_1d(np.asarray(control_values, dtype=float))
    v, c = v[~np.isnan(v)], c[~np.isnan(c)]
    if deterministic and len(v) == 1:
        v = np.repeat(v, max(len(c), FIRST_SEEDS))
    if len(c) == 1 and len(v) > 1:
        c = np.repeat(c, len(v))
    if not len(v) or not len(c):
        return Separation(control, False, float("nan"), len(v), len(c))
    mine, theirs = Spread.of(v), Spread.of(c)
    if np.ptp(np.concatenate([v, c])) == 0:  # every outcome the same: nothing lies above anything
        return Separation(control, False, 1.0, len(v), len(c))
    p = float(mannwhitneyu(v, c, alternative="greater").pvalue)
    return Separation(control, bool(theirs.below(mine)), p, len(v), len(c))


#: The seed stopping rule: seeds are added until the bootstrap 95 % interval of the median is narrower than this
#: (in the outcome's own units: a fidelity) or :data:`MAX_SEEDS` have run.
MEDIAN_INTERVAL_WIDTH = 0.1
MAX_SEEDS = 20
FIRST_SEEDS = 5


def median_interval(values, level: float = 0.95, resamples: int = 2000) -> tuple[float, float]:
    """The percentile-bootstrap ``level`` interval of the median of ``values`` (NaN dropped; seeded, so repeatable)."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if len(v) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(0)
    medians = np.median(rng.choice(v, size=(resamples, len(v)), replace=True), axis=1)
    low, high = np.percentile(medians, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(low), float(high)


#: The seed counts at which the stopping rule is checked, in turn.
SEED_STEPS = (FIRST_SEEDS, 10, 15, MAX_SEEDS)


@dataclass(frozen=True)
class SeedRun:
    """The outcomes of a configuration over every seed that ran, with what the stopping rule asked for
    (:func:`stopped`). The rule decides how many seeds to run, never which are shown: a seed run past it counts.

    Attributes
    ----------
    values : numpy.ndarray
        Every outcome, in seed order.
    available : int
        Seeds that ran (``len(values)``).
    met : bool
        Whether the rule was met: the median's bootstrap interval over the first ``needed`` seeds was narrower
        than the rule's width at one of :data:`SEED_STEPS`; ``False`` when it never was.
    needed : int or None
        The seeds the rule asked for (the first count of :data:`SEED_STEPS` at which it was met); ``None`` when
        it was not met.
    """

    values: np.ndarray
    available: int
    met: bool
    needed: int | None = None

    @property
    def spread(self) -> Spread:
        return Spread.of(self.values)

    @property
    def n(self) -> int:
        return self.spread.n

    def text(self, fmt: str = ".3f") -> str:
        """The spread's text, marked ``†`` where the rule's width was not met and ``bimodal`` where it is."""
        marks = ("" if self.met else " †") + (" bimodal" if bimodal(self.values) else "")
        return self.spread.text(fmt) + marks


def stopped(values, width: float = MEDIAN_INTERVAL_WIDTH) -> SeedRun:
    """The stopping rule applied to outcomes in seed order: the first of 5, 10, 15, 20 seeds at which the median's
    bootstrap 95 % interval is narrower than ``width`` is what the rule asked for; every outcome is kept."""
    v = np.asarray(values, dtype=float)
    for n in SEED_STEPS:
        if n <= len(v) and _narrow(v[:n], width):
            return SeedRun(v, len(v), True, n)
    return SeedRun(v, len(v), False)


def _narrow(values: np.ndarray, width: float) -> bool:
    low, high = median_interval(values)
    return bool(high - low < width)


def bimodal(values, min_share: float = 0.2, min_gap: float = 0.05) -> bool:
    """Whether the outcomes fall in two clusters: the widest gap between sorted neighbours is at least half their
    range, three times their median gap and ``min_gap`` (in the outcome's units), with at least ``min_share`` of
    the outcomes (and two) on each side. The median and IQR of such outcomes describe neither cluster; a page
    names them."""
    v = np.asarray(values, dtype=float)
    v = np.sort(v[~np.isnan(v)])
    if len(v) < 4:
        return False
    gaps = np.diff(v)
    k = int(np.argmax(gaps))
    side = max(2, int(np.ceil(min_share * len(v))))
    return bool(
        gaps[k] >= max(0.5 * np.ptp(v), 3 * np.median(gaps), min_gap) and k + 1 >= side and len(v) - k - 1 >= side
    )


__all__ = [
    "MAX_SEEDS",
    "MEDIAN_INTERVAL_WIDTH",
    "SEED_STEPS",
    "SEPARATION_LEVEL",
    "SeedRun",
    "Separation",
    "Spread",
    "bimodal",
    "median_interval",
    "seed_spreads",
    "separation",
    "stopped",
]
