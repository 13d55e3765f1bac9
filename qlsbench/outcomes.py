"""One outcome vocabulary for every solve in the package.

A linear solver on a benchmark system, an LCP method on a contact problem, a
physics step and the penalty Newton iteration all end in one of these. It sits
below every other module (it imports nothing of qlsbench), so ``physics`` and
``solvers`` share it without either importing the other.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """Outcome of one solve (a value, a ``str``: ``Status.CONVERGED == "converged"``).

    The first group is what a method reports about itself; the second what the
    benchmark's runner adds around it.
    """

    CONVERGED = "converged"  #: the method met its own stopping criterion (the accuracy asked for)
    MAX_ITER = "max_iter"  #: the iteration budget ran out first
    STALLED = "stalled"  #: the method stopped on its own criterion short of the accuracy asked for; see ``message``
    FAILED = "failed"  #: the method cannot proceed from where it is (e.g. Lemke's ray termination)
    NO_CONTACT = "no_contact"  #: a physics step without contacts: nothing to solve
    TIMEOUT = "timeout"  #: the runner's wall-time limit ran out first
    ERROR = "error"  #: the solver raised; see ``message``
    CRASHED = "crashed"  #: the solver took its process down mid-solve (found by the rerun); see ``message``
    SKIPPED = "skipped"  #: the solver does not take this system (too many qubits or circuits, wrong structure)

    @property
    def solved(self) -> bool:
        """True for the outcomes that need nothing more: ``converged`` and ``no_contact``."""
        return self in (Status.CONVERGED, Status.NO_CONTACT)


__all__ = ["Status"]
