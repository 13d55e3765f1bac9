"""Submissions: a new solver's rows on the pinned set, with what the board needs to rank them, in one file.

:func:`~qlsbench.bench.board.comparing.compare` writes one
(:func:`write_submission`: the rows, solutions left out, and in the file's
metadata the solver, its options, the machine and the time yardstick);
``qlsbench board add`` keeps it in a folder of the user's, marked
self-submitted (:func:`add_submission`), and ``qlsbench board verify``
re-runs a sample of its systems (:func:`verify_submission`). A solver's
submission is named by its own name and options (:func:`own_label`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from qlsbench.bench._results import jsonable, load_results, read_results, results_table
from qlsbench.bench._runner import SolverSpec, run_solver
from qlsbench.bench.board.calibration import Calibration
from qlsbench.bench.board.folder import Board
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances
from qlsbench.checks import TIME_LIMIT
from qlsbench.data import atomic_write, atomic_write_table, iter_systems, write_systems
from qlsbench.errors import InputError
from qlsbench.solvers.registry import check_solver, get

#: Where ``qlsbench board add`` keeps self-submitted files by default (relative to the working folder): never
#: inside the installed package, so a later ``compare`` ranks against the published board only.
LOCAL_SUBMISSIONS = Path("submissions")
#: Appended to a self-submitted row's label on the pages: it was not checked upstream.
SELF_SUBMITTED = " (self-submitted)"


def path_safe(text: str) -> str:
    """``text`` with every run of characters other than letters, digits and ``_.+-`` made one ``-``: a file name."""
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", text)


def own_name(spec: SolverSpec) -> str:
    """The solver's own ``name`` (not ``module:Class``), made safe for a path and a label."""
    solver = get(spec.name, **spec.options)
    return path_safe(str(getattr(solver, "name", "") or spec.name)).strip("-.") or "solver"


def own_label(spec: SolverSpec) -> SolverSpec:
    """``spec`` labelled by the solver's own name and options (``my-jacobi[rtol=1e-08]``), as its folder is
    named, unless a label was given."""
    if spec.label != SolverSpec(spec.name, spec.options).label:
        return spec
    opts = ",".join(f"{k}={v}" for k, v in sorted(spec.options.items()))
    name = own_name(spec)
    return SolverSpec(spec.name, spec.options, label=f"{name}[{opts}]" if opts else name)


def work_folder(work: str | os.PathLike, spec: SolverSpec) -> Path:
    """``work/<solver name>``: the solver's own ``name`` (not ``module:Class``), made safe for a path."""
    return Path(work) / own_name(spec)


#: Key of a submission file's metadata: who ran what, where, and the time yardstick.
SUBMISSION_KEY = b"qlsbench.submission"


def write_submission(
    out: Path,
    rows: pd.DataFrame,
    spec: SolverSpec,
    board: Board,
    calibration: Calibration,
    *,
    time_limit: float | None = None,
    max_qubits: int | None = None,
) -> Path:
    """The new solver's rows (solutions left out, times as measured) with what the board needs to rank them and
    what ``board verify`` re-runs them under: the time limit per solve and the qubit cap (``None``: none)."""
    from qlsbench.bench._environment import machine_info, package_versions

    manifest = board.manifest()
    meta = {
        "label": spec.label,
        "name": spec.name,
        "options": spec.options,
        "time_factor": calibration.factor,
        "calibration_factors": calibration.factors,
        "machine": machine_info(),
        "packages": package_versions(),
        "pinned_version": manifest["version"],
        "pinned_groups": manifest["groups"],
        "time_limit": time_limit,
        "max_qubits": max_qubits,
    }
    rows = rows.assign(x=None, x_imag=None).astype(object)
    table = results_table(rows.where(rows.notna(), None).to_dict("records"))  # NaN in integer columns is null
    table = table.replace_schema_metadata(
        {**table.schema.metadata, SUBMISSION_KEY: json.dumps(meta, sort_keys=True, default=jsonable).encode()}
    )
    return atomic_write_table(table, out)


def read_submission(path: str | os.PathLike) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A submission's rows and metadata; a file that is not one is refused by name."""
    rows = read_results(path)
    meta = (pq.read_schema(path).metadata or {}).get(SUBMISSION_KEY)
    if meta is None:
        raise InputError(f"{path}: not a submission file (write one with `qlsbench compare`)")
    return rows, json.loads(meta)


def scaled_submission(path: str | os.PathLike) -> pd.DataFrame:
    """A submission's rows with its times multiplied by its calibration factor, as the board ranks them."""
    rows, meta = read_submission(path)
    return rows.assign(wall_time=rows["wall_time"] * float(meta["time_factor"]))


def local_files(folder: str | os.PathLike | None) -> list[Path]:
    """The self-submitted files in ``folder`` (none when it does not exist)."""
    folder = Path(folder) if folder is not None else None
    return sorted(folder.glob("*.parquet")) if folder is not None and folder.is_dir() else []


