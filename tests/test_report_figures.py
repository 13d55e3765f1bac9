"""Report figures and tables: sphere snapshots (fig. 3), kappa over time, truncation curves, the checkpoint table.

The snapshot impulses are checked against the simulation's own step reports
and against statics (a resting sphere carries its weight); the figures and
tables against the files they are drawn from.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from qlsbench.bench import SolverSpec, pauli_study, read_pauli_results, run_solver
from qlsbench.cli import main
from qlsbench.data import load_dataset, to_system
from qlsbench.data._snapshots import SNAPSHOT_META_KEY, read_snapshots
from qlsbench.errors import DatasetError, InputError
from qlsbench.families import build
from qlsbench.physics import Scene, SnapshotRecorder, StepOptions, build_scene, simulate, snapshot_steps
from qlsbench.physics.spheres.scenes import GRAVITY, SphericalContainer
from qlsbench.report import (
    checkpoint_systems,
    checkpoint_table,
    kappa_series,
    plot_kappa_time,
    plot_snapshots,
    plot_truncation_errors,
    read_checkpoint_results,
    truncation_curves,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# A small sedimentation that settles: 8 spheres, 200 steps of 2 ms (0.4 s), contacts with walls and each other.
SCENE = {"n_spheres": 8, "steps": 200, "h": 2e-3, "seed": 3}


@pytest.fixture(scope="module")
def settled(tmp_path_factory):
    """A DEM-C dataset (every 10th step) with snapshots at 5 steps."""
    root = tmp_path_factory.mktemp("report") / "datasets"
    snaps = root.parent / "snapshots" / "sed8.parquet"
    meta = build("dem_c", root / "dem_c" / "sed8", **SCENE, every=10, snapshots=snaps, snapshot_count=5, progress=False)
    return root / "dem_c" / "sed8", snaps, meta


def _loop_impulses(report, n_spheres: int) -> np.ndarray:
    """Per-sphere impulse sums by a plain loop over the report's contacts."""
    total = np.zeros(n_spheres)
    for (i, j), gamma in zip(report.pairs.tolist(), report.normal_impulses):
        for body in (i, j):
            if body >= 0:
                total[body] += abs(gamma)
    return total


# ---------------------------------------------------------------- snapshots


def test_snapshot_steps_are_evenly_spaced_and_include_the_last():
    np.testing.assert_array_equal(snapshot_steps(400, 4), [99, 199, 299, 399])  # ends at 0.25, 0.5, 0.75, 1 of the run
    for steps, count in [(10, 4), (61, 7), (1000, 3), (7, 7)]:
        chosen = snapshot_steps(steps, count)
        gaps = np.diff(np.concatenate([[-1], chosen]))
        assert len(chosen) == count and chosen[-1] == steps - 1
        assert gaps.min() >= 1 and gaps.max() - gaps.min() <= 1, (steps, count, chosen)
    np.testing.assert_array_equal(snapshot_steps(3, 5), [0, 1, 2])  # fewer steps than snapshots: all of them
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InputError, match="snapshot count"):
            snapshot_steps(10, bad)


def test_snapshot_impulses_are_the_step_reports_contact_sums(settled):
    _, snaps, meta = settled
    df, file_meta = read_snapshots(snaps)
    # The same run again, independently of the recorder: the simulation is deterministic.
    scene = build_scene("sedimentation", n_spheres=SCENE["n_spheres"], packing=0.2, seed=SCENE["seed"])
    reports = simulate(scene, SCENE["steps"], StepOptions(h=SCENE["h"]))
    assert (
        sorted(df["step"].unique()) == meta["snapshot_steps"] == file_meta["snapshot_steps"] == [39, 79, 119, 159, 199]
    )
    walls_seen = pairs_seen = False
    for step, frame in df.groupby("step"):
        rep = reports[step]
        frame = frame.sort_values("sphere")
        assert frame["sphere"].tolist() == list(range(SCENE["n_spheres"]))
        np.testing.assert_allclose(frame["impulse"], _loop_impulses(rep, SCENE["n_spheres"]), rtol=1e-12, atol=0)
        wall = rep.pairs[:, 0] < 0
        expected_total = 2 * rep.normal_impulses[~wall].sum() + rep.normal_impulses[wall].sum()
        assert frame["impulse"].sum() == pytest.approx(expected_total, rel=1e-12)
        assert frame["time"].unique() == pytest.approx([(step + 1) * SCENE["h"]], rel=1e-12)
        walls_seen |= bool(wall.any())
        pairs_seen |= bool((~wall).any())
    assert walls_seen and pairs_seen  # both kinds of contact were exercised
    last = df[df["step"] == SCENE["steps"] - 1].sort_values("sphere")
    np.testing.assert_array_equal(last[["x", "y", "z"]].to_numpy(), scene.positions)  # the final state, bit for bit
    np.testing.assert_array_equal(last["radius"], scene.radii)
    assert file_meta["container_radius"] == scene.walls[0].radius and file_meta["h"] == SCENE["h"]


