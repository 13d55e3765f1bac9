"""The Snakemake workflow: schema validation, lint, and a real small run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from qlsbench.errors import ConfigError
from qlsbench.workflow import all_datasets, loss_figure_inputs, solver_specs

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflows" / "config" / "schema.yaml"
SNAKEMAKE = [sys.executable, "-m", "snakemake"]


@pytest.fixture(autouse=True)
def _console_scripts_on_path(monkeypatch):
    """Rules call `qlsbench`: find the one installed beside this interpreter even without an activated venv."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")


def _default():
    return yaml.safe_load((REPO / "workflows" / "config" / "default.yaml").read_text())


@pytest.mark.parametrize("name", ["default", "paper"])
def test_shipped_configs_are_valid(name):
    config = yaml.safe_load((REPO / "workflows" / "config" / f"{name}.yaml").read_text())
    if name != "default":  # Snakemake merges a --configfile over default.yaml key by key
        config = {**_default(), **config}
    validate(config, str(SCHEMA))
    for fig in config["loss_figures"]:
        loss_figure_inputs(config, fig["name"])  # its solvers exist and run on its dataset


@pytest.mark.parametrize(
    "change, culprit",
    [
        (lambda c: c.update(colour="blue"), "'colour' was unexpected"),
        (lambda c: c["run"].update(time_limt=5), "'time_limt' was unexpected"),
        (lambda c: c["solvers"][0].update(option={}), "'option' was unexpected"),
        (lambda c: c["ising"].update(kappas=[1]), "kappas"),
        (lambda c: c["ising"].update(n_qubits=[0]), "n_qubits"),
    ],
)
def test_bad_config_is_refused_naming_the_key(change, culprit):
    config = _default()
    change(config)
    with pytest.raises(WorkflowError, match=culprit):
        validate(config, str(SCHEMA))


def test_duplicate_solver_labels_are_refused():
    with pytest.raises(ConfigError, match="label 'cg' used twice"):
        solver_specs({"solvers": [{"name": "cg"}, {"name": "cg"}]})
    specs = solver_specs({"solvers": [{"name": "cg"}, {"name": "cg", "options": {"rtol": 1e-4}}]})
    assert list(specs) == ["cg", "cg[rtol=0.0001]"]


def _workdir(tmp_path) -> Path:
    work = tmp_path / "wf"
    work.mkdir()
    shutil.copy(REPO / "Snakefile", work)
    shutil.copytree(REPO / "workflows", work / "workflows")
    return work


