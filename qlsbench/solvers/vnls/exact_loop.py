"""Exact-mode SR steps compiled as one loop: NetKet's step for a ``FullSumState``, without its driver.

``nk.driver.VMC`` takes one SR step per Python iteration: it resets the state, builds the amplitudes, multiplies
them by the loss matrix on the host, computes forces and the geometric tensor, solves by CG, applies the update
and calls back. At 5 qubits the arithmetic is a vector of 32 entries; the per-step dispatch is what cost about
3 ms a step. Here the same step, made of NetKet's own functions (the amplitudes of ``nn.to_array``, the forces of
the full-sum ``expect_and_forces``, the ``QGTJacobianDense`` constructor and its ``solve`` with the CG solver that
``nk.optimizer.SR`` uses by default, ``tree_cast`` and the driver's ``apply_gradient``), runs ``k`` times inside
one ``jax.lax.fori_loop``, so the host is visited only at read-outs.

The one piece not NetKet's is the loss matrix times the amplitudes: NetKet multiplies by the scipy CSR matrix
on the host, this loop by the same CSR arrays in JAX. For real loss matrices the two give the driver's trajectory
bit for bit here; for complex ones they round differently, and SR's CG solve amplifies a rounding difference to
about 1e-7 of the loss within 10 steps, as much as merely reordering each row's sum inside NetKet's own driver
does (``tests/test_vnls.py`` checks the loop step for step against the driver with that reordering as control).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp
from netket._src.driver.abstract_optimization_driver import apply_gradient
from netket.jax import tree_cast
from netket.nn.utils import _to_array_rank
from netket.optimizer.qgt.qgt_jacobian import QGTJacobian_DefaultConstructor
from netket.vqs.full_summ.expect import _exp_forces
from netket.vqs.mc.common import force_to_grad


def _csr_arrays(H: sp.csr_matrix) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Row of every stored entry, its column and its value: what :func:`_matvec` needs."""
    H = sp.csr_matrix(H)
    rows = np.repeat(np.arange(H.shape[0], dtype=np.int32), np.diff(H.indptr))
    return jnp.asarray(rows), jnp.asarray(H.indices.astype(np.int32)), jnp.asarray(H.data)


def _matvec(csr, psi: jax.Array) -> jax.Array:
    """``H psi`` from the CSR arrays, summed per row (the product NetKet takes with scipy)."""
    rows, columns, values = csr
    return jax.ops.segment_sum(values * psi[columns], rows, num_segments=psi.shape[0], indices_are_sorted=True)


def _sr_step(apply_fun, update, holomorphic, solve, model_state, states, csr, diag_shift, params, optimizer_state):
    """One step of ``nk.driver.VMC`` with ``SR(QGTJacobianDense, solver=solve)`` on a ``FullSumState``; returns
    the new parameters, optimizer state and the loss before the step (what the driver logs as ``Energy``)."""
    variables = {"params": params, **model_state}
    psi = _to_array_rank(apply_fun, variables, states, states.shape[0], True, True, None)
    stats, forces, _ = _exp_forces(apply_fun, False, params, model_state, states, _matvec(csr, psi), psi)
    gradient = force_to_grad(forces, params)
    qgt = QGTJacobian_DefaultConstructor(
        apply_fun,
        params,
        model_state,
        states,
        pdf=jnp.abs(psi) ** 2,  # FullSumState.probability_distribution
        dense=True,
        holomorphic=holomorphic,
        diag_shift=diag_shift,
    )
    dp, _ = qgt.solve(solve, gradient, x0=None)  # SR without restart: no x0
    optimizer_state, params = apply_gradient(update, optimizer_state, tree_cast(dp, params), params)
    return params, optimizer_state, stats.mean


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def _steps(apply_fun, update, holomorphic, solve, model_state, states, csr, diag_shift, carry, first, last):
    """Steps ``first .. last - 1`` of a run: ``carry`` is ``(params, optimizer_state, losses)``, where the loss
    before step ``i`` is written at ``losses[i]``. ``first`` and ``last`` are traced, so every chunk length of a
    run reuses one program per shape."""

    def body(i, carry):
        params, optimizer_state, losses = carry
        params, optimizer_state, loss = _sr_step(
            apply_fun, update, holomorphic, solve, model_state, states, csr, diag_shift, params, optimizer_state
        )
        return params, optimizer_state, losses.at[i].set(jnp.real(loss))

    return jax.lax.fori_loop(first, last, body, carry)


def buffer_length(steps: int) -> int:
    """The loss buffer's length: ``steps`` rounded up to a power of two, so runs of similar length share a
    compiled program (the buffer's shape is part of it)."""
    return 1 << max(int(steps) - 1, 0).bit_length()


class ExactLoop:
    """SR steps of a ``FullSumState`` on an exact loss operator, run in compiled chunks.

    Parameters
    ----------
    state : netket.vqs.FullSumState
        The state; its parameters are read at the start and written back by :meth:`sync`.
    op : netket.operator.DiscreteOperator
        The loss; its ``to_sparse()`` matrix is what the state's ``expect_and_grad`` would use.
    optimizer : optax.GradientTransformation
        The driver's optimizer (the shared ``sgd(learning_rate)``).
    holomorphic : bool
        Whether the QGT treats the model as holomorphic (``ModelSpec.holomorphic``).
    diag_shift : float
        SR's diagonal shift.
    steps : int
        The most steps this run takes: the loss buffer holds them.
    solve : callable, optional
        SR's linear solve (``training.sr_solve``); NetKet's default, CG, when not given.
    """

    def __init__(self, state, op, optimizer, holomorphic: bool, diag_shift: float, steps: int, solve=None):
        self.state = state
        self._static = (state._apply_fun, optimizer.update, bool(holomorphic), solve or jax.scipy.sparse.linalg.cg)
        self._fixed = (state.model_state, jnp.asarray(state._all_states), _csr_arrays(op.to_sparse()))
        self._diag_shift = jnp.asarray(float(diag_shift))
        params = state.parameters
        self._carry = (params, optimizer.init(params), jnp.zeros(buffer_length(steps)))
        self.done = 0

    def run_to(self, last: int) -> None:
        """Take the steps up to ``last`` (a count of steps of this run)."""
        if last > self.done:
            self._carry = _steps(*self._static, *self._fixed, self._diag_shift, self._carry, self.done, last)
            self.done = last

    def sync(self) -> None:
        """Write the loop's parameters into the state (which drops its cached amplitudes)."""
        self.state.parameters = self._carry[0]

    def losses(self) -> list[float]:
        """The real part of the loss before each step taken."""
        return [float(v) for v in np.asarray(self._carry[2][: self.done])]
