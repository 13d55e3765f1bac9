"""docs/advantage.md: the advantage map, generated from the sweep's tables (``qlsbench advantage``) and the
loading cross-check (``qlsbench loadcheck``).

The page opens with its assumptions, then per family the systems as they grow, and the crossover table: the
best classical method measured against the cheapest fault-tolerant estimate, each fitted as ``c N^p``. Its
figures: kappa and s against N per family, and both runtimes against N.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench.advantage import (
    AXES,
    METHODS,
    anchor_ablation,
    best_classical,
    cheapest_quantum,
    crossover_table,
    power_fit,
)
from qlsbench.data import atomic_write_text
from qlsbench.errors import InputError
from qlsbench.estimates import BITS, ERROR_BUDGET, HARDWARE_MODELS
from qlsbench.report._base import Job, page
from qlsbench.report._plotting import pyplot, save_figure
from qlsbench.report._tables import markdown_table

#: The model and readout the runtime figure draws (the page's tables hold them all).
FIGURE_MODEL, FIGURE_READOUT = "superconducting-1e-4", "observable"


def read_sweeps(paths: list[str]) -> dict[str, pd.DataFrame]:
    """The three tables of every family among ``paths`` (files named ``<family>.<table>.parquet``), and the
    loading cross-check where one is among them (``<name>.crosscheck.parquet``; an empty table otherwise)."""
    tables: dict[str, list[pd.DataFrame]] = {"systems": [], "classical": [], "quantum": [], "crosscheck": []}
    for path in sorted(paths):
        name = Path(path).name
        kind = name.removesuffix(".parquet").rsplit(".", 1)[-1]
        if kind not in tables:
            raise InputError(f"{path}: not a sweep table (<family>.systems|classical|quantum|crosscheck.parquet)")
        tables[kind].append(pd.read_parquet(path))
    checks = tables.pop("crosscheck")
    crosscheck = pd.concat(checks, ignore_index=True) if checks else pd.DataFrame()
    missing = [kind for kind, parts in tables.items() if not parts]
    if missing:
        raise InputError(f"advantage page: no {missing[0]} table among the inputs")
    # a workflow's tables come one size a file: the page's order is the family's, then the size's, not the inputs'
    return {
        **{
            kind: pd.concat(parts, ignore_index=True).sort_values(["family", "size"], kind="stable", ignore_index=True)
            for kind, parts in tables.items()
        },
        "crosscheck": crosscheck,
    }


def _why_not_run(classical: pd.DataFrame) -> pd.Series:
    """Why each classical row did not run (empty where it ran; tables from before the column: every row ran)."""
    if "not_run" not in classical:
        return pd.Series("", index=classical.index)
    return classical["not_run"].fillna("")


def _method_labels(classical: pd.DataFrame) -> str:
    """The classical methods that ran (a row not run for a reason is not a method that ran)."""
    ran = classical[_why_not_run(classical) == ""]
    names = [name for name in METHODS if name in set(ran["method"])]
    return ", ".join(METHODS[name].label for name in names)


def _assumptions(classical: pd.DataFrame) -> str:
    rows = [
        (
            "accuracy",
            "x to fidelity 1 − ε (ε = 1e-2, 1e-4); the classical solvers stop at the first tolerance that "
            "reaches it and a relative residual ≤ ε",
        ),
        (
            "block encoding",
            "sparse access (GSLW 2019 lemma 48), oracles as QROAM table lookups over the N s "
            f"slots of the pattern ({BITS}-bit entries); Pauli LCU where the decomposition is affordable; the cheaper",
        ),
        (
            "solver",
            "QSVT (Childs–Kothari–Somma polynomial, amplified) and the discrete adiabatic walk with "
            "eigenstate filtering (constant 1.84); the cheaper",
        ),
        ("preparing b", "a generic state: a binary tree of QROAM-loaded rotations, each use counted"),
        ("output", "one observable by amplitude estimation (2⌈π/ε⌉ solves), or all of x by sampling (N/ε² solves)"),
        (
            "physical",
            f"Microsoft's Resource Estimator (qdk), error budget {ERROR_BUDGET:g} per solve, models "
            + ", ".join(f"{name} ({qubit}, {scheme})" for name, (qubit, scheme) in HARDWARE_MODELS.items()),
        ),
        (
            "classical",
            "best of " + _method_labels(classical) + ", on this project's 2-core machine; wall time (set-up "
            "included) of the run that reached the accuracy, the median of 3 with their range",
        ),
        (
            "fit",
            "t = c N^p by least squares in log-log, the exponent's 95 % Student interval; the crossover is "
            "where the fitted lines meet, its band over the classical exponent's interval",
        ),
    ]
    return markdown_table(pd.DataFrame(rows, columns=["part", "assumption"]))


def _caveats(tables: dict[str, pd.DataFrame]) -> str:
    """What the sizes measured can and cannot say, with the counts that say it."""
    systems, classical, quantum = tables["systems"], tables["classical"], tables["quantum"]
    best = best_classical(classical)
    extrapolated = int(quantum["extrapolated"].sum()) if "extrapolated" in quantum else 0
    slowest = best["seconds"].max()
    text = (
        f"The tables hold {len(systems)} systems of {systems['family'].nunique()} families, the largest of "
        f"{int(systems['N'].max()):,} unknowns; the slowest best classical solve takes {slowest:.2g} s. "
    )
    if slowest < 1:
        text += (
            "At solves this short the times are mostly fixed costs, so the fitted classical exponents understate "
            "how the classical side grows. "
        )
    return text + (
        "The quantum side's counts are formulas. "
        f"{extrapolated} of {len(quantum)} estimates were past what the Resource Estimator answers (10^12 Toffolis "
        "or rotations) and were scaled up linearly from there, which favours the quantum side."
    )


def _closed_form_check(systems: pd.DataFrame) -> str:
    """The sparse estimate against the Laplacian's closed-form κ at the control's sizes above the dense limit."""
    from qlsbench.problems import poisson_kappa

    control = systems[systems["family"].str.startswith("poisson") & (systems["kappa_method"] != "dense")]
    if control.empty:
        return ""
    errors = [abs(k / poisson_kappa(int(m)) - 1) for k, m in zip(control["kappa"], control["size"])]
    return (
        f" Above it, against the Laplacian's closed form on the {len(control)} control systems there (up to "
        f"N = {int(control['N'].max()):,}): relative error at most {max(errors):.1e}."
    )


def _what_ran(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The sweep's cost and its checks: wall time, memory, the sparse kappa against the dense one, the Pauli limit."""
    systems, classical = tables["systems"], tables["classical"]
    checked = systems.dropna(subset=["kappa_sparse_rel_error"])
    lines = ["## What ran", ""]
    if "size_seconds" in systems:
        lines.append(
            f"- The sweep: {systems['size_seconds'].sum() / 3600:.2f} h of wall time over {len(systems)} sizes on "
            f"this 2-core machine (the longest size {systems['size_seconds'].max() / 60:.1f} min: "
            f"{systems.loc[systems['size_seconds'].idxmax(), 'family']} at "
            f"{int(systems.loc[systems['size_seconds'].idxmax(), 'N']):,} unknowns); load average beside it "
            f"{systems['load'].median():.1f} (median)."
        )
    if "peak_mb" in classical and classical["peak_mb"].notna().any():
        lines.append(
            f"- Memory: the largest resident high-water mark of a classical solve's process was "
            f"{classical['peak_mb'].max() / 1024:.2f} GiB (interpreter included), within the machine's 24 GiB."
        )
    lines.append(
        f"- κ: by dense SVD up to N = 4,096; above, ARPACK on A and on A⁻¹ (sparse LU, or CG where an axis' "
        f"factors would not fit). The sparse estimate against the dense value on every one of the {len(checked)} "
        f"systems where both ran: relative error at most {checked['kappa_sparse_rel_error'].max():.1e}."
        + _closed_form_check(systems)
    )
    if "kappa_seconds" in systems:
        largest = systems.loc[systems.groupby("family")["N"].idxmax()]
        timed = "; ".join(
            f"{r.family} {int(r.N):,} ({r.kappa_method}) {r.kappa_seconds:.1f} s" for r in largest.itertuples()
        )
        lines.append(f"- κ at each family's largest size, one process on this machine: {timed}.")
    missing = {
        family: [size for size in AXES[family].full if size not in set(part["size"])]
        for family, part in systems.groupby("family")
        if family in AXES
    }
    missing = {family: sizes for family, sizes in missing.items() if sizes}
    if missing:
        lines.append(
            "- Full-axis sizes not in these tables yet: "
            + "; ".join(f"{family} {', '.join(f'{s:,}' for s in sizes)}" for family, sizes in missing.items())
            + " (the sweep resumes at them: `qlsbench advantage --sweep full --families ... --out docs/advantage`)."
        )
    pauli = systems.dropna(subset=["pauli_terms"])
    if len(pauli):
        lines.append(
            f"- Pauli terms and 1-norm: computed up to N = {int(pauli['N'].max()):,} (padded to "
            f"{2 ** int(pauli['pauli_qubits'].max()):,}); above, only sparse access encodes."
        )
    not_run = classical.assign(not_run=_why_not_run(classical))
    not_run = not_run[not_run["not_run"] != ""]
    for (method, why), rows in not_run.groupby(["method", "not_run"]):
        lines.append(
            f"- {METHODS[method].label if method in METHODS else method} not run on {rows['size'].nunique()} "
            f"size(s) ({', '.join(sorted(rows['family'].unique()))}): {why}."
        )
    return lines + [""]


