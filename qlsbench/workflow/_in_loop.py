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
IN_LOOP_KEYS = ("name", "solver", "options", "seeds", "fidelity", "fewer_seeds", "shards", "resources")


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
        shards, seeds = entry.get("shards", 1), entry.get("seeds", 1)
        if not isinstance(shards, int) or isinstance(shards, bool) or not 1 <= shards <= seeds:
            raise ConfigError(
                f"{where} ({entry['name']!r}): shards must be a whole number from 1 to its seeds ({seeds}), "
                f"got {shards!r}"
            )
        runs[entry["name"]] = entry
    return runs


def in_loop_args(config: dict[str, Any], name: str, shard: tuple[int, int] | None = None) -> str:
    """The ``qlsbench in-loop`` words, ``--out`` aside, of the config's in-loop run ``name``, or of its shard
    ``(i, k)``: the ``i``-th of ``k`` contiguous ranges of its seeds (:func:`shard_seeds`)."""
    from qlsbench.bench.in_loop import InLoopOptions

    entry = in_loop_runs(config)[name]
    words = cli_words(InLoopOptions, {k: v for k, v in entry.items() if k not in IN_LOOP_KEYS})
    words += ["--solver", entry["solver"]]
    if entry.get("options"):  # as JSON, as the solve rule passes them: each value reaches the solver as written
        words += ["--options", shlex.quote(json.dumps(entry["options"], sort_keys=True))]
    if entry.get("fidelity"):
        words += ["--fidelity", *map(str, entry["fidelity"])]
    if shard is not None:
        first, last = shard_seeds(entry.get("seeds", 1), *shard)
        words += ["--seeds", str(last), "--first-seed", str(first)]
    elif entry.get("seeds"):
        words += ["--seeds", str(entry["seeds"])]
    return " ".join(words)


def shard_seeds(seeds: int, i: int, k: int) -> tuple[int, int]:
    """Seeds ``first..last-1`` of shard ``i`` of ``k`` (1-based) of a run over seeds ``0..seeds-1``: contiguous,
    sizes differing by at most one, together every seed once."""
    return (i - 1) * seeds // k, i * seeds // k


def in_loop_shards(config: dict[str, Any], name: str) -> int:
    """How many jobs the config's in-loop run ``name`` is split into (its entry's ``shards``, default 1)."""
    return int(in_loop_runs(config)[name].get("shards", 1))


def in_loop_resource(config: dict[str, Any], name: str, key: str) -> int:
    """``mem_mb``, ``runtime`` (minutes) or ``threads`` of the jobs of the config's in-loop run ``name``: the
    ``in_loop`` rule's (:func:`~qlsbench.workflow.rule_resources`), then its entry's own ``resources``."""
    from qlsbench.workflow._resources import rule_resources, rule_threads

    merged = {**rule_resources(config, "in_loop"), "threads": rule_threads(config, "in_loop")}
    merged.update(in_loop_runs(config)[name].get("resources") or {})
    return int(merged[key])


def in_loop_name_pattern(config: dict[str, Any], sharded: bool) -> str:
    """A wildcard pattern matching the names of the in-loop runs that are (or are not) sharded."""
    import re

    names = [name for name in in_loop_runs(config) if (in_loop_shards(config, name) > 1) == sharded]
    return "|".join(re.escape(name) for name in names) or "(?!)"


def in_loop_shard_files(config: dict[str, Any], name: str) -> list[str]:
    """The shards' results files of the in-loop run ``name``, which the merge rule joins."""
    count = in_loop_shards(config, name)
    return [f"results/in-loop/shards/{name}/{i}-of-{count}.parquet" for i in range(1, count + 1)]


def in_loop_outputs(config: dict[str, Any]) -> list[str]:
    """The in-loop results files of the config's runs (their page is a figure: :data:`qlsbench.report.FIGURES`)."""
    return [f"results/in-loop/{name}.parquet" for name in in_loop_runs(config)]
