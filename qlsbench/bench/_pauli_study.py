"""The Pauli study of a dataset: term counts, truncation errors and reorderings per system, written and read back.

The figures drawn from these files are in :mod:`qlsbench.report._pauli_figures`.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
from tqdm.auto import tqdm

from qlsbench import __version__
from qlsbench.data import (
    atomic_write_table,
    dataset_name,
    load_dataset,
    read_parquet,
    to_system,
)
from qlsbench.data._schema import PACKAGE_KEY
from qlsbench.errors import DatasetError, InputError
from qlsbench.pauli import count_terms, max_terms, xor_patterns
from qlsbench.pauli._truncation import DENSE_QUBITS, reordering_study, truncation_study


def stamped(table: pd.DataFrame) -> pa.Table:
    """``table`` as Arrow, stamped with the qlsbench version that wrote it (``qlsbench.package_version``, the key
    datasets use), so a study tells which version's rules counted its terms."""
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    return arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), PACKAGE_KEY: __version__.encode()})


def _system_rows(system, tols, reorder: bool) -> list[dict]:
    n = system.dim.bit_length() - 1
    base = {
        "system_id": system.system_id,
        "family": system.meta.get("family", ""),
        "scene": system.meta.get("scene", ""),
        "n_qubits": n,
        "dim": system.dim,
        "nnz": system.nnz,
        "cond": float(system.meta.get("cond", np.nan)),
        "symmetric": bool(system.meta.get("symmetric", False)),
        "terms_max": max_terms(n, bool(system.meta.get("symmetric", False)) and not system.is_complex),
        "patterns": xor_patterns(system.A),
    }
    rows = []
    if n <= DENSE_QUBITS:
        for r in truncation_study(system, tols):
            rows.append(
                {
                    **base,
                    "ordering": "identity",
                    "mode": r["mode"],
                    "tol": r["tol"],
                    "terms_kept": r["terms_kept"],
                    "matrix_error": r["matrix_error"],
                    "solution_error": r["solution_error"],
                    "fidelity": r["fidelity"],
                }
            )
    else:  # too large for dense solves: counts only
        for mode in ("absolute", "relative"):
            counts = count_terms(system.A, tols, relative=mode == "relative")
            rows += [
                {
                    **base,
                    "ordering": "identity",
                    "mode": mode,
                    "tol": t,
                    "terms_kept": c,
                    "matrix_error": np.nan,
                    "solution_error": np.nan,
                    "fidelity": np.nan,
                }
                for t, c in counts.items()
            ]
    if reorder:
        for r in reordering_study(system, tols):
            if r["ordering"] == "identity":
                continue
            rows += [
                {
                    **base,
                    "ordering": r["ordering"],
                    "mode": "absolute",
                    "tol": t,
                    "terms_kept": r[f"terms_tol_{t:g}"],
                    "patterns": r["patterns"],
                    "matrix_error": np.nan,
                    "solution_error": np.nan,
                    "fidelity": np.nan,
                }
                for t in tols
            ]
    return rows


