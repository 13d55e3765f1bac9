"""What several commands share: options records as flags, solver options on the command line and the solver they
name."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import sys
from typing import Any

from qlsbench.errors import InputError
from qlsbench.options import Options, OptionSpec

#: Repeats of one solve per system: more is likelier a typo than a plan.
MAX_REPEATS = 1000
#: Worker processes of one command: more than a machine has cores is likelier a typo than a plan.
MAX_JOBS = 256


def parse_option(text: str) -> tuple[str, object]:
    """``key=value``, the value a number when ``float()`` reads it (:func:`~qlsbench.checks.number_text`, as on
    every path), else a Python literal when it is one, else the text."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"option {text!r} is not of the form key=value")
    key, raw = text.split("=", 1)
    return key, scalar_text(raw, literal=True)


def scalar_text(raw: str, *, literal: bool = False) -> object:
    """A value given as text on the command line: true/false/none, a number as ``float()`` reads it, then a
    Python literal (``literal``; ``--option``) or a YAML scalar (``--param``), else the text itself."""
    from qlsbench.checks import number_text

    lowered = raw.strip().lower()
    if lowered in ("true", "false", "none", "null"):
        return {"true": True, "false": False}.get(lowered)
    number = number_text(raw)
    if not isinstance(number, str):
        return number
    if literal:
        try:
            return ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            return raw
    import yaml

    return yaml.safe_load(raw)


def add_solver_arguments(s: argparse.ArgumentParser) -> None:
    """``--solver``, ``--option``, ``--options`` and ``--label``, read back by :func:`solver_spec`."""
    s.add_argument(
        "--solver", required=True, help="registered name (see `qlsbench solvers`), entry point or module:Class"
    )
    s.add_argument(
        "--option", type=parse_option, action="append", metavar="KEY=VALUE", help="solver option, repeatable"
    )
    s.add_argument("--options", help="solver options as a JSON object")
    s.add_argument("--label", help="leaderboard label (default: name plus options)")


def solver_spec(args):
    """The solver of ``--solver``, ``--option``/``--options`` and ``--label``.

    A ``module:Class`` solver is imported as ``python -m`` would: from the
    current directory first.
    """
    from qlsbench.bench import SolverSpec
    from qlsbench.errors import InputError

    options = dict(args.option or [])
    if args.options:
        try:
            extra = json.loads(args.options)
        except json.JSONDecodeError as exc:
            raise InputError(f"--options is not valid JSON: {exc}") from None
        if not isinstance(extra, dict):
            raise InputError(f"--options must be a JSON object, got {type(extra).__name__}")
        options.update(extra)
    import_from_cwd(args.solver)
    return SolverSpec(args.solver, options, args.label or "")


def import_from_cwd(solver: str) -> None:
    """Let a ``module:Class`` solver be imported from the current folder first, as ``python -m`` would."""
    if ":" in solver and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def merged_specs(records, owners) -> dict[str, tuple[OptionSpec, dict]]:
    """The command-line options of several options records: ``{field: (spec, {owner: default})}``.

    ``owners`` name the records (the families of one command). A text option
    with choices offers the union of their choices (``--scene``); which owner
    takes which value is said in its help.
    """
    merged: dict[str, tuple[OptionSpec, dict]] = {}
    for record, owner in zip(records, owners):
        for name, (spec, default) in record.specs().items():
            if not spec.cli:
                continue
            if name in merged and spec.choices:
                known = merged[name][0]
                assert known.choices is not None, f"option {name}: choices in one options record, not another"
                merged[name] = (
                    dataclasses.replace(
                        known, choices=known.choices + tuple(c for c in spec.choices if c not in known.choices)
                    ),
                    merged[name][1],
                )
            merged.setdefault(name, (spec, {}))[1][owner] = default
    return merged


def _default_note(defaults: dict, owners) -> str:
    """`` (default 32)``, or per family where they differ (`` (default 32 for dem_c, cd_lagrange)``)."""
    shown = {f: d for f, d in defaults.items() if d is not None and not (isinstance(d, (dict, list, tuple)) and not d)}
    if not shown:
        return ""
    groups: dict[str, list[str]] = {}
    for family, default in shown.items():
        groups.setdefault(_show(default), []).append(family)
    if len(groups) == 1 and len(shown) == len(owners):
        return f" (default {next(iter(groups))})"
    return " (default " + "; ".join(f"{value} for {', '.join(fams)}" for value, fams in groups.items()) + ")"


def _show(value) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(map(_show, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _choices_note(name: str, records, owners) -> str:
    """Which owner takes which value of a shared text option (``--scene``)."""
    notes = [
        f"{', '.join(r.specs()[name][0].choices)} ({owner})"
        for r, owner in zip(records, owners)
        if name in r.specs() and r.specs()[name][0].choices
    ]
    return f": {'; '.join(notes)}" if len(notes) > 1 else ""


def _add_argument(s, name: str, spec: OptionSpec, defaults: dict, records, owners) -> None:
    required = len(defaults) == len(owners) and all(d is dataclasses.MISSING for d in defaults.values())
    help_text = spec.help + _choices_note(name, records, owners) + ("" if required else _default_note(defaults, owners))
    if spec.positional:
        s.add_argument(name, help=help_text)
        return
    kwargs: dict[str, Any] = {"dest": name, "default": None, "help": help_text, "required": required}
    if spec.bounds is not None:
        kwargs["type"] = spec.bounds.parse
    if spec.choices is not None:
        kwargs["choices"] = spec.choices
    if spec.many:
        kwargs["nargs"] = "+"
    if spec.pairs:
        kwargs.update(action="append", metavar="KEY=VALUE")
    if spec.path is not None:
        kwargs["metavar"] = "PATH"
    s.add_argument(spec.spelling(name), **kwargs)


def add_options(parser: argparse.ArgumentParser, records, owners=None) -> dict[str, tuple[OptionSpec, dict]]:
    """Add the command-line options of options records to ``parser``; returns :func:`merged_specs`.

    Every flag defaults to ``None`` (not given), so the record, not the
    parser, supplies defaults; help shows them.
    """
    owners = owners or [r.__name__ for r in records]
    merged = merged_specs(records, owners)
    for name, (spec, defaults) in merged.items():
        _add_argument(parser, name, spec, defaults, records, owners)
    return merged


def given_options(args: argparse.Namespace, specs: dict | type[Options]) -> dict:
    """The options given on the command line, as values for an options record (``KEY=VALUE`` pairs as a dict).

    ``specs`` is :func:`add_options`' result or an options record.
    """
    if isinstance(specs, type):
        specs = {name: (spec, {}) for name, (spec, _) in specs.specs().items() if spec.cli}
    given = {name: getattr(args, name) for name in specs if getattr(args, name, None) is not None}
    return {name: _pairs(v, specs[name][0].spelling(name)) if specs[name][0].pairs else v for name, v in given.items()}


def _pairs(items: list[str], flag: str) -> dict:
    """``KEY=VALUE`` pairs as a dict, values read by :func:`scalar_text` (numbers as ``float()`` reads them)."""
    out = {}
    for pair in items:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"{flag} {pair!r}: expected KEY=VALUE")
        out[key.strip().replace("-", "_")] = scalar_text(value)
    return out
