"""What every figure needs: a headless backend and an atomic save."""

from __future__ import annotations

import os
from pathlib import Path


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend (workflows run headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, out: str | os.PathLike) -> Path:
    """Write ``fig`` to ``out`` through a temporary file, so no half-written image is left; close it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
    try:
        fig.savefig(tmp, dpi=120)
    finally:
        pyplot().close(fig)
    os.replace(tmp, out)
    return out
