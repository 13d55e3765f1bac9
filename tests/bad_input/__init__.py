"""Tables of bad-input cases for ``tests/test_bad_input.py``, one module per area.

Each area module holds ``CASES`` (name -> :class:`Case`) and ``MAKERS`` (placeholder -> function writing an
input file under the test's temporary folder). An argument ``{name}`` in a case's ``argv`` is replaced by
the path a maker of that name returned, or by one of the built-in placeholders:

- ``{tmp}``: the test's temporary folder (every output a case names must go below it);
- ``{data}``: a small valid Ising dataset file (n = 2, 3, 4) below ``{tmp}``.

The harness checks that ``qlsbench`` exits with ``code``, prints exactly one line on stderr that starts with
``qlsbench`` and contains ``culprit``, prints no traceback, and that no file below ``{tmp}`` was added,
removed or changed (hidden ones included).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]

#: A maker writes one input file (or folder) below ``tmp`` and returns its path; ``data`` is the valid dataset.
Maker = Callable[[Path, Path], Path]


@dataclass(frozen=True)
class Case:
    """One bad input: the command line, the text its error line must contain, and where it runs.

    Parameters
    ----------
    argv : list of str
        Arguments of ``qlsbench``, with ``{placeholder}`` fields.
    culprit : str
        Text the one error line must contain (the file, field, system or option at fault).
    cwd : str
        ``"workflow"`` (the default: a copy of the clone's ``Snakefile`` and ``workflows/`` and nothing else,
        since ``check-config`` merges over ``workflows/config/default.yaml``) or ``"tmp"`` (``module:Class``
        plug-ins written by a maker are imported from the current folder).
    code : int
        Expected exit code.
    """

    argv: list[str]
    culprit: str
    cwd: str = "workflow"
    code: int = 2


def config_maker(change: Callable[[dict], None], name: str = "bad.yaml") -> Maker:
    """A maker writing ``workflows/config/default.yaml`` after ``change`` was applied to it."""

    def make(tmp: Path, data: Path) -> Path:
        config = yaml.safe_load((REPO / "workflows" / "config" / "default.yaml").read_text())
        change(config)
        path = tmp / name
        path.write_text(yaml.safe_dump(config))
        return path

    return make


def text_maker(name: str, text: str) -> Maker:
    """A maker writing ``text`` to ``tmp/name``."""

    def make(tmp: Path, data: Path) -> Path:
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    return make
