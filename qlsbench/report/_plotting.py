"""What every figure needs: a headless backend and an atomic save."""

from __future__ import annotations

import os
from pathlib import Path

from qlsbench.data import atomic_write


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend (workflows run headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, out: str | os.PathLike, tight: bool = False) -> Path:
    """Write ``fig`` to ``out`` through a temporary file, so no half-written image is left; close it.

    ``tight`` grows the image to hold everything drawn, a legend placed outside the panels included.
    """
    out = Path(out)
    extent = {"bbox_inches": "tight", "pad_inches": 0.1} if tight else {}
    try:
        return atomic_write(
            out, lambda tmp: fig.savefig(tmp, dpi=120, format=out.suffix.lstrip(".") or "png", **extent)
        )
    finally:
        pyplot().close(fig)
