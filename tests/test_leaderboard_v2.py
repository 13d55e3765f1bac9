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

from qlsbench.bench import SolverSpec, load_results, run_solver, success_curve
from qlsbench.bench.ranking import leaderboard, track_table, tracks
from qlsbench.cli import main
from qlsbench.data import write_systems
from qlsbench.errors import InputError
from qlsbench.problems import ising_inspired
from qlsbench.report import FIGURES, display_table, profile, write_page

REPO = Path(__file__).resolve().parents[1]
#: The committed board page (``qlsbench board render``), checked in the browser like the test page.
BOARD_PAGE = REPO / "leaderboard" / "index.html"


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
    run_solver(
        SolverSpec("vqls-local", {"backend": "exact", "optimizer": "lbfgsb", "layers": 2, "maxiter": 100}, "vqls"),
        two,
        out / "vqls.parquet",
        repeats=2,
        progress=False,
    )
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
    systems = pd.DataFrame(
        {
            "solver": ["a", "a", "b", "b"],
            "system_key": ["s1", "s2", "s1", "s2"],
            "time_ms": [1.0, 4.0, 2.0, 2.0],
            "success": [1.0, 1.0, 1.0, 0.0],
        }
    )
    prof = profile(systems, np.array([1.0, 2.0, 4.0])).set_index(["solver", "tau"])["share"]
    assert prof["a"].tolist() == [1.0, 1.0, 1.0]  # fastest on s1, the only solver of s2
    assert prof["b"].tolist() == [0.0, 0.5, 0.5]  # 2x on s1, never on s2 (unsuccessful)


@pytest.mark.parametrize("name", ["performance-profile", "success-qubits", "fidelity-kappa", "budget-curves"])
def test_the_plots_draw_from_results_files(results_dir, tmp_path, name):
    out = FIGURES[name]([str(results_dir)], tmp_path / "f.png")
    assert out.stat().st_size > 10_000  # a drawn figure, not an empty canvas
    with pytest.raises(InputError, match="writes .png"):
        FIGURES[name]([str(results_dir)], tmp_path / "f.svg")


def test_every_solver_of_a_board_of_thirty_has_its_own_colour_and_marker():
    from qlsbench.report import solver_styles

    styles = solver_styles([f"solver-{i}" for i in range(30)])
    assert len({s.color for s in styles.values()}) == 30
    many = solver_styles([f"s{i}" for i in range(200)])
    assert len({(s.color, s.marker) for s in many.values()}) == 200
    # a solver keeps its style whichever order the labels come in
    assert solver_styles(["b", "a", "c"]) == solver_styles(["c", "b", "a", "a"])


def test_every_built_in_solver_links_to_its_section_of_the_docs_and_its_paper(tmp_path):
    from qlsbench.report import SOLVER_DOCS, github_anchor, solver_links
    from qlsbench.solvers.registry import BUILTINS, CONTROLS

    headings = {github_anchor(line[3:]) for line in SOLVER_DOCS.read_text().splitlines() if line.startswith("## ")}
    links = solver_links(BUILTINS, REPO / "leaderboard")
    for name, link in links.items():
        path, _, anchor = link.docs.partition("#")
        assert path == "../docs/solvers.md" and anchor in headings, (name, link.docs)
        # the oracle and the null solvers are the benchmark's own yardsticks, and external carries another
        # project's solver (its paper is that project's): no paper to link
        assert name in ("oracle", "external", *CONTROLS) or link.paper[1].startswith("https://"), name
    assert github_anchor("VQLS (`vqls-global`, `vqls-local`)") == "vqls-vqls-global-vqls-local"
    assert solver_links(["mymodule:Mine"], tmp_path)["mymodule:Mine"].docs is None


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


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module's page tests (each opens its own tab)."""
    sync = _browser()
    args = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    with sync.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield chromium
        chromium.close()


