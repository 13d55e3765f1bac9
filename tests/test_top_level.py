"""The package's top level: ``qlsbench.LinearSystem`` is imported only when first asked for (PEP 562)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import qlsbench


def test_linear_system_is_the_problems_class_imported_when_asked():
    from qlsbench.problems import LinearSystem

    assert qlsbench.LinearSystem is LinearSystem
    with pytest.raises(AttributeError, match="no attribute 'Linearsystem'"):
        qlsbench.Linearsystem  # noqa: B018 - the attribute access is the test


def test_importing_the_package_leaves_the_problems_module_unimported():
    code = "import sys, qlsbench; print('qlsbench.problems' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
