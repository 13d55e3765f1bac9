"""Checks of a dataset file's rows on load: every array column, so a bad file fails naming its system.

The content hash (``system_id``) covers ``A`` and ``b`` only, and a hash
says that data changed, not what is wrong with it. One NaN in ``x_ref`` made
every correct solve of that system count as a failure. So each file is
checked as it is read, column by column and vectorised over rows (a few ms
for thousands of systems): lengths against ``dim`` and ``nnz``, COO indices
in ``[0, dim)``, finite values, ``n_qubits`` consistent with ``dim``, a
power-of-two ``dim`` for the families that promise one, and ``meta_json`` a
JSON object. ``qlsbench info`` reads through the same checks as ``solve``, so it
refuses what a solve would.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from qlsbench.errors import DatasetError

#: An all-NaN ``x_ref`` is how writers store "LU found A singular"; the SVD then reports a condition number at
#: or near 1/eps (2.5e16 for [[1, 2], [2, 4]]) or inf. Below this bound a missing reference is a defect.
SINGULAR_COND = 1e14
#: Families whose writers pad every system to a power of two (``pad_and_normalize``, ``ising_inspired``).
POWER_OF_TWO_FAMILIES = frozenset({"ising", "dem_c", "dem_c_checkpoints", "penalty", "cd_lagrange"})


class _Rows:
    """The columns of one file as numpy arrays, and how to name a row in a message."""

    def __init__(self, table: pa.Table, path: str | os.PathLike) -> None:
        self.table, self.path = table, path
        self.ids = table.column("system_id").to_pylist()
        self.dim = _ints(table, "dim")
        self.nnz = _ints(table, "nnz")
        self.complex = np.asarray(table.column("is_complex").fill_null(False).to_numpy(zero_copy_only=False))

    def fail(self, row: int | np.integer, what: str) -> None:
        raise DatasetError(f"{self.path}: system {self.ids[row]} (row {row}): {what}")

    def lengths(self, name: str) -> np.ndarray:
        """Length of each row's list; -1 where the list is null."""
        return pc.list_value_length(self.table.column(name)).fill_null(-1).to_numpy(zero_copy_only=False)

    def flat(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """All values of a list column, and the row each belongs to."""
        column = self.table.column(name).combine_chunks()
        lengths = np.maximum(self.lengths(name), 0)
        values = column.flatten().to_numpy(zero_copy_only=False)
        return values, np.repeat(np.arange(len(lengths)), lengths)


def _ints(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _check_scalars(rows: _Rows) -> None:
    n_qubits = _ints(rows.table, "n_qubits")
    n_orig = _ints(rows.table, "n_orig")
    family = rows.table.column("family").to_pylist()
    for i in np.flatnonzero(rows.dim < 1):
        rows.fail(i, f"dim is {rows.dim[i]}, expected >= 1")
    for i in np.flatnonzero(rows.nnz < 0):
        rows.fail(i, f"nnz is {rows.nnz[i]}, expected >= 0")
    pow2 = (rows.dim & (rows.dim - 1)) == 0
    for i in np.flatnonzero(
        (n_qubits >= 0) & ((n_qubits > 62) | (np.left_shift(1, np.clip(n_qubits, 0, 62)) != rows.dim))
    ):
        rows.fail(i, f"n_qubits {n_qubits[i]} does not match dim {rows.dim[i]}")
    for i in np.flatnonzero(~pow2):
        if family[i] in POWER_OF_TWO_FAMILIES:
            rows.fail(i, f"dim {rows.dim[i]} is not a power of two, which family {family[i]!r} promises")
    for i in np.flatnonzero(n_orig > rows.dim):
        rows.fail(i, f"n_orig {n_orig[i]} exceeds dim {rows.dim[i]}")


def _check_lengths(rows: _Rows) -> None:
    expected = {"rows": rows.nnz, "cols": rows.nnz, "vals": rows.nnz, "b": rows.dim, "x_ref": rows.dim}
    imaginary = {"vals_imag": rows.nnz, "b_imag": rows.dim, "x_ref_imag": rows.dim}
    for name, want in expected.items():
        got = rows.lengths(name)
        for i in np.flatnonzero(got != want):
            rows.fail(i, f"column {name!r} holds {max(got[i], 0)} values, expected {want[i]}")
    for name, want in imaginary.items():
        got = rows.lengths(name)
        # Complex rows must have the imaginary part; real rows may leave it null.
        for i in np.flatnonzero((got != want) & (rows.complex | (got >= 0))):
            rows.fail(i, f"column {name!r} holds {max(got[i], 0)} values, expected {want[i]}")


def _check_indices(rows: _Rows) -> None:
    for name in ("rows", "cols"):
        values, owner = rows.flat(name)
        bad = np.flatnonzero((values < 0) | (values >= rows.dim[owner]))
        if len(bad):
            i = owner[bad[0]]
            rows.fail(i, f"column {name!r} holds index {values[bad[0]]}, outside [0, {rows.dim[i]})")


def _check_finite(rows: _Rows) -> None:
    cond = rows.table.column("cond").fill_null(np.nan).to_numpy(zero_copy_only=False)
    for name in ("vals", "vals_imag", "b", "b_imag"):
        values, owner = rows.flat(name)
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            rows.fail(owner[bad[0]], f"column {name!r} holds {np.sum(owner[bad] == owner[bad[0]])} non-finite value(s)")
    for name in ("x_ref", "x_ref_imag"):
        values, owner = rows.flat(name)
        finite = np.isfinite(values)
        counts = np.bincount(owner, minlength=len(rows.dim))
        bad_counts = np.bincount(owner[~finite], minlength=len(rows.dim))
        # The schema's one exception: a singular A has no reference solution, stored as all NaN.
        singular = ~(cond < SINGULAR_COND)
        allowed = (
            (bad_counts == counts)
            & singular
            & (np.bincount(owner[np.isnan(values)], minlength=len(rows.dim)) == counts)
        )
        for i in np.flatnonzero((bad_counts > 0) & ~allowed):
            rows.fail(
                i,
                f"column {name!r} holds {bad_counts[i]} non-finite value(s) but A is not "
                f"singular (cond {cond[i]:.3g}; only a singular A may have an all-NaN reference)",
            )


def _check_metadata(rows: _Rows) -> None:
    """Every ``meta_json`` is a JSON object: a damaged one would fail deep inside the first solve instead."""
    if "meta_json" not in rows.table.column_names:
        return
    for i, text in enumerate(rows.table.column("meta_json").to_pylist()):
        try:
            meta = json.loads(text) if text is not None else {}
        except json.JSONDecodeError as exc:
            rows.fail(i, f"column 'meta_json' is not valid JSON ({exc.msg} at character {exc.pos})")
        if not isinstance(meta, dict):
            rows.fail(i, f"column 'meta_json' must hold a JSON object, got {type(meta).__name__}")


def _check_padding_and_scales(rows: _Rows) -> None:
    """A padded system's added unknowns have right-hand side 0 (the padding is a unit diagonal and zero ``b``),
    and the normalisation factors are positive and finite: both recorded promises, checked where cheap."""
    n_orig = _ints(rows.table, "n_orig")
    values, owner = rows.flat("b")
    starts = np.concatenate([[0], np.cumsum(np.maximum(rows.lengths("b"), 0))[:-1]])
    position = np.arange(len(values)) - starts[owner]
    padded = (n_orig[owner] >= 0) & (position >= n_orig[owner])
    bad = np.flatnonzero(padded & (values != 0))
    if len(bad):
        i = owner[bad[0]]
        rows.fail(
            i,
            f"column 'b' holds {float(values[bad[0]]):g} at padded unknown {position[bad[0]]} (n_orig "
            f"{n_orig[i]}): padding must leave b at 0",
        )
    for name in ("scale_A", "scale_b"):
        if name in rows.table.column_names:
            scale = rows.table.column(name).fill_null(1.0).to_numpy(zero_copy_only=False).astype(float)
            for i in np.flatnonzero(~(np.isfinite(scale) & (scale > 0))):
                rows.fail(i, f"column {name!r} is {float(scale[i])!r}, expected a positive finite factor")


def check_rows(table: pa.Table, path: str | os.PathLike) -> None:
    """Refuse a dataset file with no rows or with a row whose arrays do not make a system.

    Raises
    ------
    DatasetError
        One line naming the file, the ``system_id`` and row, and the column at fault.
    """
    if table.num_rows == 0:
        raise DatasetError(f"{path}: holds no systems (zero rows)")
    rows = _Rows(table, path)
    _check_scalars(rows)
    _check_lengths(rows)
    _check_indices(rows)
    _check_finite(rows)
    _check_padding_and_scales(rows)
    _check_metadata(rows)


#: Largest dimension whose condition number is recomputed on use (a dense SVD: well under a second); above it
#: the stored value is used and labelled as taken from the file.
COND_CHECK_DIM = 1024


def checked_cond(system, where: str) -> tuple[float, bool]:
    """The system's condition number, recomputed and compared with the stored ``cond`` where that is cheap.

    Returns ``(kappa, checked)``: ``checked`` is False above :data:`COND_CHECK_DIM`, where ``kappa`` is the
    file's value as stored. A stored value that disagrees with the matrix (beyond what rounding explains:
    an SVD's smallest singular value carries a relative error of about eps times kappa) is one line naming
    ``where`` (file and row) and the column.
    """
    stored = float(system.meta.get("cond", np.nan))
    if system.dim > COND_CHECK_DIM:
        return stored, False
    singular = np.linalg.svd(system.A.toarray(), compute_uv=False)
    true = float(singular[0] / singular[-1]) if singular[-1] > 0 else np.inf
    if np.isinf(true) and np.isinf(stored):
        return stored, True
    tolerance = max(1e-6, 100 * np.finfo(float).eps * true) if np.isfinite(true) else 0.0
    if not np.isfinite(stored) or not np.isfinite(true) or abs(stored - true) > tolerance * true:
        raise DatasetError(f"{where}: column 'cond' holds {stored:.6g} but the matrix's condition number is {true:.6g}")
    return true, True
