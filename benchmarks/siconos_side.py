"""Siconos beside qlsbench on the same contact problems: the local form handed over, and the solves timed in turn.

Siconos 4.4's fc3d solvers run in the Python that has them (Debian's ``python3-siconos`` and ``python3-scipy``;
``QLSBENCH_SICONOS_PYTHON`` names another), in one worker process started once (:mod:`siconos_worker`). Each
step of a run is solved by the stepper first, then by Siconos from the same start on the same contacts, so both
timings of a step are taken within a second of each other on the same loaded machine. What differs, and is
stated wherever a ratio is shown: the stepper solves the paper's polygon of ``s`` facets inscribed in the
Coulomb cone and Siconos the exact cone; the stepper stops at ``||min(y, Q y + r)|| <= tol (1 + ||r||)`` and
Siconos at its own error measure below ``tol`` (its error is relative to ``1 + ||q||``), the same ``tol``.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

SICONOS_PYTHON = os.environ.get("QLSBENCH_SICONOS_PYTHON", "/usr/bin/python3")
WORKER = Path(__file__).with_name("siconos_worker.py")


def unavailable(modules: tuple[str, ...] = ("siconos.numerics", "scipy.sparse")) -> str | None:
    """Why Siconos cannot run here (for a skip), or ``None``: :data:`SICONOS_PYTHON` must import ``modules``
    (the side-by-side worker needs SciPy too; a solve handed dense arrays needs Siconos alone)."""
    if shutil.which(SICONOS_PYTHON) is None:
        return f"{SICONOS_PYTHON} not found (set QLSBENCH_SICONOS_PYTHON to a Python with Siconos)"
    probe = subprocess.run([SICONOS_PYTHON, "-c", "import " + ", ".join(modules)], capture_output=True)
    if probe.returncode != 0:
        packages = " ".join("python3-" + m.split(".")[0] for m in modules)
        return f"{SICONOS_PYTHON} cannot import {', '.join(modules)} (Debian: apt-get install {packages})"
    return None


def local_form(problem, y0: np.ndarray) -> dict[str, np.ndarray]:
    """The step's problem as Siconos' local fc3d takes it: ``u = W r + q`` with ``W = H^T M^-1 H`` and
    ``q = H^T M^-1 f + w``, and the stepper's start ``y0`` as the contact impulses ``r0`` (each contact's
    normal impulse and its polygon's friction summed in the frame)."""
    M, H, f, w, mu = problem.global_form()
    inv_mass = 1.0 / M.diagonal()
    W = (H.T @ sp.diags(inv_mass) @ H).tocsc()
    W.sort_indices()
    q = H.T @ (inv_mass * f) + w
    r0 = problem.global_solution(y0)[2]
    return {
        "data": W.data,
        "indices": W.indices,
        "indptr": W.indptr,
        "m": np.array(W.shape[0]),
        "q": q,
        "mu": mu,
        "r0": r0,
    }


