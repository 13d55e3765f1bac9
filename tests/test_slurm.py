"""The slurm profile on a real SLURM: a one-node cluster started here (workflows/profiles/slurm/local-cluster.sh)
runs a small sharded config through `snakemake --profile workflows/profiles/slurm`, and what it writes equals a
local run's (wall times and dates aside)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "workflows" / "profiles" / "slurm" / "local-cluster.sh"

CONFIG = {
    "ising": {"n_qubits": [2, 3], "kappas": [10], "J": 0.1},
    "simulate": [{"scene": "sedimentation", "n_spheres": 5, "mu": 0.0, "steps": 80, "every": 10}],
    "cd_lagrange": [],
    "penalty": [],
    "trajectories": [],
    "pinned": [],
    "checkpoints": [],
    "solvers": [
        {"name": "lu"},
        {"name": "cg", "shards": 2},
        {
            "name": "vqls-local",
            "label": "vqls-l",
            "datasets": ["ising/*"],
            "shards": 2,
            "repeats": 1,
            "options": {"backend": "exact", "optimizer": "lbfgsb", "layers": 2, "maxiter": 60},
        },
    ],
    "run": {"repeats": 2, "seed": 0, "time_limit": 60},
    # The Pauli study keeps its two threads (a job asking SLURM for two CPUs); the studies beside it take one, so
    # two jobs share the two-core node and the test stays within CI's budget.
    "resources": {"lcu": {"threads": 1}, "resources": {"threads": 1}, "truncation": {"threads": 1}},
    "leaderboard": {},
    "loss_figures": [],
    "pauli": {"tols": [0.0], "reorder": False},
    "truncation": {"tols": [0.0, 1.0e-3]},
    # one growth axis of the advantage map, a cluster job like the others, its datasets equal to a local run's
    "advantage": {"families": ["cd_lagrange-cradle"], "models": ["superconducting-1e-4"]},
}
#: What the comparison leaves out: when a solve ran and how long it took.
TIMING = ["wall_time", "progress_seconds"]


def _workdir(root: Path) -> Path:
    root.mkdir()
    shutil.copy(REPO / "Snakefile", root)
    shutil.copytree(REPO / "workflows", root / "workflows")
    (root / "small.yaml").write_text(yaml.safe_dump(CONFIG))
    return root


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}


def _snakemake(work: Path, *args: str, env=None, timeout=600) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--configfile", "small.yaml", *args]
    return subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env or _env(), timeout=timeout)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("a local SLURM needs root (its daemons); CI runs as root")
    pytest.importorskip("snakemake_executor_plugin_slurm")
    folder = tmp_path_factory.mktemp("slurm-cluster")
    start = subprocess.run(["bash", str(SCRIPT), "start", str(folder)], capture_output=True, text=True, timeout=600)
    if start.returncode != 0 and shutil.which("slurmctld") is None:
        pytest.skip(f"SLURM could not be installed here: {start.stderr.strip()[-300:]}")
    assert start.returncode == 0, start.stdout + start.stderr
    yield folder / "slurm.conf"
    subprocess.run(["bash", str(SCRIPT), "stop", str(folder)], capture_output=True, timeout=60)


def _results(work: Path) -> pd.DataFrame:
    from qlsbench.bench import load_results

    df = load_results([work / "results" / label for label in ("lu", "cg", "vqls-l")])
    return df.drop(columns=TIMING).sort_values(["solver", "dataset", "system_id", "repeat"]).reset_index(drop=True)


@pytest.mark.slurm
def test_the_slurm_profile_runs_a_sharded_config_like_a_local_run(cluster, tmp_path):
    local = _workdir(tmp_path / "local")
    run = _snakemake(local, "--cores", "2")
    assert run.returncode == 0, run.stderr[-3000:]

    remote = _workdir(tmp_path / "slurm")
    env = {**_env(), "SLURM_CONF": str(cluster)}
    t0 = time.time()
    run = _snakemake(
        remote,
        "--profile",
        "workflows/profiles/slurm",
        "--slurm-no-account",
        "--slurm-status-command",
        "squeue",
        "--slurm-init-seconds-before-status-checks",
        "1",
        "--latency-wait",
        "5",
        "--jobs",
        "4",
        env=env,
    )
    elapsed = time.time() - t0
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    sacct = subprocess.run(
        ["sacct", "--completion", "-o", "JobID,JobName%40,State,Elapsed,NCPUS,ReqMem"],
        capture_output=True,
        text=True,
        env=env,
    )
    (tmp_path / "sacct.txt").write_text(f"wall time {elapsed:.0f} s\n{sacct.stdout}")
    print(f"SLURM run: {elapsed:.0f} s\n{sacct.stdout}")
    jobs = [line for line in sacct.stdout.splitlines()[2:] if line.strip()]
    log = next((remote / ".snakemake" / "log").glob("*.snakemake.log")).read_text()
    rules = re.findall(r"^(localrule|rule) (\w+):", log, flags=re.M)
    submitted = [name for kind, name in rules if kind == "rule"]
    # lu whole on 2 datasets; cg in 2 shards on each, vqls-l in 2 on the Ising one; the simulation and the Pauli
    # studies: cluster jobs. Merges, figures and the leaderboard ran where Snakemake runs (localrules).
    assert submitted.count("solve") == 2 and submitted.count("solve_shard") == 2 * 2 + 2
    assert {"simulate", "pauli", "lcu", "resources", "truncation", "advantage_size"} <= set(submitted)
    # SLURM gave each job the CPUs its rule asks for: two for the Pauli study, one for the others.
    cpus = {int(line.split()[4]) for line in jobs}  # JobID, JobName, State, Elapsed, NCPUS
    assert cpus == {1, 2}, sacct.stdout
    assert ("localrule", "merge_solve") in rules and ("localrule", "leaderboard") in rules
    assert log.count("has been submitted with SLURM jobid") == len(submitted) == len(jobs)
    assert all(" COMPLETED " in line for line in jobs), sacct.stdout

    for folder in ("ising/kappa10", "dem_c/sedimentation-n5-mu0"):
        a = (local / "datasets" / folder / "part-0000.parquet").read_bytes()
        assert a == (remote / "datasets" / folder / "part-0000.parquet").read_bytes(), folder
    for grown in sorted((local / "datasets" / "advantage" / "cd_lagrange-cradle").iterdir()):
        assert grown.read_bytes() == (remote / grown.relative_to(local)).read_bytes(), grown.name
    pd.testing.assert_frame_equal(_results(local), _results(remote))
    # Success per solver must agree; the row order is a ranking that time ties (LU against CG on 5 s systems) can
    # swap between two runs, so rows are compared by solver name.
    ranks = [
        pd.read_csv(w / "results" / "leaderboard.csv")
        .set_index("solver")[["systems", "success_rate", "success_rate_low"]]
        .sort_index()
        for w in (local, remote)
    ]
    pd.testing.assert_frame_equal(*ranks)
