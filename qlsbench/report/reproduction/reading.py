"""A shipped-results folder, verified against its manifest and read: what every section of the page reads from."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from qlsbench.bench._results import load_results
from qlsbench.bench._shipped import verify
from qlsbench.report.reproduction.paper import CHECKPOINT_SPACING


@dataclass
class Shipped:
    """A verified shipped-results folder, read."""

    folder: Path
    manifest: dict
    results: pd.DataFrame
    systems: pd.DataFrame
    datasets: dict
    #: The controls folder merged in (:func:`~qlsbench.report._reproduction_controls.with_controls`), if any.
    controls: Shipped | None = None

    def solver(self, label: str, dataset: str | None = None) -> pd.DataFrame:
        """Rows of one solver label (on one dataset), empty when the run did not ship them."""
        rows = self.results[self.results["solver"] == label]
        return rows[rows["dataset"] == dataset] if dataset is not None else rows

    def studies(self, kind: str, names) -> pd.DataFrame:
        """The ``pauli`` or ``truncation`` files of ``names`` that were shipped, concatenated (empty if none)."""
        files = [self.folder / kind / f"{n}.parquet" for n in names]
        parts = [pd.read_parquet(f) for f in files if f.is_file()]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def load_shipped(folder: str | os.PathLike) -> Shipped:
    """Verify a shipped folder against its manifest and read it (see :mod:`qlsbench.bench._shipped`)."""
    folder = Path(folder)
    manifest = verify(folder)
    results = (
        load_results([folder / "results"])
        if (folder / "results").is_dir()
        else pd.DataFrame(columns=["solver", "dataset"])
    )
    return Shipped(
        folder,
        manifest,
        results,
        pd.read_parquet(folder / "systems.parquet"),
        json.loads((folder / "datasets.json").read_text(encoding="utf-8")),
    )


def checkpoint_systems(shipped: Shipped, dataset: str) -> pd.DataFrame:
    """A checkpoint dataset's systems with the paper's checkpoint number (time / spacing)."""
    rows = shipped.systems[shipped.systems["dataset"] == dataset].sort_values("step").copy()
    rows["checkpoint"] = (rows["time"] / CHECKPOINT_SPACING).round().astype(int)
    return rows


__all__ = ["Shipped", "checkpoint_systems", "load_shipped"]
