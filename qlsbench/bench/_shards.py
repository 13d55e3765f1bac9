"""Shards of a solve: a dataset's systems dealt to k jobs, and their results merged back in the dataset's order.

A solver configuration on a dataset is one job unless it is sharded. Shard
``i`` of ``k`` holds every ``k``-th system after the systems are sorted
largest first (dimension, then id): the largest systems go to different
shards and the shards' counts differ by at most one, so each shard's
runtime is bounded by ``time_limit * ceil(N / k) * repeats``. A system that
occurs several times in the dataset (same content) is one system, in one
shard. Merging puts the rows back in the order an unsharded run writes them,
so a merged file equals an unsharded run's row for row, wall times aside.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa

from qlsbench.bench._results import read_results, read_results_table, results_table
from qlsbench.data import atomic_write_table, dataset_hash, load_dataset
from qlsbench.errors import InputError


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/7"`` as ``(2, 7)``: shard 2 of 7, numbered from 1."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise InputError(f"shard must be I/K with 1 <= I <= K, got {text!r}")
    return int(match[1]), int(match[2])


def assign(system_ids: Sequence[str], dims: Sequence[int], count: int) -> dict[str, int]:
    """Shard (1-based) of each distinct system: sorted by dimension (largest first), then id, dealt round-robin."""
    distinct: dict[str, int] = {}
    for sid, dim in zip(system_ids, dims):
        distinct.setdefault(sid, dim)
    order = sorted(distinct, key=lambda sid: (-distinct[sid], sid))
    return {sid: 1 + i % count for i, sid in enumerate(order)}


def shard_size(systems: int, shard: int, count: int) -> int:
    """Distinct systems in shard ``shard`` of ``count`` when the dataset has ``systems`` of them."""
    return systems // count + (1 if shard <= systems % count else 0)


def max_shard_size(systems: int, count: int) -> int:
    return math.ceil(systems / count) if systems else 0


def shard_system_ids(dataset: str | os.PathLike, shard: int, count: int) -> set[str]:
    """The system ids of shard ``shard`` of ``count`` of ``dataset``."""
    df = load_dataset(dataset)
    owner = assign(df["system_id"].tolist(), df["dim"].tolist(), count)
    return {sid for sid, s in owner.items() if s == shard}


def merge(dataset: str | os.PathLike, shards: Sequence[str | os.PathLike], out: str | os.PathLike) -> pd.DataFrame:
    """Merge the results files of every shard of one solve into ``out``, in the order an unsharded run writes.

    Raises
    ------
    InputError
        When the shards are of different solver configurations or datasets,
        or together miss a (system, repeat) or hold one twice.
    """
    frames = [read_results(path) for path in shards]
    seen: dict[tuple, str] = {}
    for path, frame in zip(shards, frames):
        for key in set(zip(frame["system_id"], frame["repeat"])):
            if key in seen:
                raise InputError(f"system {key[0]}, repeat {key[1]} is in two shards: {seen[key]} and {path}")
            seen[key] = str(path)
    _check_same_run(shards, frames)
    rows = pd.concat(frames, ignore_index=True)
    if not rows.empty and rows["dataset_hash"].iloc[0] != dataset_hash(dataset):
        raise InputError(f"shards were run on another version of {dataset} (hash {rows['dataset_hash'].iloc[0]})")
    keyed = set(zip(rows["system_id"], rows["repeat"]))
    repeats = sorted(rows["repeat"].unique())
    order = [(sid, r) for sid in load_dataset(dataset)["system_id"] for r in repeats]
    missing = [key for key in order if key not in keyed]
    if missing:
        raise InputError(
            f"the shards hold no row for system {missing[0][0]}, repeat {missing[0][1]} "
            f"({len(missing)} missing): a shard is missing or unfinished"
        )
    # Rows are taken from the shards' Arrow tables as stored, so every value (NaN or null alike) is kept.
    first: dict[tuple, int] = {}  # a (system_id, repeat)'s first row
    for i, key in enumerate(zip(rows["system_id"], rows["repeat"])):
        first.setdefault(key, i)
    table = pa.concat_tables([read_results_table(path) for path in shards])  # an older part gains new columns
    merged = table.take(pa.array([first[key] for key in order], type=pa.int64()))
    atomic_write_table(merged.replace_schema_metadata(results_table([]).schema.metadata), Path(out))
    return merged.to_pandas()


#: What every shard of one solve shares, and the words for it: a part differing in any is another run.
SAME_RUN = {
    "solver": "solver label",
    "solver_name": "solver",
    "solver_options": "options",
    "dataset_hash": "dataset (content hash)",
    "base_seed": "seed (--seed)",
    "time_limit": "time limit",
}


def run_facts(frame: pd.DataFrame, path) -> dict[str, str]:
    """The :data:`SAME_RUN` facts of one file's rows, as text; refused in one line if its rows differ in one."""
    facts = frame.assign(base_seed=frame["seed"] - frame["repeat"], time_limit=frame["time_limit"].fillna(-1.0))
    for column, words in SAME_RUN.items():
        values = set(facts[column].astype(str)) if column in facts else {"?"}
        if len(values) > 1:
            raise InputError(f"{path}: its rows differ in {words} ({', '.join(sorted(values))}): not one solve")
    return {column: next(iter(set(facts[column].astype(str)))) for column in SAME_RUN if column in facts}


def spec_facts(spec, dataset_digest: str, seed: int, time_limit: float | None) -> dict[str, str]:
    """The :data:`SAME_RUN` facts a run of ``spec`` would write (as :func:`run_facts` reads them back)."""
    return {
        "solver": spec.label,
        "solver_name": spec.name,
        "solver_options": spec.options_json,
        "dataset_hash": dataset_digest,
        "base_seed": str(int(seed)),
        "time_limit": str(float(-1.0 if time_limit is None else time_limit)),
    }


def differing(mine: dict[str, str], theirs: dict[str, str]) -> str:
    """``their options differ ({...} against {...})`` for the first fact two runs disagree on, else ``""``."""
    for column, words in SAME_RUN.items():
        if mine.get(column) != theirs.get(column):
            return f"their {words} differs ({mine.get(column)} against {theirs.get(column)})"
    return ""


def _check_same_run(shards: Sequence[str | os.PathLike], frames: list[pd.DataFrame]) -> None:
    """Refuse, in one line naming two files and the field, shards that are not parts of one solve."""
    first = None
    for path, frame in zip(shards, frames):
        if frame.empty:  # a shard given no systems (more shards than systems) says nothing about its run
            continue
        mine = run_facts(frame, path)
        if first is None:
            first = (path, mine)
            continue
        mismatch = differing(mine, first[1])
        if mismatch:
            raise InputError(f"{path} and {first[0]} are not shards of one solve: {mismatch}")


__all__ = [
    "assign",
    "differing",
    "max_shard_size",
    "merge",
    "parse_shard",
    "run_facts",
    "shard_size",
    "shard_system_ids",
    "spec_facts",
]
