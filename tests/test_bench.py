"""Metrics, the runner's failure handling, and the leaderboard's arithmetic."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from qlsbench.bench import (
    SolverSpec,
    Tolerances,
    leaderboard,
    load_results,
    metrics,
    run_solver,
)
from qlsbench.bench.ranking import mark_success, shifted_geometric_mean
from qlsbench.data import dataset_name
from qlsbench.errors import InputError, UnknownSolverError
from qlsbench.problems import LinearSystem
from qlsbench.report import render_markdown, write_leaderboard

# ---------------------------------------------------------------- metrics


def test_metrics_on_a_hand_computed_case():
    system = LinearSystem(np.diag([2.0, 4.0]), np.array([2.0, 4.0]), x_ref=np.array([1.0, 1.0]))
    m = metrics(system, np.array([1.0, 0.0]))
    assert m["rel_residual"] == pytest.approx(4.0 / np.sqrt(20.0))
    assert m["rel_error"] == pytest.approx(1.0 / np.sqrt(2.0))
    assert m["fidelity"] == pytest.approx(0.5)  # |<(1,0)|(1,1)>|^2 / (1 * 2)


def test_fidelity_ignores_scale_and_global_phase():
    system = LinearSystem(np.eye(3), np.array([1.0, 2.0, 3.0]), x_ref=np.array([1.0, 2.0, 3.0]))
    m = metrics(system, -1j * 7.0 * np.array([1.0, 2.0, 3.0]))
    assert m["fidelity"] == pytest.approx(1.0)
    assert m["rel_error"] > 1.0  # but the error sees the scale


def test_metrics_of_missing_or_nonfinite_x_are_nan():
    system = LinearSystem(np.eye(2), np.ones(2), x_ref=np.ones(2))
    for x in (None, np.array([np.nan, 1.0]), np.ones(3)):
        assert all(np.isnan(v) for v in metrics(system, x).values())


# ---------------------------------------------------------------- runner


def test_runner_writes_one_row_per_system_and_repeat(ising_dataset, tmp_path):
    out = tmp_path / "results" / "cg.parquet"
    df = run_solver(SolverSpec("cg"), ising_dataset, out, repeats=2, seed=4, progress=False)
    stored = load_results([out])
    assert len(stored) == len(df) == 3 * 2
    assert list(stored["seed"]) == [4, 5] * 3 and list(stored["repeat"]) == [0, 1] * 3
    assert (stored["status"] == "converged").all()
    assert (stored["rel_residual"] <= 1e-8).all() and (stored["fidelity"] > 1 - 1e-12).all()
    assert stored["dataset"].iloc[0] == "ising/kappa10"
    assert json.loads(stored["solver_options"].iloc[0]) == {}


def test_crashing_and_hanging_solvers_become_failed_rows(ising_dataset, tmp_path, plugin_path):
    crash = run_solver(SolverSpec("crash"), ising_dataset, tmp_path / "crash.parquet", progress=False)
    assert (crash["status"] == "error").all()
    assert crash["message"].str.contains("ZeroDivisionError: deliberate crash").all()

    # Dimensions are 4, 8, 16: the solve on 8 hangs, is killed, and the run goes on.
    hang = run_solver(
        SolverSpec("hang", {"hang_dim": 8}), ising_dataset, tmp_path / "hang.parquet", time_limit=1.0, progress=False
    )
    assert list(hang["status"]) == ["max_iter", "timeout", "max_iter"]
    assert "exceeded the time limit of 1 s" in hang["message"].iloc[1]
    assert 1.0 <= hang["wall_time"].iloc[1] < 30.0
    assert load_results([tmp_path / "hang.parquet"])["status"].tolist() == list(hang["status"])


def test_a_dying_solver_process_becomes_an_error_row(ising_dataset, tmp_path, plugin_path):
    df = run_solver(SolverSpec("die"), ising_dataset, tmp_path / "die.parquet", time_limit=30.0, progress=False)
    assert (df["status"] == "error").all()
    assert df["message"].str.contains("solver process died").all()


def test_a_segfault_becomes_an_error_row_and_the_run_goes_on(ising_dataset, tmp_path, plugin_path):
    df = run_solver(SolverSpec("segfault"), ising_dataset, tmp_path / "sf.parquet", time_limit=30.0, progress=False)
    assert len(df) == 3 and (df["status"] == "error").all()
    assert df["message"].str.contains("solver process died \\(killed by SIGSEGV \\(exit code -11\\)\\)").all()


def test_a_nan_solution_is_an_error_row_whatever_the_solver_claims(ising_dataset, tmp_path, plugin_path):
    for time_limit in (None, 30.0):  # in this process and in a worker
        df = run_solver(
            SolverSpec("nan"), ising_dataset, tmp_path / "nan.parquet", time_limit=time_limit, progress=False
        )
        assert (df["status"] == "error").all()
        assert (
            df["message"].iloc[0]
            == "solver returned a solution with 4 non-finite entries (it reported converged: all good)"
        )
        assert df["fidelity"].isna().all() and df["rel_residual"].isna().all()


def test_max_qubits_gives_skipped_rows_with_the_reason(ising_dataset, tmp_path):
    df = run_solver(SolverSpec("lu"), ising_dataset, tmp_path / "r.parquet", repeats=2, max_qubits=3, progress=False)
    assert list(df["status"]) == ["converged"] * 4 + ["skipped"] * 2  # n = 2, 3 solved; n = 4 skipped
    assert df["message"].iloc[-1] == "skipped: 4 qubits, over max_qubits=3 configured for this solver"
    assert df["x"].iloc[-1] is None and df["wall_time"].iloc[-1] == 0.0


def test_vqls_resources_become_columns(ising_dataset, tmp_path):
    spec = SolverSpec(
        "vqls-local", {"backend": "circuits", "optimizer": "cobyla", "maxiter": 10, "layers": 1, "max_circuits": 60}
    )
    run_solver(spec, ising_dataset, tmp_path / "v.parquet", progress=False)
    df = load_results([tmp_path / "v.parquet"])
    resources = [json.loads(r) for r in df["resources"]]
    assert list(df["status"][:2]) != ["skipped"] * 2 and df["status"].iloc[2] == "skipped"  # n = 4: over budget
    for row, res in zip(df.itertuples(), resources):
        assert row.pauli_terms == res["pauli_terms"] and row.circuits_per_evaluation == res["circuits_per_evaluation"]
        assert row.parameters == 2 * row.n_qubits  # one R_y layer, then the closing layer
    assert df["circuit_depth"].iloc[0] > 0 and pd.isna(df["circuit_depth"].iloc[2])  # never built when skipped
    assert pd.isna(df["mc_samples"]).all()  # a cost VQLS does not have


def test_an_interrupted_run_resumes_without_repeating_finished_solves(
    ising_dataset, tmp_path, plugin_path, monkeypatch
):
    calls = tmp_path / "calls.txt"
    out = tmp_path / "results" / "counting.parquet"
    monkeypatch.setenv("QLSBENCH_TEST_CALLS", str(calls))
    monkeypatch.setenv("QLSBENCH_TEST_INTERRUPT_AT", "4")  # 3 systems x 2 repeats: stop in the 4th solve
    with pytest.raises(KeyboardInterrupt):
        run_solver(SolverSpec("counting"), ising_dataset, out, repeats=2, progress=False)
    assert not out.exists()
    journal = list((tmp_path / "results" / ".counting.parquet.journal").glob("*.parquet"))
    assert len(journal) == 3
    monkeypatch.delenv("QLSBENCH_TEST_INTERRUPT_AT")
    df = run_solver(SolverSpec("counting"), ising_dataset, out, repeats=2, progress=False)
    lines = calls.read_text().splitlines()
    assert len(lines) == 4 + 3  # the interrupted solve is done again, the 3 finished ones are not
    assert len(set(lines)) == 6 and lines[3] == lines[4]
    assert (df["status"] == "converged").all() and len(df) == 6
    assert list(df["seed"]) == [0, 1] * 3  # rows in dataset order, whichever run produced them
    assert not (tmp_path / "results" / ".counting.parquet.journal").exists()
    # Other options are another configuration: nothing of this run is reused for it.
    run_solver(SolverSpec("counting", {"sleep": 0.0}), ising_dataset, out, repeats=1, progress=False)
    assert len(calls.read_text().splitlines()) == 7 + 3


def test_runner_refuses_bad_requests_before_any_work(ising_dataset, tmp_path):
    out = tmp_path / "r.parquet"
    with pytest.raises(UnknownSolverError):
        run_solver(SolverSpec("nope"), ising_dataset, out, progress=False)
    with pytest.raises(InputError, match="repeats must be an integer from 1 to 1000000000"):
        run_solver(SolverSpec("cg"), ising_dataset, out, repeats=0, progress=False)
    with pytest.raises(InputError, match=r"time_limit \(seconds\) must be a finite number in \(0, 1e\+07\]"):
        run_solver(SolverSpec("cg"), ising_dataset, out, time_limit=0, progress=False)
    assert not out.exists()


def test_solver_labels_and_dataset_names(tmp_path):
    assert SolverSpec("gmres", {"restart": 5, "rtol": 1e-8}).label == "gmres[restart=5,rtol=1e-08]"
    assert SolverSpec("gmres", {"restart": 5}, "gmres-short").label == "gmres-short"
    assert dataset_name(tmp_path / "datasets" / "ising" / "kappa10") == "ising/kappa10"
    assert dataset_name(tmp_path / "datasets" / "ising" / "kappa10" / "part-0003.parquet") == "ising/kappa10"
    assert dataset_name(tmp_path / "x" / "mine.parquet") == "mine"


# ---------------------------------------------------------------- leaderboard


def test_shifted_geometric_mean_matches_its_definition():
    v = np.array([0.5, 3.0, 40.0])
    assert shifted_geometric_mean(v, 10.0) == pytest.approx(np.exp(np.mean(np.log(v + 10))) - 10, rel=1e-12)
    assert shifted_geometric_mean(np.full(4, 2.5), 10.0) == pytest.approx(2.5)
    # Far below the shift the naive formula cancels; ours tends to the arithmetic mean.
    tiny = np.array([1e-14, 3e-14])
    assert shifted_geometric_mean(tiny, 10.0) == pytest.approx(2e-14, rel=1e-6)


def _results(rows):
    """Rows as results, each solver's k-th row on system ``s<k>``."""
    base = {"dataset": "d", "dataset_hash": "h", "cond": 10.0, "time_limit": 5.0, "family": "f", "n_qubits": 3}
    df = pd.DataFrame([{**base, **r} for r in rows])
    if "system_id" not in df:
        df["system_id"] = "s" + df.groupby("solver").cumcount().astype(str)
    return df


