"""The leaderboard page: two tracks, per family and qubit band, resources, seeds, datasets, options, plots.

One list of blocks, rendered as Markdown (for diffs) or as one self-contained
HTML page (:mod:`~qlsbench.report._web_page`: sortable, filterable, plots
inline, readable offline); the numbers come from :mod:`qlsbench.bench.ranking`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from qlsbench.bench._environment import machine_info, package_versions
from qlsbench.bench._results import load_results
from qlsbench.bench.ranking import (
    LOW_ACCURACY,
    NULL_B,
    Tolerances,
    Track,
    band_tables,
    leaderboard,
    ranking_rows,
    resource_table,
    seed_table,
    success_by_dataset,
    tracks,
)
from qlsbench.checks import FRACTION, POSITIVE
from qlsbench.data import atomic_write_text
from qlsbench.options import Options, option
from qlsbench.report._base import Figure
from qlsbench.report._leaderboard_columns import (
    OVERLAP_NOTE,
    TRACK_COLUMNS,
    display_table,
    interval,
)
from qlsbench.report._tables import Link, markdown_table
from qlsbench.report._web_page import blocks_html

#: A page is a list of blocks ``(kind, content)``: headings ``h1``-``h3`` and paragraphs ``p`` (text), ``list``
#: (list of text), ``table`` (DataFrame of display columns), ``ranking`` (:func:`ranking_rows`' rows, which the
#: HTML page filters and Markdown shows per track), ``figure`` ((caption, PNG bytes)) and ``plots`` (the HTML
#: page's plots section, a list of ``figure`` blocks; Markdown leaves it out). The content's type goes by the kind.
Block = tuple[str, Any]


def _rate_cell(rows: pd.DataFrame, rate: str, digits: int = 2) -> list[str]:
    """``rate [low, high]`` per row, from the rate's column and its two interval columns."""
    return [
        f"{r:.{digits}f} {interval(lo, hi, digits)}"
        for r, lo, hi in zip(rows[rate], rows[f"{rate}_ci_low"], rows[f"{rate}_ci_high"])
    ]


def _band_blocks(
    bands: pd.DataFrame, rows: pd.DataFrame | None = None, all_tracks: tuple[Track, ...] = ()
) -> list[Block]:
    """Per group: solvers by qubit band, each cell ``exact [interval] / variational [interval] (coverage)``;
    blank where not run. With the ranking's ``rows``, each group first says what null-b does there
    (:func:`control_sentence`, per track)."""
    out: list[Block] = []
    for family, part in bands.groupby("family", sort=True):
        cells = part.assign(
            cell=[
                f"{h} / {lo} ({100 * c:.0f} %)"
                for h, lo, c in zip(
                    _rate_cell(part, "success_rate"), _rate_cell(part, "success_rate_low"), part["coverage"]
                )
            ]
        )
        table = cells.pivot(index="solver", columns="band", values="cell").fillna("—")
        counts = part.groupby("band")["systems"].max()
        table.columns = [f"{b} qubits ({counts[b]} systems)" for b in table.columns]
        control = _group_controls(rows, str(family), all_tracks)
        out += [("h3", str(family)), *([("p", control)] if control else []), ("table", table.reset_index())]
    return out


def _group_controls(rows: pd.DataFrame | None, group: str, all_tracks: tuple[Track, ...]) -> str:
    """Each track's :func:`control_sentence` on one group's systems, joined; empty without the ranking's rows."""
    if rows is None:
        return ""
    view = rows[(rows["group"] == group) & (rows["band"] == "all")]
    return " ".join(
        c for c in (control_sentence(view[view["track"] == t.name], t, f" ({t.name} track)") for t in all_tracks) if c
    )


