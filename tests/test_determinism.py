"""What repeats (docs/reproduction.md, "What repeats"): the same seed gives the same numbers on one machine for
every variational configuration the paper run uses; another seed does not (so the check can fail); and a
converging exact-gradient solve agrees across BLAS kernels and thread counts within a tolerance, not bit for bit.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from qlsbench.problems import ising_inspired
from qlsbench.solvers import registry

#: The paper run's variational configurations, at a size that runs in seconds.
CONFIGURATIONS = {
    "vqls-exact-lbfgsb": (
        "vqls-local",
        {"backend": "exact", "optimizer": "lbfgsb", "ansatz": "brickwall", "layers": 2, "maxiter": 30},
    ),
    "vqls-shots-qnspsa": (
        "vqls-global",
        {
            "backend": "shots-emulated",
            "shots": 1000,
            "optimizer": "qnspsa",
            "ansatz": "brickwall",
            "layers": 2,
            "maxiter": 15,
        },
    ),
    "vnls-crbm-mc": ("vnls", {"model": "crbm", "n_samples": 64, "learning_rate": 0.05, "n_iter": 20}),
}


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
def test_same_seed_same_numbers_other_seed_other_numbers(config):
    name, options = CONFIGURATIONS[config]
    system = ising_inspired(3, 10.0)
    first, again, other = (registry.get(name, **options).solve(system, seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(first.x, again.x)
    np.testing.assert_array_equal(first.history, again.history)
    assert not np.array_equal(first.history, other.history), "another seed gave the same loss curve"


_CHILD = """
import json, sys
import numpy as np
from qlsbench.problems import ising_inspired
from qlsbench.solvers import registry
name, options = json.loads(sys.argv[1])
x = registry.get(name, **options).solve(ising_inspired(3, 10.0), seed=0).x
print(json.dumps([float(v) for v in np.real(x)]))
"""


def _solve_in_child(env_extra: dict) -> np.ndarray:
    env = {**os.environ, **env_extra}
    name, options = (
        "vqls-local",
        {"backend": "exact", "optimizer": "lbfgsb", "ansatz": "brickwall", "layers": 2, "maxiter": 200},
    )
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([name, options])],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return np.array(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.portability
def test_a_converging_exact_solve_agrees_across_blas_kernels_and_threads():
    here = _solve_in_child({})
    there = _solve_in_child(
        {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "QLSBENCH_THREADS": "1"}
    )
    fidelity = abs(np.vdot(here, there)) ** 2 / (np.vdot(here, here).real * np.vdot(there, there).real)
    assert fidelity > 1 - 1e-6


_CACHED_SOLVE = """
import json, jax
events = []
jax.monitoring.register_event_listener(lambda name, **kw: events.append(name))
from qlsbench.problems import ising_inspired
from qlsbench.solvers import get
r = get("vnls", exact=True, n_iter=3).solve(ising_inspired(1, 10.0), seed=1)
print(json.dumps({"x": [[v.real, v.imag] for v in r.x], "history": r.history,
                  "hits": sum(e.endswith("/cache_hits") for e in events),
                  "misses": sum(e.endswith("/cache_misses") for e in events)}))
"""


@pytest.mark.portability
def test_a_second_vnls_process_loads_the_first_ones_programs_and_solves_to_the_same_bits(tmp_path):
    """QLSBENCH_JAX_CACHE (qlsbench.solvers.vnls.compile_cache): the first process compiles and stores every
    program, the next loads them all (no compile) and its numbers are the same bits. Child processes, so a step
    of CI's own (about 20 s), beside the other checks of what repeats from process to process."""

    def run(setting):
        env = {**os.environ, "QLSBENCH_JAX_CACHE": setting}
        out = subprocess.run(
            [sys.executable, "-c", _CACHED_SOLVE], env=env, capture_output=True, text=True, check=True, timeout=300
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    folder = tmp_path / "jax"
    first, second = run(str(folder)), run(str(folder))
    assert first["misses"] > 10 and first["hits"] == 0 and len(list(folder.iterdir())) >= first["misses"]
    assert second["hits"] == first["misses"] and second["misses"] == 0
    assert second["x"] == first["x"] and second["history"] == first["history"]
