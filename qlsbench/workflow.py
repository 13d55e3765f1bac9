"""Helpers that check a workflow config and turn it into file names, solver specs and resources.

The Snakefile calls these so its rules hold no logic of their own.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
from fnmatch import fnmatchcase
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlsbench.bench.runner import SolverSpec
from qlsbench.errors import ConfigError, QlsbenchError
from qlsbench.families.base import Family
from qlsbench.options import Options, cli_words


def _schema_error_line(error) -> str:
    """A jsonschema error as one line: where in the config, then what is wrong."""
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return f"{where or 'the config'}: {error.message}"


def use_workflow_source(basedir: str | os.PathLike) -> None:
    """Put the workflow's own source first on ``PYTHONPATH``, for every job's ``python -m qlsbench``.

    Jobs then run the checkout that launched them, whatever else the job's environment has installed (a
    conda environment of the dependencies, a container image, another qlsbench).
    """
    paths = [str(basedir), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(basedir)]]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)


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


#: The workflow config's schema, as committed: hand-written but for its family sections (:func:`workflow_schema`).
SCHEMA = "workflows/config/schema.yaml"


def schema_text(path: str | os.PathLike = SCHEMA, plugins: bool = True) -> str:
    """The text of the config schema at ``path`` with its family sections generated from the families' options
    records (:mod:`qlsbench.families.config_schema`): with ``plugins``, every registered family's, else the
    built-in families' (what is committed)."""
    from qlsbench.families.config_schema import schema_text as spliced

    return spliced(Path(path).read_text(encoding="utf-8"), dataset_families(plugins), str(path))


def workflow_schema(path: str | os.PathLike = SCHEMA) -> str:
    """The schema file a config is validated against: ``path`` itself when its family sections are those of every
    registered family, else (a plug-in family is installed, or the file is stale) the generated text, written to
    ``.snakemake/qlsbench/schema.yaml``, whose path is returned (absolute, as Snakemake's ``validate`` wants)."""
    text = schema_text(path)
    if Path(path).read_text(encoding="utf-8") == text:
        return str(Path(path).resolve())
    out = Path(".snakemake") / "qlsbench" / "schema.yaml"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        from qlsbench.data import atomic_write_text

        atomic_write_text(out, text)
    return str(out.resolve())