class Siconos:
    """The worker process, started on entering and stopped on leaving: ``solve`` hands it one problem.

    ``memory_gib`` bounds the worker's address space (``QLSBENCH_SICONOS_MEMORY_GIB``, else the worker's 4 GiB):
    at 1,000 spheres NSN_AC's sparse factorisation dies within 4 GiB and runs within 16.
    """

    def __init__(self, memory_gib: float | None = None) -> None:
        self.memory_gib = memory_gib

    def __enter__(self) -> Siconos:
        self.folder = tempfile.TemporaryDirectory(prefix="qlsbench-siconos-")
        self.count, self.deaths = 0, 0
        self._start()
        return self

    def _start(self) -> None:
        bound = {} if self.memory_gib is None else {"QLSBENCH_SICONOS_MEMORY_GIB": str(self.memory_gib)}
        self.process = subprocess.Popen(
            [SICONOS_PYTHON, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, **bound},
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests, self.answers = self.process.stdin, self.process.stdout
        assert json.loads(self.answers.readline())["ready"]

    def solve(self, form: dict, solver: str, tol: float, max_iter: int, answer: bool = False, repeats: int = 1) -> dict:
        """Siconos' ``solver`` (``NSGS`` or ``NSN_AC``) on ``form`` (:func:`local_form`): seconds (the least of
        ``repeats`` solves from the same start), iterations, info (0: converged) and its error; info ``-1`` with
        ``died`` when the worker died on it (out of its memory bound), after which a new worker takes the next
        problem. ``answer``: also the impulses ``r``."""
        self.count += 1
        path = Path(self.folder.name) / f"problem-{self.count}.npz"
        np.savez(path, **form)
        request = {
            "problem": str(path),
            "solver": solver,
            "tol": tol,
            "max_iter": max_iter,
            "answer": answer,
            "repeats": repeats,
        }
        self.requests.write(json.dumps(request) + "\n")
        self.requests.flush()
        line = self.answers.readline()
        path.unlink()
        if not line:
            code = self.process.wait(timeout=60)
            self.deaths += 1
            self._start()
            return {"seconds": np.nan, "iterations": -1, "info": -1, "error": np.nan, "died": code}
        return json.loads(line)

    def __exit__(self, *exc) -> None:
        self.requests.close()
        self.process.wait(timeout=60)
        self.folder.cleanup()


#: Iteration caps handed to Siconos: NSGS's is the stepper's sweep cap; NSN_AC's Newton iterations converge within
#: tens where they converge at all.
MAX_ITER = {"NSGS": 200_000, "NSN_AC": 100}


def _once(scene, warm, options, k: int) -> tuple:
    """Step ``k`` of ``scene`` in place: its report, and what the problem sink saw (the problem, the solution,
    and the moments its solve started and ended; empty without contacts)."""
    from qlsbench.physics import step

    seen: dict = {}

    def sink(index, problem):
        seen["problem"], seen["start"] = problem, time.perf_counter()
        return lambda solution: seen.update(solution=solution, end=time.perf_counter())

    return step(scene, options, index=k, warm=warm, problems=sink), seen


def _timed_step(scene, warm, options, k: int, repeats: int):
    """Step ``k`` of ``scene`` in place, its solve repeated: ``repeats - 1`` rehearsals on copies of the scene
    and the warm start (the step is deterministic), then the step itself. Returns its report, its contact
    problem and start (``None`` without contacts) and the least solve time."""
    rehearsals = [_once(scene.copy(), copy.deepcopy(warm), options, k)[1] for _ in range(repeats - 1)]
    report, seen = _once(scene, warm, options, k)
    if "solution" not in seen:
        return report, None, np.nan
    seconds = min(run["end"] - run["start"] for run in [*rehearsals, seen])
    return report, (seen["problem"], seen["solution"].start), seconds


def side_by_side(
    scene,
    warm,
    options,
    steps: int,
    gravity=None,
    repeats: int = 3,
    progress: bool = False,
    memory_gib: float | None = None,
) -> list[dict]:
    """``steps`` warm-started steps of ``scene`` (copies; ``gravity(k)`` sets step ``k``'s gravity), each step's
    contact problem solved by the stepper and then by Siconos' NSGS and NSN_AC from the same start, each solve
    ``repeats`` times with the least time kept (a sub-millisecond solve is otherwise decided by one stall of a
    shared machine).

    Returns one dict per step with contacts: ``ours`` (the stepper's solve, from its problem being assembled to
    its solution, in seconds), ``sweeps`` and ``status``, per Siconos solver its seconds, iterations and info, and
    the one-minute load after the step. ``progress``: a progress bar over the steps (a pile at scale takes minutes
    a step). ``memory_gib``: the worker's address-space bound (:class:`Siconos`).
    """
    from tqdm.auto import tqdm

    scene, warm = scene.copy(), copy.deepcopy(warm)
    tol = options.solved_friction_tol  # what the stepper meets
    rows = []
    with Siconos(memory_gib) as siconos:
        for k in tqdm(range(steps), desc="side by side", disable=not progress):
            if gravity is not None:
                scene.gravity = gravity(k)
            report, solved, seconds = _timed_step(scene, warm, options, k, repeats)
            if solved is None:
                continue  # no contact
            form = local_form(*solved)
            row = {
                "step": k,
                "contacts": report.contacts,
                "ours": seconds,
                "sweeps": report.sweeps,
                "status": str(report.status),
            }
            for solver in ("NSGS", "NSN_AC"):
                answer = siconos.solve(form, solver, tol, MAX_ITER[solver], repeats=repeats)
                row.update({f"{solver}_{key}": value for key, value in answer.items()})
            row["load"] = os.getloadavg()[0]
            rows.append(row)
    return rows


def ratio_figures(rows: list[dict]) -> dict[str, float]:
    """Per-step time ratios of the stepper to Siconos NSGS and NSN_AC: median and worst, and the worst step's."""
    ours = np.array([r["ours"] for r in rows])
    figures: dict[str, float] = {}
    for solver in ("NSGS", "NSN_AC"):
        ratio = ours / np.array([r[f"{solver}_seconds"] for r in rows])  # NaN where Siconos died
        ratio = np.where(np.isnan(ratio), -np.inf, ratio)
        worst = int(np.argmax(ratio))
        figures |= {
            f"{solver}_median": float(np.median(ratio[np.isfinite(ratio)])),
            f"{solver}_worst": float(ratio[worst]),
            f"{solver}_worst_step": float(rows[worst]["step"]),
            f"{solver}_unconverged": float(sum(r[f"{solver}_info"] != 0 for r in rows)),
        }
    figures["ours_unconverged"] = float(sum(r["status"] != "converged" for r in rows))
    return figures


def at_scale(spheres: int, steps: int, out: Path, memory_gib: float = 16.0) -> Path:
    """The first ``steps`` steps of the scale study's ``spheres``-sphere pile side by side, one solve each, into
    its side-by-side file in ``out`` (what ``docs/scale.md`` shows under *Beside Siconos*); the Siconos worker
    may use ``memory_gib`` of address space."""
    from qlsbench.bench import scale_study
    from qlsbench.physics import WarmStart

    scene = scale_study.dropped_pile(spheres)
    # One solve each: a solve of seconds is not decided by a stall of the machine, and Siconos' NSGS takes minutes.
    options = scale_study.step_options()
    rows = side_by_side(scene, WarmStart(), options, steps, repeats=1, progress=True, memory_gib=memory_gib)
    return _written(scale_study.siconos_path(out, spheres), _content(spheres, rows, memory_gib))


def _content(spheres: int, rows: list[dict], memory_gib: float, **extra) -> dict:
    """A side-by-side file's content: the run, the load over its steps, the worker's bound and the rows."""
    from qlsbench import __version__
    from qlsbench.bench import scale_study

    loads = [row["load"] for row in rows]
    return {
        "format": 1,
        "qlsbench": __version__,
        "spheres": spheres,
        "settle": scale_study.SETTLE,
        **extra,
        "load": [min(loads), max(loads)],
        "siconos_memory_gib": memory_gib,
        "rows": [{key: _json_number(value) for key, value in row.items()} for row in rows],
    }


def _written(path: Path, content: dict) -> Path:
    """``content`` as JSON at ``path`` (temporary file, then rename)."""
    from qlsbench.data import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(content, indent=1) + "\n")
    return path


