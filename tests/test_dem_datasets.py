"""DEM-C Newton subsystems as benchmark datasets: invariants, reproducibility, the kappa cap, the CLI."""

from __future__ import annotations

import numpy as np
import pytest

from qlsbench.cli import main
from qlsbench.data import dataset_metadata, iter_systems, load_dataset
from qlsbench.families import build


@pytest.fixture(scope="module")
def frictionless(tmp_path_factory):
    out = tmp_path_factory.mktemp("dem") / "sed-mu0"
    meta = build("dem_c", out, n_spheres=12, mu=0.0, steps=150, every=5, seed=1, progress=False)
    return out, meta


def test_exported_rows_are_padded_normalised_and_solved(frictionless):
    out, meta = frictionless
    systems = list(iter_systems(out))
    assert len(systems) == meta["exported"] > 5
    for s in systems:
        n, dim = s.meta["n_orig"], s.dim
        assert dim & (dim - 1) == 0 and dim >= 2 and n <= dim
        A = s.A.toarray()
        np.testing.assert_array_equal(A[n:, n:], np.eye(dim - n))  # padded diagonal exactly 1
        assert not A[n:, :n].any() and not A[:n, n:].any() and not s.b[n:].any()
        assert np.linalg.norm(A, 2) == pytest.approx(1.0, abs=1e-10)
        assert np.linalg.norm(s.b) == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(A @ s.x_ref, s.b, atol=1e-9 * s.meta["cond"])
        assert s.meta["cond"] == pytest.approx(np.linalg.cond(A), rel=1e-6)
        assert s.meta["family"] == "dem_c" and s.meta["mu"] == 0.0 and s.meta["symmetric"] is True
        for key in ("step", "newton_iter", "contacts", "active_size", "h", "s"):
            assert key in s.meta
        assert s.meta["active_size"] == n and s.meta["step"] % 5 == 0


def test_same_seed_gives_byte_identical_datasets(frictionless, tmp_path):
    out, _ = frictionless
    again = tmp_path / "again"
    build("dem_c", again, n_spheres=12, mu=0.0, steps=150, every=5, seed=1, progress=False)
    assert (again / "part-0000.parquet").read_bytes() == (out / "part-0000.parquet").read_bytes()
    other = tmp_path / "other"
    build("dem_c", other, n_spheres=12, mu=0.0, steps=150, every=5, seed=2, progress=False)
    assert (other / "part-0000.parquet").read_bytes() != (out / "part-0000.parquet").read_bytes()


def test_kappa_cap_drops_and_counts(tmp_path):
    meta = build(
        "dem_c", tmp_path / "fric", n_spheres=8, mu=0.3, steps=120, every=10, seed=0, kappa_cap=1e6, progress=False
    )
    stored = dataset_metadata(tmp_path / "fric" / "part-0000.parquet")
    assert stored["dropped_kappa"] == meta["dropped_kappa"]
    assert stored["exported"] + stored["dropped_kappa"] == stored["captured"]
    df = load_dataset(tmp_path / "fric")
    assert len(df) == stored["exported"] and (df["cond"] <= 1e6).all()
    assert not df["symmetric"].all()  # friction makes the subsystems non-symmetric


@pytest.mark.parametrize(
    "args, culprit",
    [
        (["--n-spheres", "300", "--packing", "0.45"], "could place only"),
        (["--h", "0"], "argument --h: must be a finite number in (0, 1e+12]"),
        (["--mu", "-0.2"], "argument --mu: must be a finite number in [0, 1e+12]"),
        (["--mu", "0.3", "--friction-directions", "5"], "friction_directions must be even, got 5"),
        (
            ["--friction-directions", "2"],
            "argument --friction-directions: must be a whole number from 4 to 1024, got '2'",
        ),
        (["--scene", "volcano"], "argument --scene: invalid choice: 'volcano'"),
    ],
)
def test_simulate_command_refuses_bad_input_in_one_line(args, culprit, tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["simulate", "--steps", "2", "--out", str(out), "--quiet", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert culprit in err and "\n" not in err and "Traceback" not in err
    assert not out.exists()


def test_simulate_command_writes_a_dataset(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["simulate", "--n-spheres", "6", "--steps", "120", "--every", "2", "--out", str(out), "--quiet"]) == 0
    assert "steps/s" in capsys.readouterr().out
    assert 0 < len(load_dataset(out)) == dataset_metadata(out / "part-0000.parquet")["exported"]
