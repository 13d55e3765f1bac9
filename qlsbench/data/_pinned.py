"""The pinned benchmark set, shipped inside the package: the board's systems to load with no workflow run.

``qlsbench.data._pinned()`` is the quickest way to data: the systems the
leaderboard ranks every solver on (Ising-inspired with the uniform ``b`` and
with ``b`` drawn far from the solution, frictionless and frictional DEM-C
systems, 2-10 qubits; ``manifest.json`` lists them), each checked against the
content hash its manifest pins. :func:`pinned_files` is that check, for the shipped set or
any board folder laid out the same way (``manifest.json``,
``systems/<group>.parquet``): every reader of a pinned set goes through it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from qlsbench.data._reader import iter_systems, load_dataset
from qlsbench.errors import DatasetError

#: The folder of the pinned set inside the installed package.
PINNED = Path(__file__).resolve().parents[1] / "pinned"


def read_manifest(folder: str | os.PathLike = PINNED) -> dict[str, Any]:
    """The manifest of the pinned set in ``folder``: version, per group its file's hash, per system its name,
    group, id (content hash), qubits, kappa and symmetry.

    Raises
    ------
    DatasetError
        When ``folder`` holds no manifest (the set was never pinned there).
    """
    path = Path(folder) / "manifest.json"
    if not path.exists():
        raise DatasetError(f"{path}: no pinned set here; build it with `qlsbench board pin`")
    return json.loads(path.read_text())


def group_file(folder: str | os.PathLike, group: str) -> Path:
    """Where the pinned set in ``folder`` keeps group ``group``'s systems."""
    return Path(folder) / "systems" / f"{group}.parquet"


def pinned_files(folder: str | os.PathLike = PINNED, groups: list[str] | None = None) -> dict[str, Path]:
    """The pinned set's files by group (``groups``, default every group), after checking every system of them
    against the manifest.

    Each system's id is recomputed from its stored ``A`` and ``b``, so a file
    whose content changed, lost a system or gained one is refused.

    Raises
    ------
    DatasetError
        Naming the file and the system whose content no longer matches its pinned hash, or the systems the
        manifest does not pin.
    """
    manifest = read_manifest(folder)
    files = {}
    for group in manifest["groups"] if groups is None else groups:
        path = group_file(folder, group)
        # per group: a system can sit in two groups (the same step of one run on the v1 and v2 chains)
        expected = {e["system_id"]: e["name"] for e in manifest["systems"] if e["group"] == group}
        found = {s.system_id for s in iter_systems(path)}  # ids recomputed from the stored A and b
        for sid, name in expected.items():
            if sid not in found:
                raise DatasetError(f"{path}: pinned system {name} ({sid}) is missing or its content changed")
        extra = sorted(found - set(expected))
        if extra:
            raise DatasetError(f"{path}: holds systems the manifest does not pin: {', '.join(extra)}")
        files[group] = path
    return files


def pinned(group: str | None = None) -> pd.DataFrame:
    """The pinned systems as one DataFrame (the dataset columns, plus ``pinned_name`` and ``group``).

    Parameters
    ----------
    group : str, optional
        ``ising``, ``dem_c-mu0``, ``dem_c-mu0.3``, ``dem_c-mu0.3-v2`` or ``ising-random-b``; default every
        group.

    Raises
    ------
    DatasetError
        For an unknown group, or a system whose content no longer matches its pinned hash.
    """
    manifest = read_manifest()
    groups = list(manifest["groups"])
    if group is not None and group not in groups:
        raise DatasetError(f"no pinned group {group!r}; the groups are {', '.join(groups)}")
    frames = []
    for g, path in pinned_files(groups=[group] if group else None).items():
        names = {e["system_id"]: e["name"] for e in manifest["systems"] if e["group"] == g}
        df = load_dataset(path)
        frames.append(df.assign(pinned_name=df["system_id"].map(names), group=g))
    return pd.concat(frames, ignore_index=True)


__all__ = ["PINNED", "group_file", "pinned", "pinned_files", "read_manifest"]
