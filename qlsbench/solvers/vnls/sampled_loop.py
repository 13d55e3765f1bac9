"""Monte Carlo SR steps compiled as one loop: NetKet's step for an ``MCState`` on :class:`~.operator.VNLSLoss`,
without its driver.

``nk.driver.VMC`` spends a sampled step mostly outside arithmetic: it resets and runs the sampler, asks the loss
for its kernel arguments (the shift, a ``log_value`` call and the ``c`` term's draws and amplitudes in numpy),
calls the jitted forces, builds the geometric tensor, solves, casts and updates, each a separate dispatch, and
evaluates the model on every sample's connected configurations (47,104 evaluations at 9 qubits with 1,024
samples, for 512 distinct ones). At 7-9 qubits that was 50-110 ms a step. Here the same step runs ``k`` times
inside one ``jax.lax.fori_loop``:

- each step evaluates the model once on the ``2^n`` basis states when that is fewer evaluations
  (:func:`use_table`) and reads every amplitude the step needs from that table: the sampler's, the shift's,
  the ``c`` term's and the local energies';
- the chains are NetKet's ``MetropolisLocal`` chains (its reset, ``n_discard_per_chain`` sweeps, then the kept
  ones), with its keys used as it uses them; on qubits with a table, :func:`_local_chains` draws every step's
  flip site and uniform up front from those keys and then only flips, looks up and accepts (the same samples,
  keys and counters as NetKet's sampler, to the bit); otherwise NetKet's sampler itself runs in the loop;
- the local energies are :mod:`.operator`'s; the forces are ``forces_expect_hermitian``'s covariance, taken
  from the geometric tensor's Jacobian for a holomorphic model (:func:`_forces_from_jacobian`) rather than by a
  second pass over the samples;
- the geometric tensor is NetKet's ``QGTJacobianDense`` constructor, solved with SR's solver, the update
  ``tree_cast`` and the driver's ``apply_gradient``.

The loss draws its ``x' ~ |b|^2`` with the same numpy generator in the same order (all of a run's draws are
taken up front, the generator's stream unchanged); the ``c`` term's mean and the forces are taken in JAX by
other operations than the driver's, so they round differently in their last bits. The chains are the driver's
while no acceptance test falls within a rounding error of its threshold; ``tests/test_vnls.py`` checks the loop
step for step against the driver, against a control that only reorders the driver's own sums.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from netket._src.driver.abstract_optimization_driver import apply_gradient
from netket.jax import tree_cast
from netket.optimizer.qgt.qgt_jacobian import QGTJacobian_DefaultConstructor
from netket.vqs.mc.common import force_to_grad
from netket.vqs.mc.mc_state.expect_forces import forces_expect_hermitian

from qlsbench.solvers.vnls.exact_loop import buffer_length
from qlsbench.solvers.vnls.operator import index_to_states, local_energy, states_to_index


class Statics(NamedTuple):
    """What a run's compiled steps hold fixed (hashable: the jitted loop's static argument)."""

    apply_fun: Callable  # the state's apply function
    model: Any  # the model the sampler evaluates (the state's ``_sampler_model``)
    sampler: Any  # the state's Metropolis sampler
    update: Callable  # the optimizer's update
    holomorphic: bool  # whether the QGT treats the model as holomorphic
    solve: Callable  # SR's linear solve
    n_discard: int  # samples discarded per chain before each step's chain (``MCState.n_discard_per_chain``)
    chain_length: int  # samples kept per chain
    n: int  # qubits
    local_chains: bool  # whether the sampler's chains may be taken by _local_chains (local_qubit_chains)


def table_lookup(table, sigma):
    """Log-amplitudes of the configurations ``sigma`` read from ``table`` (one per basis state): a model of the
    form ``f(parameters, sigma)``, the table standing in for the parameters, for NetKet's sampler."""
    return table[states_to_index(sigma, sigma.shape[-1])]


