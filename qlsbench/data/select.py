"""Sub-datasets: the systems of a dataset taken at a few moments of its simulation (fig. 4's checkpoints)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from qlsbench.data.reader import dataset_metadata, load_dataset, to_system
from qlsbench.data.writer import write_systems
from qlsbench.errors import DatasetError, InputError


def checkpoint_rows(df, count: int, min_qubits: int = 2):
    """Rows of ``count`` steps spread evenly over the simulated steps: at each, the first Newton iteration.

    Steps whose systems have fewer than ``min_qubits`` qubits (one or two
    contacts) are passed over: they have nothing to learn.
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise InputError(f"count must be an integer >= 1, got {count!r}")
    if "step" not in df or df["step"].isna().all():
        raise DatasetError("the dataset has no simulation steps (only physics datasets have checkpoints)")
    df = df[df["n_qubits"] >= min_qubits]
    steps = np.sort(df["step"].dropna().unique())
    if not len(steps):
        raise DatasetError(f"no system of at least {min_qubits} qubits to take checkpoints from")
    chosen = steps[np.unique(np.linspace(0, len(steps) - 1, min(count, len(steps))).round().astype(int))]
    first = df[df["step"].isin(chosen)].sort_values(["step", "newton_iter"]).groupby("step", sort=True).head(1)
    return first


def write_checkpoints(dataset: str | os.PathLike, out: str | os.PathLike, count: int) -> Path:
    """Write the checkpoint systems of ``dataset`` to ``out`` (a folder, ``part-0000.parquet`` inside)."""
    rows = checkpoint_rows(load_dataset(dataset), count)
    meta = {"checkpoints_of": str(dataset), "count": int(count), "source": dataset_metadata(dataset)}
    path = Path(out)
    path = path / "part-0000.parquet" if path.suffix != ".parquet" else path
    write_systems([to_system(row) for _, row in rows.iterrows()], path, metadata=meta)
    return path
