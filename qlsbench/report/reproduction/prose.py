"""The page's prose, read from ``prose.md`` beside this module: De et al.'s claims, what the paper leaves open and
what we chose, what repeats across machines, and the page's header.

The words live in a Markdown file so that they are edited as text, apart from the code that sets numbers beside
them. Each section runs from its marker line (``<!-- prose: NAME -->``) to the next marker.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

#: The prose file, shipped with the package.
PROSE = Path(__file__).with_name("prose.md")
_MARKER = re.compile(r"^<!-- prose: ([\w-]+) -->\n", re.MULTILINE)


@cache
def sections() -> dict[str, str]:
    """Every section of :data:`PROSE` by name, each its text without the blank lines around it."""
    pieces = _MARKER.split(PROSE.read_text(encoding="utf-8"))[1:]
    return {name: body.strip("\n") for name, body in zip(pieces[::2], pieces[1::2])}


def passage(name: str) -> str:
    """Section ``name`` as lines of the page (no newline after its last line)."""
    try:
        return sections()[name]
    except KeyError:
        raise KeyError(f"{PROSE}: no section '<!-- prose: {name} -->' (it has {', '.join(sections())})") from None


def prose(name: str) -> str:
    """Section ``name`` as a block of the page: its text and one newline."""
    return passage(name) + "\n"


__all__ = ["PROSE", "passage", "prose", "sections"]
