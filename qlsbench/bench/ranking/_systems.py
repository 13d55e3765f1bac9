"""Per-system numbers: a system is its content, its repeats reduced to one value each, its qubit band."""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.bench.ranking._success import Tolerances, mark_success
from qlsbench.outcomes import Status
from qlsbench.solvers.base import RETURNED

#: Qubit bands of the per-family tables, as inclusive ranges.
QUBIT_BANDS: tuple[tuple[int, int], ...] = ((1, 4), (5, 6), (7, 8), (9, 10), (11, 64))


#: Statuses of a solve that failed outright.
_FAILED = (Status.ERROR, Status.TIMEOUT, Status.CRASHED)


#: Costs shown beside accuracy on the variational track (medians over solves that returned a solution).
VARIATIONAL_COSTS = ("cost_evaluations", "circuit_executions", "shots", "mc_samples")


def qubit_band(n_qubits) -> str:
    """Label of the band of :data:`QUBIT_BANDS` holding ``n_qubits`` (``"?"`` when unknown)."""
    if n_qubits is None or pd.isna(n_qubits):
        return "?"
    for lo, hi in QUBIT_BANDS:
        if lo <= n_qubits <= hi:
            return f"{lo}-{hi}" if hi < QUBIT_BANDS[-1][1] else f">={lo}"
    return "?"


def band_order(band: str) -> int:
    """Sort key of a qubit-band label (``1-4`` before ``11-64``; unknown last)."""
    digits = "".join(c for c in band.split("-")[0] if c.isdigit())
    return int(digits) if digits else 999


def _system_key(df: pd.DataFrame, by_dataset: bool = True) -> pd.Series:
    """What makes a system one: its ``system_id`` (within its dataset when ``by_dataset``)."""
    if "system_id" in df:
        ids = df["system_id"].astype(str)
        return df["dataset"].astype(str) + "/" + ids if by_dataset else ids
    return df["dataset"].astype(str) + "/#" + df.groupby(["solver", "dataset"]).cumcount().astype(str)


def _distinct_solves(df: pd.DataFrame, key: str) -> pd.DataFrame:
    """One row per solve: the rows of a system that occurs several times are the same solves again.

    The runner solves such a system once per repeat and writes the row at
    every occurrence; a solve is (solver, system, repeat, seed).
    """
    subset = ["solver", key, *[c for c in ("repeat", "seed") if c in df]]
    return df.drop_duplicates(subset) if len(subset) > 2 else df


def per_system(results: pd.DataFrame, tol: Tolerances, by_dataset: bool = True) -> pd.DataFrame:
    """One row per (solver, system it was run on): mean success over repeats, median time, error and fidelity.

    Rows of one system are pooled; ``solves``, ``skipped`` and ``failed``
    count distinct solves, so a system that occurs 27 times counts once per
    repeat, and ``seeds`` the distinct seeds behind its medians.
    ``time_ms`` is the charged time (the limit for an unsuccessful solve),
    ``measured_ms`` the median wall time of the solves that returned a
    solution (NaN when none did) and ``time_limit`` the longest limit its
    solves ran under (seconds; NaN without one).
    ``by_dataset=False`` takes a system in two datasets as one.
    """
    df = mark_success(results, tol)
    df["system_key"] = _system_key(df, by_dataset)
    df["band"] = df["n_qubits"].map(qubit_band)
    for col in ("family", "n_qubits", "cond"):
        if col not in df:
            df[col] = np.nan
    if "seed" not in df:  # results that do not record seeds ran one
        df["seed"] = df["repeat"] if "repeat" in df else 0
    if "solver_name" not in df:
        df["solver_name"] = df["solver"]
    df["b_fidelity"] = _b_fidelities(df)
    g = df.groupby(["solver", "system_key"], sort=True)
    out = g.agg(
        success=("success", "mean"),
        time_ms=("time_ms", "median"),
        error=("error", "median"),
        fidelity=("fidelity_or_zero", "median"),
        seeds=("seed", "nunique"),
        family=("family", "first"),
        band=("band", "first"),
        dataset=("dataset", "first"),
        n_qubits=("n_qubits", "first"),
        cond=("cond", "first"),
        measured_ms=("measured_ms", "median"),
        time_limit=("time_limit", "max"),
        solver_name=("solver_name", "first"),
        b_fidelity=("b_fidelity", "first"),
    )
    return out.join(_solve_counts(_distinct_solves(df, "system_key"))).reset_index()


def _b_fidelities(df: pd.DataFrame) -> pd.Series:
    """Per row, the fidelity ``b`` scores returned as the answer on its system.

    (:func:`qlsbench.bench._metrics.b_fidelity`: known for the pinned systems, NaN for others), each id computed once.
    """
    if "system_id" not in df:
        return pd.Series(np.nan, index=df.index)
    from qlsbench.bench._metrics import b_fidelity  # reads the pinned set: imported when a ranking needs it

    ids = df["system_id"].astype(str)
    return ids.map({sid: b_fidelity(sid) for sid in ids.unique()})


def _solve_counts(solves: pd.DataFrame) -> pd.DataFrame:
    """Per (solver, system_key): solves attempted (declined ones aside), declined and failed, as integers.

    Each count is a sum of a 0/1 column in one grouped pass (a Python
    function per group cost seconds on a board of 20 solvers).
    """
    status = solves["status"]
    flags = pd.DataFrame(
        {"solves": status != Status.SKIPPED, "skipped": status == Status.SKIPPED, "failed": status.isin(_FAILED)},
        index=solves.index,
    ).astype(int)
    return flags.groupby([solves["solver"], solves["system_key"]], sort=True).sum()


def _costs(results: pd.DataFrame) -> pd.DataFrame:
    """Median of each variational cost per solver, over solves that returned a solution (NaN where none)."""
    df = results[results["status"].isin(RETURNED)]
    if "system_id" in df:
        df = _distinct_solves(df, "system_id")
    cols = [c for c in VARIATIONAL_COSTS if c in df]
    return df.groupby("solver")[cols].median() if cols else pd.DataFrame(index=df["solver"].unique())