#: The anchors' published figures (facts from the papers, as ../shared/FACTS.md gathered them): who, what was
#: estimated, where it crosses or what it costs, and what it leaves out.
ANCHORS = [
    (
        "Tu et al., arXiv:2502.11239 (2025)",
        "HHL against conjugate gradients for generic κ, s ≈ 10–100, ε ≈ 0.01, physical error 1e-5, "
        "~1e5 physical qubits",
        "crossover at N ≈ 2^33–2^48",
        "oracle queries at unit cost; no data loading, no read-out",
    ),
    (
        "Scherer et al. (2017), HHL for electromagnetic scattering (Quipper)",
        "N = 332,020,680",
        "depth ~1e25 without oracles, ~1e29 with them; width ~340, ~1e8 with oracles",
        "no classical solver set beside it",
    ),
]

#: Why our control's answer differs from the anchors', one reason a line.
DIFFERENCES = [
    "Data loading: our oracles are table lookups over the N s slots of the pattern, ~√(N s bits) Toffolis per "
    "query; the anchors count a query as one step. For the Laplacian, whose entries follow a pattern, Camps et al.'s "
    "structured circuits would cost polylog(N) instead, so on the control our estimate is pessimistic by that "
    "factor; on the simulations' systems, whose entries have no formula, the lookup is what loading costs.",
    "Read-out: we count 2⌈π/ε⌉ solves for one observable, N/ε² for all of x; Tu et al. leave read-out out.",
    f"The classical side: we measure the best of {len(METHODS)} methods, algebraic multigrid among them (close to "
    "linear in N on the Laplacian), on this machine; Tu et al. set HHL beside conjugate gradients, whose cost grows "
    "as N s √κ log(1/ε), with κ ~ N^(2/d) on the Laplacian.",
    "Size: the anchors extrapolate to N ~ 2^33 and beyond; our fits rest on the sizes measured (the largest N of "
    "each control is in its table), and a crossover past them is an extrapolation of both fits.",
]


