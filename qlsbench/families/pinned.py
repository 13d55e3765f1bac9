"""The ``pinned`` family: the leaderboard's pinned benchmark set, copied from the package into ``datasets/``.

The 43 systems ship inside qlsbench (``qlsbench.data.pinned()`` loads them with
no workflow run); this family puts a group's file beside the generated
datasets, so the dataset card's ``pinned`` config, the solvers and the Pauli
studies see it like any other. The copy is byte for byte.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from qlsbench.data import atomic_write
from qlsbench.data.pinned import PINNED, pinned
from qlsbench.families.base import Family
from qlsbench.options import Options, option
from qlsbench.text import plural

#: The pinned groups, as the manifest lists them.
GROUPS = tuple(json.loads((PINNED / "manifest.json").read_text())["groups"])


@dataclass(frozen=True)
class PinnedOptions(Options):
    """Which group of the pinned set."""

    group: str = option(help="pinned group", choices=GROUPS)


def build(options: PinnedOptions, out: Path, progress: bool = True) -> dict:
    """Check the group against its manifest, then copy its file to ``out/part-0000.parquet``."""
    systems = pinned(options.group)  # refuses a group whose systems no longer match their hashes
    path = Path(out) / "part-0000.parquet"
    atomic_write(path, lambda tmp: shutil.copyfile(PINNED / "systems" / f"{options.group}.parquet", tmp))
    return {"group": options.group, "systems": len(systems), "path": str(path)}


def label(options: PinnedOptions) -> str:
    return options.group


def report(facts: dict) -> list[str]:
    return [f"pinned group {facts['group']}: {plural(facts['systems'], 'system')} -> {facts['path']}"]


FAMILY = Family(
    name="pinned", summary="the leaderboard's 43 pinned systems (Ising-inspired, frictionless and frictional DEM-C), "
                           "copied from the package", options=PinnedOptions, build=build, label=label, report=report,
    command="pinned", config_key="pinned",
)
