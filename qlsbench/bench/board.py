"""Leaderboard v1: a pinned benchmark set, the published board, and comparing a new solver against it.

The pinned set is a fixed list of named systems (Ising-inspired at kappa 10
and 100, DEM-C subsystems by qubit band and kappa), stored with the package
in ``qlsbench/pinned/`` with a manifest of their content hashes. The board's
solvers (``board.yaml``) are run on it once and their rows published as
``results.parquet``; :func:`compare` runs only a new solver and ranks it
against those rows.

Times come from different machines, so :func:`compare` also runs the board's
reference solver (dense LU) on the same systems in the same session and
scales the new solver's times by the ratio of the two LU timings.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from qlsbench.bench.ranking import (
    LOW_ACCURACY,
    Tolerances,
    failing_systems,
    leaderboard,
)
from qlsbench.bench.results import (
    jsonable,
    load_results,
    read_results,
    results_files,
    results_table,
)
from qlsbench.bench.runner import SolverSpec, run_solver
from qlsbench.checks import Real, Whole
from qlsbench.data import (
    atomic_write,
    atomic_write_table,
    atomic_write_text,
    dataset_hash,
    iter_systems,
    write_systems,
)
from qlsbench.data.pinned import PINNED, group_file, pinned_files, read_manifest
from qlsbench.errors import DatasetError, InputError
from qlsbench.outcomes import Status
from qlsbench.solvers.registry import check_solver, get
from qlsbench.text import plural
from qlsbench.yaml_files import load_yaml

#: The board shipped with the package.
DEFAULT_BOARD = PINNED
#: Columns the published results leave out: solutions are large and nobody ranks by them.
_UNPUBLISHED = ("x", "x_imag")
#: The board's time yardstick, run again by :func:`compare` on the comparing machine.
REFERENCE_SOLVER = "lu"
#: Where ``qlsbench board add`` keeps self-submitted files by default (relative to the working folder): never
#: inside the installed package, so a later ``compare`` ranks against the published board only.
LOCAL_SUBMISSIONS = Path("submissions")
#: Appended to a self-submitted row's label on the pages: it was not checked upstream.
SELF_SUBMITTED = " (self-submitted)"


@dataclass(frozen=True)
class Board:
    """A board folder: ``board.yaml``, ``systems/<group>.parquet``, ``manifest.json``, ``results.parquet``."""

    folder: Path = DEFAULT_BOARD

    @property
    def config(self) -> dict[str, Any]:
        return load_yaml(self.folder / "board.yaml", "board configuration", error=InputError)

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    @property
    def results_path(self) -> Path:
        return self.folder / "results.parquet"

    @property
    def submissions_folder(self) -> Path:
        """The published submissions: files accepted upstream (a pull request adding one here, checked by
        ``qlsbench board verify``). ``qlsbench board add`` never writes here; it keeps a self-submitted file in
        a folder of the user's (:data:`LOCAL_SUBMISSIONS`)."""
        return self.folder / "submissions"

    def submission_files(self) -> list[Path]:
        return sorted(self.submissions_folder.glob("*.parquet")) if self.submissions_folder.exists() else []

    def system_file(self, group: str) -> Path:
        return group_file(self.folder, group)

    def manifest(self) -> dict[str, Any]:
        """The pinned set's manifest; a clear error when the set was never pinned."""
        return read_manifest(self.folder)

    def pinned_files(self) -> dict[str, Path]:
        """The pinned set's files by group, every system checked against the manifest
        (:func:`qlsbench.data.pinned.pinned_files`, the one check of a pinned set)."""
        return pinned_files(self.folder)


def parse_band(band: str) -> tuple[int, int]:
    """``"5-6"`` as ``(5, 6)``."""
    try:
        lo, hi = (int(v) for v in band.split("-"))
    except ValueError:
        raise InputError(f"qubit band {band!r} is not of the form LO-HI") from None
    return lo, hi


