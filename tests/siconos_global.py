"""Siconos' global NSGS on the exact Coulomb cone, run by the system Python (where Debian's python3-siconos lives).

Shared by the tests that check an answer against Siconos: the FCLIB export and the exact-cone reference.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.siconos_side import SICONOS_PYTHON, unavailable  # noqa: E402  (one probe for tests and asv)

# Siconos' global solver on (M, H, f, w, mu): Siconos' M, H, q, b, mu, the same convention M v = H r + q,
# u = H^T v + b. NSGS_WR condenses to W = H^T M^-1 H itself.
_SICONOS_SOLVE = """
import sys
import numpy as np
import siconos.numerics as sn
data = np.load(sys.argv[1])
problem = sn.GlobalFrictionContactProblem()
problem.dimension, problem.numberOfContacts = 3, len(data["mu"])
problem.M, problem.H, problem.q, problem.b, problem.mu = data["M"], data["H"], data["f"], data["w"], data["mu"]
options = sn.SolverOptions(sn.SICONOS_GLOBAL_FRICTION_3D_NSGS_WR)
options.dparam[sn.SICONOS_DPARAM_TOL] = 1e-12
options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 100000
r, u, v = np.zeros(len(data["w"])), np.zeros(len(data["w"])), np.zeros(len(data["f"]))
info = sn.gfc3d_driver(problem, r, u, v, options)
np.savez(sys.argv[2], r=r, u=u, v=v, info=info)
"""


def siconos_global(problem: tuple, tmp_path: Path) -> dict:
    """Siconos' answer ``(r, u, v, info)`` to the global problem ``(M, H, f, w, mu)``; a skip where it is absent."""
    reason = unavailable(("siconos.numerics",))
    if reason is not None:
        pytest.skip(reason)
    M, H, f, w, mu = problem
    np.savez(tmp_path / "in.npz", M=M.toarray(), H=H.toarray(), f=f, w=w, mu=mu)
    done = subprocess.run(
        [SICONOS_PYTHON, "-c", _SICONOS_SOLVE, str(tmp_path / "in.npz"), str(tmp_path / "out.npz")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(np.load(tmp_path / "out.npz"))
