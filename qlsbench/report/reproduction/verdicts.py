"""The rules that turn fig. 2's and fig. 4's spreads over seeds into verdicts: pure functions, no files read.

Each rule is stated in its docstring, and the page names it beside its verdict.
"""

from __future__ import annotations

import numpy as np

from qlsbench.bench.spread import Spread
from qlsbench.report._loss_curves import smooth
from qlsbench.report.reproduction.paper import FIG2_QUBITS, SUCCESS_FIDELITY


def _run_sizes(*spreads: dict[int, Spread], sizes=FIG2_QUBITS) -> list[int]:
    """The sizes at which every one of ``spreads`` has seeds."""
    return [q for q in sizes if all(q in s and s[q].n for s in spreads)]


def _incomplete(run: list[int], sizes=FIG2_QUBITS) -> str:
    """A verdict's prefix when not every size has run (the verdict then covers those that have)."""
    return "" if len(run) == len(sizes) else f"incomplete ({len(run)} of {len(sizes)} sizes run so far): "


def _drops(spreads: dict[int, Spread]) -> str | None:
    """``reproduced`` / ``partly`` / ``not reproduced`` for a fall from 5 to 8 qubits; ``None`` without both."""
    small, large = spreads.get(FIG2_QUBITS[0]), spreads.get(FIG2_QUBITS[-1])
    if not small or not large or not small.n or not large.n:
        return None
    return "reproduced" if large.below(small) else "partly" if large.median < small.median else "not reproduced"


def global_drop_verdict(
    spreads: dict[int, Spread], random: dict[int, Spread] | None = None, above_random: list[int] | None = None
) -> str:
    """Fig. 2's first claim: the global cost's fidelity falls from 5 to 8 qubits.

    Reproduced when the 8-qubit spread lies wholly below the 5-qubit one
    (upper quartile under lower quartile); partly when only the medians fall.
    The control: a random vector's fidelity (about 1/2^n) falls by the same
    rule, so a fall alone says nothing; the verdict also says at which sizes
    the global cost is separated from a random vector (``above_random``).
    """
    outcome = _drops(spreads)
    if outcome is None:
        return f"not run yet ({len(_run_sizes(spreads))} of {len(FIG2_QUBITS)} sizes, and 5 and 8 are needed)"
    text = {
        "reproduced": "reproduced (the 8-qubit interquartile range lies below the 5-qubit one)",
        "partly": "partly (the median falls, but the interquartile ranges at 5 and 8 qubits overlap)",
        "not reproduced": "not reproduced (the median does not fall)",
    }[outcome]
    if random is not None and _drops(random) == "reproduced":
        text += (
            "; a random vector's fidelity falls by the same rule, so the fall is no verdict on its own: the "
            f"global cost is separated from a random vector at {_count(above_random)}"
        )
    return text


def _count(sizes: list[int] | None, of=FIG2_QUBITS) -> str:
    """``2 of 4 sizes (5, 6)``."""
    sizes = [q for q in (sizes or []) if q in of]
    return f"{len(sizes)} of {len(of)} sizes" + (f" ({', '.join(map(str, sizes))})" if sizes else "")


def local_learns_verdict(
    local: dict[int, Spread], glob: dict[int, Spread], above_b: list[int] | None = None, budgets: str = ""
) -> str:
    """Fig. 2's second claim: the local cost learns the solution at every size, where the global cost does not.

    Reproduced when at every size of 5-8 qubits the median reaches fidelity
    0.99 *and* the outcomes are separated from returning ``b`` (``above_b``:
    the sizes where they are; ``None`` when ``b`` was not run, and the 0.99
    bar alone decides); not reproduced when they are separated at no size.
    ``budgets`` is appended: how the verdict changes with the optimiser budget.
    """
    sizes = _run_sizes(local, glob)
    if not sizes:
        return "not run yet"
    head = _incomplete(sizes)
    above = [q for q in sizes if q in (above_b or [])]
    reached = [q for q in sizes if local[q].median >= SUCCESS_FIDELITY]
    better = [q for q in sizes if local[q].median > glob[q].median]
    separated = [q for q in sizes if glob[q].below(local[q])]
    context = (
        f"the local cost beats the global cost at {len(better)} of {len(sizes)} sizes (median; interquartile "
        f"ranges separated at {len(separated)}), and its median reaches fidelity {SUCCESS_FIDELITY} at "
        f"{len(reached)} of {len(sizes)} sizes"
    )
    if above_b is None:  # no control run: the old rule, and the verdict says what it rests on
        outcome = (
            "reproduced (no control run: median at fidelity >= "
            f"{SUCCESS_FIDELITY} at "
            f"{', '.join(map(str, sizes))} qubits)"
            if len(reached) == len(sizes)
            else f"{'partly' if len(better) == len(sizes) else 'not reproduced'}: {context}"
        )
    elif len(reached) == len(sizes) and len(above) == len(sizes):
        outcome = (
            "reproduced (separated from returning b at every size, median at fidelity >= "
            f"{SUCCESS_FIDELITY} at {', '.join(map(str, sizes))} qubits)"
        )
    elif above:
        outcome = f"partly: separated from returning b at {len(above)} of {len(sizes)} sizes; {context}"
    else:
        outcome = f"not reproduced: not separated from returning b at any size; {context}"
    return head + outcome + (f"; {budgets}" if budgets else "")