def check_config(config: dict[str, Any], schema: str | os.PathLike) -> None:
    """Check a workflow config against its schema and against itself.

    The schema catches unknown keys and bad values; the rest needs the
    config as a whole: solver labels unique and path-safe, each solver's
    dataset patterns matching a dataset, loss figures naming configured
    solvers that run on their dataset, checkpoints of configured simulations,
    each in-loop run checked as ``qlsbench in-loop`` checks it. The jobs'
    command lines are checked above this layer, by their commands' parsers
    (:func:`qlsbench.cli.config_check.check_workflow_config`, which calls this).

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
    dataset_runs(config)
    pauli_figure_datasets(config)
    check_solvers(config)
    for label in solver_specs(config):
        solver_datasets(config, label)
    check_runtimes(config)
    for name in loss_figures(config):
        loss_figure_inputs(config, name)
    leaderboard_args(config)  # the leaderboard rule's words, read through the command's options record
    in_loop_runs(config)


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


def dataset_runs(config: dict[str, Any]) -> dict[str, tuple[Family, Options]]:
    """Every dataset the config builds, ``<family>/<label>`` to its family and checked options.

    Each family's section (:attr:`~qlsbench.families.base.Family.config_key`)
    is read through its options record, so a bad value or a key the family
    does not take is named with its entry (``penalty[0]: ...``). Checkpoint
    datasets must come from a configured physics dataset.

    Raises
    ------
    ConfigError
        One line naming the entry and key at fault.
    """
    key = json.dumps(config, sort_keys=True, default=repr)
    if key not in _DATASET_RUNS:
        _DATASET_RUNS[key] = _read_dataset_runs(config)
    return dict(_DATASET_RUNS[key])


#: dataset_runs per config: Snakemake asks for them hundreds of times while it builds one DAG (every input and
#: resource function), and naming a penalty dataset builds its scene.
_DATASET_RUNS: dict[str, dict[str, tuple[Family, Options]]] = {}


def _read_dataset_runs(config: dict[str, Any]) -> dict[str, tuple[Family, Options]]:
    from qlsbench.errors import InputError
    from qlsbench.families import FAMILIES

    runs: dict[str, tuple[Family, Options]] = {}
    for family in FAMILIES.values():
        try:
            configured = family.configured(config)
        except InputError as exc:
            raise ConfigError(str(exc)) from None
        runs.update({f"{family.name}/{label}": (family, options) for label, options in configured.items()})
    _check_checkpoint_sources(config, runs)
    return runs


def _check_checkpoint_sources(config: dict[str, Any], runs: dict[str, tuple[Family, Options]]) -> None:
    dem = {name for name, (family, _) in runs.items() if family.name == "dem_c"}  # the checkpoints rule's source
    for i, entry in enumerate(config.get("checkpoints") or []):
        if entry["dataset"] not in dem:
            raise ConfigError(f"checkpoints[{i}].dataset {entry['dataset']!r} is not a configured DEM-C dataset "
                              f"({', '.join(sorted(dem)) or 'none'})")


def family_labels(config: dict[str, Any], family: str) -> list[str]:
    """Dataset labels of one family in the config (``sedimentation-n16-mu0`` for ``dem_c``)."""
    return [name.split("/", 1)[1] for name, (f, _) in dataset_runs(config).items() if f.name == family]


def family_args(config: dict[str, Any], family: str, label: str, exclude: tuple[str, ...] = (),
                files: dict[str, str] | None = None) -> str:
    """The ``qlsbench <command>`` options, ``--out`` aside, that build dataset ``family/label`` of the config.

    Only what the config entry says is passed (the options record supplies
    the rest), plus ``--integrator`` for a family chosen by it; ``exclude``
    leaves out options the rule gives from its ``{input}`` instead, and
    ``files`` gives options their values from the rule's own files (its
    :class:`~qlsbench.families.base.Rule` ``inputs`` and ``outputs``).
    """
    fam, options = dataset_runs(config)[f"{family}/{label}"]
    files = files or {}
    given = {k: getattr(options, k) for k in _config_entry(config, fam, label)
             if k in options.specs() and k not in exclude and k not in files}
    words = [f"--integrator {fam.integrator}"] if fam.integrator else []
    return " ".join(words + cli_words(fam.options, {**given, **files}))


def dataset_families(plugins: bool = True) -> list[Family]:
    """Every dataset family, each with the rule that builds its datasets (``workflows/rules/datasets.smk``)."""
    from qlsbench.families import families

    return list(families(plugins).values())


def family_rule_inputs(family: Family) -> dict[str, str]:
    """A family rule's inputs by option name, each a pattern with ``{label}`` (its record's ``rule.inputs``)."""
    return dict(family.rule.inputs)


def family_rule_outputs(family: Family) -> dict[str, str]:
    """A family rule's outputs beside the dataset, by option name (its record's ``rule.outputs``)."""
    return dict(family.rule.outputs)


def family_rule_args(config: dict[str, Any], family: Family):
    """The ``params`` function of a family's rule: :func:`family_args` of the job's dataset, with the options
    its own input and output files give."""
    def args(wildcards, input, output) -> str:
        files = {name: str(getattr(input, name)) for name in family.rule.inputs}
        files.update({name: str(getattr(output, name)) for name in family.rule.outputs})
        return family_args(config, family.name, wildcards.label, files=files)
    return args


def family_rule_out(family: Family):
    """The ``params`` function of a family's rule giving its ``--out`` (:func:`family_out`)."""
    def out(wildcards, output) -> str:
        return family_out(family, str(output.dataset))
    return out


