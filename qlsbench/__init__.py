"""qlsbench: benchmark and datasets for quantum and quantum-inspired linear solvers.

Layers, each depending only on those before it::

    problems  ->  data  ->  solvers  ->  bench  ->  cli / workflow
"""

from qlsbench.errors import QlsbenchError
from qlsbench.problems import LinearSystem

__version__ = "0.1.0"

__all__ = ["LinearSystem", "QlsbenchError", "__version__"]
