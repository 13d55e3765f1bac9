"""Success against budget and the seeds table, on hand-made results with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from qlsbench.bench import success_curve
from qlsbench.bench.ranking import LOW_ACCURACY, seed_table
from qlsbench.cli import main
from qlsbench.errors import InputError
from qlsbench.report import plot_budget_curves


def _row(solver, system, seed, marks, fidelities, residuals=None, status="max_iter"):
    residuals = [1e-3 if f >= 0.99 else 0.5 for f in fidelities] if residuals is None else residuals
    return {
        "solver": solver,
        "system_id": system,
        "seed": seed,
        "repeat": seed,
        "dataset": "d",
        "status": status,
        "progress_evaluations": marks,
        "progress_fidelity": fidelities,
        "progress_residual": residuals,
        "fidelity": fidelities[-1] if fidelities else np.nan,
        "rel_residual": residuals[-1] if residuals else np.nan,
        "rel_error": 0.1,
        "wall_time": 1.0,
        "time_limit": np.nan,
        "cond": 10.0,
        "n_qubits": 2,
        "family": "f",
    }


@pytest.fixture
def results():
    rows = [
        # solver a, system s1: seed 0 solves at 4, seed 1 at 16, seed 2 never -> best from 4, median from 16
        _row("a", "s1", 0, [1, 2, 4, 8, 16], [0.1, 0.5, 0.995, 0.999, 0.999]),
        _row("a", "s1", 1, [1, 2, 4, 8, 16], [0.1, 0.2, 0.3, 0.4, 0.999]),
        _row("a", "s1", 2, [1, 2, 4, 8, 16], [0.1, 0.2, 0.3, 0.4, 0.5]),
        # system s2: every seed solves at 2 but stops recording at 2 (the solve ended early)
        _row("a", "s2", 0, [1, 2], [0.3, 0.999]),
        _row("a", "s2", 1, [1, 2], [0.3, 0.999]),
        _row("a", "s2", 2, [1, 2], [0.3, 0.999]),
        # a residual above the bar does not count, whatever the fidelity
        _row("b", "s1", 0, [1, 8], [0.999, 0.999], residuals=[0.5, 1e-3]),
        # no progress at all (a classical solver): ignored by the curve
        {
            **_row("lu", "s1", 0, [1], [1.0]),
            "progress_evaluations": None,
            "progress_fidelity": None,
            "progress_residual": None,
        },
    ]
    return pd.DataFrame(rows)


def test_success_curve_best_and_median_seed(results):
    c = success_curve(results, LOW_ACCURACY, budgets=[1, 2, 4, 8, 16, 100]).set_index(["solver", "evaluations"])
    assert list(c.loc["a", "best"]) == [0.0, 0.5, 1.0, 1.0, 1.0, 1.0]
    assert list(c.loc["a", "median"]) == [0.0, 0.5, 0.5, 0.5, 1.0, 1.0]
    assert list(c.loc["b", "best"]) == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    assert "lu" not in c.index.get_level_values(0)
    assert c.loc["a", "systems"].iloc[0] == 2 and c.loc["a", "seeds"].iloc[0] == 3


def test_a_read_out_counts_only_above_the_controls_fidelity(results):
    """Where returning b scores 0.9991 on s1, seed 0's 0.995 at 4 evaluations is not a solution; its 0.999 at 8
    is; s2 has no control and keeps the bare bar."""
    c = success_curve(results, LOW_ACCURACY, budgets=[4, 8, 16], above={"s1": 0.9991}).set_index(
        ["solver", "evaluations"]
    )
    assert list(c.loc["a", "best"]) == [0.5, 0.5, 0.5]  # 0.999 < 0.9991: s1 never beats b; s2 from 2
    c = success_curve(results, LOW_ACCURACY, budgets=[4, 8, 16], above={"s1": 0.997}).set_index(
        ["solver", "evaluations"]
    )
    assert list(c.loc["a", "best"]) == [0.5, 1.0, 1.0]


def test_solves_without_read_outs_count_as_never_solved(results):
    """A time-out or error without progress stays in the denominator; a refused (skipped) system does not."""
    empty = {"progress_evaluations": None, "progress_fidelity": None, "progress_residual": None}
    extra = pd.DataFrame(
        [
            {**_row("a", "s3", 0, [1], [0.0], status="timeout"), **empty},
            {**_row("a", "s4", 0, [1], [0.0], status="skipped"), **empty},
        ]
    )
    c = success_curve(pd.concat([results, extra], ignore_index=True), LOW_ACCURACY, budgets=[2, 100])
    c = c.set_index(["solver", "evaluations"])
    assert c.loc["a", "systems"].iloc[0] == 3
    assert list(c.loc["a", "best"]) == pytest.approx([1 / 3, 2 / 3])


def test_seed_table_best_and_median(results):
    t = seed_table(results).set_index("solver")
    assert list(t.index) == ["a"]  # b and lu ran one seed
    assert t.loc["a", "success_best_seed"] == 1.0 and t.loc["a", "success_median_seed"] == 1.0
    assert t.loc["a", "median_fidelity_best_seed"] == pytest.approx(0.999)
    # s1's median seed (0.999, 0.999, 0.5) solves it; lower seed 1 and it no longer does
    worse = results.copy()
    worse.loc[1, "fidelity"] = 0.5
    assert seed_table(worse).set_index("solver").loc["a", "success_median_seed"] == 0.5


def test_budget_figure_is_a_png_and_needs_progress(results, tmp_path):
    out = plot_budget_curves(results, tmp_path / "b.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(InputError, match="no results row has progress"):
        success_curve(results[results["solver"] == "lu"])
    with pytest.raises(InputError, match="no results for solver"):
        plot_budget_curves(results, tmp_path / "c.png", solvers=["zz"])


def test_budget_figure_cli_names_the_files_without_progress(ising_dataset, tmp_path, capsys):
    from qlsbench.bench import SolverSpec, run_solver

    lu = tmp_path / "lu.parquet"
    run_solver(SolverSpec("lu"), ising_dataset, lu, progress=False)
    assert main(["figure", "budget-curves", str(lu), "--out", str(tmp_path / "f.png")]) != 0
    err = capsys.readouterr().err
    assert "lu.parquet" in err and "no results row has progress" in err and "Traceback" not in err
    assert not (tmp_path / "f.png").exists()
