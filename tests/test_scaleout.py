"""Scale-out: the SLURM profile renders every job with the resources its rule declares (a dry run)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from qlsbench.workflow import DEFAULT_RESOURCES, rule_resources, rule_threads, solver_resource

REPO = Path(__file__).resolve().parents[1]


def _jobs(dry_run_output: str) -> list[dict[str, str]]:
    """Rule name, wildcards and resources of each job a dry run lists."""
    jobs = []
    for block in re.split(r"\n(?=\[|localrule |rule )", dry_run_output):
        rule = re.search(r"^(?:local)?rule (\w+):", block, re.M)
        res = re.search(r"^\s+resources: (.*)$", block, re.M)
        if rule and res:
            wildcards = re.search(r"^\s+wildcards: (.*)$", block, re.M)
            jobs.append({"rule": rule.group(1), "wildcards": wildcards.group(1) if wildcards else "",
                         **dict(kv.split("=", 1) for kv in res.group(1).split(", "))})
    return jobs


@pytest.fixture(scope="module")
def slurm_dry_run(tmp_path_factory):
    pytest.importorskip("snakemake_executor_plugin_slurm")
    work = tmp_path_factory.mktemp("slurm")
    shutil.copy(REPO / "Snakefile", work)
    shutil.copytree(REPO / "workflows", work / "workflows")
    override = {"resources": {"solve": {"runtime": 600}},
                "solvers": [{"name": "lu"}, {"name": "vnls", "datasets": ["ising/kappa10"],
                                             "resources": {"mem_mb": 16000, "threads": 2}}],
                "loss_figures": []}
    (work / "cluster.yaml").write_text(yaml.safe_dump(override))
    cmd = [sys.executable, "-m", "snakemake", "--profile", "workflows/profiles/slurm", "--configfile", "cluster.yaml",
           "-n"]
    run = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return run.stdout + run.stderr, override


def test_the_slurm_profile_renders_every_job_with_its_resources(slurm_dry_run):
    output, config = slurm_dry_run
    assert "This was a dry-run" in output
    jobs = _jobs(output)
    rules = {j["rule"] for j in jobs}
    assert {"ising_dataset", "simulate", "checkpoints", "solve", "pauli", "pauli_figure", "leaderboard"} <= rules
    for job in jobs:
        if job["rule"] == "all":
            continue
        assert "runtime" in job and "mem_mb" in job, job  # declared by the rule, not left to the cluster
        if job["rule"] == "solve":
            label = re.search(r"solver=([^,]+)", job["wildcards"]).group(1)
            assert int(job["runtime"]) == 600  # the config's solve override
            assert int(job["mem_mb"]) == (16000 if label == "vnls" else DEFAULT_RESOURCES["solve"]["mem_mb"])
        else:
            expected = rule_resources(config, job["rule"])
            assert int(job["runtime"]) == expected["runtime"] and int(job["mem_mb"]) == expected["mem_mb"]
    # lu on the 9 default datasets (2 Ising, 2 DEM-C, 1 checkpoint set, 3 penalty, 1 CD-Lagrange), vnls on its one.
    assert sum(j["rule"] == "solve" for j in jobs) == 10
    assert sum(j["rule"] == "simulate_penalty" for j in jobs) == 3
    assert sum(j["rule"] == "simulate_cd_lagrange" for j in jobs) == 1
    assert sum(j["rule"] == "trajectory" for j in jobs) == 3


def test_resource_precedence():
    """Threads are checked here: a dry run caps them at its core count and does not print them."""
    config = {"resources": {"default": {"mem_mb": 3000}, "pauli": {"runtime": 5}},
              "solvers": [{"name": "cg", "resources": {"runtime": 9}}]}
    assert rule_resources(config, "pauli") == {"mem_mb": 3000, "runtime": 5}  # config default beats built-in rule value
    assert rule_threads(config, "pauli") == DEFAULT_RESOURCES["pauli"]["threads"]
    assert rule_resources({}, "simulate") == {"mem_mb": 4000, "runtime": 240}
    assert solver_resource(config, "cg", "runtime") == 9 and solver_resource(config, "cg", "mem_mb") == 3000
    assert solver_resource({"solvers": [{"name": "vnls", "resources": {"threads": 2}}]}, "vnls", "threads") == 2
