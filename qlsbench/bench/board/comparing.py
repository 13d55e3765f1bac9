"""Comparing a new solver with the published board: run it alone on the pinned set and rank it among their rows.

The board's solvers are not run again: :func:`compare` runs the new solver
(after one trial solve of the smallest system, :func:`_probe`), calibrates
its times to the board's machine (:mod:`~qlsbench.bench.board.calibration`),
ranks it against the published rows and writes its submission file
(:mod:`~qlsbench.bench.board.submissions`). A finished comparison of the same
configuration is read back, an interrupted one resumes. ``quick`` runs only
:func:`quick_systems` (one system per group and qubit band) against the
published rows on the same systems, a first look that writes no submission.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from qlsbench.bench._results import load_results, read_results
from qlsbench.bench._runner import SolverSpec, run_solver
from qlsbench.bench.board.calibration import (
    CALIBRATION_REPEATS,
    REFERENCE_SOLVER,
    Calibration,
    calibrate,
)
from qlsbench.bench.board.folder import SHIPPED, UNPUBLISHED, Board
from qlsbench.bench.board.submissions import (
    local_files,
    own_label,
    self_submitted,
    work_folder,
    write_submission,
)
from qlsbench.bench.ranking import (
    LOW_ACCURACY,
    Tolerances,
    failing_systems,
    leaderboard,
    qubit_band,
)
from qlsbench.data import dataset_hash, iter_systems, write_systems
from qlsbench.errors import DatasetError, InputError
from qlsbench.outcomes import Status
from qlsbench.solvers.base import prepare
from qlsbench.solvers.registry import check_solver


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
    submission : pathlib.Path or None
        The submission file
        :func:`~qlsbench.bench.board.submissions.add_submission` (``qlsbench
        board add``) puts on the board; ``None`` for a quick look, which is none.
    systems : int
        The pinned systems (distinct) the comparison ran on: all of them, or the quick subset's.
    quick : bool
        Whether this was a quick look (:func:`quick_systems`), ranked on those systems only.
    """

    board: pd.DataFrame
    label: str
    calibration: Calibration
    results: pd.DataFrame
    submission: Path | None
    systems: int = 0
    quick: bool = False

    @property
    def time_factor(self) -> float:
        return self.calibration.factor

    def rank(self, column: str = "success_rate") -> int:
        """1-based place of the new solver when sorted by ``column`` (then median fidelity, then time)."""
        order = self.board.sort_values(
            [column, "median_fidelity", "time_sgm_rel"], ascending=[False, False, True]
        ).reset_index(drop=True)
        return int(order.index[order["solver"] == self.label][0]) + 1

    def interval(self, column: str = "success_rate") -> tuple[float, float, float]:
        """The new solver's rate ``column`` and its 95 % Wilson interval over the systems it counts."""
        mine = self.board[self.board["solver"] == self.label].iloc[0]
        return float(mine[column]), float(mine[f"{column}_ci_low"]), float(mine[f"{column}_ci_high"])

    def not_separated(self, column: str = "success_rate") -> list[str]:
        """The other rows whose interval of ``column`` overlaps the new solver's: at 95 %, the ranking does not
        order the new solver against them, whatever their places say."""
        _, low, high = self.interval(column)
        others = self.board[self.board["solver"] != self.label]
        meets = (others[f"{column}_ci_low"] <= high) & (others[f"{column}_ci_high"] >= low)
        return others.loc[meets, "solver"].tolist()

    def failing(self, tol: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
        """The pinned systems the new solver did not solve at ``tol`` (default: the variational track's bar)."""
        return failing_systems(self.results, self.label, tol)


def _finished(
    out: Path,
    spec: SolverSpec,
    dataset: Path,
    repeats: int,
    seed: int,
    time_limit: float | None,
    max_qubits: int | None = None,
) -> pd.DataFrame | None:
    """The rows of an earlier, finished run of exactly this configuration at ``out``, else ``None``."""
    if not out.exists():
        return None
    try:
        rows = read_results(out)
    except InputError:
        return None
    systems = list(iter_systems(dataset))
    expected = {(s.system_id, r) for s in systems for r in range(repeats)}
    same = (
        set(rows["solver"]) == {spec.label}
        and set(rows["solver_options"]) == {spec.options_json}
        and set(rows["dataset_hash"]) == {dataset_hash(dataset)}
        and set(rows["seed"] - rows["repeat"]) == {seed}
        and set(rows["time_limit"].fillna(-1.0)) == {-1.0 if time_limit is None else float(time_limit)}
        and _capped(rows) == {s.system_id for s in systems if _over(s.meta.get("n_qubits"), max_qubits)}
    )
    return rows if same and set(zip(rows["system_id"], rows["repeat"])) == expected else None


def _over(n_qubits, max_qubits: int | None) -> bool:
    """Whether a system of ``n_qubits`` is over the qubit cap (none: nothing is)."""
    return max_qubits is not None and n_qubits is not None and int(n_qubits) > max_qubits


def _capped(rows: pd.DataFrame) -> set[str]:
    """The systems a qubit cap skipped in ``rows`` (the runner's reason names ``max_qubits``): a finished run
    records its cap only there, and a run under another cap is not this one."""
    skipped = (rows["status"].astype(str) == Status.SKIPPED.value) & rows["message"].fillna("").str.contains(
        "over max_qubits=", regex=False
    )
    return set(rows.loc[skipped, "system_id"])


def _run_or_reuse(spec: SolverSpec, path: Path, out: Path, **run) -> pd.DataFrame:
    """A finished run of the same configuration is read back; anything else runs (resuming from its journal)."""
    done = _finished(out, spec, path, run["repeats"], run["seed"], run["time_limit"], run.get("max_qubits"))
    return done if done is not None else run_solver(spec, path, out, **run)


def quick_systems(manifest: dict) -> list[dict]:
    """The manifest's entries ``compare --quick`` runs: per group and qubit band
    (:data:`~qlsbench.bench.ranking.QUBIT_BANDS`) the one of fewest qubits (then name), in manifest order; a
    system pinned in two groups is an entry of each.

    Every group at every size the board has, each at its cheapest; deterministic from the manifest alone, so
    every quick look at one pinned set runs the same systems.
    """
    chosen: dict[tuple[str, str], int] = {}
    entries = manifest["systems"]
    for i, entry in enumerate(entries):
        key = (entry["group"], qubit_band(entry.get("n_qubits")))
        best = chosen.get(key)
        if best is None or (entry["n_qubits"], entry["name"]) < (entries[best]["n_qubits"], entries[best]["name"]):
            chosen[key] = i
    return [entries[i] for i in sorted(chosen.values())]


def _quick_files(files: dict[str, Path], manifest: dict, folder: Path) -> dict[str, Path]:
    """Per group, a dataset of its :func:`quick_systems` in ``folder`` (rewritten each time: the same bytes)."""
    wanted: dict[str, set[str]] = {}
    for entry in quick_systems(manifest):
        wanted.setdefault(entry["group"], set()).add(entry["system_id"])
    return {
        group: write_systems(
            [s for s in iter_systems(path) if s.system_id in wanted[group]], folder / f"{group}.parquet"
        )
        for group, path in files.items()
        if group in wanted
    }


#: ``compare``'s time limit per solve unless given: the board's own (``board.yaml``'s ``run:``), so a new row is
#: timed out where the published ones were.
COMPARE_TIME_LIMIT = 120.0

#: What a trial solve's resources say when the solver itself is at fault (not a status it returned).
_BROKEN = {"raised": "raised {}", "invalid_solution": "{}", "died": "its process died ({})"}


def _probe(spec: SolverSpec, files: dict[str, Path], time_limit: float, max_qubits: int | None = None) -> None:
    """Solve the smallest pinned system once first: a solver that raises on it, returns no usable vector (NaN,
    wrong shape), kills its process or exceeds the time limit is refused before the long run.

    A bad option value the constructor took without complaint (``rtol="abc"``)
    shows here as an error, in one line, instead of an error row per pinned system and a rank.
    A status the solver returns (``error: diverged``, ``max_iter``) is a
    result like any other: the run goes on and the system counts as failed.
    """
    from qlsbench.bench._isolation import IsolatedSolver

    smallest = min((s for path in files.values() for s in iter_systems(path)), key=lambda s: (s.dim, s.system_id))
    if _over(smallest.meta.get("n_qubits"), max_qubits):  # the cap skips every system: nothing to try
        return
    worker = IsolatedSolver(spec.name, spec.options, time_limit)
    try:
        result, _ = worker.solve(smallest, 0)
    finally:
        worker.close()
    resources = result.resources if isinstance(result.resources, dict) else {}
    broken = [template.format(resources[key]) for key, template in _BROKEN.items() if key in resources]
    if result.status is Status.TIMEOUT:  # every larger system would too: the limit per system for nothing
        where = smallest.meta.get("pinned_name", smallest.system_id)
        raise InputError(
            f"solver {spec.label!r} exceeded the time limit of {time_limit:g} s on the smallest pinned "
            f"system ({where}), nothing else was run; --time-limit sets the limit"
        )
    if broken or result.status is Status.CRASHED:
        where = smallest.meta.get("pinned_name", smallest.system_id)
        raise InputError(
            f"solver {spec.label!r} {broken[0] if broken else 'crashed'} on the smallest pinned system "
            f"({where}), nothing else was run: {result.message}"
        )


def compare(
    spec: SolverSpec,
    board: Board = SHIPPED,
    *,
    work: str | os.PathLike,
    time_limit: float = COMPARE_TIME_LIMIT,
    max_qubits: int | None = None,
    repeats: int = 1,
    seed: int = 0,
    calibrate_times: bool = True,
    progress: bool = True,
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    local: str | os.PathLike | None = None,
    quick: bool = False,
) -> Comparison:
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
    time_limit, max_qubits, repeats, seed
        As for :func:`~qlsbench.bench._runner.run_solver`; the time limit and the qubit cap are recorded in the
        submission, and ``qlsbench board verify`` re-runs under them.
    calibrate_times : bool
        Scale the new solver's times by board LU time / LU time here (the
        median over :data:`~qlsbench.bench.board.calibration.CALIBRATION_REPEATS`
        repeats, whose spread is reported).
    local : path, optional
        A folder of self-submitted files (``qlsbench board add``) to rank
        against as well, marked; by default only the published board counts.
    quick : bool
        Run only :func:`quick_systems` (in ``work/<solver name>/quick/``) and rank against the published rows
        on those systems: a first look, no submission written.
    """
    # Both solvers this runs are refused before anything runs if they cannot be built as asked; the new one's
    # once-per-run work (an external solver's environment) is done now, before the probe's time limit runs.
    prepare(check_solver(spec.name, spec.options))
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
    if quick:  # its own folder: a full comparison later neither reuses nor trips over the subset's files
        folder = folder / "quick"
        files = _quick_files(files, board.manifest(), folder / "systems")
        published = published[published["system_id"].isin({e["system_id"] for e in quick_systems(board.manifest())})]
    if (
        _finished(
            folder / f"{next(iter(files))}.parquet",
            spec,
            next(iter(files.values())),
            repeats,
            seed,
            time_limit,
            max_qubits,
        )
        is None
    ):
        _probe(spec, files, time_limit, max_qubits)
    frames, reference = [], []
    for group, path in files.items():
        frames.append(
            _run_or_reuse(
                spec,
                path,
                folder / f"{group}.parquet",
                name=f"pinned/{group}",
                repeats=repeats,
                seed=seed,
                time_limit=time_limit,
                max_qubits=max_qubits,
                progress=progress,
            )
        )
        if calibrate_times:
            reference.append(
                _run_or_reuse(
                    SolverSpec(REFERENCE_SOLVER),
                    path,
                    folder / "reference" / f"{group}.parquet",
                    name=f"pinned/{group}",
                    repeats=CALIBRATION_REPEATS,
                    seed=0,
                    time_limit=None,
                    progress=False,
                )
            )
    mine = pd.concat(frames, ignore_index=True)
    calibration = calibrate(published, pd.concat(reference, ignore_index=True)) if calibrate_times else Calibration([])
    scaled = mine.assign(wall_time=mine["wall_time"] * calibration.factor)
    merged = pd.concat([published, scaled.drop(columns=list(UNPUBLISHED))], ignore_index=True)
    submission = (
        None
        if quick
        else write_submission(
            folder / "submission.parquet", mine, spec, board, calibration, time_limit=time_limit, max_qubits=max_qubits
        )
    )
    return Comparison(
        leaderboard(merged, tol, low),
        spec.label,
        calibration,
        mine,
        submission,
        systems=mine["system_id"].nunique(),
        quick=quick,
    )
