"""Dataset families: one module each, and one table, :data:`FAMILIES`, that everything else reads.

A family is an options record (its defaults and bounds written once) and a
``build(options, out)`` that writes its dataset (:class:`~qlsbench.families.base.Family`).
The command line builds its dataset commands from this table, the workflow
finds each family's config section and dataset labels here, ``board pin``
builds the pinned set through it and the dataset card is checked against it.

A new family is one module here, one line in :data:`FAMILIES` and one rule in
``workflows/rules/datasets.smk``.
"""

from __future__ import annotations

import os
from pathlib import Path

from qlsbench.errors import InputError
from qlsbench.families import (
    cd_lagrange,
    checkpoints,
    dem_c,
    ising,
    penalty,
    pinned,
    trajectories,
)
from qlsbench.families.base import Family
from qlsbench.options import Options

#: Every dataset family by name (its folder under ``datasets/``); within a command, table order decides
#: which family a ``--scene`` without ``--integrator`` selects.
FAMILIES: dict[str, Family] = {family.name: family for family in (
    ising.FAMILY,
    dem_c.FAMILY,
    checkpoints.FAMILY,
    penalty.FAMILY,
    cd_lagrange.FAMILY,
    pinned.FAMILY,
    trajectories.FAMILY,
)}


def commands() -> dict[str, list[Family]]:
    """The ``qlsbench`` commands that build datasets, each with its families in table order."""
    out: dict[str, list[Family]] = {}
    for family in FAMILIES.values():
        out.setdefault(family.command, []).append(family)
    return out


def select(command: str, scene: str | None = None, integrator: str | None = None) -> Family:
    """The family a ``qlsbench <command> [--scene S] [--integrator I]`` run builds.

    Raises
    ------
    InputError
        When no family of the command takes that scene with that integrator.
    """
    families = commands()[command]
    for family in families:
        scene_ok = scene is None or not family.scenes or scene in family.scenes
        if scene_ok and integrator in (None, family.integrator):
            return family
    scenes = sorted({s for f in families for s in f.scenes})
    if scene is not None and scene not in scenes:
        raise InputError(f"--scene {scene!r} is none of {', '.join(scenes)}")
    takers = [f"{f.name} ({', '.join(f.scenes)})" for f in families if f.integrator == integrator]
    raise InputError(f"--integrator {integrator} does not apply to --scene {scene} (--integrator {integrator} "
                     f"builds {'; '.join(takers) or 'nothing'})")


def build(family: str, out: str | os.PathLike, *, progress: bool = True, **options) -> dict:
    """Build one dataset of ``family`` at ``out`` from keyword options; returns its metadata and run facts.

    ``build("dem_c", "datasets/dem_c/mine", n_spheres=32, mu=0.3, regularization=1e-8)``
    is ``qlsbench simulate --n-spheres 32 --mu 0.3 --regularization 1e-8 --out ...``.

    Raises
    ------
    InputError
        For an unknown family, or an option it does not take or a bad value, named.
    """
    if family not in FAMILIES:
        raise InputError(f"unknown dataset family {family!r}; available: {', '.join(FAMILIES)}")
    chosen = FAMILIES[family]
    return chosen.build(chosen.options.from_mapping(options), Path(out), progress)


__all__ = ["FAMILIES", "Family", "Options", "build", "commands", "select"]
