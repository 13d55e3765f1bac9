"""The paper stays reproduced: paper-lite.yaml (paper.yaml's code paths, smaller) runs end to end, and the paper's
qualitative findings, which must hold at any scale, hold.

- fig. 2: the global-cost VQLS loses fidelity as the qubits grow (its barren plateau); the local cost keeps it;
- fig. 4: VNLS's de-noised loss falls on every checkpoint system;
- fig. 5: no system has more Pauli terms than the (4^n + 2^n)/2 stair, and truncating at 1e-3 drops terms.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qlsbench.bench import load_results
from qlsbench.report import smooth

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.workflow
@pytest.mark.paper
def test_paper_lite_reproduces_the_papers_findings(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    work = tmp_path / "wf"
    work.mkdir()
    shutil.copy(REPO / "Snakefile", work)
    shutil.copytree(REPO / "workflows", work / "workflows")
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", "workflows/config/paper-lite.yaml"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = load_results(
        [work / "results" / "vqls-global", work / "results" / "vqls-local", work / "results" / "vnls"]
    )

    # fig. 2: median fidelity over three seeds at 3 and 6 qubits.
    fid = results.groupby(["solver", "n_qubits"])["fidelity"].median()
    global_drop = fid["vqls-global", 3] - fid["vqls-global", 6]
    local_drop = fid["vqls-local", 3] - fid["vqls-local", 6]
    assert fid["vqls-global", 6] < 0.7 < fid["vqls-local", 6]
    assert global_drop > local_drop + 0.2

    # fig. 4: the Savitzky-Golay trend of the Monte Carlo loss ends below where it started.
    vnls = results[results["solver"] == "vnls"]
    assert len(vnls) >= 3
    for history in vnls["history"]:
        trend = smooth(np.asarray(history), 31)
        assert trend[-10:].mean() < trend[:10].mean()

    # fig. 5: under the stair, and fewer terms at 1e-3 from 5 qubits on.
    pauli = pd.read_parquet(work / "results" / "pauli" / "dem_c" / "sedimentation-n24-mu0.parquet")
    assert (pauli["terms_kept"] <= pauli["terms_max"]).all()
    plain = pauli[(pauli["ordering"] == "identity") & (pauli["mode"] == "absolute")]
    counts = plain[plain["n_qubits"] >= 5].groupby("tol")["terms_kept"].median()
    assert counts[1e-3] < counts[0.0]
    assert (work / "results" / "figures" / "pauli_terms.png").stat().st_size > 0
    assert (work / "results" / "tables" / "vnls-checkpoints-sedimentation-n16-mu0-long.md").exists()
