"""The table of fig. 4(b): per simulation checkpoint, its qubits and condition number, and how the solver did.

De et al. list, for each checkpoint system VNLS was trained on, the qubit
count and κ. Here each row also carries the simulated step and time (from the
dataset), the final loss, fidelity and residual (from the results file), and
whether the solver reported being trapped on A's lowest singular vector.
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.data import atomic_write_text, load_dataset, read_parquet
from qlsbench.errors import DatasetError, InputError
from qlsbench.options import Options, option
from qlsbench.report._base import Figure, Job

#: Columns the table needs from a results file (``qlsbench solve``).
RESULT_NEEDS = (
    "solver",
    "dataset",
    "system_id",
    "n_qubits",
    "cond",
    "status",
    "fidelity",
    "rel_residual",
    "message",
    "resources",
)

#: Column headers of the rendered table, in order, with their number formats.
_FORMATS = {
    "checkpoint": "{:d}",
    "step": "{:d}",
    "time": "{:.3f}",
    "n_qubits": "{:d}",
    "cond": "{:.4g}",
    "final_loss": "{:.3g}",
    "fidelity": "{:.4f}",
    "rel_residual": "{:.2e}",
    "status": "{}",
    "trapped": "{}",
    "repeat": "{:d}",
}
_HEADERS = {
    "checkpoint": "checkpoint",
    "step": "step",
    "time": "time (s)",
    "n_qubits": "qubits",
    "cond": "κ",
    "final_loss": "final loss",
    "fidelity": "fidelity",
    "rel_residual": "residual",
    "status": "status",
    "trapped": "trapped",
    "repeat": "repeat",
}


def read_checkpoint_results(path: str | os.PathLike) -> pd.DataFrame:
    """Read a results file, checking only the columns the table needs.

    Only these are checked (not the whole results schema), so the table
    still reads files written before later columns were added.

    Raises
    ------
    InputError
        Naming the unreadable file, or the file and its first missing column.
    """
    table = read_parquet(
        path,
        kind="results file",
        columns=RESULT_NEEDS,
        error=InputError,
        hint=" (not a `qlsbench solve` results file?)",
    )
    return table.select(list(RESULT_NEEDS) + (["repeat"] if "repeat" in table.column_names else [])).to_pandas()


#: Where solvers report their last loss in ``resources``: VNLS's mean over the last iterations, VQLS's cost.
FINAL_LOSS_KEYS = ("final_loss", "final_cost")


def final_loss(resources: str | None) -> float:
    """The final loss from a results row's ``resources`` JSON; NaN when the solver reports none."""
    try:
        reported = json.loads(resources or "{}")
        value = next((reported[k] for k in FINAL_LOSS_KEYS if k in reported), None)
    except (json.JSONDecodeError, TypeError):
        return float("nan")
    return float(value) if isinstance(value, (int, float)) else float("nan")


def checkpoint_systems(dataset: str | os.PathLike) -> pd.DataFrame:
    """``system_id``, ``step``, ``newton_iter`` and simulated ``time`` of every system of a dataset.

    Raises
    ------
    DatasetError
        If the dataset cannot be read (the message names the path), or its
        systems have no simulation step.
    """
    df = load_dataset(dataset)
    if df["step"].isna().any():
        raise DatasetError(f"{dataset}: column 'step' has empty rows (not a simulation's checkpoint dataset)")
    times = df["meta_json"].map(lambda text: json.loads(text).get("time", np.nan)).astype(float)
    return pd.DataFrame(
        {
            "system_id": df["system_id"],
            "step": df["step"].astype("int64"),
            "newton_iter": df["newton_iter"],
            "time": times,
        }
    )