def test_leaderboard_ranks_success_then_time_and_normalises_to_the_best():
    ok = {"status": "converged", "fidelity": 1.0, "rel_residual": 1e-10}
    rows = [
        {"solver": "fast", "wall_time": 0.001, "rel_error": 1e-3, **ok},
        {"solver": "fast", "wall_time": 0.001, "rel_error": 1e-3, **ok},
        {"solver": "slow", "wall_time": 0.100, "rel_error": 1e-9, **ok},
        {"solver": "slow", "wall_time": 0.100, "rel_error": 1e-9, **ok},
        {"solver": "flaky", "wall_time": 0.0001, "rel_error": 1e-9, **ok},
        {
            "solver": "flaky",
            "wall_time": 0.0001,
            "rel_error": 0.5,
            "status": "max_iter",
            "fidelity": 0.8,
            "rel_residual": 0.1,
        },
    ]
    board = leaderboard(_results(rows)).set_index("solver")
    assert list(board.index) == ["fast", "slow", "flaky"]
    assert board.loc["flaky", "success_rate"] == 0.5
    assert board.loc["fast", "time_sgm_rel"] == 1.0
    # The shifted geometric mean of equal values is that value: 100 ms against 1 ms.
    assert board.loc["slow", "time_sgm_rel"] == pytest.approx(100.0, rel=1e-9)
    # flaky's failure counts at the 5 s time limit and at error 1.0.
    assert board.loc["flaky", "time_sgm_ms"] == pytest.approx(np.sqrt(10.1 * 5010) - 10, rel=1e-9)
    assert board.loc["slow", "error_sgm_rel"] == 1.0
    assert board.loc["fast", "error_sgm_rel"] == pytest.approx(1e-3 / 1e-9, rel=1e-9)
    flaky_err = 10 * np.expm1((np.log1p(1e-10) + np.log1p(0.1)) / 2)
    assert board.loc["flaky", "error_sgm"] == pytest.approx(flaky_err, rel=1e-9)


