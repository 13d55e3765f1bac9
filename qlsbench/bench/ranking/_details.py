"""The tables beside the ranking: what each solver's solves cost, its rates per dataset, the systems it failed, how
it fared on each system, and its seeds' spread."""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.bench.ranking._statistics import rate_columns, wilson_interval
from qlsbench.bench.ranking._success import LOW_ACCURACY, Tolerances, Track, mark_success
from qlsbench.bench.ranking._systems import _distinct_solves, _system_key, per_system, qubit_band
from qlsbench.outcomes import Status
from qlsbench.solvers.base import RESOURCE_KEYS, RETURNED


def resource_table(results: pd.DataFrame) -> pd.DataFrame:
    """What each solver's solves cost, over the solves that returned a solution.

    ``qubits`` is the range of the systems solved (``2-8``), ``iterations``
    and every key of :data:`~qlsbench.solvers.base.RESOURCE_KEYS` a median
    (NaN where the solver reports no such cost). ``shots`` 0 means exact
    expectation values (a state-vector run); the page prints it so.
    """
    df = results[results["status"].isin(RETURNED)]
    if "system_id" in df:  # a system that occurs many times was solved once per repeat
        df = _distinct_solves(df, "system_id")
    cols = ["iterations", *[k for k in RESOURCE_KEYS if k in df]]
    g = df.groupby("solver", sort=True)
    table = g[cols].median()
    lo, hi = g["n_qubits"].min(), g["n_qubits"].max()
    table.insert(0, "qubits", [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(lo, hi)])
    return table.dropna(axis=1, how="all").reset_index()


def success_by_dataset(results: pd.DataFrame, tol: Tolerances = Tolerances()) -> pd.DataFrame:
    """Success rate of each solver on each dataset it was run on, with its Wilson interval.

    One row per (solver, dataset): ``success_rate``, ``success_rate_ci_low`` and ``success_rate_ci_high``.
    """
    systems = per_system(results, tol)
    return rate_columns(systems["success"], [systems["solver"], systems["dataset"]]).reset_index()


