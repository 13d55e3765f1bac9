"""Success rates with their Wilson interval: the formula, the ranking's overlap marker, and the shipped page."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_check import tables

from qlsbench.bench.ranking import (
    leaderboard,
    overlaps_above,
    rank_systems,
    track_table,
    tracks,
    wilson_interval,
)
from qlsbench.errors import InputError
from qlsbench.report import OVERLAP_NOTE, render_markdown

REPO = Path(__file__).resolve().parents[1]
Z = 1.96


def _closed_form(k: float, n: float) -> tuple[float, float]:
    """Wilson's bounds written the other usual way: (2k + z² ∓ z sqrt(z² + 4k(n-k)/n)) / (2(n + z²))."""
    root = Z * np.sqrt(Z * Z + 4 * k * (n - k) / n)
    return (2 * k + Z * Z - root) / (2 * (n + Z * Z)), (2 * k + Z * Z + root) / (2 * (n + Z * Z))


# ---------------------------------------------------------------- the interval


#: The two-sided 95 % quantile in full, as R and published tables use it; the board rounds it to 1.96.
Z_EXACT = 1.959963984540054


@pytest.mark.parametrize(
    "k, n, low, high",
    [
        (0, 10, 0.0, 0.2775328),  # z² / (n + z²): the normal approximation would give [0, 0]
        (10, 10, 0.7224672, 1.0),  # n / (n + z²)
        (5, 10, 0.2365931, 0.7634069),  # R: binom::binom.confint(5, 10, methods = "wilson")
        (1, 10, 0.0178762, 0.4041500),
    ],
)
def test_published_values(k, n, low, high):
    assert wilson_interval(k, n, z=Z_EXACT) == pytest.approx((low, high), abs=1e-7)


@pytest.mark.parametrize("k, n", [(0, 10), (10, 10), (5, 10), (1, 10), (17, 42), (20.5, 42)])
def test_the_default_is_the_closed_form_at_z_1_96(k, n):
    got = wilson_interval(k, n)
    assert got == pytest.approx(_closed_form(k, n), abs=1e-12)
    assert all(isinstance(v, float) for v in got)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(Z * Z / (10 + Z * Z), abs=1e-15))
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + Z * Z), abs=1e-15), 1.0)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.floats(0, n), st.just(n))))
def test_the_interval_holds_the_rate_within_zero_and_one(case):
    k, n = case  # fractional successes: a system solved by some of its seeds adds that share
    low, high = wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
    assert (low, high) == pytest.approx(_closed_form(k, n), abs=1e-9)


@given(st.integers(1, 200), st.integers(0, 200), st.integers(2, 10))
def test_more_trials_at_the_same_rate_narrow_it(n, k, factor):
    k = min(k, n)
    low, high = wilson_interval(k, n)
    low_more, high_more = wilson_interval(k * factor, n * factor)
    assert high_more - low_more < high - low


def test_arrays_zero_trials_and_bad_counts():
    low, high = wilson_interval(np.array([0, 5, 0]), np.array([10, 10, 0]))
    assert low[:2] == pytest.approx([0.0, _closed_form(5, 10)[0]], abs=1e-12) and np.isnan(low[2]) and np.isnan(high[2])
    with pytest.raises(InputError, match="successes must lie in"):
        wilson_interval(11, 10)
    with pytest.raises(InputError, match="successes must lie in"):
        wilson_interval(-1, 10)


def test_overlaps_compare_each_row_with_the_one_above():
    flags = overlaps_above([0.9, 0.8, 0.3, 0.25], [1.0, 0.95, 0.5, 0.35])
    assert flags.tolist() == [False, True, False, True]
    assert overlaps_above([], []).tolist() == []


# ---------------------------------------------------------------- the ranking


def _results(rows) -> pd.DataFrame:
    base = {
        "dataset": "d",
        "dataset_hash": "h",
        "cond": 10.0,
        "time_limit": 5.0,
        "family": "f",
        "n_qubits": 3,
        "wall_time": 0.01,
        "rel_error": 1e-12,
        "iterations": 1,
        "solver_options": "{}",
    }
    return pd.DataFrame([{**base, "solver_name": r["solver"], **r} for r in rows])


def _solve(solver, system, seed, ok, variational=False):
    return {
        "solver": solver,
        "system_id": system,
        "seed": seed,
        "repeat": seed,
        "status": "converged",
        "fidelity": 1.0 if ok else 0.5,
        "rel_residual": 1e-12 if ok else 0.5,
        "progress_evaluations": [1, 2] if variational else None,
    }


