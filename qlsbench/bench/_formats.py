"""Every file format qlsbench writes, as a fingerprint, so that none changes without a new version.

A fingerprint is the SHA-256 (16 hex digits) of a format's columns (name and
Arrow type, in order), its schema version and its metadata keys. Formats whose
columns are written down (datasets, results, snapshots, in-loop steps) are read
from their declarations (:func:`declared`); the Pauli studies' columns exist only
in what their writers build, so :func:`written` writes small ones and reads their
schema back. ``tests/test_versions.py`` holds both against
:data:`qlsbench.versions.FORMAT_FINGERPRINTS` for the package's version.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def fingerprint(fields: Iterable[tuple[str, object]], *extra: object) -> str:
    """16 hex digits of SHA-256 over ``fields`` (name and type, in order) and ``extra`` (versions, keys)."""
    text = "\n".join([*(f"{name}: {typ}" for name, typ in fields), *map(str, extra)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def schema_fingerprint(schema: pa.Schema) -> str:
    """The fingerprint of a written file's columns and the qlsbench keys of its metadata (pandas' own left out)."""
    keys = sorted(k.decode() for k in (schema.metadata or {}) if k.startswith(b"qlsbench."))
    return fingerprint(((f.name, f.type) for f in schema), *keys)


def declared() -> dict[str, str]:
    """The fingerprints of the formats whose columns are declared: datasets, results, snapshots, in-loop files."""
    from qlsbench.bench import _results as results
    from qlsbench.bench import in_loop
    from qlsbench.data import _schema as schema
    from qlsbench.data import _snapshots as snapshots

    options = [(f.name, f.type) for f in dataclasses.fields(in_loop.InLoopOptions)]
    return {
        "datasets": fingerprint(
            ((n, t) for n, t, _ in schema.COLUMNS),
            schema.SCHEMA_VERSION,
            schema.VERSION_KEY,
            schema.PACKAGE_KEY,
            schema.DATASET_META_KEY,
            schema.META_COLUMNS,
        ),
        "results": fingerprint(
            results.RESULT_COLUMNS,
            results.RESULTS_SCHEMA_VERSION,
            results.RESULTS_VERSION_KEY,
            results.READABLE_SCHEMA_VERSIONS,
        ),
        "snapshots": fingerprint(
            snapshots.SNAPSHOT_COLUMNS,
            snapshots.SNAPSHOT_SCHEMA_VERSION,
            snapshots.SNAPSHOT_VERSION_KEY,
            snapshots.SNAPSHOT_META_KEY,
        ),
        # the per-step columns, and the options recorded in the file's metadata beside the runs' summaries
        "in-loop": fingerprint(
            ((name, "column") for name in in_loop.STEP_COLUMNS),
            in_loop.IN_LOOP_META_KEY,
            *(f"option {n}: {t}" for n, t in options),
        ),
    }


def written(dataset: str | os.PathLike, folder: str | os.PathLike) -> dict[str, str]:
    """The fingerprints of the Pauli studies (``qlsbench pauli``, ``qlsbench lcu`` with its terms, ``qlsbench
    resources``) as their writers build them from ``dataset`` (a few small systems), written into ``folder``."""
    from qlsbench.bench._pauli_study import lcu_table, pauli_study, resource_table

    folder = Path(folder)
    out = {}
    for name, write in (
        ("pauli", lambda p: pauli_study(dataset, p, reorder=True, progress=False)),
        ("lcu", lambda p: lcu_table(dataset, p, terms=True, progress=False)),
        ("resources", lambda p: resource_table(dataset, p, progress=False)),
    ):
        path = folder / f"{name}.parquet"
        write(path)
        out[name] = schema_fingerprint(pq.read_schema(path))
    return out


__all__ = ["declared", "fingerprint", "schema_fingerprint", "written"]
