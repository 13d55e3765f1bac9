"""Datasets whose arrays do not make a system: each refused on load, naming the file, the system and the column."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def corrupt(column: str, change: Callable[[list], list], name: str, row: int = 1) -> Callable[[Path, Path], Path]:
    """A maker: the dataset with ``change`` applied to ``column`` of one row (the file's metadata kept)."""

    def make(tmp: Path, data: Path) -> Path:
        table = pq.read_table(data)
        values = table.column(column).to_pylist()
        values[row] = change(values[row])
        i = table.schema.get_field_index(column)
        field = table.schema.field(i)
        path = tmp / f"{name}.parquet"
        pq.write_table(table.set_column(i, field, pa.array(values, field.type)), path)
        return path

    return make


def _set(k: int, value) -> Callable[[list], list]:
    return lambda v: v[:k] + [value] + v[k + 1 :]


def _not_pow2(tmp: Path, data: Path) -> Path:
    """Dim 6 and no qubit count, as a writer of unpadded systems would store them, in a padded family."""
    first = corrupt("n_qubits", lambda v: None, "no_qubits")(tmp, data)
    path = corrupt("dim", lambda v: 6, "dim_not_pow2")(tmp, first)
    first.unlink()
    return path


def _zero_rows(tmp: Path, data: Path) -> Path:
    path = tmp / "zero_rows.parquet"
    pq.write_table(pq.read_table(data).slice(0, 0), path)
    return path


MAKERS = {
    "nan_xref": corrupt("x_ref", _set(0, math.nan), "nan_xref"),
    "inf_xref": corrupt("x_ref", _set(2, math.inf), "inf_xref"),
    "long_xref": corrupt("x_ref", lambda v: v + [0.0], "long_xref"),
    "short_b": corrupt("b", lambda v: v[:-1], "short_b"),
    "nan_b": corrupt("b", _set(0, math.nan), "nan_b"),
    "inf_vals": corrupt("vals", _set(0, -math.inf), "inf_vals"),
    "short_vals": corrupt("vals", lambda v: v[:-1], "short_vals"),
    "row_at_dim": corrupt("rows", _set(0, 8), "row_at_dim"),
    "neg_col": corrupt("cols", _set(0, -1), "neg_col"),
    "short_cols": corrupt("cols", lambda v: v[:-1], "short_cols"),
    "qubits_off": corrupt("n_qubits", lambda v: 4, "qubits_off"),
    "dim_not_pow2": _not_pow2,
    "zero_dim": corrupt("dim", lambda v: 0, "zero_dim"),
    "zero_rows": _zero_rows,
}

# Row 1 of the fixture is the 3-qubit Ising system (dim 8).
_SOLVE = ["solve", "--solver", "lu", "--out", "{tmp}/r.parquet", "--dataset"]

CASES = {
    "one NaN in x_ref": (["info", "{nan_xref}"], "(row 1): column 'x_ref' holds 1 non-finite value(s)"),
    "inf in x_ref, solved": ([*_SOLVE, "{inf_xref}"], "inf_xref.parquet: system"),
    "x_ref one too long": (["info", "{long_xref}"], "column 'x_ref' holds 9 values, expected 8"),
    "b one short": ([*_SOLVE, "{short_b}"], "column 'b' holds 7 values, expected 8"),
    "NaN in b": (["pauli", "{nan_b}", "--out", "{tmp}/p.parquet"], "column 'b' holds 1 non-finite value(s)"),
    "infinite matrix entry": (["info", "{inf_vals}"], "column 'vals' holds 1 non-finite value(s)"),
    "fewer values than indices": ([*_SOLVE, "{short_vals}"], "column 'vals' holds"),
    "row index equal to dim": (["info", "{row_at_dim}"], "column 'rows' holds index 8, outside [0, 8)"),
    "negative column index": ([*_SOLVE, "{neg_col}"], "column 'cols' holds index -1"),
    "fewer columns than rows": (["info", "{short_cols}"], "column 'cols' holds"),
    "qubit count that is not log2(dim)": (["info", "{qubits_off}"], "n_qubits 4 does not match dim 8"),
    "padded family with a dim not a power of two": (
        ["figure", "kappa-time", "{dim_not_pow2}", "--out", "{tmp}/k.png"],
        "not a power of two, which family 'ising' promises",
    ),
    "zero dim": (["info", "{zero_dim}"], "dim is 0, expected >= 1"),
    "dataset with no rows": (["info", "{zero_rows}"], "zero_rows.parquet: holds no systems"),
    "no rows, solved": ([*_SOLVE, "{zero_rows}"], "holds no systems"),
    "no rows, Pauli study": (["pauli", "{zero_rows}", "--out", "{tmp}/p.parquet"], "holds no systems"),
}
