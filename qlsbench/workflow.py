"""Helpers that turn a validated workflow config into file names and solver specs.

The Snakefile calls these so its rules hold no logic of their own.
"""

from __future__ import annotations

import json
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


def all_datasets(config: dict[str, Any]) -> list[str]:
    """Every dataset the config generates: Ising, then DEM-C."""
    return ising_datasets(config) + [f"dem_c/{label}" for label in dem_runs(config)]
