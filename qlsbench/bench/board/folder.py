"""A board on disk: its configuration, pinned set, manifest, published results and submissions, by path.

Every other part of the board (:mod:`~qlsbench.bench.board.pinning`,
:mod:`~qlsbench.bench.board.running`, :mod:`~qlsbench.bench.board.comparing`,
:mod:`~qlsbench.bench.board.submissions`) reads and writes a :class:`Board`'s
files through it; the pinned set's files are checked against its manifest by
:mod:`qlsbench.data._pinned`, the one check of a pinned set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlsbench.data._pinned import PINNED, group_file, pinned_files, read_manifest
from qlsbench.errors import InputError
from qlsbench.yaml_files import load_yaml

#: The board shipped with the package.
DEFAULT_BOARD = PINNED
#: Columns the published results leave out: solutions are large and nobody ranks by them.
UNPUBLISHED = ("x", "x_imag")


@dataclass(frozen=True)
class Board:
    """A board folder: ``board.yaml``, ``systems/<group>.parquet``, ``manifest.json``, ``results.parquet``."""

    folder: Path = DEFAULT_BOARD

    @property
    def config(self) -> dict[str, Any]:
        return load_yaml(self.folder / "board.yaml", "board configuration", error=InputError)

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    @property
    def results_path(self) -> Path:
        return self.folder / "results.parquet"

    @property
    def submissions_folder(self) -> Path:
        """The published submissions: files accepted upstream (a pull request adding one here, checked by
        ``qlsbench board verify``). ``qlsbench board add`` never writes here; it keeps a self-submitted file in
        a folder of the user's (:data:`~qlsbench.bench.board.submissions.LOCAL_SUBMISSIONS`)."""
        return self.folder / "submissions"

    def submission_files(self) -> list[Path]:
        return sorted(self.submissions_folder.glob("*.parquet")) if self.submissions_folder.exists() else []

    def system_file(self, group: str) -> Path:
        return group_file(self.folder, group)

    def manifest(self) -> dict[str, Any]:
        """The pinned set's manifest; a clear error when the set was never pinned."""
        return read_manifest(self.folder)

    def pinned_files(self) -> dict[str, Path]:
        """The pinned set's files by group, every system checked against the manifest
        (:func:`qlsbench.data._pinned.pinned_files`, the one check of a pinned set)."""
        return pinned_files(self.folder)


#: The shipped board: what a function taking a board works on when given none.
SHIPPED = Board()
