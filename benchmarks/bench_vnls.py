"""asv suites: one VNLS SR step against a plain NetKet VMC step, same model, n and 1024 samples, same run.

Goal: VNLS step / transverse-field-Ising step <= 2. Also the time per 100 VNLS
iterations at n = 6 and 8 (complex RBM, 1024 samples, Ising-inspired kappa = 10),
and, in ``SRAccuracy``, what a short SR run reaches and how close the Monte
Carlo loss is to the exact one. ``ExactSRSteps``: exact-mode SR steps per second
by the compiled loop against NetKet's driver at 3-6 qubits, with SR's CG and with its dense Cholesky solve
(exact mode's default), each path configured with the same solve (goal: at least 5 times).
``SampledSRSteps``: the same in Monte Carlo mode at 7-9 qubits with 1,024 samples, the paper's mode (goal: at
least 5 times per iteration).
"""

import os
from pathlib import Path

import netket as nk
import numpy as np

from qlsbench.problems import LinearSystem, ising_inspired, reference_solution, state_fidelity
from qlsbench.solvers.vnls.models import MODELS
from qlsbench.solvers.vnls.operator import ExactLoss, hamiltonian
from qlsbench.solvers.vnls.training import loss_operator, train, variational_state

from .timing import best_of, best_of_interleaved

#: SR iterations before accuracy is read: a short run (seconds at n = 6) that already moves off the start.
ACCURACY_ITERATIONS = 50
#: Independent Monte Carlo loss estimates (fresh samples each) compared with the exact loss.
MC_ESTIMATES = 8


def _driver(op, state, model="crbm"):
    qgt = nk.optimizer.qgt.QGTJacobianDense(holomorphic=MODELS[model].holomorphic)
    return nk.driver.VMC(
        op,
        nk.optimizer.Sgd(learning_rate=0.05),
        variational_state=state,
        preconditioner=nk.optimizer.SR(qgt=qgt, diag_shift=0.01),
    )


def _vnls_parts(n):
    """The Ising-inspired system (kappa = 10), the VNLS loss operator and a seeded complex-RBM state."""
    system = ising_inspired(n, 10.0)
    hilbert = nk.hilbert.Qubit(N=n)
    state = variational_state(hilbert, "crbm", 1, False, 1024, seed=0)
    return system, loss_operator(system, hilbert, False, 1024, 0), state


def _vnls_driver(n):
    _, op, state = _vnls_parts(n)
    return _driver(op, state)


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


def _exact_loss(system, psi):
    """The Rayleigh quotient ``<psi|H|psi> / <psi|psi>`` with ``H = A^dagger (I - |b><b|) A``, ``b`` normalised."""
    H = hamiltonian(system.A, system.b / np.linalg.norm(system.b))
    return float(np.real(np.vdot(psi, H @ psi) / np.vdot(psi, psi)))


class SRAccuracy:
    """Accuracy of VNLS at n = 6 after ``ACCURACY_ITERATIONS`` SR steps, with the settings ``SRStep`` times.

    ``track_infidelity`` is ``1 - |<psi|x>|^2 / (||psi||^2 ||x||^2)`` against
    the direct solution ``x`` and ``track_loss`` the exact loss of ``psi``,
    both summed over the whole basis. The untrained state is already close to
    ``x`` here (``b = |+>^n`` and ``x`` is nearly uniform), hence infidelity
    rather than fidelity: it starts near 7e-4.

    ``track_mc_loss_rel_rms_error`` is the RMS over ``MC_ESTIMATES`` Monte
    Carlo estimates (1024 samples each, what every SR step uses) of
    ``(L_mc - L_exact) / L_exact``; ``track_mc_loss_bias_in_sigma`` is
    ``|mean(L_mc) - L_exact| / (std(L_mc) / sqrt(k))``, below ~3 if the
    estimator is unbiased. The loss is a difference of two O(1) terms and is
    about 3e-4 here, so the relative noise of one estimate is of order one.

    Notes
    -----
    The run is done once in ``setup_cache``, seeded, so every track reads
    the same trained state (the values repeat exactly from run to run). asv
    pickles the cache, so it holds plain arrays - the amplitudes over the
    basis and the loss estimates - rather than the NetKet state.
    """

    timeout = 600

    def setup_cache(self):
        system, op, state = _vnls_parts(6)
        _steps(_driver(op, state), ACCURACY_ITERATIONS)
        estimates = []
        for _ in range(MC_ESTIMATES):
            state.reset()  # fresh Markov-chain samples (and fresh x' draws for the c term) for each estimate
            estimates.append(float(np.real(state.expect(op).mean)))
        return {"system": system, "psi": np.asarray(state.to_array(normalize=False)), "estimates": np.array(estimates)}

    def track_infidelity(self, run):
        system = run["system"]
        return 1.0 - state_fidelity(run["psi"], reference_solution(system.A, system.b))

    track_infidelity.unit = "1 - fidelity"

    def track_loss(self, run):
        return _exact_loss(run["system"], run["psi"])

    track_loss.unit = "loss"

    def track_mc_loss_rel_rms_error(self, run):
        exact = _exact_loss(run["system"], run["psi"])
        return float(np.sqrt(np.mean((run["estimates"] - exact) ** 2)) / exact)

    track_mc_loss_rel_rms_error.unit = "relative error"

    def track_mc_loss_bias_in_sigma(self, run):
        estimates = run["estimates"]
        exact = _exact_loss(run["system"], run["psi"])
        return float(abs(estimates.mean() - exact) / (estimates.std(ddof=1) / np.sqrt(len(estimates))))

    track_mc_loss_bias_in_sigma.unit = "sigma"


