"""The leaderboard as one self-contained web page: sortable and filterable tables, interactive plots, no network.

Everything the page needs is in the file: styles, the script
(``static/leaderboard.js``: sorting by any column, filtering the ranking,
the drill-down and the plots by track, family or dataset and qubit band;
drawing the plots as inline SVG) and the plots' data as JSON, so it reads
the same from a file, a web server or a report, offline. The downloads it
links are files written beside it (:func:`~qlsbench.report._page_data.write_downloads`).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import pandas as pd

from qlsbench.bench.ranking import Track
from qlsbench.report._leaderboard_columns import (
    OVERLAP_NOTE,
    TRACK_COLUMNS,
    display_table,
    display_value,
)
from qlsbench.report._tables import Link, html_inline

#: The page's script, inlined into every page.
SCRIPT = Path(__file__).with_name("static") / "leaderboard.js"

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:96em;margin:auto;padding:0 1em;
     color:#1b1f24;line-height:1.4}
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #d0d7de}h3{margin-bottom:.3em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:86%}
th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:right}
.track table{font-size:82%}.track th,.track td{padding:3px 3px}
td[data-value],.track td{white-space:nowrap}td.wrap{text-align:left;min-width:14em;overflow-wrap:anywhere}
th{background:#f6f8fa;cursor:pointer;user-select:none;max-width:8em;vertical-align:bottom}
td:first-child,th:first-child{text-align:left}
th[title]{text-decoration:underline dotted}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
tr:nth-child(even) td{background:#fafbfc}
.filters{display:flex;gap:1.2em;flex-wrap:wrap;align-items:center;margin:.6em 0;padding:.5em .8em;
         background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;position:sticky;top:0;z-index:2}
.filters label{font-size:90%}.intuition{color:#57606a;font-size:92%}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #d0d7de}
figcaption{font-size:90%;color:#57606a}.count,.shown{color:#57606a;font-size:90%}
code{background:#f6f8fa;padding:0 .2em}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:1em}
.plots figure{margin:0}.plots svg{width:100%;height:auto;border:1px solid #d0d7de;background:#fff}
.legend{display:flex;flex-wrap:wrap;gap:.3em .5em;margin:.5em 0}
.legend-item{display:inline-flex;align-items:center;gap:.3em;border:1px solid #d0d7de;border-radius:4px;
             background:#fff;padding:1px 6px;font-size:85%;cursor:pointer}
.legend-item.off{opacity:.35;text-decoration:line-through}
.plot-area{fill:none;stroke:#8c959f}.grid{stroke:#eaeef2}.tick{font-size:11px;fill:#57606a}
.axis-label{font-size:12px;fill:#1b1f24}.plot-title{font-size:13px;font-weight:600;fill:#1b1f24}
.bar-line{stroke:#1b1f24;stroke-dasharray:4 3}.empty{font-size:13px;fill:#57606a}
.swatch svg{vertical-align:-2px;margin-right:.3em}
details.drill{border:1px solid #d0d7de;border-radius:6px;margin:.4em 0;padding:.2em .6em;scroll-margin-top:4em}
details.drill summary{cursor:pointer}details.drill[open] summary{margin-bottom:.3em}
tr.unsolved td{background:#fff1f0}tr.unsolved td:first-child{box-shadow:inset 3px 0 #cf222e}
.downloads{margin:.4em 0}
"""


def _sort_value(value) -> str:
    """What a cell sorts by: the number it holds, else nothing (then its text)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not pd.isna(value):
        return repr(float(value))
    return ""


def _cell_html(value) -> str:
    """A display cell's HTML: its text escaped, a :class:`~qlsbench.report._tables.Link` as a link."""
    if isinstance(value, Link):
        return f'<a href="{html.escape(value.href)}">{html.escape(str(value))}</a>'
    return html.escape(str(value))


