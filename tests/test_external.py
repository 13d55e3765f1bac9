"""Solvers in their own environment, through the file protocol (qlsbench.solvers.external).

The solver side runs in a bare virtualenv made here (no pip, no numpy, no
qlsbench: what an environment whose packages clash with ours looks like at the
least), so what reaches it is only the protocol. Its answers are judged
against a dense solve, and its failures (a raise, a crash, a hang past the time
limit, a malformed answer) must become the rows a built-in solver's would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.bench import SolverSpec, run_solver
from qlsbench.data import write_systems
from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem
from qlsbench.solvers import Status, get
from qlsbench.solvers.environments import interpreter, requirements_key

#: Jacobi in plain Python on the nested lists a numpy-less environment receives; it also reports its seed and the
#: environment's view of the problem, so the test sees what crossed the protocol.
JACOBI = textwrap.dedent("""
    import os, sys, time

    def solve(problem):
        A, b, n = problem.A, problem.b, len(problem.b)
        what = problem.options.get("do", "solve")
        if what == "raise":
            raise ArithmeticError("the solver's own bug")
        if what == "abort":
            os.abort()
        if what == "hang":
            open(problem.options["pidfile"], "w").write(str(os.getpid()))
            time.sleep(600)
        if what == "short":
            return {"x": [1.0], "status": "converged"}
        x = [0.0] * n
        for it in range(problem.options.get("maxiter", 200)):
            x = [(b[i] - sum(A[i][j] * x[j] for j in range(n) if j != i)) / A[i][i] for i in range(n)]
        return {"x": x, "status": "converged", "iterations": it + 1,
                "resources": {"seed_seen": problem.seed, "numpy": "numpy" in sys.modules,
                              "types": type(A).__name__ + "/" + type(b).__name__}}
""")


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """A virtualenv with nothing installed, and the solver file."""
    folder = tmp_path_factory.mktemp("bare")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / "env")], check=True)
    (folder / "jacobi.py").write_text(JACOBI)
    return folder


def _system(n: int = 6, complex_: bool = False, seed: int = 0) -> LinearSystem:
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if complex_ else 0)
    A = M + np.diag(np.abs(M).sum(axis=1) + 1)  # strictly diagonally dominant: Jacobi converges
    b = rng.standard_normal(n) + (1j * rng.standard_normal(n) if complex_ else 0)
    return LinearSystem(sp.csr_matrix(A), b, {"family": "test", "n_qubits": 0})


def _external(bare, **solver_options):
    return get(
        "external",
        environment=str(bare / "env"),
        entry=f"{bare / 'jacobi.py'}:solve",
        solver_options=solver_options,
        peer="my-jacobi",
    )


@pytest.mark.parametrize("complex_", [False, True])
def test_answer_equals_a_dense_solve(bare, complex_):
    system = _system(complex_=complex_)
    result = _external(bare).solve(system, seed=7)
    assert result.status == Status.CONVERGED and result.iterations == 200
    np.testing.assert_allclose(result.x, np.linalg.solve(system.A.toarray(), system.b), rtol=1e-10, atol=1e-12)
    assert np.iscomplexobj(result.x) == complex_
    res = result.resources
    assert res["seed_seen"] == 7 and res["numpy"] is False and res["types"] == "list/list"
    assert res["environment"]["packages"] == {}  # the bare environment, not ours, answered
    assert res["environment"]["python"] == ".".join(map(str, sys.version_info[:3]))


def test_the_run_ranks_it_like_a_builtin(bare, tmp_path):
    """Through the runner, under a time limit (isolated), with the protocol's failures as rows of their own."""
    systems = [_system(5, seed=s) for s in range(2)]
    dataset = write_systems(systems, tmp_path / "systems.parquet")
    spec = SolverSpec(
        "external", {"environment": str(bare / "env"), "entry": f"{bare / 'jacobi.py'}:solve", "peer": "my-jacobi"}
    )
    rows = run_solver(spec, dataset, tmp_path / "out.parquet", repeats=2, seed=3, time_limit=60, progress=False)
    assert list(rows["status"]) == ["converged"] * 4
    assert (rows["rel_residual"] < 1e-12).all() and (rows["fidelity"] > 1 - 1e-12).all()
    assert sorted(rows["seed"]) == [3, 3, 4, 4]


def test_failures_are_rows(bare):
    system = _system()
    raised = _external(bare, do="raise").solve(system)
    assert raised.status == Status.ERROR and "ArithmeticError: the solver's own bug" in raised.message
    crashed = _external(bare, do="abort").solve(system)
    assert crashed.status == Status.CRASHED and "SIGABRT" in crashed.message
    short = _external(bare, do="short").solve(system)
    assert short.status == Status.ERROR and "malformed response" in short.message and short.x is None


