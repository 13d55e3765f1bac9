"""Numbers a user gives: both bounds on every one, one reading of their text on every path, and no "converged"
row for an answer no better than x = 0.

The walk below goes over every options record (solvers, families, figures,
the simulation loop) and every numeric flag of the command line, so a new
option or flag without both bounds fails here without being named.
"""

from __future__ import annotations

import argparse
import dataclasses
import math

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.checks import Real, Whole, number_text, real_number, whole_number
from qlsbench.cli import build_parser
from qlsbench.cli.options import _pairs, parse_option
from qlsbench.errors import InputError
from qlsbench.options import SPEC
from qlsbench.problems import LinearSystem
from qlsbench.solvers import SolveResult, Status
from qlsbench.threads import parse_threads


def _unbounded(bounds) -> str | None:
    """What ``bounds`` leaves open, or ``None`` when both ends are set (an infinite end allowed on purpose, as
    "no cap", counts as set)."""
    if isinstance(bounds, Whole):
        return None if bounds.high is not None else "no upper bound"
    if isinstance(bounds, Real):
        if bounds.low == -math.inf:
            return "no lower bound"
        if bounds.high == math.inf and not bounds.infinite:
            return "no upper bound"
        return None
    return "no bounds"


def _numeric(f: dataclasses.Field, default) -> bool:
    annotation = str(f.type)
    return any(word in annotation for word in ("int", "float")) or (
        isinstance(default, (int, float)) and not isinstance(default, bool)
    )


def _records():
    from qlsbench.bench.in_loop import InLoopOptions
    from qlsbench.families import FAMILIES
    from qlsbench.report import FIGURES
    from qlsbench.solvers.registry import BUILTINS

    for name, builtin in BUILTINS.items():
        if builtin.options is not None:
            yield f"solver {name}", builtin.options
    for family in FAMILIES.values():
        yield f"family {family.name}", family.options
    for figure in FIGURES.values():
        if figure.options is not None:
            yield f"figure {figure.name}", figure.options
    yield "in-loop", InLoopOptions


def test_every_numeric_option_of_every_record_has_both_bounds():
    loose = []
    for who, record in _records():
        for f in dataclasses.fields(record):
            spec = f.metadata.get(SPEC)
            if spec is None or spec.choices is not None:
                continue
            default = f.default if f.default is not dataclasses.MISSING else None
            if _numeric(f, default) and _unbounded(spec.bounds):
                loose.append(f"{who}.{f.name}: {_unbounded(spec.bounds)}")
    assert not loose, loose


def _actions(parser: argparse.ArgumentParser, prefix: str = "qlsbench"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{prefix} {name}")
        else:
            yield prefix, action


def test_every_numeric_flag_has_both_bounds():
    loose = []
    for where, action in _actions(build_parser()):
        kind = action.type
        bound = getattr(kind, "__self__", None)  # Whole(...).parse / Real(...).parse
        flag = f"{where} {'/'.join(action.option_strings) or action.dest}"
        if action.choices is not None:
            continue  # a list of values is its own bounds
        if kind in (int, float):
            loose.append(f"{flag}: a bare {kind.__name__}")
        elif isinstance(bound, (Whole, Real)) and _unbounded(bound):
            loose.append(f"{flag}: {_unbounded(bound)}")
    assert not loose, loose


#: Spellings of numbers Python's float() reads, and text it does not.
SPELLINGS = ["1e6", "2e-1", " 0.5 ", "1_000", "+3", "4.0", "1E3", ".5", "5.", "7"]
NOT_NUMBERS = ["abc", "1,5", "0x10", "", "1e", "--1"]


@pytest.mark.parametrize("text", SPELLINGS)
def test_one_reading_of_a_number_on_every_path(text):
    """A flag, a record (config file), ``--option``, ``--param`` and an environment variable read the same."""
    value = float(text)
    assert number_text(text) == value
    assert Real(0.0, 1e7).parse(text) == value  # a flag
    assert real_number(text, "x", low=0.0, high=1e7) == value  # a config file's value, checked by its record
    assert parse_option(f"k={text}")[1] == value  # --option
    assert _pairs([f"k={text}"], "--param")["k"] == value  # --param (YAML 1.1 alone reads 1e6 as text)
    if value.is_integer():
        assert Whole(0, 10**7).parse(text) == int(value) == whole_number(text, "n", low=0)
        assert parse_threads(text, "QLSBENCH_THREADS") == int(value) if value <= 1024 else True


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_text_that_is_no_number_is_refused_on_every_path_by_name(text):
    with pytest.raises(argparse.ArgumentTypeError, match="must be"):
        Real(0.0, 1e7).parse(text)
    with pytest.raises(InputError, match="^x must be"):
        real_number(text, "x", low=0.0, high=1e7)
    with pytest.raises(InputError, match="^QLSBENCH_THREADS: must be"):
        parse_threads(text, "QLSBENCH_THREADS")


def test_environment_variables_are_checked_at_start_in_the_flags_words(tmp_path, capsys, monkeypatch):
    from qlsbench.cli import main

    monkeypatch.setenv("QLSBENCH_THREADS", "abc")
    assert main(["solvers"]) == 2  # a command that never reads the variable refuses it too
    env_line = capsys.readouterr().err.strip()
    monkeypatch.delenv("QLSBENCH_THREADS")
    assert main(["--threads", "abc", "solvers"]) == 2
    flag_line = capsys.readouterr().err.strip()
    assert env_line.endswith("QLSBENCH_THREADS: must be a whole number from 1 to 1024, got 'abc'")
    assert "argument --threads: must be a whole number from 1 to 1024, got 'abc'" in flag_line
    monkeypatch.setenv("QLSBENCH_ENVIRONMENTS", str(tmp_path / "x.txt"))
    (tmp_path / "x.txt").write_text("")
    assert main(["solvers"]) == 2 and "QLSBENCH_ENVIRONMENTS: must be a folder" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["QLSBENCH_ENVIRONMENTS", "QLSBENCH_JAX_CACHE"])
