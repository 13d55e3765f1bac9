"""asv suites: one HHL solve on Aer, the eigenbasis form of exact evolution against the textbook controlled powers.

Both forms build the same operator (``PhaseEstimation.in_eigenbasis`` and
``PhaseEstimation.from_powers``; tests/test_hhl.py checks their states agree),
so the suite times one HHL circuit run each way in the same process and tracks
the speed-up, with the distance between the two post-selected states beside it
(rounding, ~1e-16, when both are right). Goal: the eigenbasis form >= 5x faster
at 8 system qubits and 6 clock qubits (measured 3.2x at n = 6, 7.5x at n = 8;
the gain grows with n: one 10-qubit pinned solve at 8 clock qubits took 117 s
with controlled powers and 4.4 s in the eigenbasis on this kind of machine).
"""

import numpy as np

from qlsbench.problems import ising_inspired
from qlsbench.solvers.hhl import _run
from qlsbench.solvers.hhl import circuit as hhl_circuit

from .timing import best_of

CLOCK = 6


def _forms(n):
    """The Ising-inspired system (kappa 10, random b), its two phase-estimation forms and the inversion angles."""
    system = ising_inspired(n, 10.0)
    H = system.A.toarray()
    H = H / np.linalg.norm(H, 2)
    b = np.random.default_rng(0).normal(size=2**n)
    b /= np.linalg.norm(b)
    t = hhl_circuit.default_time(CLOCK)
    w, V = np.linalg.eigh(H)
    eigen = hhl_circuit.PhaseEstimation.in_eigenbasis(w, V, t, CLOCK)
    powers = hhl_circuit.PhaseEstimation.from_powers(hhl_circuit.exact_powers(H, t, CLOCK), n)
    return b, eigen, powers, hhl_circuit.inversion_angles(CLOCK, t)[0]


def _postselected(b, qpe, angles):
    state = _run(hhl_circuit.build(b, qpe, angles), method="statevector").result().get_statevector()
    return hhl_circuit.postselected(np.asarray(state), qpe.n, qpe.m)


class HHLCircuit:
    """One HHL circuit run (prepare, phase estimation, inversion, uncompute) at n = 6 and 8 system qubits."""

    params = ([6, 8],)
    param_names = ["n"]
    timeout = 600

    def setup(self, n):
        self.b, self.eigen, self.powers, self.angles = _forms(n)

    def time_eigenbasis(self, n):
        _postselected(self.b, self.eigen, self.angles)

    def track_speedup_eigenbasis_over_powers(self, n):
        slow = best_of(_postselected, self.b, self.powers, self.angles, repeats=1)
        return slow / best_of(_postselected, self.b, self.eigen, self.angles, repeats=3)

    track_speedup_eigenbasis_over_powers.unit = "x"

    def track_forms_disagree(self, n):
        """``max |psi_eigen - psi_powers|`` over the post-selected amplitudes: rounding when both are right."""
        return float(
            np.max(
                np.abs(_postselected(self.b, self.eigen, self.angles) - _postselected(self.b, self.powers, self.angles))
            )
        )

    track_forms_disagree.unit = "amplitude"