def _open(browser, path: Path, errors: list):
    """``path`` in a new 1400 x 900 tab, offline (any request to the network fails it), console errors collected."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route(
        "**/*",
        lambda route: route.abort() if not route.request.url.startswith(("file:", "data:")) else route.continue_(),
    )
    page.goto(path.as_uri())
    return page


VISIBLE = ".track:not([hidden]) tbody tr:not([hidden])"


def test_the_web_page_sorts_filters_and_renders_its_plots(page_file, browser):
    errors = []
    page = _open(browser, page_file, errors)
    if True:
        visible = VISIBLE
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

        # every plot is drawn: a series per solver in view (the budget curves: the variational one, two seeds)
        series = page.evaluate(
            "Object.fromEntries(Array.from(document.querySelectorAll('.plots svg')).map("
            "s => [s.id, s.querySelectorAll('.series').length]))"
        )
        assert series == {"plot-profile": 4, "plot-qubits": 4, "plot-fidelity": 0, "plot-budget": 2}, series
        assert page.locator("#plot-fidelity .marker").count() > 0  # a scatter plot: markers, no lines
        page.close()
    assert errors == []


def test_the_drill_down_opens_from_the_ranking_and_lists_a_failed_system(page_file, browser, results):
    """cg declined the 4-qubit system (max_qubits 3): its drill-down lists it, unsolved, with its status."""
    errors = []
    page = _open(browser, page_file, errors)
    declined = results[(results["solver"] == "cg") & (results["status"] == "skipped")]
    assert len(declined) == 1
    assert not page.locator("details#drill-cg").evaluate("d => d.open")
    page.locator(f"{VISIBLE} a.drill-link", has_text="cg").click()
    drill = page.locator("details#drill-cg")
    assert drill.evaluate("d => d.open") and drill.is_visible()
    rows = drill.locator("tbody tr")
    cells = [dict(zip(drill.locator("th").all_inner_texts(), r.locator("td").all_inner_texts())) for r in rows.all()]
    failed = [c for c in cells if c["outcomes"] == "skipped ×1"]
    assert len(failed) == 1 and failed[0]["system"] == declined["system_id"].iloc[0]
    assert failed[0]["exact bar"] == "✗" and failed[0]["qubits"] == "4"
    assert failed[0]["message"] not in ("", "—")  # why it was declined
    assert sum(c["exact bar"] == "✓" for c in cells) == 2
    assert drill.locator("tbody tr.unsolved").count() == 1
    page.check("#f-unsolved")  # only the systems it did not solve: the declined one
    assert drill.locator("tbody tr:not([hidden])").count() == 1
    page.close()
    assert errors == []


def test_a_download_link_resolves_to_a_file_that_loads(page_file, browser, results):
    from urllib.parse import unquote, urlparse

    errors = []
    page = _open(browser, page_file, errors)
    hrefs = page.evaluate("Array.from(document.querySelectorAll('.downloads a')).map(a => a.href)")
    files = {Path(unquote(urlparse(h).path)).name: Path(unquote(urlparse(h).path)) for h in hrefs}
    assert set(files) == {"rows.csv", "rows.parquet", "systems.csv", "systems.parquet"}
    rows = pd.read_parquet(files["rows.parquet"])
    assert len(rows) == len(results) and "x" not in rows and "history" not in rows
    assert rows["fidelity"].tolist() == pytest.approx(results["fidelity"].tolist(), nan_ok=True)
    flat = pd.read_csv(files["rows.csv"])
    assert flat["solver"].tolist() == results["solver"].tolist() and "progress_fidelity" not in flat
    systems = pd.read_csv(files["systems.csv"])
    assert set(zip(systems["dataset"], systems["system_id"])) == set(zip(results["dataset"], results["system_id"]))
    page.close()
    assert errors == []


def _share_at(budgets: list[float], shares: list[float], budget: float) -> float:
    """A step curve's value at ``budget``: the share at the last budget at or before it (0 before the first)."""
    before = [s for b, s in zip(budgets, shares) if b <= budget]
    return before[-1] if before else 0.0