def test_x_best_compares_solvers_on_the_systems_both_ran():
    """A solver run only on the easy system must not make one run on every system look 10^10 times worse.

    ``narrow`` (HHL in a workflow) ran s0 only; ``wide`` (splu) ran s0 and two ill-conditioned systems whose
    errors are floored at kappa * eps ~ 2e-4 and which take 50 ms. Dividing each solver's mean over its own
    systems by the smallest compares the systems: ``wide``'s error would read 6.7e11 x best and its time 24 x.
    On the one system both ran they did equally well, and ``wide`` is 1 x best.
    """
    ok = {"status": "converged", "fidelity": 1.0, "rel_residual": 1e-12}
    easy = {"system_id": "s0", "cond": 1.0, "rel_error": 1e-16, "wall_time": 0.001, **ok}
    hard = {"cond": 1e12, "rel_error": 1e-9, "wall_time": 0.050, **ok}
    rows = [
        {"solver": "narrow", **easy},
        {"solver": "wide", **easy},
        {"solver": "wide", "system_id": "s1", **hard},
        {"solver": "wide", "system_id": "s2", **hard},
    ]
    board = leaderboard(_results(rows)).set_index("solver")
    eps = np.finfo(float).eps  # s0's error 1e-16 is floored at kappa * eps = eps
    wide_errors = np.array([eps, 1e12 * eps, 1e12 * eps])
    # What dividing the means over each solver's own systems said:
    assert shifted_geometric_mean(wide_errors, 10.0) / shifted_geometric_mean(np.array([eps]), 10.0) > 6e11
    assert board.loc["wide", "error_sgm_rel"] == 1.0 and board.loc["narrow", "error_sgm_rel"] == 1.0
    assert board.loc["wide", "time_sgm_rel"] == 1.0 and board.loc["narrow", "time_sgm_rel"] == 1.0
    # The means themselves stay over each solver's own systems.
    assert board.loc["wide", "error_sgm"] == pytest.approx(shifted_geometric_mean(wide_errors, 10.0))

    # Where the shared system tells them apart, the ratio is theirs on it: narrow took 4 ms there, wide 1 ms.
    rows[0] = {**rows[0], "wall_time": 0.004}
    board = leaderboard(_results(rows)).set_index("solver")
    assert board.loc["narrow", "time_sgm_rel"] == pytest.approx(
        shifted_geometric_mean(np.array([4.0]), 10.0) / shifted_geometric_mean(np.array([1.0]), 10.0)
    )
    assert board.loc["wide", "time_sgm_rel"] == 1.0


