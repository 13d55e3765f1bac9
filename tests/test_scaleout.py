"""Scale-out: the SLURM profile renders every job with the resources its rule declares (a dry run)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pytest
import yaml

from qlsbench.bench.advantage import AXES
from qlsbench.errors import ConfigError, InputError
from qlsbench.workflow import (
    DEFAULT_RESOURCES,
    check_runtimes,
    dataset_runs,
    rule_resources,
    rule_threads,
    solve_runtime,
    solver_resource,
    solver_run_setting,
)

REPO = Path(__file__).resolve().parents[1]


def _jobs(dry_run_output: str) -> list[dict[str, str]]:
    """Rule name, wildcards and resources of each job a dry run lists."""
    jobs = []
    for block in re.split(r"\n(?=\[|localrule |rule )", dry_run_output):
        rule = re.search(r"^(?:local)?rule (\w+):", block, re.M)
        res = re.search(r"^\s+resources: (.*)$", block, re.M)
        if rule and res:
            wildcards = re.search(r"^\s+wildcards: (.*)$", block, re.M)
            jobs.append(
                {
                    "rule": rule.group(1),
                    "wildcards": wildcards.group(1) if wildcards else "",
                    **dict(kv.split("=", 1) for kv in res.group(1).split(", ")),
                }
            )
    return jobs


def _dry_run(work: Path, *args: str) -> str:
    cmd = [sys.executable, "-m", "snakemake", "-n", *args]
    run = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return run.stdout + run.stderr


def _workdir(root: Path) -> Path:
    shutil.copy(REPO / "Snakefile", root)
    shutil.copytree(REPO / "workflows", root / "workflows")
    return root


@pytest.fixture(scope="module")
def slurm_dry_run(tmp_path_factory):
    pytest.importorskip("snakemake_executor_plugin_slurm")
    work = _workdir(tmp_path_factory.mktemp("slurm"))
    override = {
        "resources": {"solve": {"runtime": 600}},
        "solvers": [
            {"name": "lu"},
            {"name": "vnls", "datasets": ["ising/kappa10"], "shards": 3, "resources": {"mem_mb": 16000, "threads": 2}},
        ],
        "loss_figures": [],
    }
    (work / "cluster.yaml").write_text(yaml.safe_dump(override))
    return _dry_run(work, "--profile", "workflows/profiles/slurm", "--configfile", "cluster.yaml"), override, work


def test_the_slurm_profile_renders_every_job_with_its_resources(slurm_dry_run):
    output, config, work = slurm_dry_run
    config = {**yaml.safe_load((REPO / "workflows" / "config" / "default.yaml").read_text()), **config}
    assert "This was a dry-run" in output
    jobs = _jobs(output)
    rules = {j["rule"] for j in jobs}
    assert {
        "ising_dataset",
        "simulate",
        "checkpoints",
        "solve",
        "solve_shard",
        "merge_solve",
        "pauli",
        "lcu",
        "pinned_dataset",
        "pauli_figure",
        "leaderboard",
    } <= rules
    for job in jobs:
        if job["rule"] == "all":
            continue
        assert "runtime" in job and "mem_mb" in job, job  # declared by the rule, not left to the cluster
        if job["rule"] in ("solve", "solve_shard"):
            w = dict(kv.split("=") for kv in job["wildcards"].split(", "))
            dataset, count = f"{w['family']}/{w['scene']}", int(w.get("shards", 1))
            assert int(job["runtime"]) == solve_runtime(config, w["solver"], dataset, count, root=work)
            assert int(job["mem_mb"]) == (16000 if w["solver"] == "vnls" else DEFAULT_RESOURCES["solve"]["mem_mb"])
        else:
            expected = rule_resources(config, job["rule"])
            assert int(job["runtime"]) == expected["runtime"] and int(job["mem_mb"]) == expected["mem_mb"]
    # lu on every default dataset of linear systems (17: 2 Ising, 3 DEM-C, 1 checkpoint set, 5 penalty,
    # 1 CD-Lagrange, 5 pinned groups), vnls in 3 shards.
    systems = [name for name, (family, _) in dataset_runs(config).items() if family.systems]
    assert len(systems) == 17 and sum(j["rule"] == "solve" for j in jobs) == len(systems)
    assert sum(j["rule"] == "solve_shard" for j in jobs) == 3 and sum(j["rule"] == "merge_solve" for j in jobs) == 1
    assert sum(j["rule"] == "simulate_penalty" for j in jobs) == 5
    assert sum(j["rule"] == "trajectory" for j in jobs) == 3
    # the small sweep: every size of every growth axis, one job each
    assert sum(j["rule"] == "advantage_size" for j in jobs) == sum(len(axis.small) for axis in AXES.values())


def test_the_advantage_sweep_runs_one_cluster_job_per_axis_with_its_resources(tmp_path):
    """advantage.yaml: the full sweep, one SLURM job per size of each growth axis given the config's memory and
    runtime, the page drawn after them, and nothing of the default workflow beyond the one solver it must have."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    output = _dry_run(
        _workdir(tmp_path),
        "-p",
        "--profile",
        "workflows/profiles/slurm",
        "--configfile",
        "workflows/config/advantage.yaml",
    )
    config = yaml.safe_load((REPO / "workflows" / "config" / "advantage.yaml").read_text())
    jobs = _jobs(output)
    sweeps = [j for j in jobs if j["rule"] == "advantage_size"]
    assert sorted(j["wildcards"] for j in sweeps) == sorted(
        f"axis={name}, size={size:06d}" for name, axis in AXES.items() for size in axis.full
    )
    for job in sweeps:
        assert int(job["mem_mb"]) == config["resources"]["advantage_size"]["mem_mb"]
        assert int(job["runtime"]) == config["resources"]["advantage_size"]["runtime"]
    assert output.count("advantage --families") == len(sweeps)
    assert "advantage_page" in {j["rule"] for j in jobs}
    assert not {"simulate", "simulate_penalty", "trajectory", "pinned_dataset"} & {j["rule"] for j in jobs}


