"""The config's in-loop runs (``in_loop:``): each checked as ``qlsbench in-loop`` checks it, its command's words and
its results file."""

from __future__ import annotations

import json
import shlex
from typing import Any

from qlsbench.bench._runner import SolverSpec
from qlsbench.errors import ConfigError, QlsbenchError
from qlsbench.options import cli_words
from qlsbench.workflow._solvers import _importable_from_cwd

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
