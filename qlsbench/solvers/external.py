"""A solver that runs in its own environment, reached through a file protocol.

A solver whose dependencies clash with qlsbench's (an older Qiskit, another
framework, another language) is ranked like a built-in one: ``external``
writes each system to a request file, runs the solver in its own process and
environment, and reads its answer from a response file
(``docs/external-solvers.md`` is the protocol). Either

- ``environment`` + ``entry``: the environment's Python runs
  :mod:`qlsbench.solvers.external_runner` (standard library only), which
  calls the function ``entry`` with the system and writes what it returns; or
- ``command``: any program, run as ``command REQUEST RESPONSE``, that reads
  and writes the two files itself.

Everything the runner does around a built-in solver applies unchanged: the
fidelity and residual are computed here from the returned ``x``, the time
limit and isolation are the runner's (the solver's process dies with the
process that started it), and a process that dies without answering is a
``crashed`` row naming how it ended.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem
from qlsbench.solvers.base import BaseSolver, SolveResult, Status
from qlsbench.solvers.environments import environment_kind, interpreter
from qlsbench.solvers.options import ExternalOptions
from qlsbench.solvers.processes import Finished, run_program

PROTOCOL = "qlsbench-solve/1"
#: The solver side of the protocol, run by the environment's own Python.
RUNNER = Path(__file__).with_name("external_runner.py")
#: Statuses a response may give; ``timeout`` and ``crashed`` are the runner's to say.
ANSWERS = (Status.CONVERGED, Status.MAX_ITER, Status.STALLED, Status.FAILED, Status.ERROR, Status.SKIPPED)
#: Lines of the solver's standard error quoted in a row whose process failed.
STDERR_LINES = 3


def request(system: LinearSystem, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """The request file's content for ``system``: its matrix as coordinates, ``b``, the seed and options."""
    A = sp.coo_matrix(system.A)
    meta = {
        "system_id": system.system_id,
        "dim": system.dim,
        "n_qubits": system.meta.get("n_qubits"),
        "n_orig": int(system.meta.get("n_orig", system.dim)),
        "family": system.meta.get("family"),
    }
    return {
        "protocol": PROTOCOL,
        "seed": int(seed),
        "options": options,
        "meta": meta,
        "A": {"shape": list(A.shape), "row": A.row.tolist(), "col": A.col.tolist(), **_parts(A.data)},
        "b": _parts(np.asarray(system.b)),
    }


def _parts(values: np.ndarray) -> dict[str, list[float]]:
    """``{"re": [...]}``, and ``"im"`` only for complex values."""
    if np.iscomplexobj(values):
        return {"re": values.real.tolist(), "im": values.imag.tolist()}
    return {"re": values.astype(float).tolist()}


def _vector(data: Any, dim: int, what: str) -> np.ndarray | None:
    """A response's vector ``{"re", "im"}`` as an array of length ``dim``; ``None`` for none."""
    if data is None:
        return None
    try:
        x = np.asarray(data["re"], dtype=float)
        if data.get("im") is not None:
            x = x + 1j * np.asarray(data["im"], dtype=float)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{what} is not a vector {{'re': [...], 'im': [...]}} ({exc})") from None
    if x.shape != (dim,):
        raise ValueError(f"{what} has shape {x.shape}, the system {dim} unknowns")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what} holds NaN or infinite values")
    return x


#: What a response's fields can raise when they hold the wrong types or shapes (``int("a")``, ``int(inf)``,
#: ``dict([1])``, a progress entry that is not a list): each is the solver's malformed answer, never our error.
_MALFORMED = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError)


def read_answer(path: Path, dim: int) -> SolveResult:
    """The :class:`SolveResult` of the response file ``path``: :func:`answer`, or an ``error`` result naming how the
    file is malformed (empty, cut off, not JSON, not a JSON object)."""
    text = path.read_text(errors="replace")
    if not text.strip():
        return _malformed("the response file is empty")
    try:
        response = json.loads(text)
    except json.JSONDecodeError as exc:
        return _malformed(f"not JSON (cut off?): {exc}")
    return answer(response, dim)


def _malformed(why: str) -> SolveResult:
    return SolveResult(None, Status.ERROR, f"external: malformed response: {why}")