def test_the_paper_run_shards_its_long_solves_with_runtimes_that_fit(tmp_path):
    """paper.yaml: VQLS-local's work in one job per Ising system, each given its time limit x systems x repeats."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    output = _dry_run(
        _workdir(tmp_path), "--profile", "workflows/profiles/slurm", "--configfile", "workflows/config/paper.yaml"
    )
    config = {
        **yaml.safe_load((REPO / "workflows" / "config" / "default.yaml").read_text()),
        **yaml.safe_load((REPO / "workflows" / "config" / "paper.yaml").read_text()),
    }
    shards = [j for j in _jobs(output) if j["rule"] == "solve_shard" and "solver=vqls-local," in j["wildcards"]]
    assert len(shards) >= 7
    limit = solver_run_setting(config, "vqls-local", "time_limit", 60)
    for job in shards:
        assert int(job["runtime"]) * 60 >= limit * 1  # one Ising system per shard, one repeat


def test_a_storage_plugin_stages_every_path(tmp_path):
    """With a storage plugin (fs here, s3 on a cluster) every path a job names is the plugin's staged copy."""
    pytest.importorskip("snakemake_storage_plugin_fs")
    remote = tmp_path / "remote"
    remote.mkdir()
    work = tmp_path / "wf"
    work.mkdir()
    output = _dry_run(
        _workdir(work),
        "-p",
        "--cores",
        "2",
        "--default-storage-provider",
        "fs",
        "--default-storage-prefix",
        str(remote),
    )
    commands = [line for line in output.splitlines() if "python -m qlsbench" in line]
    assert len(commands) > 50
    staged = ".snakemake/storage/fs/"
    for command in commands:
        words = command.replace(">", " ").split()
        paths = [
            w
            for w in words
            if w.startswith(("datasets/", "results/", "logs/", "./datasets", "./results"))
            or "/datasets/" in w
            or "/results/" in w
        ]
        assert paths, command
        assert all(w.startswith(staged) for w in paths), command


