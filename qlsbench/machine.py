"""What this machine lets the process use: memory, stated before work that needs more is started.

A bound on an option says what qlsbench can do; whether this machine can is another matter (a 50,000-sphere pile
fits a 24 GiB machine, not a shell under ``ulimit -v 4000000``). :func:`memory_limit` is the smallest of what
limits the process: the address-space limit (``ulimit -v``), the cgroup's ``memory.max`` (a container, a batch
job) and the memory the kernel says is available now. :func:`check_memory` refuses in one line an estimate above
it, naming both and what sets the limit.
"""

from __future__ import annotations

import resource
from pathlib import Path

from qlsbench.errors import InputError

GIB = 1024.0**3


def _kib_field(path: str, key: str) -> int | None:
    """A ``Key:  N kB`` line of a ``/proc`` file, in bytes; ``None`` where it cannot be read."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_max() -> int | None:
    """The cgroup v2 ``memory.max`` of this process, less what the cgroup already uses; ``None`` when unlimited."""
    try:
        line = Path("/proc/self/cgroup").read_text().splitlines()[0]
        folder = Path("/sys/fs/cgroup") / line.rpartition(":")[2].lstrip("/")
        limit = (folder / "memory.max").read_text().strip()
        used = int((folder / "memory.current").read_text().strip())
    except (OSError, ValueError, IndexError):
        return None
    return None if limit == "max" else max(0, int(limit) - used)


def memory_limit() -> tuple[float, str] | None:
    """The bytes this process may still take, and what sets that; ``None`` where nothing can be read.

    The address-space limit counts the address space already mapped (libraries, thread stacks); the others count
    resident memory, so each is taken as the room it leaves from here.
    """
    found: list[tuple[float, str]] = []
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft != resource.RLIM_INFINITY:
        # the address space already mapped (libraries, thread stacks) counts against it
        mapped = _kib_field("/proc/self/status", "VmSize") or 0
        found.append((max(0.0, float(soft - mapped)), "the address-space limit (ulimit -v)"))
    cgroup = _cgroup_max()
    if cgroup is not None:
        found.append((float(cgroup), "the cgroup's memory.max"))
    available = _kib_field("/proc/meminfo", "MemAvailable")
    if available is not None:
        found.append((float(available), "the memory available now (MemAvailable)"))
    return min(found) if found else None


def check_memory(estimate: float, what: str) -> None:
    """Refuse, in one line, work estimated to need more than :func:`memory_limit` leaves.

    Raises
    ------
    InputError
        Naming ``what``, its estimate and the limit with what sets it.
    """
    limit = memory_limit()
    if limit is not None and estimate > limit[0]:
        raise InputError(
            f"{what} needs about {estimate / GIB:,.1f} GiB of memory; this process may take "
            f"{limit[0] / GIB:,.1f} GiB more ({limit[1]}): use fewer or smaller parts, or a larger machine"
        )


__all__ = ["GIB", "check_memory", "memory_limit"]