def test_spheres_resting_on_the_container_bottom_carry_their_weight():
    """A vertical stack of two at the bottom of the bowl: the lower sphere feels the wall (2 m g h) and the
    upper sphere (m g h), the upper sphere only the lower one (m g h)."""
    r, rc, h = 0.05, 0.3, 1e-3
    bottom = -(rc - r)
    scene = Scene(
        [[0, 0, bottom], [0, 0, bottom + 2 * r]],
        np.zeros((2, 3)),
        r,
        1000.0,
        walls=(SphericalContainer(np.zeros(3), rc),),
        name="stack",
    )
    mgh = scene.masses[0] * GRAVITY * h
    recorder = SnapshotRecorder(snapshot_steps(50, 5))
    simulate(scene, 50, StepOptions(h=h), observer=recorder)
    assert [rec["step"] for rec in recorder.records] == [9, 19, 29, 39, 49]
    for rec in recorder.records:
        np.testing.assert_allclose(rec["impulse"], [3 * mgh, mgh], rtol=1e-9)
        assert rec["impulse"].sum() == pytest.approx(2 * mgh + 2 * mgh, rel=1e-9)  # 2 x pair + wall
    assert abs(scene.positions[0, 2] - bottom) <= 1e-12  # resting, not sinking


def test_snapshot_files_are_byte_identical_and_leave_the_dataset_unchanged(settled, tmp_path):
    dataset, snaps, _ = settled
    again = tmp_path / "again.parquet"
    build("dem_c", tmp_path / "a", **SCENE, every=10, snapshots=again, snapshot_count=5, progress=False)
    assert again.read_bytes() == snaps.read_bytes()
    assert (tmp_path / "a" / "part-0000.parquet").read_bytes() == (dataset / "part-0000.parquet").read_bytes()
    build("dem_c", tmp_path / "b", **SCENE, every=10, progress=False)  # no snapshots: the same dataset
    assert (tmp_path / "b" / "part-0000.parquet").read_bytes() == (dataset / "part-0000.parquet").read_bytes()
    other = tmp_path / "other.parquet"
    build("dem_c", tmp_path / "c", **{**SCENE, "seed": 4}, every=10, snapshots=other, snapshot_count=5, progress=False)
    assert other.read_bytes() != snaps.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "again.parquet",
        "other.parquet",
    ]  # no temp files
    meta = json.loads(pq.read_schema(snaps).metadata[SNAPSHOT_META_KEY])
    assert not {"steps_per_second", "snapshot_write_seconds"} & set(meta)  # no wall-clock values in the file