def self_submitted(path: str | os.PathLike) -> pd.DataFrame:
    """A self-submitted file's rows as the board ranks them, the label marked :data:`SELF_SUBMITTED`."""
    rows = scaled_submission(path)
    return rows.assign(solver=rows["solver"] + SELF_SUBMITTED)


def fits_board(board: Board, path: str | os.PathLike, rows: pd.DataFrame, meta: dict[str, Any]) -> dict[str, Any]:
    """Check that a submission was made on this board: the same pinned version and set, and a row for every
    pinned system (what ``board add`` and ``board verify`` both require); the board's manifest.

    Raises
    ------
    InputError
        Naming the file and what does not fit.
    """
    manifest = board.manifest()
    if meta.get("pinned_version") != manifest["version"]:
        raise InputError(
            f"{path}: made against pinned version {meta.get('pinned_version')}, this board pins version "
            f"{manifest['version']}: run the solver on this board again (qlsbench compare)"
        )
    if meta.get("pinned_groups") != manifest["groups"]:
        raise InputError(
            f"{path}: made on another pinned set ({meta.get('pinned_groups')}), this board pins {manifest['groups']}"
        )
    missing = {e["system_id"] for e in manifest["systems"]} - set(rows["system_id"])
    if missing:
        raise InputError(f"{path}: no rows for {len(missing)} pinned system(s), e.g. {sorted(missing)[0]}")
    return manifest


def add_submission(board: Board, path: str | os.PathLike, into: str | os.PathLike = LOCAL_SUBMISSIONS) -> Path:
    """Check a submission against the board (same pinned set, a new label) and keep it in ``into``, a folder of
    the user's (never the installed package: the published board changes only upstream).

    Raises
    ------
    InputError
        Naming the file and what does not fit: another pinned set, a label
        already on the board, systems missing.
    """
    return keep_submission(path, addition(board, path, into))


