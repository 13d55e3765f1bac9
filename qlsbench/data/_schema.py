"""The Parquet schema of qlsbench datasets (one row per linear system).

Bump :data:`SCHEMA_VERSION` whenever a column is added, removed or changes
meaning; readers refuse files of any other version.
"""

from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = "1"

#: File-level key-value metadata keys.
VERSION_KEY = b"qlsbench.schema_version"
PACKAGE_KEY = b"qlsbench.package_version"
DATASET_META_KEY = b"qlsbench.dataset_meta"  # JSON: generator settings, filter counts

_f64_list = pa.list_(pa.float64())
_i32_list = pa.list_(pa.int32())

#: (name, type, description) of every column, in file order. The dataset card
#: in ``datasets/README.md`` documents the same list; a test keeps them equal.
COLUMNS: list[tuple[str, pa.DataType, str]] = [
    ("system_id", pa.string(), "content hash of A and b (16 hex digits)"),
    ("family", pa.string(), "generator family: ising, dem_c, dem_c_checkpoints, penalty, cd_lagrange, ..."),
    ("scene", pa.string(), "scene or parameter set within the family"),
    ("step", pa.int64(), "time step of the simulation (null when not a simulation)"),
    ("newton_iter", pa.int64(), "Newton iteration within the step (null when not a simulation)"),
    ("seed", pa.int64(), "random seed of the generator (null when deterministic)"),
    ("n_orig", pa.int64(), "dimension before padding"),
    ("n_qubits", pa.int64(), "log2(dim) when dim is a power of two, else null"),
    ("dim", pa.int64(), "number of unknowns (rows of A)"),
    ("nnz", pa.int64(), "stored non-zeros of A"),
    ("cond", pa.float64(), "2-norm condition number of A (inf when singular)"),
    ("symmetric", pa.bool_(), "whether A equals its (conjugate) transpose exactly"),
    ("scale_A", pa.float64(), "spectral norm A was divided by (1.0 when unscaled)"),
    ("scale_b", pa.float64(), "Euclidean norm b was divided by (1.0 when unscaled)"),
    ("is_complex", pa.bool_(), "whether A or b is complex (then the *_imag columns are set)"),
    ("rows", _i32_list, "COO row index of each stored entry of A (row-major order)"),
    ("cols", _i32_list, "COO column index of each stored entry of A"),
    ("vals", _f64_list, "real part of each stored entry of A"),
    ("vals_imag", _f64_list, "imaginary part of each stored entry of A (null when real)"),
    ("b", _f64_list, "real part of the right-hand side"),
    ("b_imag", _f64_list, "imaginary part of b (null when real)"),
    ("x_ref", _f64_list, "reference solution by sparse direct LU (NaN when A is singular)"),
    ("x_ref_imag", _f64_list, "imaginary part of x_ref (null when real)"),
    ("meta_json", pa.string(), "remaining metadata as JSON with sorted keys"),
]

COLUMN_NAMES = [name for name, _, _ in COLUMNS]

#: Metadata keys that have a column of their own (everything else goes to ``meta_json``).
META_COLUMNS = (
    "family",
    "scene",
    "step",
    "newton_iter",
    "seed",
    "n_orig",
    "n_qubits",
    "symmetric",
    "scale_A",
    "scale_b",
)


def arrow_schema(package_version: str) -> pa.Schema:
    """The Arrow schema, with the schema and package versions in its metadata."""
    fields = [pa.field(name, typ) for name, typ, _ in COLUMNS]
    return pa.schema(fields, metadata={VERSION_KEY: SCHEMA_VERSION.encode(), PACKAGE_KEY: package_version.encode()})
