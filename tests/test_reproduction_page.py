"""docs/reproduction.md is generated from the shipped results in docs/reproduction/: page and results must agree.

The page is rendered again from the shipped folder and compared with the
committed page, line for line; the shipped folder is checked against its
manifest's hashes; the rules that turn spreads into verdicts are checked on
spreads made to sit on either side of them.
"""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qlsbench.bench import samples_per_evaluation
from qlsbench.bench._shipped import job_times, verify
from qlsbench.bench.spread import Spread, seed_spreads
from qlsbench.errors import InputError
from qlsbench.report import reproduction
from qlsbench.report.reproduction.sections import _aer_note

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "docs" / "reproduction"
CONTROLS = ROOT / "docs" / "reproduction-controls"
PAGE = ROOT / "docs" / "reproduction.md"


def test_the_shipped_results_match_their_manifest():
    for folder in (SHIPPED, CONTROLS):
        manifest = verify(folder)
        assert manifest["files"], "the manifest lists no file"
        assert any(name.startswith("results/") for name in manifest["files"])


def test_the_page_is_what_the_shipped_results_give(tmp_path):
    out = reproduction.render(
        SHIPPED, tmp_path / "reproduction.md", tmp_path / "figures", controls_folder=CONTROLS, draw=False
    )
    generated, committed = out.read_text(encoding="utf-8"), PAGE.read_text(encoding="utf-8")
    # The page links its figures relatively: the committed page's folder is docs/figures, ours tmp/figures.
    assert generated.splitlines() == committed.splitlines(), (
        "docs/reproduction.md differs from the page the shipped results give: run "
        "`qlsbench figure reproduction docs/reproduction --controls docs/reproduction-controls --out "
        "docs/reproduction.md`"
    )
    for name in (
        "reproduction_fig2.png",
        "reproduction_fig2_seeds.png",
        "reproduction_fig4.png",
        "reproduction_fig5.png",
    ):
        if f"figures/{name}" in committed:
            assert (ROOT / "docs" / "figures" / name).stat().st_size > 10_000


def test_a_changed_shipped_file_is_named(tmp_path):
    copy = tmp_path / "shipped"
    shutil.copytree(SHIPPED, copy)
    target = copy / "systems.parquet"
    target.write_bytes(target.read_bytes() + b"\0")
    with pytest.raises(InputError, match="systems.parquet does not match its SHA-256"):
        verify(copy)
    (copy / "extra.parquet").write_bytes(b"")
    target.unlink()
    with pytest.raises(InputError, match="(extra.parquet|systems.parquet)"):
        verify(copy)


def test_spread_is_the_median_and_quartiles_over_seeds():
    values = [0.1, 0.9, 0.5, 0.7, np.nan, 0.3]
    s = Spread.of(values)
    assert (s.n, s.median, s.q25, s.q75, s.low, s.high) == (5, 0.5, 0.3, 0.7, 0.1, 0.9)
    assert s.text() == "0.500 [0.300, 0.700] (n = 5)"
    assert Spread.of([]).text() == "—" and Spread.of([0.25]).text() == "0.250 (n = 1)"
    table = seed_spreads(
        pd.DataFrame({"solver": ["a"] * 3 + ["b"] * 2, "n_qubits": 5, "fidelity": [0.2, 0.4, 0.6, 0.9, 1.0]})
    )
    assert list(table["n"]) == [3, 2] and list(table["median"]) == [0.4, 0.95]


def _spreads(**medians_by_qubits):
    """Spreads of five seeds around a median, +-0.02 (quartiles at +-0.01)."""
    return {int(q[1:]): Spread.of(m + np.array([-0.02, -0.01, 0.0, 0.01, 0.02])) for q, m in medians_by_qubits.items()}


def test_the_global_cost_verdict_needs_separated_spreads():
    assert reproduction.global_drop_verdict(_spreads(q5=0.8, q8=0.2)).startswith("reproduced")
    assert reproduction.global_drop_verdict(_spreads(q5=0.5, q8=0.495)).startswith("partly")
    assert reproduction.global_drop_verdict(_spreads(q5=0.2, q8=0.8)).startswith("not reproduced")
    assert reproduction.global_drop_verdict({}).startswith("not run yet")


