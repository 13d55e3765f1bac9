"""The LCP method table, after Siconos' ``LCP_driver``: one problem type in, one result type out.

Every method takes an :class:`~qlsbench.physics.lcp.problem.LCP`, an optional
start ``y0`` and its own keyword options, and returns an
:class:`~qlsbench.physics.lcp.problem.LCPResult` whose ``residual`` is the
natural residual of the returned point. A new method is one module in this
folder and one line in :data:`LCP_METHODS`.
"""

from __future__ import annotations

from collections.abc import Callable

from qlsbench.errors import InputError
from qlsbench.physics.lcp.lemke import lemke
from qlsbench.physics.lcp.minmap import NewtonOptions, minmap_newton
from qlsbench.physics.lcp.pgs import pgs
from qlsbench.physics.lcp.problem import LCP, LCPResult
from qlsbench.physics.lcp.proximal import ProximalOptions, proximal_minmap

#: Method ids and what they run. Lemke is a pivoting method and takes no start point.
LCP_METHODS: dict[str, Callable[..., LCPResult]] = {
    "minmap": lambda lcp, y0=None, **kw: minmap_newton(lcp, y0, options=NewtonOptions(**kw)),
    "lemke": lambda lcp, y0=None, **kw: lemke(lcp, **kw),
    "pgs": lambda lcp, y0=None, **kw: pgs(lcp, y0=y0, **kw),
    "proximal": lambda lcp, y0=None, proximal=None, **kw: proximal_minmap(
        lcp, y0, options=NewtonOptions(**kw), proximal=ProximalOptions(**(proximal or {}))
    ),
}


def solve_lcp(lcp: LCP, method: str = "minmap", y0=None, **options) -> LCPResult:
    """Solve ``lcp`` with the named method (``minmap``, ``lemke``, ``pgs`` or ``proximal``).

    ``proximal`` takes the Newton options as keywords and its own as
    ``proximal={"delta": ..., ...}`` (:class:`~qlsbench.physics.lcp.proximal.ProximalOptions`).

    Raises
    ------
    InputError
        For an unknown method or option.
    """
    if method not in LCP_METHODS:
        raise InputError(f"unknown LCP method {method!r}; available: {', '.join(LCP_METHODS)}")
    try:
        return LCP_METHODS[method](lcp, y0, **options)
    except TypeError as exc:
        raise InputError(f"LCP method {method!r}: {exc}") from None