def test_a_folder_variable_is_checked_as_the_run_will_write_in_it(name, tmp_path, capsys, monkeypatch):
    """A cache or environments folder under a file, or in a folder no file can be created in, is refused at start
    in one line naming the variable, not met later as a PermissionError or a cache silently not written."""
    from qlsbench.cli import main

    (tmp_path / "afile").write_text("")
    monkeypatch.setenv(name, str(tmp_path / "afile" / "cache"))
    assert main(["solvers"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and name in err and "is a file, not a folder" in err
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        probe = locked / "probe"
        try:
            probe.write_text("")  # root writes anyway, unless the file system is read-only
            probe.unlink()
            writable = True
        except OSError:
            writable = False
        monkeypatch.setenv(name, str(locked / "envs"))
        assert main(["solvers"]) == (0 if writable else 2)
        if not writable:
            assert "cannot write in" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)
    monkeypatch.setenv(name, str(tmp_path / "fresh" / "envs"))  # a folder that can become one
    assert main(["solvers"]) == 0 and not (tmp_path / "fresh").exists()  # checked, not made


class _Claims:
    """A plug-in that claims ``converged`` for whatever it is told to return."""

    name = "claims"

    def __init__(self, scale: float = 0.0):
        self.scale = scale

    @property
    def options(self):
        return {"scale": self.scale}

    def solve(self, system, *, seed=0):
        return SolveResult(np.full(system.dim, self.scale), Status.CONVERGED)


@pytest.mark.parametrize("scale, claimed", [(0.0, False), (1e200, False), (None, True)])
def test_converged_is_never_recorded_for_an_answer_no_better_than_zero(scale, claimed):
    from qlsbench.bench._isolation import call_solver

    system = LinearSystem(sp.diags([1.0, 2.0, 4.0]).tocsr(), np.array([1.0, 1.0, 1.0]))
    exact = np.array([1.0, 0.5, 0.25])
    solver = _Claims(0.0)
    if scale is None:  # the true answer: its claim stands
        solver.solve = lambda system, seed=0: SolveResult(exact, Status.CONVERGED)
    else:
        solver.scale = scale
    result, _ = call_solver(solver, system, 0)
    assert result.status is (Status.CONVERGED if claimed else Status.STALLED), result.message
    if not claimed:
        assert "reported converged at relative residual" in result.message


def test_a_krylov_floor_above_b_is_refused_by_name(tmp_path):
    """cg with atol = 2 'converged' at x = 0 on every system (|b| = 1: systems are normalised): refused now."""
    from qlsbench.bench import SolverSpec, run_solver
    from qlsbench.data import write_systems
    from qlsbench.problems import ising_inspired

    dataset = write_systems([ising_inspired(2, 10.0)], tmp_path / "s.parquet")
    with pytest.raises(InputError, match="atol must be a finite number in \\[0, 1\\], got 2"):
        run_solver(SolverSpec("cg", {"atol": 2}), dataset, tmp_path / "out.parquet", progress=False)
    assert not (tmp_path / "out.parquet").exists()


def test_a_config_value_spelt_as_text_reaches_the_solver_as_its_number():
    """YAML 1.1 leaves ``rtol: 1e-8`` as text; the solver gets 1e-8 (and a count ``1e1`` gets 10), as from a flag."""
    from qlsbench.solvers import get

    assert get("cg", rtol="1e-8").rtol == 1e-8 and get("gmres", restart="1e1").restart == 10
    with pytest.raises(InputError, match="option 'rtol' must be float, got str '1e-8 m'"):
        get("cg", rtol="1e-8 m")