@pytest.fixture
def two_solvers() -> pd.DataFrame:
    """A classical solver solving its 4 systems; a variational one solving s0 (both seeds), s1 (one of two)."""
    solved = {("s0", 0), ("s0", 1), ("s1", 0)}
    rows = [_solve("classical", f"s{i}", seed, True) for i in range(4) for seed in (0, 1)]
    rows += [_solve("vqls", f"s{i}", seed, (f"s{i}", seed) in solved, True) for i in range(4) for seed in (0, 1)]
    return _results(rows)


def test_the_rate_counts_systems_with_a_share_per_system(two_solvers):
    exact = track_table(two_solvers, tracks()[0]).set_index("solver")
    assert exact.loc["vqls", "success_rate"] == 0.375  # (1 + 1/2 + 0 + 0) / 4 systems
    assert (exact.loc["vqls", "success_rate_ci_low"], exact.loc["vqls", "success_rate_ci_high"]) == pytest.approx(
        _closed_form(1.5, 4), abs=1e-12
    )  # 4 trials (systems), not 8 solves
    assert exact.loc["classical", "success_rate_ci_low"] == pytest.approx(4 / (4 + Z * Z))
    # 0.375 [0.10, 0.78] meets 1.000 [0.51, 1.00]: four systems do not separate them
    assert exact["overlaps_above"].tolist() == [False, True]
    assert exact.loc["vqls", "seeds"] == "2" and pd.isna(exact.loc["classical", "seeds"])


def test_enough_systems_separate_two_rows():
    systems = pd.DataFrame(
        {
            "solver": ["a"] * 40 + ["b"] * 40,
            "system_key": [f"s{i}" for i in range(40)] * 2,
            "success": [1.0] * 40 + [1.0] * 10 + [0.0] * 30,
            "time_ms": 1.0,
            "error": 1e-9,
            "fidelity": 1.0,
            "solves": 1,
            "skipped": 0,
            "failed": 0,
            "seeds": 1,
        }
    )
    table = rank_systems(systems, tracks()[0].tol, 40)
    assert table["solver"].tolist() == ["a", "b"] and table["overlaps_above"].tolist() == [False, False]
    assert table.loc[1, "success_rate_ci_high"] < table.loc[0, "success_rate_ci_low"]


def test_the_csv_has_both_tracks_intervals(two_solvers):
    board = leaderboard(two_solvers).set_index("solver")
    for rate in ("success_rate", "success_rate_low"):
        assert (board[f"{rate}_ci_low"] <= board[rate]).all() and (board[rate] <= board[f"{rate}_ci_high"]).all()
    assert (
        board.loc["vqls", "success_rate_low_ci_low"],
        board.loc["vqls", "success_rate_low_ci_high"],
    ) == pytest.approx(_closed_form(1.5, 4), abs=1e-12)


def test_the_page_prints_every_rate_with_its_interval(two_solvers):
    md = render_markdown(two_solvers)
    vqls = "0.375 [{:.3f}, {:.3f}]".format(*_closed_form(1.5, 4))
    assert md.count(vqls) == 2 and md.count(OVERLAP_NOTE) == 2  # both tracks' rankings
    ranking = [t for t in tables(md) if "≈" in t["header"]]
    assert len(ranking) == 2 and "n seeds" in ranking[1]["header"]
    # the band and per-dataset tables: 2 decimals, exact / variational
    assert "0.38 [{:.2f}, {:.2f}]".format(*_closed_form(1.5, 4)) in md


# ---------------------------------------------------------------- the shipped page against the shipped results

_NUMBERS = re.compile(r"^(\d\.\d+) \[(\d\.\d+), (\d\.\d+)\]$")