def test_the_measured_time_is_beside_the_charged_one_with_each_rows_time_limit():
    """A solve that returned a solution the exact track does not accept is charged the limit; the page also
    shows what it took, over the solves that came back (a time-out took the limit and says nothing of speed)."""
    returned = {"status": "max_iter", "fidelity": 0.999, "rel_residual": 1e-3, "rel_error": 1e-2}
    rows = [
        {"solver": "vnls", "system_id": "s0", "wall_time": 2.0, "time_limit": 1200.0, **returned},
        {"solver": "vnls", "system_id": "s0", "wall_time": 4.0, "time_limit": 1200.0, **returned},
        {"solver": "vnls", "system_id": "s1", "wall_time": 6.0, "time_limit": 1200.0, **returned},
        {
            "solver": "vnls",
            "system_id": "s2",
            "wall_time": 1200.5,
            "time_limit": 1200.0,
            "status": "timeout",
            "fidelity": np.nan,
            "rel_residual": np.nan,
            "rel_error": np.nan,
        },
        {
            "solver": "lu",
            "system_id": "s0",
            "wall_time": 0.001,
            "time_limit": 120.0,
            "status": "converged",
            "fidelity": 1.0,
            "rel_residual": 1e-15,
            "rel_error": 1e-15,
        },
        {
            "solver": "lu",
            "system_id": "s1",
            "wall_time": 0.003,
            "time_limit": 1200.0,
            "status": "converged",
            "fidelity": 1.0,
            "rel_residual": 1e-15,
            "rel_error": 1e-15,
        },
    ]
    board = leaderboard(_results(rows)).set_index("solver")
    assert board.loc["vnls", "median_time_ms"] == pytest.approx(1.2e6)  # charged: every solve failed the bar
    # s0: median of 2 s and 4 s; s1: 6 s; s2 timed out and is left out: the median of 3 s and 6 s.
    assert board.loc["vnls", "measured_time_ms"] == pytest.approx(4500.0)
    assert board.loc["lu", "measured_time_ms"] == pytest.approx(2.0) == board.loc["lu", "median_time_ms"]
    assert board.loc["vnls", "time_limit_s"] == "1200" and board.loc["lu", "time_limit_s"] == "120-1200"