def _header(results: pd.DataFrame, all_tracks: tuple[Track, ...]) -> list[str]:
    info = machine_info()
    versions = ", ".join(f"{k} {v}" for k, v in package_versions().items())
    hashes = results.groupby("dataset")["dataset_hash"].agg(lambda s: ", ".join(sorted(set(s))))
    return [
        f"**date**: {info['date']}",
        f"**machine**: {info['cpu']}, {info['cores']} cores, {info['memory']}, {info['os']}, Python {info['python']}",
        f"**packages**: {versions}",
        *[f"**{t.name} track**: {t.tol.describe()}" for t in all_tracks],
        f"**ranking**: per track by success rate over the systems each solver was run on, then median fidelity, "
        f"then the shifted geometric mean (shift {all_tracks[0].tol.shift:g}) of time in ms over the fastest "
        "solver's (x best: each pair of solvers compared on the systems both ran). A system a solver was not "
        "configured for is not run (—) and left out of its rates (see coverage); declined, failed and "
        "unsuccessful solves count at the time limit and at error >= 1; repeats of a system count once (median), "
        "and so does a system that occurs more than once. Every success rate has its 95 % Wilson interval in "
        "brackets, the systems as trials (a system solved by 2 of 3 seeds adds 2/3); ≈ marks a row whose interval "
        "overlaps the row above's. The measured time (of the solves that returned a solution) is beside the charged "
        "one, and each row's time limit beside both. A time limit is wall clock: a solve that needs nearly all of "
        "it alone may time out on a machine whose cores are shared, so a row with timeouts near its limit reads "
        "partly as a statement about the machine",
        "**datasets**: " + "; ".join(f"`{d}` ({h})" for d, h in hashes.items()),
    ]


def _versions(results: pd.DataFrame) -> pd.Series:
    """Per solver, the qlsbench version(s) its rows were written by (``?`` where not recorded)."""
    versions = results["qlsbench_version"] if "qlsbench_version" in results else pd.Series(None, index=results.index)
    text = pd.Series(["?" if pd.isna(v) else str(v) for v in versions], index=results.index)
    return text.groupby(results["solver"]).agg(lambda v: ", ".join(sorted(set(v))))


def solver_info(results: pd.DataFrame, page_folder: str | os.PathLike | None) -> dict[str, dict]:
    """Per solver label: its registered ``name``, the qlsbench ``versions`` of its rows, and links to its
    ``docs`` (relative to ``page_folder``; none without one) and ``paper`` (:mod:`~qlsbench.report._solver_links`)."""
    from qlsbench.report._solver_links import solver_links

    names = results.drop_duplicates("solver").set_index("solver")["solver_name"]
    links = solver_links(set(names), page_folder) if page_folder is not None else {}
    versions = _versions(results)
    return {
        label: {
            "name": name,
            "versions": versions[label],
            "docs": links[name].docs if name in links else None,
            "paper": links[name].paper if name in links else None,
        }
        for label, name in names.items()
    }


def _options_table(results: pd.DataFrame, info: dict[str, dict]) -> pd.DataFrame:
    """One row per solver configuration (submission): its label, registered name, exact options, the qlsbench
    version its rows were written by, and links to its documentation and paper where known."""
    rows = results.drop_duplicates("solver")[["solver", "solver_name", "solver_options"]].sort_values("solver")
    options = [json.dumps(json.loads(o or "{}"), sort_keys=True) for o in rows["solver_options"]]
    table = pd.DataFrame(
        {
            "solver": rows["solver"],
            "name": rows["solver_name"],
            "options": options,
            "qlsbench": [info[s]["versions"] for s in rows["solver"]],
        }
    )
    docs = [Link("docs", info[s]["docs"]) if info[s]["docs"] else None for s in rows["solver"]]
    papers = [Link(info[s]["paper"][0], info[s]["paper"][1]) if info[s]["paper"] else None for s in rows["solver"]]
    if any(docs):
        table["docs"] = docs
    if any(papers):
        table["paper"] = papers
    return table