def select_systems(systems: list, bands: list[str], per_band: int, min_qubits: int) -> list:
    """Per qubit band, ``per_band`` systems spread over the range of kappa (lowest, ..., highest).

    Ties in kappa are broken by system id, so the choice is deterministic.
    """
    chosen, seen = [], set()
    for band in bands:
        lo, hi = parse_band(band)
        lo = max(lo, min_qubits)
        pool = sorted((s for s in systems if lo <= s.meta["n_qubits"] <= hi),
                      key=lambda s: (s.meta["cond"], s.system_id))
        pool = [s for s in pool if not (s.system_id in seen or seen.add(s.system_id))]
        if not pool:
            continue
        picks = np.unique(np.linspace(0, len(pool) - 1, min(per_band, len(pool))).round().astype(int))
        chosen += [pool[i] for i in picks]
    return chosen


def _name(system) -> str:
    m = system.meta
    if m.get("family") == "ising":
        return f"ising-k{m['cond']:g}-n{m['n_qubits']}"
    # Systems of the v2 contact-LCP chain record the phase that produced them; their names say v2, since the same
    # scene, step and iteration on the v1 chain is another system.
    chain = "-v2" if "phase" in m else ""
    return f"{m['scene']}{chain}-step{m['step']}-it{m['newton_iter']}-n{m['n_qubits']}"


#: Keys of a pinned-set source that are the board's, not the family's options.
_BOARD_KEYS = ("group", "bands")


def _source_runs(config: dict[str, Any]):
    """Every run of ``board.yaml``'s sources: ``(family, index in its section, run, group)``.

    A run's ``group`` (default: the family) names its file in the pinned set.
    """
    from qlsbench.families import FAMILIES

    for name, section in config["sources"].items():
        family = FAMILIES[name]
        for i, run in enumerate(family.runs(section) if family.runs else section):
            yield family, i, run, run.get("group", family.name)


def _build_run(family, i: int, run: dict[str, Any], folder: Path, config: dict[str, Any], progress: bool) -> list:
    """Build one source run in ``folder`` and return its systems; with ``bands``, only the per-band picks of
    :func:`select_systems`."""
    options = family.options.from_mapping({k: v for k, v in run.items() if k not in _BOARD_KEYS},
                                         f"board.yaml sources.{family.name}[{i}]")
    out = folder / family.name / f"{i}-{family.label(options)}"
    out = out.with_suffix(".parquet") if family.out_kind == "file" else out
    family.build(options, out, progress)
    systems = list(iter_systems(out))
    if "bands" in run:
        systems = select_systems(systems, run["bands"], config["per_band"], config["min_qubits"])
    return systems


def source_groups(config: dict[str, Any]) -> list[str]:
    """The groups ``board.yaml``'s sources pin, in order."""
    return list(dict.fromkeys(group for *_, group in _source_runs(config)))


def _check_groups(asked: list[str] | None, known: list[str], refusal: str) -> None:
    """Refuse groups not in ``known``, in one line starting with ``refusal``."""
    missing = [g for g in asked or [] if g not in known]
    if missing:
        raise InputError(f"{refusal} group(s) {', '.join(missing)}; the groups are {', '.join(known)}")