def test_success_needs_status_fidelity_and_residual():
    rows = [
        {
            "solver": "a",
            "wall_time": 0.1,
            "rel_error": 0,
            "status": "converged",
            "fidelity": 0.995,
            "rel_residual": 1e-7,
        },
        {
            "solver": "a",
            "wall_time": 0.1,
            "rel_error": 0,
            "status": "converged",
            "fidelity": 0.98,
            "rel_residual": 1e-7,
        },
        {"solver": "a", "wall_time": 0.1, "rel_error": 0, "status": "converged", "fidelity": 1.0, "rel_residual": 1e-5},
        {"solver": "a", "wall_time": 0.1, "rel_error": 0, "status": "max_iter", "fidelity": 1.0, "rel_residual": 1e-9},
    ]
    assert mark_success(_results(rows), Tolerances())["success"].tolist() == [True, False, False, False]
    # Errors below the reference's own accuracy (cond * eps) are floored there.
    assert mark_success(_results(rows[:1]), Tolerances())["error"].iloc[0] == pytest.approx(10 * np.finfo(float).eps)


def test_leaderboard_files_from_real_runs(ising_dataset, tmp_path):
    for name in ("lu", "cg"):
        run_solver(SolverSpec(name), ising_dataset, tmp_path / "results" / f"{name}.parquet", progress=False)
    results = load_results([tmp_path / "results"])
    write_leaderboard(results, tmp_path / "lb.md", tmp_path / "lb.csv")
    csv = pd.read_csv(tmp_path / "lb.csv")
    assert set(csv["solver"]) == {"lu", "cg"} and (csv["success_rate"] == 1.0).all()
    assert csv["time_sgm_rel"].min() == 1.0 and csv["error_sgm_rel"].min() == 1.0
    md = (tmp_path / "lb.md").read_text()
    for needle in ("machine", "numpy", "qiskit", "date", "ising/kappa10", results["dataset_hash"].iloc[0]):
        assert needle in md
    # two track rankings, the band table, resources, per dataset and the options table
    assert render_markdown(results).count("| cg |") == 6


def test_bad_tolerances_are_refused():
    with pytest.raises(InputError, match="fidelity tolerance"):
        Tolerances(fidelity=1.5)
    with pytest.raises(InputError, match="shift must be a finite number in \\(0, 1e\\+12\\]"):
        Tolerances(shift=0)


