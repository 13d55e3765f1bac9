"""One table writer for every page of the report: Markdown pipe tables and HTML tables, the same cells.

Floats are formatted once (``floatfmt``), NaN is a blank cell, and the inline
Markdown we write in headers and cells (``**bold**``, backticks) becomes HTML.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd


class Link(str):
    """A cell's text with where it points: Markdown tables write ``[text](href)``, HTML tables a link."""

    href: str

    def __new__(cls, text: str, href: str) -> Link:
        link = super().__new__(cls, text)
        link.href = href
        return link


def cell(v, floatfmt: str = ".3g") -> str:
    """One cell's text: floats by ``floatfmt``, NaN blank, a :class:`Link` as ``[text](href)``, anything else as
    ``str``."""
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else format(v, floatfmt)
    if isinstance(v, Link):
        return f"[{v}]({v.href})"
    return str(v)


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3g") -> str:
    """A pipe table of ``df`` (blank cells for NaN)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v, floatfmt) for v in row) + " |")
    return "\n".join(lines)


def html_inline(text: str) -> str:
    """The Markdown we write inline (``**bold**``, backticks) as HTML."""
    text = html.escape(text, quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)
