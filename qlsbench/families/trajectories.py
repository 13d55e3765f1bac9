"""The ``trajectories`` family: CD-Lagrange trajectories of the seed-000 test scenes, for learning dynamics from data.

Not linear systems: one Parquet file per trajectory, the clean columns of
:func:`qlsbench.physics.cdlagrange.run_scene` (``t``, ``q_i``, ``qdot_i``,
``contact``, ``energy``) and, for each noise level ``sigma``, a separate set
``q_i_sigma<s>``, ``qdot_i_sigma<s>`` with centred Gaussian noise (the paper:
0.2 and 0.02).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qlsbench.checks import COUNT, NON_NEGATIVE, POSITIVE, SEED
from qlsbench.errors import InputError
from qlsbench.families.base import Family, Rule
from qlsbench.options import Options, option
from qlsbench.physics.cdlagrange import CD_SCENES, run_scene
from qlsbench.text import plural

#: The name written into every trajectory file's metadata since v1, kept so the bytes stay.
GENERATOR = "qlsbench.generate.trajectory_dataset"
_RUN = inspect.signature(run_scene).parameters


@dataclass(frozen=True)
class TrajectoryOptions(Options):
    """One trajectory and its noisy copies."""

    scene: str = option(help="pendulum, bouncing-ball or newtons-cradle", choices=tuple(CD_SCENES))
    steps: int = option(help="time steps", bounds=COUNT)
    h: float = option(_RUN["h"].default, "time step (the paper: 0.02)", bounds=POSITIVE)
    sigmas: tuple[float, ...] = option(
        (0.2, 0.02), "noise standard deviations", bounds=NON_NEGATIVE, many=True, flag="--sigma"
    )
    seed: int = option(0, "seed of the noise", bounds=SEED)
    impacts: str = option(
        _RUN["mode"].default,
        "how contacts closing in the same step are resolved",
        choices=("sequential", "simultaneous"),
    )
    params: dict = option({}, "scene parameter, e.g. --param e=0.8", pairs=True, flag="--param")
    name: str | None = option(None, "file stem (default: scene and parameters)", cli=False, config=True)

    def check(self) -> None:
        accepted = inspect.signature(CD_SCENES[self.scene]).parameters
        unknown = sorted(set(self.params) - set(accepted))
        if unknown:
            raise InputError(f"params: {self.scene} takes no {', '.join(unknown)} (it takes {', '.join(accepted)})")
        if self.name is not None and ("/" in str(self.name) or str(self.name).startswith(".")):
            raise InputError(f"name {self.name!r} must not contain '/' or start with '.'")


def label(options: TrajectoryOptions) -> str:
    """The file stem: ``name``, else the scene, its parameters and a non-default impact mode
    (``bouncing-ball-e0.8``)."""
    if options.name:
        return str(options.name)
    words = [options.scene] + [
        f"{k}{v:g}" if isinstance(v, (int, float)) else f"{k}{v}" for k, v in sorted(options.params.items())
    ]
    if options.impacts != _RUN["mode"].default:
        words.append(options.impacts)
    return "-".join(words)


def build(options: TrajectoryOptions, out: Path, progress: bool = True) -> dict:
    """Write the trajectory with its noisy column sets to the Parquet file ``out`` (same settings, same bytes)."""
    import pyarrow as pa

    from qlsbench.data import atomic_write_table
    from qlsbench.data._schema import DATASET_META_KEY

    df = run_scene(options.scene, options.steps, h=options.h, mode=options.impacts, **options.params)
    rng = np.random.default_rng(options.seed)
    state = [c for c in df.columns if c.startswith(("q_", "qdot_"))]
    for sigma in options.sigmas:
        for column in state:
            df[f"{column}_sigma{sigma:g}"] = df[column].to_numpy() + rng.normal(0.0, sigma, len(df))
    meta = {
        "generator": GENERATOR,
        "family": "cd_lagrange_trajectory",
        "scene": options.scene,
        "steps": options.steps,
        "h": options.h,
        "sigmas": list(options.sigmas),
        "seed": options.seed,
        "mode": options.impacts,
        "params": options.params,
    }
    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.replace_schema_metadata({DATASET_META_KEY: json.dumps(meta, sort_keys=True).encode()})
    return {**meta, "path": str(atomic_write_table(table, out))}


def report(facts: dict) -> list[str]:
    return [
        f"{facts['scene']}: {plural(facts['steps'], 'step')} of h={facts['h']:g}, noise sigma {facts['sigmas']} -> "
        f"{facts['path']}"
    ]


FAMILY = Family(
    name="trajectories",
    summary="CD-Lagrange trajectories of the pendulum, bouncing ball and Newton's cradle with "
    "noisy copies, for learning dynamics from data (not linear systems)",
    options=TrajectoryOptions,
    build=build,
    label=label,
    report=report,
    command="trajectory",
    config_key="trajectories",
    scenes=tuple(CD_SCENES),
    out_kind="file",
    systems=False,
    rule=Rule("trajectory", local=True, layout="file"),
)
