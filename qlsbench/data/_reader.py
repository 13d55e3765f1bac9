"""Read and validate qlsbench Parquet datasets."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import scipy.sparse as sp

from qlsbench.data._schema import (
    COLUMN_NAMES,
    COLUMNS,
    DATASET_META_KEY,
    META_COLUMNS,
    SCHEMA_VERSION,
    VERSION_KEY,
)
from qlsbench.data._validate import check_rows
from qlsbench.errors import DatasetError
from qlsbench.problems import LinearSystem


def dataset_files(path: str | os.PathLike) -> list[Path]:
    """The Parquet files of a dataset: the file itself, or all under a folder.

    Raises
    ------
    DatasetError
        If the path does not exist or a folder holds no ``.parquet`` file.
    """
    p = Path(path)
    if p.is_file():
        return [p]
    if p.is_dir():
        files = sorted(f for f in p.rglob("*.parquet") if not f.name.startswith("."))
        if not files:
            raise DatasetError(f"{p}: folder holds no .parquet files")
        _refuse_copies(files)
        return files
    raise DatasetError(f"{p}: no such file or folder")


def _refuse_copies(files: list[Path]) -> None:
    """One line when two parts of a folder are the same file byte for byte: a part copied in twice would be
    solved, ranked and counted twice. (Parts differ at least in their steps; equal systems across parts are
    kept, as they occur.)"""
    seen: dict[tuple[int, str], Path] = {}
    by_size: dict[int, list[Path]] = {}
    for f in files:
        by_size.setdefault(f.stat().st_size, []).append(f)
    for size, same in by_size.items():
        if len(same) < 2:
            continue  # only files of equal size can be copies: most folders hash nothing
        for f in same:
            key = (size, hashlib.sha256(f.read_bytes()).hexdigest())
            if key in seen:
                raise DatasetError(
                    f"{f}: a copy of {seen[key]} (the same bytes); a dataset folder holds each part once: remove one"
                )
            seen[key] = f


def read_parquet(
    path: str | os.PathLike,
    *,
    kind: str = "Parquet file",
    columns=(),
    hint: str = "",
    error: type[Exception] = DatasetError,
) -> pa.Table:
    """Read a Parquet file that must hold ``columns``.

    Parameters
    ----------
    path : path
        The file.
    kind : str
        What the file should be, for the message when it cannot be read.
    columns : iterable of str
        Columns it must have.
    hint : str
        Appended to the missing-column message (say, which command writes such files).
    error : exception type
        Raised with one line naming the file and the first missing column.
    """
    if not os.path.exists(path):
        raise error(f"{path}: no such file (expected a {kind})")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise error(f"{path}: not a readable {kind} ({exc})") from None
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise error(f"{path}: missing column {missing[0]!r}{hint}")
    return table


def read_table(path: str | os.PathLike) -> pa.Table:
    """Read one dataset file, checking its schema version and columns.

    Raises
    ------
    DatasetError
        Naming the file and, where it applies, the version or column at fault.
    """
    path = Path(path)
    table = read_parquet(path)
    meta = table.schema.metadata or {}
    version = meta.get(VERSION_KEY)
    if version is None:
        raise DatasetError(f"{path}: not a qlsbench dataset (no {VERSION_KEY.decode()} in file metadata)")
    if version.decode() != SCHEMA_VERSION:
        raise DatasetError(
            f"{path}: schema version {version.decode()}, this qlsbench reads version "
            f"{SCHEMA_VERSION}; regenerate the dataset or use a matching qlsbench"
        )
    for name, typ, _ in COLUMNS:
        if name not in table.column_names:
            raise DatasetError(f"{path}: missing column {name!r}")
        if not table.schema.field(name).type.equals(typ):
            raise DatasetError(f"{path}: column {name!r} has type {table.schema.field(name).type}, expected {typ}")
    return table


def load_dataset(path: str | os.PathLike) -> pd.DataFrame:
    """Load a dataset file, or every part under a folder, as one DataFrame.

    Parameters
    ----------
    path : str or path-like
        A ``.parquet`` file or a folder of them (searched recursively).

    Returns
    -------
    pandas.DataFrame
        One row per linear system, with the columns of
        :data:`qlsbench.data._schema.COLUMNS` plus ``source`` (the file path).

    Raises
    ------
    DatasetError
        When a file cannot be read, has no rows, or a row's arrays do not make
        a system (:func:`qlsbench.data._validate.check_rows`).
    """
    frames = []
    for f in dataset_files(path):
        table = read_table(f)
        check_rows(table, f)
        df = table.select(COLUMN_NAMES).to_pandas()
        df["source"] = str(f)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _cast_for(typ: pa.DataType):
    if pa.types.is_integer(typ):
        return int
    if pa.types.is_boolean(typ):
        return bool
    if pa.types.is_floating(typ):
        return float
    return str


_COLUMN_CAST = {name: _cast_for(typ) for name, typ, _ in COLUMNS}


def _vector(row, real: str, imag: str) -> np.ndarray:
    re = np.asarray(row[real], dtype=np.float64)
    im = row[imag]
    if row["is_complex"] and im is not None:
        return re + 1j * np.asarray(im, dtype=np.float64)
    return re


def to_system(row) -> LinearSystem:
    """Rebuild a :class:`LinearSystem` from one dataset row.

    Parameters
    ----------
    row : pandas.Series or mapping
        A row of :func:`load_dataset`.

    Returns
    -------
    LinearSystem
        The stored system, bit for bit, with ``x_ref`` and metadata.

    Raises
    ------
    DatasetError
        If a field is missing or the rebuilt system's hash differs from the
        stored ``system_id`` (the row was altered).
    """
    where = row.get("source", "row") if hasattr(row, "get") else "row"
    try:
        dim = int(row["dim"])
        vals = _vector(row, "vals", "vals_imag")
        A = sp.csr_matrix((vals, (np.asarray(row["rows"]), np.asarray(row["cols"]))), shape=(dim, dim))
        b = _vector(row, "b", "b_imag")
        x_ref = _vector(row, "x_ref", "x_ref_imag")
        meta = json.loads(row["meta_json"])
        for key in META_COLUMNS:
            value = row[key]
            if value is None or pd.isna(value):
                continue  # null in the file: the key was absent from meta
            # pandas turns nullable int columns into float; restore the column type.
            meta[key] = _COLUMN_CAST[key](value)
        meta["cond"] = float(row["cond"])
        stored_id = row["system_id"]
    except KeyError as exc:
        raise DatasetError(f"{where}: missing field {exc.args[0]!r}") from None
    system = LinearSystem(A, b, meta, x_ref)
    if system.system_id != stored_id:
        raise DatasetError(f"{where}: system {stored_id} does not match its data (hash {system.system_id})")
    return system


def iter_systems(path: str | os.PathLike):
    """Yield every :class:`LinearSystem` of a dataset file or folder."""
    df = load_dataset(path)
    for _, row in df.iterrows():
        yield to_system(row)


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
        return "/".join(parts[len(parts) - parts[::-1].index("datasets") :])
    return p.name


def dataset_hash(path: str | os.PathLike) -> str:
    """SHA-256 (first 16 hex digits) over the bytes of all files of a dataset."""
    h = hashlib.sha256()
    for f in dataset_files(path):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def dataset_metadata(path: str | os.PathLike) -> dict:
    """File-level metadata of a dataset file (``{}`` when none was written)."""
    raw = (read_table(path).schema.metadata or {}).get(DATASET_META_KEY)
    return json.loads(raw) if raw else {}