def _ablation(tables: dict[str, pd.DataFrame], family: str) -> list[str]:
    """The control's crossover as the anchors' assumptions replace ours one at a time."""
    classical = tables["classical"][tables["classical"]["family"] == family]
    quantum = tables["quantum"][tables["quantum"]["family"] == family]
    table = anchor_ablation(family, classical, quantum, 1e-2, FIGURE_MODEL)
    shown = pd.DataFrame(
        {
            "assumptions": table["assumptions"],
            "classical p": table["classical_p"].map(lambda v: f"{v:.2f}"),
            "quantum p": table["quantum_p"].map(lambda v: f"{v:.2f}"),
            "quantum s at the largest N": table["quantum_seconds_at_largest"].map(lambda v: f"{v:.2g}"),
            "classical s there": table["classical_seconds_at_largest"].map(lambda v: f"{v:.2g}"),
            "crossover N": table["crossover_N"].map(lambda v: f"{v:.2g}" if math.isfinite(v) else "none"),
        }
    )
    return [f"**{family}** (ε = 1e-2, {FIGURE_MODEL}):", "", markdown_table(shown), ""]


def _anchors(crossings: dict[str, pd.DataFrame], tables: dict[str, pd.DataFrame]) -> list[str]:
    """The control beside the anchors: their figures, ours (each family's crossover table), the anchors'
    assumptions run on our systems one at a time, and why they differ."""
    rows = [(who, what, result, left) for who, what, result, left in ANCHORS]
    for family in sorted(f for f in crossings if f.startswith("poisson")):
        table = crossings[family]
        crossing = table[np.isfinite(table["crossover_N"])]
        said = (
            f"crossover at N ≈ {crossing['crossover_N'].min():.2g} at the earliest"
            if len(crossing)
            else f"no crossover up to N = {int(table['largest_N'].max()):,}"
        )
        rows.append(
            (
                f"ours, {family}",
                f"cheapest of sparse access and Pauli LCU, QSVT and the adiabatic walk; quantum N^"
                f"{table['quantum_p'].min():.2f} at best, classical N^{table['classical_p'].max():.2f} at most",
                said,
                "nothing left out: b, the output and the classical side measured",
            )
        )
    return [
        "## The control beside the anchors",
        "",
        markdown_table(pd.DataFrame(rows, columns=["who", "estimated", "result", "leaves out"])),
        "",
        "Their model run on our control: the anchors' assumptions replace ours one at a time, cumulatively (a "
        "query at one logical Toffoli scales the Resource Estimator's runtime per solve by queries over Toffolis, "
        "as past its limit; the classical side is then CG with Jacobi measured here, the anchors' opponent). "
        "Each row's exponents are fitted over the sizes measured; a crossover is where the two fitted lines meet.",
        "",
        *[
            line
            for family in sorted(f for f in crossings if f.startswith("poisson"))
            for line in _ablation(tables, family)
        ],
        *[f"- {reason}" for reason in DIFFERENCES],
        "",
    ]


