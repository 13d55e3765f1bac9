"""Leaderboard v1: the pinned set is what its manifest says, and a new solver is ranked without rerunning others."""

from __future__ import annotations

import shutil
import textwrap

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from qlsbench.bench import SolverSpec
from qlsbench.bench.board import (
    DEFAULT_BOARD,
    Board,
    compare,
    read_submission,
    select_systems,
    time_factor,
)
from qlsbench.cli import main
from qlsbench.data import pinned_files
from qlsbench.errors import DatasetError
from qlsbench.problems import LinearSystem

#: A new solver written as a plain module, as a newcomer would before packaging it.
NEWCOMER = textwrap.dedent('''
    from dataclasses import dataclass
    from typing import ClassVar

    import numpy as np

    from qlsbench.solvers import BaseSolver, SolveResult, Status


    @dataclass
    class Jacobi(BaseSolver):
        """Jacobi iteration: converges on the diagonally dominant systems only."""
        name: ClassVar[str] = "jacobi"
        iterations: int = 200

        def _solve(self, system, seed):
            A, b = system.A.tocsr(), system.b
            d = A.diagonal()
            x = np.zeros_like(b)
            for _ in range(self.iterations):
                x = x + (b - A @ x) / d
            ok = np.linalg.norm(A @ x - b) <= 1e-8 * np.linalg.norm(b)
            return SolveResult(x, Status.CONVERGED if ok else Status.MAX_ITER, iterations=self.iterations)
''')


def test_the_shipped_pinned_set_matches_its_manifest():
    files = pinned_files(DEFAULT_BOARD)  # recomputes every system's content hash
    manifest = Board(DEFAULT_BOARD).manifest()
    assert set(files) == {"ising", "dem_c-mu0", "dem_c-mu0.3", "dem_c-mu0.3-v2", "ising-random-b"}
    systems = pd.DataFrame(manifest["systems"])
    assert len(systems) == 47 and systems["name"].is_unique and manifest["version"] == 3
    drawn = systems[systems["group"] == "ising-random-b"]  # set v3: the same matrices at kappa 10, b drawn
    assert drawn["n_qubits"].tolist() == [2, 3, 4, 5] and (drawn["cond"] == 10.0).all()
    assert drawn["name"].str.startswith("ising-randb-k10-").all()
    ising = systems[systems["group"] == "ising"]
    assert sorted(ising["cond"].unique()) == [10.0, 100.0] and sorted(ising["n_qubits"].unique()) == list(range(2, 9))
    dem = systems[systems["family"] == "dem_c"]
    assert set(dem["n_qubits"]) >= {2, 4, 6, 8, 9, 10}  # every qubit band of the tables is represented
    for group in ("dem_c-mu0.3", "dem_c-mu0.3-v2"):  # friction: the non-symmetric groups
        assert not dem[dem["group"] == group]["symmetric"].any()


def test_a_changed_pinned_system_is_refused_by_name(tmp_path):
    copy = tmp_path / "board"
    shutil.copytree(DEFAULT_BOARD, copy)
    path = copy / "systems" / "ising.parquet"
    table = pq.read_table(path)
    b = table.column("b").to_pylist()
    b[0] = [2.0 * v for v in b[0]]  # same shape and schema, other content
    i = table.schema.get_field_index("b")
    pq.write_table(table.set_column(i, table.schema.field(i), pa.array(b, table.schema.field(i).type)), path)
    with pytest.raises(DatasetError, match=r"ising.parquet: system 502f442c08ee48d3 does not match its data"):
        pinned_files(copy)
    # A consistent file of other systems (ids matching their data) is caught by the manifest.
    shutil.copy(copy / "systems" / "dem_c-mu0.parquet", path)
    with pytest.raises(
        DatasetError, match=r"ising.parquet: pinned system ising-k10-n2 \(502f442c08ee48d3\) is missing"
    ):
        pinned_files(copy)


def test_selection_takes_lowest_median_and_highest_kappa_per_band():
    systems = [
        LinearSystem(sp.identity(2**n, format="csr") * (k + 1), np.ones(2**n), {"n_qubits": n, "cond": float(k)})
        for n in (2, 5, 6)
        for k in range(1, 6)
    ]
    chosen = select_systems(systems, ["1-4", "5-6", "9-10"], per_band=3, min_qubits=2)
    assert [(s.meta["n_qubits"], s.meta["cond"]) for s in chosen[:3]] == [(2, 1.0), (2, 3.0), (2, 5.0)]
    # 5-6: ten systems (two per kappa) sorted by kappa: positions 0, 4 and 9 - the ends and the middle.
    assert [s.meta["cond"] for s in chosen[3:]] == [1.0, 3.0, 5.0] and len(chosen) == 6
    # Ties in kappa are broken by content hash, so the input order does not matter.
    shuffled = [systems[i] for i in np.random.default_rng(0).permutation(len(systems))]
    again = select_systems(shuffled, ["1-4", "5-6", "9-10"], per_band=3, min_qubits=2)
    assert [s.system_id for s in again] == [s.system_id for s in chosen]
    assert select_systems(systems, ["1-4"], per_band=3, min_qubits=3) == []


