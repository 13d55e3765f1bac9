"""One table of LCP solvers, Siconos-style: a problem goes in, an :class:`LCPResult` comes out."""

from __future__ import annotations

from typing import Callable

from qlsbench.errors import InputError
from qlsbench.physics.lcp import LCP, LCPResult
from qlsbench.physics.minmap import NewtonOptions, ProximalOptions, minmap_newton, proximal_minmap
from qlsbench.physics.pivoting import lemke, pgs

#: Solver ids and what they run.
LCP_SOLVERS: dict[str, Callable[..., LCPResult]] = {
    "minmap": lambda lcp, y0=None, **kw: minmap_newton(lcp, y0, options=NewtonOptions(**kw)),
    "lemke": lambda lcp, y0=None, **kw: lemke(lcp, **kw),
    "pgs": lambda lcp, y0=None, **kw: pgs(lcp, y0=y0, **kw),
    "proximal": lambda lcp, y0=None, proximal=None, **kw: proximal_minmap(
        lcp, y0, options=NewtonOptions(**kw), proximal=ProximalOptions(**(proximal or {}))),
}


def solve_lcp(lcp: LCP, method: str = "minmap", y0=None, **options) -> LCPResult:
    """Solve ``lcp`` with the named method (``minmap``, ``lemke``, ``pgs`` or ``proximal``).

    ``proximal`` takes the Newton options as keywords and its own as
    ``proximal={"delta": ..., ...}`` (:class:`~qlsbench.physics.minmap.ProximalOptions`).

    Raises
    ------
    InputError
        For an unknown method or option.
    """
    if method not in LCP_SOLVERS:
        raise InputError(f"unknown LCP method {method!r}; available: {', '.join(LCP_SOLVERS)}")
    try:
        return LCP_SOLVERS[method](lcp, y0, **options)
    except TypeError as exc:
        raise InputError(f"LCP method {method!r}: {exc}") from None
