"""The `qlsbench` command end to end (its bad-input cases are in test_bad_input.py)."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd

from qlsbench.cli import main


def test_ising_solve_leaderboard_info(tmp_path, capsys):
    data = tmp_path / "datasets" / "ising" / "kappa100" / "part-0000.parquet"
    assert main(["ising", "--n", "2", "3", "4", "--kappa", "100", "--out", str(data)]) == 0
    assert main(["info", str(data.parent)]) == 0
    out = capsys.readouterr().out
    assert "systems   3" in out and "kappa100" in out
    res = tmp_path / "results" / "gmres.parquet"
    assert main(["solve", "--solver", "gmres", "--option", "restart=4", "--option", "rtol=1e-11",
                 "--dataset", str(data.parent), "--out", str(res), "--quiet"]) == 0
    df = pd.read_parquet(res)
    assert (df["status"] == "converged").all() and df["solver"].iloc[0] == "gmres[restart=4,rtol=1e-11]"
    assert main(["leaderboard", str(res), "--md", str(tmp_path / "lb.md"), "--csv", str(tmp_path / "lb.csv")]) == 0
    assert "gmres" in (tmp_path / "lb.md").read_text()


def test_console_script_lists_plugins(plugin_path):
    out = subprocess.run([sys.executable, "-m", "qlsbench.cli", "solvers"], capture_output=True, text=True,
                         check=True).stdout
    names = [line.split()[0] for line in out.splitlines()]
    assert {"lu", "splu", "cg", "minres", "gmres", "bicgstab", "normal-cg", "crash"} <= set(names)
    assert "Conjugate gradients" in out


def test_output_piped_into_a_reader_that_stops_early_is_not_an_error(ising_dataset):
    """``qlsbench info ... | head -1``: the closed pipe ends the command quietly, with no traceback."""
    reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=subprocess.PIPE)
    writer = subprocess.run([sys.executable, "-m", "qlsbench.cli", "info", str(ising_dataset)],
                            stdout=reader.stdin, stderr=subprocess.PIPE, text=True, timeout=120)
    reader.stdin.close()
    reader.wait(timeout=30)
    assert "Traceback" not in writer.stderr and writer.returncode == 0, writer.stderr
