"""Run one solver configuration over a dataset and store one row per solve."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from qlsbench.bench.isolation import IsolatedSolver, call_solver
from qlsbench.bench.metrics import metrics
from qlsbench.data import atomic_write_table, dataset_hash, load_dataset, to_system
from qlsbench.errors import InputError
from qlsbench.solvers import get

RESULTS_SCHEMA_VERSION = "1"

_f64_list = pa.list_(pa.float64())

#: Columns of a results file, in order.
RESULT_COLUMNS: list[tuple[str, pa.DataType]] = [
    ("solver", pa.string()),  # label: name, or name plus options
    ("solver_name", pa.string()),
    ("solver_options", pa.string()),  # JSON, sorted keys
    ("dataset", pa.string()),
    ("dataset_hash", pa.string()),
    ("system_id", pa.string()),
    ("family", pa.string()),
    ("scene", pa.string()),
    ("n_qubits", pa.int64()),
    ("dim", pa.int64()),
    ("cond", pa.float64()),
    ("repeat", pa.int64()),
    ("seed", pa.int64()),
    ("status", pa.string()),
    ("message", pa.string()),
    ("wall_time", pa.float64()),
    ("time_limit", pa.float64()),
    ("iterations", pa.int64()),
    ("rel_residual", pa.float64()),
    ("rel_error", pa.float64()),
    ("fidelity", pa.float64()),
    ("history", _f64_list),
    ("resources", pa.string()),  # JSON
    ("x", _f64_list),  # real part of the returned solution (null when none)
    ("x_imag", _f64_list),  # imaginary part (null when x is real or absent)
    ("qlsbench_version", pa.string()),
]


@dataclass(frozen=True)
class SolverSpec:
    """A solver name, its options and the label it carries on the leaderboard."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
            object.__setattr__(self, "label", f"{self.name}[{opts}]" if opts else self.name)


def _jsonable(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def _row(spec, dataset, dhash, system, repeat, seed, result, wall, time_limit) -> dict:
    from qlsbench import __version__

    m = metrics(system, result.x)
    meta = system.meta
    return {
        "solver": spec.label,
        "solver_name": spec.name,
        "solver_options": json.dumps(spec.options, sort_keys=True, default=_jsonable),
        "dataset": dataset,
        "dataset_hash": dhash,
        "system_id": system.system_id,
        "family": meta.get("family", ""),
        "scene": meta.get("scene", ""),
        "n_qubits": meta.get("n_qubits"),
        "dim": system.dim,
        "cond": meta.get("cond", np.nan),
        "repeat": repeat,
        "seed": seed,
        "status": str(result.status),
        "message": result.message,
        "wall_time": wall,
        "time_limit": np.nan if time_limit is None else float(time_limit),
        "iterations": int(result.iterations),
        **m,
        "history": [float(v) for v in np.real(result.history)],
        "resources": json.dumps(result.resources, sort_keys=True, default=_jsonable),
        "x": None if result.x is None else np.real(result.x).astype(float).tolist(),
        "x_imag": np.imag(result.x).astype(float).tolist() if np.iscomplexobj(result.x) else None,
        "qlsbench_version": __version__,
    }


RESULTS_VERSION_KEY = b"qlsbench.results_schema_version"


def results_table(rows: list[dict]) -> pa.Table:
    """Arrow table of result rows with the results schema version in its metadata."""
    schema = pa.schema([pa.field(n, t) for n, t in RESULT_COLUMNS],
                       metadata={RESULTS_VERSION_KEY: RESULTS_SCHEMA_VERSION.encode()})
    return pa.Table.from_pylist(rows, schema=schema)


def dataset_name(path: str | os.PathLike) -> str:
    """Name a dataset by its path below ``datasets/``.

    ``datasets/ising/kappa10`` and ``datasets/ising/kappa10/part-0000.parquet``
    are both ``ising/kappa10``: a part file names the dataset it belongs to.
    """
    p = Path(path).resolve()
    if p.suffix == ".parquet":
        p = p.parent if p.name.startswith("part-") else p.with_suffix("")
    parts = p.parts
    if "datasets" in parts:
        return "/".join(parts[len(parts) - parts[::-1].index("datasets"):])
    return p.name


def run_solver(spec: SolverSpec, dataset: str | os.PathLike, out: str | os.PathLike, *,
               repeats: int = 1, seed: int = 0, time_limit: float | None = None,
               progress: bool = True) -> pd.DataFrame:
    """Run one solver configuration on every system of a dataset.

    Each (system, repeat) gives a row, failures included: an exception in the
    solver is an ``error`` row, an overrun of ``time_limit`` a ``timeout`` row.
    The results file is written once at the end, atomically.

    Parameters
    ----------
    spec : SolverSpec
        Solver name, options and label.
    dataset : path
        Dataset file or folder.
    out : path
        Results ``.parquet`` file to write.
    repeats : int
        Solves per system; repeat ``r`` uses seed ``seed + r``.
    seed : int
        Base seed.
    time_limit : float or None
        Seconds per solve. When set, solves run in a child process that is
        killed on overrun; when ``None`` they run in this process.
    progress : bool
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        The rows written.
    """
    if repeats < 1:
        raise InputError(f"repeats must be >= 1, got {repeats}")
    if time_limit is not None and time_limit <= 0:
        raise InputError(f"time_limit must be > 0 seconds, got {time_limit}")
    solver = get(spec.name, **spec.options)  # validates name and options before any work
    df = load_dataset(dataset)
    name, dhash = dataset_name(dataset), dataset_hash(dataset)
    isolated = IsolatedSolver(spec.name, spec.options, time_limit) if time_limit is not None else None
    rows = []
    try:
        with tqdm(total=len(df) * repeats, desc=f"{spec.label} on {name}", disable=not progress,
                  unit="solve") as bar:
            for _, record in df.iterrows():
                system = to_system(record)
                for r in range(repeats):
                    s = seed + r
                    result, wall = isolated.solve(system, s) if isolated else call_solver(solver, system, s)
                    rows.append(_row(spec, name, dhash, system, r, s, result, wall, time_limit))
                    bar.update()
    finally:
        if isolated:
            isolated.close()
    atomic_write_table(results_table(rows), out)
    return pd.DataFrame(rows)


def read_results(path: str | os.PathLike) -> pd.DataFrame:
    """Read one results file, checking its schema version and columns.

    Raises
    ------
    InputError
        Naming the file and the version or column at fault.
    """
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: not a readable results file ({exc})") from None
    version = (table.schema.metadata or {}).get(RESULTS_VERSION_KEY, b"none").decode()
    if version != RESULTS_SCHEMA_VERSION:
        raise InputError(f"{path}: results schema version {version}, this qlsbench reads {RESULTS_SCHEMA_VERSION}")
    missing = [n for n, _ in RESULT_COLUMNS if n not in table.column_names]
    if missing:
        raise InputError(f"{path}: missing result column(s) {', '.join(missing)}")
    return table.to_pandas()


def load_results(paths) -> pd.DataFrame:
    """Concatenate results files (paths or folders, searched for ``*.parquet``)."""
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.parquet")) if p.is_dir() else [p])
    if not files:
        raise InputError("no results files given")
    return pd.concat([read_results(f) for f in files], ignore_index=True)
