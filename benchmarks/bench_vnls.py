"""asv suites: one VNLS SR step against a plain NetKet VMC step, same model, n and 1024 samples, same run.

Goal: VNLS step / transverse-field-Ising step <= 2. Also the time per 100 VNLS
iterations at n = 6 and 8 (complex RBM, 1024 samples, Ising-inspired kappa = 10).
"""

import netket as nk
import numpy as np

from qlsbench.problems import ising_inspired
from qlsbench.solvers.vnls.models import MODELS
from qlsbench.solvers.vnls.training import loss_operator, variational_state

from .timing import best_of


def _driver(op, state, model="crbm"):
    qgt = nk.optimizer.qgt.QGTJacobianDense(holomorphic=MODELS[model].holomorphic)
    return nk.driver.VMC(op, nk.optimizer.Sgd(learning_rate=0.05), variational_state=state,
                         preconditioner=nk.optimizer.SR(qgt=qgt, diag_shift=0.01))


def _vnls_driver(n):
    system = ising_inspired(n, 10.0)
    hilbert = nk.hilbert.Qubit(N=n)
    state = variational_state(hilbert, "crbm", 1, False, 1024, seed=0)
    return _driver(loss_operator(system, hilbert, False, 1024, 0), state)


def _tfim_driver(n):
    hilbert = nk.hilbert.Spin(0.5, N=n)
    op = nk.operator.Ising(hilbert, nk.graph.Chain(n), h=1.0)
    spec = MODELS["crbm"]
    state = nk.vqs.MCState(spec.sampler(hilbert), spec.build(hilbert, 1), n_samples=1024, seed=0, sampler_seed=1)
    return _driver(op, state)


def _steps(driver, k):
    driver.run(n_iter=k, show_progress=False)


class SRStep:
    """VNLS against TFIM: one SR step each, compiled first."""

    params = ([6, 8],)
    param_names = ["n_qubits"]
    timeout = 600

    def setup(self, n):
        self.vnls, self.tfim = _vnls_driver(n), _tfim_driver(n)
        _steps(self.vnls, 3)  # jit compilation outside the timing
        _steps(self.tfim, 3)

    def time_vnls_100_iterations(self, n):
        _steps(self.vnls, 100)

    def track_step_ratio_vnls_to_tfim(self, n):
        return best_of(_steps, self.vnls, 10, repeats=3) / best_of(_steps, self.tfim, 10, repeats=3)

    track_step_ratio_vnls_to_tfim.unit = "ratio"
