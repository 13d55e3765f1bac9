"""Sphere snapshots of a DEM-C run (the paper's fig. 3): their Parquet schema, writer and reader.

``qlsbench simulate --snapshots`` records the states; this module only knows
the file: one row per (step, sphere), the run's settings in its metadata.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from qlsbench.data._reader import read_parquet
from qlsbench.data._writer import atomic_write_table
from qlsbench.errors import DatasetError, InputError

#: File-level key-value metadata keys of a snapshot file.
SNAPSHOT_VERSION_KEY = b"qlsbench.snapshot_schema_version"
SNAPSHOT_META_KEY = b"qlsbench.snapshot_meta"  # JSON: container, scene settings, chosen steps
SNAPSHOT_SCHEMA_VERSION = "1"

#: Columns of a snapshot file, one row per (step, sphere), in file order.
SNAPSHOT_COLUMNS: list[tuple[str, pa.DataType]] = [
    ("step", pa.int64()),  # index of the time step (0-based) whose end state the row holds
    ("time", pa.float64()),  # simulated time at the end of that step (s)
    ("sphere", pa.int64()),  # sphere index
    ("x", pa.float64()),  # centre (m)
    ("y", pa.float64()),
    ("z", pa.float64()),
    ("radius", pa.float64()),  # (m)
    ("impulse", pa.float64()),  # sum of the normal impulse magnitudes of the sphere's contacts in that step (N s)
]


def _plain(value):
    """numpy scalars and arrays as JSON values (settings may arrive as numpy types from Python callers)."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise InputError(f"snapshot metadata value of type {type(value).__name__} cannot be stored as JSON")


def snapshot_table(records: list[dict], metadata: dict) -> pa.Table:
    """Snapshots as an Arrow table, ``metadata`` (JSON-able) in its key-value metadata.

    Parameters
    ----------
    records : list of dict
        One per step: ``step``, ``time``, ``positions`` ``(N, 3)``, ``radii``
        ``(N,)`` and ``impulse`` ``(N,)``.
    metadata : dict
        Settings of the run (container, scene, chosen steps).
    """
    records = sorted(records, key=lambda r: r["step"])
    counts = [len(r["radii"]) for r in records]
    positions = np.concatenate([r["positions"] for r in records]) if records else np.empty((0, 3))
    columns = {
        "step": np.repeat([r["step"] for r in records], counts).astype(np.int64),
        "time": np.repeat([r["time"] for r in records], counts).astype(np.float64),
        "sphere": np.concatenate([np.arange(c, dtype=np.int64) for c in counts]) if records else np.empty(0, np.int64),
        "x": positions[:, 0],
        "y": positions[:, 1],
        "z": positions[:, 2],
        "radius": np.concatenate([r["radii"] for r in records]) if records else np.empty(0),
        "impulse": np.concatenate([r["impulse"] for r in records]) if records else np.empty(0),
    }
    # Sorted keys and no wall-clock values: the same run always gives the same bytes.
    text = json.dumps(metadata, sort_keys=True, default=_plain)
    schema = pa.schema(
        [pa.field(n, t) for n, t in SNAPSHOT_COLUMNS],
        metadata={SNAPSHOT_VERSION_KEY: SNAPSHOT_SCHEMA_VERSION.encode(), SNAPSHOT_META_KEY: text.encode()},
    )
    return pa.Table.from_arrays([pa.array(columns[n], type=t) for n, t in SNAPSHOT_COLUMNS], schema=schema)


def write_snapshots(records: list[dict], path: str | os.PathLike, metadata: dict) -> Path:
    """Write snapshots to a Parquet file, atomically (temp file and rename) and byte-reproducibly."""
    return atomic_write_table(snapshot_table(records, metadata), path)


def read_snapshots(path: str | os.PathLike) -> tuple[pd.DataFrame, dict]:
    """Read a snapshot file of ``qlsbench simulate --snapshots``.

    Returns
    -------
    snapshots : pandas.DataFrame
        One row per (step, sphere) with the columns of
        :data:`SNAPSHOT_COLUMNS`.
    meta : dict
        The file's settings: container centre and radius, scene, h, steps ...

    Raises
    ------
    DatasetError
        Naming the file and the missing column or metadata key.
    """
    table = read_parquet(
        path, columns=[n for n, _ in SNAPSHOT_COLUMNS], hint=" (not a `qlsbench simulate --snapshots` file?)"
    )
    raw = (table.schema.metadata or {}).get(SNAPSHOT_META_KEY)
    if raw is None:
        raise DatasetError(f"{path}: no {SNAPSHOT_META_KEY.decode()} in the file metadata (container and settings)")
    return table.select([n for n, _ in SNAPSHOT_COLUMNS]).to_pandas(), json.loads(raw)
