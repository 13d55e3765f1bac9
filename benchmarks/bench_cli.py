"""asv suite: how fast the command line answers (``qlsbench --help``, ``qlsbench solvers``), in CPU seconds.

Each run is a fresh interpreter (``python -m qlsbench ...``), as a user's is, and its user + system CPU time
comes from the operating system (``os.wait4``), so time spent waiting for a busy core does not count. The
budget is 0.5 s (issue 35); before commands imported only what they run, every call cost 2.2-2.4 s here.
Beside the time: the heavy modules the command imports (none expected), which is what the budget rests on,
and the ratio to a bare interpreter's start, comparable across machines. Also: ``snakemake -n`` on the default
and the paper config (:class:`WorkflowDryRun`), the DAG every workflow run builds first.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

#: The command lines timed, by the name asv shows.
COMMANDS = {"--help": ["--help"], "solvers": ["solvers"], "solvers hhl": ["solvers", "hhl"]}

#: Fresh interpreters per measurement; the median is reported (one run swings with the page cache).
RUNS = 5

#: Modules that cost from 0.1 s (numpy) to seconds (Qiskit; NetKet with JAX) to import; printing help needs none.
HEAVY = (
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "qiskit",
    "qiskit_aer",
    "netket",
    "jax",
    "numba",
    "matplotlib",
    "snakemake",
)


def cpu_seconds(args, cwd=None):
    """User + system CPU seconds of one ``python args`` run in a child process (its output discarded)."""
    child = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    if child.returncode != 0:
        raise RuntimeError(f"python {' '.join(args)} exited with {child.returncode}")
    return usage.ru_utime + usage.ru_stime


def median_cpu_seconds(args):
    return float(np.median([cpu_seconds(args) for _ in range(RUNS)]))


class CommandLine:
    """``qlsbench --help``, ``qlsbench solvers`` and ``qlsbench solvers hhl`` in fresh interpreters."""

    params = list(COMMANDS)
    param_names = ["command"]
    timeout = 120

    def track_cpu_seconds(self, command):
        return median_cpu_seconds(["-m", "qlsbench", *COMMANDS[command]])

    track_cpu_seconds.unit = "s"

    def track_cpu_ratio_to_bare_interpreter(self, command):
        """The command's CPU time over ``python -c pass``'s: how many interpreter starts it costs."""
        return median_cpu_seconds(["-m", "qlsbench", *COMMANDS[command]]) / median_cpu_seconds(["-c", "pass"])

    track_cpu_ratio_to_bare_interpreter.unit = "x"

    def track_heavy_modules(self, command):
        """How many of :data:`HEAVY` the command imports (0: its budget does not depend on their import times)."""
        script = (
            "import contextlib, io, json, sys\n"
            "from qlsbench.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main({COMMANDS[command]!r})\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
        )
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        return len(json.loads(run.stdout))

    track_heavy_modules.unit = "modules"


class WorkflowDryRun:
    """``snakemake -n`` on the default and the paper config: what every workflow run pays before its first job.

    Snakemake calls the workflow's input and resource functions hundreds of times while it builds one DAG; they
    once built every penalty scene on each call. CPU here: paper.yaml 34 s before, 9.4 s after; the default 13 s, 8.0 s.
    """

    params = ["default", "paper"]
    param_names = ["config"]
    timeout = 300

    def setup_cache(self):
        work = Path(tempfile.mkdtemp(prefix="qlsbench-dag-"))
        repo = Path(__file__).resolve().parents[1]
        shutil.copy(repo / "Snakefile", work)
        shutil.copytree(repo / "workflows", work / "workflows")
        return str(work)

    def _args(self, config):
        extra = [] if config == "default" else ["--configfile", f"workflows/config/{config}.yaml"]
        return ["-m", "snakemake", "-n", "--cores", "2", *extra]

    def track_cpu_seconds(self, work, config):
        return cpu_seconds(self._args(config), cwd=work)

    track_cpu_seconds.unit = "s"

    def track_cpu_ratio_to_bare_interpreter(self, work, config):
        """The dry run's CPU time over ``python -c pass``'s, comparable across machines."""
        return cpu_seconds(self._args(config), cwd=work) / median_cpu_seconds(["-c", "pass"])

    track_cpu_ratio_to_bare_interpreter.unit = "x"
