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
    assert PAGE.read_text() == scale_study.page(_shipped())


def test_the_summaries_are_the_rows_summarised_and_no_step_ran_past_its_cap():
    """The cap of step k is what the run's budget gives from steps 0..k-1 (replayed here from the rows), and
    no step's sweeps exceed it: the bound the budget states."""
    for content in _shipped():
        rows = content["rows"]
        assert content["summary"] == scale_study.summarise(rows)
        assert [r["step"] for r in rows] == list(range(len(rows)))
        budget, options = SweepBudget(), scale_study.step_options()
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
