"""Reader for frictional contact problems in the FCLIB HDF5 format.

An FCLIB file holds either a *global* problem (group ``fclib_global``: mass
matrix ``M``, contact matrix ``H`` and vectors ``f``, ``w``, ``mu``) with

    M v = H r + f,    u = H^T v + w,

or a *local* one (group ``fclib_local``: Delassus matrix ``W`` and vectors
``q``, ``mu``) with ``u = W r + q``. Eliminating ``v`` from a global problem
gives the local form ``W = H^T M^-1 H``, ``q = H^T M^-1 f + w``. Each contact
contributes three rows in its local frame ``(n, t1, t2)``.

Sparse matrices are groups with integer datasets ``nzmax``, ``m``, ``n``,
``nz`` and arrays ``p``, ``i``, ``x``. ``nz >= 0`` means triplet form with
``i`` the row and ``p`` the column indices (checked against the shipped
files: the fclib.h comment states the opposite, the data follow CSparse),
``nz = -1`` compressed columns and ``nz = -2`` compressed rows (``p`` the
pointers, ``i`` the indices).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.errors import DatasetError, InputError
from qlsbench.physics.lcp.problem import LCP

# Columns of H solved against M at once: bounds the dense block M^-1 H[:, cols]
# to a few tens of MB even for tens of thousands of degrees of freedom.
_SOLVE_BLOCK = 256


@dataclass(frozen=True)
class FrictionalContactProblem:
    """A 3-D frictional contact problem in local (Delassus) form ``u = W r + q``.

    Attributes
    ----------
    W : scipy.sparse.csr_matrix
        Delassus matrix, ``3 nc x 3 nc``; rows/columns ``3k, 3k+1, 3k+2`` are
        contact ``k``'s normal and two tangential directions.
    q : numpy.ndarray
        Free local velocity, length ``3 nc``.
    mu : numpy.ndarray
        Friction coefficient per contact, length ``nc``.
    nc : int
        Number of contacts.
    source : pathlib.Path
        File the problem was read from.
    kind : str
        ``"global"`` (W assembled from M and H) or ``"local"`` (W stored).
    """

    W: sp.csr_matrix
    q: np.ndarray
    mu: np.ndarray
    nc: int
    source: Path
    kind: str

    def __post_init__(self) -> None:
        m = 3 * self.nc
        if self.W.shape != (m, m) or self.q.shape != (m,) or self.mu.shape != (self.nc,):
            raise InputError(
                f"FrictionalContactProblem: W {self.W.shape}, q {self.q.shape} and "
                f"mu {self.mu.shape} do not fit nc = {self.nc}"
            )
        if self.kind not in ("global", "local"):
            raise InputError(f"FrictionalContactProblem: kind must be 'global' or 'local', got {self.kind!r}")


def read_fclib(path) -> FrictionalContactProblem:
    """Read an FCLIB HDF5 file into local form.

    Parameters
    ----------
    path : str or path-like
        An ``.hdf5`` file with a ``fclib_global`` or ``fclib_local`` group.

    Returns
    -------
    FrictionalContactProblem
        For a global problem ``W = H^T M^-1 H`` (via a sparse LU factorisation
        of ``M``, symmetrised to remove rounding asymmetry) and
        ``q = H^T M^-1 f + w``; for a local one ``W`` and ``q`` as stored.

    Raises
    ------
    DatasetError
        If the file is missing or not HDF5, or a group or field is missing,
        malformed or inconsistent; the message names the file and the field.
    """
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: FCLIB file not found")
    try:
        handle = h5py.File(path, "r")
    except OSError as exc:
        raise DatasetError(f"{path}: not a readable HDF5 file ({exc})") from exc
    with handle:
        try:
            kind = _kind(handle, path)
            reader = _read_global if kind == "global" else _read_local
            W, q, mu = reader(handle[f"fclib_{kind}"], path)
        except (OSError, KeyError, TypeError) as exc:  # h5py's errors on damaged objects
            raise DatasetError(f"{path}: unreadable FCLIB content ({exc})") from exc
    return FrictionalContactProblem(W, q, mu, mu.shape[0], path, kind)


def write_fclib_global(
    path,
    M: sp.spmatrix,
    H: sp.spmatrix,
    f: np.ndarray,
    w: np.ndarray,
    mu: np.ndarray,
    title: str = "",
    *,
    description: str | None = None,
    math_info: str | None = None,
    solution: tuple | None = None,
    guesses: tuple = (),
) -> Path:
    """Write a 3-D frictional contact problem in FCLIB's global form (``M v = H r + f``, ``u = H^T v + w``).

    The layout is the one FCLIB's own writer makes (``fclib_write_global``, ``fclib_write_solution``,
    ``fclib_write_guesses``), so FCLIB's reader and :func:`read_fclib` both take it.

    Parameters
    ----------
    path : str or path-like
        Written as given; a caller that must never leave half a file writes a temporary name and renames it
        (:func:`qlsbench.data.atomic_write`).
    M, H : scipy.sparse matrix
        ``ndof x ndof`` and ``ndof x 3 nc``; stored as compressed rows (``nz = -2``: ``nzmax``, ``m``, ``n``,
        ``nz``, ``p``, ``i``, ``x``) in ``fclib_global/M`` and ``fclib_global/H``.
    f, w, mu : numpy.ndarray
        Lengths ``ndof``, ``3 nc`` and ``nc``, in ``fclib_global/vectors``.
    title, description, math_info : str
        ``fclib_global/info``'s strings, each a scalar fixed-length NUL-terminated string as FCLIB's writer makes
        it (its reader reads them into a buffer of the stored size; a variable-length string would hand it a
        pointer's bytes). ``description`` and ``math_info`` are left out when ``None``.
    solution : tuple of numpy.ndarray, optional
        ``(v, u, r)`` of lengths ``ndof``, ``3 nc``, ``3 nc``: FCLIB's ``solution`` group.
    guesses : sequence of tuples
        Initial guesses ``(v, u, r)`` each: FCLIB's ``guesses`` group (``number_of_guesses``, then ``1``, ``2``,
        ... as ``solution``).

    Raises
    ------
    InputError
        If the sizes do not fit together, naming ``path`` and the sizes.
    """
    M, H = sp.csr_matrix(M), sp.csr_matrix(H)
    ndof, m = H.shape
    if M.shape != (ndof, ndof) or m % 3 or len(f) != ndof or len(w) != m or len(mu) != m // 3:
        raise InputError(
            f"{path}: inconsistent FCLIB problem: M {M.shape}, H {H.shape}, f {len(f)}, w {len(w)}, mu {len(mu)}"
        )
    states = [
        _state(path, name, state, ndof, m)
        for name, state in ([("solution", solution)] if solution is not None else []) + [("guess", g) for g in guesses]
    ]
    with h5py.File(path, "w") as handle:
        group = handle.create_group("fclib_global")
        group.create_dataset("spacedim", data=np.array([3], dtype=np.int32))
        for name, matrix in (("M", M), ("H", H)):
            _write_sparse(group.create_group(name), matrix)
        vectors = group.create_group("vectors")
        for name, vector in (("f", f), ("w", w), ("mu", mu)):
            vectors.create_dataset(name, data=np.asarray(vector, dtype=np.float64))
        info = group.create_group("info")
        for name, text in (
            ("title", title or "qlsbench contact problem"),
            ("description", description),
            ("math_info", math_info),
        ):
            if text is not None:
                _write_string(info, name, text)
        if solution is not None:
            _write_state(handle.create_group("solution"), states.pop(0))
        if guesses:
            group = handle.create_group("guesses")
            group.create_dataset("number_of_guesses", data=np.array([len(guesses)], dtype=np.int32))
            for k, state in enumerate(states, 1):
                _write_state(group.create_group(str(k)), state)
    return Path(path)


def _state(path, name: str, state, ndof: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A solution or guess ``(v, u, r)`` as float arrays, checked against the problem's sizes."""
    v, u, r = (np.asarray(x, dtype=np.float64).reshape(-1) for x in state)
    if (v.size, u.size, r.size) != (ndof, m, m):
        raise InputError(
            f"{path}: FCLIB {name} has v, u, r of lengths {v.size}, {u.size}, {r.size}; the problem "
            f"needs {ndof}, {m}, {m}"
        )
    return v, u, r


