"""The dataset card (datasets/README.md) read the way the Hugging Face Hub and GitHub read it.

The front matter must parse, name one config per dataset family with the default workflow's files, and
declare features equal to the files' own schema; the body must render with a CommonMark + GFM-tables
renderer into tables whose rows are all there; and the real ``datasets`` package must load every config
from a folder laid out as the workflow lays it out (small builds of every family, made here).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from markdown_check import assert_tables_render_whole
from markdown_check import tables as _tables

from qlsbench.data import COLUMNS
from qlsbench.families import FAMILIES
from qlsbench.workflow import dataset_runs, trajectory_outputs

REPO = Path(__file__).resolve().parents[1]
CARD = REPO / "datasets" / "README.md"
DEFAULT = yaml.safe_load((REPO / "workflows" / "config" / "default.yaml").read_text())


def _split_card() -> tuple[dict, str]:
    """The card's YAML front matter (parsed) and its Markdown body, split as the Hub splits them."""
    text = CARD.read_text()
    match = re.match(r"\A---\n(.*?)\n---\n(.*)\Z", text, re.DOTALL)
    assert match, "the card must open with YAML front matter between two '---' lines"
    return yaml.safe_load(match.group(1)), match.group(2)


def _configs() -> dict[str, dict[str, str]]:
    """Config name to {split: path pattern}."""
    front, _ = _split_card()
    return {c["config_name"]: {f["split"]: f["path"] for f in c["data_files"]} for c in front["configs"]}


# ---------------------------------------------------------------- front matter


def test_front_matter_is_valid_hub_metadata():
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    front, _ = _split_card()
    data = DatasetCardData(**front)
    configs = MetadataConfigs.from_dataset_card_data(data)  # the loader's own reading; raises when malformed
    assert set(configs) == set(_configs())
    assert front["license"] == "apache-2.0" and (REPO / "LICENSE").read_text().lstrip().startswith("Apache License")
    for config in front["configs"]:
        for entry in config["data_files"]:
            assert re.fullmatch(r"\w+(\.\w+)*", entry["split"]), f"{entry['split']!r} is not a valid split name"


def test_one_config_per_family_with_the_default_workflows_files():
    """A new family, or a dataset added to default.yaml, without its card entry fails here."""
    configs = _configs()
    expected: dict[str, set[str]] = {}
    for name, (family, _) in dataset_runs(DEFAULT).items():
        if family.systems:
            expected.setdefault(family.name, set()).add(f"{name}/*.parquet")
    for name, files in expected.items():
        assert set(configs[name].values()) == files, name
    system_families = [name for name, family in FAMILIES.items() if family.systems]
    # The pinned config comes first: the Hub's loader resolves the first config's files even when another is
    # asked for, and only the pinned files exist on a fresh install (`qlsbench pinned --out datasets/pinned`).
    first = ["pinned", *(name for name in system_families if name != "pinned")]
    assert [c for c in configs if c in FAMILIES and FAMILIES[c].systems] == first
    # Trajectory files are one config per column layout; together they are every default trajectory file.
    trajectory_files = {p for c, splits in configs.items() if c.startswith("trajectories") for p in splits.values()}
    assert {f"datasets/{p}" for p in trajectory_files} == set(trajectory_outputs(DEFAULT))
    assert set(configs) == set(system_families) | {c for c in configs if c.startswith("trajectories")} | {"advantage"}
    # the advantage map's growth systems: one split per growth axis, its files as the sweep names them
    from qlsbench.bench.advantage import AXES

    assert configs["advantage"] == {axis.replace("-", "_"): f"advantage/{axis}/*.parquet" for axis in AXES}


def test_features_are_declared_for_every_config_and_match_the_schema():
    from datasets import Features

    front, _ = _split_card()
    info = {entry["config_name"]: entry["features"] for entry in front["dataset_info"]}
    assert set(info) == set(_configs())
    schema = Features.from_arrow_schema(pa.schema([(name, arrow_type) for name, arrow_type, _ in COLUMNS]))
    for name in (c for c in info if not c.startswith("trajectories")):
        assert [f["name"] for f in info[name]] == list(schema), name
        assert Features._from_yaml_list(info[name]) == schema, name  # read as the datasets package reads it


# ---------------------------------------------------------------- body, rendered


def test_every_table_renders_whole():
    _, body = _split_card()
    assert len(_tables(body)) >= 5
    assert_tables_render_whole(body)


def test_the_tables_have_the_rows_they_document():
    _, body = _split_card()
    by_header = {table["header"][0].strip("`"): table for table in _tables(body)}
    families = by_header["config"]
    system_configs = [c for c in _configs() if not c.startswith("trajectories")]
    assert [r[0].split(",")[0].strip().strip("`") for r in families["rows"]][: len(system_configs)] == system_configs
    assert any("trajectories" in r[0] for r in families["rows"])
    columns = next(t for t in _tables(body) if t["header"][:2] == ["column", "Arrow type"])
    assert [r[0].strip("`") for r in columns["rows"]] == [name for name, _, _ in COLUMNS]
    # The hash table names every default dataset (two datasets per row).
    hashes = next(t for t in _tables(body) if t["header"][:2] == ["dataset", "hash"])
    named = {cell.strip("`") for r in hashes["rows"] for cell in r[::2] if cell}
    systems = [name for name, (family, _) in dataset_runs(DEFAULT).items() if family.systems]
    assert {n for n in systems if not n.startswith("pinned/")} <= named and "pinned/*" in named
    lcu = next(t for t in _tables(body) if "terms_0" in " ".join(r[0] for r in t["rows"]))
    documented = {name.strip(" `") for r in lcu["rows"] for name in r[0].split(",")}
    from qlsbench.pauli import LCU_TOLS, tol_label

    for tol in LCU_TOLS:
        assert {f"terms_{tol_label(tol)}", f"lcu_norm_{tol_label(tol)}"} <= documented
    assert {"pauli_x", "pauli_z", "coeff_re", "coeff_im", "max_coeff"} <= documented