def _disagreements(
    rows: dict[str, list[list[str]]], header: dict[str, list[str]], expected: dict[str, pd.DataFrame]
) -> list[str]:
    """Where a page's ranking (per track: its rows of cells under ``header``) differs from the results' ranking:
    order, each rate and its interval (to the page's 3 decimals), the ≈ marker and the seeds."""
    out = []
    for track, want in expected.items():
        cols = header[track]
        got = rows[track]
        if [r[0] for r in got] != want["solver"].tolist():
            out.append(f"{track}: rows {[r[0] for r in got]} not in the results' order {want['solver'].tolist()}")
            continue
        for cells, (_, row) in zip(got, want.iterrows()):
            cell = dict(zip(cols, cells))
            where = f"{track} {row['solver']}: page"
            match = _NUMBERS.match(cell["success"])
            numbers = [float(v) for v in match.groups()] if match else []
            truth = [row["success_rate"], row["success_rate_ci_low"], row["success_rate_ci_high"]]
            if not match or not np.allclose(numbers, truth, atol=5.1e-4, rtol=0):  # printed to 3 decimals
                out.append(f"{where} {cell['success']!r}, results {truth}")
            if (cell["≈"] == "≈") != bool(row["overlaps_above"]):
                out.append(f"{where} ≈ {cell['≈']!r}, results {row['overlaps_above']}")
            seeds = row["seeds"] if isinstance(row["seeds"], str) else "—"  # variational rows only
            if "n seeds" in cell and cell["n seeds"] != seeds:
                out.append(f"{where} n {cell['n seeds']!r}, results {seeds}")
    return out


def _markdown_ranking(md: str) -> tuple[dict, dict]:
    """Each track's ranking table of a leaderboard.md: its rows and its header."""
    rows, header = {}, {}
    for track in ("exact", "variational"):
        section = md.split(f"### {track.capitalize()} track", 1)[1]
        table = tables(section)[0]
        rows[track], header[track] = table["rows"], table["header"]
    return rows, header


def _html_ranking(page: str) -> tuple[dict, dict]:
    """Each track's rows of an index.html ranking over all systems (group and band ``all``), and its header."""
    rows, header = {}, {}
    for track in ("exact", "variational"):
        div = page.split(f'<div class="track" data-track="{track}">', 1)[1].split("</table>", 1)[0]
        header[track] = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", div)]
        trs = re.findall(r"<tr data-group=\"all\" data-band=\"all\">(.*?)</tr>", div)
        rows[track] = [
            [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)] for tr in trs
        ]  # a cell's text: the solver's name is a link to its per-system results
    return rows, header


@pytest.fixture(scope="module")
def shipped():
    """The shipped board's results (with any submissions) and the rankings they give."""
    from qlsbench.bench.board import DEFAULT_BOARD, Board
    from qlsbench.report import board_results

    results = board_results(Board(DEFAULT_BOARD))
    return results, {t.name: track_table(results, t) for t in tracks()}


def test_the_shipped_pages_intervals_are_the_results(shipped):
    _, expected = shipped
    md = (REPO / "leaderboard" / "leaderboard.md").read_text()
    assert _disagreements(*_markdown_ranking(md), expected) == []
    assert _disagreements(*_html_ranking((REPO / "leaderboard" / "index.html").read_text()), expected) == []
    assert md.count(OVERLAP_NOTE) == 2


def test_the_shipped_csv_intervals_are_the_results(shipped):
    results, _ = shipped
    csv = pd.read_csv(REPO / "leaderboard" / "leaderboard.csv")
    board = leaderboard(results)
    assert csv["solver"].tolist() == board["solver"].tolist()
    for column in (
        "success_rate",
        "success_rate_ci_low",
        "success_rate_ci_high",
        "success_rate_low",
        "success_rate_low_ci_low",
        "success_rate_low_ci_high",
    ):
        assert csv[column].to_numpy() == pytest.approx(board[column].to_numpy(), rel=1e-12, abs=1e-15), column
    assert csv["overlaps_above"].tolist() == board["overlaps_above"].tolist()


def test_a_page_that_disagrees_with_the_results_is_caught(shipped):
    """The check above is not vacuous: one interval bound off by 0.001, or a marker dropped, is reported."""
    _, expected = shipped
    rows, header = _markdown_ranking((REPO / "leaderboard" / "leaderboard.md").read_text())
    exact = header["exact"]
    wrong = {t: [list(r) for r in v] for t, v in rows.items()}
    wrong["exact"][2][exact.index("success")] = re.sub(
        r"\[(\d\.\d+)", lambda m: f"[{float(m[1]) + 0.001:.3f}", wrong["exact"][2][exact.index("success")]
    )
    marked = next(i for i, r in enumerate(wrong["variational"]) if r[header["variational"].index("≈")] == "≈")
    wrong["variational"][marked][header["variational"].index("≈")] = ""
    found = _disagreements(wrong, header, expected)
    assert len(found) == 2 and found[0].startswith(f"exact {expected['exact']['solver'][2]}:")