def _write_state(group: h5py.Group, state: tuple) -> None:
    """``v``, ``u`` and ``r`` as FCLIB stores a solution or a guess (no ``l``: the problem has no ``G``)."""
    for name, vector in zip("vur", state):
        group.create_dataset(name, data=vector)


def _write_string(group: h5py.Group, name: str, text: str) -> None:
    """A scalar fixed-length string, ``strlen + 1`` bytes ending in NUL, as HDF5's ``H5LTmake_dataset_string``
    (FCLIB's writer) makes it; h5py's own ``str`` datasets are variable-length, which FCLIB's reader cannot read."""
    data = text.encode("utf-8")
    kind = h5py.h5t.C_S1.copy()
    kind.set_size(len(data) + 1)
    kind.set_strpad(h5py.h5t.STR_NULLTERM)
    if not data.isascii():
        kind.set_cset(h5py.h5t.CSET_UTF8)
    created = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    created.set_obj_track_times(False)  # no creation time in the file: the same problem gives the same bytes
    dataset = h5py.h5d.create(group.id, name.encode(), kind, h5py.h5s.create(h5py.h5s.SCALAR), dcpl=created)
    dataset.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(data + b"\0", dtype=f"S{len(data) + 1}"), mtype=kind)


def _write_sparse(group: h5py.Group, matrix: sp.csr_matrix) -> None:
    """A CSR matrix in FCLIB's compressed-row form (``nz = -2``)."""
    matrix = matrix.copy()
    matrix.sum_duplicates()
    for name, value in (("nzmax", matrix.nnz), ("m", matrix.shape[0]), ("n", matrix.shape[1]), ("nz", -2)):
        group.create_dataset(name, data=np.array([value], dtype=np.int32))
    group.create_dataset("p", data=matrix.indptr.astype(np.int32))
    group.create_dataset("i", data=matrix.indices.astype(np.int32))
    group.create_dataset("x", data=matrix.data.astype(np.float64))