def test_the_example_row_is_the_real_first_row():
    _, body = _split_card()
    example = next(t for t in _tables(body) if t["header"] == ["column", "value"])
    values = {r[0]: r[1] for r in example["rows"]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kappa10.parquet"
        family, options = dataset_runs(DEFAULT)["ising/kappa10"]
        family.build(options, path, False)
        first = pd.read_parquet(path).iloc[0]
    assert values["`system_id`"] == f"`{first['system_id']}`"
    assert json.loads(values["`rows`"].strip("`")) == first["rows"].tolist()
    assert json.loads(values["`b`"].strip("`")) == first["b"].tolist()
    assert values["`meta_json`"] == f"`{first['meta_json']}`"


# ---------------------------------------------------------------- Hugging Face datasets, for real


@pytest.fixture(scope="module")
def card_folder(tmp_path_factory):
    """Every default dataset path of the card, each made by its family at a small size, and the card."""
    root = tmp_path_factory.mktemp("hub") / "datasets"
    for name, (family, options) in dataset_runs(DEFAULT).items():
        smaller = {"steps": min(options.steps, 300) if family.systems else 50} if hasattr(options, "steps") else {}
        if hasattr(options, "n_spheres"):
            smaller["n_spheres"] = 4
        if family.name == "penalty":
            smaller["steps"] = min(options.steps, 40)
        if hasattr(options, "dataset"):
            smaller["dataset"] = str(root.parent / options.dataset)
        out = root / name if family.systems else root.parent / f"datasets/{name}.parquet"
        if family.name == "ising":
            out = out / "part-0000.parquet"
        family.build(dataclasses.replace(options, **smaller), out, False)
    # the advantage map's growth systems: each axis at its smallest size, written as the sweep writes them
    from qlsbench.bench.advantage import AXES, grown, write_dataset
    from qlsbench.problems import profile, reference_solution

    for axis, record in AXES.items():
        system = grown(axis, record.small[0])
        reference = reference_solution(system.A, system.b)
        write_dataset(root / "advantage", axis, record.small[0], system, profile(system.A), reference)
    shutil.copyfile(CARD, root / "README.md")
    return root


@pytest.fixture
def load_dataset(tmp_path, monkeypatch):
    """``datasets.load_dataset``, offline, with a cache of this test's own.

    The cache directory is passed, not only set through ``HF_HOME``: ``datasets`` reads that variable once, at
    its first import (an earlier test imports it), and its cache key ignores the files' contents, so a shared
    cache served another run's rows (systems built under another BLAS kernel have other ids).
    """
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets

    datasets.disable_progress_bars()
    return functools.partial(datasets.load_dataset, cache_dir=str(tmp_path / "cache"))


def _same(ds, path: Path):
    frame = pd.read_parquet(path)
    loaded = ds.to_pandas()
    assert list(loaded.columns) == list(frame.columns) and len(loaded) == len(frame) > 0
    for column in frame.columns:
        for a, b in zip(loaded[column], frame[column]):
            if isinstance(b, np.ndarray) or isinstance(a, np.ndarray):
                np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
            elif not (pd.isna(a) and pd.isna(b)):
                assert a == b, column


def test_datasets_loads_every_config_of_the_card_folder(card_folder, load_dataset):
    for config, splits in _configs().items():
        for split, pattern in splits.items():
            ds = load_dataset(str(card_folder), config, split=split)
            _same(ds, card_folder / pattern.removesuffix("/*.parquet"))


def test_datasets_loads_every_family_from_data_files(card_folder, load_dataset):
    for splits in _configs().values():
        files = {split: str(card_folder / pattern) for split, pattern in splits.items()}
        loaded = load_dataset("parquet", data_files=files)
        assert set(loaded) == set(files)
        for split, pattern in splits.items():
            _same(loaded[split], card_folder / pattern.removesuffix("/*.parquet"))


def test_every_column_of_the_advantage_tables_is_documented():
    """The card's table of the sweep's columns names every column the shipped tables hold, per table."""
    _, body = _split_card()
    table = next(t for t in _tables(body) if t["header"][:2] == ["table", "column"])
    documented: dict[str, set[str]] = {}
    for row in table["rows"]:
        documented.setdefault(row[0], set()).update(re.findall(r"`([a-z0-9_*]+)`", row[1]))
    shipped = REPO / "docs" / "advantage"
    for kind in ("systems", "classical", "quantum", "crosscheck"):
        for path in shipped.glob(f"*.{kind}.parquet"):
            columns = set(pq.read_schema(path).names) - {"family", "size", "N"}
            if kind == "crosscheck":
                columns = {c for c in columns if not c.startswith(("ours_", "tool_"))} | {"ours_*", "tool_*"}
            assert columns <= documented[kind] | {"family", "size", "N"}, (path.name, columns - documented[kind])