def test_time_factor_is_the_geometric_mean_of_lu_time_ratios():
    board = pd.DataFrame(
        {"solver_name": "lu", "status": "converged", "system_id": ["a", "a", "b"], "wall_time": [2.0, 4.0, 8.0]}
    )
    here = pd.DataFrame({"solver_name": "lu", "status": "converged", "system_id": ["a", "b"], "wall_time": [1.0, 1.0]})
    assert time_factor(board, here) == pytest.approx(np.sqrt(3.0 * 8.0))


def test_compare_ranks_a_module_class_without_rerunning_the_board(small_board, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "newcomer.py").write_text(NEWCOMER)
    published = small_board.results_path.read_bytes()
    code = main(
        [
            "compare",
            "--solver",
            "newcomer:Jacobi",
            "--label",
            "jacobi",
            "--board",
            str(small_board.folder),
            "--time-limit",
            "30",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert small_board.results_path.read_bytes() == published  # the board was read, not rewritten
    work = tmp_path / "results" / "compare" / "jacobi"  # named after the solver's own name, not module:Class
    ran = {p.relative_to(work).parent.as_posix() for p in work.rglob("*.parquet")}
    assert ran == {".", "reference"}  # the new solver (and its submission) and the time yardstick; cg not run again
    assert (work / "submission.parquet").exists()
    # Jacobi solves the diagonally dominant group (2 of 5 systems) and not the Ising ones (not dominant).
    first = out.splitlines()[0]
    # 2 of 5 systems: the Wilson 95 % interval is [0.118, 0.769] (z = 1.96, by hand); LU's 5 of 5, [0.566, 1],
    # overlaps it, so the rank does not separate them and the line after says so.
    assert first.startswith("jacobi: rank 3 of 3 on the exact track (success 0.40 [0.12, 0.77])")
    tied = out.splitlines()[1]
    assert "exact track, not separated at 95 % from: " in tied and "lu" in tied.split(";")[1]
    assert "times scaled by" in out and "5 repeats ranged" in out and "<- new" in out


def test_compare_through_an_entry_point_and_its_errors(small_board, tmp_path, plugin_path):
    result = compare(SolverSpec("normal-cg"), small_board, work=tmp_path / "w", time_limit=30, progress=False)
    board = result.board.set_index("solver")
    assert set(board.index) == {"lu", "cg[rtol=1e-12]", "normal-cg"}
    assert board.loc["normal-cg", "systems"] == 5 and board.loc["normal-cg", "solves"] == 5
    assert board.loc["lu", "success_rate"] == 1.0 and board.loc["lu", "solves"] == 10  # 2 published repeats
    assert result.time_factor > 0 and len(result.results) == 5
    with pytest.raises(Exception, match="label 'lu' is already on the board"):
        compare(SolverSpec("normal-cg", label="lu"), small_board, work=tmp_path / "w", progress=False)


def test_compare_against_the_shipped_board(tmp_path, plugin_path):
    """The committed board ranks a newcomer on all 47 pinned systems against every published solver."""
    board = Board(DEFAULT_BOARD)
    published = pd.read_parquet(board.results_path)
    assert published["x"].isna().all()  # solutions are not published, rankings are
    result = compare(SolverSpec("normal-cg"), board, work=tmp_path / "w", time_limit=60, progress=False)
    ranking = result.board.set_index("solver")
    # the published submissions (peers in contrib/, accepted upstream) are ranked beside the board's own rows
    submitted = {read_submission(p)[1]["label"] for p in board.submission_files()}
    assert set(ranking.index) == set(published["solver"]) | submitted | {"normal-cg"}
    # The newcomer runs on every pinned system; a published row counts the pinned systems it has rows for (a
    # board run still under way leaves a row short, and the page says so).
    # 47 pinned rows, 46 distinct systems: step 0 of the frictional run is the same system on both chains
    pinned_ids = {e["system_id"] for e in board.manifest()["systems"]}
    assert len(pinned_ids) == 46 and ranking.loc["normal-cg", "systems"] == 46
    ran = published.groupby("solver")["system_id"].agg(lambda ids: len(pinned_ids & set(ids)))
    assert (ranking.loc[ran.index, "systems"] == ran).all()
    mine = result.results
    assert len(mine) == 47 and set(mine["system_id"]) == pinned_ids
    # Its success rate is recomputed from its own rows: high accuracy needs converged, fidelity and residual.
    solved = (mine["status"] == "converged") & (mine["fidelity"] >= 0.99) & (mine["rel_residual"] <= 1e-6)
    expected = solved.groupby(mine["system_id"]).first().mean()  # a system in two groups counts once
    assert ranking.loc["normal-cg", "success_rate"] == pytest.approx(expected)


def test_the_page_says_which_board_solvers_have_not_run_everywhere(small_board, tmp_path):
    """A board run still under way must not be published as complete: the preamble names the short solvers."""
    from qlsbench.report import publish

    complete = (tmp_path / "pages" / "leaderboard.md").read_text()
    assert "Every solver ran on every system." in complete
    (tmp_path / "board-results" / "cg[rtol=1e-12]" / "dd.parquet").unlink()  # cg's second group not finished
    publish(small_board, tmp_path / "board-results", tmp_path / "partial")
    partial = (tmp_path / "partial" / "leaderboard.md").read_text()
    assert "Every solver ran on every system." not in partial
    assert "cg[rtol=1e-12] on 3 of 5" in partial and "lu on" not in partial


def test_pinning_one_group_keeps_every_other_group_as_it_is(tmp_path, capsys):
    """A new group joins a published board without rebuilding (and so perhaps changing) the others."""
    import json

    copy = tmp_path / "board"
    shutil.copytree(DEFAULT_BOARD, copy)
    shipped = json.loads((copy / "manifest.json").read_text())
    kept = {g: (copy / "systems" / f"{g}.parquet").read_bytes() for g in shipped["groups"] if g != "dem_c-mu0.3-v2"}
    (copy / "systems" / "dem_c-mu0.3-v2.parquet").unlink()
    shipped_v2 = [e for e in shipped["systems"] if e["group"] == "dem_c-mu0.3-v2"]
    stripped = {
        **shipped,
        "groups": {g: h for g, h in shipped["groups"].items() if g != "dem_c-mu0.3-v2"},
        "systems": [e for e in shipped["systems"] if e["group"] != "dem_c-mu0.3-v2"],
    }
    (copy / "manifest.json").write_text(json.dumps(stripped))
    main(["board", "pin", "--board", str(copy), "--group", "dem_c-mu0.3-v2", "--quiet"])
    manifest = Board(copy).manifest()
    rebuilt = [e for e in manifest["systems"] if e["group"] == "dem_c-mu0.3-v2"]
    assert f"pinned {len(manifest['systems'])} systems in 5 groups" in capsys.readouterr().out
    assert list(manifest["groups"]) == list(shipped["groups"]) and manifest["version"] == 3
    for group, data in kept.items():  # untouched, byte for byte, with their manifest entries
        assert (copy / "systems" / f"{group}.parquet").read_bytes() == data
        assert manifest["groups"][group] == shipped["groups"][group]
        assert [e for e in manifest["systems"] if e["group"] == group] == [
            e for e in shipped["systems"] if e["group"] == group
        ]
    # The rebuilt group is the v2 chain's selection: which systems depends on this machine's arithmetic (a
    # trajectory amplifies the last bits: another BLAS kernel picks others), what they are does not.
    assert 0 < len(rebuilt) <= 9 and len(shipped_v2) == 8
    bands = [(2, 4), (5, 6), (7, 8)]
    assert all(any(lo <= e["n_qubits"] <= hi for lo, hi in bands) for e in rebuilt)
    assert all(sum(lo <= e["n_qubits"] <= hi for e in rebuilt) <= 3 for lo, hi in bands)
    assert all("-v2-" in e["name"] and not e["symmetric"] for e in rebuilt)
    assert set(pinned_files(copy)) == set(shipped["groups"])
    assert main(["board", "pin", "--board", str(copy), "--group", "dem_c-mu9", "--quiet"]) == 2
    assert (
        "no source pins group(s) dem_c-mu9; the groups are ising, dem_c-mu0, dem_c-mu0.3, dem_c-mu0.3-v2, "
        "ising-random-b"
    ) in capsys.readouterr().err


def test_running_one_group_leaves_the_others_alone(small_board, tmp_path, capsys):
    from qlsbench.bench.board import run_board

    out = tmp_path / "one-group"
    files = run_board(small_board, out, progress=False, groups=["dd"])
    assert sorted(p.relative_to(out).as_posix() for p in files) == ["cg[rtol=1e-12]/dd.parquet", "lu/dd.parquet"]
    assert not list(out.glob("*/ising.parquet"))
    assert main(["board", "run", "--board", str(small_board.folder), "--results", str(out), "--group", "nope"]) == 2
    assert "no pinned group(s) nope; the groups are ising, dd" in capsys.readouterr().err
