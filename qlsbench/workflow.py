"""Helpers that turn a validated workflow config into file names and solver specs.

The Snakefile calls these so its rules hold no logic of their own.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from typing import Any

from qlsbench.bench.runner import SolverSpec
from qlsbench.errors import ConfigError


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


def ising_datasets(config: dict[str, Any]) -> list[str]:
    """Dataset names ``ising/kappa<k>`` of the Ising section."""
    return [f"ising/kappa{k:g}" for k in config["ising"]["kappas"]]


def dem_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """DEM-C simulations of a config keyed by dataset scene label (``sedimentation-n16-mu0.3``)."""
    from qlsbench.generate import scene_label

    runs: dict[str, dict[str, Any]] = {}
    for i, run in enumerate(config.get("simulate", [])):
        label = scene_label(run.get("scene", "sedimentation"), run["n_spheres"], run["mu"])
        if label in runs:
            raise ConfigError(f"simulate[{i}]: a run for {label!r} is already configured")
        runs[label] = run
    return runs


def simulate_args(config: dict[str, Any], label: str) -> str:
    """Command-line options of ``qlsbench simulate`` for one configured run."""
    run = dem_runs(config)[label]
    return " ".join(f"--{key.replace('_', '-')} {value}" for key, value in sorted(run.items()))


def checkpoint_datasets(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Checkpoint sub-datasets (``dem_c_checkpoints/<scene>``) keyed by name, with their source and count."""
    out: dict[str, dict[str, Any]] = {}
    dem = {f"dem_c/{label}" for label in dem_runs(config)}
    for i, entry in enumerate(config.get("checkpoints", [])):
        if entry["dataset"] not in dem:
            raise ConfigError(f"checkpoints[{i}].dataset {entry['dataset']!r} is not a configured DEM-C dataset "
                              f"({', '.join(sorted(dem)) or 'none'})")
        out["dem_c_checkpoints/" + entry["dataset"].split("/", 1)[1]] = entry
    return out


def checkpoint_count(config: dict[str, Any], scene: str) -> int:
    """How many checkpoints the sub-dataset of ``scene`` holds."""
    return int(checkpoint_datasets(config)[f"dem_c_checkpoints/{scene}"].get("count", 4))


def all_datasets(config: dict[str, Any]) -> list[str]:
    """Every dataset the config generates: Ising, then DEM-C, then DEM-C checkpoints."""
    return ising_datasets(config) + [f"dem_c/{label}" for label in dem_runs(config)] + list(checkpoint_datasets(config))


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


def solver_run_setting(config: dict[str, Any], label: str, key: str, default: Any) -> Any:
    """``repeats`` or ``time_limit`` of solver ``label``: its own entry's, else ``run``'s, else ``default``."""
    return _solver_entry(config, label).get(key, config["run"].get(key, default))


def solver_results(config: dict[str, Any]) -> list[str]:
    """Every results file the configured solvers produce."""
    return [f"results/{label}/{d}.parquet" for label in solver_specs(config) for d in solver_datasets(config, label)]


def loss_figures(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Loss-curve figures by name (a list in the config, so a --configfile replaces it whole)."""
    figures: dict[str, dict[str, Any]] = {}
    for i, fig in enumerate(config.get("loss_figures", [])):
        if fig["name"] in figures:
            raise ConfigError(f"loss_figures[{i}]: name {fig['name']!r} used twice")
        figures[fig["name"]] = fig
    return figures


def loss_figure_inputs(config: dict[str, Any], name: str) -> list[str]:
    """Results files loss figure ``name`` reads: its solvers on its dataset."""
    fig = loss_figures(config)[name]
    missing = [s for s in fig["solvers"] if s not in solver_specs(config)]
    if missing:
        raise ConfigError(f"loss_figures.{name}.solvers {missing} are not configured solver labels")
    absent = [s for s in fig["solvers"] if fig["dataset"] not in solver_datasets(config, s)]
    if absent:
        raise ConfigError(f"loss_figures.{name}: solver(s) {absent} do not run on {fig['dataset']!r}")
    return [f"results/{label}/{fig['dataset']}.parquet" for label in fig["solvers"]]


def _solver_entry(config: dict[str, Any], label: str) -> dict[str, Any]:
    for entry, spec_label in zip(config.get("solvers", []), solver_specs(config)):
        if spec_label == label:
            return entry
    raise ConfigError(f"no solver labelled {label!r}")
