"""The piles at scale: the page is what the shipped results give, every step stayed within the cap its run set,
and a run killed and resumed from its checkpoint takes the same steps as one run straight through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qlsbench.bench import scale_study
from qlsbench.errors import InputError
from qlsbench.physics import SweepBudget

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "scale"
PAGE = ROOT / "docs" / "scale.md"


def _shipped() -> list[dict]:
    contents = scale_study.read_results(RESULTS)
    assert contents, "no results shipped in docs/scale/"
    return contents


def test_the_page_is_generated_from_the_shipped_results():
    """Regenerate with ``python -m qlsbench.bench.scale_study --page`` when this fails."""
    shipped = scale_study.page(_shipped(), scale_study.read_siconos(RESULTS), scale_study.read_accuracy(RESULTS))
    assert PAGE.read_text() == shipped


def test_the_steps_beside_siconos_are_the_scale_runs_own_steps():
    """The side-by-side file's steps start from the same dropped pile with the same settings, so each is the
    scale run's step of that number: the same contacts, sweeps and status (the run's cap did not bind there)."""
    runs = {content["spheres"]: content["rows"] for content in _shipped()}
    beside = scale_study.read_siconos(RESULTS)
    assert beside, "no side-by-side file shipped in docs/scale/ (python -m benchmarks.siconos_side)"
    for content in beside:
        run = runs[content["spheres"]]
        for row in content["rows"]:
            ran = run[row["step"]]
            assert (row["contacts"], row["sweeps"], row["status"]) == (ran["contacts"], ran["sweeps"], ran["status"])
            assert row["sweeps"] < ran["cap"]


def _beside(step: int, ours: float, nsgs: float | None, newton: dict) -> dict:
    row = {"step": step, "contacts": 10, "ours": ours, "sweeps": 5, "status": "converged"}
    row |= {"NSGS_seconds": nsgs, "NSGS_iterations": 7, "NSGS_info": 0, "NSGS_error": 1e-9}
    return row | {f"NSN_AC_{key}": value for key, value in newton.items()}


def test_a_siconos_worker_that_died_or_did_not_converge_is_named_and_left_out_of_the_ratios():
    died = {"seconds": None, "iterations": -1, "info": -1, "error": None, "died": -11}
    failed = {"seconds": 4.0, "iterations": 101, "info": -1, "error": 5e-5}
    solved = {"seconds": 2.0, "iterations": 57, "info": 0, "error": 1e-13}
    rows = [_beside(0, 1.0, 10.0, died), _beside(1, 2.0, 4.0, failed), _beside(2, 1.0, 2.0, solved)]
    content = {"spheres": 1000, "load": [1.0, 2.0], "siconos_memory_gib": 16.0, "qlsbench": "x", "rows": rows}
    section = "\n".join(scale_study.siconos_section([content]))
    assert "| 1,000 | 0 | 10 | 1 | 5 | 10 | 7 | converged | - | - | worker died (exit -11) | 0.10 | - |" in section
    assert "not converged (error 5.0e-05) | 0.50 | 0.50 |" in section
    # NSGS: ratios 0.1, 0.5, 0.5; NSN_AC: 0.5 and 0.5 over the two steps it finished, one of them unconverged
    assert (
        "NSGS: the stepper took 0.50x its time at the median step and 0.50x at the worst, over the 3 steps it "
        "finished; 0 not converged, 0 worker deaths." in section
    )
    assert (
        "NSN_AC: the stepper took 0.50x its time at the median step and 0.50x at the worst, over the 2 steps it "
        "finished; 1 not converged, 1 worker deaths." in section
    )


def test_the_summaries_are_the_rows_summarised_and_no_step_ran_past_its_cap():
    """The cap of step k is what the run's budget gives from steps 0..k-1 (replayed here from the rows), and
    no step's sweeps exceed it: the bound the budget states."""
    for content in _shipped():
        rows = content["rows"]
        assert content["summary"] == scale_study.summarise(rows)
        assert [r["step"] for r in rows] == list(range(len(rows)))
        budget, options = SweepBudget(), scale_study.step_options(content.get("mu", scale_study.MU))
        if options.mu == 0:  # frictionless steps are Newton's: no first-order iterations, no budget
            assert all(row["sweeps"] == 0 and row["cap"] == options.nsgs.max_sweeps for row in rows)
            continue
        for row in rows:
            assert row["cap"] == budget.cap(options.nsgs)
            assert row["sweeps"] <= row["cap"]
            assert row["status"] in ("converged", "max_iter")
            budget.record(row["sweeps"])


def _steps(content: dict) -> list[tuple]:
    return [(r["step"], r["contacts"], r["sweeps"], r["cap"], r["status"], r["residual"]) for r in content["rows"]]


def test_a_resumed_run_takes_the_same_steps_as_one_straight_through(tmp_path):
    """Two steps, stopped, raised to five from the checkpoint: the same contacts, sweeps, caps, statuses and
    residuals as five steps in one go (30 spheres dropped by 300 steps: about 75 contacts, 35-70 sweeps a step)."""
    scale_study.run(30, 2, tmp_path / "resumed", settle=300, progress=False)
    resumed = scale_study.run(30, 5, tmp_path / "resumed", settle=300, progress=False)
    straight = scale_study.run(30, 5, tmp_path / "straight", settle=300, progress=False)
    assert len(resumed["rows"]) == 5
    assert _steps(resumed) == _steps(straight)
    assert min(r["sweeps"] for r in straight["rows"]) > 10  # warm starts leave real work to resume


def test_bad_requests_and_another_runs_checkpoint_are_refused_by_name(tmp_path):
    """Nothing already written changes when a request is refused."""
    with pytest.raises(InputError, match="steps"):
        scale_study.run(10, 0, tmp_path, settle=40, progress=False)
    scale_study.run(10, 2, tmp_path, settle=40, progress=False)
    before = scale_study.results_path(tmp_path, 10).read_text()
    with pytest.raises(InputError, match=r"checkpoint of another run .*settle 40"):
        scale_study.run(10, 3, tmp_path, settle=41, progress=False)
    with pytest.raises(InputError, match="holds 2 steps, more than --steps 1"):
        scale_study.run(10, 1, tmp_path, settle=40, progress=False)
    assert scale_study.results_path(tmp_path, 10).read_text() == before
    assert json.loads(before)["settle"] == 40
