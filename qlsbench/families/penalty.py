"""The ``penalty`` family: Newton systems of backward Euler with penalty contact and Coulomb friction (seed 001).

Non-symmetric wherever a contact slides; assembled from the matrix-free
operator of each Newton-GMRES iteration (:mod:`qlsbench.physics.penalty`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qlsbench.checks import COUNT, NON_NEGATIVE, POSITIVE, Real
from qlsbench.data import write_systems
from qlsbench.errors import InputError
from qlsbench.families.base import Family, LoopWorld, Rule
from qlsbench.options import Options, option
from qlsbench.outcomes import Status
from qlsbench.physics import SubsystemRecorder, export_systems
from qlsbench.physics.penalty import (
    PENALTY_SCENES,
    PenaltyNewtonOptions,
    build_penalty_scene,
    simulate_penalty,
)
from qlsbench.text import plural

#: The name written into every penalty dataset's metadata since v1, kept so the bytes stay.
GENERATOR = "qlsbench.generate.simulate_penalty_dataset"
#: Largest Newton system a penalty run assembles for export (bigger ones are counted, not kept).
EXPORT_LIMIT = 4096


@dataclass(frozen=True)
class PenaltyOptions(Options):
    """A penalty-friction scene and which of its Newton systems to keep."""

    scene: str = option("incline-block", "scene to simulate", choices=tuple(PENALTY_SCENES))
    steps: int = option(400, "time steps", bounds=COUNT)
    h: float | None = option(None, "time step (s); default: the one the scene was tuned for", bounds=POSITIVE)
    mu: float | None = option(None, "friction coefficient; default: the scene's", bounds=NON_NEGATIVE)
    params: dict = option(
        {}, "scene parameter, e.g. --param angle=30 --param n=3 (see the scene builders)", pairs=True, flag="--param"
    )
    every: int = option(1, "keep the systems of every k-th step", bounds=COUNT)
    kappa_cap: float | None = option(
        1e12,
        "drop systems with a larger condition number (inf keeps every system)",
        bounds=Real(1.0, infinite=True),
        nullable=True,
    )
    max_systems: int | None = option(None, "keep at most this many systems", bounds=COUNT)
    newton_tol: float = option(
        PenaltyNewtonOptions.tol, "Newton tolerance relative to one step's gravity impulse", bounds=POSITIVE, cli=False
    )
    newton_max_iter: int = option(PenaltyNewtonOptions.max_iter, "Newton iteration cap", bounds=COUNT, cli=False)

    def scene_params(self) -> dict:
        """The scene builder's keywords: ``params``, with ``mu`` given on its own merged in."""
        return {**self.params, **({"mu": self.mu} if self.mu is not None else {})}

    def time_step(self) -> float:
        return PENALTY_SCENES[self.scene][1] if self.h is None else self.h


def label(options: PenaltyOptions) -> str:
    """The built scene's name (``incline-block-a30-mu0.3``), so building checks the parameters too."""
    return build_penalty_scene(options.scene, **options.scene_params()).name


class _Capture:
    """The Newton ``capture`` callback :func:`capture_into` makes, with its count of the systems left out."""

    def __init__(self, recorder: SubsystemRecorder, max_dim: int) -> None:
        self.recorder, self.max_dim, self.too_large = recorder, max_dim, 0

    def __call__(self, evaluation, rhs, dz, context) -> None:
        if context["step"] % self.recorder.every:  # the recorder checks this too, but only after H is assembled
            return
        if len(rhs) > self.max_dim:
            self.too_large += 1
            return
        A = evaluation.matrix()
        self.recorder(A, rhs, {**context, "sliding_fraction": context["sliding"] / max(context["contacts"], 1)})


def capture_into(recorder: SubsystemRecorder, max_dim: int = EXPORT_LIMIT) -> _Capture:
    """A Newton ``capture`` callback that assembles ``H`` and hands it to ``recorder``.

    Systems above ``max_dim`` unknowns are counted in the callback's
    ``too_large`` attribute instead (assembling them is what the matrix-free
    solver avoids).
    """
    return _Capture(recorder, max_dim)