def test_null_b_on_fig2_scores_the_fidelity_of_b_against_a_dense_solve():
    """Fig. 2's systems are the pinned ising-k10-n* ones: the shipped null-b rows give b's fidelity with
    np.linalg.solve's answer at 2-8 qubits, the same at every seed."""
    from qlsbench.data import pinned, to_system
    from qlsbench.report._reproduction_controls import null_values, with_controls

    shipped = with_controls(reproduction.load_shipped(SHIPPED), reproduction.load_shipped(CONTROLS))
    nulls = null_values(shipped)
    assert sorted(nulls["null-b"]) == list(range(2, 9))
    ising = pinned("ising")
    for n, values in nulls["null-b"].items():
        system = to_system(ising[(ising["n_qubits"] == n) & (ising["cond"].round() == 10)].iloc[0])
        x = np.linalg.solve(system.A.toarray(), system.b)
        assert values == pytest.approx((system.b @ x) ** 2 / ((system.b @ system.b) * (x @ x)), abs=1e-9)
        # a random vector scores about 1/2^n: far below b here
        assert np.median(nulls["null-random"][n]) < 0.5


def test_the_local_cost_verdict():
    solved = {q: Spread.of([0.995, 0.996, 0.997, 0.998, 0.999]) for q in (5, 6, 7, 8)}
    glob = _spreads(q5=0.6, q6=0.5, q7=0.4, q8=0.3)
    assert reproduction.local_learns_verdict(solved, glob).startswith("reproduced (no control run")
    assert reproduction.local_learns_verdict(solved, glob, above_b=[5, 6, 7, 8]).startswith("reproduced (separated")
    # at fidelity 0.99 but not separated from returning b: the bar alone is no verdict
    assert reproduction.local_learns_verdict(solved, glob, above_b=[]).startswith("not reproduced: not separated")
    assert reproduction.local_learns_verdict(solved, glob, above_b=[5, 6]).startswith(
        "partly: separated from returning b at 2 of 4"
    )
    better = _spreads(q5=0.9, q6=0.8, q7=0.7, q8=0.6)
    assert reproduction.local_learns_verdict(better, glob).startswith("partly")
    assert "interquartile ranges separated at 4" in reproduction.local_learns_verdict(better, glob)
    assert reproduction.local_learns_verdict(glob, better).startswith("not reproduced")
    two = {q: better[q] for q in (5, 6)}
    assert reproduction.local_learns_verdict(two, glob).startswith("incomplete (2 of 4 sizes run so far): partly")
    assert reproduction.local_learns_verdict(better, glob, budgets="x changes").endswith("; x changes")


def test_a_null_solver_judged_as_a_solver_is_never_reproduced():
    """Returning b on fig. 2's systems meets the 0.99 bar from 3 qubits; judged by the verdict's own rule against
    itself it is not separated, so the verdict cannot say reproduced."""
    from qlsbench.bench.spread import separation

    b = {5: 0.9992, 6: 0.9994, 7: 0.9996, 8: 0.9996}
    as_solver = {q: Spread.of([f] * 5) for q, f in b.items()}
    above = [q for q, f in b.items() if separation([f] * 5, [f]).separated]
    verdict = reproduction.all_solved_verdict(as_solver, above_b=above, b_meets=list(b))
    assert verdict.startswith("not separated from returning b at 4 of 4 sizes")
    assert "so the bar alone is no verdict" in verdict
    assert reproduction.local_learns_verdict(as_solver, as_solver, above_b=above).startswith("not reproduced")
    # a solver whose every seed beats b is separated; one that ties b at two seeds in five is not
    assert separation([0.99999] * 5, [0.9996]).separated
    assert not separation([0.9996, 0.9996, 0.99999, 0.99999, 0.99999], [0.9996] * 5).separated


def test_the_global_cost_verdict_names_the_random_vector_that_falls_alike():
    random = _spreads(q5=0.03, q8=0.004)
    text = reproduction.global_drop_verdict(_spreads(q5=0.8, q8=0.2), random, above_random=[5, 6, 7, 8])
    assert text.startswith("reproduced") and "a random vector's fidelity falls by the same rule" in text
    assert "separated from a random vector at 4 of 4 sizes" in text


def test_fig4s_range_check_under_each_choice():
    from qlsbench.report._reproduction_controls import kappa_choices

    def run(dataset, conds):  # one Newton system per (step, iteration): first iteration small, last large
        return [
            {"dataset": dataset, "step": 100 * k, "newton_iter": i, "time": 0.32 * k, "n_qubits": q, "cond": c}
            for k, per in enumerate(conds, 1)
            for i, (q, c) in enumerate(per)
        ]

    systems = pd.DataFrame(
        run("matches", [[(6, 2.0), (8, 22.0)], [(6, 3.0), (8, 50)], [(6, 3.0), (8, 80.0)], [(6, 1.0), (9, 300.0)]])
    )
    table, checks = kappa_choices(systems, [("1e-4", "zero", "matches")], reproduction.PAPER_FIG4, 0.16)
    assert checks == [False, True]  # the first iteration's κ is far below the paper's, the last's within 1.5x
    assert list(table["iteration"]) == ["first", "last"] and list(table["within 1.5×"]) == ["no", "yes"]


