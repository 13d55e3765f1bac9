"""An MPS (tensor-train) linear solver by alternating sweeps, on quimb's tensor-network machinery.

qlsbench's ``external`` solver calls :func:`solve` in this folder's own
environment (``requirements.txt``); ``README.md`` gives the algorithm, the
options and the parameter counts. quimb ships no MPS linear solver (its DMRG
solves eigenproblems, its ALS fitting minimises the distance between two
networks), so the sweeps are written here; every contraction is quimb's.

The unknown ``x`` on ``n`` qubits is an open-boundary MPS whose bond ``k``
(between sites ``k`` and ``k + 1``) has dimension ``min(D, 2^(k+1), 2^(n-k-1))``
for bond dimension ``D``. Sweeps minimise ``||A x - b||^2`` over one site or
two neighbouring sites at a time, the other sites held in canonical form, so
each local problem is the least-squares problem restricted to an orthonormal
frame ``P``: ``min_v ||A P v - b||``. It is solved

- by its normal equations ``(P^H A^H A P) v = P^H A^H b``, whose matrix and
  right-hand side are contracted from cached environments of the MPO of
  ``A^H A`` and the MPS of ``A^H b`` (``local="normal"``); or
- by least squares on the tall matrix ``A P`` (``2^n`` rows), contracted from
  cached environments of the MPO of ``A`` applied to the frame's blocks
  (``local="lstsq"``): the same minimiser, without squaring ``A``'s condition
  number; or
- by the first, switching to the second for the rest of the solve when a
  local normal matrix is too ill-conditioned to solve accurately: reciprocal
  condition number below ``RCOND`` or a failed Cholesky factorisation
  (``local="auto"``, the default).
"""

from __future__ import annotations

import time

import numpy as np
import quimb.tensor as qtn
import scipy.linalg as sla
from scipy.linalg import get_lapack_funcs

#: Options and their defaults (``solver_options`` of the ``external`` spec).
DEFAULTS = {
    "bond_dim": 4,  # D: largest bond dimension of x
    "max_sweeps": 30,  # one sweep: a pass left to right and one back
    "tol": 1e-10,  # converged when ||A x - b|| / ||b|| <= tol after a sweep
    "stall": 1e-6,  # stalled when a sweep lowers that residual by less than this fraction of it
    "sites": 2,  # 1: one-site ALS (bonds fixed); 2: two-site (MALS: the pair split by an SVD truncated to D)
    "local": "auto",  # "normal", "lstsq" or "auto" (module docstring)
}
#: Singular values below this fraction of the largest are dropped when A, A^H A, A^H b become an MPO or MPS
#: (quimb's default, 1e-10 of the squared norm, would change A at the 1e-5 level).
SPLIT = {"cutoff": 1e-15, "cutoff_mode": "rel"}
#: ``local="auto"`` leaves the normal equations for least squares below this reciprocal condition number of a
#: local normal matrix: its solution would keep fewer than about 8 digits.
RCOND = 1e-8


def bond_dims(n: int, D: int) -> list[int]:
    """Bond dimensions of x: bond k between sites k and k+1, capped by the Hilbert space on either side."""
    return [min(D, 2 ** (k + 1), 2 ** (n - k - 1)) for k in range(n - 1)]


def parameter_count(n: int, D: int) -> int:
    """Entries of the site tensors of an n-site MPS of bond dimension D (physical dimension 2)."""
    bonds = [1, *bond_dims(n, D), 1]
    return sum(bonds[i] * 2 * bonds[i + 1] for i in range(n))


def _sites(tn, n: int, kind: str) -> list[np.ndarray]:
    """The site arrays of a quimb MPS or MPO in a fixed layout with unit bonds at the ends:
    (left, phys, right) for an MPS, (left, upper, lower, right) for an MPO."""
    out = []
    for i in range(n):
        left = [tn.bond(i - 1, i)] if i > 0 else []
        right = [tn.bond(i, i + 1)] if i < n - 1 else []
        phys = [tn.site_ind(i)] if kind == "mps" else [tn.upper_ind(i), tn.lower_ind(i)]
        data = np.asarray(tn[i].transpose(*left, *phys, *right).data)
        if i == 0:
            data = data[None]
        if i == n - 1:
            data = data[..., None]
        out.append(data)
    return out


# Index names: bond k of the ket x is "x{k}", of its conjugate (the bra) "y{k}", of an operator's MPO "w{k}", of
# the right-hand side's MPS "v{k}"; the ket's physical index at site i is "b{i}" (an operator's input), the bra's
# "k{i}" (an operator's output). Bonds -1 and n-1 are the unit bonds at the ends.
def _ket(a, i):
    return qtn.Tensor(a, inds=(f"x{i - 1}", f"b{i}", f"x{i}"))


