"""Find solvers by name: built-ins from one table, plug-ins from entry points.

A third party adds a solver with one line in its own ``pyproject.toml``::

    [project.entry-points."qlsbench.solvers"]
    mysolver = "mypackage.module:MySolver"

where ``MySolver(**options)`` returns an object meeting the
:class:`~qlsbench.solvers.base.Solver` protocol. Before packaging, the same
class can be named directly as ``"mypackage.module:MySolver"``.
"""

from __future__ import annotations

import importlib
import inspect
from importlib.metadata import entry_points
from typing import Any, Callable

from qlsbench.errors import InputError, UnknownSolverError
from qlsbench.solvers.base import Solver

ENTRY_POINT_GROUP = "qlsbench.solvers"

#: Built-in solvers as ``name -> "module:factory"``; imported only when asked
#: for, so listing solvers never pays for importing Qiskit or JAX.
BUILTINS: dict[str, str] = {
    "lu": "qlsbench.solvers.classical:DenseLU",
    "splu": "qlsbench.solvers.classical:SparseLU",
    "cg": "qlsbench.solvers.classical:CG",
    "minres": "qlsbench.solvers.classical:MINRES",
    "gmres": "qlsbench.solvers.classical:GMRES",
    "bicgstab": "qlsbench.solvers.classical:BiCGSTAB",
    "vqls-global": "qlsbench.solvers.vqls:VQLSGlobal",
    "vqls-local": "qlsbench.solvers.vqls:VQLSLocal",
    "vnls": "qlsbench.solvers.vnls:VNLS",
}


def _plugins() -> dict[str, Any]:
    """Entry points of the plug-in group; built-in names cannot be shadowed."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in BUILTINS}


def available() -> list[str]:
    """Names of all solvers: built-ins, then plug-ins, each sorted."""
    return sorted(BUILTINS) + sorted(_plugins())


def _import_reference(name: str) -> Callable[..., Solver]:
    """The object named ``module:attribute``, with a one-line error naming what is missing."""
    module, _, attr = name.partition(":")
    if not module or not attr:
        raise InputError(f"solver {name!r}: a module reference needs the form module:Class")
    try:
        obj = importlib.import_module(module)
    except Exception as exc:  # ImportError, or the module's own error while importing
        raise InputError(f"solver {name!r}: cannot import module {module!r} ({type(exc).__name__}: {exc})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"solver {name!r}: module {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError(f"solver {name!r}: {attr!r} is not a class or factory")
    return obj


def _factory(name: str) -> Callable[..., Solver]:
    if name in BUILTINS:
        module, attr = BUILTINS[name].split(":")
        return getattr(importlib.import_module(module), attr)
    if ":" in name:
        return _import_reference(name)
    plugins = _plugins()
    if name in plugins:
        try:
            return plugins[name].load()
        except Exception as exc:  # a broken plug-in must not read as "unknown solver"
            raise InputError(f"solver plug-in {name!r} ({plugins[name].value}) failed to load: {exc}") from None
    raise UnknownSolverError(f"unknown solver {name!r}; available: {', '.join(available())}")


def get(name: str, **options: Any) -> Solver:
    """Construct the solver registered under ``name`` (or named ``module:Class``) with ``options``.

    Raises
    ------
    UnknownSolverError
        If no solver has that name (the message lists those that exist).
    InputError
        If an option is unknown to that solver or has an invalid value.
    """
    factory = _factory(name)
    try:
        inspect.signature(factory).bind(**options)
    except TypeError:
        params = [p for p in inspect.signature(factory).parameters if not p.startswith("_")]
        bad = sorted(set(options) - set(params))
        raise InputError(f"solver {name!r}: unknown option(s) {', '.join(map(repr, bad))}; "
                         f"accepted: {', '.join(params) or 'none'}") from None
    except ValueError:  # no signature available (builtin callables): let the call decide
        pass
    try:
        solver = factory(**options)
    except (TypeError, ValueError) as exc:
        raise InputError(f"solver {name!r}: invalid options {options}: {exc}") from None
    if not isinstance(solver, Solver):
        raise InputError(f"solver {name!r}: {factory!r} did not return a Solver (needs name, options, solve)")
    return solver


def describe(name: str) -> str:
    """First line of the docstring of solver ``name`` (empty if it has none)."""
    doc = (_factory(name).__doc__ or "").strip().splitlines()
    return doc[0] if doc else ""
