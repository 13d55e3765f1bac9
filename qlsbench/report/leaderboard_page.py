"""The leaderboard page: header, ranking, per family and qubit band, resources, over seeds, per dataset.

One list of blocks, rendered as Markdown or as a self-contained HTML page;
the numbers come from :mod:`qlsbench.bench.ranking`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from qlsbench.bench.environment import machine_info, package_versions
from qlsbench.bench.ranking import (
    LOW_ACCURACY,
    Tolerances,
    band_tables,
    leaderboard,
    resource_table,
    seed_table,
    success_by_dataset,
)
from qlsbench.bench.results import load_results
from qlsbench.checks import FRACTION, POSITIVE
from qlsbench.data import atomic_write_text
from qlsbench.options import Options, option
from qlsbench.report.base import Figure
from qlsbench.report.tables import html_inline, html_table, markdown_table

#: A page is a list of blocks ``(kind, content)``: headings ``h1``-``h3`` and paragraphs ``p`` (text),
#: ``list`` (list of text) and ``table`` (DataFrame). One structure, rendered as Markdown or HTML.
Block = tuple[str, object]


def _band_blocks(bands: pd.DataFrame) -> list[Block]:
    """Per group: solvers by qubit band, each cell ``high / low (time ratio)``."""
    out: list[Block] = []
    for family, part in bands.groupby("family", sort=True):
        cells = part.assign(cell=[f"{h:.2f} / {lo:.2f} ({t:.3g}x)" for h, lo, t in
                                  zip(part["success_rate"], part["success_rate_low"], part["time_sgm_rel"])])
        table = cells.pivot(index="solver", columns="band", values="cell")
        counts = part.groupby("band")["systems"].max()
        table.columns = [f"{b} qubits ({counts[b]} systems)" for b in table.columns]
        out += [("h3", str(family)), ("table", table.reset_index())]
    return out


def page_blocks(results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY,
                title: str = "qlsbench leaderboard", preamble: str = "", by: str = "family",
                extra: list[Block] | None = None) -> list[Block]:
    """The leaderboard page: header, ranking, per family (or dataset) and qubit band, resources, per dataset.

    ``preamble`` is a paragraph under the title, ``extra`` blocks come last.
    """
    info = machine_info()
    versions = ", ".join(f"{k} {v}" for k, v in package_versions().items())
    hashes = results.groupby("dataset")["dataset_hash"].agg(lambda s: ", ".join(sorted(set(s))))
    header = [
        f"**date**: {info['date']}",
        f"**machine**: {info['cpu']}, {info['cores']} cores, {info['memory']}, {info['os']}, Python {info['python']}",
        f"**packages**: {versions}",
        f"**success (high accuracy)**: {tol.describe()}",
        f"**success (low accuracy)**: {low.describe()}",
        f"**ranking**: by high-accuracy success rate, then the shifted geometric mean (shift {tol.shift:g}) of time "
        "in ms, normalised so the best solver is 1.0; the same for relative error. Every solver is measured on every "
        "system: unsuccessful, skipped and not-run solves count at the time limit and at error >= 1; repeats of a "
        "system count once (median), and so does a system that occurs more than once",
        "**datasets**: " + "; ".join(f"`{d}` ({h})" for d, h in hashes.items()),
    ]
    return [
        ("h1", title),
        *([("p", preamble)] if preamble else []),
        ("list", header),
        ("h2", "Ranking"),
        ("table", leaderboard(results, tol, low)),
        ("h2", f"By {by} and qubit band"),
        ("p", "Each cell: high-accuracy success rate / low-accuracy success rate (shifted geometric mean of time "
              "relative to the fastest solver in that band)."),
        *_band_blocks(band_tables(results, tol, low, by)),
        ("h2", "Resources"),
        ("p", "Median per solve that returned a solution: qubits, iterations and the costs each solver reports "
              "(circuit depth is transpiled; shots are per circuit; MC samples over the whole solve)."),
        ("table", resource_table(results)),
        *_seed_blocks(results, low),
        ("h2", "Success rate by dataset (high accuracy)"),
        ("table", success_by_dataset(results, tol).reset_index()),
        *(extra or []),
    ]


def blocks_markdown(blocks: list[Block]) -> str:
    """Blocks as a Markdown page."""
    out = []
    for kind, content in blocks:
        if kind in ("h1", "h2", "h3"):
            out += ["#" * int(kind[1]) + f" {content}", ""]
        elif kind == "p":
            out += [str(content), ""]
        elif kind == "list":
            out += [f"- {item}" for item in content] + [""]
        else:
            out += [markdown_table(content), ""]
    return "\n".join(out)


def blocks_html(blocks: list[Block]) -> str:
    """Blocks as a self-contained HTML page."""
    body = []
    for kind, content in blocks:
        if kind in ("h1", "h2", "h3"):
            body.append(f"<{kind}>{html_inline(str(content))}</{kind}>")
        elif kind == "p":
            body.append(f"<p>{html_inline(str(content))}</p>")
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{html_inline(item)}</li>" for item in content) + "</ul>")
        else:
            body.append(html_table(content))
    style = ("body{font-family:sans-serif;max-width:80em;margin:auto}table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%}th{background:#f3f3f3}")
    return f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>{style}</style></head><body>\n" + \
        "\n".join(body) + "\n</body></html>\n"


def render_markdown(results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY,
                    **page) -> str:
    """The leaderboard page as Markdown; ``page`` goes to :func:`page_blocks`."""
    return blocks_markdown(page_blocks(results, tol, low, **page))


def write_page(results: pd.DataFrame, out: str | os.PathLike, tol: Tolerances = Tolerances(),
               low: Tolerances = LOW_ACCURACY, **page) -> Path:
    """Write the page in the format ``out``'s suffix names: ``.md``, ``.html``, or ``.csv`` (the ranking with
    each solver's median resources beside it), atomically; ``page`` goes to :func:`page_blocks`."""
    suffix = Path(out).suffix
    if suffix == ".csv":
        table = leaderboard(results, tol, low).merge(resource_table(results), on="solver", how="left")
        return atomic_write_text(out, table.to_csv(index=False))
    blocks = page_blocks(results, tol, low, **page)
    return atomic_write_text(out, blocks_html(blocks) if suffix == ".html" else blocks_markdown(blocks))


