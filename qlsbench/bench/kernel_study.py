"""Which seeds reproduce on another machine: one solve of a shipped configuration under each BLAS kernel and
thread count, the same seed and system.

A variational solve is chaotic in its optimiser's path: a last-bit difference in one matrix product (OpenBLAS
sums in its kernel's order, and picks the kernel by CPU unless ``OPENBLAS_CORETYPE`` says otherwise) can send
QN-SPSA elsewhere by iteration 200. So a seed is a draw, not a number another machine must give back, and a page
that shows one seed's number must say under which kernel it holds. Each run here is ``qlsbench solve`` in a child
process with ``OPENBLAS_CORETYPE`` and the thread counts set, beside a child that reports the BLAS it loaded
(:func:`~qlsbench.bench._environment.blas_info`); ``runs.json`` records each run's environment and file, the
results files its fidelity.

Run (about 10 s a solve at 8 qubits)::

    python -m qlsbench.bench.kernel_study --dataset DATASET --qubits 8 --seeds 0 19 \\
        --solver vqls-local --options '{...}' --out docs/reproduction-kernels
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tqdm.auto import tqdm

from qlsbench.data import atomic_write_text, iter_systems, write_systems
from qlsbench.errors import InputError

#: OpenBLAS kernels tried: the CPU's own (``None``) and two older x86-64 ones every x86-64 CPU runs.
KERNELS = (None, "Haswell", "Sandybridge")
#: BLAS and OpenMP threads tried.
THREADS = (1, 2)
#: The study's record of its runs.
RUNS = "runs.json"


def _environment(kernel: str | None, threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if kernel is not None:
        env["OPENBLAS_CORETYPE"] = kernel
    env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    return env


def _blas(env: dict[str, str]) -> str:
    """What a child with ``env`` loads: the BLAS, its kernel and threads."""
    code = "from qlsbench.bench._environment import blas_info; print(blas_info())"
    child = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return child.stdout.strip()


def _system_file(dataset: Path, qubits: int, out: Path) -> Path:
    """The dataset's systems of ``qubits`` qubits, as a dataset file of their own under ``out``."""
    systems = [s for s in iter_systems(dataset) if s.meta.get("n_qubits") == qubits]
    if not systems:
        raise InputError(f"{dataset}: no system of {qubits} qubits")
    path = out / f"systems-q{qubits}.parquet"
    write_systems(systems, path)
    return path


def run(
    dataset: Path,
    qubits: int,
    seeds: list[int],
    solver: str,
    options: str,
    out: Path,
    kernels=KERNELS,
    threads=THREADS,
) -> list[dict]:
    """Every kernel x threads x seed solve not already in ``out``; the study's records (``runs.json``)."""
    out.mkdir(parents=True, exist_ok=True)
    systems = _system_file(Path(dataset), qubits, out)
    records_path = out / RUNS
    records = json.loads(records_path.read_text()) if records_path.exists() else []
    done = {r["file"] for r in records}
    plan = [(k, t, s) for k in kernels for t in threads for s in seeds]
    for kernel, count, seed in tqdm(plan, desc="kernel study", unit="solve"):
        name = f"{kernel or 'native'}-t{count}-seed{seed}.parquet"
        if name in done:
            continue
        env = _environment(kernel, count)
        command = [sys.executable, "-m", "qlsbench", "solve", "--solver", solver, "--label", solver, "--options"]
        command += [options, "--dataset", str(systems), "--out", str(out / name), "--repeats", "1"]
        command += ["--seed", str(seed), "--quiet"]
        subprocess.run(command, env=env, check=True, capture_output=True)
        records.append({"file": name, "kernel": kernel or "native", "threads": count, "seed": seed, "blas": _blas(env)})
        atomic_write_text(records_path, json.dumps(records, indent=1) + "\n")  # each finished solve kept
    return records


def main(argv: list[str] | None = None) -> None:
    """Solve one configuration's systems of one size under each BLAS kernel and thread count, per seed."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m qlsbench.bench.kernel_study", description=main.__doc__)
    parser.add_argument("--dataset", required=True, type=Path)
    parser.add_argument("--qubits", required=True, type=int)
    parser.add_argument("--seeds", required=True, type=int, nargs="+")
    parser.add_argument("--solver", required=True)
    parser.add_argument("--options", default="{}", help="the solver's options as JSON")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    run(args.dataset, args.qubits, args.seeds, args.solver, args.options, args.out)


if __name__ == "__main__":
    main()
