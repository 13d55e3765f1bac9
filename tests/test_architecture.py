"""The package's imports point one way: no module imports one that imports it back, and none imports a layer above.

The import graph is read from the source (``ast``), lazy imports inside
functions included: a function-level import that closes a circle is still a
circle, only one that fails later. Imports under ``if TYPE_CHECKING:`` are left
out (they never run). The layers are docs/development.md's ("Dependencies
point one way"); inside :mod:`qlsbench.physics` each model has its folder and
imports only what the models share.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "qlsbench"

#: Units of the package, lowest first: a module may import its own unit and any unit of a lower layer. A unit is
#: a module or package path relative to ``qlsbench`` ("" is the package's face: its version, LinearSystem).
LAYERS: list[set[str]] = [
    {"errors", "outcomes", "text", "versions", "interrupts"},
    {"checks", "yaml_files", "outputs", "machine"},
    {"options", "threads"},
    {"problems", "environment_variables"},
    {""},
    # physics: the shared parts first, then one folder per model, then the package's face (its __init__)
    {"physics.lcp", "physics.capture", "pauli", "data"},
    {"estimates"},  # a fault-tolerant solve's cost, from pauli's counts and problems' profile
    {"physics.spheres", "physics.penalty", "physics.cdlagrange"},
    {"physics"},
    {"families", "solvers"},
    {"bench"},
    {"report"},
    # the workflow: one module per job, each importing only those of layers below it, then its face (its __init__)
    {"workflow._datasets"},
    {"workflow._solvers"},
    {"workflow._resources", "workflow._schema"},
    {"workflow._in_loop"},  # an in-loop run's jobs ask the rule's resources, over its entry's own
    {"workflow._figures"},
    {"workflow._config"},
    {"workflow"},
    {"cli"},
    {"console"},  # the program's entry: interrupts taken, then the command line
    {"__main__"},
]
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, (ast.Name, ast.Attribute)) and ast.unparse(test).endswith("TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every import statement of ``tree``, at any depth, but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking_only(node):
            yield from (
                n
                for child in node.orelse
                for n in [child, *_imports(child)]
                if isinstance(n, (ast.Import, ast.ImportFrom))
            )
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from a.b import c`` is module ``a.b.c`` when there is one)."""
    modules = _modules()

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                found |= {known(a.name) for a in node.names if a.name.split(".")[0] == "qlsbench"}
                continue
            base = node.module or ""
            if node.level:  # relative: from the module's package, one level up per dot past the first
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != "qlsbench":
                continue
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else known(base) for a in node.names}
        graph[name] = found - {None, name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def unit(module: str) -> str:
    """The layer unit a module belongs to: the longest unit of :data:`LAYERS` it is in."""
    rest = module.removeprefix("qlsbench").lstrip(".")
    parts = rest.split(".") if rest else []
    for n in range(len(parts), -1, -1):
        if ".".join(parts[:n]) in RANK:
            return ".".join(parts[:n])
    raise KeyError(module)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_sees_every_kind_of_import(graph):
    """Lazy imports count (web_page's drill-down imports page_data inside a function)."""
    assert "qlsbench.report._page_data" in graph["qlsbench.report._web_page"]
    assert "qlsbench.physics.spheres.stepping" in graph["qlsbench.physics.spheres"]  # a package's face
    assert graph["qlsbench.errors"] == set()


def test_no_module_imports_one_that_imports_it_back(graph):
    assert cycles(graph) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]  # the check itself


def test_every_module_is_in_a_layer(graph):
    for module in graph:
        unit(module)  # KeyError names a module no layer holds: give it one in LAYERS and the docs


def test_no_module_imports_a_layer_above_its_own(graph):
    """Each import goes down (or stays in the module's own unit); a package's face may import what it holds."""
    upward = []
    for module, targets in graph.items():
        mine = unit(module)
        for target in targets:
            theirs = unit(target)
            face = target.startswith(module + ".")  # a package's __init__ re-exporting its own modules
            if theirs != mine and not face and RANK[theirs] >= RANK[mine]:
                upward.append(f"{module} ({mine or 'qlsbench'}) imports {target} ({theirs or 'qlsbench'})")
    assert upward == []


# ---- The public surface -------------------------------------------------------------------------------------------

#: The packages a user imports: each states its API in ``__all__``; a module whose name starts with ``_`` is internal.
PUBLIC_PACKAGES = [
    "qlsbench.data",
    "qlsbench.problems",
    "qlsbench.pauli",
    "qlsbench.estimates",
    "qlsbench.physics",
    "qlsbench.solvers",
    "qlsbench.bench",
    "qlsbench.bench.advantage",
    "qlsbench.bench.board",
    "qlsbench.bench.in_loop",
    "qlsbench.bench.ranking",
    "qlsbench.report",
    "qlsbench.families",
]