def _table(
    df: pd.DataFrame,
    raw: pd.DataFrame | None = None,
    row_attrs: list[dict] | None = None,
    html_cells: dict[str, list[str]] | None = None,
    wrap: tuple[str, ...] = (),
) -> str:
    """An HTML table of display strings; ``raw`` (same shape) gives the numbers cells sort by, ``html_cells`` the
    HTML of whole columns (by name) where plain text will not do, ``wrap`` the columns whose text may wrap."""
    tips = df.attrs.get("tooltips", {})
    head = "".join(
        (f'<th title="{html.escape(tips[c])}">' if tips.get(c) else "<th>") + f"{html.escape(str(c))}</th>"
        for c in df.columns
    )
    html_cells = html_cells or {}
    body = []
    for i, row in enumerate(df.itertuples(index=False)):
        attrs = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in (row_attrs[i] if row_attrs else {}).items())
        cells = []
        for j, (column, value) in enumerate(zip(df.columns, row)):
            sort = _sort_value(raw.iat[i, j]) if raw is not None else _sort_value(value)
            content = html_cells[column][i] if column in html_cells else _cell_html(value)
            attributes = (f' data-value="{sort}"' if sort else "") + (' class="wrap"' if column in wrap else "")
            cells.append(f"<td{attributes}>{content}</td>")
        body.append(f"<tr{attrs}>" + "".join(cells) + "</tr>")
    return (
        f'<div class="scroll"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>{"".join(body)}</tbody>\n</table></div>'
    )


def _solver_link(label: str) -> str:
    """A solver's name linking to its drill-down, with the colour and marker its plots use (drawn by the script)."""
    from qlsbench.report._page_data import slug

    return (
        f'<a class="drill-link" href="#drill-{html.escape(slug(label))}" title="per-system results">'
        f'<span class="swatch" data-solver="{html.escape(label)}"></span>{html.escape(label)}</a>'
    )


def _ranking(rows: pd.DataFrame, all_tracks: tuple[Track, ...], by: str, drill: bool = False) -> str:
    """The ranking: one table per track holding every (group, band) view; the filters show one view. ``drill``
    links each solver to its per-system drill-down."""
    groups = ["all", *sorted(set(rows["group"]) - {"all"})]
    bands = ["all", *[b for b in dict.fromkeys(rows["band"]) if b != "all"]]

    def select(ident: str, label: str, values: list[str]) -> str:
        options = "".join(f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in values)
        return f'<label>{label} <select id="{ident}">{options}</select></label>'

    parts = [
        '<div class="filters">',
        select("f-track", "track", [t.name for t in all_tracks]),
        select("f-group", by, groups),
        select("f-band", "qubits", bands),
        '<span class="count">the ranking, the plots and the per-system results follow these</span>',
        "</div>",
    ]
    for track in all_tracks:
        view = rows[rows["track"] == track.name].reset_index(drop=True)
        columns = [c for c in TRACK_COLUMNS[track.name] if c in view]
        attrs = [{"group": g, "band": b} for g, b in zip(view["group"], view["band"])]
        shown = display_table(view, columns)
        links = {shown.columns[0]: [_solver_link(s) for s in view["solver"]]} if drill else None
        parts += [
            f'<div class="track" data-track="{track.name}">',
            f'<p class="intuition">{html_inline(track.intuition)} Success: {html_inline(track.tol.describe())}.'
            ' <span class="count"></span></p>',
            _table(shown, view[columns], attrs, links),
            f'<p class="intuition">{html_inline(OVERLAP_NOTE)}</p>',
            "</div>",
        ]
    return "\n".join(parts)


#: The interactive plots: (element id, caption).
PLOTS = (
    (
        "plot-profile",
        "Dolan-Moré performance profile: the share of each solver's systems it solved within τ times "
        "the fastest successful time on that system (the selected track's bar).",
    ),
    (
        "plot-qubits",
        "Success rate against qubits: the mean over the systems of each qubit count of the share of "
        "repeats solved at the selected track's bar.",
    ),
    (
        "plot-fidelity",
        "1 − fidelity against the condition number, one marker per (solver, system): the median "
        "fidelity over its repeats (a solve without a solution counts 0); systems a solver only "
        "declined are not drawn.",
    ),
    (
        "plot-budget",
        "Success against budget: the share of systems whose read-out meets the variational bar after k "
        "cost evaluations, best seed solid and median seed dashed; a solve without read-outs counts as "
        "unsolved.",
    ),
)


