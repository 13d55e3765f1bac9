"""The ``dem_c`` family: min-map Newton subsystems of a DEM-C sphere simulation (De et al., alg. 1 and 2)."""

from __future__ import annotations

from pathlib import Path

from qlsbench.families.base import Family
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
    name="dem_c", summary="min-map Newton subsystems of a DEM-C sedimentation of rigid spheres (symmetric without "
                          "friction, non-symmetric with it), padded to a power of two and normalised",
    options=SphereOptions, build=build, label=base_label, report=report, command="simulate",
    config_key="simulate", scenes=tuple(SCENES), integrator="dem_c",
)
