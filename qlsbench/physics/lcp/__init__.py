"""The linear complementarity problem: the problem type, its methods and its file readers.

After Siconos' ``numerics/src/LCP/``: one problem type
(:mod:`~qlsbench.physics.lcp.problem`), one module per method
(:mod:`~qlsbench.physics.lcp.minmap`, :mod:`~qlsbench.physics.lcp.proximal`,
:mod:`~qlsbench.physics.lcp.lemke`, :mod:`~qlsbench.physics.lcp.pgs`), one
driver table (:mod:`~qlsbench.physics.lcp.methods`), and the readers of
problems stored by other projects beside them (:mod:`~qlsbench.physics.lcp.fclib`,
:mod:`~qlsbench.physics.lcp.dat`). Nothing else in :mod:`qlsbench.physics`
reads files.
"""

from qlsbench.physics.lcp.dat import read_lcp_dat
from qlsbench.physics.lcp.fclib import FrictionalContactProblem, normal_lcp, read_fclib, write_fclib_global
from qlsbench.physics.lcp.lemke import lemke
from qlsbench.physics.lcp.methods import LCP_METHODS, solve_lcp
from qlsbench.physics.lcp.minmap import Capture, LinearSolve, NewtonOptions, minmap_newton
from qlsbench.physics.lcp.pgs import pgs
from qlsbench.physics.lcp.problem import LCP, LCPResult
from qlsbench.physics.lcp.proximal import ProximalOptions, proximal_minmap

__all__ = [
    "LCP",
    "LCP_METHODS",
    "Capture",
    "FrictionalContactProblem",
    "LCPResult",
    "LinearSolve",
    "NewtonOptions",
    "ProximalOptions",
    "lemke",
    "minmap_newton",
    "normal_lcp",
    "pgs",
    "proximal_minmap",
    "read_fclib",
    "read_lcp_dat",
    "solve_lcp",
    "write_fclib_global",
]