def checkpoint_table(results: pd.DataFrame, systems: pd.DataFrame, *, where: str = "results") -> pd.DataFrame:
    """One row per checkpoint (per repeat when there are several), ordered by simulated step.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of :func:`read_checkpoint_results`.
    systems : pandas.DataFrame
        :func:`checkpoint_systems` of the dataset the results were computed on.
    where : str
        Name of the results for error messages.

    Returns
    -------
    pandas.DataFrame
        Columns ``checkpoint`` (1-based), ``step``, ``time``, ``n_qubits``,
        ``cond``, ``final_loss``, ``fidelity``, ``rel_residual``, ``status``,
        ``trapped`` (bool: the message says "trapped") and, with several
        repeats, ``repeat``.

    Raises
    ------
    DatasetError
        If a result's system is not in the dataset.
    """
    merged = results.merge(systems, on="system_id", how="left", validate="many_to_one")
    unknown = merged.loc[merged["step"].isna(), "system_id"].unique()
    if len(unknown):
        raise DatasetError(
            f"{where}: system {unknown[0]} is not in the dataset given "
            f"({len(unknown)} unknown); pass the checkpoint dataset the results were run on"
        )
    repeats = "repeat" in merged and merged["repeat"].nunique() > 1
    merged = merged.sort_values(["step", "newton_iter", "repeat"] if repeats else ["step", "newton_iter"])
    table = pd.DataFrame(
        {
            "checkpoint": merged.groupby("step", sort=True).ngroup().to_numpy() + 1,
            "step": merged["step"].astype("int64").to_numpy(),
            "time": merged["time"].to_numpy(),
            "n_qubits": merged["n_qubits"].astype("int64").to_numpy(),
            "cond": merged["cond"].to_numpy(dtype=float),
            "final_loss": merged["resources"].map(final_loss).to_numpy(),
            "fidelity": merged["fidelity"].to_numpy(dtype=float),
            "rel_residual": merged["rel_residual"].to_numpy(dtype=float),
            "status": merged["status"].to_numpy(),
            # The solver names the lowest-singular-vector trap in its message (see qlsbench.solvers.vnls).
            "trapped": merged["message"].fillna("").str.contains("trapped", case=False).to_numpy(),
        }
    )
    if repeats:
        table.insert(1, "repeat", merged["repeat"].astype("int64").to_numpy())
    return table


def _cell(column: str, value) -> str:
    if column == "trapped":
        return "yes" if value else "no"
    if isinstance(value, float) and not np.isfinite(value):
        return "–"
    return _FORMATS[column].format(value)


def render_markdown(table: pd.DataFrame, title: str) -> str:
    """The table as Markdown (a heading line and a pipe table)."""
    cols = list(table.columns)
    lines = [
        f"**{title}**",
        "",
        "| " + " | ".join(_HEADERS[c] for c in cols) + " |",
        "|" + "|".join("---:" if c not in ("status", "trapped") else "---" for c in cols) + "|",
    ]
    lines += ["| " + " | ".join(_cell(c, row[c]) for c in cols) + " |" for _, row in table.iterrows()]
    return "\n".join(lines) + "\n"


def render_html(table: pd.DataFrame, title: str) -> str:
    """The table as a small self-contained HTML page (Snakemake reports embed it as is)."""
    cols = list(table.columns)
    head = "".join(f"<th>{html.escape(_HEADERS[c])}</th>" for c in cols)
    body = "\n".join(
        "<tr"
        + (' class="trapped"' if row["trapped"] else "")
        + ">"
        + "".join(f"<td>{html.escape(_cell(c, row[c]))}</td>" for c in cols)
        + "</tr>"
        for _, row in table.iterrows()
    )
    style = (
        "table{border-collapse:collapse;font-family:sans-serif;font-size:13px}"
        "th,td{border:1px solid #bbb;padding:3px 8px;text-align:right}"
        "th{background:#eee}tr.trapped td{background:#fde8e8}caption{font-weight:bold;margin:6px}"
    )
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{style}</style></head>\n<body><table>\n<caption>{html.escape(title)}</caption>\n"
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table></body></html>\n"
    )