def _table_local_energy(logpsi, pars, sigma, args):
    """:func:`~.operator.local_energy` with every amplitude read from the step's table (``args[0]``)."""
    table, aa_cols, aa_vals, g, c, shift = args
    x = states_to_index(sigma, sigma.shape[-1])
    log_x = table[x]
    direct = jnp.sum(aa_vals[x] * jnp.exp(table[aa_cols[x]] - log_x[:, None]), axis=-1)
    return direct - g[x] * c * jnp.exp(shift - log_x)


def local_qubit_chains(sampler) -> bool:
    """Whether ``sampler`` is NetKet's ``MetropolisLocal`` on qubits as the models build it (no chain reset, no
    chunks, ``|psi|^2``): the sampler :func:`_local_chains` takes the same steps of."""
    import netket as nk

    return (
        isinstance(sampler, nk.sampler.MetropolisSampler)
        and isinstance(sampler.rule, nk.sampler.rules.LocalRule)
        and isinstance(sampler.hilbert, nk.hilbert.Qubit)
        and not sampler.reset_chains
        and sampler.chunk_size is None
        and int(sampler.machine_pow) == 2
    )


def _local_chains(sampler, table, sampler_state, discard: int, length: int):
    """``MetropolisLocal``'s reset, ``discard`` sweeps and ``length`` kept sweeps on qubits, the log-amplitudes
    read from ``table``: NetKet's chains, with the random draws taken up front.

    Each Metropolis step of NetKet's sampler splits the chain key in three (the next key, the transition's, the
    acceptance's), draws the site to flip from the transition key's first half and the uniforms from the
    acceptance key; on qubits the flip itself draws nothing. None of it depends on the chains, so every step's
    sites and uniforms are drawn here at once from the same keys, and the steps that follow only flip, look up
    and accept: the per-step work NetKet's loop did between its random draws, without them.
    """
    n = sampler.hilbert.size
    steps = (discard + length) * sampler.sweep_size

    def split(key, _):
        key, transition, acceptance = jax.random.split(key, 3)
        return key, (transition, acceptance)

    key, (transitions, acceptances) = jax.lax.scan(split, sampler_state.rng, None, length=steps)
    sites = jax.vmap(lambda k: jax.random.randint(jax.random.split(k, 2)[0], (sampler.n_batches,), 0, n))(transitions)
    uniforms = jax.vmap(lambda k: jax.random.uniform(k, shape=(sampler.n_batches,)))(acceptances)
    chains = jnp.arange(sampler.n_batches)

    def log_prob(sigma):
        return 2 * jnp.real(table_lookup(table, sigma))

    def metropolis(t, carry):
        sigma, lp, accepted = carry
        proposal = sigma.at[chains, sites[t]].set(1 - sigma[chains, sites[t]])
        proposal_lp = log_prob(proposal)
        accept = uniforms[t] < jnp.exp(proposal_lp - lp)
        return jnp.where(accept[:, None], proposal, sigma), jnp.where(accept, proposal_lp, lp), accepted + accept

    def sweep(carry, t):
        carry = jax.lax.fori_loop(t * sampler.sweep_size, (t + 1) * sampler.sweep_size, metropolis, carry)
        return carry, carry[0]

    sigma = sampler_state.σ
    carry = (sigma, log_prob(sigma), jnp.zeros_like(sampler_state.n_accepted_proc))
    (sigma, lp, accepted), kept = jax.lax.scan(sweep, carry, jnp.arange(discard + length))
    samples = jnp.swapaxes(kept[discard:], 0, 1)  # (chains, samples per chain), as NetKet returns them
    # the counters as NetKet leaves them: zeroed by the reset, then counting the discarded and the kept steps
    counted = jnp.asarray(steps * sampler.n_batches, dtype=sampler_state.n_steps_proc.dtype)
    state = sampler_state.replace(σ=sigma, log_prob=lp, rng=key, n_steps_proc=counted, n_accepted_proc=accepted)
    return samples, state


