"""Helpers that check a workflow config and turn it into file names, solver specs and resources.

The Snakefile calls these so its rules hold no logic of their own.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from qlsbench.bench.runner import SolverSpec
from qlsbench.errors import ConfigError


def _schema_error_line(error) -> str:
    """A jsonschema error as one line: where in the config, then what is wrong."""
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return f"{where or 'the config'}: {error.message}"


def check_config_files(paths) -> None:
    """Read each config file strictly: Snakemake keeps the last of two equal keys, we refuse them.

    Raises
    ------
    ConfigError
        One line naming the file and the line of the repeated key.
    """
    from qlsbench.yaml_files import load_yaml

    for path in paths:
        load_yaml(path, "workflow config")


def check_config(config: dict[str, Any], schema: str | os.PathLike) -> None:
    """Check a workflow config against its schema and against itself.

    The schema catches unknown keys and bad values; the rest needs the
    config as a whole: solver labels unique and path-safe, each solver's
    dataset patterns matching a dataset, loss figures naming configured
    solvers that run on their dataset, checkpoints of configured simulations.

    Raises
    ------
    ConfigError
        One line naming the key at fault.
    """
    import jsonschema
    import yaml

    validator = jsonschema.Draft202012Validator(yaml.safe_load(Path(schema).read_text()))
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise ConfigError(_schema_error_line(errors[0]))
    dem_runs(config)
    penalty_runs(config)
    cd_lagrange_runs(config)
    trajectory_runs(config)
    checkpoint_datasets(config)
    check_solvers(config)
    for label in solver_specs(config):
        solver_datasets(config, label)
    for name in loss_figures(config):
        loss_figure_inputs(config, name)


def check_solvers(config: dict[str, Any]) -> None:
    """Every configured solver resolves and takes its options, with the right types, before any job runs.

    ``module:Class`` names import from the current folder, as ``qlsbench
    solve`` (which each job runs) imports them.
    """
    from qlsbench.errors import QlsbenchError
    from qlsbench.solvers.registry import check_solver

    if os.getcwd() not in sys.path and any(":" in e.get("name", "") for e in config.get("solvers", [])):
        sys.path.insert(0, os.getcwd())
    for i, entry in enumerate(config.get("solvers", [])):
        try:
            check_solver(entry["name"], dict(entry.get("options") or {}))
        except QlsbenchError as exc:
            raise ConfigError(f"solvers[{i}]: {exc}") from None


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


def _runs_by_label(config: dict[str, Any], section: str, label_of: Callable[[int, dict], str],
                   what: str = "a run for", hint: str = "") -> dict[str, dict[str, Any]]:
    """Entries of list ``section`` keyed by ``label_of(index, entry)``; a label used twice is an error."""
    runs: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(config.get(section, [])):
        label = label_of(i, entry)
        if label in runs:
            raise ConfigError(f"{section}[{i}]: {what} {label!r} is already configured{hint}")
        runs[label] = entry
    return runs


def dem_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """DEM-C simulations of a config keyed by dataset scene label (``sedimentation-n16-mu0.3``)."""
    from qlsbench.generate import scene_label

    return _runs_by_label(config, "simulate", lambda i, run: scene_label(run.get("scene", "sedimentation"),
                                                                         run["n_spheres"], run["mu"]))


def penalty_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Penalty-friction simulations of a config keyed by scene label (``incline-block-a30-mu0.3``).

    The label is the built scene's name, so building checks the parameters too.
    """
    from qlsbench.errors import InputError
    from qlsbench.physics.penalty import build_penalty_scene

    def label_of(i: int, run: dict) -> str:
        try:
            return build_penalty_scene(run["scene"], **(run.get("params") or {})).name
        except InputError as exc:
            raise ConfigError(f"penalty[{i}]: {exc}") from None

    return _runs_by_label(config, "penalty", label_of)


def penalty_args(config: dict[str, Any], label: str) -> str:
    """Command-line options of ``qlsbench simulate`` for one configured penalty run."""
    run = penalty_runs(config)[label]
    words = [f"--{key.replace('_', '-')} {value}" for key, value in sorted(run.items()) if key != "params"]
    words += [f"--param {key}={value}" for key, value in sorted((run.get("params") or {}).items())]
    return " ".join(words)


def cd_lagrange_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """CD-Lagrange sphere simulations keyed by scene label (``sedimentation-n16-mu0-e0.5``)."""
    from qlsbench.generate import scene_label

    return _runs_by_label(config, "cd_lagrange", lambda i, run: scene_label(
        run.get("scene", "sedimentation"), run["n_spheres"], run["mu"], run["restitution"]))


def cd_lagrange_args(config: dict[str, Any], label: str) -> str:
    """Command-line options of ``qlsbench simulate --integrator cd_lagrange`` for one configured run."""
    return "--integrator cd_lagrange " + _cli_options(cd_lagrange_runs(config)[label])


def trajectory_name(entry: dict[str, Any]) -> str:
    """File stem of a trajectory entry: its ``name``, else the scene, its parameters and a non-default impact mode.

    ``{scene: bouncing-ball, params: {e: 0.8}}`` is ``bouncing-ball-e0.8``.
    """
    if entry.get("name"):
        return str(entry["name"])
    words = [entry["scene"]] + [f"{k}{v:g}" if isinstance(v, (int, float)) else f"{k}{v}"
                                for k, v in sorted((entry.get("params") or {}).items())]
    if entry.get("impacts", "sequential") != "sequential":
        words.append(entry["impacts"])
    return "-".join(words)


