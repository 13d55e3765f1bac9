"""asv suites for the penalty-friction family: one backward Euler step (Newton-GMRES) and the operator alone.

Accuracy next to speed: the step's final residual ``|g|`` relative to the
Newton tolerance, its Newton and GMRES iteration counts, and how far the
matrix-free ``H^T`` is from the adjoint of ``H``.
"""

import copy
import time

import numpy as np

from qlsbench.physics.penalty import (
    PENALTY_SCENES,
    PenaltyNewtonOptions,
    build_penalty_scene,
    evaluate,
    simulate_penalty,
)
from qlsbench.physics.penalty import (
    time_step as advance,  # a module-level time_* would be taken for a benchmark
)

from .bench_physics import _reference_seconds


def _draped_cloth(n):
    """A cloth of ``n x n`` particles after 60 steps: lying on the ball, several contacts sliding."""
    model = build_penalty_scene("cloth-sphere", n=n)
    simulate_penalty(model, 60, PENALTY_SCENES["cloth-sphere"][1])
    return model


class ClothStep:
    """One time step of a cloth draped on a ball (``3 n^2`` unknowns; a 16 x 16 cloth takes about 1 s a step here).

    Notes
    -----
    ``track_time_ratio`` divides the step time by a dense 256x256 solve in
    the same process (compare it across commits). ``track_residual_ratio`` is
    the step's final ``|g|`` over the Newton tolerance (below 1 when the step
    converged on ``|g|``).
    """

    params = [8, 12]
    param_names = ["n"]
    timeout = 600

    def setup_cache(self):
        return {n: _draped_cloth(n) for n in self.params}

    def setup(self, cloths, n):
        self.model = cloths[n]
        self.h = PENALTY_SCENES["cloth-sphere"][1]
        self.options = PenaltyNewtonOptions()

    def _step(self):
        model = copy.deepcopy(self.model)
        t0 = time.perf_counter()
        report = advance(model, self.h, self.options)
        return time.perf_counter() - t0, report, model

    def time_step(self, cloths, n):
        advance(copy.deepcopy(self.model), self.h, self.options)

    def track_time_ratio(self, cloths, n):
        return min(self._step()[0] for _ in range(3)) / _reference_seconds()

    track_time_ratio.unit = "ratio"

    def track_newton_iterations(self, cloths, n):
        return self._step()[1].newton.iterations

    track_newton_iterations.unit = "iterations"

    def track_gmres_iterations(self, cloths, n):
        return self._step()[1].newton.gmres_iterations

    track_gmres_iterations.unit = "iterations"

    def track_residual_ratio(self, cloths, n):
        _, report, model = self._step()
        scale = self.h * np.linalg.norm(model.mass_vector()) * np.linalg.norm(model.gravity)
        return report.newton.residual / (self.options.tol * scale)

    track_residual_ratio.unit = "|g| / tol"


class BackwardEulerOperator:
    """``H v`` and ``H^T v`` of the draped 12 x 12 cloth (432 unknowns), matrix-free, and the adjoint defect."""

    timeout = 600

    def setup_cache(self):
        return _draped_cloth(12)

    def setup(self, model):
        self.ev = evaluate(model, np.zeros(model.ndof), PENALTY_SCENES["cloth-sphere"][1])
        rng = np.random.default_rng(0)
        self.u, self.v = rng.normal(size=(2, model.ndof))

    def time_matvec(self, model):
        self.ev.matvec(self.v)

    def time_rmatvec(self, model):
        self.ev.rmatvec(self.u)

    def track_adjoint_defect(self, model):
        lhs = self.u @ self.ev.matvec(self.v)
        return abs(lhs - self.ev.rmatvec(self.u) @ self.v) / abs(lhs)

    track_adjoint_defect.unit = "relative"
