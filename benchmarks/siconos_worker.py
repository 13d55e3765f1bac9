"""Solve local 3-D frictional contact problems with Siconos' fc3d solvers, one per request, timing each solve.

Run by the Python that has Siconos (Debian's ``python3-siconos`` and ``python3-scipy`` beside ``/usr/bin/python3``),
not by the benchmark's own: it imports nothing of qlsbench. One request per line on standard input, a JSON object
``{"problem": path, "solver": "NSGS" | "NSN_AC", "tol": float, "max_iter": int}`` (``"answer": true`` also
returns the impulses ``r``; ``"repeats": k`` solves it k times from the same start), where ``path`` is an ``.npz``
holding the Delassus matrix ``W`` in CSC arrays (``data``, ``indices``, ``indptr``, ``m``), the free velocity
``q``, the friction coefficients ``mu`` and the start ``r0``; one JSON line back per request: the seconds inside
``fc3d_driver`` alone (the least of the repeats: on a shared machine one stall would decide a millisecond
solve), its iterations, its ``info`` (0: converged) and its own error measure.
"""

import json
import os
import sys
import time

import numpy as np

#: Siconos' names of the solvers compared.
SOLVERS = {
    name: f"SICONOS_FRICTION_3D_{name}" for name in ("NSGS", "NSN_AC", "ADMM", "VI_FPP", "VI_EG", "PROX", "TFP", "DSFP")
}


def solve(request):
    # Imported here: asv imports every module of benchmarks/ with the benchmark's Python, which has no Siconos.
    import scipy.sparse as sp
    import siconos.numerics as sn  # type: ignore[import-not-found]

    with np.load(request["problem"]) as z:
        m = int(z["m"])
        indices, indptr = z["indices"].astype(np.int64), z["indptr"].astype(np.int64)
        W = sp.csc_matrix((z["data"], indices, indptr), shape=(m, m))
        q, mu, r0 = z["q"].copy(), z["mu"].copy(), z["r0"].copy()
    problem = sn.FrictionContactProblem(3, m // 3, W, q, mu)
    seconds = np.inf
    for _ in range(int(request.get("repeats", 1))):
        options = sn.SolverOptions(getattr(sn, SOLVERS[request["solver"]]))
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = int(request["max_iter"])
        options.dparam[sn.SICONOS_DPARAM_TOL] = float(request["tol"])
        r, u = r0.copy(), np.zeros(m)
        start = time.perf_counter()
        info = sn.fc3d_driver(problem, r, u, options)
        seconds = min(seconds, time.perf_counter() - start)
    kept = {"r": r.tolist()} if request.get("answer") else {}  # the impulses, for a check of the hand-over
    return kept | {
        "seconds": seconds,
        "iterations": int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
        "info": int(info),
        "error": float(options.dparam[sn.SICONOS_DPARAM_RESIDU]),
    }


#: Address space the worker may use (``QLSBENCH_SICONOS_MEMORY_GIB``, 4 GiB by default): Siconos' NSN_AC grew
#: past 23 GiB on one 300-contact step given a large iteration cap, and the kernel's OOM killer then picks any
#: process; past this bound the worker fails alone. At 1,000 spheres its factorisation needs more than 4 GiB.
MEMORY_BYTES = int(float(os.environ.get("QLSBENCH_SICONOS_MEMORY_GIB", "4")) * (1 << 30))


def main():
    import resource
    import warnings

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    warnings.simplefilter("ignore")  # Siconos' notes on index widths: the arrays are converted once per problem
    # Siconos' C code prints to standard output: the answers go through a copy of it, and its prints to stderr.
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    print(json.dumps({"ready": True}), file=channel, flush=True)
    for line in sys.stdin:
        print(json.dumps(solve(json.loads(line))), file=channel, flush=True)


if __name__ == "__main__":
    main()
