"""Dataset families: one module each, and one table, :data:`FAMILIES`, that everything else reads.

A family is an options record (its defaults and bounds written once) and a
``build(options, out)`` that writes its dataset (:class:`~qlsbench.families.base.Family`).
The command line builds its dataset commands from this table, the workflow
generates each family's rule and config schema from it (its :class:`~qlsbench.families.base.Rule`
and options record), ``qlsbench in-loop`` finds its simulations here (``loop``),
``board pin`` builds the pinned set through it and the dataset card is checked against it.

A new family is one module here and one line in :data:`BUILT_IN` (or, from another package, an entry point
of the group ``qlsbench.families`` naming its :class:`~qlsbench.families.base.Family`), with its card and docs.

The table is read lazily (:data:`FAMILIES` is built on first use): the families' modules bring the physics,
and ``qlsbench --help`` must not wait for them (:func:`command_lines` lists their commands without them).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from qlsbench.errors import InputError
from qlsbench.families.base import Family
from qlsbench.options import Options

#: Entry-point group through which another package registers a family (``name = "module:FAMILY"``).
ENTRY_POINT_GROUP = "qlsbench.families"

#: The built-in families, each the module holding its ``FAMILY``, in table order; within a command, table order
#: decides which family a ``--scene`` without ``--integrator`` selects.
BUILT_IN = (
    "qlsbench.families.ising",
    "qlsbench.families.dem_c",
    "qlsbench.families.checkpoints",
    "qlsbench.families.penalty",
    "qlsbench.families.cd_lagrange",
    "qlsbench.families.pinned",
    "qlsbench.families.trajectories",
)

#: The built-in dataset commands with their one line of help, in the order ``qlsbench --help`` lists them (read
#: without importing the families). A plug-in family with a command of its own gives its line as its record's
#: ``command_help``.
COMMAND_HELP = {
    "ising": "write Ising-inspired VQLS systems to a Parquet dataset",
    "simulate": "run a simulation (DEM-C, CD-Lagrange or penalty friction) and write its Newton subsystems",
    "checkpoints": "a sub-dataset of a simulation's systems at a few evenly spaced steps",
    "pinned": "copy the leaderboard's pinned systems (a group, or all) into a dataset folder",
    "trajectory": "write a CD-Lagrange trajectory (clean and noisy columns) to Parquet",
}

_TABLES: dict[bool, dict[str, Family]] = {}


def __getattr__(name: str):
    if name == "FAMILIES":  # every family by name (its folder under datasets/): built-in, then plug-ins
        return families()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def families(plugins: bool = True) -> dict[str, Family]:
    """Every dataset family by name: the built-in ones in table order, then (``plugins``) those registered
    through :data:`ENTRY_POINT_GROUP`, sorted by name.

    Raises
    ------
    InputError
        A plug-in that fails to load, is not a :class:`~qlsbench.families.base.Family`, or takes a name, a
        config section or a rule name another family has, named with its entry point.
    """
    if plugins not in _TABLES:
        table = {}
        for module in BUILT_IN:
            family = importlib.import_module(module).FAMILY
            table[family.name] = family
        if plugins:
            table.update(_plugins(table))
        _TABLES[plugins] = table
    return _TABLES[plugins]


def _entry_points() -> list:
    from importlib.metadata import entry_points

    return sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def _plugins(built_in: dict[str, Family]) -> dict[str, Family]:
    table = dict(built_in)
    for ep in _entry_points():
        try:
            family = ep.load()
        except Exception as exc:  # a broken plug-in is named, not read as "no such family"
            raise InputError(
                f"dataset family plug-in {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}"
            ) from None
        where = f"dataset family plug-in {ep.name!r} ({ep.value})"
        if not isinstance(family, Family):
            raise InputError(f"{where} is a {type(family).__name__}, not a qlsbench.families.base.Family")
        for other in table.values():
            clash = [
                (what, a)
                for what, a, b in (
                    ("name", family.name, other.name),
                    ("config section", family.config_key, other.config_key),
                    ("rule", family.rule.name, other.rule.name),
                )
                if a == b
            ]
            if clash:
                raise InputError(f"{where}: its {clash[0][0]} {clash[0][1]!r} is family {other.name}'s already")
        table[family.name] = family
    return {name: family for name, family in table.items() if name not in built_in}


def command_lines() -> dict[str, str]:
    """Every dataset command with its line of help, for ``qlsbench --help``: the built-in ones
    (:data:`COMMAND_HELP`), then those of plug-in families (loading only the plug-ins, not the built-in
    families and their physics)."""
    lines = dict(COMMAND_HELP)
    for ep in _entry_points():
        try:
            family = ep.load()
        except Exception:  # named when the family table is read; the listing goes on without it
            continue
        lines.setdefault(family.command, family.command_help or f"build a {family.name} dataset")
    return lines


def commands() -> dict[str, list[Family]]:
    """The ``qlsbench`` commands that build datasets, each with its families in table order."""
    out: dict[str, list[Family]] = {}
    for family in families().values():
        out.setdefault(family.command, []).append(family)
    return out


def select(command: str, scene: str | None = None, integrator: str | None = None) -> Family:
    """The family a ``qlsbench <command> [--scene S] [--integrator I]`` run builds.

    Raises
    ------
    InputError
        When no family of the command takes that scene with that integrator.
    """
    takers = commands()[command]
    for family in takers:
        scene_ok = scene is None or not family.scenes or scene in family.scenes
        if scene_ok and integrator in (None, family.integrator):
            return family
    scenes = sorted({s for f in takers for s in f.scenes})
    if scene is not None and scene not in scenes:
        raise InputError(f"--scene {scene!r} is none of {', '.join(scenes)}")
    builds = [f"{f.name} ({', '.join(f.scenes)})" for f in takers if f.integrator == integrator]
    raise InputError(
        f"--integrator {integrator} does not apply to --scene {scene} (--integrator {integrator} "
        f"builds {'; '.join(builds) or 'nothing'})"
    )


def build(family: str, out: str | os.PathLike, *, progress: bool = True, **options) -> dict:
    """Build one dataset of ``family`` at ``out`` from keyword options; returns its metadata and run facts.

    ``build("dem_c", "datasets/dem_c/mine", n_spheres=32, mu=0.3, regularization=1e-8)``
    is ``qlsbench simulate --n-spheres 32 --mu 0.3 --regularization 1e-8 --out ...``.

    Raises
    ------
    InputError
        For an unknown family, or an option it does not take or a bad value, named.
    """
    table = families()
    if family not in table:
        raise InputError(f"unknown dataset family {family!r}; available: {', '.join(table)}")
    chosen = table[family]
    return chosen.build(chosen.options.from_mapping(options), Path(out), progress)


def __dir__() -> list[str]:
    return sorted([*globals(), "FAMILIES"])


__all__ = [
    "BUILT_IN",
    "COMMAND_HELP",
    "ENTRY_POINT_GROUP",
    "FAMILIES",
    "build",
    "command_lines",
    "commands",
    "families",
    "Family",
    "Options",
    "select",
]