#: Newton systems of a 16-sphere DEM-C run in simulation order (shipped with the in-loop results).
SEQ16 = Path(__file__).parent.parent / "docs" / "in-loop" / "datasets" / "seq16"


class ExactSolves:
    """Exact VNLS (``FullSumState``, 100 SR steps) on consecutive Newton systems of a simulation, as in the loop:
    the loss matrix built by qlsbench (``ExactLoss``) against NetKet's own ``LocalOperator`` conversion, which
    compiles anew for matrices it has not met. Both train the same bits (``tests/test_vnls.py``). The ratio is
    their times on the same 12 systems of 4-5 qubits in one process, NetKet's meeting them for the first time
    (as in a simulation, where every system is new). Goal: below 0.8 (measured here: 0.5 on these 12; 0.68 over
    all 162 systems).
    """

    timeout = 600

    def setup(self):
        from qlsbench.data import iter_systems

        systems = [s for s in iter_systems(SEQ16) if s.meta["n_qubits"] in (4, 5)]
        first = {n: next(s for s in systems if s.meta["n_qubits"] == n) for n in (4, 5)}
        self.systems = [s for s in systems if all(s is not f for f in first.values())][:12]
        self._train(self._ours, first.values())  # compiles the SR steps of 4 and 5 qubits outside the timing

    def _train(self, make_operator, systems):
        """The trained amplitudes over the basis, one array per system."""
        out = []
        for system in systems:
            n = int(system.meta["n_qubits"])
            b = system.b / np.linalg.norm(system.b)
            hilbert = nk.hilbert.Qubit(N=n)
            state = variational_state(hilbert, "crbm", 1, True, 1024, seed=0)
            _steps(_driver(make_operator(hilbert, hamiltonian(system.A, b).toarray()), state), 100)
            out.append(np.asarray(state.to_array(normalize=False)))
        return out

    @staticmethod
    def _ours(hilbert, H):
        return ExactLoss(hilbert, H)

    @staticmethod
    def _netkets(hilbert, H):
        return nk.operator.LocalOperator(hilbert, [H], [list(range(hilbert.size))])

    def track_time_ratio_ours_to_netkets(self):
        ours = best_of(self._train, self._ours, self.systems, repeats=1)
        return ours / best_of(self._train, self._netkets, self.systems, repeats=1)

    track_time_ratio_ours_to_netkets.unit = "ratio"

    def track_max_amplitude_difference(self):
        """Largest difference of a trained amplitude between the two matrices, on two systems: 0 while they
        hold the same arrays in the same order."""
        ours, theirs = self._train(self._ours, self.systems[:2]), self._train(self._netkets, self.systems[:2])
        return max(float(np.max(np.abs(a - b))) for a, b in zip(ours, theirs))

    track_max_amplitude_difference.unit = "amplitude"


#: SR steps per timed solve in ``ExactSRSteps``: enough that a solve's fixed cost (state, loss matrix, read-out)
#: is small beside them on either path.
EXACT_STEPS = 300


