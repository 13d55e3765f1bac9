"""Output paths, checked before any work: no command writes over its inputs or fails only at the end.

A simulation or a solver run can take an hour; an output path that cannot
be written (an existing folder where a file goes, a file where a folder
goes, a read-only place) must be found before it starts, not after. And an
output that is one of the command's inputs, however the path is spelt
(``./d.parquet``, a symlink, a file inside an input folder), would destroy
the data it was computed from.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from qlsbench.errors import InputError


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _writable_folder(folder: Path) -> bool:
    """Whether a file can be created in ``folder``: tried, as permissions alone do not tell (root, read-only mounts)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_output(
    path: str | os.PathLike, option: str, *, kind: str = "file", inputs: tuple[str | os.PathLike, ...] = ()
) -> None:
    """Refuse an output path that cannot be written or would overwrite an input.

    Parameters
    ----------
    path : path
        The output as given.
    option : str
        The option that named it (``--out``), for the message.
    kind : {"file", "folder", "any"}
        What will be written there; an existing entry of the other kind is refused.
    inputs : paths
        The command's input files and folders. The output may not be one of
        them, lie inside an input folder as a ``.parquet`` file (the folder
        would read it as a part next time), or be a folder holding an input.

    Raises
    ------
    InputError
        One line naming the option and the path.
    """
    given = Path(path)
    target = Path(os.path.realpath(given))
    if kind == "file" and target.is_dir():
        raise InputError(f"{option} {given}: is a folder; name a file")
    if kind == "folder" and target.exists() and not target.is_dir():
        raise InputError(f"{option} {given}: is a file; name a folder")
    for raw in inputs:
        source = Path(os.path.realpath(raw))
        if target == source:
            raise InputError(f"{option} {given}: is an input of this command ({raw}); name another output")
        if source.is_dir() and _inside(target, source) and target.suffix == ".parquet":
            raise InputError(f"{option} {given}: lies inside the input folder {raw}, which would read it as data")
        if _inside(source, target) and (kind == "folder" or target.is_dir()):
            raise InputError(f"{option} {given}: holds the input {raw}; name another output")
    existing = target if target.is_dir() else _nearest_existing(target.parent)
    if not existing.is_dir():
        raise InputError(f"{option} {given}: {existing} is a file, not a folder")
    if not _writable_folder(existing):
        raise InputError(f"{option} {given}: cannot write in {existing}")


def owned_temporary_folder(parent: Path, prefix: str) -> Path:
    """A new temporary folder ``parent/<prefix><pid>-*`` of this process, after sweeping those whose process has
    ended (:func:`sweep_abandoned`): the one place that names them, so the sweep finds what a ``kill -9`` left."""
    sweep_abandoned(parent, prefix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))


def sweep_abandoned(parent: Path, prefix: str) -> list[Path]:
    """Remove the temporary folders ``parent/<prefix><pid>-*`` whose process has ended (a ``kill -9`` leaves its
    folder behind; no ``finally`` runs); a live process's folder, or one of another shape, is left. The removed
    ones."""
    removed = []
    for path in parent.glob(f"{prefix}*-*"):
        pid = path.name[len(prefix) :].split("-", 1)[0]
        if path.is_dir() and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