def _plots(data: dict) -> str:
    """The plots section: the legend, one SVG per plot (drawn by the script from ``data``) and the data."""
    from qlsbench.report._page_data import plot_json

    figures = "".join(
        f'<figure><svg id="{ident}" role="img" aria-label="{html.escape(caption)}"></svg>'
        f"<figcaption>{html_inline(caption)}</figcaption></figure>"
        for ident, caption in PLOTS
        if ident != "plot-budget" or data.get("budget")
    )
    return (
        '<h2 id="plots">Plots</h2>\n<p class="intuition">Drawn in the page from the rows the ranking is '
        'computed from; they follow the filters above (now: <span id="plot-view"></span>). Hover a marker for '
        'its value; click a solver below to hide or show it.</p>\n<div class="legend" id="plot-legend"></div>\n'
        f'<div class="plots">{figures}</div>\n'
        f'<script type="application/json" id="plot-data">{plot_json(data)}</script>'
    )


def _ratio_cell(share: float) -> str:
    """A per-system success cell: ✓ every repeat met the bar, ✗ none did, else the share."""
    if pd.isna(share):
        return "—"
    return "✓" if share >= 1 else "✗" if share <= 0 else f"{share:.2f}"


#: The drill-down's columns: (outcome column, human name, tooltip).
DRILL_COLUMNS = (
    ("name", "system", "the system (its pinned name, else its content hash)"),
    ("group", "group", "the dataset or family it is in"),
    ("n_qubits", "qubits", "qubits (log2 of the padded size)"),
    ("cond", "κ", "condition number"),
    ("statuses", "outcomes", "the status of each repeat, with counts"),
    ("residual", "residual", "median relative residual of the solves that returned a solution"),
    ("fidelity", "fidelity", "median fidelity of the solves that returned a solution"),
    ("measured_ms", "measured time (ms)", "median time of the solves that returned a solution"),
    ("time_limit", "time limit (s)", "the limit the solves ran under"),
    ("message", "message", "the first message of a solve that failed or was declined, else of any solve"),
)


def _drill_summary(label: str, part: pd.DataFrame, info: dict, all_tracks: tuple[Track, ...]) -> str:
    """One solver's summary line: what it failed on each track, its version and where to read about it."""
    missed = ", ".join(f"{int((part[f'success_{t.name}'] < 1).sum())} on the {t.name} track" for t in all_tracks)
    # a system in two groups has a row in each (the filters select groups): then rows are what is counted
    count = f"{len(part)} systems" if part["system_id"].is_unique else f"{len(part)} rows (system, group)"
    links = []
    if info.get("docs"):
        links.append(f'<a href="{html.escape(info["docs"])}">docs</a>')
    if info.get("paper"):
        text, url = info["paper"]
        links.append(f'<a href="{html.escape(url)}" title="{html.escape(text)}">paper</a>')
    about = " · ".join(
        [
            f"<code>{html.escape(info.get('name', ''))}</code>",
            f"qlsbench {html.escape(info.get('versions', '?'))}",
            *links,
        ]
    )
    return (
        f'<summary><span class="swatch" data-solver="{html.escape(label)}"></span><b>{html.escape(label)}</b>'
        f': {count}; not solved: {missed} · {about} · <span class="shown"></span></summary>'
    )


