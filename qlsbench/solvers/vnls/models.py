"""Neural quantum states for VNLS, by name in :data:`MODELS`.

- ``rbm``: real RBM. Positive amplitudes only, so it can represent solutions
  without sign changes (the Ising problem with ``b = |+>^n``) and no others.
- ``crbm``: complex RBM, the paper's choice; holomorphic, so SR uses the
  holomorphic geometric tensor.
- ``arnn``: autoregressive dense network with complex parameters, sampled
  directly (no Markov chain) - the paper's suggested future work.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ModelSpec:
    """How to build a model and its sampler, whether SR may treat it as holomorphic, and whether its parameters
    are complex (each then two real numbers: what a comparison at equal parameter counts must count)."""

    build: Callable  # (hilbert, alpha) -> flax module
    sampler: Callable  # hilbert -> netket sampler
    holomorphic: bool
    complex_parameters: bool = False


# NetKet is imported when a model is built, not here: checking a config's model name (every Snakemake run does,
# for every VNLS entry) must not cost NetKet's and JAX's imports.
def _rbm(dtype) -> Callable:
    def build(hi, alpha):
        import netket as nk

        return nk.models.RBM(alpha=alpha, param_dtype=dtype)

    return build


def _arnn(hi, alpha):
    import netket as nk

    return nk.models.ARNNDense(hilbert=hi, layers=2, features=max(2, alpha * hi.size), param_dtype=np.complex128)


def _sampler(name: str) -> Callable:
    # One sampler per Hilbert space: NetKet's samplers hold no state (that is the state's ``sampler_state``), but
    # two built alike do not compare equal, and the compiled loops take the sampler as a static argument: a fresh
    # one per solve compiled the loop again for every solve.
    @functools.cache
    def make(hi):
        import netket as nk

        return getattr(nk.sampler, name)(hi)

    return make


MODELS = {
    "rbm": ModelSpec(_rbm(float), _sampler("MetropolisLocal"), False),
    "crbm": ModelSpec(_rbm(complex), _sampler("MetropolisLocal"), True, complex_parameters=True),
    "arnn": ModelSpec(_arnn, _sampler("ARDirectSampler"), False, complex_parameters=True),
}