def test_lint_is_clean(tmp_path):
    run = subprocess.run(SNAKEMAKE + ["--lint"], cwd=_workdir(tmp_path), capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "in a good condition" in run.stdout + run.stderr


def test_unknown_key_stops_the_workflow(tmp_path):
    work = _workdir(tmp_path)
    config = _default()
    config["solverz"] = []
    (work / "bad.yaml").write_text(yaml.safe_dump(config))
    run = subprocess.run(SNAKEMAKE + ["-n", "--configfile", "bad.yaml"], cwd=work, capture_output=True, text=True)
    assert run.returncode != 0
    assert "'solverz' was unexpected" in run.stdout + run.stderr
    assert not (work / "datasets").exists()


def test_small_workflow_runs_end_to_end(tmp_path, plugin_path):
    work = _workdir(tmp_path)
    config = {
        "ising": {"n_qubits": [2, 3], "kappas": [10, 100], "J": 0.1},
        # Snakemake merges this over default.yaml key by key, so the simulations are replaced, not added.
        "simulate": [{"scene": "sedimentation", "n_spheres": 5, "mu": 0.0, "steps": 80, "every": 10}],
        "solvers": [{"name": "lu"}, {"name": "cg"}, {"name": "gmres", "label": "gmres-r2", "options": {"restart": 2}},
                    {"name": "crash"},
                    {"name": "vqls-local", "label": "vqls-l", "datasets": ["ising/kappa1?"], "repeats": 1,
                     "options": {"layers": 2, "maxiter": 40, "optimizer": "qnspsa"}}],
        "run": {"repeats": 2, "seed": 0, "time_limit": 30},
        "leaderboard": {"fidelity": 0.99, "residual": 1e-6, "shift": 10},
        "checkpoints": [],
        "loss_figures": [{"name": "fig2", "dataset": "ising/kappa10", "solvers": ["vqls-l"], "n_qubits": [2, 3]}],
    }
    (work / "small.yaml").write_text(yaml.safe_dump(config))
    cmd = SNAKEMAKE + ["--cores", "2", "--configfile", "small.yaml"]
    run = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    board = pd.read_csv(work / "results" / "leaderboard.csv").set_index("solver")
    assert set(board.index) == {"lu", "cg", "gmres-r2", "crash", "vqls-l"}
    assert board.loc["vqls-l", "solves"] == 2  # its own datasets (kappa10 only: "1?") and repeats
    assert not (work / "results" / "vqls-l" / "ising" / "kappa100.parquet").exists()
    assert (work / "results" / "figures" / "fig2.png").stat().st_size > 0
    assert board.loc["lu", "success_rate"] == 1.0 and board.loc["crash", "success_rate"] == 0.0
    dem = pd.read_parquet(work / "datasets" / "dem_c" / "sedimentation-n5-mu0")
    assert len(dem) > 0 and (dem["family"] == "dem_c").all()
    assert board.loc["crash", "solves"] == (2 * 2 + len(dem)) * 2  # (Ising + DEM-C systems) x repeats, all kept
    pauli = pd.read_parquet(work / "results" / "pauli" / "dem_c" / "sedimentation-n5-mu0.parquet")
    assert set(pauli["system_id"]) == set(dem["system_id"])
    assert (work / "results" / "figures" / "pauli_terms.png").stat().st_size > 0
    results = pd.read_parquet(work / "results" / "gmres-r2" / "ising" / "kappa100.parquet")
    assert (results["solver_options"] == '{"restart": 2}').all()

    # Datasets are reproducible: regenerating gives the same bytes, and nothing else reruns.
    data = work / "datasets" / "ising" / "kappa10" / "part-0000.parquet"
    before = data.read_bytes()
    rerun = subprocess.run(cmd + ["--forcerun", "ising_dataset", "--until", "ising_dataset"], cwd=work,
                           capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert data.read_bytes() == before


def test_per_solver_datasets_and_repeats():
    from qlsbench.workflow import solver_datasets, solver_results, solver_run_setting

    config = _default()
    assert solver_datasets(config, "vqls-local") == ["ising/kappa10"]
    assert solver_datasets(config, "lu") == all_datasets(config)
    assert solver_run_setting(config, "vqls-local", "repeats", 1) == 1
    assert solver_run_setting(config, "lu", "repeats", 1) == config["run"]["repeats"]
    paper = yaml.safe_load((REPO / "workflows" / "config" / "paper.yaml").read_text())
    assert solver_run_setting(paper, "vqls-local", "time_limit", 60) == 36000
    assert solver_run_setting(paper, "lu", "time_limit", 60) == paper["run"]["time_limit"]
    assert "results/vqls-local/ising/kappa10.parquet" in solver_results(config)
    assert "results/vqls-local/ising/kappa100.parquet" not in solver_results(config)
    assert loss_figure_inputs(config, "loss_curves") == ["results/vqls-global/ising/kappa10.parquet",
                                                         "results/vqls-local/ising/kappa10.parquet",
                                                         "results/vnls/ising/kappa10.parquet"]
    assert "dem_c_checkpoints/sedimentation-n16-mu0" in solver_datasets(config, "vnls")
    assert "dem_c_checkpoints/sedimentation-n16-mu0" in solver_datasets(config, "lu")
    config["solvers"][-1]["datasets"] = ["heat/*"]  # the vnls entry
    with pytest.raises(ConfigError, match=r"datasets \['heat/\*'\] match none"):
        solver_datasets(config, "vnls")
    config["solvers"][-1]["datasets"] = ["ising/kappa100"]
    with pytest.raises(ConfigError, match=r"solver\(s\) \['vnls'\] do not run on 'ising/kappa10'"):
        loss_figure_inputs(config, "loss_curves")
    config["loss_figures"][0]["solvers"] = ["vnlz"]
    with pytest.raises(ConfigError, match=r"loss_figures.loss_curves.solvers \['vnlz'\] are not configured"):
        loss_figure_inputs(config, "loss_curves")
    config["checkpoints"] = [{"dataset": "dem_c/sedimentation-n99-mu0"}]
    with pytest.raises(ConfigError, match="is not a configured DEM-C dataset"):
        all_datasets(config)