def pin(board: Board = Board(), progress: bool = True, groups: list[str] | None = None) -> dict[str, Any]:
    """Build the pinned set from ``board.yaml`` and write it with its manifest.

    Each source is a dataset family of :data:`qlsbench.families.FAMILIES`
    and its runs, as in a workflow config.

    Parameters
    ----------
    groups : list of str, optional
        Pin only these groups and keep every other group's file and manifest
        entries as they are (how a new group joins a published board without
        rebuilding, and so perhaps changing, the others). Default: all.

    Returns
    -------
    dict
        The manifest: version, per group its file's hash, and per system its
        name, group, id (content hash), qubits, kappa and symmetry.
    """
    from qlsbench.families import FAMILIES

    config = board.config
    where = board.folder / "board.yaml"
    unknown = sorted(set(config["sources"]) - set(FAMILIES))
    if unknown:
        raise InputError(f"{where}: sources {unknown} are not dataset families ({', '.join(FAMILIES)})")
    declared = source_groups(config)
    _check_groups(groups, declared, f"{where}: no source pins")
    only = None if groups is None else set(groups)
    built: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for family, i, run, group in _source_runs(config):
            if only is None or group in only:
                built.setdefault(group, []).extend(_build_run(family, i, run, Path(tmp), config, progress))
    kept = {"groups": {}, "systems": []} if only is None else board.manifest()
    entries = {g: [e for e in kept["systems"] if e["group"] == g] for g in kept["groups"] if g not in built}
    for group, systems in built.items():
        for s in systems:
            s.meta["pinned_name"] = _name(s)
        write_systems(systems, board.system_file(group), metadata={"pinned_version": config["version"]})
        entries[group] = [{"name": s.meta["pinned_name"], "group": group, "system_id": s.system_id,
                           "family": s.meta["family"], "n_qubits": s.meta["n_qubits"], "cond": float(s.meta["cond"]),
                           "symmetric": bool(s.meta.get("symmetric", True))} for s in systems]
    order = [g for g in declared if g in entries] + [g for g in entries if g not in declared]
    manifest = {"version": config["version"],
                "groups": {g: kept["groups"][g] if g not in built else dataset_hash(board.system_file(g))
                           for g in order},
                "systems": [e for g in order for e in entries[g]]}
    atomic_write_text(board.manifest_path, json.dumps(manifest, indent=1) + "\n")
    return manifest


#: What a board's ``run:`` section and each ``solvers:`` entry may set, and each value's bounds.
_RUN_KEYS = {"repeats": Whole(1, 1000), "seed": Whole(0), "time_limit": Real(0.0, open_low=True)}
_ENTRY_KEYS = {"name", "options", "label", "repeats", "time_limit", "max_qubits"}


def _checked(section: dict, where: str, allowed) -> dict:
    """``section`` when a mapping of only ``allowed`` keys, each value within its bounds; one line otherwise."""
    if not isinstance(section, dict):
        raise InputError(f"{where}: must be a mapping, got {section!r}")
    unknown = sorted(set(section) - set(allowed))
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}; it takes {', '.join(sorted(allowed))}")
    for key, bounds in _RUN_KEYS.items():
        if key in section:
            bounds.check(section[key], f"{where}: {key}")
    if section.get("max_qubits") is not None:
        Whole(1, 64).check(section["max_qubits"], f"{where}: max_qubits")
    return section