def keep_submission(path: str | os.PathLike, out: Path) -> Path:
    """Copy the submission ``path`` to ``out`` (:func:`addition`'s answer) whole or not at all; ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, lambda tmp: shutil.copyfile(path, tmp))
    return out


def addition(board: Board, path: str | os.PathLike, into: str | os.PathLike = LOCAL_SUBMISSIONS) -> Path:
    """Where :func:`add_submission` keeps the submission ``path`` in ``into``, after its checks (nothing is written).

    Raises
    ------
    InputError
        As :func:`add_submission`.
    """
    rows, meta = read_submission(path)
    fits_board(board, path, rows, meta)
    taken = set(load_results([board.results_path, *board.submission_files()])["solver"])
    taken |= {read_submission(p)[1]["label"] for p in local_files(into)}
    if meta["label"] in taken:
        raise InputError(f"{path}: label {meta['label']!r} is already on the board")
    return Path(into) / f"{path_safe(meta['label'])}.parquet"


#: Systems ``qlsbench board verify`` re-runs by default: a few, spread over the pinned set's sizes.
VERIFY_SAMPLE = 5
#: A re-run residual within this factor of the submitted one agrees (machines round differently).
VERIFY_RESIDUAL_FACTOR = 10.0
#: A re-run fidelity within this of the submitted one agrees (a variational solve's seed fixes its path, but
#: another BLAS kernel may move it a little).
VERIFY_FIDELITY = 0.02
#: The re-run's time limit is the submission's times this: verify compares answers, not speed, and the machine
#: that re-runs (CI, beside its other tests) may well be slower than the submitter's; a solve within the limit
#: there must not become a time-out here.
VERIFY_TIME_FACTOR = 5.0


def run_conditions(rows: pd.DataFrame, meta: dict[str, Any]) -> tuple[float | None, int | None]:
    """The time limit per solve and the qubit cap a submission was made under, as its metadata records them
    (a file written before they were recorded: the time limit its rows carry, no cap)."""
    if "time_limit" in meta:
        return meta["time_limit"], meta.get("max_qubits")
    limits = rows["time_limit"].dropna()
    return (float(limits.iloc[0]) if len(limits) else None), None


def _spread(items: list, k: int) -> list:
    """``k`` of ``items`` spread evenly over them (the first and the last among them; one alone: the last, the
    largest system), in their order."""
    if k <= 0 or not items:
        return []
    if k == 1:
        return items[-1:]
    picks = sorted({round(i * (len(items) - 1) / (k - 1)) for i in range(min(k, len(items)))})
    return [items[i] for i in picks]


def verify_submission(
    board: Board,
    path: str | os.PathLike,
    *,
    sample: int = VERIFY_SAMPLE,
    work: str | os.PathLike,
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    progress: bool = True,
) -> pd.DataFrame:
    """Re-run a sample of a submission's systems with the solver and options it names, and compare each with
    the submitted row: whether it succeeds on either track, its residual and its fidelity.

    The sample is ``sample`` systems spread evenly over the pinned set ordered by size (then id): the ones the
    solver attempted, and one it declined (``skipped``) where it declined some, so a solver that declines most
    systems is still re-run on what it solved. They are re-run under the submission's own conditions
    (:func:`run_conditions`: its time limit and qubit cap), so a system the cap skipped is skipped again, not
    attempted. Times are not compared: they were measured on another machine. So the re-run's time limit is
    the submission's times :data:`VERIFY_TIME_FACTOR` (a slower machine must not turn an answer into a
    time-out), and a system the submission timed out on is not sampled.

    Returns
    -------
    pandas.DataFrame
        One row per sampled system: the submitted and re-run status, residual and fidelity, and ``agrees``.

    Raises
    ------
    InputError
        When the file is not a submission of this board (:func:`fits_board`: another pinned version or set, a
        pinned system without a row), or its solver cannot be built here (the module
        must be importable: install the submitter's package or put its file on the path).
    """
    from qlsbench.bench.ranking import mark_success

    rows, meta = read_submission(path)
    manifest = fits_board(board, path, rows, meta)
    names = {e["system_id"]: e["name"] for e in manifest["systems"]}
    spec = SolverSpec(meta["name"], meta.get("options", {}), label=meta["label"])
    check_solver(spec.name, spec.options)
    first = rows[rows["repeat"] == rows["repeat"].min()].drop_duplicates("system_id").set_index("system_id")
    # A submitted time-out says how fast the submitter's machine was, not what the solver answers: not sampled.
    timed_out = set(first.index[first["status"] == "timeout"])
    systems = sorted(
        {
            s.system_id: s
            for p in board.pinned_files().values()
            for s in iter_systems(p)
            if s.system_id not in timed_out
        }.values(),
        key=lambda s: (s.dim, s.system_id),
    )
    # Mostly systems the solver attempted (a sample of declined ones checks only that they are declined again),
    # and one declined system where there are both.
    declined = [s for s in systems if first["status"].get(s.system_id) == "skipped"]
    attempted = [s for s in systems if first["status"].get(s.system_id) != "skipped"]
    n_declined = min(len(declined), 1 if attempted else sample)
    chosen = sorted(
        _spread(attempted, sample - n_declined) + _spread(declined, n_declined), key=lambda s: (s.dim, s.system_id)
    )
    seed = int((first["seed"] - first["repeat"]).iloc[0])
    # one folder per submission (its label), so verifies of one peer's submissions can run side by side
    out = Path(work) / path_safe(spec.label)
    subset = write_systems(chosen, out / "sample.parquet")
    time_limit, max_qubits = run_conditions(rows, meta)
    time_limit = None if time_limit is None else min(time_limit * VERIFY_TIME_FACTOR, TIME_LIMIT.high)
    rerun = run_solver(
        spec,
        subset,
        out / "rerun.parquet",
        repeats=1,
        seed=seed,
        time_limit=time_limit,
        max_qubits=max_qubits,
        name="verify",
        progress=progress,
    )
    submitted = mark_success(first.loc[[s.system_id for s in chosen]].reset_index(), tol)
    again = mark_success(rerun, tol).set_index("system_id").loc[submitted["system_id"]].reset_index()
    low_ok = [mark_success(frame, low)["success"].to_numpy() for frame in (submitted, again)]
    table = pd.DataFrame(
        {
            "system": [names.get(s.system_id, s.system_id) for s in chosen],
            "dim": [s.dim for s in chosen],
            "submitted status": submitted["status"].astype(str),
            "re-run status": again["status"].astype(str),
            "submitted residual": submitted["rel_residual"],
            "re-run residual": again["rel_residual"],
            "submitted fidelity": submitted["fidelity"],
            "re-run fidelity": again["fidelity"],
        }
    )
    same_tracks = (submitted["success"].to_numpy() == again["success"].to_numpy()) & (low_ok[0] == low_ok[1])
    ratio = np.maximum(submitted["rel_residual"], 1e-300) / np.maximum(again["rel_residual"], 1e-300)
    neither = submitted["rel_residual"].isna() & again["rel_residual"].isna()  # no solution either time
    close = (
        ratio.between(1 / VERIFY_RESIDUAL_FACTOR, VERIFY_RESIDUAL_FACTOR)
        | neither
        | (np.maximum(submitted["rel_residual"], again["rel_residual"]) <= tol.residual)
    ) & ((submitted["fidelity"] - again["fidelity"]).abs().fillna(0.0) <= VERIFY_FIDELITY)
    # a declined system must be declined again, an attempted one attempted: "no solution either time" is no
    # agreement between a skip and an error
    declined_both = (submitted["status"].astype(str) == "skipped").to_numpy() == (
        again["status"].astype(str) == "skipped"
    ).to_numpy()
    table["agrees"] = same_tracks & close.fillna(False).to_numpy() & declined_both
    return table