def _dataset_of(results: pd.DataFrame, path, dataset) -> str | os.PathLike:
    """The dataset the results name (under ``datasets/`` of the current folder), unless one is given."""
    if dataset is not None:
        return dataset
    names = results["dataset"].unique()
    if len(names) != 1:
        raise InputError(
            f"{path}: results of {len(names)} datasets ({', '.join(map(str, names))}); "
            "give one results file per checkpoint dataset, or --dataset"
        )
    candidate = Path("datasets") / str(names[0])
    if not candidate.exists():
        raise DatasetError(f"{path}: its dataset {candidate} does not exist here; pass --dataset")
    return candidate


def write_checkpoint_table(
    results_path: str | os.PathLike, out: str | os.PathLike, *, dataset: str | os.PathLike | None = None
) -> Path:
    """Write the checkpoint table of a results file as HTML (``.html``/``.htm``) or Markdown (``.md``).

    Parameters
    ----------
    results_path : path
        Results file of a solver run on a checkpoint dataset.
    out : path
        Output file; its suffix picks the format.
    dataset : path, optional
        The checkpoint dataset; default ``datasets/<dataset column>`` below
        the current folder.

    Returns
    -------
    pathlib.Path
        The written file.
    """
    out = Path(out)
    render = {".html": render_html, ".htm": render_html, ".md": render_markdown}.get(out.suffix.lower())
    if render is None:  # checked first: a wrong suffix should not cost reading the dataset
        raise InputError(f"{out}: unknown table format {out.suffix!r}; use .html or .md")
    results = read_checkpoint_results(results_path)
    if results.empty:
        raise InputError(f"{results_path}: no result rows")
    source = _dataset_of(results, results_path, dataset)
    table = checkpoint_table(results, checkpoint_systems(source), where=str(results_path))
    solvers = ", ".join(sorted(results["solver"].unique()))
    title = f"{solvers} on the checkpoints of {results['dataset'].iloc[0]}"
    text = render(table, title)
    # Explicit UTF-8: κ and the en dash must not depend on the locale of the machine running the workflow.
    return atomic_write_text(out, text)


@dataclass(frozen=True)
class CheckpointTableOptions(Options):
    dataset: str | None = option(
        None, "the checkpoint dataset (default: datasets/<dataset column> below the current folder)", path="read"
    )


def _draw(inputs: list[str], out: Path, options: CheckpointTableOptions) -> Path:
    return write_checkpoint_table(inputs[0], out, dataset=options.dataset)


def _job_targets(config) -> list[str]:
    """Fig. 4's kappa tables: one per solver of each loss figure drawn on a checkpoint dataset."""
    return [f"results/tables/{name}.{ext}" for name in config.checkpoint_tables() for ext in ("html", "md")]


FIGURE = Figure(
    "checkpoint-table",
    "fig. 4(b): per checkpoint its step, time, qubits, kappa and the solver's loss, fidelity, residual",
    "results .parquet of a solver run on a checkpoint dataset",
    _draw,
    CheckpointTableOptions,
    formats=(".html", ".md"),
    single_input=True,
    job=Job(
        "checkpoint_table",
        {
            "html": "results/tables/{solver}-checkpoints-{scene}.html",
            "md": "results/tables/{solver}-checkpoints-{scene}.md",
        },
        targets=_job_targets,
        inputs=lambda config, wc: {
            "results": f"results/{wc['solver']}/dem_c_checkpoints/{wc['scene']}.parquet",
            "dataset": f"datasets/dem_c_checkpoints/{wc['scene']}/part-0000.parquet",
        },
        log="logs/checkpoint_table/{solver}-{scene}.log",
        words=lambda config, wc, inputs, outputs: [
            inputs.results,
            "--dataset",
            inputs.dataset,
            "--out",
            outputs.html,
            outputs.md,
        ],
        caption="checkpoint_table.rst",
        category="Loss curves (fig. 2, fig. 4)",
    ),
)
