"""The DEM-C simulator with ``integrator: cd_lagrange``: restitution impacts of spheres as one min-map LCP.

Truth: Newton's restitution law for an isolated contact, the two-body
collision formula, the simultaneous-impact solution of the single-node
integrator (an independent code path), momentum conservation, and the
dataset contract (family, label, reference solutions, same bytes twice).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.families import build
from qlsbench.physics import StepOptions, simulate
from qlsbench.physics.cdlagrange import impulses, newtons_cradle
from qlsbench.physics.spheres.scenes import floor, free

R = 0.05


def _options(e: float, **kw) -> StepOptions:
    return StepOptions(h=1e-3, integrator="cd_lagrange", restitution=e, **kw)


@pytest.mark.parametrize("e", [1.0, 0.8, 0.0])
def test_sphere_on_a_floor_rebounds_at_e_times_its_impact_speed(e):
    scene = floor([[0.0, 0.0, 0.5]], radius=R)
    before, after = None, None
    for _ in range(1000):
        v_in = scene.velocities[0, 2]
        report = simulate(scene, 1, _options(e))[0]
        if report.contacts and before is None:
            before, after = v_in, scene.velocities[0, 2]
    assert before < -2.5  # fell about 0.45 m
    assert after == pytest.approx(-e * before, abs=1e-12)  # restitution refers to the velocity entering the step


def test_bouncing_sphere_apexes_follow_e_to_the_2k():
    e, h0 = 0.8, 1.0
    scene = floor([[0.0, 0.0, R + h0]], radius=R)
    z = []
    for _ in range(3000):
        simulate(scene, 1, _options(e))
        z.append(scene.positions[0, 2] - R)
    z = np.array(z)
    peaks = z[1:-1][(z[1:-1] >= z[:-2]) & (z[1:-1] > z[2:])][:4] / h0
    assert np.abs(peaks - e ** (2 * np.arange(1, 5))).max() < 0.01


def test_resting_sphere_with_e_zero_neither_sinks_nor_moves():
    scene = floor([[0.0, 0.0, R - 1e-4]], radius=R)  # closed contact, overlap 1e-4
    simulate(scene, 500, _options(0.0))
    assert scene.positions[0, 2] == pytest.approx(R - 1e-4, abs=1e-15)
    assert np.abs(scene.velocities).max() < 1e-14


@pytest.mark.parametrize("e", [1.0, 0.5])
def test_two_spheres_head_on_collide_by_the_restitution_formula(e):
    scene = free([[-1e-4, 0, 0], [2 * R, 0, 0]], [[1.0, 0, 0], [0, 0, 0]], radius=R)
    momentum = scene.masses @ scene.velocities
    simulate(scene, 3, _options(e))
    assert scene.velocities[:, 0] == pytest.approx([(1 - e) / 2, (1 + e) / 2], abs=1e-12)
    assert np.abs(scene.masses @ scene.velocities - momentum).max() <= 1e-14 * np.abs(momentum).max()


def test_three_sphere_line_gives_the_simultaneous_impact_solution_of_the_single_node_scheme():
    # The first sphere closes on the second within a step; the second and third already touch.
    scene = free(
        [[-1e-4, 0, 0], [2 * R - 1e-12, 0, 0], [4 * R - 2e-12, 0, 0]], [[1.0, 0, 0], [0, 0, 0], [0, 0, 0]], radius=R
    )
    simulate(scene, 3, _options(1.0))
    # The same three bodies as a 1-D cradle, resolved as one LCP by the single-node integrator.
    system, _, _ = newtons_cradle(balls=3, e=1.0)
    system.force = lambda Q: np.zeros(3)
    v = impulses(system, np.arange(2), np.array([1.0, 0, 0]), np.array([1.0, 0, 0]), "simultaneous")
    assert v == pytest.approx([-1 / 3, 2 / 3, 2 / 3], abs=1e-9)
    assert scene.velocities[:, 0] == pytest.approx(v, abs=1e-9)
    assert np.abs(scene.velocities[:, 1:]).max() < 1e-15


def test_bad_integrator_settings_are_named():
    with pytest.raises(InputError, match="integrator must be one of"):
        StepOptions(integrator="verlet")
    with pytest.raises(InputError, match=r"restitution e must be in \[0, 1\]"):
        StepOptions(integrator="cd_lagrange", restitution=1.5)
    with pytest.raises(InputError, match="needs integrator 'cd_lagrange'"):
        StepOptions(restitution=0.5)


def test_cd_lagrange_dataset_family_label_and_solutions(tmp_path):
    kw = dict(n_spheres=10, steps=300, every=10, seed=2, restitution=0.5, progress=False)
    meta = build("cd_lagrange", tmp_path / "a", **kw)
    assert meta["family"] == "cd_lagrange" and meta["scene_label"] == "sedimentation-n10-mu0-e0.5"
    assert meta["steps_not_converged"] == 0 and meta["exported"] > 3
    df = pd.read_parquet(tmp_path / "a")
    assert set(df.family) == {"cd_lagrange"} and set(df.scene) == {"sedimentation-n10-mu0-e0.5"}
    for row in df.itertuples():
        A = sp.coo_matrix((row.vals, (row.rows, row.cols)), shape=(row.dim, row.dim)).toarray()
        assert np.allclose(A, A.T) and np.linalg.eigvalsh(A).min() > 0  # frictionless: SPD blocks of D^T M^-1 D
        assert np.linalg.norm(A @ row.x_ref - row.b) < 1e-10
        info = json.loads(row.meta_json)
        assert info["integrator"] == "cd_lagrange" and info["restitution"] == 0.5
    build("cd_lagrange", tmp_path / "b", **kw)
    assert (tmp_path / "a/part-0000.parquet").read_bytes() == (tmp_path / "b/part-0000.parquet").read_bytes()
    schema_meta = json.loads(pq.read_schema(tmp_path / "a/part-0000.parquet").metadata[b"qlsbench.dataset_meta"])
    assert schema_meta["integrator"] == "cd_lagrange"


def test_frictional_cd_lagrange_run_converges_and_exports(tmp_path):
    meta = build(
        "cd_lagrange",
        tmp_path / "f",
        n_spheres=8,
        mu=0.3,
        steps=200,
        every=20,
        seed=0,
        regularization=1e-8,
        restitution=0.3,
        progress=False,
    )
    assert meta["scene_label"] == "sedimentation-n8-mu0.3-e0.3" and meta["exported"] > 0
    assert meta["steps_not_converged"] == 0