def _drill_table(part: pd.DataFrame, all_tracks: tuple[Track, ...]) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """One solver's drill-down rows: the cells as printed, the values they sort by, and each row's attributes
    (its group and band for the filters, its success on each track for the unsolved marking)."""
    columns = [(c, name, tip) for c, name, tip in DRILL_COLUMNS if c in part]
    bars = {f"{t.name} bar": f"success_{t.name}" for t in all_tracks}
    order = [*columns[:4], *[(c, name, None) for name, c in bars.items()], *columns[4:]]
    shown = pd.DataFrame(
        {name: [_ratio_cell(v) if name in bars else display_value(c, v) for v in part[c]] for c, name, _ in order}
    )
    shown.attrs["tooltips"] = {
        **{name: tip for _, name, tip in columns},
        **{f"{t.name} bar": f"met the {t.name} track's bar: {t.tol.describe()}" for t in all_tracks},
    }
    raw = pd.DataFrame({name: part[c] for c, name, _ in order})
    attrs = [{"group": g, "band": b} for g, b in zip(part["group"], part["band"])]
    for t in all_tracks:
        for row, share in zip(attrs, part[f"success_{t.name}"]):
            row[t.name] = f"{share:g}"
    return shown, raw, attrs


def _drilldown(rows: pd.DataFrame, solvers: dict[str, dict], all_tracks: tuple[Track, ...]) -> str:
    """Per solver a ``<details>`` (opened from the ranking) listing every system it ran: how each went."""
    from qlsbench.report._page_data import slug

    parts = [
        '<h2 id="drilldown">Per-system results</h2>',
        '<p class="intuition">Every system each solver ran and how it went: ✓ every repeat met the track\'s bar, '
        "✗ none did, a share where some did; unsolved rows (at the selected track) are marked. Open one with "
        "the solver's name here or in the ranking.</p>",
        '<p><label><input type="checkbox" id="f-unsolved"> only the systems not solved at the selected '
        "track's bar</label></p>",
    ]
    for label, part in rows.groupby("solver", sort=True):
        part = part.reset_index(drop=True)
        shown, raw, attrs = _drill_table(part, all_tracks)
        name = html.escape(label)
        parts += [
            f'<details class="drill" id="drill-{html.escape(slug(label))}" data-solver="{name}">',
            _drill_summary(label, part, solvers.get(label, {}), all_tracks),
            _table(shown, raw, attrs, wrap=("message", "outcomes")),
            "</details>",
        ]
    return "\n".join(parts)


def _downloads(content: tuple[str, list[tuple[str, str, str]]]) -> str:
    """One line of links to the files written beside the page: a lead-in, then (label, relative href, what)."""
    lead, files = content
    links = " · ".join(
        f'<a href="{html.escape(href)}" download>{html.escape(label)}</a> ({html.escape(what)})'
        for label, href, what in files
    )
    return f'<p class="downloads"><b>Downloads</b>: {links}. {html_inline(lead)}</p>'


def _figure(caption: str, png: bytes) -> str:
    """A PNG figure inline, with its caption."""
    data = base64.b64encode(png).decode()
    return (
        f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html_inline(caption)}</figcaption></figure>"
    )


def blocks_html(blocks: list) -> str:
    """Blocks (:mod:`~qlsbench.report._leaderboard_page`) as one self-contained, interactive HTML page."""
    body = []
    title = "qlsbench leaderboard"
    drill = any(kind == "drilldown" for kind, _ in blocks)
    for kind, content in blocks:
        if kind in ("h1", "h2", "h3"):
            title = str(content) if kind == "h1" else title
            body.append(f"<{kind}>{html_inline(str(content))}</{kind}>")
        elif kind == "p":
            body.append(f"<p>{html_inline(str(content))}</p>")
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{html_inline(item)}</li>" for item in content) + "</ul>")
        elif kind == "ranking":
            rows, all_tracks, by = content
            body.append(_ranking(rows, all_tracks, by, drill=drill))
        elif kind == "figure":
            body.append(_figure(*content))
        elif kind == "plots":
            body.append(_plots(content))
        elif kind == "drilldown":
            body.append(_drilldown(*content))
        elif kind == "downloads":
            body.append(_downloads(content))
        else:
            body.append(_table(content))
    script = SCRIPT.read_text(encoding="utf-8")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style><script>{script}</script></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
