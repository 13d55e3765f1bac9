"""The config's solvers: their specs by label, each checked against the registry, the datasets each runs on, its
run settings, shards and results files."""

from __future__ import annotations

import json
import os
import sys
from fnmatch import fnmatchcase
from typing import Any

from qlsbench.bench._runner import SolverSpec
from qlsbench.errors import ConfigError
from qlsbench.workflow._datasets import all_datasets


def check_solvers(config: dict[str, Any]) -> None:
    """Every configured solver resolves and takes its options, with the right types, before any job runs.

    ``module:Class`` names import from the current folder, as ``qlsbench
    solve`` (which each job runs) imports them.
    """
    from qlsbench.errors import QlsbenchError
    from qlsbench.solvers.registry import check_solver

    _importable_from_cwd([e.get("name", "") for e in config.get("solvers", [])])
    for i, entry in enumerate(config.get("solvers", [])):
        try:
            check_solver(entry["name"], dict(entry.get("options") or {}))
        except QlsbenchError as exc:
            raise ConfigError(f"solvers[{i}]: {exc}") from None


def _importable_from_cwd(names) -> None:
    """Let ``module:Class`` solver names import from the current folder, as each job's ``qlsbench`` does."""
    if os.getcwd() not in sys.path and any(":" in name for name in names):
        sys.path.insert(0, os.getcwd())


def solver_specs(config: dict[str, Any]) -> dict[str, SolverSpec]:
    """Solver specs of a config keyed by label; labels must be unique and path-safe."""
    specs: dict[str, SolverSpec] = {}
    for i, entry in enumerate(config.get("solvers", [])):
        spec = SolverSpec(entry["name"], dict(entry.get("options") or {}), entry.get("label", ""))
        if "/" in spec.label or spec.label.startswith("."):
            raise ConfigError(f"solvers[{i}].label {spec.label!r} must not contain '/' or start with '.'")
        if spec.label in specs:
            raise ConfigError(f"solvers[{i}]: label {spec.label!r} used twice; give one of them a 'label'")
        specs[spec.label] = spec
    return specs


def options_json(config: dict[str, Any], label: str) -> str:
    """The options of solver ``label`` as JSON for the command line."""
    return json.dumps(solver_specs(config)[label].options, sort_keys=True)


def solver_datasets(config: dict[str, Any], label: str) -> list[str]:
    """Datasets solver ``label`` runs on: its ``datasets`` patterns (fnmatch) or every dataset."""
    entry = _solver_entry(config, label)
    patterns = entry.get("datasets")
    datasets = all_datasets(config)
    if not patterns:
        return datasets
    chosen = [d for d in datasets if any(fnmatchcase(d, p) for p in patterns)]
    if not chosen:
        raise ConfigError(f"solver {label!r}: datasets {patterns} match none of {datasets}")
    return chosen


#: A solver's run settings where neither its entry nor the config's ``run`` gives them: one solve per system, a
#: minute each. The one definition (the rules, the resource estimates and check-config read it).
RUN_DEFAULTS: dict[str, Any] = {"repeats": 1, "time_limit": 60}


def solver_run_setting(config: dict[str, Any], label: str, key: str, default: Any = None) -> Any:
    """``repeats`` or ``time_limit`` of solver ``label``: its own entry's, else ``run``'s, else ``default`` (when
    given), else :data:`RUN_DEFAULTS`'."""
    fallback = RUN_DEFAULTS[key] if default is None else default
    return _solver_entry(config, label).get(key, config["run"].get(key, fallback))


def solver_shards(config: dict[str, Any], label: str) -> int:
    """How many jobs solver ``label``'s work on one dataset is split into (its entry's ``shards``, default 1)."""
    return int(_solver_entry(config, label).get("shards", 1))


def solver_label_pattern(config: dict[str, Any], sharded: bool) -> str:
    """A wildcard pattern matching the labels of the solvers that are (or are not) sharded."""
    import re

    labels = [label for label in solver_specs(config) if (solver_shards(config, label) > 1) == sharded]
    return "|".join(re.escape(label) for label in labels) or "(?!)"


def shard_files(config: dict[str, Any], label: str, dataset: str) -> list[str]:
    """The shards' results files of solver ``label`` on ``dataset``, which the merge rule joins."""
    count = solver_shards(config, label)
    return [f"results/shards/{label}/{dataset}/{i}-of-{count}.parquet" for i in range(1, count + 1)]


def solver_max_qubits(config: dict[str, Any], label: str) -> str:
    """``--max-qubits N`` when solver ``label`` has a ``max_qubits`` entry, else nothing."""
    limit = _solver_entry(config, label).get("max_qubits")
    return f"--max-qubits {limit}" if limit is not None else ""


def solver_results(config: dict[str, Any]) -> list[str]:
    """Every results file the configured solvers produce."""
    return [f"results/{label}/{d}.parquet" for label in solver_specs(config) for d in solver_datasets(config, label)]


def noisy_results(config: dict[str, Any]) -> list[str]:
    """Results files of the solver entries that run on a device backend (the noisy page's inputs)."""
    return [
        f"results/{label}/{d}.parquet"
        for label, spec in solver_specs(config).items()
        if spec.options.get("backend") == "device"
        for d in solver_datasets(config, label)
    ]


def variational_solvers(config: dict[str, Any]) -> list[str]:
    """Labels of the configured solvers the registry calls variational (its one definition)."""
    from qlsbench.solvers.registry import is_variational

    _importable_from_cwd([spec.name for spec in solver_specs(config).values()])
    return [label for label, spec in solver_specs(config).items() if is_variational(spec.name)]


def _solver_entry(config: dict[str, Any], label: str) -> dict[str, Any]:
    for entry, spec_label in zip(config.get("solvers", []), solver_specs(config)):
        if spec_label == label:
            return entry
    raise ConfigError(f"no solver labelled {label!r}")
