"""The fast tier (``pytest -m fast``: tests/fast_tests.txt) runs every module of the package beyond its import.

Marked ``tier``: it runs the fast tier itself, under coverage (CI's first step, `pytest -m tier`; about 2 min
here). A module runs beyond its import when a line inside one of its functions ran; modules with no function
(re-exports, ``__main__``, tables of constants) have nothing to run beyond the import and are left out.
"""

from __future__ import annotations

import ast
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.tier

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "qlsbench"
#: Child processes (the command line, solver workers) measured too, each writing its own data file.
COVERAGE_RC = """\
[run]
source = qlsbench
parallel = true
concurrency = thread, multiprocessing
patch = subprocess, _exit
"""


#: Modules no coverage in this environment can see run, and why. The fast tier still runs them.
UNMEASURABLE = {
    "qlsbench/solvers/external_runner.py": "run by path by the solver environment's own Python, which has no "
    "coverage (tests/test_external.py::test_answer_equals_a_dense_solve)",
}


def function_lines(path: Path) -> set[int]:
    """The lines of the statements inside ``path``'s functions and methods."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines.update(child.lineno for child in ast.walk(node) if isinstance(child, ast.stmt) and child is not node)
    return lines


def settle(folder: Path, quiet: float = 2.0, limit: float = 60.0) -> None:
    """Wait until the coverage data files in ``folder`` stop changing (at most ``limit`` seconds).

    A child process can end just after the tier does (a solver worker noticing its parent's end), and coverage
    renames a data file to carry its hash when the process ends: combined mid-rename, the file is gone under the
    name that was listed.
    """

    def listing() -> list[tuple[str, int]]:
        found = []
        for path in folder.glob(".coverage.*"):
            with contextlib.suppress(FileNotFoundError):
                found.append((path.name, path.stat().st_size))
        return sorted(found)

    last, since, start = listing(), time.monotonic(), time.monotonic()
    while time.monotonic() - since < quiet and time.monotonic() - start < limit:
        time.sleep(0.2)
        now = listing()
        if now != last:
            last, since = now, time.monotonic()


def combine(coverage, folder: Path):
    """The data of every process's file in ``folder``, and the files that could not be read (with why)."""
    settle(folder)
    data, unreadable = coverage.CoverageData(no_disk=True), []
    for path in sorted(folder.glob(".coverage.*")):
        part = coverage.CoverageData(basename=str(path))
        try:
            part.read()
            data.update(part)
        except coverage.exceptions.DataError as exc:  # a process killed mid-write leaves a file SQLite refuses
            unreadable.append(f"{path.name}: {exc}")
    return data, unreadable


def test_every_module_runs_beyond_its_import_in_the_fast_tier(tmp_path):
    coverage = pytest.importorskip("coverage", reason="coverage is in the test extra")
    rc = tmp_path / "coveragerc"
    rc.write_text(COVERAGE_RC)
    env = dict(os.environ, COVERAGE_FILE=str(tmp_path / ".coverage"), COVERAGE_RCFILE=str(rc))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "run",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "fast",
            "-n",
            "0",
            "tests",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    print(done.stdout[-3000:])
    assert done.returncode == 0, f"the fast tier failed:\n{done.stdout[-5000:]}\n{done.stderr[-3000:]}"
    data, unreadable = combine(coverage, tmp_path)
    measured = {Path(f).resolve(): set(data.lines(f) or ()) for f in data.measured_files()}
    unrun, modules = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        inside = function_lines(path)
        if not inside or str(path.relative_to(REPO)) in UNMEASURABLE:
            continue
        modules += 1
        if not inside & measured.get(path.resolve(), set()):
            unrun.append(str(path.relative_to(REPO)))
    assert modules > 100
    assert not unrun, f"the fast tier (tests/fast_tests.txt) runs no function of: {', '.join(unrun)}" + (
        f" (data files that could not be read: {'; '.join(unreadable)})" if unreadable else ""
    )
