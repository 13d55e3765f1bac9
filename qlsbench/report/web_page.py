"""The leaderboard as one self-contained web page: sortable and filterable tables, plots inline, no network.

Everything the page needs is in the file: styles, a few lines of script
(sorting by any column, filtering the ranking by track, family or dataset and
qubit band) and the plots as inline PNG images, so it reads the same from a
file, a web server or a report, offline.
"""

from __future__ import annotations

import base64
import html

import pandas as pd

from qlsbench.bench.ranking import Track
from qlsbench.report.tables import html_inline

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:96em;margin:auto;padding:0 1em;
     color:#1b1f24;line-height:1.4}
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #d0d7de}h3{margin-bottom:.3em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:88%}
th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left}
th{background:#f6f8fa;position:sticky;top:0;cursor:pointer;user-select:none}
th[title]{text-decoration:underline dotted}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
tr:nth-child(even) td{background:#fafbfc}
.filters{display:flex;gap:1.2em;flex-wrap:wrap;align-items:center;margin:.6em 0;padding:.5em .8em;
         background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px}
.filters label{font-size:90%}.intuition{color:#57606a;font-size:92%}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #d0d7de}
figcaption{font-size:90%;color:#57606a}.count{color:#57606a;font-size:90%}
code{background:#f6f8fa;padding:0 .2em}
"""

_SCRIPT = """
function cellValue(td){const v=td.getAttribute('data-value');if(v!==null&&v!==''&&!isNaN(Number(v)))return Number(v);
  return td.textContent.trim().toLowerCase();}
function sortTable(th){const table=th.closest('table');const tbody=table.tBodies[0];
  const index=Array.prototype.indexOf.call(th.parentNode.children,th);
  const ascending=th.getAttribute('aria-sort')!=='ascending';
  table.querySelectorAll('th').forEach(h=>h.removeAttribute('aria-sort'));
  th.setAttribute('aria-sort',ascending?'ascending':'descending');
  const rows=Array.from(tbody.rows);
  rows.sort((a,b)=>{const x=cellValue(a.cells[index]),y=cellValue(b.cells[index]);
    const missing=(v)=>v==='\\u2014';if(missing(x)&&!missing(y))return 1;if(missing(y)&&!missing(x))return -1;
    if(x<y)return ascending?-1:1;if(x>y)return ascending?1:-1;return 0;});
  rows.forEach(r=>tbody.appendChild(r));}
function applyFilters(){const track=document.getElementById('f-track').value;
  const group=document.getElementById('f-group').value;const band=document.getElementById('f-band').value;
  document.querySelectorAll('.track').forEach(div=>{div.hidden=div.dataset.track!==track;});
  document.querySelectorAll('.track tbody tr').forEach(tr=>{
    tr.hidden=!(tr.dataset.group===group&&tr.dataset.band===band);});
  document.querySelectorAll('.track').forEach(div=>{const shown=div.querySelectorAll('tbody tr:not([hidden])').length;
    div.querySelector('.count').textContent=shown+' solver(s) ran a system here';});}
document.addEventListener('DOMContentLoaded',()=>{
  document.querySelectorAll('th').forEach(th=>th.addEventListener('click',()=>sortTable(th)));
  document.querySelectorAll('.filters select').forEach(s=>s.addEventListener('change',applyFilters));
  if(document.getElementById('f-track'))applyFilters();});
"""


def _sort_value(value) -> str:
    """What a cell sorts by: the number it holds, else nothing (then its text)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not pd.isna(value):
        return repr(float(value))
    return ""


def _table(df: pd.DataFrame, raw: pd.DataFrame | None = None, row_attrs: list[dict] | None = None) -> str:
    """An HTML table of display strings; ``raw`` (same shape) gives the numbers cells sort by."""
    tips = df.attrs.get("tooltips", {})
    head = "".join((f"<th title=\"{html.escape(tips[c])}\">" if tips.get(c) else "<th>") + f"{html.escape(str(c))}</th>"
                   for c in df.columns)
    body = []
    for i, row in enumerate(df.itertuples(index=False)):
        attrs = "".join(f" data-{k}=\"{html.escape(str(v))}\"" for k, v in (row_attrs[i] if row_attrs else {}).items())
        cells = []
        for j, value in enumerate(row):
            sort = _sort_value(raw.iat[i, j]) if raw is not None else _sort_value(value)
            cells.append(f"<td data-value=\"{sort}\">{html.escape(str(value))}</td>" if sort else
                         f"<td>{html.escape(str(value))}</td>")
        body.append(f"<tr{attrs}>" + "".join(cells) + "</tr>")
    return f"<div class=\"scroll\"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>{''.join(body)}</tbody>\n</table></div>"


def _ranking(rows: pd.DataFrame, all_tracks: tuple[Track, ...], by: str) -> str:
    """The ranking: one table per track holding every (group, band) view; the filters show one view."""
    from qlsbench.report.leaderboard_page import OVERLAP_NOTE, TRACK_COLUMNS, display_table

    groups = ["all", *sorted(set(rows["group"]) - {"all"})]
    bands = ["all", *[b for b in dict.fromkeys(rows["band"]) if b != "all"]]

    def select(ident: str, label: str, values: list[str]) -> str:
        options = "".join(f"<option value=\"{html.escape(v)}\">{html.escape(v)}</option>" for v in values)
        return f"<label>{label} <select id=\"{ident}\">{options}</select></label>"

    parts = ["<div class=\"filters\">", select("f-track", "track", [t.name for t in all_tracks]),
             select("f-group", by, groups), select("f-band", "qubits", bands), "</div>"]
    for track in all_tracks:
        view = rows[rows["track"] == track.name].reset_index(drop=True)
        columns = [c for c in TRACK_COLUMNS[track.name] if c in view]
        attrs = [{"group": g, "band": b} for g, b in zip(view["group"], view["band"])]
        parts += [f"<div class=\"track\" data-track=\"{track.name}\">",
                  f"<p class=\"intuition\">{html_inline(track.intuition)} Success: {html_inline(track.tol.describe())}."
                  " <span class=\"count\"></span></p>",
                  _table(display_table(view, columns), view[columns], attrs),
                  f"<p class=\"intuition\">{html_inline(OVERLAP_NOTE)}</p>", "</div>"]
    return "\n".join(parts)


def _figure(caption: str, png: bytes) -> str:
    """A PNG figure inline, with its caption."""
    data = base64.b64encode(png).decode()
    return (f"<figure><img alt=\"{html.escape(caption)}\" src=\"data:image/png;base64,{data}\">"
            f"<figcaption>{html_inline(caption)}</figcaption></figure>")


def blocks_html(blocks: list) -> str:
    """Blocks (:mod:`~qlsbench.report.leaderboard_page`) as one self-contained, interactive HTML page."""
    body = []
    title = "qlsbench leaderboard"
    for kind, content in blocks:
        if kind in ("h1", "h2", "h3"):
            title = str(content) if kind == "h1" else title
            body.append(f"<{kind}>{html_inline(str(content))}</{kind}>")
        elif kind == "p":
            body.append(f"<p>{html_inline(str(content))}</p>")
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{html_inline(item)}</li>" for item in content) + "</ul>")
        elif kind == "ranking":
            body.append(_ranking(*content))
        elif kind == "figure":
            body.append(_figure(*content))
        elif kind == "plots":
            body += ["<h2>Plots</h2>", *(_figure(*figure) for _, figure in content)]
        else:
            body.append(_table(content))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style><script>{_SCRIPT}</script></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
