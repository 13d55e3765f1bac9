"""The ranking's statistics: shifted geometric means and the "x best" ratios made of them, Wilson intervals of
success rates and whether consecutive rows' intervals overlap."""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.errors import InputError


def shifted_geometric_mean(values: np.ndarray, shift: float) -> float:
    """``exp(mean(log(v + shift))) - shift``, evaluated without cancellation.

    The textbook form subtracts two numbers near ``shift`` and loses every
    digit when the values are far below it (relative errors of 1e-14 against
    a shift of 10). The equivalent ``shift * expm1(mean(log1p(v / shift)))``
    keeps full relative precision; for values far below the shift it tends to
    their arithmetic mean.
    """
    v = np.asarray(values, dtype=float)
    return float(shift * np.expm1(np.mean(np.log1p(v / shift))))


def wilson_interval(successes, trials, z: float = 1.96):
    """Wilson score interval of the success rate ``successes / trials`` (95 % for the default ``z``).

    The board's rates count **systems**, not solves: ``trials`` is the number
    of systems the rate is over (in a ranking, those the solver was run on,
    declined ones included) and ``successes`` the sum over them of the share
    of that system's repeats (seeds) meeting the bar, so a system solved by 2
    of its 3 seeds adds 2/3. Repeats of one
    system are not independent trials (a deterministic solver repeats one
    answer), and counting them as such would narrow the interval for nothing.

    Parameters
    ----------
    successes : float or array_like
        Successes, ``0 <= successes <= trials``; may be fractional (see above).
    trials : int or array_like
        Trials (systems); where it is 0 the interval is NaN.
    z : float
        Standard-normal quantile of the two-sided level (1.96: 95 %).

    Returns
    -------
    (low, high) : tuple of float or of numpy.ndarray
        ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with
        ``p = successes / trials``, in [0, 1]; floats for scalar input.
        Unlike the normal approximation it is not empty at 0 or n successes.
    """
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    if np.any(k < 0) or np.any(k > n * (1 + 1e-12)) or np.any(n < 0):
        raise InputError(f"successes must lie in [0, trials], got {successes} of {trials}")
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 trials: NaN
        p, z2n = np.minimum(k / n, 1.0), z * z / n
        # centre - half cancels near p = 0 (and 1 - high near p = 1); the roots' product p² / (1 + z²/n) does not
        low = p * p / ((1 + z2n) * _wilson_upper(p, n, z))
        high = 1 - (1 - p) ** 2 / ((1 + z2n) * _wilson_upper(1 - p, n, z))
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def _wilson_upper(p, n, z: float):
    """The upper Wilson bound of rate ``p`` over ``n`` trials: a sum of positive terms, free of cancellation."""
    z2n = z * z / n
    return (p + z2n / 2 + z * np.sqrt(p * (1 - p) / n + z2n / (4 * n))) / (1 + z2n)


def rate_columns(success: pd.Series, by, name: str = "success_rate") -> pd.DataFrame:
    """Per group of per-system ``success`` (share of repeats solved): the rate ``name`` over systems and its
    Wilson interval, ``name_ci_low`` and ``name_ci_high`` (:func:`wilson_interval`: the trials are systems)."""
    g = success.groupby(by, sort=True)
    out = pd.DataFrame({name: g.mean()})
    out[f"{name}_ci_low"], out[f"{name}_ci_high"] = wilson_interval(g.sum().to_numpy(), g.size().to_numpy())
    return out


def overlaps_above(low, high) -> np.ndarray:
    """Whether each row's interval ``[low, high]`` meets the previous row's (never for the first row).

    Rows are in rank order, so a True row is not separated at the
    interval's level from the one ranked just above it.
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    out = np.zeros(len(low), dtype=bool)
    out[1:] = np.maximum(low[1:], low[:-1]) <= np.minimum(high[1:], high[:-1])
    return out


def _grouped_sgm(values: pd.Series, keys: pd.Series, shift: float) -> pd.Series:
    """:func:`shifted_geometric_mean` of ``values`` per key (sorted keys), each group's values in their order.

    One sort and one pass of slices instead of a pandas ``apply`` (a Python
    call per group through pandas' machinery); the arithmetic per group is
    :func:`shifted_geometric_mean`'s on the same values in the same order, so
    the means are the same to the last bit.
    """
    codes, uniques = pd.factorize(keys, sort=True)
    if len(codes) == 0:
        return pd.Series([], index=pd.Index(uniques, name=keys.name), dtype=float)
    order = np.argsort(codes, kind="stable")
    parts = np.split(values.to_numpy(dtype=float)[order], np.flatnonzero(np.diff(codes[order])) + 1)
    return pd.Series([shifted_geometric_mean(part, shift) for part in parts], index=pd.Index(uniques, name=keys.name))


def times_best(
    systems: pd.DataFrame, column: str, sgm: pd.Series, shift: float, rivals: np.ndarray | None = None
) -> pd.Series:
    """Each solver's "x best": how many times the best solver's shifted geometric mean of ``column`` its own is,
    each comparison over the systems both solvers ran.

    For solvers ``s`` and ``t``, ``r(s, t)`` is ``s``'s shifted geometric mean
    over the systems both ran divided by ``t``'s over the same systems; a
    solver's value is the largest ``r(s, t)`` over every ``t`` that shares a
    system with it (itself included, so it is at least 1). Where every solver
    ran every system this is qpbenchmark's ``sgm(s) / min over t of sgm(t)``,
    to the last bit. Where they ran different systems (a workflow where HHL
    ran only the small ones), dividing means over different systems compares
    the systems, not the solvers; each ratio here is like with like.

    Parameters
    ----------
    systems : pandas.DataFrame
        :func:`per_system` rows (``solver``, ``system_key`` and ``column``), sorted by solver then system.
    column : str
        The per-system value (``time_ms``, ``error``).
    sgm : pandas.Series
        Each solver's shifted geometric mean of ``column`` over all its systems (indexed by solver), used where
        two solvers share all their systems, so that case gives exactly the plain ratio of means.
    shift : float
        The geometric means' shift.
    rivals : numpy.ndarray of bool, optional
        Per solver of ``sgm``'s index, whether it may be the "best" others are compared with (default all);
        the controls are not.

    Returns
    -------
    pandas.Series
        Indexed by solver.
    """
    values = systems.pivot(index="solver", columns="system_key", values=column).reindex(sgm.index)
    ran = values.notna().to_numpy()
    v = values.to_numpy(dtype=float)
    counts = ran.astype(int)
    shared = counts @ counts.T  # systems each pair of solvers both ran
    own = counts.sum(axis=1)
    full = sgm.to_numpy(dtype=float)
    out = np.ones(len(v))
    rivals = np.ones(len(v), dtype=bool) if rivals is None else np.asarray(rivals, dtype=bool)
    for i in range(len(v)):
        for j in np.flatnonzero((shared[i] > 0) & (rivals | (np.arange(len(v)) == i))):
            if shared[i, j] == own[i] == own[j]:  # the same systems: the means over all of them
                mine, theirs = full[i], full[j]
            else:
                common = ran[i] & ran[j]  # in system order, as the full means are taken
                mine, theirs = (shifted_geometric_mean(v[k, common], shift) for k in (i, j))
            out[i] = max(out[i], mine / theirs)
    return pd.Series(out, index=sgm.index)
