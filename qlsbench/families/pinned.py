"""The ``pinned`` family: the leaderboard's pinned benchmark set, copied from the package into ``datasets/``.

The pinned systems ship inside qlsbench (``qlsbench.data._pinned()`` loads them with
no workflow run); this family puts a group's file beside the generated
datasets, so the dataset card's ``pinned`` config, the solvers and the Pauli
studies see it like any other. The copy is byte for byte. Without a group,
``qlsbench pinned --out datasets/pinned`` copies every group into its own
subfolder: the card's first config, loadable on a fresh install.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from qlsbench.data import atomic_write
from qlsbench.data._pinned import PINNED, group_file, pinned, read_manifest
from qlsbench.errors import InputError
from qlsbench.families.base import Family, Rule
from qlsbench.options import Options, option
from qlsbench.text import plural

#: The pinned groups, as the manifest lists them.
GROUPS = tuple(read_manifest()["groups"])


@dataclass(frozen=True)
class PinnedOptions(Options):
    """Which group of the pinned set (none: every group, each in a subfolder of the output)."""

    group: str | None = option(
        None, help="pinned group (default: every group, each in <out>/<group>/)", choices=GROUPS, nullable=True
    )


def build(options: PinnedOptions, out: Path, progress: bool = True) -> dict:
    """Check the group against its manifest, then copy its file to ``out/part-0000.parquet``; without a group,
    every group to ``out/<group>/part-0000.parquet``."""
    if options.group is None:
        copies = [build(PinnedOptions(group=g), Path(out) / g, progress) for g in GROUPS]
        return {"copies": copies}
    systems = pinned(options.group)  # refuses a group whose systems no longer match their hashes
    path, source = Path(out) / "part-0000.parquet", group_file(PINNED, options.group)
    atomic_write(path, lambda tmp: shutil.copyfile(source, tmp))
    return {"group": options.group, "systems": len(systems), "path": str(path)}


def label(options: PinnedOptions) -> str:
    return options.group or "all"


def runs(section: list) -> list[dict]:
    """A workflow config's entries, each naming its group (one dataset, one output file, per entry)."""
    for i, entry in enumerate(section):
        if not isinstance(entry, dict) or not entry.get("group"):
            raise InputError(f"pinned[{i}]: group is required in a workflow config; use one of {', '.join(GROUPS)}")
    return section


def report(facts: dict) -> list[str]:
    if "copies" in facts:
        return [line for copy in facts["copies"] for line in report(copy)]
    return [f"pinned group {facts['group']}: {plural(facts['systems'], 'system')} -> {facts['path']}"]


FAMILY = Family(
    name="pinned",
    summary=f"the leaderboard's {len(read_manifest()['systems'])} pinned systems (Ising-inspired, "
    "frictionless and frictional DEM-C), copied from the package",
    options=PinnedOptions,
    build=build,
    label=label,
    report=report,
    command="pinned",
    config_key="pinned",
    runs=runs,
    rule=Rule("pinned_dataset", local=True),
)