def test_sharded_results_merge_into_an_unsharded_runs_rows(tmp_path):
    from qlsbench.bench import SolverSpec, merge_shards, read_results, run_solver
    from qlsbench.data import write_systems
    from qlsbench.problems import ising_inspired

    data = tmp_path / "d.parquet"
    systems = [ising_inspired(n, 10.0) for n in (2, 3, 4, 5, 3)]  # n = 3 twice: one system, one shard
    write_systems(systems, data)
    spec = SolverSpec("gmres", {"restart": 4})
    whole = run_solver(spec, data, tmp_path / "whole.parquet", repeats=2, progress=False)
    parts = [tmp_path / f"{i}.parquet" for i in (1, 2, 3)]
    sizes = [
        len(run_solver(spec, data, part, repeats=2, progress=False, shard=(i, 3)))
        for i, part in enumerate(parts, start=1)
    ]
    assert sizes == [4, 2, 4]  # 4 distinct systems dealt largest first: n = 5 and 2 | 4 | 3 (twice in the dataset)
    merged = merge_shards(data, parts, tmp_path / "merged.parquet")
    assert len(merged) == len(whole) == 10
    pd.testing.assert_frame_equal(
        read_results(tmp_path / "merged.parquet").drop(columns="wall_time"),
        read_results(tmp_path / "whole.parquet").drop(columns="wall_time"),
    )
    with pytest.raises(InputError, match="is in two shards"):
        merge_shards(data, [parts[0], parts[0]], tmp_path / "bad.parquet")
    with pytest.raises(InputError, match="shards hold no row for system"):
        merge_shards(data, parts[:2], tmp_path / "bad.parquet")
    # Parts of other solves are refused by what differs, naming both files, whatever else agrees.
    for field, kwargs, words in (
        ("seed", {"seed": 1}, "seed (--seed)"),
        ("limit", {"time_limit": 60.0}, "time limit"),
        ("options", {"spec": SolverSpec("gmres", {"restart": 8})}, "options"),
    ):
        other = tmp_path / f"other-{field}.parquet"
        run_solver(kwargs.pop("spec", spec), data, other, repeats=2, progress=False, shard=(3, 3), **kwargs)
        with pytest.raises(InputError) as error:
            merge_shards(data, [parts[0], parts[1], other], tmp_path / "bad.parquet")
        text = str(error.value)
        assert "not shards of one solve" in text and words in text and str(other) in text and "\n" not in text
    assert not (tmp_path / "bad.parquet").exists()
    # More shards than distinct systems: the empty shard merges with the others (the CI's SLURM run deals 2 shards
    # of cg over a dataset whose systems may all fall in one).
    many = [tmp_path / f"many-{i}.parquet" for i in range(1, 6)]
    sizes = [
        len(run_solver(spec, data, part, repeats=2, progress=False, shard=(i, 5)))
        for i, part in enumerate(many, start=1)
    ]
    assert 0 in sizes
    pd.testing.assert_frame_equal(
        merge_shards(data, many, tmp_path / "many.parquet").drop(columns="wall_time"), merged.drop(columns="wall_time")
    )


def test_raising_repeats_solves_only_the_new_seeds(tmp_path):
    """3 repeats, then raised to 5: the rows equal a 5-repeat run's and the first three are kept as they were."""
    from qlsbench.bench import SolverSpec, add_repeats, read_results, run_solver
    from qlsbench.data import write_systems
    from qlsbench.problems import ising_inspired

    data = tmp_path / "d.parquet"
    write_systems([ising_inspired(n, 10.0) for n in (2, 3)], data)
    # Seeded (each repeat's initial angles) and cheap: exact costs, a few COBYLA steps.
    spec = SolverSpec("vqls-local", {"backend": "exact", "optimizer": "cobyla", "maxiter": 5, "layers": 1})
    run_solver(spec, data, tmp_path / "whole.parquet", repeats=5, progress=False)
    out = tmp_path / "grown.parquet"
    first = run_solver(spec, data, out, repeats=3, progress=False)
    grown = add_repeats(spec, data, out, repeats=5, progress=False)
    assert list(grown["repeat"]) == [0, 1, 2, 3, 4] * 2
    timing = ["wall_time", "progress_seconds"]
    pd.testing.assert_frame_equal(
        read_results(out).drop(columns=timing), read_results(tmp_path / "whole.parquet").drop(columns=timing)
    )
    kept = read_results(out).set_index(["system_id", "repeat"]).loc[list(zip(first["system_id"], first["repeat"]))]
    assert kept["wall_time"].tolist() == first["wall_time"].tolist()  # the earlier solves were not redone
    assert list(tmp_path.glob("grown.*")) == [out]  # the part file is gone
    assert add_repeats(spec, data, out, repeats=5, progress=False).equals(read_results(out))  # nothing to add
    # Killed after the new part was written and before the merge: the rerun merges the part, solving nothing.
    again = tmp_path / "again.parquet"
    run_solver(spec, data, again, repeats=3, progress=False)
    part = run_solver(spec, data, tmp_path / "again.repeats-3-4.parquet", repeats=5, first_repeat=3, progress=False)
    grown = add_repeats(spec, data, again, repeats=5, progress=False)
    assert grown[grown["repeat"] >= 3]["wall_time"].tolist() == part["wall_time"].tolist()
    with pytest.raises(InputError, match="not a run of this solve.*seed"):  # another solve: refused, out unchanged
        add_repeats(spec, data, out, repeats=7, seed=1, progress=False)
    assert len(read_results(out)) == 10 and not list(tmp_path.glob("grown.repeats-*"))  # refused before solving
    # A finished file of the previous results schema (no device columns) takes new repeats in the current one.
    import pyarrow.parquet as pq

    from qlsbench.bench import RESULTS_VERSION_KEY

    old = pq.read_table(out).drop_columns(["routed_depth", "two_qubit_gates", "device_seconds"])
    old = old.replace_schema_metadata({RESULTS_VERSION_KEY: b"4"}).filter(pa.compute.less(old["repeat"], 2))
    pq.write_table(old, out)
    grown = add_repeats(spec, data, out, repeats=3, progress=False)
    assert list(grown["repeat"]) == [0, 1, 2] * 2 and grown["routed_depth"].isna().all()
    assert pq.read_schema(out).names == pq.read_schema(tmp_path / "whole.parquet").names  # in the current schema