def _bra(a, i):
    return qtn.Tensor(a.conj(), inds=(f"y{i - 1}", f"k{i}", f"y{i}"))


def _op(a, i):
    return qtn.Tensor(a, inds=(f"w{i - 1}", f"k{i}", f"b{i}", f"w{i}"))


def _rhs(a, i):
    return qtn.Tensor(a, inds=(f"v{i - 1}", f"k{i}", f"v{i}"))


def _contract(tensors, output):
    return qtn.tensor_contract(*tensors, output_inds=output, preserve_tensor=True)


def _solve_normal(G, h):
    """``G v = h`` for Hermitian positive definite ``G`` by Cholesky, and LAPACK's estimate of ``G``'s reciprocal
    condition number (0 when the factorisation fails)."""
    potrf, potrs, pocon = get_lapack_funcs(("potrf", "potrs", "pocon"), (G, h))
    c, info = potrf(G, lower=False)
    if info != 0:
        return None, 0.0
    rcond, info = pocon(c, np.linalg.norm(G, 1))
    v, info = potrs(c, h, lower=False)
    return (v if info == 0 else None), float(rcond)


class _Sweeper:
    """The MPS x, its canonical centre, and the cached left and right environments of the local problems."""

    def __init__(self, A, b, n, D, rng, sites, local):
        self.n, self.D, self.sites = n, D, sites
        self.mode = "lstsq" if local == "lstsq" else "normal"
        self.switch = local == "auto"
        self.switched = None  # (sweep, site) where auto left the normal equations
        self.sweeps = 0
        self.dtype = np.result_type(A.dtype, b.dtype, np.float64)
        self.A, self.b = A, b
        # The initial x: Gaussian entries drawn from the seed, then right-canonical (centre at site 0).
        bonds = [1, *bond_dims(n, D), 1]
        self.x = []
        for i in range(n):
            shape = (bonds[i], 2, bonds[i + 1])
            a = rng.standard_normal(shape)
            if np.issubdtype(self.dtype, np.complexfloating):
                a = a + 1j * rng.standard_normal(shape)
            self.x.append(a.astype(self.dtype))
        for i in range(n - 1, 0, -1):
            self._right_orthonormalise(i)
        self.x[0] /= np.linalg.norm(self.x[0])
        self.N = self.c = self.W = None
        self._operators()
        self._rebuild(0, 0)

    def _operators(self):
        """The MPO and MPS the current mode contracts: A^H A and A^H b, or A."""
        A, b, n = self.A, self.b, self.n
        if self.mode == "normal" and self.N is None:
            AH = A.conj().T
            self.N = _sites(qtn.MatrixProductOperator.from_dense(AH @ A, dims=2, **SPLIT), n, "mpo")
            self.c = _sites(qtn.MatrixProductState.from_dense(AH @ b, dims=2, **SPLIT), n, "mps")
        if self.mode == "lstsq" and self.W is None:
            self.W = _sites(qtn.MatrixProductOperator.from_dense(A, dims=2, **SPLIT), n, "mpo")

    def _rebuild(self, lo, hi):
        """Every environment of the window lo..hi from scratch (sites left of it left-orthonormal, right of it
        right-orthonormal)."""
        self.left, self.right = {}, {}
        self._boundaries()
        for i in range(lo):
            self._grow_left(i)
        for i in range(self.n - 1, hi, -1):
            self._grow_right(i)

    # ------------------------------------------------------------------ gauge

    def _right_orthonormalise(self, i):
        """Make site i right-orthonormal, its R factor absorbed into site i-1."""
        a = self.x[i]
        dl, d, dr = a.shape
        q, r = np.linalg.qr(a.reshape(dl, d * dr).T)
        self.x[i] = q.T.reshape(q.shape[1], d, dr)
        self.x[i - 1] = np.tensordot(self.x[i - 1], r.T, axes=(2, 0))

    def _left_orthonormalise(self, i):
        """Make site i left-orthonormal, its R factor absorbed into site i+1."""
        a = self.x[i]
        dl, d, dr = a.shape
        q, r = np.linalg.qr(a.reshape(dl * d, dr))
        self.x[i] = q.reshape(dl, d, q.shape[1])
        self.x[i + 1] = np.tensordot(r, self.x[i + 1], axes=(1, 0))

    # ----------------------------------------------------------- environments

    def _boundaries(self):
        n, one = self.n, np.ones((1, 1, 1), self.dtype)
        if self.mode == "normal":  # <x| A^H A |x> and <x| A^H b>
            self.left[0] = (qtn.Tensor(one, inds=("y-1", "w-1", "x-1")), qtn.Tensor(one[0], inds=("y-1", "v-1")))
            self.right[n - 1] = (qtn.Tensor(one, inds=(f"y{n - 1}", f"w{n - 1}", f"x{n - 1}")),
                                 qtn.Tensor(one[0], inds=(f"y{n - 1}", f"v{n - 1}")))
        else:  # A |x>, the operator's output indices left open
            self.left[0] = qtn.Tensor(one[0], inds=("w-1", "x-1"))
            self.right[n - 1] = qtn.Tensor(one[0], inds=(f"w{n - 1}", f"x{n - 1}"))

    def _grow_left(self, i):
        """The environment left of site i+1 from the one left of site i and site i (left-orthonormal)."""
        ket = _ket(self.x[i], i)
        if self.mode == "normal":
            L, Lc = self.left[i]
            bra = _bra(self.x[i], i)
            self.left[i + 1] = (_contract([L, bra, _op(self.N[i], i), ket], (f"y{i}", f"w{i}", f"x{i}")),
                                _contract([Lc, bra, _rhs(self.c[i], i)], (f"y{i}", f"v{i}")))
        else:
            L = self.left[i]
            self.left[i + 1] = _contract([L, _op(self.W[i], i), ket], (*L.inds[:-2], f"k{i}", f"w{i}", f"x{i}"))

    def _grow_right(self, i):
        """The environment right of site i-1 from the one right of site i and site i (right-orthonormal)."""
        ket = _ket(self.x[i], i)
        if self.mode == "normal":
            R, Rc = self.right[i]
            bra = _bra(self.x[i], i)
            self.right[i - 1] = (_contract([R, bra, _op(self.N[i], i), ket], (f"y{i - 1}", f"w{i - 1}", f"x{i - 1}")),
                                 _contract([Rc, bra, _rhs(self.c[i], i)], (f"y{i - 1}", f"v{i - 1}")))
        else:
            R = self.right[i]
            self.right[i - 1] = _contract([_op(self.W[i], i), ket, R], (f"w{i - 1}", f"x{i - 1}", f"k{i}", *R.inds[2:]))

    # ------------------------------------------------------------ local solve

    def _local(self, lo, hi):
        """The minimiser of ||A x - b|| over sites lo..hi (the others fixed, in canonical form), as an array
        (left bond, 2, [2,] right bond)."""
        window = range(lo, hi + 1)
        kets = (f"x{lo - 1}", *(f"b{i}" for i in window), f"x{hi}")
        shape = (self.x[lo].shape[0], *([2] * len(window)), self.x[hi].shape[2])
        m = int(np.prod(shape))
        if self.mode == "normal":
            (L, Lc), (R, Rc) = self.left[lo], self.right[hi]
            bras = (f"y{lo - 1}", *(f"k{i}" for i in window), f"y{hi}")
            G = _contract([L, *(_op(self.N[i], i) for i in window), R], (*bras, *kets)).data.reshape(m, m)
            h = _contract([Lc, *(_rhs(self.c[i], i) for i in window), Rc], bras).data.reshape(m)
            G = (G + G.conj().T) / 2  # Hermitian to rounding: solve it as such
            v, rcond = _solve_normal(G, h)
            if v is not None and (rcond >= RCOND or not self.switch):
                return v.reshape(shape)
            if not self.switch:  # "normal" as asked, on a matrix Cholesky cannot factor: its least-squares solution
                return sla.lstsq(G, h)[0].reshape(shape)
            self.mode, self.switch, self.switched = "lstsq", False, (self.sweeps + 1, lo)
            self._operators()
            self._rebuild(lo, hi)
        L, R = self.left[lo], self.right[hi]
        out = tuple(f"k{i}" for i in range(self.n))
        M = _contract([L, *(_op(self.W[i], i) for i in window), R], (*out, *kets)).data.reshape(-1, m)
        return sla.lstsq(M, self.b, lapack_driver="gelsy")[0].reshape(shape)

    def step(self, i, direction):
        """Solve the window at site i (and i+1 for two sites), move the centre one site in ``direction``."""
        if self.sites == 1:
            self.x[i] = self._local(i, i)
            if direction > 0:
                self._left_orthonormalise(i)
                self._grow_left(i)
            else:
                self._right_orthonormalise(i)
                self._grow_right(i)
            return
        theta = self._local(i, i + 1)
        dl, _, _, dr = theta.shape
        u, s, vh = np.linalg.svd(theta.reshape(dl * 2, 2 * dr), full_matrices=False)
        k = min(self.D, s.size)  # the bond's cap, min(D, 2^(i+1), 2^(n-i-1)), as x is canonical
        u, s, vh = u[:, :k], s[:k], vh[:k]
        if direction > 0:
            self.x[i], self.x[i + 1] = u.reshape(dl, 2, k), (s[:, None] * vh).reshape(k, 2, dr)
            self._grow_left(i)
        else:
            self.x[i], self.x[i + 1] = (u * s).reshape(dl, 2, k), vh.reshape(k, 2, dr)
            self._grow_right(i + 1)

    def sweep(self) -> int:
        """One pass left to right and one back; the number of local solves."""
        n = self.n
        if n == 1:
            self.x[0] = self._local(0, 0)
            solves = 1
        elif self.sites == 1:  # sites 0..n-2 rightwards (the centre then at n-1), sites n-1..1 leftwards
            for i in range(n - 1):
                self.step(i, +1)
            for i in range(n - 1, 0, -1):
                self.step(i, -1)
            solves = 2 * (n - 1)
        else:  # pairs (0,1)..(n-2,n-1) rightwards, then back
            for i in range(n - 1):
                self.step(i, +1)
            for i in range(n - 2, -1, -1):
                self.step(i, -1)
            solves = 2 * (n - 1)
        self.sweeps += 1
        return solves

    def dense(self) -> np.ndarray:
        """x as a dense vector, site 0 its most significant bit (as quimb's from_dense reads A and b)."""
        if self.n == 1:
            return self.x[0][0, :, 0].copy()
        arrays = list(self.x)
        arrays[0], arrays[-1] = arrays[0][0], arrays[-1][..., 0]
        return np.asarray(qtn.MatrixProductState(arrays, shape="lpr").to_dense()).reshape(-1)