def _sample(statics: Statics, variables, table, sampler_state):
    """``MCState.sample``: reset the chains' log-probabilities, discard, then the chain that is kept; the
    amplitudes from ``table`` where it is given, else from the model."""
    if table is not None and statics.local_chains:
        return _local_chains(statics.sampler, table, sampler_state, statics.n_discard, statics.chain_length)
    machine, parameters = (table_lookup, table) if table is not None else (statics.model, variables)
    sampler, discard = statics.sampler, statics.n_discard
    sampler_state = sampler.reset(machine, parameters, sampler_state)
    if discard > 0:
        _, sampler_state = sampler.sample(machine, parameters, state=sampler_state, chain_length=discard)
    return sampler.sample(machine, parameters, state=sampler_state, chain_length=statics.chain_length)


def _kernel(statics: Statics, variables, loss, xs, samples, table):
    """The local-energy kernel and its arguments (``VNLSLoss``'s: the samples' largest log-amplitude, then the
    ``c`` term from the draws ``xs``), with amplitudes from ``table`` where it is given."""
    apply_fun, n = statics.apply_fun, statics.n
    cols = loss["a_cols"][xs]

    def log_values(configurations):
        if table is not None:
            return table[states_to_index(configurations, n)]
        return apply_fun(variables, configurations)

    shift = jnp.max(jnp.real(log_values(samples.reshape(-1, n))))
    logpsi = log_values(index_to_states(cols.reshape(-1), n)).reshape(cols.shape)
    c = jnp.mean(jnp.sum(loss["a_vals"][xs] * jnp.exp(logpsi - shift), axis=1) / loss["b"][xs])
    if table is not None:
        return _table_local_energy, (table, loss["aa_cols"], loss["aa_vals"], loss["g"], c, shift)
    return local_energy, (loss["aa_cols"], loss["aa_vals"], loss["g"], c, shift)


def _sr_step(statics: Statics, model_state, loss, xs, diag_shift, params, optimizer_state, sampler_state):
    """One step of ``nk.driver.VMC`` with ``SR(QGTJacobianDense, solver=statics.solve)`` on an ``MCState``;
    returns the new parameters, optimizer state, sampler state and the loss estimate before the step (the
    driver's ``Energy``)."""
    apply_fun, holomorphic = statics.apply_fun, statics.holomorphic
    variables = {"params": params, **model_state}
    table = apply_fun(variables, loss["basis"]) if "basis" in loss else None
    samples, sampler_state = _sample(statics, variables, table, sampler_state)
    kernel, arguments = _kernel(statics, variables, loss, xs, samples, table)
    qgt = QGTJacobian_DefaultConstructor(
        apply_fun, params, model_state, samples, pdf=None, dense=True, holomorphic=holomorphic, diag_shift=diag_shift
    )
    if qgt.mode == "holomorphic":
        stats, forces = _forces_from_jacobian(kernel, apply_fun, variables, samples, arguments, qgt.O, params)
    else:
        stats, forces, _ = forces_expect_hermitian(kernel, apply_fun, False, params, model_state, samples, arguments)
    gradient = force_to_grad(forces, params)
    dp, _ = qgt.solve(statics.solve, gradient, x0=None)  # SR without restart: no x0
    optimizer_state, params = apply_gradient(statics.update, optimizer_state, tree_cast(dp, params), params)
    return params, optimizer_state, sampler_state, stats.mean


def _forces_from_jacobian(kernel, apply_fun, variables, samples, arguments, jacobian, params):
    """The loss estimate and its forces, ``F = O^H (l - <l>) / N``, from the geometric tensor's Jacobian.

    ``forces_expect_hermitian`` takes the same covariance by a vector-Jacobian product, which runs the model
    forward and back over the samples once more; for a holomorphic model the QGT's Jacobian (centred, and
    divided by ``sqrt(N)``) holds every per-sample log-derivative already: ``F = O_c^H (l - <l>) / sqrt(N)``,
    the centring dropping out of a covariance. The two agree to rounding (``tests/test_vnls.py`` checks the
    loop against the driver step for step).
    """
    from jax.flatten_util import ravel_pytree
    from netket.stats import statistics

    n_chains = samples.shape[0]
    local = kernel(apply_fun, variables, samples.reshape(-1, samples.shape[-1]), arguments)
    stats = statistics(local.reshape((n_chains, -1)))
    forces = jacobian.conj().T @ (local - stats.mean) / jnp.sqrt(local.shape[0])
    return stats, ravel_pytree(params)[1](forces)


