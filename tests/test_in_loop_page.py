"""docs/in-loop.md is generated from the in-loop results shipped in docs/in-loop/: page and results must agree."""

from pathlib import Path

from qlsbench.bench.in_loop import read_in_loop
from qlsbench.report import in_loop_page

ROOT = Path(__file__).resolve().parents[1]
RESULTS = sorted((ROOT / "docs" / "in-loop").glob("*.parquet"))


def test_the_page_is_what_the_shipped_in_loop_results_give(tmp_path):
    assert RESULTS, "no in-loop results shipped in docs/in-loop/"
    out = in_loop_page.render([str(p) for p in RESULTS], tmp_path / "in-loop.md", tmp_path / "figures")
    committed = (ROOT / "docs" / "in-loop.md").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8").splitlines() == committed.splitlines(), (
        "docs/in-loop.md differs from what docs/in-loop/ gives: run "
        "`qlsbench figure in-loop docs/in-loop/*.parquet --out docs/in-loop.md`")


def test_every_oracle_sweep_has_six_levels_over_three_seeds_and_a_bar():
    sweeps = [meta["runs"] for _, meta in map(read_in_loop, RESULTS)
              if any(r["fidelity"] == r["fidelity"] for r in meta["runs"])]
    assert len(sweeps) >= 3, "an oracle sweep per family"
    for runs in sweeps:
        levels = {r["fidelity"] for r in runs}
        assert len(levels) >= 6 and all(sum(r["fidelity"] == f for r in runs) >= 3 for f in levels)
        exact = [r for r in runs if r["fidelity"] == 1.0]
        assert all(r["position_error_max"] < 1e-6 for r in exact), "fidelity 1 must follow the exact run"
