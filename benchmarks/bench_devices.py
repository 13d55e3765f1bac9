"""asv suite: which Aer method simulates a noisy routed circuit faster, by width (``qlsbench.solvers.devices``).

A device's noise turns every gate into a channel. Aer can carry the whole
density matrix (memory and time ~4^w, every shot sampled from it at the end)
or run one noisy statevector trajectory per shot (~2^w each, times the shots).
``Device.simulator`` switches at ``DENSITY_MATRIX_QUBITS``; this suite is the
measurement that sets it: one 1000-shot run of a 4-layer ansatz with every
qubit measured, routed to fake sherbrooke's region, at each width.
"""

from qlsbench.solvers.devices import Device
from qlsbench.solvers.vqls.ansatz import ansatz_circuit, initial_parameters

from .timing import best_of

SHOTS = 1000


def noisy_circuit(width: int, seed: int = 0):
    """A 4-layer ansatz of ``width`` qubits at seeded angles, measured, placed on the device with its noise."""
    qc = ansatz_circuit(width, 4)
    qc = qc.assign_parameters(initial_parameters(width, 4, seed))
    qc.measure_all()
    device = Device("sherbrooke", 1.0)
    (placed,), region = device.place([qc])
    return device, placed, region


class AerMethods:
    """One 1000-shot noisy run, density matrix against per-shot trajectories, at 4 to 12 qubits of region."""

    params = [4, 6, 8, 10, 11, 12]
    param_names = ["qubits"]
    timeout = 1200

    def setup(self, width):
        from qiskit_aer import AerSimulator

        self.device, self.circuit, region = noisy_circuit(width)
        noise = self.device.noise_model(region)
        common = {
            "noise_model": noise,
            "max_parallel_threads": 1,
            "max_parallel_experiments": 1,
            "max_parallel_shots": 1,
        }
        self.density = AerSimulator(method="density_matrix", **common)
        self.trajectories = AerSimulator(method="statevector", **common)

    def _run(self, simulator):
        return simulator.run(self.circuit, shots=SHOTS, seed_simulator=0).result()

    def time_density_matrix(self, width):
        self._run(self.density)

    def time_trajectories(self, width):
        self._run(self.trajectories)

    def track_speedup_density_matrix_over_trajectories(self, width):
        return best_of(self._run, self.trajectories, repeats=2) / best_of(self._run, self.density, repeats=2)

    track_speedup_density_matrix_over_trajectories.unit = "x"

    def track_methods_total_variation(self, width):
        """Total-variation distance between the two methods' 1000-shot distributions: both sample the same
        noisy state, so this stays at the shot-noise level (about 0.5 sqrt(outcomes / shots) at most)."""
        a, b = (self._run(sim).get_counts() for sim in (self.density, self.trajectories))
        return 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b)) / SHOTS

    track_methods_total_variation.unit = "distance"