GOOD = {"status": "converged", "x": {"re": [1.0, 2.0]}}
#: Every way a response can be malformed: what the file holds, as text.
MALFORMED_FILES = {
    "empty": "",
    "blank": "  \n",
    "cut off": '{"status": "converged", "x": {"re": [1.0, 2',
    "not JSON": "converged 1 2",
    "a list": "[1.0, 2.0]",
    "a string": '"converged"',
    "a number": "3",
    "null": "null",
    "no status": '{"x": {"re": [1.0, 2.0]}}',
    "status not text": '{"status": 7, "x": {"re": [1.0, 2.0]}}',
    "x a list": '{"status": "converged", "x": [1.0, 2.0]}',
    "x of text": '{"status": "converged", "x": {"re": ["a", "b"]}}',
    "x too long": '{"status": "converged", "x": {"re": [1.0, 2.0, 3.0]}}',
    "x nested": '{"status": "converged", "x": {"re": [[1.0], [2.0]]}}',
    "x NaN": '{"status": "converged", "x": {"re": [NaN, 2.0]}}',
    "x infinite": '{"status": "converged", "x": {"re": [Infinity, 2.0]}}',
    "iterations text": '{"status": "converged", "x": {"re": [1.0, 2.0]}, "iterations": "many"}',
    "iterations infinite": '{"status": "converged", "x": {"re": [1.0, 2.0]}, "iterations": Infinity}',
    "history of text": '{"status": "converged", "x": {"re": [1.0, 2.0]}, "history": ["a"]}',
    "progress flat": '{"status": "converged", "x": {"re": [1.0, 2.0]}, "progress": [1, 2]}',
    "progress empty entry": '{"status": "converged", "x": {"re": [1.0, 2.0]}, "progress": [[]]}',
    "resources a list": '{"status": "converged", "x": {"re": [1.0, 2.0]}, "resources": [1, 2]}',
    "runner's status": '{"status": "timeout"}',
}


@pytest.mark.parametrize("case", sorted(MALFORMED_FILES))
def test_every_malformed_response_is_an_error_row_saying_so(case, tmp_path):
    """However a response file is malformed, the answer is an ``error`` result with the documented words and no
    ``x``, never an exception of ours; a well-formed one beside them is read."""
    from qlsbench.solvers.external import read_answer

    path = tmp_path / "response.json"
    path.write_text(json.dumps(GOOD))
    assert read_answer(path, 2).status == Status.CONVERGED
    path.write_text(MALFORMED_FILES[case])
    result = read_answer(path, 2)
    assert result.status == Status.ERROR and result.x is None
    assert result.message.startswith("external: malformed response: ") and "\n" not in result.message


def test_a_program_answering_malformed_gets_error_rows_not_our_traceback(tmp_path):
    """End to end through ``command``: a program that writes a JSON list, or JSON cut off, gets error rows that say
    "malformed response", not qlsbench's AttributeError or JSONDecodeError."""
    system = LinearSystem(sp.diags([2.0, 4.0]).tocsr(), np.array([1.0, 1.0]))
    for text, words in (("[1, 2]", "not a JSON object"), ('{"status": "conv', "not JSON")):
        script = tmp_path / "bad.py"
        script.write_text(f"import sys\nopen(sys.argv[2], 'w').write({text!r})\n")
        result = get("external", command=f"{sys.executable} {script}").solve(system)
        assert result.status == Status.ERROR and "malformed response" in result.message and words in result.message


def test_time_limit_kills_the_solver_process(bare, tmp_path):
    """The runner's time-out ends the worker; the solver's own process must not outlive it."""
    pidfile = tmp_path / "pid"
    dataset = write_systems([_system(3)], tmp_path / "systems.parquet")
    spec = SolverSpec(
        "external",
        {
            "environment": str(bare / "env"),
            "entry": f"{bare / 'jacobi.py'}:solve",
            "solver_options": {"do": "hang", "pidfile": str(pidfile)},
        },
    )
    rows = run_solver(spec, dataset, tmp_path / "out.parquet", time_limit=3, progress=False)
    assert list(rows["status"]) == ["timeout"]
    pid = int(pidfile.read_text())
    for _ in range(50):  # the kernel delivers the parent-death signal asynchronously
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_command_mode_speaks_the_files_itself(tmp_path):
    """Any program that reads the request and writes the response: here the system Python without our runner."""
    script = tmp_path / "lsq.py"
    script.write_text(
        textwrap.dedent("""
        import json, sys
        req = json.load(open(sys.argv[1]))
        n = req["A"]["shape"][0]
        A = [[0.0] * n for _ in range(n)]
        for i, j, v in zip(req["A"]["row"], req["A"]["col"], req["A"]["re"]):
            A[i][j] = v
        x = [req["b"]["re"][i] / A[i][i] for i in range(n)]  # a diagonal solve
        json.dump({"status": "converged", "x": {"re": x}, "message": "diagonal"}, open(sys.argv[2], "w"))
    """)
    )
    system = LinearSystem(sp.diags([2.0, 4.0, 8.0]).tocsr(), np.array([1.0, 1.0, 1.0]))
    result = get("external", command=f"{sys.executable} {script}").solve(system)
    assert result.status == Status.CONVERGED and result.message == "diagonal"
    np.testing.assert_allclose(result.x, [0.5, 0.25, 0.125])
    died = get("external", command=f"{sys.executable} -c 'import sys; sys.exit(3)'").solve(system)
    assert died.status == Status.ERROR and "exited 3" in died.message


