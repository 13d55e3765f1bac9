"""A write the machine refuses is one line naming the file and the cause, and leaves nothing partial behind.

Truth: a real file system that is full (a 256 KiB tmpfs filled up) or read-only (a tmpfs mounted ``ro``),
mounted here; the commands run as a user runs them, in their own process. Skipped where this process may
not mount (not root, or no tmpfs).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from qlsbench.problems import ising_inspired


def _mount(folder: Path, *options: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(["size=256k", *options]), "tmpfs", str(folder)],
        capture_output=True,
    )
    return done.returncode == 0


@pytest.fixture
def disks(tmp_path):
    """A full tmpfs (``full``, a few KiB left) and a read-only one (``ro``)."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("mounting a tmpfs needs root on Linux")
    full, ro = tmp_path / "full", tmp_path / "ro"
    if not _mount(full) or not _mount(ro, "ro"):
        pytest.skip("tmpfs could not be mounted here")
    try:
        yield full, ro
    finally:
        for folder in (full, ro):
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _fill(folder: Path, leave_kib: int = 8) -> None:
    """Fill ``folder``'s file system up to ``leave_kib`` KiB."""
    free = os.statvfs(folder)
    (folder / "filler").write_bytes(b"\0" * max(0, free.f_bavail * free.f_frsize - leave_kib * 1024))


def _qlsbench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "qlsbench", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


def _one_line(done: subprocess.CompletedProcess, path: Path, cause: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and str(path) in lines[0] and cause in lines[0], lines[0]


@pytest.fixture
def dataset(tmp_path):
    from qlsbench.data import write_systems

    return write_systems([ising_inspired(n, 10.0) for n in (3, 4)], tmp_path / "ising.parquet")


def test_a_full_disk_under_a_dataset_is_one_line_and_leaves_no_folder(disks, tmp_path):
    full, _ = disks
    _fill(full)
    done = _qlsbench(
        "simulate", "--n-spheres", "30", "--steps", "200", "--out", str(full / "ds"), "--quiet", cwd=tmp_path
    )
    _one_line(done, full / "ds", "No space left on device")
    assert sorted(p.name for p in full.iterdir()) == ["filler"]


def test_a_full_disk_under_results_keeps_the_earlier_results_and_no_journal(disks, dataset, tmp_path):
    full, _ = disks
    out = full / "x.parquet"
    first = _qlsbench("solve", "--solver", "lu", "--dataset", str(dataset), "--out", str(out), "--quiet", cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    earlier = out.read_bytes()
    _fill(full, leave_kib=0)
    done = _qlsbench("solve", "--solver", "cg", "--dataset", str(dataset), "--out", str(out), "--quiet", cwd=tmp_path)
    _one_line(done, full, "No space left on device")
    assert out.read_bytes() == earlier
    assert sorted(p.name for p in full.iterdir()) == ["filler", "x.parquet"]


def test_a_full_disk_under_a_single_file_output_is_one_line(disks, tmp_path):
    full, _ = disks
    _fill(full, leave_kib=0)
    done = _qlsbench("ising", "--n", "3", "4", "5", "--out", str(full / "ising"), "--quiet", cwd=tmp_path)
    _one_line(done, full / "ising", "No space left on device")
    assert sorted(p.name for p in full.iterdir()) == ["filler"]


def test_a_read_only_place_is_one_line(disks, dataset, tmp_path):
    _, ro = disks
    done = _qlsbench("solve", "--solver", "lu", "--dataset", str(dataset), "--out", str(ro / "x.parquet"), cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and str(ro) in lines[0], done.stderr[-3000:]
    assert not any(ro.iterdir())