def test_the_plots_follow_the_filters_and_draw_the_rankings_numbers(page_file, browser, results):
    """A filter change redraws the plots, and what they draw is what qlsbench computes for that view."""
    from qlsbench.bench.ranking import per_system

    errors = []
    page = _open(browser, page_file, errors)
    before = page.inner_html("#plot-profile")
    page.select_option("#f-group", "ising/kappa10")
    assert page.inner_html("#plot-profile") != before
    assert page.locator("#plot-profile .series").count() == 2  # lu and cg ran that dataset
    assert "ising/kappa10" in page.inner_text("#plot-view")

    exact, variational = tracks()
    taus = [1.0, 1.5, 3.0, 10.0, 1e3, 1e6]
    for group, rows in (("all", results), ("ising/kappa10", results[results["dataset"] == "ising/kappa10"])):
        systems = per_system(rows, exact.tol, by_dataset=group != "all")
        expected = profile(systems, np.array(taus)).set_index(["solver", "tau"])["share"]
        drawn = page.evaluate(
            "([group, taus]) => { const P = window.qlsbenchPlots; const names = JSON.parse("
            "document.getElementById('plot-data').textContent).solvers; return Object.fromEntries("
            "P.profileSeries({track: 'exact', group: group, band: 'all'}).map(s => [names[s.solver],"
            " taus.map(t => P.shareWithin(s, t))])); }",
            [group, taus],
        )
        assert set(drawn) == set(systems["solver"])
        for solver, shares in drawn.items():
            assert shares == pytest.approx(expected[solver].tolist()), (group, solver)

    # success against budget, best and median seed, at every budget qlsbench evaluates
    for group, rows in (("all", results), ("ising/two", results[results["dataset"] == "ising/two"])):
        curve = success_curve(rows, variational.tol)
        drawn = page.evaluate(
            "(group) => window.qlsbenchPlots.budgetSeries({track: 'variational', group: group, band: 'all'})", group
        )
        assert len(drawn) == 1 and drawn[0]["systems"] == 2 and drawn[0]["seeds"] == 2
        for row in curve.itertuples():
            assert _share_at(drawn[0]["budgets"], drawn[0]["best"], row.evaluations) == pytest.approx(row.best)
            assert _share_at(drawn[0]["budgets"], drawn[0]["median"], row.evaluations) == pytest.approx(row.median)

    # success against qubits on the variational track: lu solves all, cg declines 4 qubits
    qubits = page.evaluate(
        "() => { const names = JSON.parse(document.getElementById('plot-data').textContent)"
        ".solvers; return Object.fromEntries(window.qlsbenchPlots.qubitSeries({track: "
        "'variational', group: 'all', band: 'all'}).map(s => [names[s.solver], s.points])); }"
    )
    assert qubits["lu"] == [[2, 1], [3, 1], [4, 1]] and qubits["cg"] == [[2, 1], [3, 1], [4, 0]]
    page.close()
    assert errors == []


