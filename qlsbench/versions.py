"""qlsbench's version, and the history that tells results of one version from another.

:data:`VERSION` is the one place the package's version is written:
``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``), ``qlsbench.__version__``
is it, and every results file, results manifest and Pauli study stamps it. It moves
with every change to a file format or to what a result means, with an entry in
``CHANGELOG.md``; ``tests/test_versions.py`` fails when a written format changes and
the version does not (:data:`FORMAT_FINGERPRINTS`).

Until 0.2.0 the version stood at 0.1.0 while formats and meanings changed: every
file of that time says 0.1.0. :data:`HISTORY` is the reconstructed history (the
versions those changes would have had, never stamped), and :data:`SHIPPED_COMMITS`
maps the commits that shipped results of that time (a shipped manifest records its
collection's commit) to those versions: the one place a commit stands for a version.

This module imports nothing, so the package's face and ``pyproject.toml`` can read it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The package's version. Bump it (and add a ``CHANGELOG.md`` entry) with every change to a written file's
#: format or to what a result means.
VERSION = "0.2.5"

#: What a dataset file stamps as ``qlsbench.package_version``: the release that last changed what dataset files
#: hold, not :data:`VERSION`, so that a release which changes nothing in the datasets leaves their bytes (and the
#: hashes they are pinned and compared by) the same. Set it to :data:`VERSION` in a release that changes a
#: dataset's bytes or meaning. Every dataset written up to now says 0.1.0; a sphere dataset's ``dataset_version``
#: (1 or 2) tells the contact-LCP chains apart.
DATASET_STAMP = "0.1.0"


@dataclass(frozen=True)
class Change:
    """One change of a format or of a result's meaning before versions moved with them.

    Attributes
    ----------
    version : str
        The version the change would have had (reconstructed; files of the time all say 0.1.0).
    date : str
        The commit's date, ``YYYY-MM-DD``.
    commit : str
        The commit that made it (7 hex digits).
    what : str
        What changed, in a line.
    """

    version: str
    date: str
    commit: str
    what: str


#: The reconstructed history of formats and meanings up to 0.2.0, oldest first (``CHANGELOG.md`` tells it in
#: words; ``git log`` has the rest).
HISTORY: tuple[Change, ...] = (
    Change("0.1.0", "2026-11-22", "cdfa613", "datasets schema 1, results schema 1"),
    Change("0.1.1", "2026-11-23", "620ea28", "results schema 2"),
    Change(
        "0.1.2",
        "2026-11-24",
        "e5b1439",
        "results schema 3 (progress columns); VQLS's default ansatz becomes the brick-wall layers (the ladder before)",
    ),
    Change("0.1.3", "2026-11-25", "b7a906e", "results schema 4 (progress_seconds)"),
    Change(
        "0.1.4",
        "2026-11-25",
        "87555af",
        "sphere datasets version 2 (dataset_version: 2, the NSGS contact-LCP chain of frictional DEM-C)",
    ),
    Change("0.1.5", "2026-11-26", "ecaf827", "sphere datasets record newton_start: zero (min-map Newton from zero)"),
    Change(
        "0.1.6",
        "2026-11-26",
        "da665ee",
        "results schema 5 (device columns: routed_depth, two_qubit_gates, device_seconds)",
    ),
    Change(
        "0.1.7",
        "2026-11-26",
        "bcefa94",
        "each batch's seed drawn from (seed, stream, evaluation) instead of "
        "seed + evaluation, whose per-circuit offsets replayed one "
        "evaluation's and one seed's shots in the next",
    ),
    Change(
        "0.1.7",
        "2026-11-26",
        "75db1df",
        "each QN-SPSA metric estimate draws new shots (before, the estimates "
        "between two cost evaluations reused the same shots)",
    ),
)

#: From this version on, Aer's shots are seeded independently across circuits, evaluations and seeds (the two
#: changes of :data:`HISTORY` at this version); results of Aer circuits from before it share shot noise.
AER_SEEDING_FIXED = "0.1.7"

#: Commits (12 hex digits) of shipped collections of the 0.1.0 era -> the version they ran at (:data:`HISTORY`):
#: the paper run's parts in ``docs/reproduction`` and the controls in ``docs/reproduction-controls``. A
#: collection shipped since 0.2.0 stamps its version (``qlsbench_version``) and needs no line here.
SHIPPED_COMMITS = {
    "ecaf8274728e": "0.1.5",  # paper run, parts 1-4: before the Aer seeding fixes
    "da18b221fa73": "0.1.7",  # paper run, parts 5-6: the Aer columns rerun with both fixes
    "ca638ef22133": "0.1.7",  # the controls
}

#: The formats of 0.2.0, unchanged in 0.2.1 (which changed what noisy device runs sample, not a format); 0.2.2 added
#: two in-loop options (``start_step``, ``stop_when_decided``; files without them ran from step 0, to the end).
_FORMATS_0_2_0 = {
    "datasets": "58017ba3ff5a2f0a",
    "results": "bfe5bfc15204e24b",
    "snapshots": "14e5c1fd97cb25df",
    "in-loop": "3adb848dbe94b8bd",
    "pauli": "89db8f80bea4e543",
    "lcu": "cdf1d4f110d7bb72",
    "resources": "520a5c7f2e571bea",
}


#: Per version, a fingerprint of every format qlsbench writes (:func:`qlsbench.bench._formats.fingerprints`):
#: ``tests/test_versions.py`` compares the code's with :data:`VERSION`'s line, so a format cannot change without
#: a new version.
FORMAT_FINGERPRINTS = {
    "0.2.0": _FORMATS_0_2_0,
    "0.2.1": _FORMATS_0_2_0,
    "0.2.2": {**_FORMATS_0_2_0, "in-loop": "b18f8136387b0ef5"},  # in-loop options: start_step, stop_when_decided
    # 0.2.3: frictional datasets record friction_tol and friction_solver (inside the metadata, not a new key)
    "0.2.3": {**_FORMATS_0_2_0, "in-loop": "b18f8136387b0ef5"},
    # 0.2.4: the stepper's default APGD finish runs in rounds with NSGS (frictional trajectories, not formats)
    "0.2.4": {**_FORMATS_0_2_0, "in-loop": "b18f8136387b0ef5"},
    # 0.2.5: the tolerance study's judgement of piles (a page, not a format)
    "0.2.5": {**_FORMATS_0_2_0, "in-loop": "b18f8136387b0ef5"},
}


def parse(version: str) -> tuple[int, ...]:
    """``"0.1.7"`` as ``(0, 1, 7)``, for comparing versions."""
    return tuple(int(part) for part in version.split("."))


def changes_in(version: str) -> tuple[Change, ...]:
    """The changes of :data:`HISTORY` made at ``version``."""
    return tuple(change for change in HISTORY if change.version == version)


def collection_version(part: dict) -> str | None:
    """The version a shipped collection (a manifest's ``collections`` entry) ran at: the one it stamps, else its
    commit's in :data:`SHIPPED_COMMITS`; ``None`` when neither tells."""
    if part.get("qlsbench_version"):
        return part["qlsbench_version"]
    return SHIPPED_COMMITS.get(str(part.get("commit", ""))[:12])


__all__ = [
    "AER_SEEDING_FIXED",
    "Change",
    "DATASET_STAMP",
    "FORMAT_FINGERPRINTS",
    "HISTORY",
    "SHIPPED_COMMITS",
    "VERSION",
    "changes_in",
    "collection_version",
    "parse",
]
