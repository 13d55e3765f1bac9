"""One sweep of the advantage map: every size of a family's growth axis, profiled, solved classically and
estimated for a fault-tolerant solver, written as it goes so an interrupted sweep resumes at the next size.

Per family, three Parquet files in the output folder (``<family>.systems.parquet``, ``.classical.parquet``,
``.quantum.parquet``), one row per system, per (method, epsilon) and per (encoding, solver, epsilon, readout,
model). The systems table holds the profile (:func:`~qlsbench.problems.profile`), and at every size where a dense
SVD runs (``N <= 4,096``) the sparse estimate beside it with its relative error; the Pauli LCU's term count and
1-norm where the decomposition is affordable (padded ``N <= PAULI_LIMIT``). A size whose three files all hold it
is done and skipped on a rerun.

With a ``datasets`` folder, each system is also written as a dataset like the others
(``<datasets>/<family>/size-<size>.parquet``, loadable with :func:`qlsbench.data.load_dataset`): family
``advantage``, scene the axis name, unpadded and unnormalised, its reference solution and condition number the
sweep's, and the profile (``growth_size``, ``s``, ``max_abs``, ``norm2``, ``sigma_min``, ``kappa_method``) in
``meta_json`` beside what the generator recorded.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import scipy.sparse.linalg as spla
from tqdm.auto import tqdm

from qlsbench.bench.advantage._classical import classical_best, matrix_kind
from qlsbench.bench.advantage._growth import AXES, check_sizes, grown, growth_checkpoint
from qlsbench.data import atomic_write_table, write_systems
from qlsbench.errors import InputError
from qlsbench.estimates import (
    HARDWARE_MODELS,
    READOUTS,
    SOLVERS,
    one_solve,
    pauli_lcu,
    physical,
    repetitions,
    sparse_access,
)
from qlsbench.problems import DENSE_LIMIT, LinearSystem, pad_to_power_of_two, profile, reference_solution

#: The accuracies compared: a quantum solver's fidelity 1 - epsilon, a classical one's the same.
EPSILONS = (1e-2, 1e-4)
#: Largest padded dimension whose Pauli decomposition is computed (4^n coefficients' worth of work above it).
PAULI_LIMIT = 4096
#: Terms below this share of the largest coefficient are rounding, not the matrix: the 10-qubit Ising system's 20
#: terms came out as 483 at tolerance 0, the 463 others near 1e-17.
PAULI_TOL = 1e-12
#: The three tables of a family, by their file suffix.
TABLES = ("systems", "classical", "quantum")


def _paths(out: Path, family: str) -> dict[str, Path]:
    return {table: Path(out) / f"{family}.{table}.parquet" for table in TABLES}


def _read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.exists() else pd.DataFrame()


def _pauli(system) -> dict[str, float]:
    """Pauli term count and 1-norm of the padded system above rounding (:data:`PAULI_TOL`), where affordable
    (``nan`` above the limit)."""
    from qlsbench.pauli import lcu_form, lcu_summary, tol_label

    padded = pad_to_power_of_two(system)
    if padded.dim > PAULI_LIMIT:
        return {"pauli_terms": math.nan, "pauli_alpha": math.nan, "pauli_qubits": math.nan}
    summary = lcu_summary(lcu_form(padded.A), tols=(PAULI_TOL,))
    label = tol_label(PAULI_TOL)
    return {
        "pauli_terms": summary[f"terms_{label}"],
        "pauli_alpha": summary[f"lcu_norm_{label}"],
        "pauli_qubits": padded.dim.bit_length() - 1,
    }


def _reference(system, factorise: bool):
    """The exact solution the classical runs are scored against: sparse LU, or CG to 1e-14 where the axis does
    not factorise (its matrices are SPD and well conditioned: the Ising systems' kappa is 10)."""
    if factorise:
        return reference_solution(system.A, system.b)
    x, info = spla.cg(system.A, system.b, rtol=1e-14, atol=0.0, maxiter=10 * system.dim)
    if info:
        raise InputError(f"advantage {system.meta.get('family')}: the CG reference did not converge ({info})")
    return x


def system_row(family: str, size: int, system, factorise: bool = True) -> dict:
    """The systems table's row: the profile, the sparse estimate beside the dense one, the Pauli form."""
    start = time.perf_counter()
    row: dict = {"family": family, "size": size, **profile(system.A, factorise=factorise)}
    row["kappa_seconds"] = time.perf_counter() - start  # the profile the map uses: dense SVD or sparse estimates
    kappa = float(row["kappa"])
    if system.dim <= DENSE_LIMIT:
        sparse = float(profile(system.A, dense_limit=0, factorise=factorise)["kappa"])
        row["kappa_sparse"], row["kappa_sparse_rel_error"] = sparse, abs(sparse - kappa) / kappa
    else:
        row["kappa_sparse"], row["kappa_sparse_rel_error"] = kappa, math.nan
    return {**row, **_pauli(system)}


#: The profile's columns a growth dataset keeps in its ``meta_json``.
DATASET_PROFILE = ("s", "max_abs", "norm2", "sigma_min", "kappa_method")


def write_dataset(folder: Path, family: str, size: int, system: LinearSystem, row: dict, reference) -> Path:
    """``system`` as a one-row dataset of family ``advantage`` (module docstring)."""
    meta = {
        **system.meta,
        "source_family": system.meta.get("family", family),
        "family": "advantage",
        "scene": family,
        "growth_size": size,
        "cond": row["kappa"],
        **{key: row[key] for key in DATASET_PROFILE},
    }
    grown_system = LinearSystem(system.A, system.b, meta=meta, x_ref=reference)
    facts = {"generator": "qlsbench advantage", "axis": family, "counts": AXES[family].counts}
    return write_systems([grown_system], _dataset_path(folder, family, size), metadata=facts)


def _dataset_path(folder: Path, family: str, size: int) -> Path:
    return Path(folder) / family / f"size-{size:06d}.parquet"


def quantum_rows(row: dict, models: list[str]) -> list[dict]:
    """Every (encoding, solver, epsilon, readout, model) estimate for one system's profile row."""
    encodings = [sparse_access(row["N"], row["s"], row["max_abs"])]
    if not math.isnan(row["pauli_terms"]):
        encodings.append(pauli_lcu(int(row["pauli_qubits"]), int(row["pauli_terms"]), row["pauli_alpha"]))
    out = []
    for encoding in encodings:
        for method in SOLVERS:
            for epsilon in EPSILONS:
                counts = one_solve(encoding, row["sigma_min"], row["N"], method, epsilon)
                per_model = physical(counts, models)
                for readout in READOUTS:
                    solves = repetitions(readout, row["N"], epsilon)
                    for model, phys in per_model.items():
                        out.append(
                            {
                                "family": row["family"],
                                "size": row["size"],
                                "N": row["N"],
                                "encoding": encoding["encoding"],
                                "alpha": encoding["alpha"],
                                "solver": method,
                                "epsilon": epsilon,
                                "readout": readout,
                                "model": model,
                                **{k: float(v) for k, v in counts.items()},
                                "solves": solves,
                                "physical_qubits": phys["physical_qubits"],
                                "seconds_per_solve": phys["runtime_s"],
                                "extrapolated": phys["extrapolated"],
                                "seconds": phys["runtime_s"] * solves,
                            }
                        )
    return out


def sweep(
    family: str,
    sizes,
    out: Path,
    models: list[str] | None = None,
    *,
    datasets: Path | None = None,
    progress: bool = True,
) -> dict:
    """Run ``family`` at every size of ``sizes`` not already in ``out`` (module docstring); the three tables.
    With ``datasets``, each system is written there too (:func:`write_dataset`)."""
    models = list(HARDWARE_MODELS) if models is None else models
    sizes = check_sizes(family, sizes)  # a bad family or size, a bad model or no estimator: before any work
    physical({"qubits": 1, "toffolis": 1, "rotations": 0}, models)
    paths = _paths(out, family)
    tables = {name: _read(path) for name, path in paths.items()}
    done = set.intersection(*(set(t["size"]) if "size" in t else set() for t in tables.values()))
    todo = [
        size for size in sizes if size not in done or (datasets and not _dataset_path(datasets, family, size).exists())
    ]
    for size in tqdm(todo, desc=f"advantage {family}", disable=not progress, unit="size"):
        start = time.perf_counter()
        system = grown(family, size, state=out)  # a resumable build saves itself beside the tables
        earlier = system.meta.pop("earlier_seconds", 0.0)  # the parts of a resumed build before this one
        build = time.perf_counter() - start + earlier
        factorise = AXES[family].factorise(system.dim)
        row = {**system_row(family, size, system, factorise), "build_seconds": build, "load": os.getloadavg()[0]}
        if not math.isfinite(row["kappa"]):
            raise InputError(f"advantage {family} at {size}: the system is singular (kappa inf); nothing to estimate")
        reference = _reference(system, factorise)
        if datasets is not None:
            write_dataset(datasets, family, size, system, row, reference)
        kind = matrix_kind(system.A)  # once per system, not once per accuracy
        classical = [
            {"family": family, "size": size, "N": row["N"], **r, "load": os.getloadavg()[0]}
            for epsilon in EPSILONS
            for r in classical_best(system.A, system.b, reference, epsilon, factorise=factorise, kind=kind)
        ]
        new = {"systems": [row], "classical": classical, "quantum": quantum_rows(row, models)}
        row["size_seconds"] = time.perf_counter() - start + earlier  # the whole size: build, profile, solves, estimates
        for name in TABLES:
            if "size" in tables[name]:  # a size redone for its dataset replaces its rows
                tables[name] = tables[name][tables[name]["size"] != size]
        for name in TABLES:  # each table rewritten whole, atomically: a kill leaves the last complete size
            tables[name] = pd.concat([tables[name], pd.DataFrame(new[name])], ignore_index=True)
            atomic_write_table(pa.Table.from_pandas(tables[name], preserve_index=False), paths[name])
        growth_checkpoint(out, family, size).unlink(missing_ok=True)  # the tables hold the size now
    return tables