def test_controls_replace_the_paper_runs_rows_of_the_same_solve():
    from qlsbench.report._reproduction_controls import with_controls

    def rows(solver, repeats, fidelity, status="max_iter"):
        return pd.DataFrame(
            {
                "solver": solver,
                "dataset": "ising/kappa10",
                "system_id": "s",
                "repeat": repeats,
                "fidelity": fidelity,
                "status": status,
            }
        )

    main = reproduction.Shipped(
        Path("."), {}, rows("aer", [0, 1, 2], np.nan, "skipped"), pd.DataFrame({"dataset": ["a"]}), {}
    )
    controls = reproduction.Shipped(Path("."), {}, rows("aer", [0, 1], 0.5), pd.DataFrame({"dataset": ["a", "b"]}), {})
    merged = with_controls(main, controls)
    assert sorted(merged.results["repeat"]) == [0, 1, 2]
    assert list(merged.results.sort_values("repeat")["status"]) == ["max_iter", "max_iter", "skipped"]
    assert list(merged.systems["dataset"]) == ["a", "b"] and merged.controls is controls


def test_loss_falls_reads_the_trend_not_the_noise():
    rng = np.random.default_rng(0)
    falling = np.linspace(1.0, 0.1, 400) + rng.normal(0, 0.05, 400)
    assert reproduction.loss_falls(falling)
    assert not reproduction.loss_falls(np.linspace(0.1, 1.0, 400) + rng.normal(0, 0.05, 400))