def page_blocks(
    results: pd.DataFrame,
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    title: str = "qlsbench leaderboard",
    preamble: str = "",
    by: str = "family",
    extra: list[Block] | None = None,
    plots: bool = False,
    names: dict[str, str] | None = None,
    page_folder: str | os.PathLike | None = None,
    step=None,
) -> list[Block]:
    """The leaderboard page; ``preamble`` is a paragraph under the title, ``extra`` blocks come last.

    ``by`` groups the per-group tables by ``family`` or ``dataset``; ``plots``
    adds what only the web page shows: the plots' data and the per-system
    drill-down (``names``: systems' names by id). ``page_folder`` is where
    the page is written (the solvers' documentation is linked relative to
    it); ``step(label)``, when given, is called as each part is computed.
    """
    from qlsbench.report._page_data import drilldown, plot_data

    step = step or (lambda label: None)
    all_tracks = tracks(tol, low)
    info = solver_info(results, page_folder)
    step("rankings")
    ranking = ranking_rows(results, all_tracks, by)
    blocks: list[Block] = [
        ("h1", title),
        *([("p", preamble)] if preamble else []),
        ("list", _header(results, all_tracks)),
        ("h2", "Ranking"),
        ("ranking", (ranking, all_tracks, by)),
    ]
    if plots:
        step("plots and per-system results")
        blocks += [
            ("plots", plot_data(results, all_tracks, by)),
            ("drilldown", (drilldown(results, all_tracks, by, names), info, all_tracks)),
        ]
    step("tables")
    blocks += [
        ("h2", f"By {by} and qubit band"),
        (
            "p",
            "Each cell: exact-track success rate / variational-track success rate, each with its 95 % "
            "Wilson interval over the band's systems (coverage of that band). — : not run there.",
        ),
    ]
    blocks += _band_blocks(band_tables(results, tol, low, by, rows=ranking), ranking, all_tracks)
    blocks += [
        ("h2", "Resources"),
        (
            "p",
            "What a solve cost, medians over solves that returned a solution; — : the solver has no such "
            "cost. Circuit depth is transpiled; shots are per circuit (exact: no sampling).",
        ),
        ("table", display_table(resource_table(results))),
    ]
    seeds = seed_table(results, low)
    if not seeds.empty:
        blocks += [
            ("h2", "Over seeds"),
            (
                "p",
                "Solvers run with several seeds (repeat r uses seed + r): the share of systems solved on "
                f"the variational track ({low.describe()}) by each system's best seed and by its median seed "
                "(solved by at least half of its seeds), each with its 95 % Wilson interval over systems, "
                "and the median over systems of the best and the median fidelity. Solvers run with one "
                "seed, or whose seeds always agree, are not listed.",
            ),
            ("table", display_table(seeds)),
        ]
    blocks += [
        ("h2", "Success rate by dataset"),
        (
            "p",
            "exact / variational, each with its 95 % Wilson interval over the dataset's systems; — : not "
            "run on that dataset.",
        ),
        ("table", _dataset_table(results, tol, low)),
    ]
    blocks += [("h2", "Solvers and their options"), ("table", display_table(_options_table(results, info)))]
    return blocks + list(extra or [])


def _dataset_table(results: pd.DataFrame, tol: Tolerances, low: Tolerances) -> pd.DataFrame:
    """Solvers (rows) by dataset (columns), each cell ``exact [interval] / variational [interval]``; — : not run."""
    cells = [success_by_dataset(results, t).set_index(["solver", "dataset"]) for t in (tol, low)]
    text = [pd.Series(_rate_cell(c, "success_rate"), index=c.index) for c in cells]
    both = (text[0] + " / " + text[1].reindex(text[0].index)).rename("cell").reset_index()
    return both.pivot(index="solver", columns="dataset", values="cell").fillna("—").reset_index()