def write_leaderboard(results: pd.DataFrame, md_path: str | os.PathLike, csv_path: str | os.PathLike,
                      tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY,
                      html_path: str | os.PathLike | None = None, **page) -> None:
    """Write ``leaderboard.md``, ``leaderboard.csv`` and optionally an HTML twin (:func:`write_page` each)."""
    for out in (md_path, csv_path, html_path):
        if out is not None:
            write_page(results, out, tol, low, **page)


@dataclass(frozen=True)
class LeaderboardOptions(Options):
    """The two accuracy settings of the ranking (their defaults are :class:`Tolerances`' and :data:`LOW_ACCURACY`'s)."""

    fidelity: float = option(Tolerances.fidelity, "high accuracy: fidelity bar", bounds=FRACTION)
    residual: float = option(Tolerances.residual, "high accuracy: relative residual bar", bounds=POSITIVE)
    shift: float = option(Tolerances.shift, "shift of the geometric means", bounds=POSITIVE)
    low_fidelity: float = option(LOW_ACCURACY.fidelity, "low accuracy: fidelity bar", bounds=FRACTION)
    low_residual: float = option(LOW_ACCURACY.residual, "low accuracy: relative residual bar", bounds=POSITIVE)

    def tolerances(self) -> tuple[Tolerances, Tolerances]:
        """The high- and the low-accuracy setting."""
        return (Tolerances(self.fidelity, self.residual, self.shift),
                Tolerances(self.low_fidelity, self.low_residual, self.shift, require_converged=False))


def _draw(inputs: list[str], out: Path, options: LeaderboardOptions) -> Path:
    return write_page(load_results(inputs), out, *options.tolerances())


FIGURE = Figure("leaderboard", "the leaderboard page: ranking at two accuracy settings, per family and qubit band, "
                "resources, over seeds, per dataset", "results .parquet files or folders", _draw, LeaderboardOptions,
                formats=(".md", ".html", ".csv"))


def _seed_blocks(results: pd.DataFrame, low: Tolerances) -> list[Block]:
    table = seed_table(results, low)
    if table.empty:
        return []
    return [("h2", "Over seeds"),
            ("p", "Solvers run with several seeds (repeat r uses seed + r): the share of systems solved at low "
                  f"accuracy ({low.describe()}) by each system's best seed and by its median seed (solved by at "
                  "least half of its seeds), and the median over systems of the best and the median fidelity. "
                  "Solvers run with one seed, or whose seeds always agree, are not listed."),
            ("table", table)]


