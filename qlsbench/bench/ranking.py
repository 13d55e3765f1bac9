"""Rank solvers from results files, in the style of qpbenchmark.

Success rate at stated tolerances comes first. Then shifted geometric means
``exp(mean(log(v + shift))) - shift`` of time and error, divided by the best
solver's so the best is 1.0. Unsuccessful solves are penalised rather than
dropped, so a solver cannot look fast by failing fast: their time counts as
the time limit (or their own time when no limit was set) and their error as
at least 1.0, the error of returning zero. Errors are floored at the accuracy
of the reference solution itself, ``cond * eps``.

Every solver is ranked on the same systems: the union of the systems in the
results. A system a solver was not run on counts as a ``skipped`` solve, and
repeats of one system are reduced to one value (mean success, median time and
error) before the means over systems are taken, so a solver run three times
does not weigh three times as much. A system is its content (``system_id``):
one that occurs many times (a 2x2 contact system at 27 steps of a simulation,
or the same system in two datasets) is ranked once, and its duplicate rows
count as one solve per repeat. Per-dataset tables count it once per dataset.

Two accuracy settings are reported, as in qpbenchmark: ``high`` (the solver
says it converged, fidelity >= 0.99, relative residual <= 1e-6) and ``low``
(a solution came back, converged or out of iterations, with fidelity >= 0.99
and relative residual <= 1e-2). Variational solvers have no trustworthy
convergence test of their own (SPSA never "converges"), so the low setting
judges what they return rather than what they say.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from qlsbench.checks import FRACTION, POSITIVE
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.solvers.base import RESOURCE_KEYS, RETURNED

#: Qubit bands of the per-family tables, as inclusive ranges.
QUBIT_BANDS: tuple[tuple[int, int], ...] = ((1, 4), (5, 6), (7, 8), (9, 10), (11, 64))

#: Statuses under which a returned solution is judged at all, and those of a solve that failed outright.
_RETURNED = RETURNED
_FAILED = (Status.ERROR, Status.TIMEOUT, Status.CRASHED)


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
        status = "status `converged`" if self.require_converged else "a solution returned (`converged`, `max_iter` or `stalled`)"
        return f"{status}, fidelity >= {self.fidelity:g} and relative residual <= {self.residual:g}"


#: The low-accuracy setting: what variational solvers are built for.
LOW_ACCURACY = Tolerances(fidelity=0.99, residual=1e-2, require_converged=False)


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


def qubit_band(n_qubits) -> str:
    """Label of the band of :data:`QUBIT_BANDS` holding ``n_qubits`` (``"?"`` when unknown)."""
    if n_qubits is None or pd.isna(n_qubits):
        return "?"
    for lo, hi in QUBIT_BANDS:
        if lo <= n_qubits <= hi:
            return f"{lo}-{hi}" if hi < QUBIT_BANDS[-1][1] else f">={lo}"
    return "?"


def mark_success(results: pd.DataFrame, tol: Tolerances) -> pd.DataFrame:
    """Add ``success``, penalised ``time_ms`` and penalised ``error`` columns."""
    df = results.copy()
    statuses = (Status.CONVERGED,) if tol.require_converged else _RETURNED
    df["success"] = (df["status"].isin(statuses) & (df["fidelity"] >= tol.fidelity)
                     & (df["rel_residual"] <= tol.residual))
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
    return df


def _system_key(df: pd.DataFrame, by_dataset: bool = True) -> pd.Series:
    """What makes a system one: its ``system_id`` (within its dataset when ``by_dataset``)."""
    if "system_id" in df:
        ids = df["system_id"].astype(str)
        return df["dataset"].astype(str) + "/" + ids if by_dataset else ids
    return df["dataset"].astype(str) + "/#" + df.groupby(["solver", "dataset"]).cumcount().astype(str)


def complete_matrix(results: pd.DataFrame, by_dataset: bool = True) -> pd.DataFrame:
    """``results`` plus a ``skipped`` row for every (solver, system) pair that has none.

    The systems are the union over all solvers, so every solver is measured on
    the same set; a missing pair is charged like any unsuccessful solve, at
    that solver's largest time limit. With ``by_dataset=False`` a system is
    its ``system_id`` wherever it occurs, so one solved in any dataset is not
    missing.
    """
    df = results.copy()
    df["system_key"] = _system_key(df, by_dataset)
    systems = df.drop_duplicates("system_key").set_index("system_key")
    missing = []
    for solver, rows in df.groupby("solver", sort=False):
        limit = rows["time_limit"].max()
        if pd.isna(limit):
            limit = rows["wall_time"].max()
        for key in systems.index.difference(pd.Index(rows["system_key"].unique())):
            info = systems.loc[key]
            missing.append({"solver": solver, "system_key": key, "status": Status.SKIPPED,
                            "message": "not run on this system", "wall_time": 0.0, "time_limit": limit,
                            "rel_residual": np.nan, "rel_error": np.nan, "fidelity": np.nan,
                            **{c: info[c] for c in ("dataset", "family", "n_qubits", "cond") if c in info}})
    if missing:
        df = pd.concat([df, pd.DataFrame(missing)], ignore_index=True)
    return df


def _distinct_solves(df: pd.DataFrame, key: str) -> pd.DataFrame:
    """One row per solve: the rows of a system that occurs several times are the same solves again.

    The runner solves such a system once per repeat and writes the row at
    every occurrence; a solve is (solver, system, repeat, seed).
    """
    subset = ["solver", key, *[c for c in ("repeat", "seed") if c in df]]
    return df.drop_duplicates(subset) if len(subset) > 2 else df


def per_system(results: pd.DataFrame, tol: Tolerances, by_dataset: bool = True) -> pd.DataFrame:
    """One row per (solver, system): mean success over repeats, median penalised time and error.

    Rows of one system are pooled; ``solves``, ``skipped`` and ``failed``
    count distinct solves, so a system that occurs 27 times counts once per
    repeat. ``by_dataset=False`` takes a system in two datasets as one.
    """
    df = mark_success(complete_matrix(results, by_dataset), tol)
    df["band"] = df["n_qubits"].map(qubit_band)
    for col in ("family", "n_qubits"):
        if col not in df:
            df[col] = np.nan
    g = df.groupby(["solver", "system_key"], sort=True)
    out = g.agg(success=("success", "mean"), time_ms=("time_ms", "median"), error=("error", "median"),
                family=("family", "first"), band=("band", "first"), dataset=("dataset", "first"))
    counts = _distinct_solves(df, "system_key").groupby(["solver", "system_key"], sort=True)["status"].agg(
        solves=lambda s: int((s != Status.SKIPPED).sum()), skipped=lambda s: int((s == Status.SKIPPED).sum()),
        failed=lambda s: int(s.isin(_FAILED).sum()))
    return out.join(counts)[["success", "time_ms", "error", "solves", "skipped", "failed", "family", "band",
                             "dataset"]].reset_index()


def _rank(systems: pd.DataFrame, tol: Tolerances, low: Tolerances | None, low_systems: pd.DataFrame | None):
    g = systems.groupby("solver", sort=True)
    board = pd.DataFrame({
        "systems": g.size(),
        "solves": g["solves"].sum(),
        "skipped": g["skipped"].sum(),
        "failed": g["failed"].sum(),
        "success_rate": g["success"].mean(),
        "time_sgm_ms": g["time_ms"].apply(lambda v: shifted_geometric_mean(v, tol.shift)),
        "error_sgm": g["error"].apply(lambda v: shifted_geometric_mean(v, tol.shift)),
        "median_time_ms": g["time_ms"].median(),
    })
    if low is not None:
        board["success_rate_low"] = low_systems.groupby("solver", sort=True)["success"].mean()
    board["time_sgm_rel"] = board["time_sgm_ms"] / board["time_sgm_ms"].min()
    board["error_sgm_rel"] = board["error_sgm"] / board["error_sgm"].min()
    board = board.reset_index().sort_values(["success_rate", "time_sgm_rel"], ascending=[False, True])
    cols = ["solver", "systems", "solves", "skipped", "failed", "success_rate",
            *(["success_rate_low"] if low is not None else []),
            "time_sgm_rel", "error_sgm_rel", "time_sgm_ms", "error_sgm", "median_time_ms"]
    return board[cols].reset_index(drop=True)


def leaderboard(results: pd.DataFrame, tol: Tolerances = Tolerances(),
                low: Tolerances | None = LOW_ACCURACY) -> pd.DataFrame:
    """One row per solver label, best first.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows as written by :func:`qlsbench.bench.runner.run_solver`.
    tol : Tolerances
        The main (high-accuracy) success tolerances and shift.
    low : Tolerances or None
        A second, low-accuracy setting whose success rate is reported too.

    Returns
    -------
    pandas.DataFrame
        ``solver, systems, solves, skipped, failed, success_rate,
        success_rate_low, time_sgm_rel, error_sgm_rel, time_sgm_ms,
        error_sgm, median_time_ms``, sorted by success rate (descending)
        then relative time.
    """
    if results.empty:
        raise InputError("no results to rank")
    return _rank(per_system(results, tol, by_dataset=False), tol, low,
                 per_system(results, low, by_dataset=False) if low is not None else None)


def band_tables(results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY,
                by: str = "family") -> pd.DataFrame:
    """Success rates (both settings) and time ratios per family (or dataset) and qubit band.

    Parameters
    ----------
    by : str
        ``"family"`` or ``"dataset"``: what the systems are grouped by.

    Returns
    -------
    pandas.DataFrame
        One row per (group, band, solver): ``systems``, ``success_rate``,
        ``success_rate_low`` and ``time_sgm_rel`` (shifted geometric mean of
        time normalised to the best solver of that group and band). The
        group is in column ``family``.
    """
    if by not in ("family", "dataset"):
        raise InputError(f"band tables group by 'family' or 'dataset', not {by!r}")
    high_df, low_df = per_system(results, tol), per_system(results, low)
    high_df["success_low"] = low_df["success"].to_numpy()  # same (solver, system) order
    rows = []
    for (family, band), part in high_df.groupby([by, "band"], sort=True):
        g = part.groupby("solver", sort=True)
        t = g["time_ms"].apply(lambda v: shifted_geometric_mean(v, tol.shift))
        rows.append(pd.DataFrame({"family": family, "band": band, "solver": t.index, "systems": g.size().to_numpy(),
                                  "success_rate": g["success"].mean().to_numpy(),
                                  "success_rate_low": g["success_low"].mean().to_numpy(),
                                  "time_sgm_rel": (t / t.min()).to_numpy()}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def resource_table(results: pd.DataFrame) -> pd.DataFrame:
    """Median resources per solver over the solves that returned a solution.

    Qubits, iterations and every key of
    :data:`~qlsbench.solvers.base.RESOURCE_KEYS` the solver reports (blank
    where it reports none): what each solver's accuracy cost.
    """
    df = results[results["status"].isin(_RETURNED)]
    if "system_id" in df:  # a system that occurs many times was solved once per repeat
        df = _distinct_solves(df, "system_id")
    cols = ["n_qubits", "iterations", *[k for k in RESOURCE_KEYS if k in df]]
    table = df.groupby("solver", sort=True)[cols].median()
    return table.dropna(axis=1, how="all").reset_index()


def success_by_dataset(results: pd.DataFrame, tol: Tolerances = Tolerances()) -> pd.DataFrame:
    """Success rate of each solver (rows) on each dataset (columns)."""
    systems = per_system(results, tol)
    return systems.pivot_table(index="solver", columns="dataset", values="success", aggfunc="mean")


def seed_table(results: pd.DataFrame, low: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
    """Solvers run with several seeds on a system: success and fidelity of each system's best and median seed.

    Per system (``system_id``), the seeds' low-accuracy successes and
    fidelities are reduced to their best and their median (a system counts
    as solved by the median seed when at least half of its seeds solve it);
    the table gives the share of systems solved and the median fidelity over
    systems, both ways. Solvers with one seed per system, or whose seeds never
    give different answers (repeats of a deterministic solver), are left out.
    """
    df = mark_success(results[results["status"] != Status.SKIPPED], low)
    df = df.drop_duplicates(["solver", "system_id", "seed"]) if "system_id" in df else df
    rows = []
    for solver, part in df.groupby("solver", sort=True):
        per = part.groupby("system_id").agg(seeds=("seed", "nunique"), best=("success", "max"),
                                            median=("success", lambda v: float(np.mean(v) >= 0.5)),
                                            fid_best=("fidelity", "max"), fid_median=("fidelity", "median"))
        spread = part.groupby("system_id")["fidelity"].agg(lambda v: float(v.max() - v.min()) if v.notna().any() else 0.0)
        if per["seeds"].max() < 2 or not (spread > 1e-9).any():  # one seed, or seeds that never differ
            continue
        rows.append({"solver": solver, "systems": len(per), "seeds": int(per["seeds"].max()),
                     "success_best_seed": float(per["best"].mean()),
                     "success_median_seed": float(per["median"].mean()),
                     "median_fidelity_best_seed": float(per["fid_best"].median()),
                     "median_fidelity_median_seed": float(per["fid_median"].median())})
    return pd.DataFrame(rows, columns=["solver", "systems", "seeds", "success_best_seed", "success_median_seed",
                                       "median_fidelity_best_seed", "median_fidelity_median_seed"])
