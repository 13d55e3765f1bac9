"""Solvers named wrong: a misspelt name, an option the solver lacks or of the wrong type, a ``module:Class`` that
does not import, is missing or is no solver, in ``solve``, ``compare`` and ``board run``. Each is refused before
anything is solved or written (no results file, no journal), in one line naming the solver and the option."""

from __future__ import annotations

import py_compile
import textwrap
from importlib.util import cache_from_source
from pathlib import Path

from bad_input import Case, Maker, text_maker

#: A plug-in module as a newcomer writes it before packaging: one solver, and classes that are not quite one.
_PLUGIN = textwrap.dedent('''
    from dataclasses import dataclass
    from typing import ClassVar

    import numpy as np

    from qlsbench.solvers import BaseSolver, SolveResult, Status


    @dataclass
    class Jacobi(BaseSolver):
        """Jacobi iteration."""
        name: ClassVar[str] = "jacobi"
        iterations: int = 200

        def _solve(self, system, seed):
            return SolveResult(np.zeros(system.dim), Status.MAX_ITER)


    class Helper:
        """Builds fine, solves nothing."""


    class Needs(Jacobi):
        """Has an option without a default."""

        def __init__(self, tol: float):
            self.tol = tol


    class Strict(Jacobi):
        """Checks its option's type itself."""

        def __init__(self, level=None):
            if not isinstance(level, int):
                raise TypeError(f"level must be a whole number, not {type(level).__name__}")
''')


def _module_maker(name: str, source: str, work: bool = False) -> Maker:
    """A maker writing module ``name`` into the test folder, its bytecode compiled already.

    Importing it from the test folder (``cwd="tmp"``) would otherwise write ``__pycache__`` there, and the
    harness counts every new file below the folder as output left behind. A case names the module by the
    placeholder it puts in place of its dataset (the valid one), or with ``work`` of its ``--work`` folder.
    """

    def make(tmp: Path, data: Path) -> Path:
        path = tmp / f"{name}.py"
        path.write_text(source)
        py_compile.compile(str(path), cfile=cache_from_source(str(path)), doraise=True)
        return tmp / "w" if work else data

    return make


def _board_maker(name: str, solvers: str) -> Maker:
    """A board folder whose ``board.yaml`` lists ``solvers`` (a YAML flow sequence); nothing else is needed
    to refuse it, as every solver is checked before the pinned set is read."""
    return lambda tmp, data: (
        text_maker(f"{name}/board.yaml", f"version: 1\nrun: {{repeats: 1, time_limit: 30}}\nsolvers: {solvers}\n")(
            tmp, data
        ).parent
    )


MAKERS = {
    "rn_plugin": _module_maker("rn_plugin", _PLUGIN),
    "rn_plugin_work": _module_maker("rn_plugin", _PLUGIN, work=True),
    "rn_broken": _module_maker("rn_broken", "import numpy\nSCALE = 1 / 0\n"),
    "rn_board_typo": _board_maker("rn_board_typo", "[{name: lu}, {name: bicgstb}]"),
    "rn_board_key": _board_maker("rn_board_key", "[{name: lu}, {name: cg, options: {tolerance: 1.0e-8}}]"),
    "rn_board_type": _board_maker("rn_board_type", "[{name: lu}, {name: gmres, options: {restart: two}}]"),
    "rn_board_noname": _board_maker("rn_board_noname", "[{name: lu}, {label: nameless}]"),
}

_WORK = ["--work", "{tmp}/w"]


def _solve(solver: str, *extra: str, dataset: str = "{data}") -> list[str]:
    return ["solve", "--solver", solver, *extra, "--dataset", dataset, "--out", "{tmp}/x.parquet"]


def _plugin(solver: str, *extra: str, culprit: str, module: str = "{rn_plugin}") -> Case:
    """``solve`` with ``module:Class`` from the test folder, where the maker of ``module`` wrote it."""
    return Case(_solve(solver, *extra, dataset=module), culprit, cwd="tmp")