def use_table(n: int, samples: int, width: int) -> bool:
    """Whether a step evaluates the model once on each of the ``2^n`` basis states and reads every amplitude
    from that table, rather than on each sample's ``width`` connected configurations: where the table is the
    smaller count of evaluations (9 qubits, 1,024 samples: 512 against 47,104)."""
    return 2**n <= samples * width


@functools.partial(jax.jit, static_argnums=(0,))
def _steps(statics, model_state, loss, draws, diag_shift, carry, first, last):
    """Steps ``first .. last - 1``: ``carry`` is ``(params, optimizer_state, sampler_state, losses)``; step ``i``
    uses the draws ``draws[i]`` and writes its loss at ``losses[i]``."""

    def body(i, carry):
        params, optimizer_state, sampler_state, losses = carry
        params, optimizer_state, sampler_state, value = _sr_step(
            statics, model_state, loss, draws[i], diag_shift, params, optimizer_state, sampler_state
        )
        return params, optimizer_state, sampler_state, losses.at[i].set(jnp.real(value))

    return jax.lax.fori_loop(first, last, body, carry)


class SampledLoop:
    """SR steps of an ``MCState`` on a :class:`~.operator.VNLSLoss`, run in compiled chunks.

    Takes the parameters of :class:`~.exact_loop.ExactLoop`, with ``state`` an ``MCState`` with a Metropolis
    sampler (its sampler state is read at the start and written back by :meth:`sync` too) and ``op`` the Monte
    Carlo loss, whose generator draws the ``c`` term's samples of every step here, in the driver's order.
    """

    def __init__(self, state, op, optimizer, holomorphic: bool, diag_shift: float, steps: int, solve=None):
        self.state = state
        n = op.n
        self._statics = Statics(
            state._apply_fun,
            state._sampler_model,
            state.sampler,
            optimizer.update,
            bool(holomorphic),
            solve or jax.scipy.sparse.linalg.cg,
            int(state.n_discard_per_chain),
            int(state.chain_length),
            n,
            local_qubit_chains(state.sampler),
        )
        length = buffer_length(steps)
        draws = np.zeros((length, op.c_samples), dtype=np.int32)
        for i in range(steps):  # the driver draws once per step, in this order
            draws[i] = op.draw()
        self._loss = {
            "aa_cols": op.aa_cols,
            "aa_vals": op.aa_vals,
            "g": op.g,
            "a_cols": jnp.asarray(op.a_cols),
            "a_vals": jnp.asarray(op.a_vals),
            "b": jnp.asarray(op.b),
        }
        if use_table(n, state.n_samples, int(op.aa_cols.shape[1])):
            self._loss["basis"] = jnp.asarray(state.hilbert.all_states())
        self._fixed = (state.model_state, self._loss, jnp.asarray(draws), jnp.asarray(float(diag_shift)))
        params = state.parameters
        self._carry = (params, optimizer.init(params), state.sampler_state, jnp.zeros(length))
        self.done = 0

    def run_to(self, last: int) -> None:
        """Take the steps up to ``last`` (a count of steps of this run)."""
        if last > self.done:
            self._carry = _steps(self._statics, *self._fixed, self._carry, self.done, last)
            self.done = last

    def sync(self) -> None:
        """Write the loop's parameters and sampler state into the state."""
        self.state.parameters = self._carry[0]
        self.state.sampler_state = self._carry[2]

    def losses(self) -> list[float]:
        """The real part of the loss estimate before each step taken."""
        return [float(v) for v in np.asarray(self._carry[3][: self.done])]
