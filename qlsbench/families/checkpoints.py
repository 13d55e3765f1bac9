"""The ``dem_c_checkpoints`` family: a simulation's systems taken at a few evenly spaced steps (fig. 4's checkpoints).

Made from another dataset, not from a simulation: at each chosen step, one
Newton iteration's system (the first, the middle or the last the step kept),
so a solver is tried at several moments of the pile's life at the cost of a
few systems. From a warm start the first iteration already sees the step's
contacts; from zero (the paper's alg. 1) it sees only the contacts whose
``r`` is negative, and the later iterations carry the step's active set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qlsbench.checks import COUNT
from qlsbench.data._reader import dataset_metadata, dataset_name, load_dataset, to_system
from qlsbench.data._writer import write_systems
from qlsbench.errors import DatasetError
from qlsbench.families.base import Family, Rule
from qlsbench.options import Options, option

#: Which Newton iteration of a checkpoint step is taken (:func:`checkpoint_rows`).
ITERATIONS = ("first", "middle", "last")


@dataclass(frozen=True)
class CheckpointOptions(Options):
    """Which dataset, and how many of its steps."""

    dataset: str = option(help="physics dataset file or folder", positional=True, path="read")
    count: int = option(4, "number of steps", bounds=COUNT)
    iteration: str = option(
        "first",
        "which of each chosen step's Newton iterations: first, middle (the "
        "(k-1)//2-th of the k kept) or last (the step's final active set)",
        choices=ITERATIONS,
    )


def checkpoint_rows(df, count: int, min_qubits: int = 2, iteration: str = "first"):
    """Rows of ``count`` steps spread evenly over the simulated steps: at each, one Newton iteration.

    ``iteration`` picks, among the step's kept systems in Newton order, the
    first, the middle (index ``(k - 1) // 2`` of ``k``) or the last.

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
    if iteration not in ITERATIONS:
        raise DatasetError(f"iteration must be one of {', '.join(ITERATIONS)}, got {iteration!r}")
    ordered = df[df["step"].isin(chosen)].sort_values(["step", "newton_iter"])
    position = ordered.groupby("step", sort=True).cumcount()
    size = ordered.groupby("step", sort=True)["step"].transform("size")
    wanted = {"first": 0, "middle": (size - 1) // 2, "last": size - 1}[iteration]
    return ordered[position == wanted]


def build(options: CheckpointOptions, out: Path, progress: bool = True) -> dict:
    """Write the checkpoint systems to ``out`` (a folder, ``part-0000.parquet`` inside, or a ``.parquet`` file)."""
    rows = checkpoint_rows(load_dataset(options.dataset), options.count, iteration=options.iteration)
    # The source by name (``dem_c/<label>``), not by path: where the file sits (a cluster's scratch, a storage
    # plugin's staging folder) must not change the bytes.
    meta = {
        "checkpoints_of": dataset_name(options.dataset),
        "count": options.count,
        "source": dataset_metadata(options.dataset),
    }
    if options.iteration != "first":  # only then: the first iteration's files keep their bytes
        meta["iteration"] = options.iteration
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
    """A config's ``checkpoints:`` entries name their source as ``dem_c/<label>``: the dataset folder under
    ``datasets/``."""
    return [{**entry, "dataset": f"datasets/{entry['dataset']}"} for entry in section]


FAMILY = Family(
    name="dem_c_checkpoints",
    summary="a DEM-C simulation's systems at a few evenly spaced steps (the paper's fig. 4)",
    options=CheckpointOptions,
    build=build,
    label=label,
    report=report,
    command="checkpoints",
    config_key="checkpoints",
    out_kind="any",
    runs=runs,
    rule=Rule("checkpoints", local=True, inputs={"dataset": "datasets/dem_c/{label}/part-0000.parquet"}),
)
