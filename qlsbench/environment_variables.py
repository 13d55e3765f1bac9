"""The environment variables qlsbench reads, each checked when a command starts, in its flag's words.

A variable is otherwise read only by the code that needs it, so a bad value
surfaced late (every solve of a run an error row, the run exiting 0) or never
(a command that does not read it ignored it). :func:`check_environment` reads
every one that is set before any work starts, with the parser of the flag
that stands for it, and refuses a bad value in one line naming the variable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from qlsbench.errors import InputError
from qlsbench.threads import ENV as THREADS_VARIABLE


def _threads(value: str, name: str) -> None:
    from qlsbench.threads import parse_threads

    parse_threads(value, name)


def _folder(value: str, name: str) -> None:
    """A folder qlsbench can write in, as the code that reads the variable will: not empty text, not a file,
    not a path under a file, and a folder (or its nearest existing parent) where a file can be created."""
    from qlsbench.outputs import check_output

    if not value.strip():
        raise InputError(f"{name}: must be a folder, got an empty value (unset it for the default)")
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise InputError(f"{name}: must be a folder, got {value!r}, which is a file")
    check_output(path, name, kind="folder")  # under a file, or not writable: what the run would meet later


#: Values that turn a cache variable off (``QLSBENCH_JAX_CACHE=off``).
OFF = ("off", "0", "no", "false")


def turned_off(value: str) -> bool:
    """Whether a cache variable's ``value`` turns the cache off (:data:`OFF`)."""
    return value.strip().lower() in OFF


def _folder_or_off(value: str, name: str) -> None:
    if not turned_off(value):
        _folder(value, name)


#: Each variable qlsbench reads, with the check of its value (the flag's parser where there is a flag).
VARIABLES: dict[str, Callable[[str, str], None]] = {
    THREADS_VARIABLE: _threads,  # --threads
    "QLSBENCH_JAX_CACHE": _folder_or_off,  # qlsbench.solvers.vnls.compile_cache
    "QLSBENCH_ENVIRONMENTS": _folder,  # qlsbench.solvers.environments
}


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Refuse, in one line naming it, the first variable of :data:`VARIABLES` that is set to a bad value."""
    values = os.environ if environ is None else environ
    for name, check in VARIABLES.items():
        if name in values:
            check(values[name], name)
