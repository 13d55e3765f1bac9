"""Registration from outside: another package adds a figure and a variational solver by entry points alone.

A dummy distribution is made in a temporary folder put on ``PYTHONPATH``: a
module, and ``dummy-0.0.dist-info/`` with its ``METADATA`` and
``entry_points.txt`` (``importlib.metadata`` finds dist-info folders on
``sys.path``, as it finds an installed wheel's). Every check runs in a new
process, as a user's would: the command line lists both, ``qlsbench --help``
still imports no heavy module, and the workflow plans the figure's job (a rule
made from its record) and the budget-curves figure the variational solver asks
for, with no line of the workflow changed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]

MODULE = '''
"""A figure and a solver of another package, registered by entry points only."""

from pathlib import Path

from qlsbench.report._base import Figure, Job


def _draw(inputs, out, options):
    Path(out).write_text("drawn from " + " ".join(inputs))
    return Path(out)


FIGURE = Figure(
    "dummy-figure", "a dummy figure of every solver's results", "results .parquet files", _draw,
    formats=(".txt",),
    job=Job("dummy_figure", "results/figures/dummy.txt", targets=lambda config: ["results/figures/dummy.txt"],
            inputs=lambda config, wildcards: config.solver_results(), log="logs/dummy_figure.log"))


class DummyVariational:
    """A dummy variational solver (it trains from a seeded start, says its class)."""

    variational = True
    paper = ("Nobody, J. Dummy 1, 1 (2025)", "https://example.org/dummy")

    def __init__(self, steps: int = 3):
        self.name, self.options = "dummy-variational", {"steps": steps}

    def solve(self, system, *, seed):
        raise NotImplementedError("planned, never run here")
'''

ENTRY_POINTS = """\
[qlsbench.figures]
dummy-figure = dummy_plugin:FIGURE

[qlsbench.solvers]
dummy-variational = dummy_plugin:DummyVariational
"""

#: Modules ``qlsbench --help`` must not import (tests/test_cli.py's list, the heaviest).
HEAVY = ("numpy", "scipy", "pandas", "pyarrow", "qiskit", "matplotlib")


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Path:
    """The folder holding the dummy distribution."""
    folder = tmp_path_factory.mktemp("dummy-dist")
    (folder / "dummy_plugin.py").write_text(MODULE)
    info = folder / "dummy-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dummy\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return folder


def _env(plugin: Path) -> dict[str, str]:
    path = os.pathsep.join([str(REPO), str(plugin), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}


def _run(plugin: Path, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, *argv], env=_env(plugin), cwd=cwd, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return run


def test_the_command_line_lists_the_plugins_figure_and_solver(plugin, tmp_path):
    script = textwrap.dedent(f"""
        import contextlib, io, json, sys
        from qlsbench.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as out:
            code = main(["--help"])
        print(json.dumps([code, "figure" in out.getvalue(), [m for m in {HEAVY!r} if m in sys.modules]]))
    """)
    code, lists_figure, heavy = json.loads(_run(plugin, "-c", script).stdout)
    assert code == 0 and lists_figure and heavy == []  # the plug-ins are loaded lazily: help stays light

    assert "dummy-figure" in _run(plugin, "-m", "qlsbench", "figure", "--help").stdout
    assert "a dummy figure" in _run(plugin, "-m", "qlsbench", "figure", "dummy-figure", "--help").stdout
    assert "dummy-variational" in _run(plugin, "-m", "qlsbench", "solvers").stdout
    (tmp_path / "r.parquet").write_text("")
    _run(
        plugin,
        "-m",
        "qlsbench",
        "figure",
        "dummy-figure",
        str(tmp_path / "r.parquet"),
        "--out",
        str(tmp_path / "out.txt"),
    )
    assert (tmp_path / "out.txt").read_text() == f"drawn from {tmp_path / 'r.parquet'}"


def test_the_registry_reads_the_plugins_record(plugin):
    script = (
        "import json\n"
        "from qlsbench.solvers.registry import is_variational, paper_of\n"
        "print(json.dumps([is_variational('dummy-variational'), paper_of('dummy-variational'),\n"
        "                  is_variational('lu'), is_variational('external'), is_variational('gone:Solver')]))"
    )
    assert json.loads(_run(plugin, "-c", script).stdout) == [
        True,
        ["Nobody, J. Dummy 1, 1 (2025)", "https://example.org/dummy"],
        False,
        None,
        None,
    ]


TINY = {
    "ising": {"n_qubits": [2], "kappas": [10], "J": 0.1},
    "simulate": [],
    "penalty": [],
    "cd_lagrange": [],
    "trajectories": [],
    "pinned": [],
    "checkpoints": [],
    "loss_figures": [],
    "advantage": {"families": []},
    "run": {"repeats": 1, "seed": 0, "time_limit": 60},
}


def _plan(plugin: Path, tmp_path: Path, solvers: list[dict]) -> str:
    work = tmp_path / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copy(REPO / "Snakefile", work)
    shutil.copytree(REPO / "workflows", work / "workflows")
    (work / "tiny.yaml").write_text(yaml.safe_dump({**TINY, "solvers": solvers}))
    return _run(plugin, "-m", "snakemake", "-n", "-p", "--configfile", "tiny.yaml", cwd=work).stdout


def test_the_workflow_plans_the_plugins_figure_and_the_budget_curves_of_its_variational_solver(plugin, tmp_path):
    plan = _plan(
        plugin, tmp_path, [{"name": "lu"}, {"name": "dummy-variational", "label": "dummy", "options": {"steps": 2}}]
    )
    assert "rule dummy_figure:" in plan  # a rule made from the figure's record
    assert (
        "python -m qlsbench figure dummy-figure results/lu/ising/kappa10.parquet "
        "results/dummy/ising/kappa10.parquet --out results/figures/dummy.txt > logs/dummy_figure.log"
    ) in plan
    assert "results/figures/budget-curves.png" in plan  # the registry calls the plug-in variational
    # without the variational plug-in among the solvers, no budget curves are drawn: it was the plug-in's doing
    plan = _plan(plugin, tmp_path, [{"name": "lu"}])
    assert "budget-curves" not in plan and "rule dummy_figure:" in plan
    # its record says it runs where Snakemake runs (Job.local), as the built-in figures do
    script = "from qlsbench.workflow import figure_local_rules; print(' '.join(figure_local_rules()))"
    assert {"dummy_figure", "leaderboard_figure"} <= set(_run(plugin, "-c", script).stdout.split())
