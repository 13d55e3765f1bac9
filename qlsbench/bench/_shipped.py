"""Shipped results: a workflow run's result tables copied into a small folder the repository carries, with hashes.

A page that sets numbers beside a paper's claims (``docs/reproduction.md``)
is generated from such a folder, never typed, so anyone can check a number
without a rerun and a test can fail when page and results disagree. The
folder holds

- ``results/<solver>/<family>/<scene>.parquet``: every variational solver's
  results file (those with progress read-outs) and every null solver's (the
  controls its verdicts are set against; the classical ones stay in the run),
  as written, except the solution vectors (``x``, ``x_imag``: null here; the
  figures and tables never read them and they are most of the bytes); of a
  sharded solve not merged yet, its finished shards
  (``results/shards/<solver>/<family>/<scene>/<k>-of-<n>.parquet``, each with
  every repeat of its systems), replaced by the merged file once it exists;
- ``pauli/``, ``truncation/`` and ``snapshots/``: the Pauli studies of the
  datasets a figure draws and the snapshot files, copied byte for byte;
- ``systems.parquet``: one row per system of every dataset of the run (its
  step, Newton iteration, time, qubits, size and condition number), and
  ``datasets.json``: each dataset's file metadata;
- ``datasets/``: the datasets the variational solvers ran on (small), so a
  later part of a run split over sessions solves the very same bytes;
- ``config.yaml``: the configuration the run used (a later part of a split
  run uses this very file, ``snakemake --configfile <folder>/config.yaml``);
- ``manifest.json``: the SHA-256 of every file above, the configuration's
  hash and, per collection (one per part of a split run), the machine, the
  qlsbench commit and version (``qlsbench_version``: what tells results of one
  version from another, :mod:`qlsbench.versions`), the files it added, and its wall time and job times read
  from Snakemake's logs.

:func:`collect` writes the folder from a run (finished or not: what has
finished is shipped, and the page says what is missing; ``add`` extends an
earlier collection with a later part); :func:`verify` checks it against its
manifest before anything reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from qlsbench import __version__
from qlsbench.bench._environment import machine_info, package_versions
from qlsbench.bench._results import RESULTS_VERSION_KEY
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


def without_columns(path: str | os.PathLike, out: str | os.PathLike, columns=DROPPED_COLUMNS) -> None:
    """Copy a results file with ``columns`` set to null, schema and its metadata kept (a lighter shipped copy)."""
    table = pq.read_table(path)
    for name in columns:
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
    """The commit checked out at ``root``; for a run folder outside any checkout (a controls run beside the
    repository), the commit of the qlsbench that ran: the package's own checkout."""
    commit = _commit_at(root)
    return commit if commit != "unknown" else _commit_at(Path(__file__).resolve().parent)


def _commit_at(root: Path) -> str:
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
    started: dict[str, datetime] = {}
    rules: defaultdict[str, dict[str, float]] = defaultdict(lambda: {"jobs": 0, "minutes": 0.0})
    stamp: datetime | None = None
    first: datetime | None = None
    last: datetime | None = None
    rule = None
    for line in Path(log).read_text(encoding="utf-8", errors="replace").splitlines():
        if m := _STAMP.match(line):
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
            first, last = first or stamp, stamp
        elif m := _RULE.match(line):
            rule = m.group(1)
        elif (m := _JOBID.match(line)) and rule is not None and stamp is not None:
            started[m.group(1)] = stamp
            rule = None
        elif (m := _FINISHED.match(line)) and m.group(1) in started and stamp is not None:
            entry = rules[m.group(2)]
            entry["jobs"] += 1
            entry["minutes"] += (stamp - started.pop(m.group(1))).total_seconds() / 60
    wall = (last - first).total_seconds() / 60 if first and last else 0.0
    return {
        "wall_minutes": wall,
        "jobs": sum(r["jobs"] for r in rules.values()),
        "rules": {name: dict(r) for name, r in sorted(rules.items())},
        "started": first.isoformat() if first else None,
    }


def _same_invocation(old: dict, new: dict) -> bool:
    """Whether an earlier collection's invocation is ``new`` again: the same start, or, for an entry written
    before starts were recorded, the same jobs in no more wall time (a log read again can only have grown)."""
    if old.get("started") and new.get("started"):
        return old["started"] == new["started"]
    return old.get("jobs") == new.get("jobs") and old.get("wall_minutes", 0.0) <= new.get("wall_minutes", 0.0) + 1e-9


