"""Write linear systems to Parquet, atomically and byte-reproducibly."""

from __future__ import annotations

import json
import os
import re
import socket
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from qlsbench.data._schema import DATASET_META_KEY, META_COLUMNS, arrow_schema
from qlsbench.errors import InputError, refused_write
from qlsbench.problems import (
    LinearSystem,
    condition_number,
    hermitian_defect,
    reference_solution,
)


def _json_value(key: str, value):
    """Convert numpy scalars to Python ones; refuse what JSON cannot hold."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    try:
        json.dumps(value, allow_nan=True)
    except TypeError:
        raise InputError(f"meta[{key!r}] of type {type(value).__name__} cannot be stored as JSON") from None
    return value


def _list_array(parts: list[np.ndarray], typ: pa.DataType) -> pa.ListArray:
    """Build a list column from per-row numpy arrays without Python-level copies."""
    offsets = np.zeros(len(parts) + 1, dtype=np.int32)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    values = np.concatenate(parts) if parts else np.array([])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, type=typ.value_type), type=typ)


def _nullable_list(parts: list[np.ndarray | None], typ: pa.DataType) -> pa.Array:
    if all(p is None for p in parts):
        return pa.nulls(len(parts), type=typ)
    return pa.array([None if p is None else p.tolist() for p in parts], type=typ)


def _row(system: LinearSystem) -> dict:
    """Flatten one system into column values."""
    if not isinstance(system, LinearSystem):
        raise InputError(f"expected a LinearSystem, got {type(system).__name__}")
    meta = dict(system.meta)
    A = system.A
    coo = A.tocoo()  # canonical CSR gives row-major COO
    x_ref = system.x_ref if system.x_ref is not None else reference_solution(A, system.b)
    dim = system.dim
    is_pow2 = dim & (dim - 1) == 0
    cplx = system.is_complex or np.iscomplexobj(x_ref)
    # cond has a column of its own but is computed when absent, so it is not in META_COLUMNS.
    extra = {k: _json_value(k, v) for k, v in sorted(meta.items()) if k not in META_COLUMNS and k != "cond"}
    cond = meta.get("cond")
    return {
        "system_id": system.system_id,
        "family": str(meta.get("family", "unknown")),
        "scene": str(meta.get("scene", "")),
        "step": meta.get("step"),
        "newton_iter": meta.get("newton_iter"),
        "seed": meta.get("seed"),
        "n_orig": int(meta.get("n_orig", dim)),
        "n_qubits": dim.bit_length() - 1 if is_pow2 else None,
        "dim": dim,
        "nnz": system.nnz,
        "cond": float(cond) if cond is not None else condition_number(A),
        "symmetric": bool(meta["symmetric"]) if "symmetric" in meta else hermitian_defect(A) == 0.0,
        "scale_A": float(meta.get("scale_A", 1.0)),
        "scale_b": float(meta.get("scale_b", 1.0)),
        "is_complex": bool(cplx),
        "rows": coo.row.astype(np.int32),
        "cols": coo.col.astype(np.int32),
        "vals": np.ascontiguousarray(coo.data.real, dtype=np.float64),
        "vals_imag": np.ascontiguousarray(coo.data.imag, dtype=np.float64) if cplx else None,
        "b": np.ascontiguousarray(system.b.real, dtype=np.float64),
        "b_imag": np.ascontiguousarray(system.b.imag, dtype=np.float64) if cplx else None,
        "x_ref": np.ascontiguousarray(np.real(x_ref), dtype=np.float64),
        "x_ref_imag": np.ascontiguousarray(np.imag(x_ref), dtype=np.float64) if cplx else None,
        "meta_json": json.dumps(extra, sort_keys=True),
    }


def systems_to_table(
    systems: Iterable[LinearSystem], metadata: dict | None = None, *, progress: bool = False
) -> pa.Table:
    """Convert systems to an Arrow table of the current schema.

    ``metadata`` (JSON-able) is stored once for the whole file, e.g. how many
    systems a filter dropped; read it back with :func:`qlsbench.data.dataset_metadata`.
    ``progress`` shows a bar over the systems (each may need a reference solve and a condition number).
    """
    from qlsbench.versions import DATASET_STAMP

    schema = arrow_schema(DATASET_STAMP)  # not the package's version: a release that changes no dataset keeps its bytes
    if metadata is not None:
        extra = {k: _json_value(k, v) for k, v in metadata.items()}
        schema = schema.with_metadata({**schema.metadata, DATASET_META_KEY: json.dumps(extra, sort_keys=True).encode()})
    rows = [_row(s) for s in tqdm(systems, desc="exporting", unit="system", disable=not progress, leave=False)]
    arrays = []
    for field in schema:
        values = [r[field.name] for r in rows]
        if pa.types.is_list(field.type):
            if any(v is None for v in values):
                arrays.append(_nullable_list(values, field.type))
            else:
                arrays.append(_list_array(values, field.type))
        else:
            arrays.append(pa.array(values, type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _host_tag() -> str:
    """This machine's name as it goes into temporary file names (letters, digits and dashes only)."""
    return re.sub(r"[^A-Za-z0-9-]+", "-", socket.gethostname()).strip("-") or "host"