def build(options: PenaltyOptions, out: Path, progress: bool = True) -> dict:
    """Run the scene and write its Newton systems to ``out/part-0000.parquet``.

    Returns
    -------
    dict
        The dataset metadata written, with ``steps_per_second`` and ``out`` added.
    """
    params = options.scene_params()
    model = build_penalty_scene(options.scene, **params)
    h = options.time_step()
    newton = PenaltyNewtonOptions(tol=options.newton_tol, max_iter=options.newton_max_iter)
    recorder = SubsystemRecorder(every=options.every, max_systems=options.max_systems)
    capture = capture_into(recorder)
    t0 = time.perf_counter()
    reports = simulate_penalty(model, options.steps, h, newton, capture=capture, progress=progress)
    elapsed = time.perf_counter() - t0
    systems, stats = export_systems(recorder, kappa_cap=options.kappa_cap, scene=model.name, family="penalty")
    if not systems:
        raise InputError(
            f"simulation {model.name}: no Newton system to export ({stats['captured']} captured, "
            f"{capture.too_large} above {EXPORT_LIMIT} unknowns, {stats['dropped_kappa']} over "
            f"the kappa cap) in {plural(options.steps, 'step')} with every={options.every}"
        )
    iters = np.array([r.newton.iterations for r in reports])
    meta = {
        "generator": GENERATOR,
        "family": "penalty",
        "scene": options.scene,
        "scene_label": model.name,
        "params": params,
        "mu": model.mu,
        "stiffness": model.stiffness,
        "steps": options.steps,
        "h": h,
        "every": options.every,
        "newton_tol": options.newton_tol,
        "newton_max_iter": options.newton_max_iter,
        "ndof": model.ndof,
        **stats,
        "too_large": capture.too_large,
        "newton_iterations_mean": float(iters.mean()),
        "newton_iterations_max": int(iters.max()),
        "steps_not_converged": sum(r.newton.status is not Status.CONVERGED for r in reports),
        "max_contacts": max(r.contacts for r in reports),
        "max_sliding": max(r.sliding for r in reports),
        "non_symmetric": sum(not s.meta["symmetric"] for s in systems),
    }
    write_systems(systems, Path(out) / "part-0000.parquet", metadata=meta, progress=progress)
    return {**meta, "out": str(out), "steps_per_second": options.steps / elapsed if elapsed > 0 else float("inf")}


def report(facts: dict) -> list[str]:
    lines = [
        f"{facts['scene_label']}: {plural(facts['steps'], 'step')} of h={facts['h']:g} at "
        f"{facts['steps_per_second']:.1f} steps/s, Newton {facts['newton_iterations_mean']:.2f} it/step (max "
        f"{facts['newton_iterations_max']}), {facts['exported']} of {plural(facts['captured'], 'system')} "
        f"exported ({facts['non_symmetric']} non-symmetric), cond {facts['cond_min']} .. {facts['cond_max']} -> "
        f"{facts['out']}"
    ]
    if facts["steps_not_converged"]:
        lines.append(
            f"warning: Newton did not reach its tolerance in {facts['steps_not_converged']} of "
            f"{plural(facts['steps'], 'step')}"
        )
    return lines


class PenaltyWorld:
    """A penalty scene stepped by backward Euler with Newton-GMRES, for a solver in the loop (a
    :class:`~qlsbench.families.base.World`); ``newton_max_iter`` ``None`` is the stepper's cap."""

    def __init__(self, options) -> None:
        self.scene = PenaltyOptions(scene=options.scene or PenaltyOptions.scene, params=options.params, h=options.h)
        self.h = self.scene.time_step()
        self.newton = PenaltyNewtonOptions(max_iter=options.newton_max_iter or PenaltyNewtonOptions.max_iter)

    def build(self) -> dict:
        return {"model": build_penalty_scene(self.scene.scene, **self.scene.scene_params())}

    def advance(self, state: dict, k: int, linear, count=None):
        from qlsbench.physics.penalty.backward_euler import time_step

        capture = None if count is None else (lambda ev, rhs, dz, context: count.see(rhs))
        return time_step(state["model"], self.h, self.newton, capture=capture, linear=linear)

    def measure(self, state: dict, report) -> dict:
        model = state["model"]
        positions = np.concatenate([model.particles.x, model.spheres.x]).copy()
        velocities = np.concatenate([model.particles.v, model.spheres.v]).copy()
        return {
            "positions": positions,
            "velocities": velocities,
            "kinetic_energy": float(model.kinetic_energy()),
            "penetration_max": np.nan,
            "penetration_mean": np.nan,
            "complementarity": float(report.newton.residual),
            "newton_iterations": int(report.newton.iterations),
            "fallback": report.newton.gradient_directions > 0,
            "step_status": str(report.newton.status),
        }


def check_loop_scene(options) -> None:
    """The scene builds with its parameters (only the builder checks them)."""
    PenaltyWorld(options).build()


#: A solver inside the penalty loop: the scene, its parameters (friction among them: ``--param mu=0.3``), the
#: steps and the time step; a short run by default.
LOOP = LoopWorld(
    fields=("scene", "h", "steps", "params"),
    defaults={"scene": None, "steps": 60},
    make=PenaltyWorld,
    check=check_loop_scene,
)


FAMILY = Family(
    name="penalty",
    summary="Newton systems of penalty-friction backward Euler (Newton-GMRES), non-symmetric where contacts slide",
    options=PenaltyOptions,
    build=build,
    label=label,
    report=report,
    command="simulate",
    config_key="penalty",
    scenes=tuple(PENALTY_SCENES),
    loop=LOOP,
    rule=Rule("simulate_penalty", resources={"mem_mb": 4000, "runtime": 120}),
)