def solve(problem):
    """Solve ``problem`` (qlsbench's external ``Problem``: A, b, seed, options, meta) with an MPS of bond
    dimension ``bond_dim``; the answer dict of qlsbench's file protocol."""
    start = time.perf_counter()
    unknown = set(problem.options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    opts = {**DEFAULTS, **problem.options}
    D, sites, local = int(opts["bond_dim"]), int(opts["sites"]), str(opts["local"])
    if D < 1 or sites not in (1, 2) or local not in ("auto", "normal", "lstsq") or int(opts["max_sweeps"]) < 1:
        raise ValueError(f"need bond_dim >= 1, max_sweeps >= 1, sites 1 or 2, local auto, normal or lstsq; got "
                         f"{D}, {opts['max_sweeps']}, {sites}, {local!r}")
    A, b = np.asarray(problem.A), np.asarray(problem.b)
    dim = b.shape[0]
    n = dim.bit_length() - 1
    if 2 ** n != dim or A.shape != (dim, dim):
        return {"x": None, "status": "skipped", "message": f"mps-als: dimension {dim} is not a power of two"}
    bnorm = np.linalg.norm(b)
    if bnorm == 0:
        return {"x": np.zeros(dim, A.dtype), "status": "converged", "message": "mps-als: b = 0", "iterations": 0,
                "resources": {"parameters": parameter_count(n, D), "cost_evaluations": 0}}
    sweeper = _Sweeper(A, b, n, D, np.random.default_rng(problem.seed), sites, local)
    history, progress, solves = [], [], 0
    status, message = "max_iter", f"{opts['max_sweeps']} sweeps"
    for sweep in range(1, int(opts["max_sweeps"]) + 1):
        solves += sweeper.sweep()
        x = sweeper.dense()
        residual = float(np.linalg.norm(A @ x - b) / bnorm)
        history.append(residual)
        progress.append([solves, x, time.perf_counter() - start])
        if not np.isfinite(residual):
            status, message = "failed", f"residual {residual} after sweep {sweep}"
            break
        if residual <= opts["tol"]:
            status, message = "converged", f"residual {residual:.3g} <= tol {opts['tol']:g} after {sweep} sweeps"
            break
        if len(history) > 1 and history[-2] - residual <= opts["stall"] * history[-2]:
            status, message = "stalled", (f"residual {residual:.3g}; sweep {sweep} lowered it by less than "
                                          f"{opts['stall']:g} of itself")
            break
    if sweeper.switched:
        message += (f"; least squares from sweep {sweeper.switched[0]}, site {sweeper.switched[1]} on (a local "
                    f"normal matrix had reciprocal condition number below {RCOND:g})")
    return {"x": x, "status": status, "message": f"mps-als D={D}: {message}", "iterations": len(history),
            "history": history, "progress": progress,
            "resources": {"parameters": int(sum(a.size for a in sweeper.x)), "cost_evaluations": solves,
                          "bond_dim": D, "bonds": bond_dims(n, D), "sites": sites,
                          "local": sweeper.mode if local == "auto" else local,
                          "switched_to_lstsq": sweeper.switched is not None}}
