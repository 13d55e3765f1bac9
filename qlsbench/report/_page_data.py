"""What the web page draws its plots, per-system drill-down and downloads from.

The page's plots are drawn in the browser (:mod:`~qlsbench.report._web_page`),
so they follow the page's track, group and qubit-band filters. They are drawn
from the numbers the ranking is computed from, embedded as JSON: one record
per (solver, system) with both tracks' success and charged time
(:func:`~qlsbench.bench.ranking.per_system`, "all" counting a system in two
datasets once, as the ranking does), and, for the budget curves, each
variational solve's verdict as a step function of the budget (the budgets at
which it turns solved or unsolved), which is all
:func:`~qlsbench.bench._budget.success_curve` reads of a solve.
"""

from __future__ import annotations

import json
import os
import re
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench._budget import budget_marks
from qlsbench.bench.ranking import Track, per_system, qubit_band, system_outcomes
from qlsbench.data import atomic_write, atomic_write_text
from qlsbench.outcomes import Status
from qlsbench.report._styles import solver_styles

#: Results columns left out of the downloads: solutions and per-iteration histories are most of a results file's
#: bytes and no table on the page reads them (the results files themselves keep them).
HEAVY_COLUMNS = ("x", "x_imag", "history")
#: Columns of lists, kept in the Parquet download only (a CSV cell holds one value).
LIST_COLUMNS = ("progress_evaluations", "progress_fidelity", "progress_residual", "progress_seconds")


def slug(label: str) -> str:
    """A solver label as an HTML id: what is not a letter, digit, dot, underscore or hyphen becomes a hyphen."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", label).strip("-") or "solver"


def _finite(values) -> list:
    """Floats for JSON: NaN and infinities as ``null``."""
    return [float(v) if v is not None and np.isfinite(v) else None for v in np.asarray(values, dtype=float)]


def _records(
    results: pd.DataFrame, all_tracks: tuple[Track, ...], by_dataset: bool, by: str, solvers: list[str]
) -> dict:
    """Per (solver, system) as column lists: both tracks' success and charged time, fidelity, qubits, kappa."""
    tables = [per_system(results, track.tol, by_dataset=by_dataset) for track in all_tracks]
    base = tables[0]
    index = {s: i for i, s in enumerate(solvers)}
    return {
        "solver": [index[s] for s in base["solver"]],
        "system": base["system_key"].tolist(),
        "group": base[by].astype(str).tolist(),
        "band": base["band"].tolist(),
        "n_qubits": [None if pd.isna(n) else int(n) for n in base["n_qubits"]],
        "cond": _finite(base["cond"]),
        "fidelity": _finite(base["fidelity"]),
        "solves": base["solves"].astype(int).tolist(),
        "success": {t.name: _finite(table["success"]) for t, table in zip(all_tracks, tables)},
        "time": {t.name: _finite(table["time_ms"]) for t, table in zip(all_tracks, tables)},
    }


def budget_steps(results: pd.DataFrame, all_tracks: tuple[Track, ...], by: str, solvers: list[str]) -> dict | None:
    """Each solve of a solver with read-outs, as the budget curves (variational bar) count it, in results order.

    Per solve: solver, system id, seed, group, band, its first and last
    read-out (cost evaluations) and ``steps``, the flat list ``[k1, s1, k2,
    s2, ...]`` of the budgets at which its verdict changes and the verdict
    from there on (1 solved, 0 not); before ``k1`` it is unsolved. Declined
    solves are left out and a solve without read-outs is never solved, as in
    :func:`~qlsbench.bench._budget.success_curve`. ``None`` when no solver
    recorded read-outs.
    """
    tol = all_tracks[-1].tol
    marks = [budget_marks(row, "evaluations") for row in results[["progress_evaluations"]].itertuples()]
    has = np.array([m is not None for m in marks])
    if not has.any():
        return None
    keep = results["solver"].isin(set(results.loc[has, "solver"])) & (results["status"] != Status.SKIPPED)
    index = {s: i for i, s in enumerate(solvers)}
    out: dict[str, list] = {
        "solver": [],
        "system": [],
        "seed": [],
        "group": [],
        "band": [],
        "lo": [],
        "hi": [],
        "steps": [],
    }
    columns = ["solver", "system_id", "seed", by, "n_qubits", "progress_fidelity", "progress_residual"]
    for i, row in zip(np.flatnonzero(keep.to_numpy()), results.loc[keep, columns].itertuples(index=False)):
        k = marks[i]
        steps: list[float] = []
        if k is not None:
            ok = (np.asarray(row.progress_fidelity, dtype=float) >= tol.fidelity) & (
                np.asarray(row.progress_residual, dtype=float) <= tol.residual
            )
            change = np.flatnonzero(ok != np.concatenate([[False], ok[:-1]]))
            steps = [v for j in change for v in (float(k[j]), int(ok[j]))]
        out["solver"].append(index[row.solver])
        out["system"].append(str(row.system_id))
        out["seed"].append(int(row.seed))
        out["group"].append(str(getattr(row, by)))
        out["band"].append(qubit_band(row.n_qubits))
        out["lo"].append(None if k is None else float(k[0]))
        out["hi"].append(None if k is None else float(k[-1]))
        out["steps"].append(steps)
    return {"axis": "cost evaluations", "fidelity": tol.fidelity, "residual": tol.residual, "solves": out}


