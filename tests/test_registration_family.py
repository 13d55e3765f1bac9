"""A dataset family registered from outside: an installed-looking plug-in (a module and a dist-info folder with an
entry point of the group ``qlsbench.families``) on PYTHONPATH, seen by the command line, the config schema and
the workflow, each in a fresh process as a user would run them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]

#: The plug-in's module: a family of identity-plus-diagonal systems, with an options record, a command of its own,
#: a local rule and a loop taking its shift; cheap to build. Its loop is seen by the in-loop options record, the
#: config schema and the config check; it builds no world (no run is started here).
PLUGIN = '''
"""A dummy dataset family: n x n systems (1 + d) I x = b."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qlsbench.checks import COUNT, Real
from qlsbench.errors import InputError
from qlsbench.families.base import Family, LoopWorld, Rule
from qlsbench.options import Options, option


@dataclass(frozen=True)
class DummyOptions(Options):
    """How many systems, and their diagonal shift."""

    count: int = option(2, "number of systems", bounds=COUNT)
    shift: float = option(0.5, "diagonal shift d", bounds=Real(0.0, 10.0))


def build(options: DummyOptions, out: Path, progress: bool = True) -> dict:
    import numpy as np
    import scipy.sparse as sp

    from qlsbench.data import write_systems
    from qlsbench.problems import LinearSystem

    systems = []
    for k in range(options.count):
        A = sp.csr_matrix((1.0 + options.shift + k) * np.eye(4))
        b = np.ones(4) / 2.0
        systems.append(LinearSystem(A, b, {"family": "dummy", "scene": f"shift{options.shift:g}"}))
    path = write_systems(systems, Path(out) / "part-0000.parquet", metadata={"shift": options.shift})
    return {"path": str(path), "systems": len(systems)}


def label(options: DummyOptions) -> str:
    return f"shift{options.shift:g}"


def report(facts: dict) -> list[str]:
    return [f"wrote {facts['systems']} dummy systems to {facts['path']}"]


def world(options):
    raise InputError("the dummy family's loop has no simulation to run")


FAMILY = Family(name="dummy", summary="identity-plus-shift systems (a test plug-in)", options=DummyOptions,
                build=build, label=label, report=report, command="dummy", config_key="dummy",
                command_help="write dummy identity-plus-shift systems (a plug-in family)",
                rule=Rule("dummy_dataset", local=True), loop=LoopWorld(fields=("shift",), make=world))
