"""Each peer's "Beside ours" section in contrib/<peer>/README.md is what its beside_ours.py computes now from the
published files (submissions and our rows): a number typed by hand, or left behind by a new submission, fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (REPO / "contrib").glob("*/beside_ours.py") if (p.parent / "README.md").exists())


def test_every_peer_has_its_section_script():
    peers = [p.name for p in (REPO / "contrib").iterdir() if p.is_dir()]
    assert peers and sorted(peers) == sorted(s.parent.name for s in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.parent.name for s in SCRIPTS])
def test_the_readme_section_is_what_the_script_gives(script):
    done = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    section = done.stdout.strip()
    assert section and section in (script.parent / "README.md").read_text(encoding="utf-8"), script
