"""The board's controls: null rows on every track, marked by the registry; a bar null-b meets is said so; the pinned
Ising systems whose b is far from x."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markdown_check import tables

from qlsbench.bench import rhs_fidelity
from qlsbench.bench.board import DEFAULT_BOARD, Board
from qlsbench.bench.board.pinning import random_rhs
from qlsbench.bench.ranking import leaderboard, ranking_rows, solver_kinds, track_table, tracks
from qlsbench.cli import main
from qlsbench.data import pinned, to_system
from qlsbench.problems import ising_inspired
from qlsbench.report import render_markdown

REPO = Path(__file__).resolve().parents[1]
CONTROLS = ("null-b", "null-random")


# ---------------------------------------------------------------- the pinned systems whose b is far from x


def test_the_drawn_group_is_far_from_returning_b():
    """On the uniform b, b alone scores above 0.99 from 3 qubits on; on the drawn group below 0.5 everywhere."""
    drawn, ising = pinned("ising-random-b"), pinned("ising").set_index("pinned_name")
    assert len(drawn) == 4
    for _, row in drawn.iterrows():
        system = to_system(row)  # checks the id against the stored A and b
        assert rhs_fidelity(system) < 0.5, row["pinned_name"]
        assert np.linalg.norm(system.A @ system.x_ref - system.b) <= 1e-12  # x_ref solves the drawn b
        # the uniform-b Ising system's matrix of its size and kappa (to the last bits, which follow the BLAS kernel
        # of the machine that pinned each group): only b differs
        uniform = to_system(ising.loc[row["pinned_name"].replace("-randb", "")])
        assert abs(system.A - uniform.A).max() <= 1e-14 and rhs_fidelity(uniform) > 0.9


def test_the_draw_is_seeded_and_the_group_rebuilds_byte_for_byte(tmp_path):
    system = ising_inspired(3, 10.0)
    one, two = random_rhs(system, seed=0), random_rhs(system, seed=0)
    assert one.b.tobytes() == two.b.tobytes() and one.meta["b_draws"] == two.meta["b_draws"]
    assert random_rhs(system, seed=1).b.tobytes() != one.b.tobytes()
    shipped = Board(DEFAULT_BOARD).manifest()
    files, ids = [], []
    for copy in ("a", "b"):
        shutil.copytree(DEFAULT_BOARD, tmp_path / copy, ignore=shutil.ignore_patterns("results.parquet"))
        assert main(["board", "pin", "--board", str(tmp_path / copy), "--group", "ising-random-b", "--quiet"]) == 0
        files.append((tmp_path / copy / "systems" / "ising-random-b.parquet").read_bytes())
        rebuilt = json.loads((tmp_path / copy / "manifest.json").read_text())
        ids.append([e["system_id"] for e in rebuilt["systems"] if e["group"] == "ising-random-b"])
        assert {g: h for g, h in rebuilt["groups"].items() if g != "ising-random-b"} == {
            g: h for g, h in shipped["groups"].items() if g != "ising-random-b"
        }  # the others as they were
    assert files[0] == files[1] and ids[0] == ids[1]  # on one machine: the same bytes
    # Against the shipped group (built on another machine, kernel or thread count, whose reference solutions may
    # differ in their last bits and so in their ids): the same draws of b, the same systems to rounding.
    rebuilt = pd.read_parquet(tmp_path / "a" / "systems" / "ising-random-b.parquet")
    ours = pinned("ising-random-b")
    assert len(rebuilt) == len(ours)
    for (_, mine), (_, theirs) in zip(rebuilt.iterrows(), ours.iterrows()):
        a, b = to_system(mine), to_system(theirs)
        assert a.meta.get("b_draws") == b.meta.get("b_draws")
        np.testing.assert_allclose(a.b, b.b, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.x_ref, b.x_ref, rtol=0, atol=1e-9 * np.abs(b.x_ref).max())


def test_a_draw_that_cannot_go_below_the_bound_is_refused():
    """No b scores below 4 kappa / (1 + kappa)^2 (0.33 at kappa 10): asking for less is refused, not looped on."""
    with pytest.raises(Exception, match="no draw of 50 at 3 qubits scores below 0.3"):
        random_rhs(ising_inspired(3, 10.0), seed=0, below=0.3, max_draws=50)


def test_the_family_page_lists_every_group_as_the_manifest_pins_it():
    """docs/families/pinned.md's table: one line per group, its system count and qubit range the manifest's."""
    systems = pd.DataFrame(Board(DEFAULT_BOARD).manifest()["systems"])
    table = next(t for t in tables((REPO / "docs" / "families" / "pinned.md").read_text()) if t["header"][0] == "group")
    lines = {row[0].strip("`"): row for row in table["rows"]}
    assert set(lines) == set(systems["group"])
    for group, part in systems.groupby("group"):
        assert lines[group][1] == str(len(part)), group
        assert lines[group][2] == f"{part['n_qubits'].min()}–{part['n_qubits'].max()}", group


# ---------------------------------------------------------------- controls on the ranking


def _solve(solver, system, seed, fidelity, residual, name=None, variational=False):
    return {
        "solver": solver,
        "solver_name": name or solver,
        "system_id": system,
        "seed": seed,
        "repeat": seed,
        "status": "converged",
        "fidelity": fidelity,
        "rel_residual": residual,
        "dataset": "d",
        "dataset_hash": "h",
        "cond": 10.0,
        "time_limit": 5.0,
        "family": "f",
        "n_qubits": 3,
        "wall_time": 0.01,
        "rel_error": 1e-12 if residual < 1e-6 else 0.5,
        "iterations": 1,
        "solver_options": "{}",
        "progress_evaluations": [1, 2] if variational else None,
    }


@pytest.fixture
def with_controls() -> pd.DataFrame:
    """lu solving 3 systems; null-b (labelled as a user might) meeting both bars on s0 and the fidelity bar alone
    on s1; null-random meeting none; a solver that calls itself null-b but is registered as lu."""
    rows = [_solve("lu", f"s{i}", 0, 1.0, 1e-12) for i in range(3)]
    rows += [
        _solve("my-null", "s0", 0, 1.0, 1e-12, name="null-b"),
        _solve("my-null", "s1", 0, 0.995, 2e-2, "null-b"),
        _solve("my-null", "s2", 0, 0.3, 0.9, name="null-b"),
    ]
    rows += [_solve("null-random", f"s{i}", seed, 0.1, 0.9, variational=False) for i in range(3) for seed in (0, 1)]
    rows += [_solve("null-b", f"s{i}", 0, 1.0, 1e-12, name="lu") for i in range(3)]
    return pd.DataFrame(rows)


def test_a_controls_kind_comes_from_the_registry_not_its_label(with_controls):
    kinds = solver_kinds(with_controls)
    assert kinds["my-null"] == "control" and kinds["null-random"] == "control"
    assert kinds["null-b"] == "classical" and kinds["lu"] == "classical"


def test_controls_are_rows_of_every_track_after_the_ranked_ones(with_controls):
    for track in tracks():
        table = track_table(with_controls, track)
        kinds = table.set_index("solver")["kind"]
        assert table["solver"].tolist()[-2:] == sorted(["my-null", "null-random"], key=table["solver"].tolist().index)
        assert (kinds[["my-null", "null-random"]] == "control").all()
        assert not table.loc[table["kind"] == "control", "overlaps_above"].any()  # beside the order, not in it
        # an instant control is never the best time others are divided by
        assert table.set_index("solver").loc["lu", "time_sgm_rel"] == pytest.approx(1.0)


def test_a_track_where_null_b_meets_the_bar_says_so(with_controls):
    exact, variational = (track_table(with_controls, t).set_index("solver") for t in tracks())
    assert exact.loc["lu", "null_b"] == "1/3 (2)"
    assert variational.loc["lu", "null_b"] == "1/3 (2)"
    md = render_markdown(with_controls)
    assert (
        "**Control**: null-b (b returned, scaled by least squares) meets the exact track's bar on 1 of 3 "
        "systems (and its fidelity bar alone on 2): on those, success does not tell a solver from not "
        "solving."
    ) in md
    table = tables(md.split("### Exact track", 1)[1])[0]
    shown = {row[0]: dict(zip(table["header"], row)) for row in table["rows"]}
    assert shown["lu"]["null-b meets bar"] == "1/3 (2)"
    assert shown["my-null"]["kind"] == "control"
    # without a null-b row nothing is claimed of it
    alone = with_controls[with_controls["solver"] == "lu"]
    assert track_table(alone, tracks()[0])["null_b"].isna().all() and "**Control**" not in render_markdown(alone)


def test_a_group_where_null_b_meets_only_the_fidelity_bar_says_that():
    rows = [_solve("lu", "s0", 0, 1.0, 1e-12), _solve("null-b", "s0", 0, 0.995, 2e-2)]
    md = render_markdown(pd.DataFrame(rows), by="dataset")
    assert (
        "null-b (b returned, scaled by least squares) meets the fidelity bar (0.99) on 1 of 1 systems and fails "
        "the exact track's bar on its residual"
    ) in md
    group = md.split("### d", 1)[1]
    assert group.lstrip().startswith("**Control (exact track)**")


# ---------------------------------------------------------------- the shipped board


@pytest.fixture(scope="module")
def shipped():
    from qlsbench.report import board_results

    results = board_results(Board(DEFAULT_BOARD))
    return results, ranking_rows(results, tracks(), by="dataset")


def test_the_published_board_has_the_controls_on_every_system_and_seed(shipped):
    results, _ = shipped
    pinned_ids = {e["system_id"] for e in Board(DEFAULT_BOARD).manifest()["systems"]}
    variational_seeds = results[results["solver"].str.startswith(("vqls", "vnls"))]["seed"].nunique()
    for control in CONTROLS:
        rows = results[results["solver"] == control]
        assert set(rows["system_id"]) == pinned_ids, control
    assert results.loc[results["solver"] == "null-random", "seed"].nunique() >= variational_seeds


def test_every_view_of_every_track_shows_the_controls_as_controls(shipped):
    _, rows = shipped
    for (track, group, band), view in rows.groupby(["track", "group", "band"]):
        kinds = view.set_index("solver")["kind"]
        assert (kinds.reindex(list(CONTROLS)) == "control").all(), (track, group, band)
        assert (view["kind"] == "control").tolist() == sorted(view["kind"] == "control"), (track, group, band)


def test_the_committed_page_says_what_null_b_does_on_each_track_and_group(shipped):
    """The page's control sentences and null-b cells are what the shipped rows give."""
    from qlsbench.report import control_sentence

    results, rows = shipped
    md = (REPO / "leaderboard" / "leaderboard.md").read_text(encoding="utf-8")
    for track in tracks():
        view = rows[(rows["track"] == track.name) & (rows["group"] == "all") & (rows["band"] == "all")]
        sentence = control_sentence(view, track)
        assert sentence and sentence in md.split(f"### {track.name.capitalize()} track", 1)[1]
        for group in sorted(set(rows["group"]) - {"all"}):
            part = rows[(rows["track"] == track.name) & (rows["group"] == group) & (rows["band"] == "all")]
            assert control_sentence(part, track, f" ({track.name} track)") in md, (track.name, group)
    table = tables(md.split("### Exact track", 1)[1])[0]
    shown = {row[0]: dict(zip(table["header"], row)) for row in table["rows"]}
    board = leaderboard(results).set_index("solver")
    for solver, row in board.iterrows():
        assert shown[solver]["null-b meets bar"] == row["null_b"], solver
        assert shown[solver]["kind"] == row["kind"], solver
        assert shown[solver]["b fidelity"] == f"{row['b_fidelity']:.3f}", solver
    csv = pd.read_csv(REPO / "leaderboard" / "leaderboard.csv").set_index("solver")
    assert (csv.loc[list(CONTROLS), "kind"] == "control").all()


