"""docs/api.md is what the packages' ``__all__`` state, generated, not typed."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("api_page", ROOT / "docs" / "api_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_page_is_generated_from_the_packages():
    generator = _generator()
    assert (ROOT / "docs" / "api.md").read_text() == generator.render(), (
        "docs/api.md differs from the packages' public names: run `python docs/api_page.py`"
    )


def test_api_page_covers_every_public_package():
    """The page and the architecture test's public-surface checks name the same packages."""
    spec = importlib.util.spec_from_file_location("architecture", ROOT / "tests" / "test_architecture.py")
    architecture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(architecture)
    assert sorted(_generator().PACKAGES) == sorted(architecture.PUBLIC_PACKAGES)
