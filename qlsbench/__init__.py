"""qlsbench: benchmark and datasets for quantum and quantum-inspired linear solvers.

Layers, each depending only on those before it::

    problems  ->  data  ->  solvers  ->  bench  ->  cli / workflow

:class:`LinearSystem` is imported on first use: ``python -m qlsbench --help``
runs this file, and should not pay for numpy and scipy. The version is written once,
in :mod:`qlsbench.versions`.
"""

from qlsbench.errors import QlsbenchError
from qlsbench.versions import VERSION as __version__

__all__ = ["LinearSystem", "QlsbenchError", "__version__"]


def __getattr__(name: str):
    """``qlsbench.LinearSystem``, imported when first asked for (PEP 562)."""
    if name == "LinearSystem":
        from qlsbench.problems import LinearSystem

        return LinearSystem
    raise AttributeError(f"module 'qlsbench' has no attribute {name!r}")
