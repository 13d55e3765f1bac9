"""docs/in-loop.md is generated from the in-loop results shipped in docs/in-loop/: page and results must agree."""

from pathlib import Path

from qlsbench.bench.in_loop import read_in_loop
from qlsbench.report import in_loop_page
from qlsbench.solvers.registry import is_variational

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
    loops = in_loop_page._split([str(p) for p in RESULTS])[0]
    sweeps = [meta["runs"] for _, meta in map(read_in_loop, loops)
              if any(r["fidelity"] == r["fidelity"] for r in meta["runs"])]
    assert len(sweeps) >= 3, "an oracle sweep per family"
    for runs in sweeps:
        levels = {r["fidelity"] for r in runs}
        assert len(levels) >= 6 and all(sum(r["fidelity"] == f for r in runs) >= 3 for f in levels)
        exact = [r for r in runs if r["fidelity"] == 1.0]
        assert all(r["position_error_max"] < 1e-6 for r in exact), "fidelity 1 must follow the exact run"


def _files():
    return [(p.stem, *read_in_loop(p)) for p in RESULTS if p.stem and in_loop_page._split([str(p)])[0]]


def test_the_physics_track_counts_each_solvers_carried_runs_from_the_summaries():
    files = _files()
    track = in_loop_page.physics_track(files).set_index(["solver", "family"])
    assert len(track) >= 4, "at least four real solvers in the loop"
    for (solver, family), row in track.iterrows():
        runs = [(r, steps) for _, steps, meta in files if meta["options"]["family"] == family
                for r in meta["runs"] if r["solver_name"] == solver and r["fidelity"] != r["fidelity"]]
        carried = [(r, steps) for r, steps in runs
                   if r["status"] == "completed" and r["divergence_step"] is None]
        assert row["runs carried"] == f"{len(carried)} of {len(runs)}"
        if carried:  # the longest is the carried run of most simulated time
            longest = max(float(s.loc[(s["solver"] == r["solver"]) & (s["seed"] == r["seed"]), "time"].max())
                          for r, s in carried)
            assert float(row["longest carried (simulated s)"]) == float(f"{longest:.3g}")


def test_each_oracle_sweeps_physics_bar_is_set_beside_the_boards_bar():
    from qlsbench.bench.in_loop import success_bar

    files = _files()
    bars = in_loop_page.success_bars(files, board_bar=0.99)
    sweeps = [meta for _, _, meta in files if any(r["fidelity"] == r["fidelity"] for r in meta["runs"])]
    assert len(bars) == len(sweeps) >= 3
    for (_, row), meta in zip(bars.iterrows(), sweeps):
        bar = success_bar([r for r in meta["runs"] if r["fidelity"] == r["fidelity"]])
        word = "stricter" if bar is None or bar > 0.99 else "the same" if bar == 0.99 else "looser"
        assert row["against the board's bar"].startswith(word)


def test_the_board_page_carries_the_physics_track(small_board, tmp_path):
    from qlsbench.report.board_pages import render_board

    render_board(small_board, pages=tmp_path / "with", in_loop=[str(p) for p in RESULTS])
    page = (tmp_path / "with" / "leaderboard.md").read_text()
    assert "Physics track: solvers inside the simulation loop" in page and "Physics bars" in page
    assert "fidelity 0.99" in page  # the DEM-C mu = 0 bar, beside the board's
    assert "Physics track" not in (tmp_path / "pages" / "leaderboard.md").read_text()  # the fixture's: no tracks


def test_the_vnls_verdict_says_how_many_steps_the_fallback_finished():
    """A run the stepper's fallback carried is not the solver's doing: the verdict counts those steps, and only
    runs without them read as solved by Newton on the solver's directions."""
    run = {"status": "completed", "divergence_step": None, "max_qubits": 5, "position_error_max": 1e-11,
           "steps_run": 200, "fallback_steps": 0, "name": "a"}
    clean = in_loop_page.vnls_verdict([run, {**run, "name": "b"}])
    assert clean.startswith("holds on 2 run(s): every step solved by Newton on the solver's directions")
    carried = in_loop_page.vnls_verdict([run, {**run, "name": "b", "fallback_steps": 41}])
    assert "every step finished, 41 of 400 with the stepper's fallback" in carried
    assert "solved by Newton" not in carried


def test_a_variational_run_of_fewer_than_five_seeds_says_so_with_its_measured_cost():
    """Issue 32: fewer than five seeds only where one run costs over an hour, and the page says so, with the
    cost read from the file; a full or non-variational run gets no such line."""
    page = (ROOT / "docs" / "in-loop.md").read_text(encoding="utf-8")
    sections = {block.split("\n", 1)[0]: block for block in page.split("\n## ")[1:]}
    for name, _, meta in _files():
        runs = [r for r in meta["runs"] if r["fidelity"] != r["fidelity"]]
        if not runs:
            continue
        variational = is_variational(runs[0]["solver_name"])
        seeds = len({r["seed"] for r in runs})
        line = f"**{seeds} of 5 seeds**"
        if variational and seeds < 5:
            seconds = [r["solver_seconds"] for r in runs]
            assert f"{line}: one run took {min(seconds):.0f}-{max(seconds):.0f} s" in sections[name], name
            assert max(seconds) > 3600, f"{name}: fewer than 5 seeds, yet no run took an hour"
        else:
            assert "of 5 seeds**" not in sections[name], name


def test_the_cold_warm_table_counts_runs_that_ended_on_their_budget():
    """A warm run cut by its iteration budget neither stayed within nor finished: the table says which."""
    options = {"family": "dem_c", "scene": None, "steps": 200, "n_spheres": 16, "mu": 0.0, "restitution": 0.0,
               "params": {}, "newton_max_iter": None, "fallbacks": "on"}

    def run(seed, status, iterations):
        return {"fidelity": float("nan"), "solver": "vnls", "solver_name": "vnls", "solver_options": {"exact": True},
                "seed": seed, "status": status, "stayed_within": status == "completed", "solver_iterations": iterations,
                "linear_solves": iterations // 1000, "solver_seconds": iterations / 400, "warm_starts": 1}

    files = [("cold", None, {"options": {**options, "warm_start": "off"}, "runs": [run(0, "completed", 900_000)]}),
             ("warm", None, {"options": {**options, "warm_start": "converged", "iteration_budget": 1_800_000},
                             "runs": [run(0, "completed", 1_700_000), run(1, "budget", 1_800_400),
                                      run(2, "budget", 1_801_000)]})]
    table = in_loop_page.warm_loop_table(files).set_index("warm start")
    assert table.loc["off", "ended on the budget"] == "0 of 1" and table.loc["off", "stayed within"] == "1 of 1"
    assert table.loc["converged", "ended on the budget"] == "2 of 3"
    assert table.loc["converged", "stayed within"] == "1 of 3"
    assert table.loc["converged", "solver iterations"].startswith("1800400 ")
