"""Neural quantum states for VNLS, by name in :data:`MODELS`.

- ``rbm``: real RBM. Positive amplitudes only, so it can represent solutions
  without sign changes (the Ising problem with ``b = |+>^n``) and no others.
- ``crbm``: complex RBM, the paper's choice; holomorphic, so SR uses the
  holomorphic geometric tensor.
- ``arnn``: autoregressive dense network with complex parameters, sampled
  directly (no Markov chain) - the paper's suggested future work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import netket as nk
import numpy as np


@dataclass(frozen=True)
class ModelSpec:
    """How to build a model and its sampler, and whether SR may treat it as holomorphic."""

    build: Callable  # (hilbert, alpha) -> flax module
    sampler: Callable  # hilbert -> netket sampler
    holomorphic: bool


MODELS = {
    "rbm": ModelSpec(lambda hi, alpha: nk.models.RBM(alpha=alpha, param_dtype=float),
                     nk.sampler.MetropolisLocal, False),
    "crbm": ModelSpec(lambda hi, alpha: nk.models.RBM(alpha=alpha, param_dtype=complex),
                      nk.sampler.MetropolisLocal, True),
    "arnn": ModelSpec(lambda hi, alpha: nk.models.ARNNDense(hilbert=hi, layers=2, features=max(2, alpha * hi.size),
                                                            param_dtype=np.complex128),
                      nk.sampler.ARDirectSampler, False),
}