def family_out(family: Family, dataset: str) -> str:
    """What the job's ``--out`` names: the dataset file where the family's command writes a file there
    (``out_kind`` ``"file"``), else its folder."""
    return dataset if family.out_kind == "file" else os.path.dirname(dataset)


def local_dataset_rules(plugins: bool = True) -> list[str]:
    """The dataset rules that run where Snakemake runs (``localrules``): the families whose rule is ``local``."""
    return [family.rule.name for family in dataset_families(plugins) if family.rule.local]


def leaderboard_args(config: dict[str, Any]) -> str:
    """The accuracy settings of the config's ``leaderboard:`` section as ``qlsbench leaderboard`` options."""
    from qlsbench.report.leaderboard_page import LeaderboardOptions

    section = config.get("leaderboard") or {}
    try:
        LeaderboardOptions.from_mapping(section, "leaderboard")
    except QlsbenchError as exc:
        raise ConfigError(str(exc)) from None
    return " ".join(cli_words(LeaderboardOptions, section))


def _config_entry(config: dict[str, Any], family: Family, label: str) -> dict[str, Any]:
    """The config mapping behind one dataset (after the family's ``runs``, e.g. one per Ising kappa)."""
    section = config.get(family.config_key)
    entries = family.runs(section) if family.runs else section
    for entry in entries:
        if family.label(family.options.from_mapping(dict(entry))) == label:
            return entry
    raise ConfigError(f"no {family.name} dataset labelled {label!r} in the config")


def pauli_figure_datasets(config: dict[str, Any]) -> list[str]:
    """The datasets fig. 5 and the truncation curves draw: ``pauli.figure``'s patterns, else every DEM-C dataset,
    else every dataset."""
    datasets = all_datasets(config)
    patterns = (config.get("pauli") or {}).get("figure")
    if patterns:
        chosen = [d for d in datasets if any(fnmatchcase(d, p) for p in patterns)]
        if not chosen:
            raise ConfigError(f"pauli.figure {patterns} match none of {datasets}")
        return chosen
    return [d for d in datasets if d.startswith("dem_c/")] or datasets


def trajectory_outputs(config: dict[str, Any]) -> list[str]:
    """Every dataset file the config writes that is not a linear-system dataset (trajectories), which ``all``
    asks for by name (nothing downstream reads them)."""
    return [family.dataset_path(name.split("/", 1)[1]) for name, (family, _) in dataset_runs(config).items()
            if not family.systems]


#: Keys of an ``in_loop:`` entry that are not :class:`~qlsbench.bench.in_loop.InLoopOptions` fields.
IN_LOOP_KEYS = ("name", "solver", "options", "seeds", "fidelity", "fewer_seeds")