def _systems_table(systems: pd.DataFrame) -> pd.DataFrame:
    table = systems.sort_values("N")[
        [
            "size",
            "N",
            "nnz",
            "s",
            "max_abs",
            "norm2",
            "kappa",
            "kappa_method",
            "kappa_sparse_rel_error",
            "pauli_terms",
            "pauli_alpha",
        ]
    ]
    return table.rename(
        columns={
            "max_abs": "largest entry",
            "norm2": "‖A‖₂",
            "kappa": "κ",
            "kappa_method": "κ by",
            "kappa_sparse_rel_error": "sparse κ rel. error",
            "pauli_terms": "Pauli terms",
            "pauli_alpha": "Pauli α",
        }
    )


def _seconds(row) -> str:
    if pd.isna(row.get("seconds_low", float("nan"))):
        return f"{row['seconds']:.3g}"
    return f"{row['seconds']:.3g} [{row['seconds_low']:.3g}, {row['seconds_high']:.3g}]"


def _classical_table(classical: pd.DataFrame) -> pd.DataFrame:
    """The best classical method per size and accuracy: its time with its spread, iterations, memory, the runner-up."""
    best = best_classical(classical)
    rows = []
    for r in best.itertuples():
        others = classical[
            (classical["size"] == r.size) & np.isclose(classical["epsilon"], r.epsilon) & classical["reached"]
        ]
        second = others[others["method"] != r.method].sort_values("seconds").head(1)
        rows.append(
            {
                "N": int(r.N),
                "ε": r.epsilon,
                "best": r.method,
                "seconds median [range of 3]": _seconds(r._asdict()),
                "iterations": int(r.iterations),
                "peak MiB": f"{r.peak_mb:.0f}",
                "runner-up": f"{second['method'].iloc[0]} ({second['seconds'].iloc[0]:.3g} s)" if len(second) else "—",
            }
        )
    return pd.DataFrame(rows)


def _span(values: pd.Series, digits: str = "g") -> str:
    return "—" if values.empty else f"{values.min():{digits}} to {values.max():{digits}}"


