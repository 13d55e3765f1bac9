"""The in-loop results file: the per-step rows in Parquet, the options and one summary per run in its metadata."""

from __future__ import annotations

import dataclasses

import pandas as pd

from qlsbench.bench._checkpoints import Checkpoint, checkpoint_path
from qlsbench.bench.in_loop.options import file_options
from qlsbench.errors import InputError

#: File-level metadata key of an in-loop results file (JSON: the options and one summary per run).
IN_LOOP_META_KEY = b"qlsbench.in_loop"


def write_in_loop(path, steps: pd.DataFrame, summaries: list[dict], options) -> None:
    """Write the per-step rows to ``path`` (Parquet, atomically), the options and summaries in its metadata;
    then remove the runs' checkpoints (:func:`sweep`), which the file now holds."""
    import json

    import pyarrow as pa

    from qlsbench.bench._results import jsonable
    from qlsbench.data import atomic_write_table

    table = pa.Table.from_pandas(steps, preserve_index=False)
    from qlsbench.versions import VERSION

    meta = {"options": dataclasses.asdict(options), "runs": summaries, "qlsbench_version": VERSION}
    text = json.dumps(meta, sort_keys=True, default=jsonable)
    table = table.replace_schema_metadata({IN_LOOP_META_KEY: text})
    atomic_write_table(table, path)
    for run in summaries:
        level = None if run["fidelity"] != run["fidelity"] else run["fidelity"]
        Checkpoint(checkpoint_path(path, run["solver"], run["seed"], level)).remove()


def read_in_loop(path) -> tuple[pd.DataFrame, dict]:
    """The per-step rows and the metadata (``options``, ``runs``) of an in-loop results file.

    Raises
    ------
    InputError
        Naming the file when it is not an in-loop results file.
    """
    import json

    from qlsbench.data import read_parquet

    table = read_parquet(
        path,
        kind="in-loop results file",
        columns=("step", "position_error", "solver", "seed"),
        error=InputError,
        hint=" (not written by `qlsbench in-loop`?)",
    )
    raw = (table.schema.metadata or {}).get(IN_LOOP_META_KEY)
    if raw is None:
        raise InputError(f"{path}: no in-loop metadata (not written by `qlsbench in-loop`)")
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: damaged in-loop metadata ({exc})") from None
    meta["options"] = file_options(meta.get("options") or {})  # files of before the scene options' renaming
    return table.to_pandas(), meta


def merge_in_loop(paths, out) -> tuple[pd.DataFrame, list[dict]]:
    """Join in-loop results files of one run's seed shards into ``out``, in the order one run would write them
    (fidelity level, then seed), atomically.

    Raises
    ------
    InputError
        Naming the file at fault, before anything is written, when the files are not shards of one run: other
        options, another solver or its options, other fidelity levels, or a seed held twice.
    """
    import json

    from qlsbench.bench._results import jsonable
    from qlsbench.bench.in_loop.options import InLoopOptions

    if not paths:
        raise InputError("in-loop merge: no shard files given")
    frames, runs = [], []
    held: dict[tuple[str, int], object] = {}
    first_path, (first_steps, first_meta) = paths[0], read_in_loop(paths[0])
    for path in paths:
        steps, meta = (first_steps, first_meta) if path is first_path else read_in_loop(path)
        if json.dumps(meta["options"], sort_keys=True, default=jsonable) != json.dumps(
            first_meta["options"], sort_keys=True, default=jsonable
        ):
            raise InputError(f"{path}: written with other in-loop options than {first_path}: not a shard of its run")
        for run in meta["runs"]:
            this = (run["solver"], run["solver_name"], json.dumps(run["solver_options"], sort_keys=True))
            that = first_meta["runs"][0]
            if this != (that["solver"], that["solver_name"], json.dumps(that["solver_options"], sort_keys=True)):
                raise InputError(f"{path}: a run of {run['solver']!r}, not of {that['solver']!r} as {first_path}")
            key = (str(float(run["fidelity"])), int(run["seed"]))
            if key in held:
                raise InputError(f"{path}: seed {key[1]} is in {held[key]} too")
            held[key] = path
        frames.append(steps)
        runs.extend(meta["runs"])
    order = sorted(range(len(runs)), key=lambda i: (float(runs[i]["fidelity"]), int(runs[i]["seed"])))
    runs = [runs[i] for i in order]
    steps = pd.concat(frames, ignore_index=True)
    level = steps["fidelity"].astype(float).fillna(-1.0)  # NaN (no level) sorts as one level
    steps = steps.assign(_level=level).sort_values(["_level", "seed", "step"], kind="stable").drop(columns="_level")
    options = InLoopOptions.from_mapping(first_meta["options"], f"{first_path}")
    write_in_loop(out, steps.reset_index(drop=True), runs, options)
    return steps, runs


def success_bar(summaries: list[dict]) -> float | None:
    """The lowest oracle fidelity at which every seed stayed within the tolerance (and every higher level did).

    ``None`` when even the highest level left it. Levels are walked from the highest down; the bar is the last
    level before the first one at which some seed left.
    """
    by_level: dict[float, list[bool]] = {}
    for s in summaries:
        by_level.setdefault(float(s["fidelity"]), []).append(bool(s["stayed_within"]))
    bar = None
    for level in sorted(by_level, reverse=True):
        if not all(by_level[level]):
            break
        bar = level
    return bar


__all__ = ["IN_LOOP_META_KEY", "read_in_loop", "success_bar", "write_in_loop"]
