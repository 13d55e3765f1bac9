"""JAX's persistent compilation cache for VNLS, in a folder per JAX version and CPU.

A process's first VNLS solve compiles about ninety XLA programs (the sampler, the loss and its gradient, the
geometric tensor, the SR step): 22 s of a 29 s first solve of a 2-qubit system here. Every workflow job, solver
worker and test process is a new process, so each paid it again. With the cache the programs are compiled once
per machine and loaded after (the same first solve: 6.8 s), and the executables are the very ones a fresh
compile gives, so no number changes.

``QLSBENCH_JAX_CACHE`` chooses: unset, the folder below ``$XDG_CACHE_HOME`` (``~/.cache``); ``off``, no cache;
anything else, that folder. A cache folder the user gave JAX itself (``JAX_COMPILATION_CACHE_DIR``) is left alone.

An entry that cannot be read back (a bit flipped or a file cut short: its compressed data fails its own
checksum, or XLA refuses it) is removed with one line saying so, and compiled and stored afresh
(:func:`replace_damaged_entries`). JAX alone would warn about it on every run, forever: it compiles the program
again but never overwrites an entry that exists.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import platform
import sys
from pathlib import Path

from qlsbench.environment_variables import turned_off

#: The environment variable that moves or turns off the cache.
ENV = "QLSBENCH_JAX_CACHE"


def cpu_tag() -> str:
    """A short hash of this CPU's model and instruction-set flags.

    XLA compiles for the CPU it runs on; a home folder shared by cluster nodes of different CPUs must not hand
    one node's programs to another (an AVX-512 program dies of SIGILL on a node without it).
    """
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        facts = [line for line in lines if line.split(":")[0].strip() in ("model name", "flags")][:2]
    except OSError:
        facts = [platform.machine(), platform.processor()]
    return hashlib.sha256("\n".join(facts).encode()).hexdigest()[:12]


def cache_folder() -> Path | None:
    """Where this process's JAX programs are kept, or None for no cache (``QLSBENCH_JAX_CACHE=off``)."""
    setting = os.environ.get(ENV, "").strip()
    if turned_off(setting):
        return None
    if setting:
        return Path(setting).expanduser()
    import jax

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "qlsbench" / f"jax-{jax.__version__}-{platform.machine()}-{cpu_tag()}"


@functools.cache
def use_compile_cache() -> Path | None:
    """Point JAX's persistent compilation cache at :func:`cache_folder`, once per process, before any compile.

    Returns the folder in use, or None: turned off, set by the user for JAX already, or not writable (then every
    program is compiled as before; a cache is a saving, never a condition).
    """
    import jax

    if jax.config.values.get("jax_compilation_cache_dir"):
        return None
    folder = cache_folder()
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    jax.config.update("jax_compilation_cache_dir", str(folder))
    # VNLS's programs each compile in 0.1-0.3 s, under JAX's default threshold of 1 s: keep them all.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    replace_damaged_entries(folder)
    return folder


def replace_damaged_entries(folder: Path) -> bool:
    """Have JAX's reads of cache entries in ``folder`` remove an entry they cannot load, so it is written again.

    JAX reads an entry through ``jax._src.compilation_cache.get_executable_and_time`` (decompress, whose
    checksum catches damage, then deserialize); the read is wrapped so that a failure removes the entry's
    files, says so in one line, and reports a miss: JAX compiles the program and stores it afresh, where it
    would otherwise keep the damaged entry and warn on every run.

    Returns
    -------
    bool
        Whether the reads are wrapped (False on a JAX without that function: damaged entries then warn as
        JAX makes them, and the answers are the same).
    """
    from jax._src import compilation_cache

    read = getattr(compilation_cache, "get_executable_and_time", None)
    if read is None:
        return False
    if hasattr(read, "replaces_damaged_in"):  # wrapped already
        return True

    import jax

    @functools.wraps(read)
    def read_or_replace(cache_key: str, *args, **kwargs):
        try:
            return read(cache_key, *args, **kwargs)
        except Exception as exc:  # whatever failed to load, the entry is what is at fault: JAX compiles anew
            if jax.config.values.get("jax_raise_persistent_cache_errors"):  # the user asked JAX to raise
                raise
            _remove_entry(folder, cache_key, exc)
            return None, None

    read_or_replace.replaces_damaged_in = folder  # type: ignore[attr-defined]  # a marker on the installed function
    compilation_cache.get_executable_and_time = read_or_replace
    return True


def _remove_entry(folder: Path, cache_key: str, exc: Exception) -> None:
    """Remove the files of the entry ``cache_key`` (the executable and its access time) and say so."""
    for path in folder.glob(f"{glob.escape(cache_key)}-*"):
        path.unlink(missing_ok=True)  # another process may have removed it first
    print(
        f"qlsbench: JAX cache entry {folder / cache_key} could not be read ({type(exc).__name__}: {exc}); "
        "removed, and stored again once compiled",
        file=sys.stderr,
    )