def solver_runs(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The board's solver entries with their spec, repeats, time limit and qubit cap resolved, every key and
    value checked (one line naming the entry and key)."""
    run = _checked(config.get("run") or {}, "run", _RUN_KEYS)
    out = []
    for i, entry in enumerate(config.get("solvers") or []):
        if not isinstance(entry, dict) or "name" not in entry:
            raise InputError(f"solvers[{i}]: a solver entry is a mapping with a 'name', got {entry!r}")
        _checked(entry, f"solvers[{i}]", _ENTRY_KEYS)
        if not isinstance(entry.get("options") or {}, dict):
            raise InputError(f"solvers[{i}]: options must be a mapping, got {entry['options']!r}")
        spec = SolverSpec(entry["name"], dict(entry.get("options") or {}), entry.get("label", ""))
        out.append({"spec": spec, "repeats": entry.get("repeats", run.get("repeats", 1)),
                    "seed": run.get("seed", 0), "time_limit": entry.get("time_limit", run.get("time_limit", 120)),
                    "max_qubits": entry.get("max_qubits")})
    return out


def check_runs(board: Board) -> list[dict[str, Any]]:
    """The board's solver runs after every solver was resolved and its options checked, none run yet.

    A typo in the last entry of ``board.yaml`` would otherwise surface hours
    into ``board run``, after every solver before it had run.
    """
    where = board.folder / "board.yaml"
    try:
        runs = solver_runs(board.config)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    for i, run in enumerate(runs):
        check_solver(run["spec"].name, run["spec"].options, where=f"{where}: solvers[{i}]")
    return runs


def run_board(board: Board, results_dir: str | os.PathLike, progress: bool = True,
              groups: list[str] | None = None) -> list[Path]:
    """Run every board solver on every pinned group into ``results_dir/<label>/<group>.parquet``.

    Every solver is checked before the first one runs. Finished files are
    kept and unfinished ones resume from their journal, so an interrupted run
    picks up where it stopped. ``groups`` runs only those groups (a newly
    pinned one).
    """
    runs = check_runs(board)
    files = board.pinned_files()
    _check_groups(groups, list(files), f"{board.manifest_path}: no pinned")
    if groups is not None:
        files = {g: p for g, p in files.items() if g in groups}
    written = []
    for run in runs:
        for group, path in files.items():
            out = Path(results_dir) / run["spec"].label / f"{group}.parquet"
            if not out.exists():
                run_solver(run["spec"], path, out, name=f"pinned/{group}", repeats=run["repeats"], seed=run["seed"],
                           time_limit=run["time_limit"], max_qubits=run["max_qubits"], progress=progress)
            written.append(out)
    return written


def pinned_table(board: Board) -> pd.DataFrame:
    """The manifest as a table: name, group, qubits, kappa, symmetric, id."""
    table = pd.DataFrame(board.manifest()["systems"])
    return table[["name", "group", "n_qubits", "cond", "symmetric", "system_id"]]


def publish_results(board: Board, results_dir: str | os.PathLike) -> pd.DataFrame:
    """Publish a board run's rows as ``results.parquet`` beside the pinned set (solutions left out); returns them.

    The pages drawn from them are :func:`qlsbench.report.board_pages.publish`'s.
    """
    results = load_results([results_dir])  # checks every file's schema first
    tables = [pq.read_table(f) for f in results_files([results_dir])]
    table = pa.concat_tables(tables)
    for column in _UNPUBLISHED:
        i = table.schema.get_field_index(column)
        table = table.set_column(i, table.schema.field(i), pa.nulls(len(table), table.schema.field(i).type))
    atomic_write_table(table, board.results_path)
    return results


@dataclass
class Calibration:
    """The time yardstick of a comparison: board LU time / LU time here, per repeat of the reference run.

    Attributes
    ----------
    factors : list of float
        One factor per repeat of the reference solver here (the geometric mean
        over systems of board time / time here); empty when not calibrated.
    """

    factors: list[float]

    @property
    def factor(self) -> float:
        """The median factor (1.0 when not calibrated): what the new solver's times are multiplied by."""
        return float(np.median(self.factors)) if self.factors else 1.0

    def describe(self) -> str:
        if not self.factors:
            return "times as measured here, not calibrated to the board's machine"
        lo, hi = min(self.factors), max(self.factors)
        return (f"times scaled by {self.factor:.3g} (board's dense LU time / this machine's on the same systems; "
                f"{plural(len(self.factors), 'repeat')} ranged {lo:.3g} to {hi:.3g}, spread {100 * (hi - lo) / self.factor:.0f} %)")


@dataclass
class Comparison:
    """What :func:`compare` found.

    Attributes
    ----------
    board : pandas.DataFrame
        The ranking (:func:`~qlsbench.bench.ranking.leaderboard`) with the new solver in it.
    label : str
        The new solver's label.
    calibration : Calibration
        The factor applied to the new solver's times and its spread.
    results : pandas.DataFrame
        The new solver's own rows (times as measured here).
    submission : pathlib.Path
        The submission file :func:`add_submission` (``qlsbench board add``) puts on the board.
    """

    board: pd.DataFrame
    label: str
    calibration: Calibration
    results: pd.DataFrame
    submission: Path

    @property
    def time_factor(self) -> float:
        return self.calibration.factor

    def rank(self, column: str = "success_rate") -> int:
        """1-based place of the new solver when sorted by ``column`` (then median fidelity, then time)."""
        order = self.board.sort_values([column, "median_fidelity", "time_sgm_rel"],
                                       ascending=[False, False, True]).reset_index(drop=True)
        return int(order.index[order["solver"] == self.label][0]) + 1

    def failing(self, tol: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
        """The pinned systems the new solver did not solve at ``tol`` (default: the variational track's bar)."""
        return failing_systems(self.results, self.label, tol)


def _lu_times(results: pd.DataFrame) -> pd.Series:
    lu = results[(results["solver_name"] == REFERENCE_SOLVER) & (results["status"] == Status.CONVERGED)]
    return lu.groupby("system_id")["wall_time"].median()


def time_factor(board_results: pd.DataFrame, local_reference: pd.DataFrame) -> float:
    """Geometric mean over systems of board LU time / local LU time."""
    ratio = (_lu_times(board_results) / _lu_times(local_reference)).dropna()
    if ratio.empty:
        raise InputError(f"no converged {REFERENCE_SOLVER!r} solves to calibrate times with")
    return float(np.exp(np.mean(np.log(ratio))))


#: Repeats of the reference solver when calibrating: enough to show how much the factor moves.
CALIBRATION_REPEATS = 5


def calibrate(published: pd.DataFrame, reference: pd.DataFrame) -> Calibration:
    """One :func:`time_factor` per repeat of the local reference run."""
    return Calibration([time_factor(published, part) for _, part in reference.groupby("repeat", sort=True)])


def own_name(spec: SolverSpec) -> str:
    """The solver's own ``name`` (not ``module:Class``), made safe for a path and a label."""
    solver = get(spec.name, **spec.options)
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", str(getattr(solver, "name", "") or spec.name)).strip("-.") or "solver"


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


def _finished(out: Path, spec: SolverSpec, dataset: Path, repeats: int, seed: int,
              time_limit: float | None) -> pd.DataFrame | None:
    """The rows of an earlier, finished run of exactly this configuration at ``out``, else ``None``."""
    if not out.exists():
        return None
    try:
        rows = read_results(out)
    except InputError:
        return None
    expected = {(sid, r) for sid in {s.system_id for s in iter_systems(dataset)} for r in range(repeats)}
    same = (set(rows["solver"]) == {spec.label} and set(rows["solver_options"]) == {spec.options_json}
            and set(rows["dataset_hash"]) == {dataset_hash(dataset)} and set(rows["seed"] - rows["repeat"]) == {seed}
            and set(rows["time_limit"].fillna(-1.0)) == {-1.0 if time_limit is None else float(time_limit)})
    return rows if same and set(zip(rows["system_id"], rows["repeat"])) == expected else None


def _run_or_reuse(spec: SolverSpec, path: Path, out: Path, **run) -> pd.DataFrame:
    """A finished run of the same configuration is read back; anything else runs (resuming from its journal)."""
    done = _finished(out, spec, path, run["repeats"], run["seed"], run["time_limit"])
    return done if done is not None else run_solver(spec, path, out, **run)


#: What a trial solve's resources say when the solver itself is at fault (not a status it returned).
_BROKEN = {"raised": "raised {}", "invalid_solution": "{}", "died": "its process died ({})"}


def _probe(spec: SolverSpec, files: dict[str, Path], time_limit: float) -> None:
    """Solve the smallest pinned system once first: a solver that raises on it, returns no usable vector (NaN,
    wrong shape), kills its process or exceeds the time limit is refused before the long run.

    A bad option value the constructor took without complaint (``rtol="abc"``)
    shows here as an error, in one line, instead of 43 error rows and a rank.
    A status the solver returns (``error: diverged``, ``max_iter``) is a
    result like any other: the run goes on and the system counts as failed.
    """
    from qlsbench.bench.isolation import IsolatedSolver

    smallest = min((s for path in files.values() for s in iter_systems(path)), key=lambda s: (s.dim, s.system_id))
    worker = IsolatedSolver(spec.name, spec.options, time_limit)
    try:
        result, _ = worker.solve(smallest, 0)
    finally:
        worker.close()
    resources = result.resources if isinstance(result.resources, dict) else {}
    broken = [template.format(resources[key]) for key, template in _BROKEN.items() if key in resources]
    if result.status is Status.TIMEOUT:  # every larger system would too: 43 x the limit for nothing
        where = smallest.meta.get("pinned_name", smallest.system_id)
        raise InputError(f"solver {spec.label!r} exceeded the time limit of {time_limit:g} s on the smallest pinned "
                         f"system ({where}), nothing else was run; --time-limit sets the limit")
    if broken or result.status is Status.CRASHED:
        where = smallest.meta.get("pinned_name", smallest.system_id)
        raise InputError(f"solver {spec.label!r} {broken[0] if broken else 'crashed'} on the smallest pinned system "
                         f"({where}), nothing else was run: {result.message}")


def compare(spec: SolverSpec, board: Board = Board(), *, work: str | os.PathLike, time_limit: float = 120.0,
            repeats: int = 1, seed: int = 0, calibrate_times: bool = True, progress: bool = True,
            tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY,
            local: str | os.PathLike | None = None) -> Comparison:
    """Run ``spec`` on the pinned set and rank it against the published board; write its submission file.

    Parameters
    ----------
    spec : SolverSpec
        The new solver (registry name, entry point or ``module:Class``).
    board : Board
        Pinned set and published results.
    work : path
        Folder for the new solver's results, in ``work/<solver name>/``. A
        finished comparison of the same configuration is read back, an
        interrupted one resumes.
    time_limit, repeats, seed
        As for :func:`~qlsbench.bench.runner.run_solver`.
    calibrate_times : bool
        Scale the new solver's times by board LU time / LU time here (the
        median over :data:`CALIBRATION_REPEATS` repeats, whose spread is reported).
    local : path, optional
        A folder of self-submitted files (``qlsbench board add``) to rank
        against as well, marked; by default only the published board counts.
    """
    # Both solvers this runs are refused before anything runs if they cannot be built as asked.
    check_solver(spec.name, spec.options)
    spec = own_label(spec)
    if calibrate_times:
        check_solver(REFERENCE_SOLVER, {})
    if not board.results_path.exists():
        raise DatasetError(f"{board.results_path}: no published board to compare with (`qlsbench board publish`)")
    published = load_results([board.results_path, *board.submission_files()])
    if local:
        published = pd.concat([published, *(self_submitted(path) for path in local_files(local))], ignore_index=True)
    if spec.label in set(published["solver"]):
        raise InputError(f"label {spec.label!r} is already on the board; give the new solver another --label")
    files = board.pinned_files()
    folder = work_folder(work, spec)
    if _finished(folder / f"{next(iter(files))}.parquet", spec, next(iter(files.values())), repeats, seed,
                 time_limit) is None:
        _probe(spec, files, time_limit)
    frames, reference = [], []
    for group, path in files.items():
        frames.append(_run_or_reuse(spec, path, folder / f"{group}.parquet", name=f"pinned/{group}", repeats=repeats,
                                    seed=seed, time_limit=time_limit, progress=progress))
        if calibrate_times:
            reference.append(_run_or_reuse(SolverSpec(REFERENCE_SOLVER), path,
                                           folder / "reference" / f"{group}.parquet", name=f"pinned/{group}",
                                           repeats=CALIBRATION_REPEATS, seed=0, time_limit=None, progress=False))
    mine = pd.concat(frames, ignore_index=True)
    calibration = calibrate(published, pd.concat(reference, ignore_index=True)) if calibrate_times else Calibration([])
    scaled = mine.assign(wall_time=mine["wall_time"] * calibration.factor)
    merged = pd.concat([published, scaled.drop(columns=list(_UNPUBLISHED))], ignore_index=True)
    submission = write_submission(folder / "submission.parquet", mine, spec, board, calibration)
    return Comparison(leaderboard(merged, tol, low), spec.label, calibration, mine, submission)


# ---------------------------------------------------------------- submissions

#: Key of a submission file's metadata: who ran what, where, and the time yardstick.
SUBMISSION_KEY = b"qlsbench.submission"


def write_submission(out: Path, rows: pd.DataFrame, spec: SolverSpec, board: Board, calibration: Calibration) -> Path:
    """The new solver's rows (solutions left out, times as measured) with what the board needs to rank them."""
    from qlsbench.bench.environment import machine_info, package_versions

    manifest = board.manifest()
    meta = {"label": spec.label, "name": spec.name, "options": spec.options, "time_factor": calibration.factor,
            "calibration_factors": calibration.factors, "machine": machine_info(), "packages": package_versions(),
            "pinned_version": manifest["version"], "pinned_groups": manifest["groups"]}
    rows = rows.assign(x=None, x_imag=None).astype(object)
    table = results_table(rows.where(rows.notna(), None).to_dict("records"))  # NaN in integer columns is null
    table = table.replace_schema_metadata({**table.schema.metadata,
                                           SUBMISSION_KEY: json.dumps(meta, sort_keys=True, default=jsonable).encode()})
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


def add_submission(board: Board, path: str | os.PathLike, into: str | os.PathLike = LOCAL_SUBMISSIONS) -> Path:
    """Check a submission against the board (same pinned set, a new label) and keep it in ``into``, a folder of
    the user's (never the installed package: the published board changes only upstream).

    Raises
    ------
    InputError
        Naming the file and what does not fit: another pinned set, a label
        already on the board, systems missing.
    """
    rows, meta = read_submission(path)
    manifest = board.manifest()
    if meta.get("pinned_groups") != manifest["groups"]:
        raise InputError(f"{path}: made on another pinned set ({meta.get('pinned_groups')}), this board pins "
                         f"{manifest['groups']}")
    out = Path(into) / f"{re.sub(r'[^A-Za-z0-9_.+-]+', '-', meta['label'])}.parquet"
    taken = set(load_results([board.results_path, *board.submission_files()])["solver"])
    taken |= {read_submission(p)[1]["label"] for p in local_files(into)}
    if meta["label"] in taken:
        raise InputError(f"{path}: label {meta['label']!r} is already on the board")
    missing = {e["system_id"] for e in manifest["systems"]} - set(rows["system_id"])
    if missing:
        raise InputError(f"{path}: no rows for {len(missing)} pinned system(s), e.g. {sorted(missing)[0]}")
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, lambda tmp: shutil.copyfile(path, tmp))
    return out


#: Systems ``qlsbench board verify`` re-runs by default: a few, spread over the pinned set's sizes.
VERIFY_SAMPLE = 5
#: A re-run residual within this factor of the submitted one agrees (machines round differently).
VERIFY_RESIDUAL_FACTOR = 10.0
#: A re-run fidelity within this of the submitted one agrees (a variational solve's seed fixes its path, but
#: another BLAS kernel may move it a little).
VERIFY_FIDELITY = 0.02


def verify_submission(board: Board, path: str | os.PathLike, *, sample: int = VERIFY_SAMPLE,
                      work: str | os.PathLike, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY,
                      progress: bool = True) -> pd.DataFrame:
    """Re-run a sample of a submission's systems with the solver and options it names, and compare each with
    the submitted row: whether it succeeds on either track, its residual and its fidelity.

    The sample is ``sample`` systems spread evenly over the pinned set ordered by size (then id), so the
    smallest and the largest are in it. Times are not compared: they were measured on another machine.

    Returns
    -------
    pandas.DataFrame
        One row per sampled system: the submitted and re-run status, residual and fidelity, and ``agrees``.

    Raises
    ------
    InputError
        When the file is not a submission of this board, or its solver cannot be built here (the module
        must be importable: install the submitter's package or put its file on the path).
    """
    from qlsbench.bench.ranking import mark_success

    rows, meta = read_submission(path)
    manifest = board.manifest()
    if meta.get("pinned_groups") != manifest["groups"]:
        raise InputError(f"{path}: made on another pinned set ({meta.get('pinned_groups')})")
    names = {e["system_id"]: e["name"] for e in manifest["systems"]}
    spec = SolverSpec(meta["name"], meta.get("options", {}), label=meta["label"])
    check_solver(spec.name, spec.options)
    systems = sorted({s.system_id: s for p in board.pinned_files().values() for s in iter_systems(p)}.values(),
                     key=lambda s: (s.dim, s.system_id))
    picks = sorted({round(i * (len(systems) - 1) / max(sample - 1, 1)) for i in range(min(sample, len(systems)))})
    chosen = [systems[i] for i in picks]
    first = rows[rows["repeat"] == rows["repeat"].min()].drop_duplicates("system_id").set_index("system_id")
    seed = int((first["seed"] - first["repeat"]).iloc[0])
    out = Path(work) / own_name(spec)
    subset = write_systems(chosen, out / "sample.parquet")
    time_limit = float(first["time_limit"].dropna().iloc[0]) if first["time_limit"].notna().any() else None
    rerun = run_solver(spec, subset, out / "rerun.parquet", repeats=1, seed=seed, time_limit=time_limit,
                       name="verify", progress=progress)
    submitted = mark_success(first.loc[[s.system_id for s in chosen]].reset_index(), tol)
    again = mark_success(rerun, tol).set_index("system_id").loc[submitted["system_id"]].reset_index()
    low_ok = [mark_success(frame, low)["success"].to_numpy() for frame in (submitted, again)]
    table = pd.DataFrame({
        "system": [names.get(s.system_id, s.system_id) for s in chosen], "dim": [s.dim for s in chosen],
        "submitted status": submitted["status"].astype(str), "re-run status": again["status"].astype(str),
        "submitted residual": submitted["rel_residual"], "re-run residual": again["rel_residual"],
        "submitted fidelity": submitted["fidelity"], "re-run fidelity": again["fidelity"]})
    same_tracks = (submitted["success"].to_numpy() == again["success"].to_numpy()) & (low_ok[0] == low_ok[1])
    ratio = np.maximum(submitted["rel_residual"], 1e-300) / np.maximum(again["rel_residual"], 1e-300)
    neither = submitted["rel_residual"].isna() & again["rel_residual"].isna()  # no solution either time
    close = ((ratio.between(1 / VERIFY_RESIDUAL_FACTOR, VERIFY_RESIDUAL_FACTOR) | neither
              | (np.maximum(submitted["rel_residual"], again["rel_residual"]) <= tol.residual))
             & ((submitted["fidelity"] - again["fidelity"]).abs().fillna(0.0) <= VERIFY_FIDELITY))
    table["agrees"] = same_tracks & close.fillna(False).to_numpy()
    return table


__all__ = ["Board", "Calibration", "Comparison", "DEFAULT_BOARD", "LOCAL_SUBMISSIONS", "SELF_SUBMITTED",
           "add_submission", "local_files", "own_label", "self_submitted", "verify_submission", "check_runs", "compare", "pin",
           "pinned_table", "publish_results", "read_submission", "run_board", "scaled_submission",
           "select_systems", "solver_runs", "source_groups", "time_factor", "work_folder", "write_submission"]