def _superseded(parts: list[dict], part: dict) -> list[dict]:
    """Earlier collections without the invocations ``part`` counts again: Snakemake keeps every invocation's
    log in the run folder, so a later part of the same run reads the earlier parts' logs too (a part's wall
    time must count each invocation once, at its last reading)."""
    out = []
    for old in parts:
        if old.get("commit") == part.get("commit"):
            kept = [
                inv
                for inv in old.get("invocations", [])
                if not any(_same_invocation(inv, new) for new in part["invocations"])
            ]
            old = {**old, "invocations": kept, "wall_minutes": sum(t["wall_minutes"] for t in kept)}
        out.append(old)
    return out


def _copy(source: Path, out: Path, relative: Path, files: dict, transform=None) -> None:
    target = out / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if transform is None:
        shutil.copyfile(source, target)
    else:
        transform(source, target)
    files[relative.as_posix()] = sha256(target)


#: Folders under ``results/`` that hold studies, not solver results.
STUDY_FOLDERS = ("pauli", "lcu", "resources", "truncation", "snapshots")


def _finished_results(results: Path) -> list[Path]:
    """Solver results files of a run: merged ones (``<solver>/<family>/<scene>.parquet``) and the finished shards
    (``shards/<solver>/<family>/<scene>/<k>-of-<n>.parquet``) of solves not merged yet, each shard holding every
    repeat of its systems; a shard's journal (a solve under way) is not a file here and is not shipped."""
    merged = [
        f
        for f in results.glob("*/*/*.parquet")
        if f.relative_to(results).parts[0] not in STUDY_FOLDERS and f.relative_to(results).parts[0] != "shards"
    ]
    done = {f.relative_to(results).with_suffix("") for f in merged}
    shards = [
        f for f in results.glob("shards/*/*/*/*-of-*.parquet") if f.parent.relative_to(results / "shards") not in done
    ]
    return sorted(f for f in merged + shards if RESULTS_VERSION_KEY in (pq.read_schema(f).metadata or {}))


def _variational_datasets(result_files: list[Path]) -> set[str]:
    """Datasets that solvers with progress read-outs (the variational ones), or the null solvers set beside them
    (:mod:`qlsbench.solvers.nulls`), ran on: shipped so a later part of the run can solve the very same systems."""
    from qlsbench.solvers.registry import is_control

    names: set[str] = set()
    for f in result_files:
        table = pq.read_table(f, columns=["dataset", "progress_evaluations", "solver_name"])
        has = [
            (v is not None and len(v) > 0) or is_control(name)
            for v, name in zip(
                table.column("progress_evaluations").to_pylist(), table.column("solver_name").to_pylist()
            )
        ]
        names.update(d for d, h in zip(table.column("dataset").to_pylist(), has) if h)
    return names


def _check_one_hash_per_dataset(folder: Path) -> None:
    """Every results file in ``folder`` that solved a dataset solved the same bytes of it (one ``dataset_hash``)."""
    seen: dict[str, tuple[str, str]] = {}
    for f in sorted((folder / "results").rglob("*.parquet")):
        table = pq.read_table(f, columns=["dataset", "dataset_hash"])
        for name, digest in set(zip(table.column("dataset").to_pylist(), table.column("dataset_hash").to_pylist())):
            first = seen.setdefault(name, (digest, f.relative_to(folder).as_posix()))
            if first[0] != digest:
                raise InputError(
                    f"{f.relative_to(folder)} solved {name} with hash {digest}, {first[1]} with "
                    f"{first[0]}: parts run on different bytes of a dataset do not belong together "
                    "(copy the shipped datasets/ into the run before solving the rest)"
                )


