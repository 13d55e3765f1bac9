"""What each job asks of a cluster: memory, threads and wall time per rule (built-in, the families' own, the
config's), and a solve job's runtime from its time limits and systems."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from qlsbench.errors import ConfigError
from qlsbench.workflow._datasets import dataset_families, dataset_runs
from qlsbench.workflow._solvers import _solver_entry, solver_run_setting, solver_specs

#: Per-job resources a cluster executor (SLURM) requests: memory in MB, wall time in minutes, threads.
#: ``resources:`` in the config overrides them per rule (or under ``default``), a solver entry per solver.
#: The dataset rules' own come from their families' records (:attr:`~qlsbench.families.base.Rule.resources`,
#: :func:`default_resources`).
DEFAULT_RESOURCES: dict[str, dict[str, int]] = {
    "default": {"mem_mb": 2000, "runtime": 30, "threads": 1},
    "pauli": {"mem_mb": 8000, "runtime": 60, "threads": 2},  # numba kernels run patterns in parallel
    "lcu": {"mem_mb": 8000, "runtime": 60, "threads": 2},  # the same decomposition, every term kept
    "truncation": {"mem_mb": 8000, "runtime": 60, "threads": 2},  # the same study, more tolerances
    "resources": {"mem_mb": 8000, "runtime": 60, "threads": 2},  # the same decomposition, then formulas
    "solve": {"mem_mb": 4000, "runtime": 120},
}


def default_resources() -> dict[str, dict[str, int]]:
    """:data:`DEFAULT_RESOURCES` with every dataset family's rule's own (``simulate``: 4000 MB, 240 min)."""
    rules = {family.rule.name: dict(family.rule.resources) for family in dataset_families() if family.rule.resources}
    return {**rules, **DEFAULT_RESOURCES}


def _resources(config: dict[str, Any], rule: str, label: str | None = None) -> dict[str, int]:
    """Built-in defaults, then the config's ``default``, its entry for ``rule``, and a solver entry's own."""
    given = config.get("resources") or {}
    merged = {
        **DEFAULT_RESOURCES["default"],
        **default_resources().get(rule, {}),
        **given.get("default", {}),
        **given.get(rule, {}),
    }
    if label is not None:
        merged.update(_solver_entry(config, label).get("resources") or {})
    return merged


def rule_resources(config: dict[str, Any], rule: str) -> dict[str, int]:
    """``mem_mb`` and ``runtime`` of ``rule``'s jobs (the keyword arguments of its ``resources:``)."""
    return {k: v for k, v in _resources(config, rule).items() if k != "threads"}


def rule_threads(config: dict[str, Any], rule: str) -> int:
    """Threads of ``rule``'s jobs."""
    return int(_resources(config, rule)["threads"])


def solver_resource(config: dict[str, Any], label: str, key: str) -> int:
    """``mem_mb``, ``runtime`` or ``threads`` of solver ``label``'s ``solve`` jobs."""
    return int(_resources(config, "solve", label)[key])


#: Minutes a solve job is given beyond its solves' time limits: starting Python, reading the dataset, writing.
SOLVE_OVERHEAD_MINUTES = 10


def dataset_system_count(config: dict[str, Any], dataset: str, root: Path = Path(".")) -> int | None:
    """Distinct systems of ``dataset``, or an upper bound, known before it is built where the config says.

    Ising datasets hold one system per qubit count, checkpoint datasets at most ``count``, a run with
    ``max_systems`` at most that many; otherwise the built file below ``root`` (the workflow's folder) is
    counted, and before it exists ``None``.
    """
    import pyarrow.parquet as pq

    family, options = dataset_runs(config)[dataset]
    known = vars(options)  # the record's fields by name: which it has varies with the family
    if family.name == "ising":
        return len(set(known["n_qubits"]))
    if family.name == "dem_c_checkpoints":
        return int(known["count"])
    if known.get("max_systems"):
        return int(known["max_systems"])
    path = Path(root) / "datasets" / dataset / "part-0000.parquet"
    if path.exists():
        return len(set(pq.read_table(path, columns=["system_id"]).column(0).to_pylist()))
    return None


def solve_runtime(
    config: dict[str, Any], label: str, dataset: str, count: int, attempt: int = 1, root: Path = Path(".")
) -> int:
    """Minutes for one shard of solver ``label`` on ``dataset``: its time limit x the shard's systems x repeats.

    The systems of a shard are at most ``ceil(N / count)`` (:mod:`qlsbench.bench._shards`). When ``N`` is not
    known yet, the configured ``runtime`` of solve jobs, but at least one system's time limits. Each retry
    (``attempt``) doubles, triples... the time; ``max_runtime`` (the cluster's wall-time limit, in the
    solver's or the solve rule's ``resources``) caps it. ``root`` is the workflow's folder, where the
    datasets are counted.
    """
    from qlsbench.bench._shards import max_shard_size

    resources = _resources(config, "solve", label)
    limit = float(solver_run_setting(config, label, "time_limit"))
    repeats = int(solver_run_setting(config, label, "repeats"))
    systems = dataset_system_count(config, dataset, root)
    one_system = math.ceil(limit * repeats / 60)
    if systems is None:
        minutes = max(int(resources["runtime"]), one_system + SOLVE_OVERHEAD_MINUTES)
    else:
        minutes = math.ceil(limit * max_shard_size(systems, count) * repeats / 60) + SOLVE_OVERHEAD_MINUTES
    minutes *= max(int(attempt), 1)
    cap = resources.get("max_runtime")
    return int(min(minutes, cap)) if cap else int(minutes)


def check_runtimes(config: dict[str, Any]) -> None:
    """Refuse a solver whose time limit per solve (times its repeats) cannot fit in its jobs' ``max_runtime``."""
    for label in solver_specs(config):
        cap = _resources(config, "solve", label).get("max_runtime")
        limit = float(solver_run_setting(config, label, "time_limit"))
        repeats = int(solver_run_setting(config, label, "repeats"))
        if cap and math.ceil(limit * repeats / 60) + SOLVE_OVERHEAD_MINUTES > cap:
            raise ConfigError(
                f"solver {label!r}: time_limit {limit:g} s x {repeats} repeat(s) does not fit in its "
                f"jobs' max_runtime of {cap} min (with {SOLVE_OVERHEAD_MINUTES} min to start and "
                f"write); raise max_runtime or lower time_limit"
            )
