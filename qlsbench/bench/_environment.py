"""Describe the machine and software a benchmark ran on."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version

#: Packages whose versions a leaderboard header names.
PACKAGES = ("qlsbench", "numpy", "scipy", "pandas", "pyarrow", "qiskit", "qiskit-aer", "netket", "jax")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return None


def package_versions() -> dict[str, str]:
    """Installed versions of :data:`PACKAGES` (``"absent"`` if not installed)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "absent"
    return out


#: Environment variables that choose a BLAS kernel or its threads: a seed that gives another number on another
#: machine is explained by these (OpenBLAS picks its kernel by CPU unless told, and sums in kernel order).
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def blas_pools() -> list[dict]:
    """threadpoolctl's record of each BLAS loaded once numpy and scipy are (each loads its own OpenBLAS)."""
    import numpy  # noqa: F401  (loads the BLAS threadpoolctl reports)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    return [pool for pool in threadpool_info() if pool.get("user_api") == "blas"]


def blas_info() -> str:
    """Each BLAS loaded, as ``library version (kernel, N threads)``, and the :data:`BLAS_VARIABLES` set."""
    libraries = sorted(
        {
            f"{pool.get('internal_api')} {pool.get('version')} ({pool.get('architecture', '?')}, "
            f"{pool.get('num_threads')} threads)"
            for pool in blas_pools()
        }
    )
    set_here = [f"{name}={os.environ[name]}" for name in BLAS_VARIABLES if name in os.environ]
    return "; ".join(libraries or ["none found"]) + (f"; {' '.join(set_here)}" if set_here else "")


def machine_info() -> dict[str, str]:
    """CPU, cores, memory, OS, Python, the BLAS with its kernel and threads, and the current UTC date."""
    mem = _memory_gib()
    return {
        "cpu": _cpu_model(),
        "cores": str(os.cpu_count()),
        "memory": f"{mem:.1f} GiB" if mem else "unknown",
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "python": platform.python_version(),
        "blas": blas_info(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
