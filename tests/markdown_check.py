"""Markdown as GitHub renders it (CommonMark + GFM tables, via markdown-it-py): tables and their rows."""

from __future__ import annotations

import re


def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def tables(body: str) -> list[dict]:
    """Each table as the renderer builds it: header cells, body rows' cells, and its source lines."""
    tokens = _parser().parse(body)
    lines = body.splitlines()
    tables, current, section, row = [], None, None, None
    for token in tokens:
        if token.type == "table_open":
            current = {"header": [], "rows": [], "source": lines[token.map[0] : token.map[1]]}
        elif token.type in ("thead_open", "tbody_open"):
            section = token.type
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(token.content)
        elif token.type == "tr_close":
            if section == "thead_open":
                current["header"] = row
            else:
                current["rows"].append(row)
            row = None
        elif token.type == "table_close":
            tables.append(current)
    return tables


def cells(line: str) -> int:
    """Cells of a GFM table line: split on pipes not escaped (a pipe in a code span splits too)."""
    return len(re.split(r"(?<!\\)\|", line.strip().strip("|")))


def assert_tables_render_whole(body: str) -> None:
    """Every table row has its header's cell count, and no paragraph starts with a pipe.

    A row with an unescaped pipe in a cell (``|0⟩``) splits into one cell too many and the renderer drops the
    rest; a blank line inside a table leaves the rows after it as a paragraph of raw pipes.
    """
    for table in tables(body):
        width = len(table["header"])
        for line in table["source"]:
            assert cells(line) == width, f"a row splits into {cells(line)} cells, its header {width}: {line[:80]}"
    tokens = _parser().parse(body)
    for i, token in enumerate(tokens):
        if token.type == "paragraph_open":
            assert not tokens[i + 1].content.lstrip().startswith("|"), tokens[i + 1].content[:80]
