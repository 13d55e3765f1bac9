"""The ``dem_c`` family: min-map Newton subsystems of a DEM-C sphere simulation (De et al., alg. 1 and 2)."""

from __future__ import annotations

from pathlib import Path

from qlsbench.families.base import Family, Rule
from qlsbench.families.sphere_world import loop_world
from qlsbench.families.spheres import (
    SphereOptions,
    base_label,
    report,
    simulate_spheres,
)
from qlsbench.physics.spheres.scenes import SCENES


def build(options: SphereOptions, out: Path, progress: bool = True) -> dict:
    """Simulate with alg. 1's integrator and write the subsystems to ``out/part-0000.parquet``."""
    return simulate_spheres(options, out, progress, label=base_label(options), family="dem_c")


FAMILY = Family(
    name="dem_c",
    summary="min-map Newton subsystems of a DEM-C sedimentation of rigid spheres (symmetric without "
    "friction, non-symmetric with it), padded to a power of two and normalised",
    options=SphereOptions,
    build=build,
    label=base_label,
    report=report,
    command="simulate",
    config_key="simulate",
    scenes=tuple(SCENES),
    integrator="dem_c",
    loop=loop_world("dem_c"),
    # Simulations start first: a long one (paper.yaml's 320,000 steps) heads the workflow's longest chain
    # (simulation -> checkpoints -> solves), while the solves of other datasets can fill the other cores. The
    # run's sphere snapshots (fig. 3) are the rule's second output.
    rule=Rule(
        "simulate",
        resources={"mem_mb": 4000, "runtime": 240},
        priority=10,
        outputs={"snapshots": "results/snapshots/{label}.parquet"},
    ),
)
