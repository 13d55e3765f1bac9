"""The pinned benchmark set, shipped inside the package: 43 systems to load with no workflow run.

``qlsbench.data.pinned()`` is the quickest way to data: the systems the
leaderboard ranks every solver on (14 Ising-inspired, 12 frictionless and 9 + 8
frictional DEM-C systems, 2-10 qubits), each checked against the content hash
its manifest pins.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from qlsbench.data.reader import iter_systems, load_dataset
from qlsbench.errors import DatasetError

#: The folder of the pinned set inside the installed package.
PINNED = Path(__file__).resolve().parents[1] / "pinned"


def pinned(group: str | None = None) -> pd.DataFrame:
    """The pinned systems as one DataFrame (the dataset columns, plus ``pinned_name`` and ``group``).

    Parameters
    ----------
    group : str, optional
        ``ising``, ``dem_c-mu0``, ``dem_c-mu0.3`` or ``dem_c-mu0.3-v2``; default every group.

    Raises
    ------
    DatasetError
        For an unknown group, or a system whose content no longer matches its pinned hash.
    """
    manifest = json.loads((PINNED / "manifest.json").read_text())
    groups = list(manifest["groups"])
    if group is not None and group not in groups:
        raise DatasetError(f"no pinned group {group!r}; the groups are {', '.join(groups)}")
    frames = []
    for g in [group] if group else groups:
        # per group: a system can sit in two groups (the same step of one run on the v1 and v2 chains)
        names = {e["system_id"]: e["name"] for e in manifest["systems"] if e["group"] == g}
        path = PINNED / "systems" / f"{g}.parquet"
        df = load_dataset(path)
        found = {s.system_id for s in iter_systems(path)}  # ids recomputed from the stored A and b
        if found != set(names):
            raise DatasetError(f"{path}: its systems do not match the pinned manifest "
                               f"({len(set(names) - found)} missing or changed)")
        frames.append(df.assign(pinned_name=df["system_id"].map(names), group=g))
    return pd.concat(frames, ignore_index=True)


__all__ = ["PINNED", "pinned"]