'''


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> dict[str, str]:
    """A folder holding the plug-in module and its ``dummy-0.0.dist-info``, and the environment that finds it."""
    folder = tmp_path_factory.mktemp("plugin")
    (folder / "qlsbench_dummy_family.py").write_text(textwrap.dedent(PLUGIN))
    info = folder / "dummy-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dummy\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text("[qlsbench.families]\ndummy = qlsbench_dummy_family:FAMILY\n")
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), str(folder)]),
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
    }


def _run(args: list[str], env: dict, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_command_line_lists_and_runs_the_plugin_command_without_the_physics(plugin, tmp_path):
    run = _run([sys.executable, "-X", "importtime", "-m", "qlsbench", "--help"], plugin)
    assert run.returncode == 0, run.stderr
    assert "write dummy identity-plus-shift systems (a plug-in family)" in run.stdout
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    assert "numpy" not in imported, "listing a plug-in's command must not import the families' physics"
    out = tmp_path / "d"
    built = _run([sys.executable, "-m", "qlsbench", "dummy", "--count", "3", "--shift", "1", "--out", str(out)], plugin)
    assert built.returncode == 0, built.stderr
    assert pq.read_table(out / "part-0000.parquet").num_rows == 3
    refused = _run([sys.executable, "-m", "qlsbench", "dummy", "--shift", "11", "--out", str(out)], plugin)
    assert refused.returncode == 2 and "--shift" in refused.stderr


def test_the_generated_schema_has_the_plugin_section_and_the_committed_one_does_not(plugin):
    code = (
        "import yaml; from qlsbench.workflow import schema_text; "
        "print(yaml.safe_dump(yaml.safe_load(schema_text())['properties']['dummy']))"
    )
    run = _run([sys.executable, "-c", code], plugin)
    assert run.returncode == 0, run.stderr
    section = yaml.safe_load(run.stdout)
    assert section["type"] == "array"
    shift = section["items"]["properties"]["shift"]
    assert (shift["minimum"], shift["maximum"]) == (0.0, 10.0) and "(default 0.5)" in shift["description"]
    committed = yaml.safe_load((REPO / "workflows/config/schema.yaml").read_text())
    assert "dummy" not in committed["properties"], "plug-in sections are added when the workflow runs"


def test_a_plugin_family_with_a_loop_is_an_in_loop_family_of_the_schema_and_the_config_check(plugin, tmp_path):
    code = (
        "import yaml; from qlsbench.workflow import schema_text; "
        "print(yaml.safe_dump(yaml.safe_load(schema_text())['properties']['in_loop']['items']['properties']))"
    )
    run = _run([sys.executable, "-c", code], plugin)
    assert run.returncode == 0, run.stderr
    entry = yaml.safe_load(run.stdout)
    assert "dummy" in entry["family"]["enum"] and entry["shift"]["maximum"] == 10.0
    committed = yaml.safe_load((REPO / "workflows/config/schema.yaml").read_text())
    loop = committed["properties"]["in_loop"]["items"]["properties"]
    assert "dummy" not in loop["family"]["enum"] and "shift" not in loop, "plug-in options are added when it runs"
    config = {
        "ising": {"n_qubits": [2], "kappas": [10]},
        "solvers": [{"name": "lu"}],
        "run": {"repeats": 1},
        "pauli": {"tols": [0.0]},
        "leaderboard": {},
        "in_loop": [{"name": "dummy-lu", "solver": "lu", "family": "dummy", "shift": 2.0}],
    }
    (tmp_path / "loop.yaml").write_text(yaml.safe_dump(config))
    schema = str(REPO / "workflows/config/schema.yaml")
    check = [sys.executable, "-m", "qlsbench", "check-config", "loop.yaml", "--defaults", "", "--schema", schema]
    checked = _run(check, plugin, cwd=tmp_path)
    assert checked.returncode == 0 and "loop.yaml: valid" in checked.stdout, checked.stdout + checked.stderr
    config["in_loop"][0]["shift"] = 11.0  # past the family's bound: the generated section refuses it
    (tmp_path / "loop.yaml").write_text(yaml.safe_dump(config))
    refused = _run(check, plugin, cwd=tmp_path)
    assert refused.returncode != 0 and "in_loop[0].shift" in refused.stderr, refused.stdout + refused.stderr


@pytest.mark.skipif(
    shutil.which("snakemake") is None and not (Path(sys.executable).parent / "snakemake").exists(),
    reason="snakemake not installed",
)
def test_the_workflow_plans_and_builds_the_plugin_dataset(plugin, tmp_path):
    work = tmp_path / "wf"
    work.mkdir()
    shutil.copy(REPO / "Snakefile", work)
    shutil.copytree(REPO / "workflows", work / "workflows")
    config = {
        "ising": {"n_qubits": [2], "kappas": [10]},
        "dummy": [{"shift": 2.0, "count": 2}],
        "solvers": [{"name": "lu"}],
        "run": {"repeats": 1},
        "pauli": {"tols": [0.0]},
        "leaderboard": {},
        "simulate": [],
        "penalty": [],
        "cd_lagrange": [],
        "pinned": [],
        "trajectories": [],
        "checkpoints": [],
        "loss_figures": [],
        "advantage": {"families": []},
    }
    (work / "tiny.yaml").write_text(yaml.safe_dump(config))
    snakemake = [sys.executable, "-m", "snakemake", "--configfile", "tiny.yaml"]
    planned = _run(snakemake + ["-n", "--quiet", "rules"], plugin, cwd=work)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "dummy_dataset" in planned.stdout and "solve" in planned.stdout
    # a built-in family's rule beside it: each generated rule runs its own family's command
    target, ising = "datasets/dummy/shift2/part-0000.parquet", "datasets/ising/kappa10/part-0000.parquet"
    built = _run(snakemake + ["--cores", "1", target, ising], plugin, cwd=work)
    assert built.returncode == 0, built.stdout + built.stderr
    assert pq.read_table(work / target).num_rows == 2
    assert pq.read_table(work / ising).num_rows == 1
    bad = dict(config, dummy=[{"shift": 2.0, "colour": "blue"}])
    (work / "bad.yaml").write_text(yaml.safe_dump(bad))
    refused = _run([sys.executable, "-m", "snakemake", "--configfile", "bad.yaml", "-n"], plugin, cwd=work)
    assert refused.returncode != 0 and "colour" in refused.stdout + refused.stderr