CASES = {
    # ---- solver names: misspelt built-ins get the close matches
    "solve with a misspelt solver": (_solve("gmress"), "unknown solver 'gmress'; available: "),
    "misspelt solver gets a suggestion": (_solve("bicgstb"), "(did you mean 'bicgstab'?)"),
    "compare with a misspelt solver": (["compare", "--solver", "vqls-locl", *_WORK], "unknown solver 'vqls-locl'"),
    "board with a misspelt solver": (
        ["board", "run", "--board", "{rn_board_typo}", "--results", "{tmp}/r"],
        "board.yaml: solvers[1]: unknown solver 'bicgstb'",
    ),
    "board entry without a name": (
        ["board", "run", "--board", "{rn_board_noname}", "--results", "{tmp}/r"],
        "board.yaml: solvers[1]: a solver entry is a mapping with a 'name'",
    ),
    # ---- option names and types, read off the solver's constructor
    "option key the solver lacks, with a suggestion": (
        _solve("gmres", "--option", "restar=5"),
        "solver 'gmres': unknown option(s) 'restar'; accepted: rtol, "
        "atol, maxiter, history, restart (did you mean 'restart'?)",
    ),
    "option of the wrong type": (
        _solve("gmres", "--option", "restart=two"),
        "solver 'gmres': option 'restart' must be int, got str 'two'",
    ),
    "wrong option type with a time limit too": (
        _solve("gmres", "--option", "restart=two", "--time-limit", "5"),
        "solver 'gmres': option 'restart' must be int, got str 'two'",
    ),
    "whole-number option given a fraction": (
        _solve("gmres", "--options", '{{"restart": 2.5}}'),
        "option 'restart' must be int, got float 2.5",
    ),
    "bool option given a number": (
        _solve("cg", "--option", "history=1"),
        "solver 'cg': option 'history' must be bool, got int 1",
    ),
    "optional whole number given text": (
        _solve("bicgstab", "--option", "maxiter=lots"),
        "option 'maxiter' must be int or None, got str 'lots'",
    ),
    "option value the solver refuses": (
        _solve("vqls-local", "--option", "backend=exat"),
        "vqls-local: unknown backend 'exat'",
    ),
    "a device that does not exist": (
        _solve("vqls-local", "--option", "backend=device", "--option", "device=osaka9"),
        "vqls-local: unknown device 'osaka9'; use one of sherbrooke, torino",
    ),
    "a negative noise scale": (
        _solve("hhl", "--option", "backend=device", "--option", "noise_scale=-1"),
        "hhl: noise_scale",
    ),
    "mitigation without a noisy device": (
        _solve("vqls-global", "--option", "backend=shots", "--option", "mitigation=zne"),
        "vqls-global: mitigation applies to backend 'device' only, not backend='shots'",
    ),
    "options JSON that is not an object": (
        _solve("cg", "--options", "[1, 2]"),
        "--options must be a JSON object, got list",
    ),
    "options that are key=value, not JSON": (_solve("cg", "--options", "rtol=1e-3"), "--options is not valid JSON"),
    "compare with an option of the wrong type": (
        ["compare", "--solver", "gmres", "--option", "restart=two", *_WORK],
        "solver 'gmres': option 'restart' must be int, got str 'two'",
    ),
    "board with an option key its solver lacks": (
        ["board", "run", "--board", "{rn_board_key}", "--results", "{tmp}/r"],
        "solvers[1]: solver 'cg': unknown option(s) 'tolerance'",
    ),
    "board with an option of the wrong type": (
        ["board", "run", "--board", "{rn_board_type}", "--results", "{tmp}/r"],
        "solvers[1]: solver 'gmres': option 'restart' must be int, got str",
    ),
    # ---- module:Class plug-ins, imported from the current folder
    "solve with a module that does not exist": (
        _solve("rn_no_such_module:Solver"),
        "cannot import module 'rn_no_such_module'",
    ),
    "module that fails while importing": _plugin(
        "rn_broken:Solver", module="{rn_broken}", culprit="cannot import module 'rn_broken' (ZeroDivisionError"
    ),
    "module lacking the class, with a suggestion": _plugin(
        "rn_plugin:Jacobbi", culprit="module 'rn_plugin' has no attribute 'Jacobbi' (did you mean 'Jacobi'?)"
    ),
    "class that is not a solver": _plugin(
        "rn_plugin:Helper", culprit="solver 'rn_plugin:Helper': Helper is not a solver"
    ),
    "compare with a class that is not a solver": Case(
        ["compare", "--solver", "rn_plugin:Helper", "--work", "{rn_plugin_work}"], "Helper is not a solver", cwd="tmp"
    ),
    "plug-in option of the wrong type": _plugin(
        "rn_plugin:Jacobi",
        "--option",
        "iterations=many",
        culprit="solver 'rn_plugin:Jacobi': option 'iterations' must be int, got str 'many'",
    ),
    "plug-in option it does not take": _plugin(
        "rn_plugin:Jacobi",
        "--option",
        "iteration=5",
        culprit="unknown option(s) 'iteration'; accepted: iterations (did you mean 'iterations'?)",
    ),
    "plug-in option without a default not given": _plugin(
        "rn_plugin:Needs", culprit="solver 'rn_plugin:Needs': required option(s) 'tol' not given"
    ),
    "plug-in whose constructor refuses an option's type": _plugin(
        "rn_plugin:Strict", "--option", "level=high", culprit="level must be a whole number, not str"
    ),
}