def pauli_study(
    dataset: str | os.PathLike,
    out: str | os.PathLike,
    *,
    tols=None,
    reorder: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Term counts, truncation errors and (optionally) reorderings for every system of a dataset.

    One row per (system, ordering, mode, tol); ``mode`` is ``absolute`` or
    ``relative`` (to ``max |c|``). Errors need dense solves and are NaN above
    :data:`~qlsbench.pauli._truncation.DENSE_QUBITS` qubits. Written atomically to ``out``.
    """
    from qlsbench.pauli import LCU_TOLS

    tols = tuple(float(t) for t in (LCU_TOLS if tols is None else tols))
    if not tols or not all(np.isfinite(t) and t >= 0 for t in tols):
        raise InputError(f"truncation tolerances must be finite and >= 0, got {list(tols)}")
    df = load_dataset(dataset)
    if df.empty:
        raise DatasetError(f"{dataset}: the dataset holds no systems")
    rows = []
    for _, record in tqdm(
        df.iterrows(), total=len(df), desc=f"pauli {dataset_name(dataset)}", unit="system", disable=not progress
    ):
        rows += _system_rows(to_system(record), tols, reorder)
    table = pd.DataFrame(rows)
    table.insert(0, "dataset", dataset_name(dataset))
    atomic_write_table(stamped(table), out)
    return table


#: Columns the truncation-error figure reads from a study file.
TRUNCATION_COLUMNS = (
    "dataset",
    "system_id",
    "n_qubits",
    "ordering",
    "mode",
    "tol",
    "terms_kept",
    "matrix_error",
    "solution_error",
)
#: Columns the term-count figure (fig. 5) reads from a study file.
TERM_COUNT_COLUMNS = (
    "dataset",
    "system_id",
    "n_qubits",
    "symmetric",
    "ordering",
    "mode",
    "tol",
    "terms_kept",
    "terms_max",
)


def read_pauli_results(paths, columns: tuple[str, ...] = TRUNCATION_COLUMNS) -> pd.DataFrame:
    """Concatenate ``qlsbench pauli`` study files, checking they hold ``columns``.

    Raises
    ------
    InputError
        Naming the unreadable file, or the file and its first missing column.
    """
    paths = [Path(p) for p in paths]
    if not paths:
        raise InputError("no Pauli study results files given")
    frames = []
    for path in paths:
        table = read_parquet(path, columns=columns, error=InputError, hint=" (not a `qlsbench pauli` results file?)")
        frames.append(table.select(list(columns)).to_pandas())
    return pd.concat(frames, ignore_index=True)


def lcu_table(
    dataset: str | os.PathLike, out: str | os.PathLike, *, terms: bool = False, progress: bool = True
) -> pd.DataFrame:
    """The LCU form of every system of ``dataset``, written atomically to ``out``.

    Per system: its identity (``dataset``, ``system_id``, ``family``, ``scene``,
    ``n_qubits``, ``dim``, ``cond``, ``symmetric``), the Pauli term counts at
    tolerances 0, 1e-6 and 1e-3 relative to the largest coefficient
    (``terms_0``, ``terms_1e-6``, ``terms_1e-3``), the LCU 1-norm of the kept
    terms (``lcu_norm_0`` is ``sum |c|``) and ``max_coeff``. With ``terms``,
    also every term: ``pauli_x`` and ``pauli_z`` (int64 bit masks, bit q is
    qubit q) and ``coeff_re``, ``coeff_im`` (:func:`qlsbench.pauli._lcu.from_symplectic`
    rebuilds Qiskit's ``SparsePauliOp``). A system that occurs several times is one row.
    """
    from qlsbench.pauli._lcu import lcu_form, lcu_summary

    df = load_dataset(dataset).drop_duplicates("system_id")
    rows = []
    for _, record in tqdm(df.iterrows(), total=len(df), desc=f"LCU {dataset_name(dataset)}", disable=not progress):
        system = to_system(record)
        decomposition = lcu_form(system.A)
        row = {
            "dataset": dataset_name(dataset),
            "system_id": system.system_id,
            "family": system.meta.get("family", ""),
            "scene": system.meta.get("scene", ""),
            "n_qubits": int(decomposition.n_qubits),
            "dim": system.dim,
            "cond": float(system.meta.get("cond", np.nan)),
            "symmetric": bool(system.meta.get("symmetric", False)),
            **lcu_summary(decomposition),
        }
        if terms:
            row.update(
                pauli_x=decomposition.x_int.astype(np.int64).tolist(),
                pauli_z=decomposition.z_int.astype(np.int64).tolist(),
                coeff_re=np.real(decomposition.coeffs).astype(float).tolist(),
                coeff_im=np.imag(decomposition.coeffs).astype(float).tolist(),
            )
        rows.append(row)
    table = pd.DataFrame(rows)
    atomic_write_table(stamped(table), out)
    return table


#: Target errors of the fault-tolerant estimates: a loose read-out and the exact track's accuracy.
RESOURCE_EPSILONS: tuple[float, ...] = (1e-2, 1e-6)


def resource_table(
    dataset: str | os.PathLike, out: str | os.PathLike, *, epsilons=RESOURCE_EPSILONS, progress: bool = True
) -> pd.DataFrame:
    """Fault-tolerant cost estimates for every system of ``dataset`` (:mod:`qlsbench.pauli._estimates`), written to
    ``out``.

    One row per system, truncation tolerance (``tol``: terms with ``|c| > tol max |c|`` are kept, so the 1-norm
    ``alpha`` and the term count shrink with it) and target error ``epsilon``: the system's identity, ``terms``,
    ``alpha``, ``kappa`` and :func:`~qlsbench.pauli._estimates.estimate`'s columns. ``kappa`` is recomputed from the
    matrix up to :data:`~qlsbench.data._validate.COND_CHECK_DIM` (a stored ``cond`` that disagrees is refused,
    naming file, row and column) and otherwise taken from the file, which ``kappa_checked`` says. A system
    that occurs several times is one set of rows; a system without a finite condition number gets none.
    """
    from qlsbench.pauli._estimates import estimate
    from qlsbench.pauli._lcu import LCU_TOLS, lcu_form, lcu_summary, tol_label

    for epsilon in epsilons:
        if not 0 < epsilon < 1:
            raise InputError(f"--epsilon must be in (0, 1), got {epsilon!r}")
    from qlsbench.data._validate import checked_cond

    df = load_dataset(dataset).drop_duplicates("system_id")
    rows = []
    for i, record in tqdm(
        df.iterrows(), total=len(df), desc=f"resources {dataset_name(dataset)}", disable=not progress
    ):
        system = to_system(record)
        # kappa drives every estimate: recomputed where cheap, else labelled as the file's (kappa_checked).
        kappa, kappa_checked = checked_cond(system, f"{dataset}: system {system.system_id} (row {i})")
        if not np.isfinite(kappa):
            continue
        decomposition = lcu_form(system.A)
        summary = lcu_summary(decomposition)
        for tol in LCU_TOLS:
            terms, alpha = int(summary[f"terms_{tol_label(tol)}"]), summary[f"lcu_norm_{tol_label(tol)}"]
            for epsilon in epsilons:
                rows.append(
                    {
                        "dataset": dataset_name(dataset),
                        "system_id": system.system_id,
                        "family": system.meta.get("family", ""),
                        "scene": system.meta.get("scene", ""),
                        "n_qubits": int(decomposition.n_qubits),
                        "symmetric": bool(system.meta.get("symmetric", False)),
                        "tol": tol,
                        "terms": terms,
                        "kappa_checked": kappa_checked,
                        **estimate(int(decomposition.n_qubits), terms, alpha, max(kappa, 1.0), epsilon),
                    }
                )
    table = pd.DataFrame(rows)
    atomic_write_table(stamped(table), out)
    return table


def crosscheck_table(
    dataset: str | os.PathLike, out: str | os.PathLike, *, qubit_terms: int | None = None, progress: bool = True
) -> pd.DataFrame:
    """Our LCU block-encoding counts beside Qualtran's for every system of ``dataset``
    (:mod:`qlsbench.pauli._crosscheck`), written to ``out``.

    One row per system and truncation tolerance of ``qlsbench resources`` (``tol``: the terms kept, so ``terms``,
    are those of :func:`~qlsbench.pauli._lcu.lcu_summary`): the system's identity and pinned name, ``terms``,
    ``ours_<part>_<quantity>``, ``tool_<part>_<quantity>``, the tool's name and version and its settings
    (``precision``, ``phase_bits``, ``qubit_terms``: :mod:`~qlsbench.pauli._crosscheck`). A system of one
    term has no tool counts (Qualtran's SELECT needs two); ``qubit_terms`` (default
    :data:`~qlsbench.pauli._crosscheck.QUBIT_TERMS`) bounds the systems whose SELECT qubits are counted.
    """
    from qlsbench.pauli import _crosscheck as crosscheck
    from qlsbench.pauli._lcu import LCU_TOLS, lcu_form, truncated

    version = crosscheck.require_tool()
    qubit_terms = crosscheck.QUBIT_TERMS if qubit_terms is None else qubit_terms
    df = load_dataset(dataset).drop_duplicates("system_id")
    if df.empty:
        raise DatasetError(f"{dataset}: the dataset holds no systems")
    rows = []
    for _, record in tqdm(
        df.iterrows(), total=len(df), desc=f"crosscheck {dataset_name(dataset)}", unit="system", disable=not progress
    ):
        system = to_system(record)
        decomposition = lcu_form(system.A)
        for tol in LCU_TOLS:
            terms = truncated(decomposition, tol)
            row = {
                "dataset": dataset_name(dataset),
                "system_id": system.system_id,
                "name": system.meta.get("pinned_name", system.system_id),
                "family": system.meta.get("family", ""),
                "n_qubits": int(terms.n_qubits),
                "tol": tol,
                "terms": len(terms),
                "tool": crosscheck.TOOL,
                "tool_version": version,
                "precision": crosscheck.PRECISION,
                "phase_bits": crosscheck.PHASE_BITS,
                "qubit_terms": qubit_terms,
                **crosscheck.ours(terms.n_qubits, len(terms)),
            }
            if len(terms) >= 2:
                row.update(crosscheck.tool_counts(terms, qubit_terms=qubit_terms))
            rows.append(row)
    table = pd.DataFrame(rows)
    atomic_write_table(stamped(table), out)
    return table