def test_the_method_pages_summary_is_what_the_published_rows_give(shipped):
    """docs/leaderboard.md's numbers are board_summary's, written by `qlsbench board render`; none typed."""
    from qlsbench.report import SUMMARY_BEGIN, SUMMARY_END, board_summary

    results, _ = shipped
    text = (REPO / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    block = text.split(SUMMARY_BEGIN, 1)[1].split(SUMMARY_END, 1)[0].strip("\n")
    assert block == board_summary(Board(DEFAULT_BOARD), results), "run `qlsbench board render`"
    assert "**Pinned set v3**" in block and "null-b" in block


def test_a_board_run_in_a_fresh_folder_starts_from_the_published_rows(small_board, tmp_path):
    """Adding a solver or a group must not redo the published solves: the fresh folder is seeded from them."""
    from qlsbench.bench import load_results
    from qlsbench.bench.board import run_board

    published = load_results([small_board.results_path])
    files = run_board(small_board, tmp_path / "fresh", progress=False)
    again = load_results(files)
    key = ["solver", "dataset", "system_id", "repeat"]
    merged = published.merge(again, on=key, suffixes=("", "_again"))
    assert len(merged) == len(published) == len(again)
    assert (merged["wall_time"] == merged["wall_time_again"]).all()  # the same solves, not new ones
