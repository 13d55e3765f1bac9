"""What several commands share: solver options on the command line and the solver they name."""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys

#: Repeats of one solve per system: more is likelier a typo than a plan.
MAX_REPEATS = 1000



def parse_option(text: str) -> tuple[str, object]:
    """``key=value`` with value read as a Python literal when it is one."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"option {text!r} is not of the form key=value")
    key, raw = text.split("=", 1)
    lowered = raw.strip().lower()
    if lowered in ("true", "false", "none", "null"):
        return key, {"true": True, "false": False}.get(lowered)
    try:
        return key, ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return key, raw



def add_solver_arguments(s: argparse.ArgumentParser) -> None:
    """``--solver``, ``--option``, ``--options`` and ``--label``, read back by :func:`solver_spec`."""
    s.add_argument("--solver", required=True, help="registered name (see `qlsbench solvers`), entry point or module:Class")
    s.add_argument("--option", type=parse_option, action="append", metavar="KEY=VALUE",
                   help="solver option, repeatable")
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
    if ":" in args.solver and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return SolverSpec(args.solver, options, args.label or "")

