"""asv suites: one VQLS cost evaluation, exact backend against 1000-shot Aer circuits, in the same run.

Goal: ``exact`` >= 100x faster than ``shots`` at n = 6 (Ising, kappa = 10),
with the same value within shot noise, the same value as the shot-free
circuits up to rounding, and zero cost at the exact solution. For scale: the
vqls-prototype package took 0.6-1 s per global cost evaluation at n = 4 on
this kind of machine.
"""

import numpy as np

from qlsbench.pauli import decompose
from qlsbench.problems import ising_inspired, reference_solution
from qlsbench.solvers.vqls.ansatz import initial_parameters
from qlsbench.solvers.vqls.backends import BACKENDS
from qlsbench.solvers.vqls.cost import cost_and_gradient
from qlsbench.solvers.vqls.problem import VQLSProblem

from .timing import best_of, best_of_interleaved

LAYERS = 4
#: The noisy track's ansatz depth (docs/noisy.md): fewer layers leave more distinct routed fronts to simulate.
NOISY_LAYERS = 2


def _problem(n):
    """The Ising-inspired system (kappa = 10) as VQLS takes it, and its Pauli terms without rounding noise."""
    system = ising_inspired(n, 10.0)
    return system, VQLSProblem.from_system(system), decompose(system.A, atol=1e-12)


def _backends(n, kind):
    _, problem, terms = _problem(n)
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

    def track_exact_vs_circuits(self, kind):
        """``|C_exact - C_circuits|`` at the same parameters: operator-level cost against Hadamard tests.

        The ``circuits`` backend evaluates the circuits of ``shots`` without
        sampling (Aer statevector), so the two agree to rounding (about 1e-16)
        when the circuits, their Pauli phases and the combination are right.
        Built here rather than in ``setup``: its transpilation would slow every
        other benchmark of the class.
        """
        _, problem, terms = _problem(6)
        circuits = BACKENDS["circuits"](problem, LAYERS, kind, True, decomposition=terms, seed=0)
        return abs(self.exact.cost(self.alpha) - circuits.cost(self.alpha))

    track_exact_vs_circuits.unit = "|C_exact - C_circuits|"

    def track_cost_at_solution(self, kind):
        """``|C(x*)|`` with ``x* = A^-1 b`` normalised: zero up to rounding for a correct cost.

        The absolute value, because the global cost is a difference of two O(1)
        terms and can round below zero (to -3e-16 at n = 6).
        """
        system, problem, _ = _problem(6)
        x = reference_solution(system.A, system.b).real  # real A and b: the imaginary part is exactly 0
        return abs(cost_and_gradient(problem, x / np.linalg.norm(x), kind, True, False)[0])

    track_cost_at_solution.unit = "|C(x*)|"


class ExactCostSmall:
    """Exact cost evaluation at n = 4, for comparison with vqls-prototype's 0.6-1 s."""

    def setup(self):
        self.exact, _, self.alpha = _backends(4, "global")

    def time_exact_n4(self):
        self.exact.cost(self.alpha)

    def time_exact_gradient_n4(self):
        self.exact.gradient(self.alpha)


class EmulatedShots:
    """One local-cost evaluation at n = 6 with 1000 shots: emulated binomials against Aer circuits, same run.

    Goal: ``shots-emulated`` >= 100x faster than ``shots`` (534 Aer circuits), with
    the same distribution (tests/test_vqls_emulated.py).
    """

    timeout = 600

    def setup(self):
        _, problem, terms = _problem(6)
        self.aer = BACKENDS["shots"](problem, LAYERS, "local", True, decomposition=terms, shots=1000, seed=0)
        self.emulated = BACKENDS["shots-emulated"](
            problem, LAYERS, "local", True, decomposition=terms, shots=1000, seed=0
        )
        self.alpha = initial_parameters(6, LAYERS, 0)

    def time_emulated(self):
        self.emulated.cost(self.alpha)

    def time_aer(self):
        self.aer.cost(self.alpha)

    def track_speedup_emulated_over_aer(self):
        return best_of(self.aer.cost, self.alpha, repeats=2) / best_of(self.emulated.cost, self.alpha, repeats=20)

    track_speedup_emulated_over_aer.unit = "x"


class NoisyCostEvaluation:
    """One local-cost evaluation at n = 3 and 5 on the ``device`` backend as the noisy track runs it (fake
    sherbrooke, its calibrated noise, 2 layers, 2000 shots): the tests split at their shared parameterised fronts
    (the default), against every whole circuit on Aer (``split_fronts=False``, the previous path) and against the
    same routed circuits without noise (``noise_scale=0``), in the same run, the calls taking turns.

    ``track_split_speedup`` is the per-evaluation ratio whole/split, which is also the per-circuit one (the same
    circuits); ``track_ms_per_circuit_*`` give the time per circuit of each path. ``track_noisy_over_ideal`` is what
    the device's noise costs the simulation; the time per noisy evaluation, times the optimiser's evaluations, is a
    noisy solve's.
    """

    timeout = 900
    params = [3, 5]
    param_names = ["n"]

    def setup(self, n):
        _, problem, terms = _problem(n)

        def make(**kwargs):
            return BACKENDS["device"](
                problem, NOISY_LAYERS, "local", True, decomposition=terms, shots=2000, seed=0, **kwargs
            )

        self.noisy = make(noise_scale=1.0)
        self.whole = make(noise_scale=1.0, split_fronts=False)
        self.ideal = make(noise_scale=0.0)
        self.alpha = initial_parameters(n, NOISY_LAYERS, 0)
        self._times = None

    def _timed(self):
        """Seconds per evaluation of the split, whole and ideal backends, timed once per setup (three tracks)."""
        if self._times is None:
            self._times = best_of_interleaved([self.noisy.cost, self.whole.cost, self.ideal.cost], self.alpha)
        return self._times

    def time_noisy(self, n):
        self.noisy.cost(self.alpha)

    def track_split_speedup(self, n):
        split, whole, _ = self._timed()
        return whole / split

    track_split_speedup.unit = "x"

    def track_ms_per_circuit_split(self, n):
        return 1e3 * self._timed()[0] / len(self.noisy.templates)

    track_ms_per_circuit_split.unit = "ms"

    def track_ms_per_circuit_whole(self, n):
        return 1e3 * self._timed()[1] / len(self.whole.templates)

    track_ms_per_circuit_whole.unit = "ms"

    def track_noisy_over_ideal(self, n):
        split, _, ideal = self._timed()
        return split / ideal

    track_noisy_over_ideal.unit = "x"

    def track_circuits_per_evaluation(self, n):
        return len(self.noisy.templates)

    def track_fronts_per_evaluation(self, n):
        return len(self.noisy.split.fronts)

    def track_max_probability_difference(self, n):
        """Largest gap between a split test's probability of reading 0 (readout error aside) and Aer's exact one
        for the whole circuit: below 1e-8 (Aer drops error terms under its threshold)."""
        from qlsbench.solvers.devices import noise_errors
        from qlsbench.solvers.heisenberg import split, whole_p0

        gates, _ = noise_errors("sherbrooke", tuple(self.noisy.physical), 1.0)
        simulator = self.noisy._front_simulator
        ours = split(self.noisy.templates, gates, {}).p0(simulator, self.alpha)
        return float(np.max(np.abs(ours - whole_p0(self.noisy.templates, simulator, self.alpha))))

    track_max_probability_difference.unit = "probability"