def test_job_times_reads_a_snakemake_log(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(
        "\n".join(
            [
                "[Thu Nov 26 01:00:00 2026]",
                "rule simulate:",
                "    output: x",
                "    jobid: 3",
                "",
                "[Thu Nov 26 01:00:30 2026]",
                "localrule checkpoints:",
                "    jobid: 4",
                "[Thu Nov 26 01:02:00 2026]",
                "Finished jobid: 3 (Rule: simulate)",
                "[Thu Nov 26 01:03:00 2026]",
                "Finished jobid: 4 (Rule: checkpoints)",
                "",
            ]
        )
    )
    times = job_times(log)
    assert times["wall_minutes"] == 3.0 and times["jobs"] == 2
    assert times["rules"] == {"checkpoints": {"jobs": 1, "minutes": 2.5}, "simulate": {"jobs": 1, "minutes": 2.0}}


def test_samples_per_evaluation_counts_shots_and_monte_carlo_samples():
    row = pd.Series({"circuit_executions": 600, "shots": 1000, "mc_samples": None, "cost_evaluations": 200})
    assert samples_per_evaluation(row) == 3000.0
    row = pd.Series({"circuit_executions": None, "shots": None, "mc_samples": 1024 * 2500, "cost_evaluations": 2500})
    assert samples_per_evaluation(row) == 1024.0
    row = pd.Series({"circuit_executions": 600, "shots": 0, "mc_samples": 0, "cost_evaluations": 200})
    assert np.isnan(samples_per_evaluation(row))


def _tiny_run(root: Path, kappa: str, solver: str = "vqls-local") -> Path:
    """A workflow-shaped folder: an Ising dataset and one variational solver's results on it."""
    from qlsbench.cli import main

    dataset = root / "datasets" / "ising" / "kappa10" / "part-0000.parquet"
    assert main(["ising", "--n", "2", "--kappa", kappa, "--out", str(dataset), "--quiet"]) == 0
    out = root / "results" / solver / "ising" / "kappa10.parquet"
    assert (
        main(
            [
                "solve",
                "--solver",
                solver,
                "--options",
                '{"backend": "exact", "maxiter": 5}',
                "--dataset",
                str(dataset),
                "--out",
                str(out),
                "--repeats",
                "2",
                "--quiet",
            ]
        )
        == 0
    )
    return root


def test_ship_adds_parts_that_belong_together_and_refuses_those_that_do_not(tmp_path):
    from qlsbench.bench._shipped import collect

    config, other = tmp_path / "paper.yaml", tmp_path / "other.yaml"
    config.write_text("run: {seed: 0}\n")
    other.write_text("run: {seed: 1}\n")
    shipped = tmp_path / "shipped"
    collect(_tiny_run(tmp_path / "a", "10"), shipped, config=config)
    manifest = collect(tmp_path / "a", shipped, config=config, add=True)
    assert len(manifest["collections"]) == 2 and verify(shipped) == manifest
    assert "datasets/ising/kappa10/part-0000.parquet" in manifest["files"]
    with pytest.raises(InputError, match="not the configuration"):
        collect(tmp_path / "a", shipped, config=other, add=True)
    with pytest.raises(InputError, match="different bytes of a dataset"):
        collect(_tiny_run(tmp_path / "b", "100", "vqls-global"), shipped, config=config, add=True)
    assert verify(shipped) == manifest, "a refused part changed the shipped folder"


def test_a_later_part_of_the_same_run_counts_each_snakemake_invocation_once():
    """Snakemake keeps every invocation's log in the run folder: a later part reads the earlier parts' logs
    again, and the wall time must count each invocation once, at its last reading."""
    from qlsbench.bench._shipped import _superseded

    def inv(started, jobs, wall):
        return {"started": started, "jobs": jobs, "wall_minutes": wall, "rules": {}}

    legacy = {"jobs": 9, "wall_minutes": 48.4, "rules": {}}  # written before starts were recorded
    first = {"commit": "abc", "invocations": [legacy, inv("t2", 87, 24.2)], "wall_minutes": 72.6}
    growing = {"commit": "abc", "invocations": [inv("t3", 13, 89.8)], "wall_minutes": 89.8}
    other_run = {"commit": "zzz", "invocations": [inv("t1", 9, 48.4)], "wall_minutes": 48.4}
    later = {
        "commit": "abc",
        "invocations": [inv("t1", 9, 48.4), inv("t2", 87, 24.2), inv("t3", 13, 137.2), inv("t4", 12, 103.0)],
    }
    kept = _superseded([first, growing, other_run], later)
    assert kept[0]["invocations"] == [] and kept[0]["wall_minutes"] == 0  # read again by the later part
    assert kept[1]["invocations"] == []  # the same invocation, read when it had run longer
    assert kept[2] == other_run  # another run's logs are not this run's
    total = sum(p["wall_minutes"] for p in kept) + sum(i["wall_minutes"] for i in later["invocations"])
    assert total == pytest.approx(48.4 + 24.2 + 137.2 + 103.0 + 48.4)


def test_the_aer_note_marks_only_columns_shipped_from_a_collection_before_the_seeding_fixes():
    """A column rerun in a later collection supersedes the early one's file: it is no longer called indicative,
    while the column still shipped from the early collection is."""
    early = {
        "commit": "ecaf8274728e" + "0" * 28,  # the paper run's first parts: version 0.1.5 (SHIPPED_COMMITS)
        "files": ["results/vqls-global-aer/ising/kappa10.parquet", "results/vqls-local-aer/ising/kappa10.parquet"],
    }
    later = {
        "commit": "0123456789abcdef" * 2 + "01234567",
        "qlsbench_version": "0.2.0",
        "files": ["results/vqls-global-aer/ising/kappa10.parquet"],
    }
    shipped = reproduction.Shipped(Path("."), {"collections": [early, later]}, pd.DataFrame(), pd.DataFrame(), {})
    (note, _) = _aer_note(shipped, ["vqls-global-aer", "vqls-local-aer"])
    assert "`vqls-global-aer` at commit `0123456789ab`" in note
    assert "`vqls-local-aer` ran before them" in note and "`vqls-global-aer` ran with both" in note
    (note, _) = _aer_note(
        reproduction.Shipped(Path("."), {"collections": [early]}, pd.DataFrame(), pd.DataFrame(), {}),
        ["vqls-global-aer", "vqls-local-aer"],
    )
    assert "`vqls-global-aer` and `vqls-local-aer` ran before them" in note and "ran with both" not in note
    # a collection that neither stamps a version nor has its commit in SHIPPED_COMMITS cannot be vouched for
    unknown = {**later, "qlsbench_version": None}
    (note, _) = _aer_note(
        reproduction.Shipped(Path("."), {"collections": [early, unknown]}, pd.DataFrame(), pd.DataFrame(), {}),
        ["vqls-global-aer", "vqls-local-aer"],
    )
    assert "ran with both" not in note
