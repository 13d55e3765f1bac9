"""Datasets: the Parquet schema, an atomic writer, a validating reader and the pinned set.

Load a dataset with ``qlsbench.data.load_dataset(path)`` (or plain
``pandas.read_parquet``) and turn a row back into a system with
``qlsbench.data.to_system(row)``.
"""

from qlsbench.data.reader import (
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
from qlsbench.data.pinned import pinned
from qlsbench.data.schema import COLUMNS, SCHEMA_VERSION
from qlsbench.data.writer import (
    atomic_write,
    atomic_write_table,
    atomic_write_text,
    systems_to_table,
    write_systems,
)

__all__ = [
    "COLUMNS",
    "SCHEMA_VERSION",
    "atomic_write",
    "atomic_write_table",
    "atomic_write_text",
    "dataset_files",
    "dataset_hash",
    "dataset_metadata",
    "dataset_name",
    "iter_systems",
    "load_dataset",
    "pinned",
    "read_parquet",
    "read_table",
    "systems_to_table",
    "to_system",
    "write_systems",
]
