"""Figures drawn into a folder of their own first, so a page command that fails leaves no half-written folder.

A page draws several figures and then writes its text; any of them may fail
(a bad input file found late, a figure that cannot be drawn). Drawn straight
into ``figures/``, a failure left a new empty folder, or an old folder whose
figures were half replaced. :func:`staged` hands the drawing a temporary
folder beside the target and moves the figures in only when the block ends
without error; the page text is written after that.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from qlsbench.outputs import owned_temporary_folder


@contextlib.contextmanager
def staged(folder: str | os.PathLike) -> Iterator[Path]:
    """A temporary folder beside ``folder`` to draw into; its files replace theirs in ``folder`` on success.

    On an exception the temporary folder is removed and ``folder`` is as it was (not created if it did not
    exist).
    """
    folder = Path(folder)
    parent = folder.parent
    created = [p for p in (parent, *parent.parents) if not p.exists()]
    parent.mkdir(parents=True, exist_ok=True)
    tmp = owned_temporary_folder(parent, f".{folder.name}.")
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for p in created:  # the folders made for it, innermost first, if nothing else was put there
            with contextlib.suppress(OSError):
                p.rmdir()
        raise
    folder.mkdir(parents=True, exist_ok=True)
    for item in sorted(tmp.rglob("*")):
        if item.is_file():
            target = folder / item.relative_to(tmp)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(item, target)
    shutil.rmtree(tmp, ignore_errors=True)
