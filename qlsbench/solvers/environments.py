"""Where an external solver runs: the interpreter of its own environment, built on first use when pinned.

An ``environment`` (:class:`~qlsbench.solvers.external.External`) is one of

- a virtualenv or conda prefix: a folder with ``bin/python``;
- a Python interpreter itself;
- a requirements file (``*.txt``, every package pinned by version): qlsbench
  builds a virtualenv for it once, in :func:`environments_folder` under the
  file's content hash, and every later solve, run or machine with the same
  file reuses or rebuilds the same environment. This is how a published peer
  records its environment: the file is committed beside its code.

Building happens once per file content: concurrent solves (workflow jobs side
by side) wait on a lock, and an environment whose build was interrupted is
never used (it is built in a temporary folder and renamed when complete).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from qlsbench.errors import InputError
from qlsbench.solvers.processes import run_program

#: Environment variable naming the folder of built environments.
ENVIRONMENTS_VARIABLE = "QLSBENCH_ENVIRONMENTS"
#: Longest a build may take (pip downloading and compiling a framework).
BUILD_TIMEOUT = 1800.0


def environments_folder() -> Path:
    """``$QLSBENCH_ENVIRONMENTS``, else ``$XDG_CACHE_HOME/qlsbench/environments`` (``~/.cache`` by default)."""
    given = os.environ.get(ENVIRONMENTS_VARIABLE)
    if given:
        return Path(given)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qlsbench" / "environments"


def interpreter(environment: str | os.PathLike, *, where: str = "environment") -> Path:
    """The Python interpreter of ``environment`` (see the module's docstring), built first when it is pinned.

    Raises
    ------
    InputError
        Naming the path when it is none of the three, or the build's failure.
    """
    path, found = environment_kind(environment, where=where)
    return _built(path, where) if found is None else found


def environment_kind(environment: str | os.PathLike, *, where: str = "environment") -> tuple[Path, Path | None]:
    """What ``environment`` is, checked as :func:`interpreter` will use it but without building anything: the path,
    and its interpreter (``None`` for a requirements file, built on first use).

    Raises
    ------
    InputError
        Naming the path when it is none of the three.
    """
    path = Path(environment).expanduser()
    if path.is_file() and path.suffix == ".txt":
        return path, None
    if path.is_dir():
        for candidate in (path / "bin" / "python", path / "bin" / "python3", path / "python.exe"):
            if candidate.is_file():
                return path, candidate
        raise InputError(
            f"{where} {str(environment)!r}: a folder without bin/python (not a virtualenv or conda prefix)"
        )
    if path.is_file() and os.access(path, os.X_OK):
        return path, path
    raise InputError(
        f"{where} {str(environment)!r}: no such virtualenv, conda prefix, interpreter or requirements file (.txt)"
    )


def requirements_key(requirements: Path) -> str:
    """The hash naming ``requirements``' environment: its content and the Python that builds it."""
    digest = hashlib.sha256(requirements.read_bytes())
    digest.update(f"{sys.version_info.major}.{sys.version_info.minor}".encode())
    return digest.hexdigest()[:16]


def _built(requirements: Path, where: str) -> Path:
    """The interpreter of the environment pinned by ``requirements``, built now if it does not exist."""
    folder = environments_folder()
    target = folder / f"{requirements.stem}-{requirements_key(requirements)}"
    python = target / "bin" / "python"
    if python.is_file():
        return python
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another job building the same environment: wait for it, then use it
        if not python.is_file():
            _build(requirements, target, where)
    return python


def _build(requirements: Path, target: Path, where: str) -> None:
    """A virtualenv at ``target`` with ``requirements`` installed, built beside it and renamed when complete."""
    partial = target.with_name(f".{target.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)  # a build that was interrupted
    print(f"qlsbench: building the environment of {requirements} (first use) in {target}", file=sys.stderr)
    steps = (
        [sys.executable, "-m", "venv", str(partial)],
        [
            str(partial / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            str(requirements.resolve()),
        ],
    )
    for step in steps:
        try:
            # pip killed with us, with whatever it started: a build nobody waits for would finish into a folder
            # the next run removes
            done = run_program(step, timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            shutil.rmtree(partial, ignore_errors=True)
            raise InputError(
                f"{where} {requirements}: building its environment took over {BUILD_TIMEOUT:.0f} s"
            ) from None
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
            raise InputError(
                f"{where} {requirements}: building its environment failed ({' '.join(step[:3])}...): {tail}"
            )
    os.replace(partial, target)