def normal_lcp(problem: FrictionalContactProblem) -> LCP:
    """The frictionless normal sub-problem ``LCP(W_nn, q_n)``.

    Keeps rows and columns ``0, 3, 6, ...`` (the normal direction of each
    contact): ``0 <= r_n _|_ W_nn r_n + q_n >= 0``.

    Parameters
    ----------
    problem : FrictionalContactProblem
        The contact problem.

    Returns
    -------
    LCP
        ``nc x nc`` LCP.
    """
    normal = np.arange(0, 3 * problem.nc, 3)
    return LCP(problem.W[normal][:, normal], problem.q[normal])


# --------------------------------------------------------------------------- groups


def _kind(handle: h5py.File, path: Path) -> str:
    for kind in ("global", "local"):
        if isinstance(handle.get(f"fclib_{kind}"), h5py.Group):
            return kind
    raise DatasetError(f"{path}: no 'fclib_global' or 'fclib_local' group")


def _read_global(group: h5py.Group, path: Path):
    _check_spacedim(group, path)
    M = _read_sparse(group, "M", path)
    H = _read_sparse(group, "H", path)
    ndof, m = H.shape
    if M.shape != (ndof, ndof):
        raise DatasetError(f"{path}: {group.name}/M is {M.shape}, expected ({ndof}, {ndof}) to match H")
    f = _vector(group, "vectors/f", ndof, path)
    w = _vector(group, "vectors/w", m, path)
    mu = _friction(group, m, path)
    W, Minv_f = _condense(M, H, f, f"{path}: {group.name}/M")
    return W, H.T @ Minv_f + w, mu


def _read_local(group: h5py.Group, path: Path):
    _check_spacedim(group, path)
    W = _read_sparse(group, "W", path)
    m = W.shape[0]
    if W.shape != (m, m):
        raise DatasetError(f"{path}: {group.name}/W is {W.shape}, expected square")
    q = _vector(group, "vectors/q", m, path)
    return W, q, _friction(group, m, path)


def _condense(M: sp.csr_matrix, H: sp.csr_matrix, f: np.ndarray, where: str):
    """``H^T M^-1 H`` (symmetrised, CSR) and ``M^-1 f`` from one sparse LU of M."""
    try:
        lu = spla.splu(M.tocsc())
    except RuntimeError as exc:  # SuperLU's report of an exactly singular matrix
        raise DatasetError(f"{where} cannot be factorised ({exc})") from exc
    Hc = H.tocsc()
    W = np.empty((H.shape[1], H.shape[1]))
    for start in range(0, H.shape[1], _SOLVE_BLOCK):
        cols = slice(start, start + _SOLVE_BLOCK)
        W[:, cols] = Hc.T @ lu.solve(Hc[:, cols].toarray())
    Minv_f = lu.solve(f)
    if not (np.all(np.isfinite(W)) and np.all(np.isfinite(Minv_f))):
        raise DatasetError(f"{where} is numerically singular (M^-1 H has non-finite entries)")
    return sp.csr_matrix(0.5 * (W + W.T)), Minv_f


# --------------------------------------------------------------------------- fields


