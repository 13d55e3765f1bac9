"""Solvers: one protocol, one registry, many families.

>>> from qlsbench import solvers
>>> solvers.available()[:3]
['bicgstab', 'cg', 'gmres']
>>> cg = solvers.get("cg", rtol=1e-12)

The protocol and result types (:mod:`~qlsbench.solvers.base`) are imported on
first use: listing solvers and their options (``qlsbench solvers``) needs
neither numpy nor scipy.
"""

from qlsbench.solvers.registry import ENTRY_POINT_GROUP, available, describe, get

__all__ = ["ENTRY_POINT_GROUP", "BaseSolver", "SolveResult", "Solver", "Status", "available", "describe", "get"]

#: Names this package exports from :mod:`qlsbench.solvers.base`.
_FROM_BASE = ("BaseSolver", "SolveResult", "Solver", "Status")


def __getattr__(name: str):
    """The protocol and result types of :mod:`~qlsbench.solvers.base`, imported when first asked for (PEP 562)."""
    if name in _FROM_BASE:
        from qlsbench.solvers import base

        return getattr(base, name)
    raise AttributeError(f"module 'qlsbench.solvers' has no attribute {name!r}")
