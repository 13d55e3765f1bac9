"""Comparing a new solver with the published board: run it alone on the pinned set and rank it among their rows.

The board's solvers are not run again: :func:`compare` runs the new solver
(after one trial solve of the smallest system, :func:`_probe`), calibrates
its times to the board's machine (:mod:`~qlsbench.bench.board.calibration`),
ranks it against the published rows and writes its submission file
(:mod:`~qlsbench.bench.board.submissions`). A finished comparison of the same
configuration is read back, an interrupted one resumes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

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
)
from qlsbench.bench.results import load_results, read_results
from qlsbench.bench.runner import SolverSpec, run_solver
from qlsbench.data import dataset_hash, iter_systems
from qlsbench.errors import DatasetError, InputError
from qlsbench.outcomes import Status
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
    submission : pathlib.Path
        The submission file
        :func:`~qlsbench.bench.board.submissions.add_submission` (``qlsbench
        board add``) puts on the board.
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
    shows here as an error, in one line, instead of an error row per pinned system and a rank.
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
    if result.status is Status.TIMEOUT:  # every larger system would too: the limit per system for nothing
        where = smallest.meta.get("pinned_name", smallest.system_id)
        raise InputError(f"solver {spec.label!r} exceeded the time limit of {time_limit:g} s on the smallest pinned "
                         f"system ({where}), nothing else was run; --time-limit sets the limit")
    if broken or result.status is Status.CRASHED:
        where = smallest.meta.get("pinned_name", smallest.system_id)
        raise InputError(f"solver {spec.label!r} {broken[0] if broken else 'crashed'} on the smallest pinned system "
                         f"({where}), nothing else was run: {result.message}")


def compare(spec: SolverSpec, board: Board = SHIPPED, *, work: str | os.PathLike, time_limit: float = 120.0,
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
        median over :data:`~qlsbench.bench.board.calibration.CALIBRATION_REPEATS`
        repeats, whose spread is reported).
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
    merged = pd.concat([published, scaled.drop(columns=list(UNPUBLISHED))], ignore_index=True)
    submission = write_submission(folder / "submission.parquet", mine, spec, board, calibration)
    return Comparison(leaderboard(merged, tol, low), spec.label, calibration, mine, submission)
