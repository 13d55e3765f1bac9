"""The asv suites import and are well-formed (a full `asv run` is too slow for every test run)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"

#: Every hot path tracks accuracy next to its timing: suite -> class -> accuracy benchmarks it must keep.
#: Removing one of these (or renaming it, which loses its asv history) fails here.
ACCURACY = {
    "bench_classical.py": {"ClassicalSolve": {"track_rel_residual", "track_rel_error"}},
    "bench_cli.py": {"CommandLine": {"track_heavy_modules"}},  # the imports the CLI's speed rests on
    "bench_physics.py": {
        "SedimentationStep": {"track_lcp_residual", "track_max_penetration"},
        "ContactLCP": {"track_minmap_residual", "track_complementarity_error"},
        # the pile that keeps sliding proves it still does at the end of its run
        "SlidingPile": {"track_late_median_sweeps", "track_late_sliding_share"},
    },
    # the facet count's time beside its error against the exact Coulomb cone (docs/facets.md)
    "bench_facets.py": {"FacetStep": {"track_error_vs_exact_cone"}},
    "bench_penalty.py": {
        "ClothStep": {"track_residual_ratio", "track_newton_iterations", "track_gmres_iterations"},
        "BackwardEulerOperator": {"track_adjoint_defect"},
    },
    "bench_cdlagrange.py": {
        "ImpactStep": {"track_lcp_residual", "track_restitution_violation"},
        "BallTrajectory": {"track_energy_drift"},
    },
    "bench_hhl.py": {"HHLCircuit": {"track_forms_disagree"}},
    "bench_pauli.py": {"DecompositionAccuracy": {"track_max_diff_vs_qiskit", "track_reconstruction_error"}},
    "bench_vqls.py": {
        "CostEvaluation": {"track_exact_vs_circuits", "track_cost_at_solution", "track_shot_deviation_in_sigma"},
        # the noisy tests split at their fronts against Aer's whole circuits
        "NoisyCostEvaluation": {"track_max_probability_difference"},
    },
    "bench_devices.py": {"AerMethods": {"track_methods_total_variation"}},
    "bench_vnls.py": {
        "SRAccuracy": {"track_infidelity", "track_loss", "track_mc_loss_rel_rms_error", "track_mc_loss_bias_in_sigma"},
        "ExactSolves": {"track_max_amplitude_difference"},
        "ExactSRSteps": {"track_max_relative_loss_difference"},
    },
    "bench_board.py": {"BoardPages": {"track_sgm_max_rel_diff_vs_apply"}},
    # the advantage map's kappa against the control's closed form, the classical solvers' fidelity at their time
    "bench_advantage.py": {"SparseKappa": {"track_kappa_rel_error"}, "ClassicalToAccuracy": {"track_fidelity"}},
}

#: Names of speed benchmarks that are ratios measured in one process, comparable across commits.
RATIO = re.compile(r"^track_.*(ratio|speedup|per_second)")


def _classes(path: Path) -> dict[str, dict[str, ast.FunctionDef]]:
    """Top-level classes of a suite and their methods, read without importing it (NetKet and Qiskit are slow)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return {
        node.name: {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


def _unit_assigned(path: Path, cls: str, method: str) -> bool:
    """Whether the class body sets ``method.unit = ...`` (asv shows the unit next to the value)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == cls).body
    return any(
        isinstance(stmt, ast.Assign)
        and any(
            isinstance(t, ast.Attribute) and t.attr == "unit" and isinstance(t.value, ast.Name) and t.value.id == method
            for t in stmt.targets
        )
        for stmt in body
    )


def test_asv_suites_are_well_formed():
    run = subprocess.run(
        [sys.executable, "-m", "asv", "check", "--python=same"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # An import error in one suite is reported but does not change the return code.
    assert "No problems found" in run.stdout + run.stderr


@pytest.mark.parametrize("suite", sorted(ACCURACY))
def test_no_suite_inherits_a_setup_cache(suite):
    """asv keys a ``setup_cache`` by where it is defined: suites that inherit one share one run, and each then
    reports the other's figures (the 1,000-sphere suite once read the 4,000-sphere run's)."""
    path = BENCHMARKS / suite
    tree = ast.parse(path.read_text(), filename=str(path))
    nodes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    classes = _classes(path)
    for name, node in nodes.items():
        bases = [base.id for base in node.bases if isinstance(base, ast.Name) and base.id in classes]
        inherited = [base for base in bases if "setup_cache" in classes[base]]
        assert "setup_cache" in classes[name] or not inherited, f"{suite}: {name} inherits setup_cache from {inherited}"


def test_every_suite_file_is_covered():
    """A new ``bench_*.py`` is added to ``ACCURACY`` (with the accuracy it tracks) or this fails."""
    assert {p.name for p in BENCHMARKS.glob("bench_*.py")} == set(ACCURACY)


@pytest.mark.parametrize("suite", sorted(ACCURACY))
def test_hot_paths_track_accuracy_next_to_speed(suite):
    path = BENCHMARKS / suite
    classes = _classes(path)
    for cls, required in ACCURACY[suite].items():
        assert cls in classes, f"{suite}: class {cls} is gone"
        missing = required - set(classes[cls])
        assert not missing, f"{suite}:{cls} no longer tracks {sorted(missing)}"
        for name in required:
            assert _unit_assigned(path, cls, name), f"{suite}:{cls}.{name} has no unit"
    # Speed is tracked in the same suite, as a time or as an in-process ratio.
    methods = {name for members in classes.values() for name in members}
    assert any(m.startswith("time_") or RATIO.match(m) for m in methods), f"{suite} times nothing"


def test_config_builds_commits_and_still_runs_in_place():
    """``asv continuous`` needs a managed environment; ``--python=same`` keeps the in-place run of CI."""
    from asv.util import load_json

    conf = load_json(str(REPO / "asv.conf.json"), js_comments=True)  # JSON with // comments, read as asv does
    assert conf["environment_type"] == "virtualenv"
    assert conf["pythons"]
    assert all(conf[key].startswith(".asv/") for key in ("env_dir", "results_dir", "html_dir"))
    assert "/.asv/" in (REPO / ".gitignore").read_text().split()
