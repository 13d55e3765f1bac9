"""The `qlsbench` command: real runs, and one-line errors that name the culprit."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from qlsbench.cli import main


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err, f"error is not one line: {err!r}"
    assert "Traceback" not in err
    return err


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


@pytest.mark.parametrize(
    "argv, culprit",
    [
        (["ising", "--n", "3", "--kappa", "1", "--out", "{tmp}/x.parquet"], "kappa must be a finite number > 1, got 1.0"),
        (["ising", "--n", "0", "--out", "{tmp}/x.parquet"], "n_qubits must be an integer >= 1, got 0"),
        (["solve", "--solver", "nope", "--dataset", "{data}", "--out", "{tmp}/r.parquet"], "unknown solver 'nope'"),
        (["solve", "--solver", "cg", "--option", "tol=1", "--dataset", "{data}", "--out", "{tmp}/r.parquet"],
         "unknown option(s) 'tol'"),
        (["solve", "--solver", "cg", "--dataset", "{tmp}/missing", "--out", "{tmp}/r.parquet"], "missing: no such file"),
        (["info", "{tmp}/corrupt.parquet"], "corrupt.parquet: not a readable Parquet file"),
        (["leaderboard", "{tmp}/corrupt.parquet"], "corrupt.parquet: not a readable results file"),
    ],
)
def test_bad_input_gives_one_line_naming_the_culprit(argv, culprit, tmp_path, ising_dataset, capsys):
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1 this is not parquet")
    argv = [a.format(tmp=tmp_path, data=ising_dataset) for a in argv]
    assert main(argv) == 2
    assert culprit in _error_line(capsys)
    assert not (tmp_path / "x.parquet").exists() and not (tmp_path / "r.parquet").exists()


def test_console_script_lists_plugins(plugin_path):
    out = subprocess.run([sys.executable, "-m", "qlsbench.cli", "solvers"], capture_output=True, text=True,
                         check=True).stdout
    names = [line.split()[0] for line in out.splitlines()]
    assert {"lu", "splu", "cg", "minres", "gmres", "bicgstab", "normal-cg", "crash"} <= set(names)
    assert "Conjugate gradients" in out
