"""``qlsbench check-config``: every check a workflow run makes of its config, made before any job runs.

``check-config`` and the Snakefile both call :func:`check_workflow_config`, so ``check-config`` passes a
config exactly when ``snakemake -n`` does, and neither passes one that a job would refuse.
:func:`qlsbench.workflow.check_config` checks the config itself: the schema, its cross-references, each
solver built with its options, each in-loop run as ``qlsbench in-loop`` checks it
(:func:`~qlsbench.bench.in_loop.check_sweep`). Here, besides, the command line a rule would run is read by
that command's own arguments, the ones the job will use: a number the schema admits but the command does not
(``repeats`` past the command's cap, a time limit past its bound) stops the workflow now, naming the config
entry and the flag, not the job hours into a run. An in-loop job's command line must also carry what its
entry says: options read back equal to the entry's.

This lives with the command line, above :mod:`qlsbench.workflow`, because it needs the commands' arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
from collections.abc import Iterator
from typing import Any

from qlsbench.cli.base import Command
from qlsbench.errors import ConfigError

#: The commands whose command lines the config spells out, and so are read here (cheap to build: the figure
#: and leaderboard commands import the report, and their config sections are checked by their records).
JOB_COMMANDS = ("solve", "in-loop", "pauli")


def check_workflow_config(config: dict[str, Any], schema: str | os.PathLike) -> None:
    """Check ``config`` as a workflow run would, before any job: itself, then its jobs' command lines.

    Raises
    ------
    ConfigError
        One line naming the config entry and what a job would refuse.
    """
    from qlsbench.workflow import check_config, in_loop_args, in_loop_runs

    check_config(config, schema)
    _check_advantage(config.get("advantage"))
    parser = _job_parser()
    for where, words in job_command_lines(config):
        _check_external(_parsed(parser, words, where), where)
    for i, (name, entry) in enumerate(in_loop_runs(config).items()):
        where = f"in_loop[{i}] ({name!r})"
        words = ["in-loop", *shlex.split(in_loop_args(config, name)), "--out", "in-loop.parquet", "--quiet"]
        args = _parsed(parser, words, where)
        _check_carried(args, entry, where)
        _check_external(args, where)


def _check_external(args: argparse.Namespace, where: str) -> None:
    """A job's ``external`` solver built as its run builds it: its environment, program and entry file exist
    (:meth:`~qlsbench.solvers.external.External._check_paths`; nothing is built or started)."""
    if getattr(args, "solver", None) != "external":
        return
    from qlsbench.cli.options import solver_spec
    from qlsbench.errors import QlsbenchError
    from qlsbench.solvers import get

    spec = solver_spec(args)
    try:
        get(spec.name, **spec.options)
    except QlsbenchError as exc:
        raise ConfigError(f"{where}: its job would stop at once: {exc}") from None


def _check_advantage(section: dict[str, Any] | None) -> None:
    """The ``advantage:`` section's axes and hardware models are known ones (the sweep's own checks)."""
    if not section:
        return
    from qlsbench.bench.advantage import AXES
    from qlsbench.estimates import HARDWARE_MODELS

    for key, known in (("families", AXES), ("models", HARDWARE_MODELS)):
        for i, name in enumerate(section.get(key) or []):
            if name not in known:
                raise ConfigError(f"advantage.{key}[{i}]: {name!r} is unknown; known: {', '.join(known)}")


def job_command_lines(config: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    """The solve and Pauli command lines of the config's jobs, as far as its values spell them out, each with
    where in the config its words come from.

    The words are the rules' (``workflows/rules/solve.smk``, ``pauli.smk``), with stand-in paths for the files
    the rules fill in. The in-loop rule's words are :func:`qlsbench.workflow.in_loop_args`, checked apart.
    """
    from qlsbench.workflow import options_json, solver_max_qubits, solver_run_setting, solver_specs

    seed = (config.get("run") or {}).get("seed", 0)
    for label, spec in solver_specs(config).items():
        yield (
            f"solver {label!r}",
            [
                "solve",
                "--solver",
                spec.name,
                "--label",
                label,
                "--options",
                options_json(config, label),
                "--dataset",
                "dataset",
                "--out",
                "results.parquet",
                "--repeats",
                str(solver_run_setting(config, label, "repeats")),
                "--seed",
                str(seed),
                "--time-limit",
                str(solver_run_setting(config, label, "time_limit")),
                *shlex.split(solver_max_qubits(config, label)),
            ],
        )
    from qlsbench.pauli import LCU_TOLS

    for section, tols in (
        ("pauli", (config.get("pauli") or {}).get("tols")),
        ("truncation", (config.get("truncation") or {}).get("tols", list(LCU_TOLS))),
    ):
        if tols:
            yield f"{section}.tols", ["pauli", "dataset", "--tol", *map(str, tols), "--out", "pauli.parquet"]


class _Refused(Exception):
    """What a command's parser would say refusing a command line (argparse's message)."""


class _RefusingParser(argparse.ArgumentParser):
    """A parser that raises its one line of refusal instead of printing it and exiting."""

    def error(self, message: str):
        raise _Refused(message)


def _job_parser() -> argparse.ArgumentParser:
    """A parser of :data:`JOB_COMMANDS` with their own arguments (:mod:`~qlsbench.cli.solve`,
    :mod:`~qlsbench.cli.in_loop`, :mod:`~qlsbench.cli.pauli`), as the jobs' ``qlsbench`` reads them."""
    from qlsbench.cli import in_loop, pauli, solve

    parser = _RefusingParser(prog="qlsbench")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in (*solve.COMMANDS, *in_loop.COMMANDS, *pauli.COMMANDS):
        if command.name in JOB_COMMANDS:
            command.arguments(sub.add_parser(command.name, prog=f"qlsbench {command.name}"))
    return parser


