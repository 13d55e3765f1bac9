"""The solver side of qlsbench's file protocol, run by another Python in another environment.

This file is executed by path (``<python> external_runner.py ENTRY REQUEST
RESPONSE``) by the interpreter of the solver's own environment, which need
not have qlsbench, numpy or anything else installed: it uses the standard
library only, and must keep to it (and to Python 3.8's syntax). It reads the
request (``docs/external-solvers.md``), calls the solver function ``ENTRY``
(``path/to/file.py:function`` or ``module:function``) with a :class:`Problem`,
and writes what it returns as the response, with the environment's Python
version and packages. An exception in the solver becomes an ``error``
response naming it; the process itself exits 0 whenever a response was
written, so a non-zero exit always means the solver took its process down.
"""

import importlib
import importlib.util
import json
import os
import platform
import sys
import traceback

PROTOCOL = "qlsbench-solve/1"


class Problem:
    """One linear system as the solver function receives it.

    Attributes
    ----------
    A, b : numpy.ndarray or list
        The dense matrix and right-hand side: numpy arrays (complex only when
        the system is) where numpy is installed, nested lists of numbers
        otherwise.
    seed : int
        The seed of this solve (repeat ``r`` of a run gets ``seed + r``).
    options : dict
        The options the run gives the solver (``external``'s ``options``).
    meta : dict
        ``system_id``, ``dim``, ``n_qubits``, ``n_orig`` (unknowns before
        padding) and ``family``.
    """

    def __init__(self, request):
        self.seed = int(request["seed"])
        self.options = dict(request.get("options") or {})
        self.meta = dict(request.get("meta") or {})
        self.A = _dense_matrix(request["A"])
        self.b = _vector(request["b"])
        try:
            import numpy as np
        except ImportError:
            return
        self.A, self.b = np.array(self.A), np.array(self.b)


def _numbers(re, im):
    return list(re) if im is None else [complex(r, i) for r, i in zip(re, im)]


def _vector(data):
    return _numbers(data["re"], data.get("im"))


def _dense_matrix(data):
    """The request's coordinate list as a dense row-major list of rows."""
    m, n = data["shape"]
    values = _numbers(data["re"], data.get("im"))
    zero = 0j if data.get("im") is not None else 0.0
    rows = [[zero] * n for _ in range(m)]
    for i, j, v in zip(data["row"], data["col"], values):
        rows[i][j] += v
    return rows


def _load(entry):
    """The function ``entry`` names: ``path/to/file.py:function`` or ``module:function``."""
    where, _, attr = entry.rpartition(":")
    if not where or not attr:
        raise ValueError(f"entry {entry!r}: needs the form path/to/file.py:function or module:function")
    if where.endswith(".py"):
        spec = importlib.util.spec_from_file_location("qlsbench_external_solver", os.path.abspath(where))
        if spec is None or not os.path.isfile(where):
            raise FileNotFoundError(f"entry {entry!r}: no file {where}")
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, os.path.dirname(os.path.abspath(where)))  # so the file can import its neighbours
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    return getattr(module, attr)


def _plain(value):
    """``value`` with numpy scalars and arrays made JSON's own types (numpy need not be installed)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _split(x):
    """A vector as ``{"re": [...], "im": [...]}`` (``im`` only when some entry is complex)."""
    x = _plain(x)
    if x is None:
        return None
    if any(isinstance(v, complex) for v in x):
        return {"re": [complex(v).real for v in x], "im": [complex(v).imag for v in x]}
    return {"re": [float(v) for v in x]}


def environment():
    """The interpreter's version and every installed distribution's version: what a result row records."""
    from importlib import metadata

    packages = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            packages[name.lower()] = dist.version
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "packages": dict(sorted(packages.items())),
    }


def respond(entry, request):
    """The response to ``request``: the solver's answer, or an ``error`` naming what it raised."""
    try:
        if request.get("protocol") != PROTOCOL:
            raise ValueError(f"request speaks {request.get('protocol')!r}, this runner {PROTOCOL!r}")
        answer = _load(entry)(Problem(request))
        if not isinstance(answer, dict):
            raise TypeError(f"{entry} returned {type(answer).__name__}, expected a dict")
        answer = _plain(answer)
        answer["x"] = _split(answer.get("x"))
        answer["progress"] = [[p[0], _split(p[1])] + list(p[2:]) for p in answer.get("progress") or []]
    except Exception as exc:  # the solver's bug is a result row, as it is for a built-in solver
        last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {last.filename}:{last.lineno}" if last else ""
        answer = {
            "status": "error",
            "x": None,
            "message": f"{type(exc).__name__}: {exc}{where}",
            "resources": {"raised": type(exc).__name__},
        }
    answer["protocol"] = PROTOCOL
    answer["environment"] = environment()
    return answer


def main(argv):
    entry, request_path, response_path = argv
    with open(request_path, encoding="utf-8") as f:
        request = json.load(f)
    answer = respond(entry, request)
    tmp = response_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(answer, f, allow_nan=True)
    os.replace(tmp, response_path)  # whole or absent: a response cut short by a crash is never read


if __name__ == "__main__":
    main(sys.argv[1:])