#: Siconos' fc3d solvers timed to accuracy at 1,000 spheres: those that ran there (PROX's MUMPS analysis ran out of
#: memory, NSN_AC converged on none of 4 steps) and their iteration caps.
ACCURACY_SOLVERS = {"NSGS": 100_000, "ADMM": 100_000, "VI_FPP": 100_000, "VI_EG": 100_000}


def accuracy_side_by_side(
    spheres: int, steps: int, out: Path, tol: float | None = None, memory_gib: float = 16.0
) -> Path:
    """The stepper's run of the scale study's pile, each step's contact problem also solved to ``tol`` on Siconos'
    merit (fc3d error on the exact cone, relative to ``||q||``) by qlsbench's exact-cone APGD and by each of
    :data:`ACCURACY_SOLVERS`, all from the stepper's start, timed in turn; into ``accuracy-<spheres>-<tol>.json``.

    ``tol`` defaults to the stepper's frictional tolerance. The stepper's own solve (the polygon, to its natural
    residual) is timed too, with the Siconos error its answer reaches.
    """
    from tqdm.auto import tqdm

    from qlsbench.bench import scale_study
    from qlsbench.bench.tolerance_study import siconos_error
    from qlsbench.physics import WarmStart
    from qlsbench.physics.spheres.apgd import APGDOptions, apgd_exact_cone

    options = scale_study.step_options()
    tol = options.solved_friction_tol if tol is None else tol
    scene, warm, rows = scale_study.dropped_pile(spheres), WarmStart(), []
    with Siconos(memory_gib) as siconos:
        for k in tqdm(range(steps), desc="time to accuracy"):
            report, solved, seconds = _timed_step(scene, warm, options, k, 1)
            if solved is None:
                continue
            problem, start = solved
            form = local_form(problem, start)
            row = {"step": k, "contacts": report.contacts, "stepper": seconds, "stepper_iterations": report.sweeps}
            row["stepper_status"] = str(report.status)
            row["stepper_siconos_error"] = siconos_error(problem, warm_answer(warm, problem, scene))
            t0 = time.perf_counter()
            exact = apgd_exact_cone(problem, form["r0"].reshape(-1, 3), tol=tol, options=APGDOptions(max_iter=100_000))
            row |= {"APGD_seconds": time.perf_counter() - t0, "APGD_iterations": exact.sweeps}
            row |= {"APGD_info": 0 if exact.status == "converged" else 1, "APGD_error": exact.residual}
            for solver, cap in ACCURACY_SOLVERS.items():
                answer = siconos.solve(form, solver, tol, cap)
                row.update({f"{solver}_{key}": value for key, value in answer.items()})
            row["load"] = os.getloadavg()[0]
            rows.append(row)
    return _written(Path(out) / f"accuracy-{spheres}-{tol:.0e}.json", _content(spheres, rows, memory_gib, tol=tol))