def test_runtime_follows_the_work_and_check_config_refuses_what_cannot_fit():
    config = {
        "ising": {"n_qubits": [2, 3, 4, 5, 6, 7, 8], "kappas": [10]},
        "run": {"repeats": 2, "time_limit": 60},
        "solvers": [{"name": "lu", "shards": 3}],
    }
    # 7 systems in 3 shards: at most 3 each, x 2 repeats x 60 s = 6 min, plus 10 to start and write.
    assert solve_runtime(config, "lu", "ising/kappa10", 3) == 16
    assert solve_runtime(config, "lu", "ising/kappa10", 3, attempt=2) == 32  # a retry gets twice the time
    config["resources"] = {"solve": {"max_runtime": 20}}
    assert solve_runtime(config, "lu", "ising/kappa10", 3, attempt=2) == 20  # capped at the cluster's limit
    config["solvers"][0]["time_limit"] = 3600
    with pytest.raises(ConfigError, match="does not fit in its jobs' max_runtime of 20 min"):
        check_runtimes(config)


def test_resource_precedence():
    """Threads are checked here: a dry run caps them at its core count and does not print them."""
    config = {
        "resources": {"default": {"mem_mb": 3000}, "pauli": {"runtime": 5}},
        "solvers": [{"name": "cg", "resources": {"runtime": 9}}],
    }
    assert rule_resources(config, "pauli") == {"mem_mb": 3000, "runtime": 5}  # config default beats built-in rule value
    assert rule_threads(config, "pauli") == DEFAULT_RESOURCES["pauli"]["threads"]
    assert rule_resources({}, "simulate") == {"mem_mb": 4000, "runtime": 240}
    assert solver_resource(config, "cg", "runtime") == 9 and solver_resource(config, "cg", "mem_mb") == 3000
    assert solver_resource({"solvers": [{"name": "vnls", "resources": {"threads": 2}}]}, "vnls", "threads") == 2


def test_solve_add_repeats_raises_a_finished_runs_seeds_from_the_command_line(tmp_path, capsys):
    """`solve --add-repeats`: the finished rows kept, only the new repeats solved; another solve's file, a missing
    file and --shard are refused in one line before anything is solved."""
    from qlsbench.bench import read_results
    from qlsbench.cli import main
    from qlsbench.data import write_systems
    from qlsbench.problems import ising_inspired

    data = tmp_path / "d.parquet"
    write_systems([ising_inspired(n, 10.0) for n in (2, 3)], data)
    out = tmp_path / "r.parquet"
    base = ["solve", "--solver", "cg", "--dataset", str(data), "--out", str(out), "--quiet"]
    assert main(base + ["--repeats", "1"]) in (0, None)
    first = read_results(out)
    assert main(base + ["--repeats", "3", "--add-repeats"]) in (0, None)
    grown = read_results(out)
    assert sorted(grown["repeat"]) == [0, 0, 1, 1, 2, 2]
    assert grown[grown["repeat"] == 0]["wall_time"].tolist() == first["wall_time"].tolist()
    capsys.readouterr()
    refusals = {
        ("--option", "rtol=1e-3", "--repeats", "4", "--add-repeats"): "not a run of this solve to add repeats to",
        ("--repeats", "4", "--add-repeats", "--shard", "1/2"): "it takes no --shard",
        ("--repeats", "4", "--add-repeats", "--sequence"): "not a sequence: add to it without --sequence",
    }
    for extra, message in refusals.items():
        assert main(base + list(extra)) == 2 and message in capsys.readouterr().err
    assert read_results(out).equals(grown) and sorted(p.name for p in tmp_path.iterdir()) == ["d.parquet", "r.parquet"]
    missing = ["solve", "--solver", "cg", "--dataset", str(data), "--out", str(tmp_path / "new.parquet"), "--quiet"]
    assert main(missing + ["--add-repeats"]) == 2 and "no finished run to add repeats to" in capsys.readouterr().err
