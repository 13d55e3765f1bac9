"""Where a long run in the simulation loop saves itself between steps, so a killed run resumes.

A VNLS run through a contact-rich 16-sphere pile takes hours; one killed near its end must not start again
from step 0. Between steps, :func:`~qlsbench.bench.in_loop.run_in_loop` hands its whole state (both worlds,
the loop solver's counters and warm-start state, the rows so far) to a :class:`Checkpoint`, which pickles it
atomically beside the results file. A run started again with the same checkpoint continues from the step
after the saved one, and gives the rows it would have given uninterrupted: the solver's seed for each solve
is the run's seed plus the solves so far, which the checkpoint keeps. A finished run's checkpoint holds its
result, so a sweep of many seeds resumes at the first unfinished one. The results file's writer removes the
checkpoints once the file holds their runs.

A checkpoint is a pickle: read only your own (it runs code when loaded), and with the qlsbench that wrote it.
"""

from __future__ import annotations

import json
import pickle
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qlsbench.data import atomic_write
from qlsbench.errors import InputError

#: Bumped when what a checkpoint holds changes: an older one is refused, not misread.
CHECKPOINT_VERSION = 1


def run_key(options: dict, solver_name: str, solver_options: dict, seed: int) -> str:
    """What identifies a run: a checkpoint is only resumed by the same options, solver and seed."""
    from qlsbench.bench.results import jsonable

    return json.dumps({"options": options, "solver": solver_name, "solver_options": solver_options, "seed": seed},
                      sort_keys=True, default=jsonable)


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
        """The saved state of the run ``key``, or ``None`` when there is none.

        Raises
        ------
        InputError
            Naming the file, when it holds another run or another version's state.
        """
        if not self.path.exists():
            return None
        try:
            with open(self.path, "rb") as f:
                saved = pickle.load(f)
        except Exception as exc:  # a truncated or foreign file: say which, and how to start afresh
            raise InputError(f"{self.path}: not a readable in-loop checkpoint ({type(exc).__name__}: {exc}); remove "
                             "it to run from the first step") from None
        if not isinstance(saved, dict) or saved.get("version") != CHECKPOINT_VERSION:
            raise InputError(f"{self.path}: a checkpoint of another qlsbench version; remove it to run from the "
                             "first step")
        if saved["key"] != key:
            raise InputError(f"{self.path}: the checkpoint of another run (its options, solver or seed differ); "
                             "remove it to run from the first step")
        return saved

    def save(self, key: str, state: dict[str, Any], *, force: bool = False) -> bool:
        """Save ``state`` (atomically) if ``every`` seconds have passed since the last save, or if ``force``."""
        if not force and time.monotonic() - self._saved_at < self.every:
            return False
        payload = pickle.dumps({"version": CHECKPOINT_VERSION, "key": key, **state}, protocol=pickle.HIGHEST_PROTOCOL)
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