class ExactSRSteps:
    """Exact-mode SR steps per second (``FullSumState``, complex RBM, the Ising-inspired kappa = 10 matrix with
    a random ``b``): ``train``'s compiled loop against NetKet's VMC driver (``driver=True``, the path before the
    loop), the two interleaved in one process, with the load average beside them. Goal: a speedup of at least
    5 at 3-6 qubits. ``track_max_relative_loss_difference`` is the accuracy beside it: the two paths' losses
    over the run (0 while they agree bit for bit, as they do for real matrices).
    """

    params = ([3, 4, 5, 6], ["cg", "cholesky"])
    param_names = ["n_qubits", "sr_solver"]
    timeout = 600
    steps = EXACT_STEPS
    options = dict(model="crbm", exact=True, n_samples=1024, learning_rate=0.05, diag_shift=0.01, alpha=1)

    def setup(self, n, sr_solver):
        s = ising_inspired(n, 10.0)
        self.system = LinearSystem(s.A, np.random.default_rng(0).normal(size=2**n))
        self.runs = {driver: self._train(n, sr_solver, driver) for driver in (True, False)}  # compiles both

    def _train(self, n, sr_solver, driver):
        return train(self.system, n, n_iter=self.steps, seed=0, driver=driver, sr_solver=sr_solver, **self.options)

    def _steps_per_second(self, n, sr_solver):
        """SR steps per second of the driver and of the loop: the best of three solves each, interleaved."""
        paths = [lambda driver=driver: self._train(n, sr_solver, driver) for driver in (True, False)]
        driver, loop = best_of_interleaved(paths)
        return self.steps / driver, self.steps / loop

    def time_compiled_solve(self, n, sr_solver):
        self._train(n, sr_solver, False)

    def track_speedup_compiled_over_driver(self, n, sr_solver):
        driver, compiled = self._steps_per_second(n, sr_solver)
        return compiled / driver

    track_speedup_compiled_over_driver.unit = "ratio"

    def track_compiled_steps_per_second(self, n, sr_solver):
        return self._steps_per_second(n, sr_solver)[1]

    track_compiled_steps_per_second.unit = "SR steps/s"

    def track_load_average(self, n, sr_solver):
        return os.getloadavg()[0]

    track_load_average.unit = "load (1 min)"

    def track_max_relative_loss_difference(self, n, sr_solver):
        theirs, ours = np.asarray(self.runs[True].history), np.asarray(self.runs[False].history)
        return float(np.max(np.abs(ours - theirs) / np.abs(theirs)))

    track_max_relative_loss_difference.unit = "relative difference"


#: SR steps per timed solve in ``SampledSRSteps``: the driver takes 60-110 ms a step at 7-9 qubits.
SAMPLED_STEPS = 200


class SampledSRSteps(ExactSRSteps):
    """Monte Carlo SR steps per second (``MCState``, complex RBM, 1,024 samples, Metropolis, SR's CG: the
    paper's configuration) on the Ising-inspired kappa = 10 matrix with a random ``b``: ``train``'s compiled
    loop against NetKet's VMC driver, interleaved in one process, the load beside them. Each timed solve
    includes what both paths pay once (the state, the loss's tables, the read-out), which only lowers the
    ratio. ``track_steps_in_step``: how long the two paths' loss estimates agree to 1e-6 (the same chains and draws,
    until a rounding difference decides one acceptance test otherwise); ``track_max_relative_loss_difference``
    then holds Monte Carlo noise. Goal: at least 5 times per iteration at 7-9 qubits."""

    params = ([7, 8, 9], ["cg"])
    steps = SAMPLED_STEPS
    options = dict(model="crbm", exact=False, n_samples=1024, learning_rate=0.05, diag_shift=0.01, alpha=1)

    def track_steps_in_step(self, n, sr_solver):
        """Steps the two paths take before their losses first differ by more than 1e-6 (relative): the chains are
        the same until an acceptance test falls within the paths' accumulated rounding of its threshold; from
        there they are two samples of one Markov chain, and their losses differ by Monte Carlo noise."""
        theirs, ours = np.asarray(self.runs[True].history), np.asarray(self.runs[False].history)
        apart = np.flatnonzero(np.abs(ours - theirs) > 1e-6 * np.abs(theirs))
        return int(apart[0]) if len(apart) else len(theirs)

    track_steps_in_step.unit = "steps"