def _temp_prefix(path: Path) -> str:
    """``.<name>.<host>-<pid>.``: the temporary files of ``path`` say which process writes them."""
    return f".{path.name}.{_host_tag()}-{os.getpid()}."


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine (one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_stale_temporaries(path: str | os.PathLike, *, every_target: bool = False) -> list[Path]:
    """Remove the temporary files of ``path`` that writers killed mid-write left behind.

    Only files named as :func:`atomic_write` names them, by a process of this
    machine that no longer exists, are removed: never one a live writer
    (here, or on another machine sharing the folder) is still filling.

    Parameters
    ----------
    path : path
        The file whose temporaries are swept; with ``every_target``, a folder
        whose temporaries of any file are swept (one pass for a folder of many
        small files written once each, such as a run's journal).

    Returns
    -------
    list of pathlib.Path
        The files removed.
    """
    path = Path(path)
    folder, name = (path, r"[^/]+?") if every_target else (path.parent, re.escape(path.name))
    pattern = re.compile(rf"\.{name}\.(?P<host>[A-Za-z0-9-]+)-(?P<pid>\d+)\.[^.]+\.tmp")
    removed: list[Path] = []
    try:
        entries = [e.name for e in os.scandir(folder) if e.name.startswith(".") and e.name.endswith(".tmp")]
    except OSError:  # no folder yet: nothing was left in it
        return removed
    host = _host_tag()
    for entry in entries:
        match = pattern.fullmatch(entry)
        if match and match["host"] == host and not _alive(int(match["pid"])):
            (folder / entry).unlink(missing_ok=True)
            removed.append(folder / entry)
    return removed


def atomic_write(path: str | os.PathLike, write: Callable[[Path], object], *, sweep: bool = True) -> Path:
    """Create ``path`` by ``write(temporary_path)`` and a rename.

    A crash or interrupt leaves either the old file or the new one, never a
    partial file; the temporary file is removed on failure. A writer killed
    outright (SIGKILL) cannot remove its temporary file: its name carries the
    writer's host and process id, and the next write of ``path`` removes it
    once that process is gone (``sweep=False`` leaves that to the caller, who
    sweeps a folder of many such files once with :func:`remove_stale_temporaries`).
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if sweep:
            remove_stale_temporaries(path)
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise (refused_write(exc, path) or exc) from None
    os.close(fd)
    try:
        write(Path(tmp))
        # mkstemp makes owner-only files; outputs are shared, so give the mode a plain open() would.
        os.chmod(tmp, 0o666 & ~_current_umask())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        refused = refused_write(exc, path)  # a full disk or a read-only place: one line naming the file
        if refused is not None:
            raise refused from None
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_write`)."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def atomic_write_table(table: pa.Table, path: str | os.PathLike, *, sweep: bool = True) -> Path:
    """Write an Arrow table to Parquet atomically (see :func:`atomic_write`, and ``sweep`` there).

    Compression and statistics settings are fixed so the same table always
    gives the same bytes.
    """
    return atomic_write(
        path,
        lambda tmp: pq.write_table(
            table,
            tmp,
            compression="zstd",
            compression_level=3,
            use_dictionary=False,
            write_statistics=True,
            store_schema=True,
        ),
        sweep=sweep,
    )


def write_systems(
    systems: Iterable[LinearSystem], path: str | os.PathLike, metadata: dict | None = None, *, progress: bool = False
) -> Path:
    """Write linear systems to one Parquet file, one row per system.

    Missing reference solutions and condition numbers are computed here
    (sparse LU; dense SVD up to dimension 4096).

    Parameters
    ----------
    systems : iterable of LinearSystem
        Systems to store.
    path : str or path-like
        Destination ``.parquet`` file; parent folders are created.
    metadata : dict, optional
        File-level facts about the dataset (generator settings, filter counts).
    progress : bool
        Show a bar over the systems as they are prepared (a simulation's hundreds take seconds to minutes).

    Returns
    -------
    pathlib.Path
        The written path.

    Raises
    ------
    InputError
        If an element is not a LinearSystem or its metadata cannot be stored;
        nothing is written in that case.
    """
    return atomic_write_table(systems_to_table(systems, metadata, progress=progress), path)