def test_bad_specs_are_refused_in_one_line(tmp_path):
    with pytest.raises(InputError, match="either entry"):
        get("external")
    with pytest.raises(InputError, match="entry needs an environment"):
        get("external", entry="x.py:solve")
    with pytest.raises(InputError, match="no such virtualenv"):
        interpreter(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="without bin/python"):
        interpreter(tmp_path / "empty")


def test_what_the_run_would_start_is_checked_before_any_solve(bare, tmp_path):
    """Every path an external solver names is checked where the options are (the solver's construction, which
    check-config and the run share): a missing environment, command program or entry file is one line naming it,
    not an error row per system. A module entry and a program on PATH pass (found at run time)."""
    from qlsbench.cli.config_check import ConfigError, check_workflow_config

    python = str(bare / "env")
    cases = {
        "no such virtualenv": {"environment": str(tmp_path / "no-env"), "entry": f"{bare / 'jacobi.py'}:solve"},
        "without bin/python": {"environment": str(tmp_path), "entry": f"{bare / 'jacobi.py'}:solve"},
        "no such file": {"environment": python, "entry": f"{tmp_path / 'gone.py'}:solve"},
        "not an executable file nor on PATH": {"command": "no-such-program-qlsbench request"},
        "nor on PATH": {"command": f"{tmp_path / 'missing.sh'} --fast"},
    }
    for words, options in cases.items():
        with pytest.raises(InputError, match=words):
            get("external", **options)
        config = {**_workflow_default(), "in_loop": [{"name": "ext", "solver": "external", "options": options}]}
        with pytest.raises(ConfigError, match=f"in_loop\\[0\\].*{words}"):
            check_workflow_config(config, _SCHEMA)
    get("external", environment=python, entry="my_module:solve")
    get("external", command=f"{sys.executable} -c pass")
    get("external", command="python3 solver.py")  # the program is on PATH; its arguments are the program's


_ROOT = Path(__file__).resolve().parents[1]
_SCHEMA = _ROOT / "workflows" / "config" / "schema.yaml"


def _workflow_default() -> dict:
    import yaml

    return yaml.safe_load((_ROOT / "workflows" / "config" / "default.yaml").read_text())


def test_requirements_file_builds_its_environment_once(tmp_path, monkeypatch):
    """A pinned requirements file is built into an environment keyed by its content, then reused."""
    monkeypatch.setenv("QLSBENCH_ENVIRONMENTS", str(tmp_path / "envs"))
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# nothing to install: the test stays offline\n")
    python = interpreter(requirements)
    assert python.is_file() and requirements_key(requirements) in python.parent.parent.name
    out = subprocess.run(
        [str(python), "-c", "import sys; print(sys.prefix != sys.base_prefix)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "True"  # a virtualenv of its own
    stamp = os.stat(python.parent.parent).st_mtime_ns
    assert interpreter(requirements) == python and os.stat(python.parent.parent).st_mtime_ns == stamp
    requirements.write_text("# another pin\n")
    assert interpreter(requirements) != python  # another content, another environment


def test_a_pinned_environment_is_built_before_the_first_solve_not_under_its_time_limit(tmp_path, monkeypatch):
    """Building a framework's virtualenv takes minutes: the runner has it built in its own process before the
    first solve (``prepare``), not in the worker under the solve's time limit."""
    from qlsbench.solvers import environments

    monkeypatch.setenv("QLSBENCH_ENVIRONMENTS", str(tmp_path / "envs"))
    builders = []
    build = environments._build
    monkeypatch.setattr(environments, "_build", lambda *a: (builders.append(os.getpid()), build(*a)))
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# nothing to install\n")
    (tmp_path / "jacobi.py").write_text(JACOBI)
    dataset = write_systems([_system(4)], tmp_path / "systems.parquet")
    spec = SolverSpec("external", {"environment": str(requirements), "entry": f"{tmp_path / 'jacobi.py'}:solve"})
    rows = run_solver(spec, dataset, tmp_path / "out.parquet", time_limit=60, progress=False)
    assert list(rows["status"]) == ["converged"]
    assert builders == [os.getpid()]  # built once, here; the worker found it built
