"""No written format changes without a new version, and every written file tells which version wrote it.

The fingerprints of what the code writes (:mod:`qlsbench.bench._formats`) are
held against those recorded for the package's version
(:data:`qlsbench.versions.FORMAT_FINGERPRINTS`); the version is the one
CHANGELOG.md names last, and every version the history names has its entry.
"""

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from qlsbench import __version__
from qlsbench.bench import _formats as formats
from qlsbench.bench import _results as results
from qlsbench.data._schema import PACKAGE_KEY
from qlsbench.versions import (
    DATASET_STAMP,
    FORMAT_FINGERPRINTS,
    HISTORY,
    SHIPPED_COMMITS,
    VERSION,
    collection_version,
    parse,
)

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
#: ``## [0.2.0] - 2026-11-28``: a version's entry, newest first.
ENTRIES = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$", CHANGELOG, re.MULTILINE)


def test_every_written_format_is_the_one_recorded_for_this_version(ising_dataset, tmp_path):
    now = {**formats.declared(), **formats.written(ising_dataset, tmp_path)}
    recorded = FORMAT_FINGERPRINTS.get(VERSION)
    bump = (
        f"bump VERSION in qlsbench/versions.py (now {VERSION}), add its entry to CHANGELOG.md (what changed, "
        f"and how older files read), and record the new fingerprints: FORMAT_FINGERPRINTS[new version] = {now!r}"
    )
    assert recorded is not None, f"no format fingerprints recorded for version {VERSION}: {bump}"
    changed = sorted(name for name in now.keys() | recorded.keys() if now.get(name) != recorded.get(name))
    assert not changed, f"the format of {', '.join(changed)} changed since version {VERSION} was recorded: {bump}"


def test_a_fingerprint_sees_a_column_added(monkeypatch):
    before = formats.declared()["results"]
    monkeypatch.setattr(results, "RESULT_COLUMNS", [*results.RESULT_COLUMNS, ("extra", pa.float64())])
    assert formats.declared()["results"] != before
    monkeypatch.setattr(
        results, "RESULT_COLUMNS", [(n, pa.string() if n == "cond" else t) for n, t in results.RESULT_COLUMNS[:-1]]
    )
    assert formats.declared()["results"] != before  # a column's type, too


def test_the_version_is_the_changelogs_newest_and_every_historical_version_has_its_entry():
    assert __version__ == VERSION and ENTRIES and ENTRIES[0][0] == VERSION
    named = [version for version, _ in ENTRIES]
    assert named == sorted(named, key=parse, reverse=True), "CHANGELOG.md's entries are not newest first"
    dates = dict(ENTRIES)
    for change in HISTORY:
        assert dates.get(change.version) == change.date, f"CHANGELOG.md has no entry [{change.version}] - {change.date}"
        assert f"`{change.commit}`" in CHANGELOG, f"CHANGELOG.md does not name {change.commit} ({change.what})"
    assert set(SHIPPED_COMMITS.values()) <= set(dates) and set(FORMAT_FINGERPRINTS) <= set(dates)


def test_results_and_pauli_studies_stamp_the_version_and_datasets_their_own(ising_dataset, tmp_path):
    from qlsbench.bench import SolverSpec, pauli_study, run_solver

    rows = run_solver(SolverSpec("lu"), ising_dataset, tmp_path / "lu.parquet", progress=False)
    assert set(rows["qlsbench_version"]) == {VERSION}
    pauli_study(ising_dataset, tmp_path / "pauli.parquet", progress=False)
    assert pq.read_schema(tmp_path / "pauli.parquet").metadata[PACKAGE_KEY] == VERSION.encode()
    # a dataset stamps the release that last changed datasets, so a release that changes none keeps their bytes
    assert pq.read_schema(ising_dataset).metadata[PACKAGE_KEY] == DATASET_STAMP.encode()
    assert parse(DATASET_STAMP) <= parse(VERSION)


def test_the_shipped_collections_each_have_a_version():
    for folder in ("reproduction", "reproduction-controls"):
        manifest = json.loads((ROOT / "docs" / folder / "manifest.json").read_text(encoding="utf-8"))
        for part in manifest["collections"]:
            assert collection_version(part) is not None, (
                f"docs/{folder}: collection at commit {part['commit'][:12]} has no version: stamp it or add the "
                "commit to SHIPPED_COMMITS"
            )
    assert collection_version({"commit": "f" * 40, "qlsbench_version": "0.2.0"}) == "0.2.0"
    assert collection_version({"commit": "f" * 40}) is None