def _crosscheck(table: pd.DataFrame) -> list[str]:
    """Our loading counts beside Qualtran's, per kind of lookup: the Toffoli differences and the qubit ratios."""
    if table.empty:
        return []
    rows = []
    for kind, part in table.groupby("lookup", sort=True):
        erase = part.dropna(subset=["ours_erase_toffolis", "tool_erase_toffolis"])
        qubits = part.dropna(subset=["ours_qubits", "tool_qubits"])
        rows.append(
            {
                "lookup": kind,
                "rows": len(part),
                "compute Toffolis: ours − Qualtran": _span(
                    part["ours_compute_toffolis"] - part["tool_compute_toffolis"]
                ),
                "erase Toffolis: ours − Qualtran": _span(erase["ours_erase_toffolis"] - erase["tool_erase_toffolis"]),
                "qubits: ours / Qualtran": _span(qubits["ours_qubits"] / qubits["tool_qubits"], ".3f"),
            }
        )
    tool = f"{table['tool'].iloc[0]} {table['tool_version'].iloc[0]}"
    return [
        "## The loading counts beside Qualtran",
        "",
        f"Every lookup the map charges for the systems above, built as the same bloq in {tool} at our block sizes "
        "and counted by walking its call graph (`qlsbench loadcheck docs/advantage/*.systems.parquet "
        "--out docs/advantage/loading.crosscheck.parquet`, with the `estimates` extra): `QROAMClean` for a "
        "lookup, its adjoint for the erasure, `AddIntoPhaseGrad` for a rotation. Toffolis are Toffoli-class gates "
        "(Qualtran's T count over 4). Where the difference is a constant, our formula and Qualtran's construction "
        "agree term by term but for it: its unary iteration saves two Toffolis on the compute half and its "
        "erasure four, its adder two. Qualtran counts more qubits (its unary iteration's ancillas).",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]


def _crossing(row) -> str:
    if not math.isfinite(row["crossover_N"]):
        return "none"
    band = f"[{row['crossover_low']:.2g}, {row['crossover_high']:.2g}]"
    said = " (extrapolated)" if row["extrapolated"] else ""
    return f"{row['crossover_N']:.2g} {band}{said}"


def _crossover_rows(table: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "ε": table["epsilon"],
            "readout": table["readout"],
            "model": table["model"],
            "classical p [95 %]": [
                f"{r.classical_p:.2f} [{r.classical_p_low:.2f}, {r.classical_p_high:.2f}]" for r in table.itertuples()
            ],
            "quantum p [95 %]": [
                f"{r.quantum_p:.2f} [{r.quantum_p_low:.2f}, {r.quantum_p_high:.2f}]" for r in table.itertuples()
            ],
            "crossover N [band]": [_crossing(r) for _, r in table.iterrows()],
        }
    )


def _verdict(family: str, table: pd.DataFrame, systems: pd.DataFrame) -> str:
    """Where the fits cross, or why they do not: the exponents of both sides and of kappa and s."""
    kappa, s = power_fit(systems["N"], systems["kappa"]), power_fit(systems["N"], systems["s"])
    growth = f"κ grows as N^{kappa.p:.2f} [{kappa.low:.2f}, {kappa.high:.2f}] and s as N^{s.p:.2f} over these sizes"
    crossing = table[np.isfinite(table["crossover_N"])]
    if crossing.empty:
        slowest = table["quantum_p"].min()
        fastest = table["classical_p"].max()
        return (
            f"No crossover for {family} under any model or readout: the quantum estimate grows as N^{slowest:.2f} "
            f"at best and the best classical method as N^{fastest:.2f} at most over the sizes measured ({growth}; "
            "the estimate's queries follow κ, its loading √(N s))."
        )
    low = crossing["crossover_N"].min()
    return (
        f"{family}: the fitted lines cross in {len(crossing)} of {len(table)} settings, the earliest at "
        f"N ≈ {low:.2g} (largest N measured: {int(table['largest_N'].max()):,}; {growth})."
    )


