"""Exception types raised for bad input.

Every error a user can cause derives from :class:`QlsbenchError`, so the CLI can
print it as one line instead of a traceback. Messages name the culprit: the
file, column, field or parameter that is wrong.
"""

from __future__ import annotations


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
