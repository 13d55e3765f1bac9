"""Where to read about a solver: its section of ``docs/solvers.md`` and the paper it comes from.

The paper is the solver's record's (:func:`qlsbench.solvers.registry.paper_of`: a built-in's
:attr:`~qlsbench.solvers.registry.Builtin.paper`, a plug-in's class attribute ``paper``).

The section is found in the documentation itself (the heading that names the
solver in backticks), so a renamed heading cannot leave a dead anchor behind;
an installed package without the documentation gives no docs link.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

#: ``docs/solvers.md`` of a source checkout (absent from an installed wheel).
SOLVER_DOCS = Path(__file__).resolve().parents[2] / "docs" / "solvers.md"


@dataclass(frozen=True)
class SolverLinks:
    """A solver's documentation link (relative to the page) and paper; ``None`` where there is none."""

    docs: str | None
    paper: tuple[str, str] | None


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def docs_anchors(docs: Path = SOLVER_DOCS) -> dict[str, str]:
    """Each solver name a ``##`` heading of ``docs`` names in backticks, with that heading's anchor."""
    if not docs.is_file():
        return {}
    anchors: dict[str, str] = {}
    for line in docs.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            for name in re.findall(r"`([^`]+)`", line):
                anchors.setdefault(name, github_anchor(line[3:]))
    return anchors


def solver_links(names, page_folder: str | os.PathLike, docs: Path = SOLVER_DOCS) -> dict[str, SolverLinks]:
    """Links for each registered solver name, the docs link relative to the page's folder."""
    from qlsbench.solvers.registry import paper_of

    anchors = docs_anchors(docs)
    where = Path(os.path.relpath(docs, Path(page_folder).resolve())).as_posix() if anchors else None
    return {
        name: SolverLinks(f"{where}#{anchors[name]}" if name in anchors else None, paper_of(name)) for name in names
    }