def _check_spacedim(group: h5py.Group, path: Path) -> None:
    dim = _int_field(group, "spacedim", path)
    if dim != 3:
        raise DatasetError(f"{path}: {group.name}/spacedim is {dim}; only 3-D contact is supported")


def _field(group: h5py.Group, name: str, path: Path) -> np.ndarray:
    obj = group.get(name)
    if not isinstance(obj, h5py.Dataset):
        raise DatasetError(f"{path}: missing dataset {group.name}/{name}")
    return np.asarray(obj[()])


def _int_field(group: h5py.Group, name: str, path: Path) -> int:
    value = _field(group, name, path).reshape(-1)
    if value.size != 1 or value.dtype.kind not in "iu":
        raise DatasetError(f"{path}: {group.name}/{name} must be a single integer")
    return int(value[0])


def _vector(group: h5py.Group, name: str, length: int, path: Path) -> np.ndarray:
    v = _field(group, name, path)
    if v.shape != (length,) or v.dtype.kind != "f":
        raise DatasetError(
            f"{path}: {group.name}/{name} has shape {v.shape} and dtype {v.dtype}, expected {length} floats"
        )
    if not np.all(np.isfinite(v)):
        raise DatasetError(f"{path}: {group.name}/{name} contains NaN or infinite entries")
    return v.astype(np.float64)


def _friction(group: h5py.Group, m: int, path: Path) -> np.ndarray:
    if m % 3:
        raise DatasetError(f"{path}: {group.name} has {m} local unknowns, not a multiple of 3")
    mu = _vector(group, "vectors/mu", m // 3, path)
    if np.any(mu < 0):
        raise DatasetError(f"{path}: {group.name}/vectors/mu has negative friction coefficients")
    return mu


def _read_sparse(parent: h5py.Group, name: str, path: Path) -> sp.csr_matrix:
    group = parent.get(name)
    if not isinstance(group, h5py.Group):
        raise DatasetError(f"{path}: missing matrix group {parent.name}/{name}")
    rows, cols = _int_field(group, "m", path), _int_field(group, "n", path)
    nz = _int_field(group, "nz", path)
    p, i, x = (_field(group, key, path).reshape(-1) for key in ("p", "i", "x"))
    where = f"{path}: {group.name}"
    if rows < 0 or cols < 0:
        raise DatasetError(f"{where} has negative size {rows}x{cols}")
    if p.dtype.kind not in "iu" or i.dtype.kind not in "iu" or x.dtype.kind != "f":
        raise DatasetError(f"{where}: p and i must be integer and x float arrays")
    if not np.all(np.isfinite(x)):
        raise DatasetError(f"{where}/x contains NaN or infinite entries")
    if nz >= 0:
        return _triplet(rows, cols, nz, p, i, x, where)
    if nz in (-1, -2):
        return _compressed(rows, cols, nz, p, i, x, where)
    raise DatasetError(f"{where}/nz = {nz}: expected >= 0 (triplet), -1 (CSC) or -2 (CSR)")


def _triplet(rows, cols, nz, p, i, x, where) -> sp.csr_matrix:
    if not (p.size == i.size == x.size == nz):
        raise DatasetError(
            f"{where}: triplet arrays p, i, x have lengths {p.size}, {i.size}, {x.size}, expected nz = {nz}"
        )
    if nz and (i.min() < 0 or i.max() >= rows or p.min() < 0 or p.max() >= cols):
        raise DatasetError(f"{where}: triplet indices outside {rows}x{cols} (i = rows, p = columns)")
    # Repeated (row, col) pairs add up, as in CSparse's triplet form.
    return sp.coo_matrix((x, (i, p)), shape=(rows, cols)).tocsr()


def _compressed(rows, cols, nz, p, i, x, where) -> sp.csr_matrix:
    outer, inner = (cols, rows) if nz == -1 else (rows, cols)
    if p.size != outer + 1 or p[0] != 0 or np.any(np.diff(p) < 0):
        raise DatasetError(f"{where}/p is not a valid pointer array of length {outer + 1}")
    count = int(p[-1])
    if i.size < count or x.size < count:
        raise DatasetError(f"{where}: i and x hold {i.size} and {x.size} entries, p needs {count}")
    i, x = i[:count], x[:count]
    if count and (i.min() < 0 or i.max() >= inner):
        raise DatasetError(f"{where}/i has indices outside 0..{inner - 1}")
    cls = sp.csc_matrix if nz == -1 else sp.csr_matrix
    return sp.csr_matrix(cls((x, i, p), shape=(rows, cols)))