def collect(
    run: str | os.PathLike,
    out: str | os.PathLike,
    *,
    config: str | os.PathLike,
    logs: Sequence[str | os.PathLike] = (),
    figure_datasets: Sequence[str] = (),
    snapshots: Sequence[str] = (),
    add: bool = False,
) -> dict:
    """Ship a workflow run's results into ``out`` (see the module docstring); return the manifest.

    Parameters
    ----------
    run : path
        The folder the workflow ran in (``results/`` and ``datasets/`` inside).
    out : path
        The shipped folder; replaced as a whole (or, with ``add``, extended), so no file of an earlier
        collection lingers unlisted.
    config : path
        The run's configuration file (hashed into the manifest).
    logs : list of path
        Snakemake logs of the run's invocations (wall and job times; several for a resumed run); default
        every ``.snakemake/log/*.snakemake.log`` of ``run`` that records a finished job.
    figure_datasets : list of str
        ``family/scene`` names whose Pauli and truncation studies are shipped.
    snapshots : list of str
        Dataset labels whose snapshot files are shipped.
    add : bool
        Keep what ``out`` already holds and add this run's files to it, as one more collection (a long run
        split over sessions or machines): the configuration must hash the same, and every dataset must have
        been solved on the same bytes by every part.

    Raises
    ------
    InputError
        If ``run`` has neither results nor datasets, ``config`` or a log cannot be read, or (``add``) the
        parts do not belong together.
    """
    run, out = Path(run), Path(out)
    for path in (config, *logs):
        if not Path(path).is_file():
            raise InputError(f"{path}: no such file (the run's configuration or a Snakemake log)")
    # The page reads the variational solvers' results; the classical ones (most of the bytes) stay in the run.
    solved_by = {f: _variational_datasets([f]) for f in _finished_results(run / "results")}
    result_files = [f for f, names in solved_by.items() if names]
    datasets = sorted((run / "datasets").glob("*/*/part-0000.parquet"))
    if not result_files and not datasets:
        raise InputError(f"{run}: neither solver results nor datasets to ship (not a workflow's folder?)")
    earlier = verify(out) if add else None
    if earlier is not None and earlier.get("config_sha256") != sha256(config):
        raise InputError(
            f"{config}: not the configuration {out} was collected from ({earlier.get('config')}, "
            "another hash): parts of different configurations do not belong together"
        )
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    if earlier is not None:
        shutil.copytree(out, staging)
        (staging / MANIFEST).unlink()
    files: dict[str, str] = {}
    for f in result_files:
        relative = f.relative_to(run / "results")
        if relative.parts[0] != "shards":  # a merged file replaces the shards an earlier part shipped of it
            shutil.rmtree(staging / "results" / "shards" / relative.with_suffix(""), ignore_errors=True)
        _copy(f, staging, Path("results") / relative, files, without_columns)
    for study in ("pauli", "truncation"):
        for name in figure_datasets:
            source = run / "results" / study / f"{name}.parquet"
            if source.is_file():
                _copy(source, staging, Path(study) / f"{name}.parquet", files)
    for label in snapshots:
        source = run / "results" / "snapshots" / f"{label}.parquet"
        if source.is_file():
            _copy(source, staging, Path("snapshots") / f"{label}.parquet", files)
    names = [f.parent.relative_to(run / "datasets").as_posix() for f in datasets]
    solved = set().union(*solved_by.values())
    for f, name in zip(datasets, names):
        if name in solved:
            _copy(f, staging, Path("datasets") / name / "part-0000.parquet", files)
    shutil.copyfile(config, staging / "config.yaml")  # a later part runs with exactly this file
    _check_one_hash_per_dataset(staging)
    _write_system_tables(staging, datasets, names, files)
    if not logs:  # Snakemake keeps each invocation's log; a dry run or a run that finished nothing adds no time
        logs = sorted((run / ".snakemake" / "log").glob("*.snakemake.log"))
    times = [t for t in map(job_times, logs) if t["jobs"]]
    part = {
        "machine": machine_info(),
        "packages": package_versions(),
        "commit": _git_commit(run),
        "qlsbench_version": __version__,  # the code that ran (an installed package's metadata may lag it)
        "invocations": times,
        "wall_minutes": sum(t["wall_minutes"] for t in times),
        "files": sorted(files),
    }
    parts = _superseded((earlier or {}).get("collections", []), part) + [part]
    every = {p.relative_to(staging).as_posix(): sha256(p) for p in staging.rglob("*") if p.is_file()}
    manifest = {
        "files": dict(sorted(every.items())),
        "config": Path(config).name,
        "config_sha256": sha256(config),
        "collections": parts,
        "wall_minutes": sum(p["wall_minutes"] for p in parts),
    }
    atomic_write_text(staging / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return manifest


def _write_system_tables(staging: Path, datasets: list[Path], names: list[str], files: dict) -> None:
    """``systems.parquet`` and ``datasets.json``: this run's datasets, over those of earlier collections."""
    old_systems = staging / "systems.parquet"
    systems = [_system_rows(f, n) for f, n in zip(datasets, names)]
    meta = {n: dataset_metadata(f) for f, n in zip(datasets, names)}
    if old_systems.is_file():
        kept = pd.read_parquet(old_systems)
        systems.insert(0, kept[~kept["dataset"].isin(names)])
        meta = {**json.loads((staging / "datasets.json").read_text(encoding="utf-8")), **meta}
    table = pd.concat(systems, ignore_index=True) if systems else pd.DataFrame(columns=["dataset", *SYSTEM_COLUMNS])
    atomic_write_table(
        pa.Table.from_pandas(
            table.sort_values(["dataset", "step", "newton_iter"], kind="stable"), preserve_index=False
        ),
        old_systems,
    )
    atomic_write_text(staging / "datasets.json", json.dumps(meta, indent=1, sort_keys=True, default=str) + "\n")
    files["systems.parquet"] = sha256(old_systems)
    files["datasets.json"] = sha256(staging / "datasets.json")


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