def test_complex_solutions_are_stored_whole(tmp_path):
    from conftest import random_system

    from qlsbench.data import write_systems

    system = random_system(np.random.default_rng(2), 6, spd=True, complex_=True)
    data = write_systems([system], tmp_path / "c.parquet")
    df = run_solver(SolverSpec("splu"), data, tmp_path / "r.parquet", progress=False)
    stored = load_results([tmp_path / "r.parquet"])
    x = np.array(stored["x"].iloc[0]) + 1j * np.array(stored["x_imag"].iloc[0])
    np.testing.assert_allclose(system.A @ x, system.b, atol=1e-12)
    assert df["fidelity"].iloc[0] == pytest.approx(1.0)


def test_progress_is_measured_like_the_final_solution(ising_dataset, tmp_path):
    """Each progress read-out becomes a fidelity and a residual; the last one is the returned solution's."""
    spec = SolverSpec("vqls-local", {"backend": "exact", "optimizer": "cobyla", "maxiter": 40, "layers": 2})
    run_solver(spec, ising_dataset, tmp_path / "v.parquet", progress=False)
    lu = tmp_path / "lu.parquet"
    run_solver(SolverSpec("lu"), ising_dataset, lu, progress=False)
    df = load_results([tmp_path / "v.parquet", lu])
    for row in df[df["solver_name"] == "vqls-local"].itertuples():
        k, f, r = row.progress_evaluations, row.progress_fidelity, row.progress_residual
        assert len(k) == len(f) == len(r) >= 5 and list(k) == sorted(set(k))
        assert k[-1] == json.loads(row.resources)["cost_evaluations"]
        assert f[-1] == pytest.approx(row.fidelity, abs=1e-12) and r[-1] == pytest.approx(row.rel_residual, rel=1e-9)
        assert all(0 <= v <= 1 + 1e-12 for v in f)
    assert df.loc[df["solver_name"] == "lu", "progress_evaluations"].isna().all()


def test_results_of_schema_version_2_still_read(ising_dataset, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    run_solver(SolverSpec("lu"), ising_dataset, out, progress=False)
    table = pq.read_table(out).drop_columns(["progress_evaluations", "progress_fidelity", "progress_residual"])
    pq.write_table(table.replace_schema_metadata({b"qlsbench.results_schema_version": b"2"}), out)
    df = load_results([out])
    assert len(df) == 3 and df["progress_fidelity"].isna().all() and (df["fidelity"] > 0.999).all()


def test_results_of_another_version_are_refused(ising_dataset, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    run_solver(SolverSpec("lu"), ising_dataset, out, progress=False)
    table = pq.read_table(out)
    pq.write_table(table.replace_schema_metadata({b"qlsbench.results_schema_version": b"0"}), out)
    with pytest.raises(InputError, match="r.parquet: results schema version 0, this qlsbench reads 2 and 3"):
        load_results([out])
    pq.write_table(table.drop_columns(["fidelity"]), out)
    with pytest.raises(InputError, match="missing column 'fidelity'"):
        load_results([out])


def test_a_results_folder_passes_over_other_outputs_and_journals(ising_dataset, tmp_path, plugin_path, monkeypatch):
    from qlsbench.bench import pauli_study

    results = tmp_path / "results"
    run_solver(SolverSpec("lu"), ising_dataset, results / "lu" / "ising.parquet", progress=False)
    pauli_study(ising_dataset, results / "pauli" / "ising.parquet", tols=(0.0,), progress=False)
    monkeypatch.setenv("QLSBENCH_TEST_CALLS", str(tmp_path / "calls.txt"))
    monkeypatch.setenv("QLSBENCH_TEST_INTERRUPT_AT", "2")
    with pytest.raises(KeyboardInterrupt):  # leaves a journal entry under results/
        run_solver(SolverSpec("counting"), ising_dataset, results / "counting.parquet", progress=False)
    df = load_results([results])
    assert set(df["solver"]) == {"lu"} and len(df) == 3
    with pytest.raises(InputError, match="ising.parquet: results schema version none"):
        load_results([results / "pauli" / "ising.parquet"])  # named explicitly: not passed over
    with pytest.raises(InputError, match="no results files in"):
        load_results([results / "pauli"])
