"""asv suites: one VQLS cost evaluation, exact backend against 1000-shot Aer circuits, in the same run.

Goal: ``exact`` >= 100x faster than ``shots`` at n = 6 (Ising, kappa = 10),
with the same value within shot noise. For scale: the vqls-prototype package
took 0.6-1 s per global cost evaluation at n = 4 on this kind of machine.
"""

import numpy as np

from qlsbench.pauli import decompose
from qlsbench.problems import ising_inspired
from qlsbench.solvers.vqls.ansatz import initial_parameters
from qlsbench.solvers.vqls.backends import BACKENDS
from qlsbench.solvers.vqls.problem import VQLSProblem

from .timing import best_of


LAYERS = 4


def _backends(n, kind):
    system = ising_inspired(n, 10.0)
    problem = VQLSProblem.from_system(system)
    terms = decompose(system.A, atol=1e-12)  # the Ising terms, without rounding noise
    exact = BACKENDS["exact"](problem, LAYERS, kind, True)
    shots = BACKENDS["shots"](problem, LAYERS, kind, True, decomposition=terms, shots=1000, seed=0)
    return exact, shots, initial_parameters(n, LAYERS, 0)


class CostEvaluation:
    """One cost evaluation at n = 6: exact (numpy) and shots (Aer, 1000 shots per circuit)."""

    params = (["global", "local"],)
    param_names = ["cost"]
    timeout = 600

    def setup(self, kind):
        self.exact, self.shots, self.alpha = _backends(6, kind)

    def time_exact(self, kind):
        self.exact.cost(self.alpha)

    def time_shots(self, kind):
        self.shots.cost(self.alpha)

    def track_speedup_exact_over_shots(self, kind):
        return best_of(self.shots.cost, self.alpha, repeats=2) / best_of(self.exact.cost, self.alpha, repeats=20)

    track_speedup_exact_over_shots.unit = "x"

    def track_shot_deviation_in_sigma(self, kind):
        """``|mean(shots) - exact| / (sigma / sqrt(k))`` over k = 5 shot evaluations: below ~3 if unbiased."""
        samples = np.array([self.shots.cost(self.alpha) for _ in range(5)])
        return abs(samples.mean() - self.exact.cost(self.alpha)) / (samples.std(ddof=1) / np.sqrt(len(samples)))

    track_shot_deviation_in_sigma.unit = "sigma"

    def track_circuits_per_evaluation(self, kind):
        return len(self.shots.templates)


class ExactCostSmall:
    """Exact cost evaluation at n = 4, for comparison with vqls-prototype's 0.6-1 s."""

    def setup(self):
        self.exact, _, self.alpha = _backends(4, "global")

    def time_exact_n4(self):
        self.exact.cost(self.alpha)

    def time_exact_gradient_n4(self):
        self.exact.gradient(self.alpha)
