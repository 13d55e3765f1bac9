"""Datasets: the Parquet schema, an atomic writer, a validating reader and the pinned set.

Load a dataset with ``qlsbench.data.load_dataset(path)`` (or plain
``pandas.read_parquet``) and turn a row back into a system with
``qlsbench.data.to_system(row)``.
"""

from qlsbench.data._matrix_market import export_matrix_market
from qlsbench.data._pinned import PINNED, pinned, pinned_files, read_manifest
from qlsbench.data._reader import (
    dataset_files,
    dataset_hash,
    dataset_metadata,
    dataset_name,
    iter_systems,
    load_dataset,
    read_parquet,
    read_table,
    to_system,
)
from qlsbench.data._schema import COLUMNS, SCHEMA_VERSION
from qlsbench.data._snapshots import read_snapshots, write_snapshots
from qlsbench.data._writer import (
    atomic_write,
    atomic_write_table,
    atomic_write_text,
    systems_to_table,
    write_systems,
)

__all__ = [
    "COLUMNS",
    "PINNED",
    "SCHEMA_VERSION",
    "atomic_write",
    "atomic_write_table",
    "atomic_write_text",
    "dataset_files",
    "dataset_hash",
    "dataset_metadata",
    "dataset_name",
    "export_matrix_market",
    "iter_systems",
    "load_dataset",
    "pinned",
    "pinned_files",
    "read_manifest",
    "read_parquet",
    "read_snapshots",
    "read_table",
    "systems_to_table",
    "to_system",
    "write_snapshots",
    "write_systems",
]
