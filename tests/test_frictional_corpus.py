"""A stored corpus of frictional contact LCPs on which plain min-map Newton stalls: the v2 chain solves each.

The files (``tests/data/frictional_lcps/``, made by ``make_corpus.py`` there) come from 8-, 32- and 100-sphere
runs at mu = 0.3. Each is re-assembled here, so the test checks the chain on whatever arithmetic this machine
does (another BLAS kernel or thread count changes the last bits of every step, not whether it converges).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qlsbench.physics import Contacts, NewtonOptions, StepOptions, minmap_newton
from qlsbench.physics.spheres.assembly import assemble
from qlsbench.physics.spheres.stepping import _solve

CORPUS = sorted((Path(__file__).parent / "data" / "frictional_lcps").glob("*.npz"))
OPTIONS = StepOptions(mu=0.3, newton=NewtonOptions(regularization=1e-8), friction_solver="nsgs", friction_tol=None)


def _load(path: Path):
    data = np.load(path)
    contacts = Contacts(data["body_i"], data["body_j"], data["normal"], data["gap"], data["t1"], data["t2"])
    problem = assemble(
        contacts,
        data["masses"],
        data["v_known"],
        float(data["h"]),
        float(data["mu"]),
        int(data["s"]),
        normal_offset=data["normal_offset"],
    )
    return problem, data["y0"]


def test_the_corpus_covers_three_pile_sizes():
    sizes = {path.name.split("-")[0] for path in CORPUS}
    assert sizes == {"n8", "n32", "n100"}, sizes


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_plain_newton_stalls_and_the_chain_solves_it(path):
    problem, y0 = _load(path)
    target = OPTIONS.newton.tol * (1 + np.linalg.norm(problem.lcp.r))
    plain = minmap_newton(problem.lcp, y0, options=OPTIONS.newton)
    assert plain.status != "converged" and plain.residual > target
    captured = []
    for hook in (None, lambda A, b, info: captured.append(info)):  # a step nobody keeps, and a kept one
        result, method, _ = _solve(problem, y0, OPTIONS, hook)
        assert result.status == "converged" and result.residual <= target, (method, result.residual)
        # the residual on the assembled LCP too (NSGS reads it off the velocities: equal to rounding)
        assert problem.lcp.natural_residual(result.y) == pytest.approx(result.residual, rel=1e-6)
    assert all("phase" in info for info in captured)
