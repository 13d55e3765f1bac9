"""Results files: their schema, the row a solve becomes, and reading them back.

One row per (solver configuration, system, repeat). The schema version is in
the file's metadata; files of the versions in :data:`READABLE_SCHEMA_VERSIONS`
are read, older columns filled with nulls.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from qlsbench.bench._metrics import metrics
from qlsbench.data import read_parquet
from qlsbench.errors import InputError
from qlsbench.solvers.base import RESOURCE_KEYS

RESULTS_SCHEMA_VERSION = "5"
#: Older versions still read, their missing columns as null: version 2 lacks the progress columns, version 3
#: ``progress_seconds``, version 4 the device columns (``routed_depth``, ``two_qubit_gates``, ``device_seconds``).
READABLE_SCHEMA_VERSIONS = ("2", "3", "4", "5")

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
    *[(key, pa.int64()) for key in RESOURCE_KEYS],  # null where the solver has no such cost
    ("device_seconds", pa.float64()),  # gate time of every shot of every circuit on the device (circuit solves)
    ("history", _f64_list),
    # Success against budget (variational solvers): the read-out after this many cost evaluations ...
    ("progress_evaluations", pa.list_(pa.int64())),
    ("progress_fidelity", _f64_list),  # ... its fidelity with x_ref ...
    ("progress_residual", _f64_list),  # ... its relative residual (null lists for other solvers) ...
    ("progress_seconds", _f64_list),  # ... and the seconds since the solve started (null when not recorded)
    ("resources", pa.string()),  # JSON: everything the solver reported
    ("x", _f64_list),  # real part of the returned solution (null when none)
    ("x_imag", _f64_list),  # imaginary part (null when x is real or absent)
    ("qlsbench_version", pa.string()),
]


def jsonable(obj):
    """A JSON stand-in for what json cannot write: numpy scalars and arrays as Python values, the rest as text."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def _float_or_none(value) -> float | None:
    """A float column value; ``None`` when absent or not a number."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _resource_value(resources: dict, key: str) -> int | None:
    """A resource as an integer column value; ``None`` when absent or not a whole number."""
    value = resources.get(key)
    if isinstance(value, (bool, np.bool_)) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if np.isfinite(number) and number == int(number) else None


def result_row(spec, dataset, dhash, system, repeat, seed, result, wall, time_limit) -> dict:
    """One results-file row: what ran, how it went, its accuracy (measured here, never by the solver) and its cost."""
    from qlsbench import __version__

    m = metrics(system, result.x)
    meta = system.meta
    return {
        "solver": spec.label,
        "solver_name": spec.name,
        "solver_options": spec.options_json,
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
        **{key: _resource_value(result.resources, key) for key in RESOURCE_KEYS},
        "device_seconds": _float_or_none(result.resources.get("device_seconds")),
        "history": [float(v) for v in np.real(result.history)],
        **_progress_columns(system, result.progress),
        "resources": json.dumps(result.resources, sort_keys=True, default=jsonable),
        "x": None if result.x is None else np.real(result.x).astype(float).tolist(),
        "x_imag": np.imag(result.x).astype(float).tolist() if np.iscomplexobj(result.x) else None,
        "qlsbench_version": __version__,
    }


def _progress_columns(system, progress) -> dict:
    """The progress read-outs as three aligned lists, measured like the final solution; nulls when none."""
    if not progress:
        return {
            "progress_evaluations": None,
            "progress_fidelity": None,
            "progress_residual": None,
            "progress_seconds": None,
        }
    measured = [(int(entry[0]), metrics(system, entry[1])) for entry in progress]
    timed = all(len(entry) > 2 for entry in progress)
    return {
        "progress_evaluations": [k for k, _ in measured],
        "progress_fidelity": [float(m["fidelity"]) for _, m in measured],
        "progress_residual": [float(m["rel_residual"]) for _, m in measured],
        "progress_seconds": [float(entry[2]) for entry in progress] if timed else None,
    }


RESULTS_VERSION_KEY = b"qlsbench.results_schema_version"


def results_table(rows: list[dict]) -> pa.Table:
    """Arrow table of result rows with the results schema version in its metadata."""
    schema = pa.schema(
        [pa.field(n, t) for n, t in RESULT_COLUMNS], metadata={RESULTS_VERSION_KEY: RESULTS_SCHEMA_VERSION.encode()}
    )
    return pa.Table.from_pylist(rows, schema=schema)


def _readable(path: str | os.PathLike) -> tuple[pa.Table, str]:
    """A results file's table and schema version, refused in one line when this qlsbench cannot read it."""
    table = read_parquet(path, kind="results file", error=InputError)
    version = (table.schema.metadata or {}).get(RESULTS_VERSION_KEY, b"none").decode()
    if version not in READABLE_SCHEMA_VERSIONS:
        raise InputError(
            f"{path}: results schema version {version}, this qlsbench reads {' and '.join(READABLE_SCHEMA_VERSIONS)}"
        )
    return table, version


def read_results_table(path: str | os.PathLike) -> pa.Table:
    """One results file as an Arrow table in the current schema, every stored value kept as stored.

    A file of an older readable version gains the columns added since, as nulls, so files of both versions
    concatenate (a merge of new repeats into an older run, a board published from both).

    Raises
    ------
    InputError
        Naming the file and the version or column at fault.
    """
    table, _ = _readable(path)
    schema = results_table([]).schema
    columns = []
    for field in schema:
        if field.name not in table.schema.names:
            columns.append(pa.nulls(len(table), field.type))
            continue
        try:
            columns.append(table[field.name].cast(field.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise InputError(
                f"{path}: column {field.name!r} is {table.schema.field(field.name).type}, "
                f"a results file's is {field.type}"
            ) from None
    return pa.Table.from_arrays(columns, schema=schema)


def read_results(path: str | os.PathLike) -> pd.DataFrame:
    """Read one results file, checking its schema version and columns.

    Raises
    ------
    InputError
        Naming the file and the version or column at fault.
    """
    table, version = _readable(path)
    present = set(table.schema.names)
    wanted = [n for n, _ in RESULT_COLUMNS if n in present or version == RESULTS_SCHEMA_VERSION]
    df = read_parquet(path, kind="results file", columns=wanted, error=InputError).to_pandas()
    for name, _ in RESULT_COLUMNS:
        if name not in df:  # an older file: a column added since reads as null
            df[name] = None
    return df[[n for n, _ in RESULT_COLUMNS]]


def _is_results_file(path: Path) -> bool:
    """Whether a Parquet file found in a folder is a solver results file (of any schema version).

    Results folders also hold Pauli studies, truncation curves and snapshots;
    those carry no results version and are passed over. A file that cannot
    be read at all is kept, so reading it names the problem.
    """
    try:
        return RESULTS_VERSION_KEY in (pq.read_schema(path).metadata or {})
    except (pa.ArrowException, OSError):
        return True


def results_files(paths) -> list[Path]:
    """Results files of ``paths``: files as given, folders searched for solver results (``*.parquet``).

    Hidden folders (the journals of unfinished runs) are not searched.
    """
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = (
                f
                for f in sorted(p.rglob("*.parquet"))
                if not any(part.startswith(".") for part in f.relative_to(p).parts)
            )
            files.extend(f for f in found if _is_results_file(f))
        else:
            files.append(p)
    if not files:
        raise InputError(f"no results files in {', '.join(map(str, paths)) or 'the paths given'}")
    return files


def load_results(paths) -> pd.DataFrame:
    """Concatenate results files (paths, or folders searched for solver results files)."""
    return pd.concat([read_results(f) for f in results_files(paths)], ignore_index=True)