@pytest.mark.parametrize("which", ["test page", "committed board page"])
def test_no_horizontal_overflow_at_1400_px(page_file, browser, which):
    """Neither the page nor any table scrolls sideways in a 1400-px window, on either track, drill-downs open."""
    errors = []
    page = _open(browser, page_file if which == "test page" else BOARD_PAGE, errors)
    page.evaluate("document.querySelectorAll('details.drill').forEach(d => { d.open = true; })")
    for track in ("exact", "variational"):
        page.select_option("#f-track", track)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400
        wide = page.evaluate(
            "Array.from(document.querySelectorAll('.scroll')).filter(d => d.offsetParent !== null "
            "&& d.scrollWidth > d.clientWidth + 1).map(d => d.closest('details, div.track, body')"
            ".id || d.previousElementSibling?.textContent?.slice(0, 60))"
        )
        assert wide == [], (track, wide)
    page.close()
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
    argv = [
        "compare",
        "--solver",
        "plainsolvers:Plain",
        "--option",
        f"log={str(log)!r}",
        "--board",
        str(small_board.folder),
        "--time-limit",
        "30",
        "--quiet",
    ]
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

    # In a clone's top folder the default pages are the published board's, shipped: they stay as they are, and
    # so does the method page's summary; the self-submission's pages go to results/leaderboard beside them.
    from qlsbench.report import SUMMARY_BEGIN, SUMMARY_END

    clone = plain_module / "clone"
    (clone / "docs").mkdir(parents=True)
    (clone / "leaderboard").mkdir()
    (clone / "docs" / "leaderboard.md").write_text(f"# method\n{SUMMARY_BEGIN}\nshipped\n{SUMMARY_END}\n")
    (clone / "leaderboard" / "index.html").write_text("the published board")
    shipped = {p: p.read_bytes() for p in clone.rglob("*") if p.is_file()}
    add = ["board", "add", str(submission), "--board", str(small_board.folder), "--pages", str(clone / "leaderboard")]
    assert main([*add, "--submissions", str(clone / "submissions")]) == 0
    assert "holds the published board, shipped with the clone: left as it is" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in shipped} == shipped
    assert f"{label} (self-submitted)" in (clone / "results" / "leaderboard" / "index.html").read_text()

    # A later compare ranks against the published board only, unless told to count the local submissions too.
    other = [
        "compare",
        "--solver",
        "cg",
        "--board",
        str(small_board.folder),
        "--time-limit",
        "30",
        "--quiet",
        "--no-calibrate",
    ]
    assert main(other) == 0
    published = capsys.readouterr().out
    assert "(self-submitted)" not in published and "rank" in published
    assert main([*other, "--with-local", "submissions"]) == 0
    assert f"{label} (self-submitted)" in capsys.readouterr().out

    # The upstream check: a sample of the submission re-run here agrees; a doctored one does not.
    assert (
        main(["board", "verify", str(submission), "--board", str(small_board.folder), "--sample", "3", "--quiet"]) == 0
    )
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
    argv = [
        "compare",
        "--solver",
        "plainsolvers:Jacobi",
        "--board",
        str(small_board.folder),
        "--time-limit",
        "30",
        "--quiet",
        "--no-calibrate",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "my-jacobi: rank" in out  # its own name (no options given), not plainsolvers:Jacobi
    rows = pd.read_parquet(plain_module / "results" / "compare" / "my-jacobi" / "submission.parquet")
    assert len(rows) == 5 and (rows["status"] != "converged").any()  # some systems failed, all are ranked


@pytest.mark.parametrize(
    "option, culprit",
    [
        ("rtol=abc", "option 'rtol' must be float, got str 'abc'"),  # a type its default gives: refused when built
        ("log='/no/such/folder/x.log'", "raised FileNotFoundError on the smallest pinned system"),  # the probe solve
    ],
)
def test_a_bad_option_value_is_refused_before_the_run(small_board, plain_module, capsys, option, culprit):
    code = main(
        [
            "compare",
            "--solver",
            "plainsolvers:Plain",
            "--option",
            option,
            "--board",
            str(small_board.folder),
            "--time-limit",
            "30",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and culprit in err, err
    assert not list((plain_module / "results").rglob("*.parquet"))  # nothing ran, nothing written


def test_a_solver_over_the_time_limit_on_the_smallest_system_is_not_run_on_the_rest(small_board, plain_module, capsys):
    code = main(
        [
            "compare",
            "--solver",
            "plainsolvers:Sleeper",
            "--board",
            str(small_board.folder),
            "--time-limit",
            "1",
            "--quiet",
            "--no-calibrate",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "exceeded the time limit of 1 s on the smallest pinned system" in err
    assert not list((plain_module / "results").rglob("*.parquet"))  # nothing ran, nothing written


def test_what_is_not_a_solver_is_named(small_board, plain_module, capsys):
    code = main(["compare", "--solver", "plainsolvers:NoSolve", "--board", str(small_board.folder), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "has no 'solve' method" in err and "\n" not in err


# ---------------------------------------------------------------- the committed board page against its results


@pytest.fixture(scope="module")
def board_rows():
    """The shipped board's rows (with any submissions), as the pages rank them."""
    from qlsbench.bench.board import DEFAULT_BOARD, Board
    from qlsbench.report import board_results

    return board_results(Board(DEFAULT_BOARD))


def test_the_committed_ranking_shows_measured_times_and_time_limits(board_rows):
    """Beside the charged time, each row's measured time and its limit, as the results give them."""
    from markdown_check import tables

    md = (REPO / "leaderboard" / "leaderboard.md").read_text(encoding="utf-8")
    table = tables(md.split("### Exact track", 1)[1])[0]
    shown = {row[0]: dict(zip(table["header"], row)) for row in table["rows"]}
    board = leaderboard(board_rows).set_index("solver")
    assert set(shown) == set(board.index)
    for solver, row in board.iterrows():
        assert shown[solver]["measured time (ms)"] == f"{row['measured_time_ms']:.3g}", solver
        assert shown[solver]["charged time (ms)"] == f"{row['median_time_ms']:.3g}", solver
        assert shown[solver]["time limit (s)"] == row["time_limit_s"], solver
    # the VNLS rows ran under 1200 s, and their measured time is seconds, not the limit
    vnls = board.loc["vnls-crbm-exact"]
    assert vnls["time_limit_s"] == "1200" and vnls["measured_time_ms"] < 0.1 * vnls["median_time_ms"]


def test_the_committed_downloads_are_the_boards_rows(board_rows):
    rows = pd.read_parquet(REPO / "leaderboard" / "data" / "rows.parquet")
    assert len(rows) == len(board_rows)
    for column in ("solver", "system_id", "repeat", "status"):
        assert rows[column].tolist() == board_rows[column].tolist(), column
    assert rows["wall_time"].to_numpy() == pytest.approx(board_rows["wall_time"].to_numpy())
    systems = pd.read_csv(REPO / "leaderboard" / "data" / "systems.csv")
    assert set(systems["system_id"]) == set(board_rows["system_id"]) and "name" in systems
