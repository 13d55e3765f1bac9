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


def machine_info() -> dict[str, str]:
    """CPU, cores, memory, OS, Python and the current UTC date."""
    mem = _memory_gib()
    return {
        "cpu": _cpu_model(),
        "cores": str(os.cpu_count()),
        "memory": f"{mem:.1f} GiB" if mem else "unknown",
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
