"""The asv suites import and are well-formed (a full `asv run` is too slow for every test run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_asv_suites_are_well_formed():
    run = subprocess.run([sys.executable, "-m", "asv", "check", "--python=same"], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "No problems found" in run.stdout + run.stderr
