"""The ``dem_c_checkpoints`` family: a simulation's systems taken at a few evenly spaced steps (fig. 4's checkpoints).

Made from another dataset, not from a simulation: at each chosen step, the
first Newton iteration's system, so a solver is tried at several moments of
the pile's life at the cost of a few systems.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qlsbench.checks import COUNT
from qlsbench.data.reader import dataset_metadata, dataset_name, load_dataset, to_system
from qlsbench.data.writer import write_systems
from qlsbench.errors import DatasetError
from qlsbench.families.base import Family
from qlsbench.options import Options, option


@dataclass(frozen=True)
class CheckpointOptions(Options):
    """Which dataset, and how many of its steps."""

    dataset: str = option(help="physics dataset file or folder", positional=True, path="read")
    count: int = option(4, "number of steps (first Newton iteration of each)", bounds=COUNT)


def checkpoint_rows(df, count: int, min_qubits: int = 2):
    """Rows of ``count`` steps spread evenly over the simulated steps: at each, the first Newton iteration.

    Steps whose systems have fewer than ``min_qubits`` qubits (one or two
    contacts) are passed over: they have nothing to learn.
    """
    count = COUNT.check(count, "count")
    if "step" not in df or df["step"].isna().all():
        raise DatasetError("the dataset has no simulation steps (only physics datasets have checkpoints)")
    df = df[df["n_qubits"] >= min_qubits]
    steps = np.sort(df["step"].dropna().unique())
    if not len(steps):
        raise DatasetError(f"no system of at least {min_qubits} qubits to take checkpoints from")
    chosen = steps[np.unique(np.linspace(0, len(steps) - 1, min(count, len(steps))).round().astype(int))]
    first = df[df["step"].isin(chosen)].sort_values(["step", "newton_iter"]).groupby("step", sort=True).head(1)
    return first


def build(options: CheckpointOptions, out: Path, progress: bool = True) -> dict:
    """Write the checkpoint systems to ``out`` (a folder, ``part-0000.parquet`` inside, or a ``.parquet`` file)."""
    rows = checkpoint_rows(load_dataset(options.dataset), options.count)
    # The source by name (``dem_c/<label>``), not by path: where the file sits (a cluster's scratch, a storage
    # plugin's staging folder) must not change the bytes.
    meta = {"checkpoints_of": dataset_name(options.dataset), "count": options.count,
            "source": dataset_metadata(options.dataset)}
    path = Path(out)
    path = path / "part-0000.parquet" if path.suffix != ".parquet" else path
    write_systems([to_system(row) for _, row in rows.iterrows()], path, metadata=meta)
    return {**meta, "path": str(path), "systems": len(rows)}


def label(options: CheckpointOptions) -> str:
    """The source dataset's name (``dem_c/sedimentation-n16-mu0`` gives ``sedimentation-n16-mu0``)."""
    return Path(str(options.dataset)).name


def report(facts: dict) -> list[str]:
    return [f"wrote {facts['path']}"]


def runs(section: list[dict]) -> list[dict]:
    """A config's ``checkpoints:`` entries name their source as ``dem_c/<label>``: the dataset folder under ``datasets/``."""
    return [{**entry, "dataset": f"datasets/{entry['dataset']}"} for entry in section]


FAMILY = Family(
    name="dem_c_checkpoints", summary="a DEM-C simulation's systems at a few evenly spaced steps (the paper's fig. 4)",
    options=CheckpointOptions, build=build, label=label, report=report, command="checkpoints",
    command_help="a sub-dataset of a simulation's systems at a few evenly spaced steps", config_key="checkpoints",
    out_kind="any", runs=runs,
)