def all_solved_verdict(
    spreads: dict[int, Spread], sizes=FIG2_QUBITS, above_b: list[int] | None = None, b_meets: list[int] | None = None
) -> str:
    """VNLS on fig. 2: reproduced when every seed at every size reaches fidelity 0.99 and, where ``b`` was run,
    the outcomes are separated from returning ``b`` at every size (``above_b``); ``b_meets``: the sizes where
    returning ``b`` meets the 0.99 bar too (then the bar alone is no verdict, and the page says so)."""
    present = _run_sizes(spreads, sizes=sizes)
    if not present:
        return "not run yet"
    worst = min(spreads[q].low for q in present)
    head = _incomplete(present, sizes)
    meets = [q for q in (b_meets or []) if q in present]
    note = (
        f"; returning b meets fidelity {SUCCESS_FIDELITY} too at {_count(meets, present)}, so the bar "
        "alone is no verdict"
        if meets
        else ""
    )
    if worst < SUCCESS_FIDELITY:
        return f"{head}not reproduced (worst seed {worst:.3f}){note}"
    if above_b is None:
        return f"{head}reproduced (every seed at fidelity >= {SUCCESS_FIDELITY}; worst {worst:.3f})"
    above = [q for q in present if q in above_b]
    if len(above) == len(present):
        return (
            f"{head}reproduced (every seed at fidelity >= {SUCCESS_FIDELITY}, worst {worst:.3f}, and separated "
            f"from returning b at every size){note}"
        )
    return (
        f"{head}not separated from returning b at {len(present) - len(above)} of {len(present)} sizes (every "
        f"seed at fidelity >= {SUCCESS_FIDELITY}, worst {worst:.3f}){note}"
    )


def loss_falls(history, window: int = 51) -> bool:
    """Whether a loss curve's de-noised trend ends below where it starts (fig. 4's evidence)."""
    h = np.asarray(history, dtype=float)
    if len(h) < 2:
        return False
    trend = smooth(h, window)
    return bool(trend[-1] < trend[0])


__all__ = ["all_solved_verdict", "global_drop_verdict", "local_learns_verdict", "loss_falls"]


def fall_contrast(
    glob: dict[int, np.ndarray], local: dict[int, np.ndarray], resamples: int = 2000
) -> tuple[float, float, float] | None:
    """How much more the global cost's median fidelity falls from 5 to 8 qubits than the local cost's: the
    difference of the two falls and its percentile-bootstrap 95 % interval (seeds resampled within each cell;
    seeded, so repeatable). ``None`` where a cell has no seeds."""
    small, large = FIG2_QUBITS[0], FIG2_QUBITS[-1]
    found = [glob.get(small), glob.get(large), local.get(small), local.get(large)]
    cells = [np.asarray(c, dtype=float) for c in found if c is not None and len(c)]
    if len(cells) < 4:
        return None
    rng = np.random.default_rng(0)

    def medians(values):
        v = np.asarray(values, dtype=float)
        return np.median(rng.choice(v, size=(resamples, len(v)), replace=True), axis=1)

    g5, g8, l5, l8 = (medians(c) for c in cells)
    boot = (g5 - g8) - (l5 - l8)
    point = (np.median(cells[0]) - np.median(cells[1])) - (np.median(cells[2]) - np.median(cells[3]))
    low, high = np.percentile(boot, [2.5, 97.5])
    return float(point), float(low), float(high)


def contrast_verdict(glob: dict[int, np.ndarray], local: dict[int, np.ndarray]) -> str:
    """Fig. 2's contrast: the global cost drops off with size *where the local cost does not*, judged as a
    contrast. Reproduced when the global cost's fall from 5 to 8 qubits exceeds the local cost's with the
    difference's bootstrap 95 % interval above zero; not reproduced when the interval lies at or below zero
    everywhere; else not shown (the interval holds zero)."""
    contrast = fall_contrast(glob, local)
    if contrast is None:
        return "not run yet (5 and 8 qubits are needed for both costs)"
    point, low, high = contrast
    numbers = (
        f"the global cost's median falls {point:+.3f} more than the local cost's "
        f"[95 % interval {low:+.3f}, {high:+.3f}]"
    )
    if low > 0:
        return f"reproduced: {numbers}"
    if high <= 0:
        return f"not reproduced: {numbers}"
    return f"not shown: {numbers}, an interval that holds zero"