def in_loop_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The config's ``in_loop:`` entries by name, each checked as ``qlsbench in-loop`` checks its run.

    Its options record, its solver's options (:func:`~qlsbench.solvers.registry.check_solver`), then
    :func:`~qlsbench.bench.in_loop.check_sweep`, the command's own check before its first run: fidelity levels
    for the oracle only, a warm start the solver can take, a scene that builds.

    Raises
    ------
    ConfigError
        Naming the entry and what is at fault, or a name used twice.
    """
    key = json.dumps(config.get("in_loop") or [], sort_keys=True, default=repr)
    if key not in _IN_LOOP_RUNS:
        _IN_LOOP_RUNS[key] = _read_in_loop_runs(config)
    return dict(_IN_LOOP_RUNS[key])


#: in_loop_runs per config section: Snakemake asks for them once per in-loop job, and each check builds the
#: solver (and a penalty scene).
_IN_LOOP_RUNS: dict[str, dict[str, dict[str, Any]]] = {}


def _read_in_loop_runs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    from qlsbench.bench.in_loop import InLoopOptions, check_sweep
    from qlsbench.solvers.registry import check_solver

    runs: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(config.get("in_loop") or []):
        where = f"in_loop[{i}]"
        if entry["name"] in runs:
            raise ConfigError(f"{where}: name {entry['name']!r} used twice")
        try:
            options = InLoopOptions.from_mapping({k: v for k, v in entry.items() if k not in IN_LOOP_KEYS}, where)
        except QlsbenchError as exc:
            raise ConfigError(str(exc)) from None
        solver_options = dict(entry.get("options") or {})
        _importable_from_cwd([entry["solver"]])
        try:
            check_solver(entry["solver"], solver_options)
            check_sweep(options, SolverSpec(entry["solver"], solver_options), entry.get("fidelity") or ())
        except QlsbenchError as exc:
            raise ConfigError(f"{where} ({entry['name']!r}): {exc}") from None
        runs[entry["name"]] = entry
    return runs


def in_loop_args(config: dict[str, Any], name: str) -> str:
    """The ``qlsbench in-loop`` words, ``--out`` aside, of the config's in-loop run ``name``."""
    from qlsbench.bench.in_loop import InLoopOptions

    entry = in_loop_runs(config)[name]
    words = cli_words(InLoopOptions, {k: v for k, v in entry.items() if k not in IN_LOOP_KEYS})
    words += ["--solver", entry["solver"]]
    if entry.get("options"):  # as JSON, as the solve rule passes them: each value reaches the solver as written
        words += ["--options", shlex.quote(json.dumps(entry["options"], sort_keys=True))]
    if entry.get("fidelity"):
        words += ["--fidelity", *map(str, entry["fidelity"])]
    if entry.get("seeds"):
        words += ["--seeds", str(entry["seeds"])]
    return " ".join(words)


def in_loop_outputs(config: dict[str, Any]) -> list[str]:
    """The in-loop results files of the config's runs (their page is a figure: :data:`qlsbench.report.FIGURES`)."""
    return [f"results/in-loop/{name}.parquet" for name in in_loop_runs(config)]


