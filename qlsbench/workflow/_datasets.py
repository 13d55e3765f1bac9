"""The config's datasets: each family's section read through its options record, the dataset names, and what the
generated family rules (``workflows/rules/datasets.smk``) pass their jobs."""

from __future__ import annotations

import json
import os
from fnmatch import fnmatchcase
from typing import Any

from qlsbench.errors import ConfigError
from qlsbench.families.base import Family
from qlsbench.options import Options, cli_words


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
            raise ConfigError(
                f"checkpoints[{i}].dataset {entry['dataset']!r} is not a configured DEM-C dataset "
                f"({', '.join(sorted(dem)) or 'none'})"
            )


def family_labels(config: dict[str, Any], family: str) -> list[str]:
    """Dataset labels of one family in the config (``sedimentation-n16-mu0`` for ``dem_c``)."""
    return [name.split("/", 1)[1] for name, (f, _) in dataset_runs(config).items() if f.name == family]


def family_args(
    config: dict[str, Any], family: str, label: str, exclude: tuple[str, ...] = (), files: dict[str, str] | None = None
) -> str:
    """The ``qlsbench <command>`` options, ``--out`` aside, that build dataset ``family/label`` of the config.

    Only what the config entry says is passed (the options record supplies
    the rest), plus ``--integrator`` for a family chosen by it; ``exclude``
    leaves out options the rule gives from its ``{input}`` instead, and
    ``files`` gives options their values from the rule's own files (its
    :class:`~qlsbench.families.base.Rule` ``inputs`` and ``outputs``).
    """
    fam, options = dataset_runs(config)[f"{family}/{label}"]
    files = files or {}
    given = {
        k: getattr(options, k)
        for k in _config_entry(config, fam, label)
        if k in options.specs() and k not in exclude and k not in files
    }
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


def _config_entry(config: dict[str, Any], family: Family, label: str) -> dict[str, Any]:
    """The config mapping behind one dataset (after the family's ``runs``, e.g. one per Ising kappa)."""
    section = config.get(family.config_key)
    entries = family.runs(section) if family.runs else section or []
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
    return [
        family.dataset_path(name.split("/", 1)[1])
        for name, (family, _) in dataset_runs(config).items()
        if not family.systems
    ]


def all_datasets(config: dict[str, Any]) -> list[str]:
    """Every linear-system dataset the config builds (``<family>/<label>``); trajectories are not linear systems."""
    return [name for name, (family, _) in dataset_runs(config).items() if family.systems]
