"""Exception types raised for bad input.

Every error a user can cause derives from :class:`QlsbenchError`, so the CLI can
print it as one line instead of a traceback. Messages name the culprit: the
file, column, field or parameter that is wrong.
"""

from __future__ import annotations

import errno
import os

#: Why the machine refuses a write: a full disk, a quota, a read-only file system, no permission.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})


class QlsbenchError(Exception):
    """Base class of all user-facing qlsbench errors."""


class InputError(QlsbenchError, ValueError):
    """A parameter or an in-memory object is invalid."""


class DatasetError(QlsbenchError):
    """A dataset file is unreadable, of another schema version or incomplete."""


class ConfigError(QlsbenchError):
    """A workflow configuration is invalid."""


class UnknownSolverError(QlsbenchError, KeyError):
    """No solver is registered under the requested name."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class SolverProcessError(QlsbenchError, RuntimeError):
    """A solver's child process could not be started or answered in a way no row can hold (one line, the cause)."""


class OutputError(QlsbenchError):
    """An output could not be written (a full disk, a quota, a read-only or forbidden place): the path and the
    cause, one line."""


def refused_write(exc: BaseException, path: str | os.PathLike | None = None) -> OutputError | None:
    """``exc`` as an :class:`OutputError` naming ``path`` (else the file the error names) when it is a write the
    machine refused (:data:`WRITE_ERRNOS`); ``None`` for anything else."""
    if not isinstance(exc, OSError) or exc.errno not in WRITE_ERRNOS:
        return None
    where = path if path is not None else exc.filename
    cause = f"{os.strerror(exc.errno)}, {errno.errorcode[exc.errno]}"
    return OutputError(f"{where if where is not None else 'an output'}: cannot write ({cause})")