def trajectory_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """CD-Lagrange trajectory files (``datasets/trajectories/<name>.parquet``) keyed by name.

    A scene parameter the scene does not take is caught here, with the entry's index.
    """
    import inspect

    from qlsbench.physics.cdlagrange import CD_SCENES

    def label_of(i: int, entry: dict) -> str:
        accepted = inspect.signature(CD_SCENES[entry["scene"]]).parameters
        unknown = sorted(set(entry.get("params") or {}) - set(accepted))
        if unknown:
            raise ConfigError(f"trajectories[{i}].params: {entry['scene']} takes no {', '.join(unknown)} "
                              f"(it takes {', '.join(accepted)})")
        name = trajectory_name(entry)
        if "/" in name or name.startswith("."):
            raise ConfigError(f"trajectories[{i}].name {name!r} must not contain '/' or start with '.'")
        return name

    return _runs_by_label(config, "trajectories", label_of, "a trajectory named", "; give one a 'name'")


def trajectory_args(config: dict[str, Any], name: str) -> str:
    """Command-line options of ``qlsbench trajectory`` for one configured trajectory."""
    entry = trajectory_runs(config)[name]
    words = [f"--scene {entry['scene']}", f"--steps {entry['steps']}"]
    words += [f"--{key} {entry[key]}" for key in ("h", "seed", "impacts") if key in entry]
    if "sigmas" in entry:
        words.append("--sigma " + " ".join(f"{s}" for s in entry["sigmas"]))
    words += [f"--param {key}={value}" for key, value in sorted((entry.get("params") or {}).items())]
    return " ".join(words)


def trajectory_outputs(config: dict[str, Any]) -> list[str]:
    """Every trajectory file the config writes."""
    return [f"datasets/trajectories/{name}.parquet" for name in trajectory_runs(config)]


def simulate_args(config: dict[str, Any], label: str) -> str:
    """Command-line options of ``qlsbench simulate`` for one configured run (snapshots aside)."""
    return _cli_options(dem_runs(config)[label], skip=("snapshots",))


def _cli_options(run: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    """``--key value`` for each entry of a run (keys sorted, ``_`` written ``-``), leaving out ``skip``."""
    return " ".join(f"--{key.replace('_', '-')} {value}" for key, value in sorted(run.items()) if key not in skip)


def snapshot_count(config: dict[str, Any], label: str) -> int:
    """How many sphere snapshots (fig. 3) simulation ``label`` keeps."""
    return int(dem_runs(config)[label].get("snapshots", 4))


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
    """Every linear-system dataset the config generates: Ising, DEM-C, DEM-C checkpoints, penalty friction, CD-Lagrange.

    Trajectory files are not linear systems; see :func:`trajectory_outputs`.
    """
    return (ising_datasets(config) + [f"dem_c/{label}" for label in dem_runs(config)]
            + list(checkpoint_datasets(config)) + [f"penalty/{label}" for label in penalty_runs(config)]
            + [f"cd_lagrange/{label}" for label in cd_lagrange_runs(config)])


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


#: Per-job resources a cluster executor (SLURM) requests: memory in MB, wall time in minutes, threads.
#: ``resources:`` in the config overrides them per rule (or under ``default``), a solver entry per solver.
DEFAULT_RESOURCES: dict[str, dict[str, int]] = {
    "default": {"mem_mb": 2000, "runtime": 30, "threads": 1},
    "simulate": {"mem_mb": 4000, "runtime": 240},
    "simulate_penalty": {"mem_mb": 4000, "runtime": 120},
    "simulate_cd_lagrange": {"mem_mb": 4000, "runtime": 240},
    "pauli": {"mem_mb": 8000, "runtime": 60, "threads": 2},  # numba kernels run patterns in parallel
    "truncation": {"mem_mb": 8000, "runtime": 60, "threads": 2},  # the same study, more tolerances
    "solve": {"mem_mb": 4000, "runtime": 120},
}


def _resources(config: dict[str, Any], rule: str, label: str | None = None) -> dict[str, int]:
    """Built-in defaults, then the config's ``default``, its entry for ``rule``, and a solver entry's own."""
    given = config.get("resources") or {}
    merged = {**DEFAULT_RESOURCES["default"], **DEFAULT_RESOURCES.get(rule, {}),
              **given.get("default", {}), **given.get(rule, {})}
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


def solver_max_qubits(config: dict[str, Any], label: str) -> str:
    """``--max-qubits N`` when solver ``label`` has a ``max_qubits`` entry, else nothing."""
    limit = _solver_entry(config, label).get("max_qubits")
    return f"--max-qubits {limit}" if limit is not None else ""


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


def checkpoint_tables(config: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Fig. 4's kappa tables: for each loss figure drawn on a checkpoint dataset, one per solver in it.

    Keyed by ``<solver>-checkpoints-<scene>`` (``results/tables/<key>.html``).
    """
    tables = {}
    for fig in loss_figures(config).values():
        family, _, scene = fig["dataset"].partition("/")
        if family == "dem_c_checkpoints":
            for solver in fig["solvers"]:
                tables[f"{solver}-checkpoints-{scene}"] = {"solver": solver, "scene": scene}
    return tables


def report_outputs(config: dict[str, Any]) -> list[str]:
    """Figures and tables of the report beyond the leaderboard, fig. 2/4 loss curves and fig. 5."""
    labels = list(dem_runs(config))
    out = [f"results/figures/snapshots_{label}.png" for label in labels]
    if labels:
        out += ["results/figures/kappa_time.png", "results/figures/truncation.png"]
    out += [f"results/tables/{name}.{ext}" for name in checkpoint_tables(config) for ext in ("html", "md")]
    return out


def _solver_entry(config: dict[str, Any], label: str) -> dict[str, Any]:
    for entry, spec_label in zip(config.get("solvers", []), solver_specs(config)):
        if spec_label == label:
            return entry
    raise ConfigError(f"no solver labelled {label!r}")
