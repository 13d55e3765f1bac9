"""Where a long run in the simulation loop saves itself between steps, so a killed run resumes.

A VNLS run through a contact-rich 16-sphere pile takes hours; one killed near its end must not start again
from step 0. Between steps, :func:`~qlsbench.bench.in_loop.run_in_loop` hands its whole state (both worlds,
the loop solver's counters and warm-start state, the rows so far) to a :class:`Checkpoint`, which pickles it
atomically beside the results file. A run started again with the same checkpoint continues from the step
after the saved one, and gives the rows it would have given uninterrupted: the solver's seed for each solve
is the run's seed plus the solves so far, which the checkpoint keeps. A finished run's checkpoint holds its
result, so a sweep of many seeds resumes at the first unfinished one. The results file's writer removes the
checkpoints once the file holds their runs.

A checkpoint is a line naming its format and the sha256 of what follows, then a pickle. A file whose pickle
does not match its line (a write cut short, a disk's damage, an edit by hand), or that has no such line (an
older qlsbench's), is never taken: one line names it, and the run starts again from its first step, to the rows
it would have given. The checksum guards against damage, not against a forger; a pickle runs code when loaded,
so read only your own, with the qlsbench that wrote it.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qlsbench.data import atomic_write
from qlsbench.errors import InputError

#: Bumped when what a checkpoint holds changes: an older one is not used, not misread.
CHECKPOINT_VERSION = 2
#: A checkpoint's first line: this, its version and ``sha256=<hex digest of the pickle after the line>``.
MAGIC = b"qlsbench-checkpoint"


class _Damaged(Exception):
    """A checkpoint that cannot be trusted, and why (the words after the file's name)."""


def _framed(payload: bytes) -> bytes:
    """``payload`` behind the line that lets a reader verify it (:data:`MAGIC`, version, sha256)."""
    digest = hashlib.sha256(payload).hexdigest().encode()
    return b"%s %d sha256=%s\n" % (MAGIC, CHECKPOINT_VERSION, digest) + payload


def _unframed(data: bytes) -> bytes:
    """The payload of a checkpoint's bytes, verified against its first line.

    Raises
    ------
    _Damaged
        When there is no such line, it names another version, or the payload's sha256 differs from it.
    """
    head, newline, payload = data.partition(b"\n")
    words = head.split(b" ")
    if not newline or len(words) != 3 or words[0] != MAGIC or not words[2].startswith(b"sha256="):
        raise _Damaged("no checksum line (damaged, or written by an older qlsbench)")
    if words[1] != str(CHECKPOINT_VERSION).encode():
        raise _Damaged(f"format {words[1].decode(errors='replace')!r}, not {CHECKPOINT_VERSION} (another qlsbench)")
    if hashlib.sha256(payload).hexdigest().encode() != words[2].removeprefix(b"sha256="):
        raise _Damaged("its contents do not match their checksum (damaged or edited since written)")
    return payload


def run_key(options: dict, solver_name: str, solver_options: dict, seed: int) -> str:
    """What identifies a run: a checkpoint is only resumed by the same options, solver and seed."""
    from qlsbench.bench._results import jsonable

    return json.dumps(
        {"options": options, "solver": solver_name, "solver_options": solver_options, "seed": seed},
        sort_keys=True,
        default=jsonable,
    )


@dataclass
class Checkpoint:
    """A run's state on disk, saved at most every ``every`` seconds of wall clock (and when it finishes).

    Attributes
    ----------
    path : Path
        The pickle file.
    every : float
        Seconds between saves; a fast run (GMRES at milliseconds a step) is not slowed by its own saving.
    """

    path: Path
    every: float = 30.0
    _saved_at: float = field(default=0.0, repr=False)

    def __post_init__(self):
        self.path = Path(self.path)
        self._saved_at = time.monotonic()

    def load(self, key: str) -> dict[str, Any] | None:
        """The saved state of the run ``key``, or ``None`` when there is none or it cannot be trusted.

        A file that fails its checksum or cannot be unpickled is removed, with one line on standard error
        naming it, and the run starts from its first step: it is never taken.

        Raises
        ------
        InputError
            Naming the file, when it holds another run (its options, solver or seed differ).
        """
        if not self.path.exists():
            return None
        try:
            saved = pickle.loads(_unframed(self.path.read_bytes()))
            if not isinstance(saved, dict) or "key" not in saved:
                raise _Damaged("not an in-loop checkpoint")
        except _Damaged as exc:
            self._discard(str(exc))
            return None
        except Exception as exc:  # verified, yet it does not unpickle: classes it names have moved since
            self._discard(f"unreadable ({type(exc).__name__}: {exc})")
            return None
        if saved["key"] != key:
            raise InputError(
                f"{self.path}: the checkpoint of another run (its options, solver or seed differ); "
                "remove it to run from the first step"
            )
        return saved

    def _discard(self, why: str) -> None:
        """Say in one line that the checkpoint is not used and why, and remove it: the run starts afresh."""
        print(f"qlsbench: {self.path}: {why}; not used, the run starts again from its first step", file=sys.stderr)
        self.path.unlink(missing_ok=True)

    def save(self, key: str, state: dict[str, Any], *, force: bool = False) -> bool:
        """Save ``state`` (atomically) if ``every`` seconds have passed since the last save, or if ``force``."""
        if not force and time.monotonic() - self._saved_at < self.every:
            return False
        payload = _framed(pickle.dumps({"key": key, **state}, protocol=pickle.HIGHEST_PROTOCOL))
        atomic_write(self.path, lambda tmp: tmp.write_bytes(payload))
        self._saved_at = time.monotonic()
        return True

    def remove(self) -> None:
        """Remove the file (once the results file holds the run)."""
        self.path.unlink(missing_ok=True)


def checkpoint_path(out: str | Path, label: str, seed: int, fidelity: float | None = None) -> Path:
    """The checkpoint of one run of the in-loop results file ``out``: a hidden file beside it."""
    out = Path(out)
    level = "" if fidelity is None else f".fidelity-{fidelity:g}"
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", label)  # a label with options in it stays one file name
    return out.parent / f".{out.name}.{label}{level}.seed-{seed}.checkpoint"