def failing_systems(results: pd.DataFrame, solver: str, tol: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
    """The systems ``solver`` did not solve at ``tol``: id, qubits, kappa, status, fidelity, residual, message."""
    df = mark_success(results[results["solver"] == solver], tol)
    cols = [
        c
        for c in ("dataset", "system_id", "n_qubits", "cond", "repeat", "status", "fidelity", "rel_residual", "message")
        if c in df
    ]
    out = df.loc[~df["success"], cols].copy()
    if "message" in out:
        out["message"] = out["message"].fillna("").str.slice(0, 100)
    return out.reset_index(drop=True)


def system_outcomes(results: pd.DataFrame, all_tracks: tuple[Track, ...], by_dataset: bool = True) -> pd.DataFrame:
    """How each solver fared on each system it was run on: the page's per-system drill-down.

    One row per (solver, system): ``system_id``, ``dataset``, ``family``,
    ``band``, ``n_qubits``, ``cond``; per track ``success_<track>`` (the share
    of its repeats meeting that track's bar, as the ranking counts it);
    ``statuses`` (its distinct solves' outcomes with counts, most frequent
    first: ``converged ×3`` or ``timeout ×2, max_iter ×1``); ``residual`` and
    ``fidelity`` (medians over the solves that returned a solution, NaN where
    none did); ``measured_ms`` (their median wall time); ``time_limit`` (s)
    and ``message`` (the first non-empty message of a solve that did not
    return a solution, else of any solve; shortened to 120 characters).
    """
    first = mark_success(results, all_tracks[0].tol)
    first["system_key"] = _system_key(first, by_dataset)
    first["band"] = first["n_qubits"].map(qubit_band)
    returned = first["status"].isin(RETURNED)
    first["residual"] = first["rel_residual"].where(returned)
    first["fidelity_returned"] = first["fidelity"].where(returned)
    g = first.groupby(["solver", "system_key"], sort=True)
    out = g.agg(
        system_id=("system_id", "first"),
        dataset=("dataset", "first"),
        family=("family", "first"),
        band=("band", "first"),
        n_qubits=("n_qubits", "first"),
        cond=("cond", "first"),
        residual=("residual", "median"),
        fidelity=("fidelity_returned", "median"),
        measured_ms=("measured_ms", "median"),
        time_limit=("time_limit", "max"),
    )
    for track in all_tracks:
        marked = (
            first if track is all_tracks[0] else mark_success(results, track.tol).assign(system_key=first["system_key"])
        )
        out[f"success_{track.name}"] = marked.groupby(["solver", "system_key"], sort=True)["success"].mean()
    solves = _distinct_solves(first, "system_key")
    out["statuses"] = _status_counts(solves)
    out["message"] = _first_messages(solves)
    return out.reset_index()


def _status_counts(solves: pd.DataFrame) -> pd.Series:
    """Per (solver, system_key): its solves' statuses with counts, most frequent first (``timeout ×2, ...``)."""
    counts = solves.groupby(["solver", "system_key", "status"], sort=True).size().reset_index(name="n")
    counts = counts.sort_values(["solver", "system_key", "n", "status"], ascending=[True, True, False, True])
    counts["text"] = counts["status"].astype(str) + " ×" + counts["n"].astype(str)
    return counts.groupby(["solver", "system_key"], sort=True)["text"].agg(", ".join)


def _first_messages(solves: pd.DataFrame) -> pd.Series:
    """Per (solver, system_key): the first non-empty message, a failed solve's before a returned one's."""
    if "message" not in solves:
        return pd.Series(dtype=object)
    text = solves["message"].fillna("").astype(str).str.strip()
    ranked = solves.assign(text=text, returned=solves["status"].isin(RETURNED))[text != ""]
    ranked = ranked.sort_values("returned", kind="stable")  # False (failed, declined) first
    first = ranked.groupby(["solver", "system_key"], sort=True)["text"].first()
    return first.where(first.str.len() <= 120, first.str.slice(0, 119) + "…")


def seed_table(results: pd.DataFrame, low: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
    """Solvers run with several seeds on a system: success and fidelity of each system's best and median seed.

    Per system (``system_id``), the seeds' variational-track successes and
    fidelities are reduced to their best and their median (a system counts
    as solved by the median seed when at least half of its seeds solve it);
    the table gives the share of systems solved and the median fidelity over
    systems, both ways, each share with its Wilson interval over systems
    (``_ci_low``, ``_ci_high``). Solvers with one seed per system, or whose
    seeds never give different answers (repeats of a deterministic solver), are
    left out.
    """
    df = mark_success(results[results["status"] != Status.SKIPPED], low)
    df = df.drop_duplicates(["solver", "system_id", "seed"]) if "system_id" in df else df
    rows = []
    for solver, part in df.groupby("solver", sort=True):
        per = part.groupby("system_id").agg(
            seeds=("seed", "nunique"),
            best=("success", "max"),
            median=("success", lambda v: float(np.mean(v) >= 0.5)),
            fid_best=("fidelity", "max"),
            fid_median=("fidelity", "median"),
        )
        spread = part.groupby("system_id")["fidelity"].agg(
            lambda v: float(v.max() - v.min()) if v.notna().any() else 0.0
        )
        if per["seeds"].max() < 2 or not (spread > 1e-9).any():  # one seed, or seeds that never differ
            continue
        rows.append(
            {
                "solver": solver,
                "systems": len(per),
                "seeds": int(per["seeds"].max()),
                **_share("success_best_seed", per["best"]),
                **_share("success_median_seed", per["median"]),
                "median_fidelity_best_seed": float(per["fid_best"].median()),
                "median_fidelity_median_seed": float(per["fid_median"].median()),
            }
        )
    shares = [f"success_{w}_seed{end}" for w in ("best", "median") for end in ("", "_ci_low", "_ci_high")]
    return pd.DataFrame(
        rows,
        columns=["solver", "systems", "seeds", *shares, "median_fidelity_best_seed", "median_fidelity_median_seed"],
    )


def _share(name: str, solved: pd.Series) -> dict[str, float]:
    """The share of systems ``solved`` (one 0/1 per system) as ``name``, with its Wilson interval."""
    low, high = wilson_interval(float(solved.sum()), len(solved))
    return {name: float(solved.mean()), f"{name}_ci_low": low, f"{name}_ci_high": high}
