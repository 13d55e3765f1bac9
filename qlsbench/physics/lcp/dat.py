"""Reader of the classic LCP test problems Siconos ships as ``.dat`` dumps."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from qlsbench.errors import DatasetError, InputError
from qlsbench.physics.lcp.problem import LCP


def read_lcp_dat(path) -> LCP:
    """Read a classic LCP test problem written by Siconos (``lcp_*.dat``).

    Layout (Siconos ``LinearComplementarityProblem`` dump): the size ``n``; then
    a dense ``NumericsMatrix``: storage type ``0``, ``size0``, ``size1``, the
    pair ``size0 size1`` again, and the ``n*n`` entries in column-major order
    (so each printed line is a *column* of ``M``); then ``q``. Anything after
    ``q`` (remarks, references) is ignored.

    Parameters
    ----------
    path : str or path-like
        The ``.dat`` file.

    Returns
    -------
    LCP
        ``LCP(M, q)``.

    Raises
    ------
    DatasetError
        If the file is missing, not a dense dump, or has too few numbers.
    """
    path = Path(path)
    try:
        tokens = path.read_text().split()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read LCP file ({exc})") from exc
    header = _dat_ints(tokens[:6], path)
    n, storage, size0, size1, rep0, rep1 = header
    if storage != 0:
        raise DatasetError(f"{path}: matrix storage type {storage} is not dense (0)")
    if n < 1 or not (size0 == size1 == rep0 == rep1 == n):
        raise DatasetError(f"{path}: header sizes {header} are inconsistent with n = {n}")
    values = _dat_floats(tokens[6 : 6 + n * n + n], n * n + n, path)
    M = values[: n * n].reshape((n, n), order="F")
    try:
        return LCP(M, values[n * n :])
    except InputError as exc:
        raise DatasetError(f"{path}: {exc}") from exc


def _dat_ints(tokens: list[str], path: Path) -> list[int]:
    if len(tokens) < 6:
        raise DatasetError(f"{path}: header needs 6 integers (n, storage, size0, size1, size0, size1)")
    try:
        return [int(t) for t in tokens]
    except ValueError as exc:
        raise DatasetError(f"{path}: header is not integer ({exc})") from exc


def _dat_floats(tokens: list[str], count: int, path: Path) -> np.ndarray:
    if len(tokens) < count:
        raise DatasetError(f"{path}: expected {count} numbers for M and q, found {len(tokens)}")
    try:
        return np.array([float(t) for t in tokens])
    except ValueError as exc:
        raise DatasetError(f"{path}: non-numeric entry in M or q ({exc})") from exc