#: Files outside the package that import an internal (``_``-prefixed) module, each with why: a test about that
#: internal itself. Anything else imports from the packages' public names.
PRIVATE_IMPORTS = {
    "benchmarks/bench_hhl.py": "times HHL's circuit run itself, without the solver's checks around it",
    "tests/test_advantage_systems.py": "the size above which the pile axis solves its Newton steps by CG, lowered",
    "tests/test_bad_input.py": "the staging folder pages are drawn in, and a board render failing inside it",
    "tests/test_bounds.py": "the command line's option-pair reader behind every bounded flag; the isolated solver call",
    "tests/test_data.py": "the schema's metadata key for the dataset version, checked byte by byte",
    "tests/test_estimates_crosscheck.py": "the Qualtran cross-check module and the page's agreement table",
    "tests/test_formats.py": "the stepper's contact margin, which the FCLIB export states",
    "tests/test_frictional_corpus.py": "the stepper's LCP chain on stored contact problems, one step's solve alone",
    "tests/test_hhl.py": "HHL's run, its stagnation rule and its state preparation fallback",
    "tests/test_noisy_page.py": "the noisy page's tables and sentences, and the controls' floors",
    "tests/test_nsgs.py": "the NSGS cone projection and the stepper's contact margin",
    "tests/contact_problems.py": "the stepper's contact margin",
    "tests/test_tolerance_study.py": "the exact cone's projection",
    "tests/test_pauli.py": "the decomposition module's kernels, their support limit and the truncation's permutation",
    "tests/test_problems.py": "the spectra module's fixed ARPACK start and one-thread BLAS",
    "tests/test_qsvt_page.py": "the QSVT page's row reader and its degree and declined tables",
    "tests/test_report_figures.py": "the snapshot file's metadata key, the sphere drawing, VNLS's status message",
    "tests/test_reproduction_page.py": "the shipped collection, the controls' kappa and null values, the Aer note",
    "tests/test_runner_faults.py": "the solver isolation's copies; the writer's stale-temporary sweep and host tag",
    "tests/test_styles.py": "the palette, markers and colour distances behind solver_styles",
    "tests/test_versions.py": "the format fingerprints (bench._formats) and the results' declared columns they read",
    "tests/test_vnls.py": "VNLS's status message",
}

_PRIVATE_MODULE = re.compile(r"(?:from|import)\s+(qlsbench(?:\.\w+)*\._(?!_)\w+)")
_PRIVATE_NAME = re.compile(r"from\s+(qlsbench(?:\.\w+)*)\s+import\s+\(?([\w\s,]*?\b_(?!_)\w+)")


def _internal_imports(path: Path) -> list[str]:
    """What a file imports from the package that is internal: a ``_`` module, or a ``_`` name of a module."""
    text = path.read_text(errors="replace")
    if path.suffix != ".py":
        return sorted(set(_PRIVATE_MODULE.findall(text)) | {m[0] for m in _PRIVATE_NAME.findall(text)})
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("qlsbench"):
            internal = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
            if _PRIVATE_MODULE.match(f"from {node.module}") or internal:
                found.add(node.module + (f" ({', '.join(internal)})" if internal else ""))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if _PRIVATE_MODULE.match(f"import {a.name}"))
    return sorted(found)


def _outside_files() -> list[Path]:
    """Code outside the package that users or contributors copy: tests, asv suites, contrib, docs and the card."""
    folders = ["tests", "benchmarks", "contrib", "docs"]
    files = [p for folder in folders for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md")]
    return sorted(files + [ROOT / "README.md", ROOT / "datasets" / "README.md"])


def test_outside_code_imports_only_public_names():
    """A file outside the package imports an internal module or name only when it is listed, with its reason."""
    found = {path.relative_to(ROOT).as_posix(): _internal_imports(path) for path in _outside_files()}
    offenders = {
        name: what
        for name, what in found.items()
        if what and name not in PRIVATE_IMPORTS and name != "tests/test_architecture.py"
    }
    assert not offenders, (
        f"internals imported from outside the package: {offenders}; import the package's public "
        f"name instead, or list the file in PRIVATE_IMPORTS with the internal it tests"
    )
    stale = [name for name in PRIVATE_IMPORTS if not found.get(name)]
    assert not stale, f"PRIVATE_IMPORTS lists files that no longer import an internal: {stale}"


@pytest.mark.parametrize("package", PUBLIC_PACKAGES)
def test_every_public_name_resolves(package):
    """Each name a public package's ``__all__`` states is there, and none of them is an internal one."""
    module = importlib.import_module(package)
    names = list(module.__all__)
    assert names, f"{package} states no public names (__all__)"
    missing = [name for name in names if not hasattr(module, name)]
    assert not missing, f"{package}.__all__ names {missing}, which {package} does not have"
    assert not [n for n in names if n.startswith("_")], f"{package}.__all__ lists internal names"
