"""A dataset's systems as Matrix Market files, the format numerical linear algebra reads (SuiteSparse, scipy).

Each system becomes four files in the output folder, named by its pinned name where the pinned manifest knows
the system, else by its ``system_id``:

- ``<name>.mtx``: ``A`` in coordinate format (``real general`` or ``complex general``), every value written
  with 17 significant digits, so ``scipy.io.mmread`` gives back the stored float64 matrix bit for bit (a
  negative zero is written as ``-0``, which scipy's reader returns as ``+0``);
- ``<name>.b.mtx`` and ``<name>.x_ref.mtx``: ``b`` and the reference solution as dense ``array`` columns;
- ``<name>.json``: the row's metadata (family, scene, step, ``n_orig``, ``scale_A``, ``scale_b``, ``cond``, ...)
  and where it came from.

Each file is written to a temporary name and renamed, so an interrupted export leaves whole files only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from qlsbench.data._pinned import read_manifest
from qlsbench.data._reader import dataset_hash, dataset_name, iter_systems
from qlsbench.data._writer import atomic_write, atomic_write_text

#: Significant digits of every value written: enough for any float64 to read back exactly.
DIGITS = 17


def system_names() -> dict[str, str]:
    """``system_id`` to the pinned set's name of the system (the first group's, for one in two groups)."""
    manifest = read_manifest()
    names: dict[str, str] = {}
    for entry in manifest["systems"]:
        names.setdefault(entry["system_id"], entry["name"])
    return names


def _write_mtx(path: Path, data, comment: str) -> Path:
    """``data`` (a sparse matrix or a dense column) to ``path`` in Matrix Market format, atomically."""
    from scipy.io import mmwrite

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as handle:  # a file object: mmwrite would append ".mtx" to a temporary name
            mmwrite(handle, data, comment=comment, precision=DIGITS, symmetry="general")

    return atomic_write(path, write)


def _column(values: np.ndarray) -> np.ndarray:
    return np.asarray(values).reshape(-1, 1)


def export_matrix_market(dataset: str | os.PathLike, out: str | os.PathLike) -> list[Path]:
    """Write every system of ``dataset`` to ``out`` as Matrix Market files (module docstring); the paths written.

    A system that occurs several times in the dataset (the same content) is written once.
    """
    out = Path(out)
    names, source = system_names(), dataset_name(dataset)
    written: list[Path] = []
    seen: set[str] = set()
    for system in iter_systems(dataset):
        if system.system_id in seen:
            continue
        seen.add(system.system_id)
        name = names.get(system.system_id, system.system_id)
        comment = f"qlsbench system {system.system_id} ({name}) of {source}"
        written.append(_write_mtx(out / f"{name}.mtx", system.A.tocoo(), comment))
        written.append(_write_mtx(out / f"{name}.b.mtx", _column(system.b), comment + ": right-hand side b"))
        if system.x_ref is not None:
            written.append(
                _write_mtx(out / f"{name}.x_ref.mtx", _column(system.x_ref), comment + ": reference solution")
            )
        meta = {
            **system.meta,
            "system_id": system.system_id,
            "name": name,
            "dim": system.dim,
            "source": {"dataset": source, "dataset_hash": dataset_hash(dataset)},
        }
        written.append(
            atomic_write_text(out / f"{name}.json", json.dumps(meta, sort_keys=True, indent=1, default=_plain) + "\n")
        )
    return written


def _plain(value):
    """JSON for numpy scalars and arrays in a system's metadata."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


__all__ = ["DIGITS", "export_matrix_market", "system_names"]
