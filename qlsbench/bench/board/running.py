"""Running the board: every solver of ``board.yaml`` on every pinned group, then publishing their rows.

Every solver entry is checked (name, options, repeats, time limit, qubit cap)
before the first one runs; finished results files are kept and unfinished
ones resume from their journal, and a results file the folder lacks starts
from the board's published rows of that solver and group
(:func:`restore_published`), so a run in a fresh folder solves only what is
not published (a newly listed solver, a newly pinned group).
:func:`publish_results` writes the rows, solutions left out, as the board's
``results.parquet``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from qlsbench.bench._results import load_results, read_results_table, results_files
from qlsbench.bench._runner import SolverSpec, add_repeats, run_solver
from qlsbench.bench.board.folder import UNPUBLISHED, Board
from qlsbench.bench.board.pinning import check_groups
from qlsbench.checks import SEED, TIME_LIMIT, Real, Whole
from qlsbench.data import atomic_write_table
from qlsbench.errors import InputError
from qlsbench.solvers.registry import check_solver

#: What a board's ``run:`` section and each ``solvers:`` entry may set, and each value's bounds.
_RUN_KEYS: dict[str, Whole | Real] = {"repeats": Whole(1, 1000), "seed": SEED, "time_limit": TIME_LIMIT}
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
        out.append(
            {
                "spec": spec,
                "repeats": entry.get("repeats", run.get("repeats", 1)),
                "seed": run.get("seed", 0),
                "time_limit": entry.get("time_limit", run.get("time_limit", 120)),
                "max_qubits": entry.get("max_qubits"),
            }
        )
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


def run_board(
    board: Board, results_dir: str | os.PathLike, progress: bool = True, groups: list[str] | None = None
) -> list[Path]:
    """Run every board solver on every pinned group into ``results_dir/<label>/<group>.parquet``.

    Every solver is checked before the first one runs. Finished files are
    kept and unfinished ones resume from their journal, so an interrupted run
    picks up where it stopped. ``groups`` runs only those groups (a newly
    pinned one).
    """
    runs = check_runs(board)
    files = board.pinned_files()
    check_groups(groups, list(files), f"{board.manifest_path}: no pinned")
    if groups is not None:
        files = {g: p for g, p in files.items() if g in groups}
    restore_published(board, results_dir, [run["spec"].label for run in runs], list(files))
    written = []
    for run in runs:
        for group, path in files.items():
            out = Path(results_dir) / run["spec"].label / f"{group}.parquet"
            how = {
                "name": f"pinned/{group}",
                "repeats": run["repeats"],
                "seed": run["seed"],
                "time_limit": run["time_limit"],
                "max_qubits": run["max_qubits"],
                "progress": progress,
            }
            # A finished file is kept; raising a row's repeats in board.yaml solves only the new seeds.
            (add_repeats if out.exists() else run_solver)(run["spec"], path, out, **how)
            written.append(out)
    return written


def restore_published(board: Board, results_dir: str | os.PathLike, labels: list[str], groups: list[str]) -> list[Path]:
    """Write the board's published rows of each solver label and group as ``results_dir/<label>/<group>.parquet``
    where that file is missing; returns the files written.

    The published rows are the run's rows with the solutions left out, so a
    run resumed from them solves nothing they hold again: without them a
    board run in a fresh folder would redo hours of published solves to add
    one solver or one group. A restored file is checked like any finished one
    before repeats are added to it (the same solver, options, seed and time
    limit, or the run refuses it in one line).
    """
    if not board.results_path.exists():
        return []
    published = read_results_table(board.results_path)
    written = []
    for label in labels:
        for group in groups:
            out = Path(results_dir) / label / f"{group}.parquet"
            rows = published.filter(
                pc.and_(pc.equal(published["solver"], label), pc.equal(published["dataset"], f"pinned/{group}"))
            )
            if out.exists() or rows.num_rows == 0:
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_table(rows, out)
            written.append(out)
    return written


def publish_results(board: Board, results_dir: str | os.PathLike) -> pd.DataFrame:
    """Publish a board run's rows as ``results.parquet`` beside the pinned set (solutions left out); returns them.

    The pages drawn from them are :func:`qlsbench.report._board_pages.publish`'s.
    """
    results = load_results([results_dir])  # checks every file's schema first
    # In the current schema: a board whose rows grew new seeds holds files of two schema versions.
    table = pa.concat_tables([read_results_table(f) for f in results_files([results_dir])])
    for column in UNPUBLISHED:
        i = table.schema.get_field_index(column)
        table = table.set_column(i, table.schema.field(i), pa.nulls(len(table), table.schema.field(i).type))
    atomic_write_table(table, board.results_path)
    return results
