"""Shipped results: a workflow run's result tables copied into a small folder the repository carries, with hashes.

A page that sets numbers beside a paper's claims (``docs/reproduction.md``)
is generated from such a folder, never typed, so anyone can check a number
without a rerun and a test can fail when page and results disagree. The
folder holds

- ``results/<solver>/<family>/<scene>.parquet``: every solver's results file,
  as written, except the solution vectors (``x``, ``x_imag``: null here; the
  figures and tables never read them and they are most of the bytes);
- ``pauli/``, ``truncation/`` and ``snapshots/``: the Pauli studies of the
  datasets a figure draws and the snapshot files, copied byte for byte;
- ``systems.parquet``: one row per system of every dataset of the run (its
  step, Newton iteration, time, qubits, size and condition number), and
  ``datasets.json``: each dataset's file metadata;
- ``manifest.json``: the SHA-256 of every file above, the machine, the
  qlsbench commit, the configuration's hash, and the run's wall time and job
  times read from Snakemake's logs.

:func:`collect` writes the folder from a run (finished or not: what has
finished is shipped, and the page says what is missing); :func:`verify`
checks it against its manifest before anything reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from qlsbench.bench.environment import machine_info, package_versions
from qlsbench.bench.results import RESULTS_VERSION_KEY
from qlsbench.data import atomic_write_table, atomic_write_text, dataset_metadata, load_dataset
from qlsbench.errors import InputError

#: The manifest's file name inside a shipped folder.
MANIFEST = "manifest.json"
#: Result columns a shipped copy leaves null (see the module docstring).
DROPPED_COLUMNS = ("x", "x_imag")
#: Per-system columns kept in ``systems.parquet``.
SYSTEM_COLUMNS = ("system_id", "family", "scene", "step", "newton_iter", "n_qubits", "n_orig", "cond")


def sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _without_solutions(path: Path, out: Path) -> None:
    """Copy a results file with :data:`DROPPED_COLUMNS` set to null, schema and its metadata kept."""
    table = pq.read_table(path)
    for name in DROPPED_COLUMNS:
        if name in table.column_names:
            i = table.column_names.index(name)
            table = table.set_column(i, table.schema.field(i), pa.nulls(len(table), table.schema.field(i).type))
    atomic_write_table(table, out)


def _system_rows(dataset: Path, name: str) -> pd.DataFrame:
    """``systems.parquet``'s rows of one dataset: :data:`SYSTEM_COLUMNS`, the simulated time and the dataset."""
    df = load_dataset(dataset)
    rows = pd.DataFrame({c: df[c] if c in df else None for c in SYSTEM_COLUMNS})
    rows["time"] = df["meta_json"].map(lambda text: json.loads(text).get("time", np.nan)).astype(float)
    rows.insert(0, "dataset", name)
    return rows


def _git_commit(root: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


#: Snakemake's log lines: a timestamp, a job's start (``rule X:`` then ``jobid: N``) and its end.
_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
_RULE = re.compile(r"^(?:local)?rule (\w+):$")
_JOBID = re.compile(r"^\s+jobid: (\d+)$")
_FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)")


def job_times(log: str | os.PathLike) -> dict:
    """Wall clock and job minutes per rule from one Snakemake log (its console output).

    Returns
    -------
    dict
        ``wall_minutes`` (first to last timestamp), ``jobs`` (finished) and
        ``rules``: per rule, ``jobs`` and ``minutes`` (the sum of its jobs'
        start-to-finish times, so two jobs side by side count twice).
    """
    started, rules = {}, defaultdict(lambda: {"jobs": 0, "minutes": 0.0})
    stamp = first = last = None
    rule = None
    for line in Path(log).read_text(encoding="utf-8", errors="replace").splitlines():
        if m := _STAMP.match(line):
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
            first, last = first or stamp, stamp
        elif m := _RULE.match(line):
            rule = m.group(1)
        elif (m := _JOBID.match(line)) and rule is not None:
            started[m.group(1)] = stamp
            rule = None
        elif (m := _FINISHED.match(line)) and m.group(1) in started:
            entry = rules[m.group(2)]
            entry["jobs"] += 1
            entry["minutes"] += (stamp - started.pop(m.group(1))).total_seconds() / 60
    wall = (last - first).total_seconds() / 60 if first else 0.0
    return {"wall_minutes": wall, "jobs": sum(r["jobs"] for r in rules.values()),
            "rules": {name: dict(r) for name, r in sorted(rules.items())}}