def test_simulate_snapshots_and_snapshot_figure_through_the_cli(tmp_path, capsys):
    snaps, png = tmp_path / "snap.parquet", tmp_path / "fig3.png"
    argv = [
        "simulate",
        "--n-spheres",
        "5",
        "--steps",
        "60",
        "--h",
        "0.005",
        "--seed",
        "0",
        "--quiet",
        "--out",
        str(tmp_path / "ds"),
        "--snapshots",
        str(snaps),
        "--snapshot-count",
        "3",
    ]
    assert main(argv) == 0
    assert "[19, 39, 59]" in capsys.readouterr().out
    df, meta = read_snapshots(snaps)
    assert df.groupby("step").size().to_dict() == {19: 5, 39: 5, 59: 5}
    assert df["impulse"].max() > 0  # the spheres have landed by 0.3 s
    assert meta["n_spheres"] == 5 and meta["snapshot_count"] == 3 and meta["container_radius"] > 0
    assert main(["figure", "snapshots", str(snaps), "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG_MAGIC
    assert (
        main(
            [
                "simulate",
                "--steps",
                "10",
                "--quiet",
                "--out",
                str(tmp_path / "x"),
                "--snapshots",
                str(tmp_path / "x.parquet"),
                "--snapshot-count",
                "0",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --snapshot-count" in err and not (tmp_path / "x").exists()


def test_snapshot_figure_refuses_other_files(tmp_path, settled, capsys):
    dataset, _, _ = settled
    assert main(["figure", "snapshots", str(dataset / "part-0000.parquet"), "--out", str(tmp_path / "f.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "part-0000.parquet" in err and "missing column 'time'" in err
    with pytest.raises(InputError, match="no snapshots"):
        plot_snapshots(pd.DataFrame(columns=["step"]), {}, tmp_path / "f.png")
    assert not (tmp_path / "f.png").exists()


def test_spheres_are_drawn_far_to_near():
    """Painter's order for a view from y = -inf: the largest y first, so nearer spheres cover farther ones."""
    from qlsbench.report import pyplot
    from qlsbench.report._physics_figures import _draw_spheres

    frame = pd.DataFrame(
        {
            "sphere": [0, 1, 2, 3],
            "x": [0.0, 0.05, 0.1, 0.0],
            "y": [0.1, -0.2, 0.3, 0.0],
            "z": [0.0, 0.0, 0.0, 0.1],
            "radius": [0.05, 0.04, 0.03, 0.02],
            "impulse": [1.0, 2.0, 3.0, 4.0],
        }
    )
    plt = pyplot()
    fig, ax = plt.subplots()
    _draw_spheres(ax, frame, "coolwarm", None)
    (patches,) = ax.collections
    np.testing.assert_array_equal(patches.get_array(), [3.0, 1.0, 4.0, 2.0])  # y = 0.3, 0.1, 0.0, -0.2
    boxes = [path.get_extents() for path in patches.get_paths()]  # circles in data coordinates (x, z)
    np.testing.assert_allclose([b.width / 2 for b in boxes], [0.03, 0.05, 0.02, 0.04], rtol=1e-6)
    np.testing.assert_allclose([(b.x0 + b.x1) / 2 for b in boxes], [0.1, 0.0, 0.0, 0.05], atol=1e-9)
    np.testing.assert_allclose([(b.y0 + b.y1) / 2 for b in boxes], [0.0, 0.0, 0.1, 0.0], atol=1e-9)
    plt.close(fig)


# ---------------------------------------------------------------- kappa over simulated time


def test_kappa_series_is_the_datasets_cond_at_its_simulated_time(settled, tmp_path):
    dataset, _, _ = settled
    df = load_dataset(dataset)
    series = kappa_series(dataset)
    np.testing.assert_array_equal(series["cond"], df["cond"])
    np.testing.assert_array_equal(series["n_qubits"], df["n_qubits"])
    np.testing.assert_allclose(series["time"], (series["step"] + 1) * SCENE["h"], rtol=1e-12)
    assert (series["step"] % 10 == 0).all()
    out = plot_kappa_time([dataset], tmp_path / "kappa.png")
    assert out.read_bytes()[:8] == PNG_MAGIC


def test_kappa_figure_refuses_files_without_cond_or_time(settled, ising_dataset, tmp_path, capsys):
    dataset, _, _ = settled
    table = pq.read_table(dataset / "part-0000.parquet")
    broken = tmp_path / "no-cond.parquet"
    pq.write_table(table.drop_columns(["cond"]), broken)  # keeps the schema metadata: only 'cond' is wrong
    for path, culprit in [(broken, "'cond'"), (ising_dataset, "'step'")]:
        assert main(["figure", "kappa-time", str(dataset), str(path), "--out", str(tmp_path / "k.png")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and culprit in err
    assert not (tmp_path / "k.png").exists()


# ---------------------------------------------------------------- truncation curves


@pytest.fixture(scope="module")
def pauli_results(settled):
    dataset, _, _ = settled
    out = dataset.parent.parent.parent / "results" / "pauli" / "sed8.parquet"
    pauli_study(dataset, out, tols=(0.0, 1e-6, 1e-3, 1e-2), progress=False)
    return out


def test_truncation_curves_are_the_median_over_systems(pauli_results, tmp_path):
    rows = pd.read_parquet(pauli_results)
    curves = truncation_curves(read_pauli_results([pauli_results]))
    assert set(curves["tol"]) == {0.0, 1e-6, 1e-3, 1e-2}
    for _, c in curves.iterrows():
        sel = rows[
            (rows["ordering"] == "identity")
            & (rows["mode"] == "absolute")
            & (rows["n_qubits"] == c["n_qubits"])
            & (rows["tol"] == c["tol"])
        ]
        assert c["systems"] == len(sel)  # every occurrence of a subsystem in the run counts
        assert c["terms_kept"] == sel["terms_kept"].median()
        assert c["matrix_error"] == pytest.approx(sel["matrix_error"].median(), rel=1e-15, abs=0)
        assert c["solution_error"] == pytest.approx(sel["solution_error"].median(), rel=1e-15, abs=0)
    untruncated = curves[curves["tol"] == 0]
    assert (untruncated["matrix_error"] == 0).all()  # tol 0 drops only exact zeros
    # Looser tolerances keep fewer terms, per qubit count.
    for _, sub in curves.groupby("n_qubits"):
        assert sub.sort_values("tol")["terms_kept"].is_monotonic_decreasing
    assert main(["figure", "truncation", str(pauli_results), "--out", str(tmp_path / "t.png")]) == 0
    assert (tmp_path / "t.png").read_bytes()[:8] == PNG_MAGIC


def test_truncation_figure_refuses_files_without_the_needed_columns(pauli_results, settled, tmp_path, capsys):
    broken = tmp_path / "no-error.parquet"
    pq.write_table(pq.read_table(pauli_results).drop_columns(["matrix_error"]), broken)
    dataset, _, _ = settled
    for path, culprit in [(broken, "'matrix_error'"), (dataset / "part-0000.parquet", "'dataset'")]:
        assert main(["figure", "truncation", str(pauli_results), str(path), "--out", str(tmp_path / "t.png")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and culprit in err
    only_zero = tmp_path / "tol0.parquet"
    table = pq.read_table(pauli_results).to_pandas()
    table[table["tol"] == 0].to_parquet(only_zero)
    with pytest.raises(InputError, match="no tolerance > 0"):
        plot_truncation_errors(read_pauli_results([only_zero]), tmp_path / "t.png")
    assert not (tmp_path / "t.png").exists()


# ---------------------------------------------------------------- checkpoint table


@pytest.fixture(scope="module")
def checkpoint_run(settled):
    """Checkpoints of the settled run below ``<root>/datasets``, solved by dense LU.

    A second results file is the same with one row's message replaced by the
    one VNLS writes when trapped (its own message function, on that system,
    with psi on A's lowest right singular vector): LU is never trapped, and a
    real VNLS run is too slow and too seed-dependent to trap on demand.
    """
    import scipy.linalg as la

    from qlsbench.solvers.vnls import _message, trap_diagnostics

    dataset, _, _ = settled
    root = dataset.parent.parent.parent
    checkpoints = root / "datasets" / "dem_c_checkpoints" / "sed8"
    build("dem_c_checkpoints", checkpoints, dataset=str(dataset), count=3, progress=False)
    results = root / "results" / "lu" / "sed8.parquet"
    run_solver(SolverSpec("lu"), checkpoints, results, progress=False)
    table = pq.read_table(results)
    df = table.to_pandas()
    rows = load_dataset(checkpoints)
    # The row whose solution has the least weight on A's lowest right singular vector v: psi on v is a trap there.
    candidates = []
    for i in range(len(df)):
        system = to_system(rows[rows["system_id"] == df.loc[i, "system_id"]].iloc[0])
        v = la.svd(system.A.toarray())[2][-1]
        diagnostics = trap_diagnostics(system, v, loss=diagnostics_loss(system, v))
        candidates.append((diagnostics["solution_overlap_lowest_singular"], i, system, v, diagnostics))
    _, row, system, v, diagnostics = min(candidates, key=lambda c: c[0])
    df.loc[row, "message"] = _message({"final_loss": diagnostics_loss(system, v), **diagnostics}, 0.5, 1e-2)
    assert "trapped" in df.loc[row, "message"]
    trapped = root / "results" / "vnls-like" / "sed8.parquet"
    trapped.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pandas(df, schema=table.schema, preserve_index=False), trapped)
    return root, checkpoints, results, trapped


def diagnostics_loss(system, psi) -> float:
    """The VNLS loss <psi|H|psi> / <psi|psi> with H = A^T (I - |b><b|) A, b normalised."""
    b = system.b / np.linalg.norm(system.b)
    Apsi = system.A @ psi
    return float((Apsi @ Apsi - (b @ Apsi) ** 2) / (psi @ psi))


def test_checkpoint_table_rows_match_results_and_dataset(checkpoint_run):
    _, checkpoints, _, trapped = checkpoint_run
    results = read_checkpoint_results(trapped)
    systems = checkpoint_systems(checkpoints)
    table = checkpoint_table(results, systems)
    data = load_dataset(checkpoints).set_index("system_id")
    assert len(table) == len(results) == len(data) == 3
    assert table["checkpoint"].tolist() == [1, 2, 3] and table["step"].is_monotonic_increasing
    by_step = results.assign(step=[int(data.loc[s, "step"]) for s in results["system_id"]]).set_index("step")
    for _, row in table.iterrows():
        src = by_step.loc[row["step"]]
        assert row["cond"] == src["cond"] == data.loc[src["system_id"], "cond"]
        assert row["fidelity"] == src["fidelity"] and row["rel_residual"] == src["rel_residual"]
        assert row["n_qubits"] == src["n_qubits"] and row["status"] == src["status"]
        assert row["time"] == pytest.approx((row["step"] + 1) * SCENE["h"], rel=1e-12)
        assert row["trapped"] == ("trapped" in src["message"])
        assert np.isnan(row["final_loss"])  # LU reports no loss
    assert table["trapped"].sum() == 1
    assert (table["fidelity"] > 0.999999).all()  # LU solves them: the table shows the real numbers


def test_checkpoint_table_through_the_cli_finds_the_dataset_and_marks_trapped(checkpoint_run, monkeypatch, capsys):
    root, checkpoints, results, trapped = checkpoint_run
    monkeypatch.chdir(root)  # the results name "dem_c_checkpoints/sed8": found under ./datasets
    assert main(["figure", "checkpoint-table", str(trapped), "--out", "tables/cp.md"]) == 0
    assert main(["figure", "checkpoint-table", str(trapped), "--out", "tables/cp.html"]) == 0
    md = (root / "tables" / "cp.md").read_text().splitlines()
    body = [line for line in md if line.startswith("| ") and not line.startswith("| checkpoint")]
    assert len(body) == 3 and sum(line.endswith("| yes |") for line in body) == 1
    html = (root / "tables" / "cp.html").read_text()
    assert html.count("<tr") == 4 and html.count('class="trapped"') == 1 and "κ" in html
    assert sorted(p.name for p in (root / "tables").iterdir()) == ["cp.html", "cp.md"]  # no temp files left
    monkeypatch.chdir(root / "results")  # no datasets/ here: the error says so and how to fix it
    assert main(["figure", "checkpoint-table", str(results), "--out", "t.md"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dataset" in err
    assert main(["figure", "checkpoint-table", str(results), "--dataset", str(checkpoints), "--out", "t.md"]) == 0


def test_checkpoint_table_refuses_missing_columns_and_foreign_systems(checkpoint_run, tmp_path, capsys):
    _, checkpoints, results, _ = checkpoint_run
    broken = tmp_path / "no-resources.parquet"
    pq.write_table(pq.read_table(results).drop_columns(["resources"]), broken)
    assert (
        main(
            ["figure", "checkpoint-table", str(broken), "--dataset", str(checkpoints), "--out", str(tmp_path / "t.md")]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(broken) in err and "'resources'" in err
    # The results against another simulation's dataset: none of their systems is in it.
    other = tmp_path / "other"
    build("dem_c", other, n_spheres=5, steps=60, h=5e-3, every=10, seed=1, progress=False)
    assert (
        main(["figure", "checkpoint-table", str(results), "--dataset", str(other), "--out", str(tmp_path / "t.md")])
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(results) in err and "not in the dataset" in err
    with pytest.raises(DatasetError, match="no such file or folder"):
        checkpoint_systems(tmp_path / "missing")
    assert not (tmp_path / "t.md").exists()


def test_truncation_figure_of_systems_where_nothing_is_ever_dropped(tmp_path):
    """An identity system has one Pauli term: every error is exactly 0, which a log axis cannot show."""
    import scipy.sparse as sp

    from qlsbench.data import write_systems
    from qlsbench.problems import LinearSystem

    data = write_systems([LinearSystem(sp.identity(2, format="csr"), np.array([1.0, 2.0]))], tmp_path / "id.parquet")
    study = pauli_study(data, tmp_path / "p.parquet", tols=(0.0, 1e-6, 1e-2), progress=False)
    assert (study["matrix_error"].fillna(0) == 0).all()
    out = plot_truncation_errors(read_pauli_results([tmp_path / "p.parquet"]), tmp_path / "t.png")
    assert out.read_bytes().startswith(PNG_MAGIC)