def answer(response: dict[str, Any], dim: int) -> SolveResult:
    """The :class:`SolveResult` a response file holds; a malformed one is an ``error`` result saying how."""
    if not isinstance(response, dict):
        return _malformed(f"not a JSON object but {type(response).__name__} {str(response)[:60]!r}")
    try:
        status = Status(response.get("status"))  # type: ignore[arg-type]  # not text: the ValueError below
        if status not in ANSWERS:
            raise ValueError(f"status {status.value!r} is the runner's to give")
        x = _vector(response.get("x"), dim, "x")
        progress = [
            (int(p[0]), _vector(p[1], dim, "a progress read-out"), *p[2:]) for p in response.get("progress") or []
        ]
        resources = dict(response.get("resources") or {})
        resources["environment"] = response.get("environment")
        return SolveResult(
            x,
            status,
            str(response.get("message", "")),
            iterations=int(response.get("iterations", 1)),
            history=[float(h) for h in response.get("history") or []],
            resources=resources,
            progress=progress,
        )
    except _MALFORMED as exc:
        return _malformed(f"{type(exc).__name__}: {exc}" if isinstance(exc, (KeyError, IndexError)) else str(exc))


@dataclass
class External(ExternalOptions, BaseSolver):
    """A solver in its own environment or language, through request and response files (:class:`ExternalOptions`)."""

    name = "external"

    def _check(self) -> None:
        if (self.entry is None) == (self.command is None):
            raise InputError("external: give either entry (with environment) or command, not both or neither")
        if self.entry is not None and self.environment is None:
            raise InputError(
                "external: entry needs an environment (a virtualenv, conda prefix, interpreter or requirements file)"
            )
        if self.command is not None and self.environment is not None:
            raise InputError("external: command runs as given; environment is for entry")
        if self.command is not None and not shlex.split(self.command):
            raise InputError("external: command is empty")
        self._check_paths()
        if self.peer:
            self.name = self.peer  # type: ignore[misc]  # the board's and the folders' name for this instance

    def _check_paths(self) -> None:
        """What the run will start exists: the environment (not built here), the command's program, and an entry's
        file (``path/to/file.py:function``; a ``module:function`` entry is found only inside its environment,
        when the run starts)."""
        if self.environment is not None:
            environment_kind(self.environment, where="external: environment")
        if self.command is not None:
            program = shlex.split(self.command)[0]
            path = Path(program).expanduser()
            runnable = path.is_file() and os.access(path, os.X_OK)
            if not runnable and (os.sep in program or shutil.which(program) is None):
                raise InputError(f"external: command's program {program!r} is not an executable file nor on PATH")
        if self.entry is not None:
            file = self.entry.rpartition(":")[0]
            if file.endswith(".py") and not Path(file).expanduser().is_file():
                raise InputError(f"external: entry {self.entry!r}: no such file {file!r}")

    def prepare(self) -> None:
        """Build the environment now when it is a requirements file not built yet (once, minutes for a framework):
        the runner calls this before the first solve, so the build never counts against a solve's time limit."""
        if self.environment is not None:
            interpreter(self.environment, where="external: environment")

    def _argv(self) -> list[str]:
        if self.command is not None:
            return shlex.split(self.command)
        assert self.environment is not None and self.entry is not None  # __post_init__: entry comes with one
        return [str(interpreter(self.environment, where="external: environment")), str(RUNNER), self.entry]

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        argv = self._argv()  # a missing environment is the run's error, raised before any process starts
        with tempfile.TemporaryDirectory(prefix="qlsbench-external-") as folder:
            req, resp = Path(folder) / "request.json", Path(folder) / "response.json"
            req.write_text(json.dumps(request(system, seed, dict(self.solver_options))))
            # whatever the solver starts ends with it, and a child it leaves holding its output delays nothing
            done = run_program([*argv, str(req), str(resp)])
            if resp.is_file():
                return read_answer(resp, system.dim)
        return SolveResult(None, *_failure(done))


def _failure(done: Finished) -> tuple[Status, str]:
    """Status and message of a solver process that wrote no response: how it ended, and its last words."""
    tail = " | ".join(done.stderr.strip().splitlines()[-STDERR_LINES:])
    if done.returncode < 0:
        try:
            how = signal.Signals(-done.returncode).name
        except ValueError:
            how = f"signal {-done.returncode}"
        return Status.CRASHED, f"external: the solver's process ended by {how} without answering: {tail}"
    return Status.ERROR, f"external: the solver's process exited {done.returncode} without answering: {tail}"


__all__ = ["External", "answer", "read_answer", "request"]