def plot_data(results: pd.DataFrame, all_tracks: tuple[Track, ...], by: str = "family") -> dict:
    """Everything the page's plots need, JSON-ready: solvers with their colour and marker, per-system records
    (``all``: a system counted once; ``groups``: per dataset when ``by`` is ``dataset``, else ``None``, the
    ``all`` records carrying the family) and :func:`budget_steps`."""
    solvers = sorted(results["solver"].unique())
    styles = solver_styles(solvers)
    whole = _records(results, all_tracks, False, "family" if by == "family" else "dataset", solvers)
    groups = _records(results, all_tracks, True, by, solvers) if by == "dataset" else None
    return {
        "tracks": [t.name for t in all_tracks],
        "fidelity_bar": all_tracks[-1].tol.fidelity,
        "solvers": solvers,
        "styles": [{"color": styles[s].color, "marker": styles[s].marker} for s in solvers],
        "all": whole,
        "groups": groups,
        "budget": budget_steps(results, all_tracks, by, solvers),
    }


def plot_json(data: dict) -> str:
    """:func:`plot_data` as JSON safe inside a ``<script>`` element."""
    return json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


# ---------------------------------------------------------------- the per-system drill-down


def drilldown(
    results: pd.DataFrame, all_tracks: tuple[Track, ...], by: str = "family", names: dict[str, str] | None = None
) -> pd.DataFrame:
    """:func:`~qlsbench.bench.ranking.system_outcomes` with each system's name (``names``: by system id, e.g. the
    pinned set's; the id otherwise) and the page's filter group (``by``), unsolved systems first per solver."""
    rows = system_outcomes(results, all_tracks, by_dataset=by == "dataset")
    rows.insert(1, "name", [names.get(i, i) if names else i for i in rows["system_id"]])
    rows["group"] = rows[by].astype(str)
    solved = rows[[f"success_{t.name}" for t in all_tracks]].min(axis=1)
    return (
        rows.assign(_solved=solved)
        .sort_values(["solver", "_solved", "group", "n_qubits", "cond", "name"])
        .drop(columns="_solved")
        .reset_index(drop=True)
    )


# ---------------------------------------------------------------- downloads


def downloads_folder(html_path: str | os.PathLike) -> Path:
    """Where a page's downloads go: ``data/`` beside ``index.html``, ``<stem>-data/`` beside any other page."""
    html_path = Path(html_path)
    return html_path.parent / ("data" if html_path.stem == "index" else f"{html_path.stem}-data")


def systems_list(results: pd.DataFrame) -> pd.DataFrame:
    """The systems the rows were run on, one row per (dataset, system)."""
    cols = [
        c
        for c in ("dataset", "dataset_hash", "system_id", "family", "scene", "n_qubits", "dim", "cond")
        if c in results
    ]
    return results.drop_duplicates(["dataset", "system_id"])[cols].sort_values(["dataset", "n_qubits", "system_id"])


def write_downloads(
    results: pd.DataFrame, folder: str | os.PathLike, systems: pd.DataFrame | None = None
) -> list[tuple[str, Path, str]]:
    """Write the rows and the systems list as CSV and Parquet into ``folder``.

    Returns
    -------
    list of (label, path, description)
    """
    folder = Path(folder)
    rows = results.drop(columns=[c for c in HEAVY_COLUMNS if c in results]).reset_index(drop=True)
    flat = rows.drop(columns=[c for c in LIST_COLUMNS if c in rows])
    systems = systems_list(results) if systems is None else systems.reset_index(drop=True)
    written = []
    for stem, table, what in (
        ("rows", rows, f"{len(rows)} results rows"),
        ("systems", systems, f"{len(systems)} systems"),
    ):
        parquet = atomic_write(folder / f"{stem}.parquet", partial(table.to_parquet, index=False))
        csv = atomic_write_text(folder / f"{stem}.csv", (flat if stem == "rows" else table).to_csv(index=False))
        written += [
            (f"{stem}.csv", csv, what + (", no list columns" if stem == "rows" else "")),
            (f"{stem}.parquet", parquet, what),
        ]
    return written
