"""Where to read about a solver: its section of ``docs/solvers.md`` and the paper it comes from.

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

#: The paper of each built-in solver: (short citation, URL).
PAPERS: dict[str, tuple[str, str]] = {
    "lu": ("Anderson et al., LAPACK Users' Guide (1999)", "https://www.netlib.org/lapack/lug/"),
    "splu": ("Li, ACM TOMS 31, 302 (2005)", "https://doi.org/10.1145/1089014.1089017"),
    "cg": ("Hestenes & Stiefel, J. Res. NBS 49, 409 (1952)", "https://doi.org/10.6028/jres.049.044"),
    "minres": ("Paige & Saunders, SIAM J. Numer. Anal. 12, 617 (1975)", "https://doi.org/10.1137/0712047"),
    "gmres": ("Saad & Schultz, SIAM J. Sci. Stat. Comput. 7, 856 (1986)", "https://doi.org/10.1137/0907058"),
    "bicgstab": ("van der Vorst, SIAM J. Sci. Stat. Comput. 13, 631 (1992)", "https://doi.org/10.1137/0913035"),
    "vqls-global": ("Bravo-Prieto et al., Quantum 7, 1188 (2023)", "https://doi.org/10.22331/q-2023-11-22-1188"),
    "vqls-local": ("Bravo-Prieto et al., Quantum 7, 1188 (2023)", "https://doi.org/10.22331/q-2023-11-22-1188"),
    "vnls": ("De et al., arXiv:2504.08141 (2025)", "https://arxiv.org/abs/2504.08141"),
    "hhl": ("Harrow, Hassidim & Lloyd, PRL 103, 150502 (2009)", "https://doi.org/10.1103/PhysRevLett.103.150502"),
    "qsvt": ("Gilyen, Su, Low & Wiebe, STOC 2019, 193", "https://doi.org/10.1145/3313276.3316366"),
}


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
    anchors = docs_anchors(docs)
    where = Path(os.path.relpath(docs, Path(page_folder).resolve())).as_posix() if anchors else None
    return {name: SolverLinks(f"{where}#{anchors[name]}" if name in anchors else None, PAPERS.get(name))
            for name in names}