def plot_growth(systems: pd.DataFrame, out: Path) -> Path:
    """kappa and s against N, one line per family."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for family, part in systems.sort_values("N").groupby("family"):
        axes[0].loglog(part["N"], part["kappa"], marker="o", label=family)
        axes[1].semilogx(part["N"], part["s"], marker="o", label=family)
    axes[0].set_ylabel("κ")
    axes[1].set_ylabel("s (largest nonzeros per row or column)")
    for ax in axes:
        ax.set_xlabel("unknowns N")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, out)


def plot_runtimes(classical: pd.DataFrame, quantum: pd.DataFrame, out: Path) -> Path:
    """Best classical seconds and the cheapest estimate's, against N, per family (eps 1e-2, one model)."""
    best, cheap = best_classical(classical), cheapest_quantum(quantum)
    families = sorted(best["family"].unique())
    plt = pyplot()
    fig, axes = plt.subplots(1, len(families), figsize=(4 * len(families), 3.8), squeeze=False)
    for ax, family in zip(axes[0], families):
        c = best[(best["family"] == family) & np.isclose(best["epsilon"], 1e-2)]
        q = cheap[
            (cheap["family"] == family)
            & np.isclose(cheap["epsilon"], 1e-2)
            & (cheap["model"] == FIGURE_MODEL)
            & (cheap["readout"] == FIGURE_READOUT)
        ]
        ax.loglog(c["N"], c["seconds"], marker="o", label="best classical (measured)")
        ax.loglog(q["N"], q["seconds"], marker="s", label=f"fault-tolerant ({FIGURE_MODEL}, one observable)")
        ax.set_title(family, fontsize=9)
        ax.set_xlabel("unknowns N")
    axes[0][0].set_ylabel("seconds to fidelity 0.99")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, out)


def render(inputs: list[str], out: str | os.PathLike, figures: str | os.PathLike | None = None) -> Path:
    """Write the page and its two figures from the sweep's tables."""
    out = Path(out)
    tables = read_sweeps(inputs)
    folder = Path(figures) if figures is not None else out.parent / "figures"
    growth = plot_growth(tables["systems"], folder / "advantage-growth.png")
    runtimes = plot_runtimes(tables["classical"], tables["quantum"], folder / "advantage-runtimes.png")
    rel = lambda p: os.path.relpath(p, out.parent)  # noqa: E731
    text = [
        "# The advantage map: where, if anywhere, a fault-tolerant solver would beat the best classical one",
        "",
        "**This page is generated** from the sweep's tables in `docs/advantage/` (`qlsbench advantage --sweep "
        "full --out docs/advantage`, resumable; the workflow's `workflows/config/advantage.yaml` runs the same "
        "sweep one size a job) by `qlsbench figure advantage docs/advantage/*.parquet --out docs/advantage.md`; "
        "`tests/test_advantage_page.py` fails when they disagree. The default workflow draws the small sweep's "
        "page (`results/advantage.md`).",
        "",
        "## Assumptions",
        "",
        _assumptions(tables["classical"]),
        "",
        _caveats(tables),
        "",
        f"![κ and s against N]({rel(growth)})",
        "",
        f"![Best classical and fault-tolerant seconds against N]({rel(runtimes)})",
        "",
        *_what_ran(tables),
    ]
    crossings = {}
    for family, systems in tables["systems"].groupby("family", sort=True):
        classical = tables["classical"][tables["classical"]["family"] == family]
        quantum = tables["quantum"][tables["quantum"]["family"] == family]
        crossing = crossings[family] = crossover_table(family, classical, quantum)
        axis = AXES[family].counts if family in AXES else "size"
        text += [
            f"## {family}",
            "",
            f"Size: {axis}. Largest Pauli decomposition: N = "
            f"{int(systems.dropna(subset=['pauli_terms'])['N'].max()):,}."
            if systems["pauli_terms"].notna().any()
            else f"Size: {axis}. No Pauli decomposition (every padded N above the limit).",
            "",
            markdown_table(_systems_table(systems)),
            "",
            "The best classical solve per size:",
            "",
            markdown_table(_classical_table(classical)),
            "",
            _verdict(family, crossing, systems),
            "",
            markdown_table(_crossover_rows(crossing)),
            "",
        ]
    text += _crosscheck(tables["crosscheck"])
    text += _anchors(crossings, tables)
    return atomic_write_text(out, "\n".join(text))


FIGURE = page(
    "advantage",
    "the advantage map: systems as they grow, the best classical solver measured, a fault-tolerant one estimated",
    "the advantage sweep's tables (<family>.systems|classical|quantum.parquet)",
    render,
    # the workflow's page of the sweep its config's ``advantage:`` section asks for
    job=Job(
        "advantage_page",
        "results/advantage.md",
        targets=lambda config: ["results/advantage.md"] if config.advantage_tables() else [],
        inputs=lambda config, wc: config.advantage_tables(),
        log="logs/advantage_page.log",
    ),
)
