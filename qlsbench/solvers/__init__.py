"""Solvers: one protocol, one registry, many families.

>>> from qlsbench import solvers
>>> solvers.available()[:3]
['bicgstab', 'cg', 'gmres']
>>> cg = solvers.get("cg", rtol=1e-12)
"""

from qlsbench.solvers.base import BaseSolver, Solver, SolveResult, Status
from qlsbench.solvers.registry import ENTRY_POINT_GROUP, available, describe, get

__all__ = ["ENTRY_POINT_GROUP", "BaseSolver", "SolveResult", "Solver", "Status", "available", "describe", "get"]