def _ranking_markdown(rows: pd.DataFrame, all_tracks: tuple[Track, ...]) -> list[str]:
    out = []
    for track in all_tracks:
        view = rows[(rows["track"] == track.name) & (rows["group"] == "all") & (rows["band"] == "all")]
        control = control_sentence(view, track)
        out += [
            f"### {track.name.capitalize()} track",
            "",
            f"{track.intuition} Success: {track.tol.describe()}.",
            "",
            markdown_table(display_table(view, TRACK_COLUMNS[track.name])),
            "",
            OVERLAP_NOTE,
            "",
            *([control, ""] if control else []),
        ]
    return out


def control_sentence(view: pd.DataFrame, track: Track, where: str = "") -> str:
    """What null-b, the control returning ``b``, does on one view's systems at ``track``'s bar, as one sentence
    (empty where null-b did not run): the rates beside it are read against it."""
    null = view[view["solver"] == NULL_B] if "solver" in view else view.iloc[:0]
    if null.empty or "null_b_systems" not in null:
        return ""
    row = null.iloc[0]
    n, met, fid = int(row["null_b_systems"]), float(row["null_b_success"]), int(row["null_b_fidelity_bar"])
    bar = f"the {track.name} track's bar" if track.name in ("exact", "variational") else "the bar"
    head = f"**Control{where}**: null-b (b returned, scaled by least squares) "
    if met > 0:
        alone = f" (and its fidelity bar alone on {fid})" if fid > met else ""
        return (
            head + f"meets {bar} on {met:g} of {n} systems{alone}: on those, success does not tell a solver from "
            "not solving."
        )
    if fid > 0:
        return (
            head + f"meets the fidelity bar ({track.tol.fidelity:g}) on {fid} of {n} systems and fails {bar} on "
            "its residual: on those systems the fidelity is shown, not read as a verdict."
        )
    return head + f"meets {bar} on none of the {n} systems."


def blocks_markdown(blocks: list[Block]) -> str:
    """Blocks as a Markdown page (plots are left to the HTML page and the figure files)."""
    out = []
    for kind, content in blocks:
        if kind in ("h1", "h2", "h3"):
            out += ["#" * int(kind[1]) + f" {content}", ""]
        elif kind == "p":
            out += [str(content), ""]
        elif kind == "list":
            out += [f"- {item}" for item in content] + [""]
        elif kind == "ranking":
            rows, all_tracks, _ = content
            out += _ranking_markdown(rows, all_tracks)
        elif kind == "table":
            out += [markdown_table(content), ""]
        elif kind == "downloads":
            lead, files = content
            out += [
                "**Downloads**: "
                + " · ".join(f"[{label}]({href}) ({what})" for label, href, what in files)
                + f". {lead}",
                "",
            ]
    return "\n".join(out)


def render_markdown(
    results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY, **page
) -> str:
    """The leaderboard page as Markdown; ``page`` goes to :func:`page_blocks`."""
    return blocks_markdown(page_blocks(results, tol, low, **page))


def ranking_csv(results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY) -> str:
    """The CSV of a page: the exact track's ranking with the variational rates, each solver's resources and the
    qlsbench version(s) its rows were written by."""
    table = leaderboard(results, tol, low).merge(resource_table(results), on="solver", how="left")
    return table.assign(qlsbench_version=table["solver"].map(_versions(results))).to_csv(index=False)


def with_downloads(
    blocks: list[Block], html_path: str | os.PathLike, results: pd.DataFrame, systems: pd.DataFrame | None = None
) -> list[Block]:
    """Write the page's downloads beside ``html_path`` (:func:`~qlsbench.report._page_data.write_downloads`) and
    return ``blocks`` with a section linking them before the ranking (links relative to the page's folder)."""
    from qlsbench.report._page_data import downloads_folder, write_downloads

    folder = Path(html_path).parent
    files = write_downloads(results, downloads_folder(html_path), systems)
    links = [(label, path.relative_to(folder).as_posix(), what) for label, path, what in files]
    at = next((i for i, (kind, _) in enumerate(blocks) if kind == "h2"), len(blocks))
    lead = (
        "The rows this page is computed from and the systems they were run on, written beside it; solutions "
        "and per-iteration histories are left out (the results files keep them), and the CSV also leaves out "
        "the variational solvers' read-out lists."
    )
    return blocks[:at] + [("downloads", (lead, links))] + blocks[at:]


