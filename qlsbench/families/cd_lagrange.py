"""The ``cd_lagrange`` family: the sphere sedimentation under the CD-Lagrange restitution integrator (seed 000).

Positions move first; contacts closed at the new positions get impulses from
Newton's restitution law as one LCP, solved by the same min-map Newton as
``dem_c``, whose subsystems are this family's systems.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qlsbench.checks import Real
from qlsbench.families.base import Family, Rule
from qlsbench.families.sphere_world import loop_world
from qlsbench.families.spheres import (
    SphereOptions,
    base_label,
    report,
    simulate_spheres,
)
from qlsbench.options import option
from qlsbench.physics import StepOptions
from qlsbench.physics.spheres.scenes import SCENES


@dataclass(frozen=True)
class CDLagrangeOptions(SphereOptions):
    """A sphere simulation with restitution impacts."""

    restitution: float = option(StepOptions.restitution, "Newton's restitution e in [0, 1]", bounds=Real(0.0, 1.0))


def label(options: CDLagrangeOptions) -> str:
    """``sedimentation-n16-mu0-e0.5``, or the run's ``name``."""
    return options.name or f"{base_label(options)}-e{options.restitution:g}"


def build(options: CDLagrangeOptions, out: Path, progress: bool = True) -> dict:
    """Simulate with restitution impacts and write the subsystems to ``out/part-0000.parquet``."""
    return simulate_spheres(
        options,
        out,
        progress,
        label=label(options),
        family="cd_lagrange",
        integrator="cd_lagrange",
        restitution=options.restitution,
    )


FAMILY = Family(
    name="cd_lagrange",
    summary="min-map Newton subsystems of the impact LCPs of a sphere sedimentation under the "
    "CD-Lagrange restitution integrator",
    options=CDLagrangeOptions,
    build=build,
    label=label,
    report=report,
    command="simulate",
    config_key="cd_lagrange",
    scenes=tuple(SCENES),
    integrator="cd_lagrange",
    loop=loop_world("cd_lagrange", "restitution"),
    rule=Rule("simulate_cd_lagrange", resources={"mem_mb": 4000, "runtime": 240}),
)
