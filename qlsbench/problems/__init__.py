"""Problems: the :class:`LinearSystem` object, its transforms and generators.

Plain data in, plain data out; nothing here knows about files or solvers.
"""

from qlsbench.problems._ising import ising_inspired
from qlsbench.problems._padding import (
    next_power_of_two,
    normalize,
    pad_and_normalize,
    pad_to_power_of_two,
    recover_solution,
)
from qlsbench.problems._poisson import poisson, poisson_kappa, poisson_matrix
from qlsbench.problems._profile import profile
from qlsbench.problems._random import random_sparse_symmetric
from qlsbench.problems._spectra import (
    DENSE_LIMIT,
    condition_number,
    hermitian_defect,
    reference_solution,
    spectral_norm,
)
from qlsbench.problems._system import LinearSystem
from qlsbench.problems._vectors import state_fidelity

__all__ = [
    "DENSE_LIMIT",
    "LinearSystem",
    "condition_number",
    "hermitian_defect",
    "ising_inspired",
    "next_power_of_two",
    "normalize",
    "pad_and_normalize",
    "pad_to_power_of_two",
    "poisson",
    "profile",
    "random_sparse_symmetric",
    "poisson_kappa",
    "poisson_matrix",
    "recover_solution",
    "reference_solution",
    "spectral_norm",
    "state_fidelity",
]