def write_page(
    results: pd.DataFrame,
    out: str | os.PathLike,
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    systems: pd.DataFrame | None = None,
    **page,
) -> Path:
    """Write the page in the format ``out``'s suffix names: ``.md``, ``.html`` (with the plots, the drill-down
    and its downloads beside it, ``systems`` the systems list they give, default the results' own), or ``.csv``
    (:func:`ranking_csv`), atomically; ``page`` goes to :func:`page_blocks`."""
    suffix = Path(out).suffix
    page.setdefault("page_folder", Path(out).parent)
    if suffix == ".csv":
        return atomic_write_text(out, ranking_csv(results, tol, low))
    if suffix == ".html":
        blocks = with_downloads(page_blocks(results, tol, low, plots=True, **page), out, results, systems)
        return atomic_write_text(out, blocks_html(blocks))
    return atomic_write_text(out, blocks_markdown(page_blocks(results, tol, low, **page)))


def write_leaderboard(
    results: pd.DataFrame,
    md_path: str | os.PathLike,
    csv_path: str | os.PathLike,
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    html_path: str | os.PathLike | None = None,
    systems: pd.DataFrame | None = None,
    **page,
) -> None:
    """Write ``leaderboard.md``, ``leaderboard.csv`` and optionally the HTML page, as :func:`write_page` would.

    The page's blocks are computed once for both the Markdown and the HTML
    page (Markdown leaves the plots and the drill-down out), not once per
    format. With an HTML page the downloads are written beside it and both
    pages link them.
    """
    page.setdefault("page_folder", Path(html_path or md_path).parent)
    blocks = md = page_blocks(results, tol, low, plots=html_path is not None, **page)
    (page.get("step") or (lambda label: None))("writing")
    if html_path is not None:
        blocks = with_downloads(blocks, html_path, results, systems)
        atomic_write_text(html_path, blocks_html(blocks))
        if md_path is not None and Path(md_path).parent.resolve() == Path(html_path).parent.resolve():
            md = blocks  # the downloads' links are relative to the HTML page's folder: right for a page beside it
    if md_path is not None:
        atomic_write_text(md_path, blocks_markdown(md))
    if csv_path is not None:
        atomic_write_text(csv_path, ranking_csv(results, tol, low))


@dataclass(frozen=True)
class LeaderboardOptions(Options):
    """The two tracks' criteria (their defaults are :class:`Tolerances`' and :data:`LOW_ACCURACY`'s)."""

    fidelity: float = option(Tolerances.fidelity, "exact track: fidelity bar", bounds=FRACTION)
    residual: float = option(Tolerances.residual, "exact track: relative residual bar", bounds=POSITIVE)
    shift: float = option(Tolerances.shift, "shift of the geometric means", bounds=POSITIVE)
    low_fidelity: float = option(LOW_ACCURACY.fidelity, "variational track: fidelity bar", bounds=FRACTION)
    low_residual: float = option(LOW_ACCURACY.residual, "variational track: relative residual bar", bounds=POSITIVE)

    def tolerances(self) -> tuple[Tolerances, Tolerances]:
        """The exact and the variational track's criterion."""
        return (
            Tolerances(self.fidelity, self.residual, self.shift),
            Tolerances(self.low_fidelity, self.low_residual, self.shift, require_converged=False),
        )


def _draw(inputs: list[str], out: Path, options: LeaderboardOptions) -> Path:
    return write_page(load_results(inputs), out, *options.tolerances())


FIGURE = Figure(
    "leaderboard",
    "the leaderboard page: both tracks, per family and qubit band, resources, seeds, "
    "datasets, options (and plots in .html)",
    "results .parquet files or folders",
    _draw,
    LeaderboardOptions,
    formats=(".md", ".html", ".csv"),
)
