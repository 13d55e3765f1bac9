"""Leaderboard v2: not-run systems leave rates alone, two tracks, plots, a web page in a real browser, and a
plug-in path (plain class, bad option value, resumed compare, submission, board add) that never surprises."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from qlsbench.bench import SolverSpec, load_results, run_solver
from qlsbench.bench.budget import success_curve
from qlsbench.bench.ranking import leaderboard, track_table, tracks
from qlsbench.cli import main
from qlsbench.data import write_systems
from qlsbench.errors import InputError
from qlsbench.problems import ising_inspired
from qlsbench.report import FIGURES
from qlsbench.report.leaderboard_page import display_table, write_page
from qlsbench.report.leaderboard_plots import profile


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory) -> Path:
    """lu on three systems; cg on the same three, declining n = 4 (max_qubits 3); gmres on one only;
    vqls-local (exact, L-BFGS-B) on two, two seeds."""
    root = tmp_path_factory.mktemp("v2")
    three = root / "datasets" / "ising" / "kappa10" / "part-0000.parquet"
    one = root / "datasets" / "ising" / "small" / "part-0000.parquet"
    two = root / "datasets" / "ising" / "two" / "part-0000.parquet"
    write_systems([ising_inspired(n, 10.0) for n in (2, 3, 4)], three)
    write_systems([ising_inspired(2, 10.0)], one)
    write_systems([ising_inspired(n, 10.0) for n in (2, 3)], two)
    out = root / "results"
    run_solver(SolverSpec("lu"), three, out / "lu.parquet", progress=False)
    run_solver(SolverSpec("cg"), three, out / "cg.parquet", max_qubits=3, progress=False)
    run_solver(SolverSpec("gmres"), one, out / "gmres.parquet", progress=False)
    run_solver(SolverSpec("vqls-local", {"backend": "exact", "optimizer": "lbfgsb", "layers": 2, "maxiter": 100},
                          "vqls"), two, out / "vqls.parquet", repeats=2, progress=False)
    return out


@pytest.fixture(scope="module")
def results(results_dir) -> pd.DataFrame:
    return load_results([results_dir])


# ---------------------------------------------------------------- semantics


def test_a_system_not_run_leaves_the_rates_alone_and_coverage_says_so(results):
    board = leaderboard(results).set_index("solver")
    assert board.loc["gmres", "success_rate"] == 1.0 and board.loc["gmres", "systems"] == 1
    assert board.loc["gmres", "coverage"] == pytest.approx(1 / 3)
    # A declined system (skipped) was run and counts as unsuccessful.
    assert board.loc["cg", "success_rate"] == pytest.approx(2 / 3) and board.loc["cg", "coverage"] == 1.0
    assert board.loc["cg", "skipped"] == 1


def test_a_system_in_two_datasets_counts_once_over_all_and_in_each_of_its_datasets(tmp_path):
    """The same system in two datasets (a pinned system in two groups): once in the "all" rows, once per dataset."""
    from qlsbench.bench.ranking import ranking_rows

    a = tmp_path / "datasets" / "pinned" / "a" / "part-0000.parquet"
    b = tmp_path / "datasets" / "pinned" / "b" / "part-0000.parquet"
    write_systems([ising_inspired(n, 10.0) for n in (2, 3)], a)
    write_systems([ising_inspired(2, 10.0)], b)
    for path in (a, b):
        run_solver(SolverSpec("lu"), path, tmp_path / "results" / f"{path.parent.name}.parquet", progress=False)
    table = ranking_rows(load_results([tmp_path / "results"]), tracks(), by="dataset")
    exact = table[(table["track"] == table["track"].iloc[0]) & (table["band"] == "all")].set_index("group")
    assert exact.loc["all", "systems"] == 2 and exact.loc["all", "coverage"] == 1.0
    assert sorted(exact.drop(index="all")["systems"]) == [1, 2]


def test_the_variational_track_ranks_by_the_read_out(results):
    exact, variational = (track_table(results, t).set_index("solver") for t in tracks())
    # The exact track asks for residual 1e-6 and a convergence claim; the variational one judges the read-out.
    assert variational.loc["vqls", "success_rate"] == 1.0 and variational.loc["vqls", "median_fidelity"] >= 0.99
    assert exact.loc["vqls", "success_rate"] < 1.0
    assert variational.loc["vqls", "kind"] == "variational" and exact.loc["lu", "kind"] == "classical"
    assert variational.loc["vqls", "cost_evaluations"] > 0
    # No circuits ran on the exact backend: shots and circuit executions do not apply.
    shown = display_table(variational.reset_index(), ["solver", "shots", "circuit_executions", "coverage"])
    vqls = shown[shown["solver"] == "vqls"].iloc[0]
    assert vqls["shots per circuit"] == "—" and vqls["circuit executions"] == "—" and vqls["coverage"] == "67 %"
    assert display_table(pd.DataFrame({"shots": [0.0, 1000.0]}))["shots per circuit"].tolist() == ["exact", "1e+03"]
    samples = display_table(pd.DataFrame({"mc_samples": [0.0, 2.56e6, np.nan]}))["MC samples"].tolist()
    assert samples == ["full sum", "2.56e+06", "—"]  # VNLS exact mode, Monte Carlo, a solver without samples


def test_budget_curves_in_seconds_and_per_band(results):
    by_time = success_curve(results, axis="seconds")
    assert set(by_time["solver"]) == {"vqls"} and by_time["seconds"].is_monotonic_increasing
    assert by_time["best"].iloc[-1] == 1.0 and by_time["best"].iloc[0] <= by_time["best"].iloc[-1]
    bands = success_curve(results, by_band=True)
    assert set(bands["band"]) == {"1-4"}
    with pytest.raises(InputError, match="budget axis"):
        success_curve(results, axis="shots")


def test_performance_profile_counts_systems_within_tau_of_the_fastest():
    systems = pd.DataFrame({"solver": ["a", "a", "b", "b"], "system_key": ["s1", "s2", "s1", "s2"],
                            "time_ms": [1.0, 4.0, 2.0, 2.0], "success": [1.0, 1.0, 1.0, 0.0]})
    prof = profile(systems, np.array([1.0, 2.0, 4.0])).set_index(["solver", "tau"])["share"]
    assert prof["a"].tolist() == [1.0, 1.0, 1.0]  # fastest on s1, the only solver of s2
    assert prof["b"].tolist() == [0.0, 0.5, 0.5]  # 2x on s1, never on s2 (unsuccessful)


@pytest.mark.parametrize("name", ["performance-profile", "success-qubits", "fidelity-kappa", "budget-curves"])
def test_the_plots_draw_from_results_files(results_dir, tmp_path, name):
    out = FIGURES[name]([str(results_dir)], tmp_path / "f.png")
    assert out.stat().st_size > 10_000  # a drawn figure, not an empty canvas
    with pytest.raises(InputError, match="writes .png"):
        FIGURES[name]([str(results_dir)], tmp_path / "f.svg")


# ---------------------------------------------------------------- the web page in a real browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _browser():
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (Debian: apt-get install chromium; CI installs it)")
    return playwright


@pytest.fixture(scope="module")
def page_file(results, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("page") / "index.html"
    write_page(results, out, title="test board", by="dataset")
    return out


def test_the_web_page_sorts_filters_and_renders_its_plots(page_file):
    sync = _browser()
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", lambda route: route.abort() if not route.request.url.startswith(("file:", "data:"))
                   else route.continue_())  # offline: any request to the network would fail the page
        page.goto(page_file.as_uri())
        visible = ".track:not([hidden]) tbody tr:not([hidden])"
        first_column = f"{visible} td:first-child"

        assert page.locator(".track:not([hidden])").get_attribute("data-track") == "exact"
        assert page.locator(visible).count() == 4  # every solver ran a system of the whole set
        success = page.locator(f"{visible} td:nth-child(5)").all_inner_texts()  # each rate with its interval
        assert all(re.fullmatch(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", cell) for cell in success), success
        assert page.locator(".track:not([hidden]) th", has_text="≈").get_attribute("title")
        page.select_option("#f-track", "variational")
        assert page.locator(".track:not([hidden])").get_attribute("data-track") == "variational"
        page.select_option("#f-group", "ising/small")
        assert page.locator(first_column).all_inner_texts() == ["gmres"]  # the only one run on that dataset
        page.select_option("#f-group", "ising/kappa10")
        assert sorted(page.locator(first_column).all_inner_texts()) == ["cg", "lu"]

        page.select_option("#f-group", "all")
        header = page.locator(".track:not([hidden]) th", has_text="systems run")
        header.click()
        ascending = page.locator(first_column).all_inner_texts()
        header.click()
        descending = page.locator(first_column).all_inner_texts()
        assert ascending != descending and ascending[0] == "gmres" and descending[-1] == "gmres"
        assert header.get_attribute("title")  # a human name with its meaning on hover

        images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth])")
        assert len(images) >= 3 and all(done and width > 0 for done, width in images)
        browser.close()
    assert errors == []


# ---------------------------------------------------------------- the plug-in path

PLAIN = textwrap.dedent('''
    import numpy as np
    import scipy.sparse.linalg as spla

    from qlsbench.solvers import SolveResult, Status

    class Plain:
        """No base class: a name, options and solve are all a solver needs."""
        name = "plain-cg"

        def __init__(self, rtol=1e-10, log=None):
            self.rtol, self.log = rtol, log

        @property
        def options(self):
            return {"rtol": self.rtol}

        def solve(self, system, *, seed=0):
            if self.log:
                with open(self.log, "a") as f:
                    f.write(system.system_id + "\\n")
            x, info = spla.cg(system.A, system.b, rtol=float(self.rtol), maxiter=500)
            return SolveResult(x, Status.CONVERGED if info == 0 else Status.MAX_ITER)

    class NoSolve:
        name = "nosolve"
        options = {}

    class Sleeper:
        name = "sleeper"
        options = {}

        def solve(self, system, *, seed=0):
            import time
            time.sleep(60)

    class Jacobi:
        """x <- x + D^-1 (b - A x): converges where A is diagonally dominant, diverges elsewhere (a result)."""
        name = "my-jacobi"

        def __init__(self, maxiter=200):
            self.maxiter = maxiter

        @property
        def options(self):
            return {"maxiter": self.maxiter}

        def solve(self, system, *, seed=0):
            d = system.A.diagonal()
            if np.any(d == 0):
                return SolveResult(None, Status.SKIPPED, "a zero on the diagonal")
            x = np.zeros_like(system.b)
            for _ in range(int(self.maxiter)):
                x = x + (system.b - system.A @ x) / d
                r = np.linalg.norm(system.b - system.A @ x) / np.linalg.norm(system.b)
                if not np.isfinite(r) or r > 1e6:
                    return SolveResult(None, Status.ERROR, "diverged")
                if r < 1e-10:
                    return SolveResult(x, Status.CONVERGED)
            return SolveResult(x, Status.MAX_ITER)
''')


@pytest.fixture
def plain_module(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plainsolvers.py").write_text(PLAIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return tmp_path


def test_a_plain_class_compares_resumes_and_is_added_to_the_board(small_board, plain_module, capsys):
    log = plain_module / "solves.log"
    argv = ["compare", "--solver", "plainsolvers:Plain", "--option", f"log={str(log)!r}", "--board",
            str(small_board.folder), "--time-limit", "30", "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    label = f"plain-cg[log={str(log)}]"  # the solver's own name and options, as its folder
    assert label in out and "plainsolvers:Plain" not in out and "rank" in out and "5 repeats ranged" in out
    solved = log.read_text().splitlines()
    assert len(solved) == 5 + 1  # the five pinned systems, and the smallest once more first (the probe)
    work = plain_module / "results" / "compare" / "plain-cg"  # the solver's own name, no colon
    submission = work / "submission.parquet"
    assert submission.exists()

    assert main(argv) == 0  # finished: read back, nothing solved again
    assert log.read_text().splitlines() == solved
    capsys.readouterr()

    (work / "dd.parquet").unlink()  # as if interrupted before the last group
    assert main(argv) == 0
    assert len(log.read_text().splitlines()) == len(solved) + 2  # only that group's two systems

    pages = plain_module / "pages"
    assert main(["board", "add", str(submission), "--board", str(small_board.folder), "--pages", str(pages)]) == 0
    assert not (small_board.folder / "submissions").exists()  # the board (the installed package) is untouched
    assert len(list((plain_module / "submissions").glob("*.parquet"))) == 1  # kept in the user's folder
    page = (pages / "index.html").read_text()
    assert f"{label} (self-submitted)" in page and "Submissions" in page
    assert f"{label} (self-submitted)" in (pages / "leaderboard.md").read_text()
    assert main(["board", "add", str(submission), "--board", str(small_board.folder), "--pages", str(pages)]) == 2
    assert "already on the board" in capsys.readouterr().err

    # A later compare ranks against the published board only, unless told to count the local submissions too.
    other = ["compare", "--solver", "cg", "--board", str(small_board.folder), "--time-limit", "30", "--quiet",
             "--no-calibrate"]
    assert main(other) == 0
    published = capsys.readouterr().out
    assert "(self-submitted)" not in published and "rank" in published
    assert main([*other, "--with-local", "submissions"]) == 0
    assert f"{label} (self-submitted)" in capsys.readouterr().out

    # The upstream check: a sample of the submission re-run here agrees; a doctored one does not.
    assert main(["board", "verify", str(submission), "--board", str(small_board.folder), "--sample", "3",
                 "--quiet"]) == 0
    assert "all 3 re-run systems agree" in capsys.readouterr().out
    doctored = plain_module / "doctored.parquet"
    table = pq.read_table(submission)
    status = ["error" if i == 0 else s for i, s in enumerate(table.column("status").to_pylist())]
    smallest = table.column("system_id").to_pylist()[0]
    rows = table.set_column(table.schema.get_field_index("status"), "status", pa.array(status))
    pq.write_table(rows.replace_schema_metadata(table.schema.metadata), doctored)
    code = main(["board", "verify", str(doctored), "--board", str(small_board.folder), "--sample", "5", "--quiet"])
    out = capsys.readouterr()
    assert code == 1 and "re-run systems disagree" in out.err, "a changed status must be caught"
    assert smallest in set(pd.read_parquet(doctored)["system_id"])


def test_a_solver_that_returns_an_error_status_is_ranked_not_refused(small_board, plain_module, capsys):
    """Diverging is a result: the run goes on and those systems count as failures."""
    argv = ["compare", "--solver", "plainsolvers:Jacobi", "--board", str(small_board.folder), "--time-limit", "30",
            "--quiet", "--no-calibrate"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "my-jacobi: rank" in out  # its own name (no options given), not plainsolvers:Jacobi
    rows = pd.read_parquet(plain_module / "results" / "compare" / "my-jacobi" / "submission.parquet")
    assert len(rows) == 5 and (rows["status"] != "converged").any()  # some systems failed, all are ranked


@pytest.mark.parametrize("option, culprit", [
    ("rtol=abc", "option 'rtol' must be float, got str 'abc'"),  # a type its default gives: refused when built
    ("log='/no/such/folder/x.log'", "raised FileNotFoundError on the smallest pinned system"),  # the probe solve
])
def test_a_bad_option_value_is_refused_before_the_run(small_board, plain_module, capsys, option, culprit):
    code = main(["compare", "--solver", "plainsolvers:Plain", "--option", option, "--board",
                 str(small_board.folder), "--time-limit", "30", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and culprit in err, err
    assert not list((plain_module / "results").rglob("*.parquet"))  # nothing ran, nothing written


def test_a_solver_over_the_time_limit_on_the_smallest_system_is_not_run_on_the_rest(small_board, plain_module,
                                                                                     capsys):
    code = main(["compare", "--solver", "plainsolvers:Sleeper", "--board", str(small_board.folder), "--time-limit",
                 "1", "--quiet", "--no-calibrate"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "exceeded the time limit of 1 s on the smallest pinned system" in err
    assert not list((plain_module / "results").rglob("*.parquet"))  # nothing ran, nothing written


def test_what_is_not_a_solver_is_named(small_board, plain_module, capsys):
    code = main(["compare", "--solver", "plainsolvers:NoSolve", "--board", str(small_board.folder), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "has no 'solve' method" in err and "\n" not in err