def _parsed(parser: argparse.ArgumentParser, words: list[str], where: str) -> argparse.Namespace:
    """``words`` read by the command's arguments, or its one line of refusal, with ``where``."""
    try:
        return parser.parse_args(words)
    except _Refused as exc:
        raise ConfigError(f"{where}: its job would stop at once: `qlsbench {words[0]}` refuses {exc}") from None


def _check_carried(args: argparse.Namespace, entry: dict[str, Any], where: str) -> None:
    """The in-loop job reads the options, solver options, seeds and fidelity levels its ``entry`` gives."""
    from qlsbench.bench.in_loop import InLoopOptions
    from qlsbench.cli.options import given_options, solver_spec
    from qlsbench.errors import QlsbenchError
    from qlsbench.workflow import IN_LOOP_KEYS

    given = InLoopOptions.from_mapping({k: v for k, v in entry.items() if k not in IN_LOOP_KEYS})
    try:
        read = InLoopOptions.from_mapping(given_options(args, InLoopOptions))
    except QlsbenchError as exc:
        raise ConfigError(f"{where}: its job would stop at once: {exc}") from None
    pairs = {f.name: (getattr(read, f.name), getattr(given, f.name)) for f in dataclasses.fields(InLoopOptions)}
    pairs["options"] = (solver_spec(args).options, dict(entry.get("options") or {}))
    pairs["seeds"] = (args.seeds, entry.get("seeds", 1))
    pairs["fidelity"] = (list(args.fidelity or []), list(entry.get("fidelity") or []))
    for key, (job, configured) in pairs.items():
        if job != configured:
            raise ConfigError(
                f"{where}: its job would read {key} as {job!r}, not {configured!r} as the config gives it"
            )


def cmd_check_config(args) -> None:
    """``check-config``: every check the workflow run makes of the config (the Snakefile calls the same function),
    its jobs' command lines and solver capabilities included; with ``--write-schema``, write the schema's family
    sections and in-loop options instead."""
    from qlsbench.workflow import workflow_schema
    from qlsbench.yaml_files import load_yaml

    if args.write_schema:
        return write_schema(args.schema)
    config = {}
    for path in [args.defaults, args.config] if args.defaults else [args.config]:
        layer = load_yaml(path, "YAML file") or {}
        if not isinstance(layer, dict):
            raise ConfigError(f"{path}: a config is a mapping of keys, got {type(layer).__name__}")
        config.update(layer)  # as Snakemake merges --configfile over the Snakefile's: key by key
    try:
        check_workflow_config(config, workflow_schema(args.schema))
    except ConfigError as exc:
        raise ConfigError(f"{args.config}: {exc}") from None
    print(f"{args.config}: valid")


def write_schema(path: str) -> None:
    """Rewrite the family sections and the in-loop entries' options of the schema file ``path`` from the built-in
    families' options records and the in-loop record made from them (a plug-in's section and loop options are
    added when the workflow runs, not committed)."""
    from pathlib import Path

    from qlsbench.workflow import schema_text

    text = schema_text(path, plugins=False)
    if Path(path).read_text(encoding="utf-8") == text:
        print(f"{path}: up to date")
        return
    Path(path).write_text(text, encoding="utf-8")
    print(f"{path}: family sections and in-loop options written from the options records")


def _arguments_check_config(s) -> None:
    s.add_argument("config", nargs="?", help="config YAML (as given to snakemake --configfile)")
    s.add_argument(
        "--defaults",
        default="workflows/config/default.yaml",
        help="config it is merged over, key by key, as Snakemake does ('' for none)",
    )
    s.add_argument(
        "--schema",
        default="workflows/config/schema.yaml",
        help="the config schema (its family sections and in-loop options are generated from the "
        "families' options records, plug-in families included)",
    )
    s.add_argument(
        "--write-schema",
        action="store_true",
        help="write the schema's family sections and in-loop options from the built-in families' options "
        "records instead of checking a config (the committed file; tests/test_config_schema.py "
        "checks it is current)",
    )
    s.set_defaults(func=_check_or_write)


def _check_or_write(args) -> None:
    if not args.write_schema and not args.config:
        raise ConfigError("check-config needs a config file (or --write-schema)")
    cmd_check_config(args)


#: This module's command, listed where ``qlsbench --help`` lists it.
COMMANDS = (
    Command(
        "check-config", "check a workflow config file before running it (one line per problem)", _arguments_check_config
    ),
)

__all__ = ["COMMANDS", "JOB_COMMANDS", "check_workflow_config", "cmd_check_config", "job_command_lines", "write_schema"]