def warm_answer(warm, problem, scene) -> np.ndarray:
    """The step's kept answer in the LCP's layout, read back from the warm start it left (same contacts, same
    order)."""
    return warm.guess(problem.contacts, scene.n_spheres, problem.s + 2)


def _json_number(value):
    """``None`` for a NaN (a solve that did not finish has no time), so the file is standard JSON."""
    return None if isinstance(value, float) and not np.isfinite(value) else value


def main(argv: list[str] | None = None) -> None:
    """``python -m benchmarks.siconos_side --spheres N --steps K``: the scale study's pile beside Siconos."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.siconos_side", description=at_scale.__doc__)
    parser.add_argument("--spheres", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path("docs/scale"))
    parser.add_argument("--memory-gib", type=float, default=16.0, help="the Siconos worker's address-space bound")
    parser.add_argument("--accuracy", action="store_true", help="time to accuracy on Siconos' merit instead")
    parser.add_argument("--tol", type=float, default=None, help="with --accuracy: the tolerance (the stepper's)")
    args = parser.parse_args(argv)
    if args.spheres < 1 or args.steps < 1:
        raise SystemExit(f"--spheres and --steps must be at least 1 (got {args.spheres} and {args.steps})")
    if not args.memory_gib > 0:
        raise SystemExit(f"--memory-gib must be positive (got {args.memory_gib})")
    reason = unavailable()
    if reason is not None:
        raise SystemExit(f"Siconos cannot run here: {reason}")
    if args.accuracy:
        if args.tol is not None and not (np.isfinite(args.tol) and args.tol > 0):
            raise SystemExit(f"--tol must be a positive number (got {args.tol})")
        path = accuracy_side_by_side(args.spheres, args.steps, args.out, tol=args.tol, memory_gib=args.memory_gib)
        print(f"wrote {path}")
        return
    print(f"wrote {at_scale(args.spheres, args.steps, args.out, args.memory_gib)}")


if __name__ == "__main__":
    main()