def all_datasets(config: dict[str, Any]) -> list[str]:
    """Every linear-system dataset the config builds (``<family>/<label>``); trajectories are not linear systems."""
    return [name for name, (family, _) in dataset_runs(config).items() if family.systems]


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
    merged = {**DEFAULT_RESOURCES["default"], **default_resources().get(rule, {}),
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


#: Minutes a solve job is given beyond its solves' time limits: starting Python, reading the dataset, writing.
SOLVE_OVERHEAD_MINUTES = 10


def dataset_system_count(config: dict[str, Any], dataset: str) -> int | None:
    """Distinct systems of ``dataset``, or an upper bound, known before it is built where the config says.

    Ising datasets hold one system per qubit count, checkpoint datasets at most ``count``, a run with
    ``max_systems`` at most that many; otherwise the built file is counted, and before it exists ``None``.
    """
    import pyarrow.parquet as pq

    family, options = dataset_runs(config)[dataset]
    if family.name == "ising":
        return len(set(options.n_qubits))
    if family.name == "dem_c_checkpoints":
        return int(options.count)
    if getattr(options, "max_systems", None):
        return int(options.max_systems)
    path = Path("datasets") / dataset / "part-0000.parquet"
    if path.exists():
        return len(set(pq.read_table(path, columns=["system_id"]).column(0).to_pylist()))
    return None


def solve_runtime(config: dict[str, Any], label: str, dataset: str, count: int, attempt: int = 1) -> int:
    """Minutes for one shard of solver ``label`` on ``dataset``: its time limit x the shard's systems x repeats.

    The systems of a shard are at most ``ceil(N / count)`` (:mod:`qlsbench.bench.shards`). When ``N`` is not
    known yet, the configured ``runtime`` of solve jobs, but at least one system's time limits. Each retry
    (``attempt``) doubles, triples... the time; ``max_runtime`` (the cluster's wall-time limit, in the
    solver's or the solve rule's ``resources``) caps it.
    """
    from qlsbench.bench.shards import max_shard_size

    resources = _resources(config, "solve", label)
    limit = float(solver_run_setting(config, label, "time_limit", 60))
    repeats = int(solver_run_setting(config, label, "repeats", 1))
    systems = dataset_system_count(config, dataset)
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
        limit = float(solver_run_setting(config, label, "time_limit", 60))
        repeats = int(solver_run_setting(config, label, "repeats", 1))
        if cap and math.ceil(limit * repeats / 60) + SOLVE_OVERHEAD_MINUTES > cap:
            raise ConfigError(f"solver {label!r}: time_limit {limit:g} s x {repeats} repeat(s) does not fit in its "
                              f"jobs' max_runtime of {cap} min (with {SOLVE_OVERHEAD_MINUTES} min to start and "
                              f"write); raise max_runtime or lower time_limit")


def solver_max_qubits(config: dict[str, Any], label: str) -> str:
    """``--max-qubits N`` when solver ``label`` has a ``max_qubits`` entry, else nothing."""
    limit = _solver_entry(config, label).get("max_qubits")
    return f"--max-qubits {limit}" if limit is not None else ""


def solver_results(config: dict[str, Any]) -> list[str]:
    """Every results file the configured solvers produce."""
    return [f"results/{label}/{d}.parquet" for label in solver_specs(config) for d in solver_datasets(config, label)]


def noisy_results(config: dict[str, Any]) -> list[str]:
    """Results files of the solver entries that run on a device backend (the noisy page's inputs)."""
    return [f"results/{label}/{d}.parquet" for label, spec in solver_specs(config).items()
            if spec.options.get("backend") == "device" for d in solver_datasets(config, label)]


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


def variational_solvers(config: dict[str, Any]) -> list[str]:
    """Labels of the configured solvers the registry calls variational (its one definition)."""
    from qlsbench.solvers.registry import is_variational

    _importable_from_cwd([spec.name for spec in solver_specs(config).values()])
    return [label for label, spec in solver_specs(config).items() if is_variational(spec.name)]


class WorkflowConfig:
    """A workflow config as the figure records ask about it (:class:`~qlsbench.report.base.Job`): its datasets,
    solvers, loss figures, in-loop runs... by name, each read by this module's one reading of it."""

    def __init__(self, config: dict[str, Any]):
        self.config = config

    def labels(self, family: str) -> list[str]:
        """Dataset labels of one family (:func:`family_labels`)."""
        return family_labels(self.config, family)

    def datasets(self) -> list[str]:
        """Every linear-system dataset (:func:`all_datasets`)."""
        return all_datasets(self.config)

    def pauli_figure_datasets(self) -> list[str]:
        """The datasets fig. 5 and the truncation curves draw (:func:`pauli_figure_datasets`)."""
        return pauli_figure_datasets(self.config)

    def solver_results(self) -> list[str]:
        """Every results file of the configured solvers (:func:`solver_results`)."""
        return solver_results(self.config)

    def variational_solvers(self) -> list[str]:
        """Labels of the variational solvers (:func:`variational_solvers`)."""
        return variational_solvers(self.config)

    def loss_figures(self) -> dict[str, dict[str, Any]]:
        """The config's loss figures by name (:func:`loss_figures`)."""
        return loss_figures(self.config)

    def loss_figure_inputs(self, name: str) -> list[str]:
        """Results files loss figure ``name`` reads (:func:`loss_figure_inputs`)."""
        return loss_figure_inputs(self.config, name)

    def checkpoint_tables(self) -> dict[str, dict[str, str]]:
        """Fig. 4's kappa tables by key (:func:`checkpoint_tables`)."""
        return checkpoint_tables(self.config)

    def in_loop_names(self) -> list[str]:
        """Names of the in-loop runs (:func:`in_loop_runs`)."""
        return list(in_loop_runs(self.config))

    def noisy_results(self) -> list[str]:
        """Results files of the solver entries on a device backend (:func:`noisy_results`)."""
        return noisy_results(self.config)


@dataclass(frozen=True)
class FigureRule:
    """One figure rule of the workflow, made from the :class:`~qlsbench.report.base.Job` of the figures drawn by it
    (``workflows/rules/figures.smk`` makes a Snakemake rule of each).

    Attributes
    ----------
    name : str
        The rule's name (:attr:`Job.rule`).
    figures : tuple of Figure
        The figures it draws: one, or several sharing the rule, told apart by the ``{figure}`` wildcard.
    """

    name: str
    figures: tuple

    @property
    def job(self):
        """The job the rule is made from (its figures share output, log, caption and place)."""
        return self.figures[0].job

    def figure(self, wildcards) -> Any:
        """The figure one output is of: the rule's one, or the one its ``{figure}`` wildcard names."""
        if len(self.figures) == 1:
            return self.figures[0]
        return next(f for f in self.figures if f.name == wildcards["figure"])

    def outputs(self, report: Any) -> tuple[list[Any], dict[str, Any]]:
        """The rule's outputs as (unnamed, named), the first passed through ``report`` (Snakemake's) with the
        job's caption (under ``workflows/report/``, from ``workflows/rules/``) and category, when it has one."""
        outputs: dict[str, Any] = self.job.outputs()
        first = next(iter(outputs))
        if self.job.caption:
            outputs[first] = report(outputs[first], caption=os.path.join("../report", self.job.caption),
                                    category=self.job.category)
        unnamed = [outputs.pop("")] if "" in outputs else []
        return unnamed, outputs

    def wildcard_constraints(self, config: dict[str, Any]) -> dict[str, str]:
        """The job's own constraints; for a shared rule, ``{figure}`` is one of its figures' names."""
        import re

        constraints = dict(self.job.wildcards(WorkflowConfig(config))) if self.job.wildcards else {}
        if len(self.figures) > 1:
            constraints["figure"] = "|".join(re.escape(f.name) for f in self.figures)
        return constraints

    def inputs(self, config: dict[str, Any], wildcards) -> list[str] | dict[str, Any]:
        """The input paths of one output."""
        return self.figure(wildcards).job.inputs(WorkflowConfig(config), wildcards)

    def command(self, config: dict[str, Any], wildcards, inputs, outputs) -> str:
        """What follows ``qlsbench figure``: the figure's name and its job's words, quoted for the shell."""
        figure = self.figure(wildcards)
        return shlex.join([figure.name, *map(str, figure.job.words(WorkflowConfig(config), wildcards, inputs,
                                                                  outputs))])


def figure_rules() -> list[FigureRule]:
    """The workflow's figure rules: the figures with a :class:`~qlsbench.report.base.Job`
    (:func:`qlsbench.report.figures`, plug-ins included), grouped by rule name.

    Raises
    ------
    ConfigError
        When figures sharing a rule name declare different outputs or logs.
    """
    from qlsbench.report import figures

    groups: dict[str, list] = {}
    for figure in figures().values():
        if figure.job is not None:
            groups.setdefault(figure.job.rule, []).append(figure)
    for name, members in groups.items():
        first = members[0].job
        odd = [f.name for f in members if (f.job.outputs(), f.job.log) != (first.outputs(), first.log)]
        if odd or (len(members) > 1 and "{figure}" not in str(first.output)):
            raise ConfigError(f"figure rule {name!r}: figures {[f.name for f in members]} share it but not one "
                              "output and log told apart by {figure}")
    return [FigureRule(name, tuple(members)) for name, members in groups.items()]


def figure_targets(config: dict[str, Any]) -> list[str]:
    """Every figure and table the config asks for (rule ``all``): each figure's :attr:`Job.targets`."""
    view = WorkflowConfig(config)
    return [path for rule in figure_rules() for figure in rule.figures for path in figure.job.targets(view)]


def figure_local_rules() -> list[str]:
    """The figure rules whose jobs run where Snakemake runs (:attr:`Job.local`)."""
    return [rule.name for rule in figure_rules() if rule.job.local]


def _solver_entry(config: dict[str, Any], label: str) -> dict[str, Any]:
    for entry, spec_label in zip(config.get("solvers", []), solver_specs(config)):
        if spec_label == label:
            return entry
    raise ConfigError(f"no solver labelled {label!r}")