def _copy(source: Path, out: Path, relative: Path, files: dict, transform=None) -> None:
    target = out / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if transform is None:
        shutil.copyfile(source, target)
    else:
        transform(source, target)
    files[relative.as_posix()] = sha256(target)


def collect(run: str | os.PathLike, out: str | os.PathLike, *, config: str | os.PathLike,
            logs: list[str | os.PathLike] = (), figure_datasets: list[str] = (), snapshots: list[str] = ()) -> dict:
    """Ship a workflow run's results into ``out`` (see the module docstring); return the manifest.

    Parameters
    ----------
    run : path
        The folder the workflow ran in (``results/`` and ``datasets/`` inside).
    out : path
        The shipped folder; replaced as a whole, so no file of an earlier collection lingers.
    config : path
        The run's configuration file (hashed into the manifest).
    logs : list of path
        Snakemake logs of the run's invocations (wall and job times; several for a resumed run); default
        every ``.snakemake/log/*.snakemake.log`` of ``run`` that records a finished job.
    figure_datasets : list of str
        ``family/scene`` names whose Pauli and truncation studies are shipped.
    snapshots : list of str
        Dataset labels whose snapshot files are shipped.

    Raises
    ------
    InputError
        If ``run`` has no results, or ``config`` or a log cannot be read.
    """
    run, out = Path(run), Path(out)
    for path in (config, *logs):
        if not Path(path).is_file():
            raise InputError(f"{path}: no such file (the run's configuration or a Snakemake log)")
    result_files = sorted(f for f in (run / "results").glob("*/*/*.parquet")
                          if f.relative_to(run / "results").parts[0] not in ("pauli", "lcu", "resources",
                                                                              "truncation", "snapshots", "shards"))
    if not result_files and not any((run / "datasets").glob("*/*/part-0000.parquet")):
        raise InputError(f"{run}: neither solver results nor datasets to ship (not a workflow's folder?)")
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    files: dict[str, str] = {}
    for f in result_files:
        if RESULTS_VERSION_KEY in (pq.read_schema(f).metadata or {}):
            _copy(f, staging, Path("results") / f.relative_to(run / "results"), files, _without_solutions)
    for study in ("pauli", "truncation"):
        for name in figure_datasets:
            source = run / "results" / study / f"{name}.parquet"
            if source.is_file():
                _copy(source, staging, Path(study) / f"{name}.parquet", files)
    for label in snapshots:
        source = run / "results" / "snapshots" / f"{label}.parquet"
        if source.is_file():
            _copy(source, staging, Path("snapshots") / f"{label}.parquet", files)
    datasets = sorted((run / "datasets").glob("*/*/part-0000.parquet"))
    names = [f.parent.relative_to(run / "datasets").as_posix() for f in datasets]
    systems = pd.concat([_system_rows(f, n) for f, n in zip(datasets, names)], ignore_index=True)
    atomic_write_table(pa.Table.from_pandas(systems, preserve_index=False), staging / "systems.parquet")
    files["systems.parquet"] = sha256(staging / "systems.parquet")
    meta = {n: dataset_metadata(f) for f, n in zip(datasets, names)}
    atomic_write_text(staging / "datasets.json", json.dumps(meta, indent=1, sort_keys=True, default=str) + "\n")
    files["datasets.json"] = sha256(staging / "datasets.json")
    if not logs:  # Snakemake keeps each invocation's log; a dry run or a run that finished nothing adds no time
        logs = sorted((run / ".snakemake" / "log").glob("*.snakemake.log"))
    times = [t for t in map(job_times, logs) if t["jobs"]]
    manifest = {
        "files": dict(sorted(files.items())), "machine": machine_info(), "packages": package_versions(),
        "commit": _git_commit(run), "config": Path(config).name, "config_sha256": sha256(config),
        "invocations": times, "wall_minutes": sum(t["wall_minutes"] for t in times),
    }
    atomic_write_text(staging / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return manifest


def verify(folder: str | os.PathLike) -> dict:
    """Check a shipped folder against its manifest and return the manifest.

    Raises
    ------
    InputError
        Naming the folder and the first file missing, added or changed.
    """
    folder = Path(folder)
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a shipped-results manifest ({exc})") from None
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST}
    for name in sorted(set(files) | present):
        if name not in present:
            raise InputError(f"{folder}: {name} is in the manifest but missing")
        if name not in files:
            raise InputError(f"{folder}: {name} is not in the manifest (added after collection?)")
        if sha256(folder / name) != files[name]:
            raise InputError(f"{folder}: {name} does not match its SHA-256 in {MANIFEST} (changed after collection)")
    return manifest


__all__ = ["MANIFEST", "collect", "job_times", "sha256", "verify"]
