"""CD-Lagrange impacts (seed 000, app. A-B): restitution, energy, momentum, simultaneous vs sequential impacts."""

from __future__ import annotations

import numpy as np
import pytest

from qlsbench.errors import InputError
from qlsbench.physics.cdlagrange import run_scene

G = 9.81


def _apexes(df):
    v, q = df.qdot_0.to_numpy(), df.q_0.to_numpy()
    turn = np.flatnonzero((v[:-1] > 0) & (v[1:] <= 0))
    return q[turn + 1]


def test_elastic_ball_keeps_its_energy_over_a_hundred_bounces():
    h = 0.02
    df = run_scene("bouncing-ball", 14300, h=h, e=1.0, q0=10.0)  # 100 bounces of 2.86 s
    assert df.contact.sum() == 100
    energy = df.energy.to_numpy()
    assert np.abs(energy / energy[0] - 1).max() < h  # O(h); central differences keep it to round-off here
    assert _apexes(df).min() > 10.0 - 2 * h * np.sqrt(2 * G * 10)


@pytest.mark.parametrize("e", [0.8, 0.7])
def test_inelastic_ball_apexes_follow_e_to_the_2k_and_it_rests_on_time(e):
    h, h0 = 0.02, 10.0
    df = run_scene("bouncing-ball", 3000, h=h, e=e, q0=h0)
    apexes = _apexes(df)[:6] / h0
    assert np.abs(apexes - e ** (2 * np.arange(1, 7))).max() < 0.01
    q, v = df.q_0.to_numpy(), df.qdot_0.to_numpy()
    moving = np.flatnonzero((np.abs(v) > 0.2) | (q > 1e-3))
    rest = df.t.to_numpy()[moving[-1] + 1]
    expected = np.sqrt(2 * h0 / G) * (1 + e) / (1 - e)  # the sum of the geometric series of flight times
    assert rest == pytest.approx(expected, rel=0.03)
    assert abs(q[-1]) < 0.2 * h and abs(v[-1]) < 1e-9  # at rest on the ground (sunk by at most h * last speed)


def test_two_ball_cradle_exchanges_velocities_keeping_momentum_and_energy():
    h = 0.02
    df = run_scene("newtons-cradle", 5, h=h)  # Q0 = (0, 0), Qdot0 = (2, 0), e = 1
    hit = df.index[df.contact][0]
    before, after = df.loc[hit - 1, ["qdot_0", "qdot_1"]].to_numpy(), df.loc[hit, ["qdot_0", "qdot_1"]].to_numpy()
    assert before == pytest.approx([2.0, 0.0])
    assert after == pytest.approx([0.0, 2.0], abs=G * h * 0.05)  # gravity acts over the step of the impact
    # The impulse conserves momentum exactly (compare with the free-flight velocity) and obeys Newton's law
    # N Qdot+ = -e N Qdot- on the pre-impact velocity: with e = 1 and equal masses, the kinetic energy too.
    free = before + h * (-G * np.sin(df.loc[hit, ["q_0", "q_1"]].to_numpy().astype(float)))
    assert after.sum() == pytest.approx(free.sum(), abs=1e-12)
    assert after[1] - after[0] == pytest.approx(-(before[1] - before[0]) * -1.0 * -1.0, abs=1e-12)
    assert (after**2).sum() == pytest.approx((before**2).sum(), rel=G * h)


def test_three_ball_cradle_sequential_and_simultaneous_impacts():
    v = 2.0
    seq = run_scene("newtons-cradle", 1, h=1e-9, balls=3, speed=v, mode="sequential")
    sim = run_scene("newtons-cradle", 1, h=1e-9, balls=3, speed=v, mode="simultaneous")
    cols = ["qdot_0", "qdot_1", "qdot_2"]
    # Sequential (what the paper does): the physical cradle, the last ball leaves with all of it.
    assert seq.loc[1, cols].to_numpy(float) == pytest.approx([0.0, 0.0, v], abs=1e-6)
    # One simultaneous LCP: (-1/3, 2/3, 2/3) v; momentum kept, energy not split as in the real cradle.
    assert sim.loc[1, cols].to_numpy(float) == pytest.approx(np.array([-1, 2, 2]) / 3 * v, abs=1e-6)
    assert sim.loc[1, cols].sum() == pytest.approx(v, abs=1e-6)


def test_pendulum_energy_drift_is_bounded_without_secular_growth():
    df = run_scene("pendulum", 10_000, h=0.02)  # q0 = 1, M = 1, l = 1
    energy = df.energy.to_numpy()
    assert np.abs(energy / energy[0] - 1).max() < 2e-3
    first, last = energy[:5000], energy[5000:]
    assert abs(first.mean() - last.mean()) < 1e-5 * abs(energy[0])  # no growth from one half to the next


def test_bad_scene_input_is_named():
    with pytest.raises(InputError, match="unknown CD-Lagrange scene"):
        run_scene("cradle", 10)
    with pytest.raises(InputError, match=r"scene bouncing-ball: e must be a finite number in \[0, 1\], got 1.5"):
        run_scene("bouncing-ball", 10, e=1.5)
    with pytest.raises(InputError, match="scene pendulum: unknown parameter.s. e; it takes q0, mass, length, g"):
        run_scene("pendulum", 10, e=0.5)


def test_trajectory_file_keeps_the_clean_truth_beside_noisy_columns(tmp_path):
    import pandas as pd

    from qlsbench.cli import main

    out = tmp_path / "ball.parquet"
    assert main(
        ["trajectory", "--scene", "bouncing-ball", "--steps", "500", "--param", "e=0.8", "--out", str(out)]
    ) in (0, None)
    df = pd.read_parquet(out)
    clean = run_scene("bouncing-ball", 500, e=0.8)
    pd.testing.assert_frame_equal(df[clean.columns], clean)
    for sigma in (0.2, 0.02):
        noise = df[f"q_0_sigma{sigma:g}"] - df.q_0
        assert abs(noise.std() / sigma - 1) < 0.15 and abs(noise.mean()) < 4 * sigma / np.sqrt(len(df))
    again = tmp_path / "again.parquet"
    main(["trajectory", "--scene", "bouncing-ball", "--steps", "500", "--param", "e=0.8", "--out", str(again)])
    assert again.read_bytes() == out.read_bytes()


def test_contact_matrix_and_mass_ratio_of_eqs_42_43_match_the_per_contact_h():
    from qlsbench.physics.cdlagrange import (
        bouncing_ball,
        contact_matrix,
        mass_ratio,
        newtons_cradle,
    )

    # Two-ball cradle in contact: app. B gives A = [[-1, 1], [1, -1]]; unequal masses check the reduced mass.
    A = contact_matrix([-1e-3, -1e-3], [[0, 1]])
    assert A.tolist() == [[-1, 1], [1, -1]] and A.sum() == 0
    system, _, _ = newtons_cradle(balls=2)
    m = np.array([1.0, 3.0])
    H = mass_ratio(A, m)
    n = system.normals[0]
    assert np.diag(H) == pytest.approx([0.75, 0.75])  # m1 m2 / (m1 + m2)
    assert H[0, 0] == pytest.approx(1.0 / (n @ (n / m)))
    # The ball on the ground: A = [[-1]], H = m; no contact, no entry.
    ball, _, _ = bouncing_ball(mass=2.0)
    assert mass_ratio(contact_matrix([-0.1], []), ball.mass).tolist() == [[2.0]]
    assert mass_ratio(contact_matrix([0.1], []), ball.mass).tolist() == [[0.0]]
