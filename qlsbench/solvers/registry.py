"""Find solvers by name: built-ins from one table, plug-ins from entry points.

A third party adds a solver with one line in its own ``pyproject.toml``::

    [project.entry-points."qlsbench.solvers"]
    mysolver = "mypackage.module:MySolver"

where ``MySolver(**options)`` returns an object meeting the
:class:`~qlsbench.solvers.base.Solver` protocol. Before packaging, the same
class can be named directly as ``"mypackage.module:MySolver"``.

Built-ins are known by name, summary and options record before they are
imported (:class:`Builtin`), so listing them and their options
(``qlsbench solvers NAME``) never imports Qiskit, NetKet or scipy; only
building one does.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import importlib.util
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from qlsbench.errors import InputError, QlsbenchError, UnknownSolverError
from qlsbench.options import SPEC, check_value_type, value_types
from qlsbench.solvers.options import (
    ExternalOptions,
    GMRESOptions,
    HHLOptions,
    KrylovOptions,
    OracleOptions,
    QSVTOptions,
    SparseLUOptions,
    VNLSOptions,
    VQLSOptions,
)

if TYPE_CHECKING:  # for annotations only: base imports numpy and scipy, which listing solvers does without
    from qlsbench.solvers.base import Solver

ENTRY_POINT_GROUP = "qlsbench.solvers"


class UnknownSolverNameError(UnknownSolverError, InputError):
    """No solver has the name asked for: bad input like any other, so also an :class:`InputError`."""


@dataclass(frozen=True)
class Builtin:
    """A built-in solver as the registry knows it without importing it.

    Attributes
    ----------
    solver : str
        ``"module:Class"``, imported when the solver is built.
    summary : str
        One line for ``qlsbench solvers``.
    options : type or None
        Its options record (:mod:`qlsbench.solvers.options`), whose fields the
        class takes as its own; ``None`` for a solver without options.
    extra : str or None
        The install extra its packages come with (``quantum``, ``vnls``), or
        ``None`` for the core; checked before the solver is built, so a core
        install refuses it in one line instead of failing mid-solve.
    variational : bool or None
        Whether its solves train parameters from a seeded start, so that each
        of its numbers is a median over seeds (five, issue 32) with a spread;
        the one definition (:func:`is_variational`). ``None`` for a solver
        that carries another program's (``external``): the registry cannot tell.
    control : bool
        Whether it is a null solver (:mod:`qlsbench.solvers.nulls`): run beside
        the solvers wherever a verdict is made, so a rule it passes is seen to
        be no verdict.
    paper : tuple of (str, str) or None
        The paper it comes from, as (short citation, URL), for the pages' links
        (:mod:`qlsbench.report._solver_links`); ``None`` for the benchmark's own
        yardsticks and carriers.
    """

    solver: str
    summary: str
    options: type | None = None
    extra: str | None = None
    variational: bool | None = False
    control: bool = False
    paper: tuple[str, str] | None = None


_VQLS_PAPER = ("Bravo-Prieto et al., Quantum 7, 1188 (2023)", "https://doi.org/10.22331/q-2023-11-22-1188")


#: Built-in solvers by name; each is imported only when built.
BUILTINS: dict[str, Builtin] = {
    "lu": Builtin(
        "qlsbench.solvers.classical:DenseLU",
        "LAPACK LU with partial pivoting on the dense matrix (getrf/getrs)",
        paper=("Anderson et al., LAPACK Users' Guide (1999)", "https://www.netlib.org/lapack/lug/"),
    ),
    "splu": Builtin(
        "qlsbench.solvers.classical:SparseLU",
        "SuperLU sparse direct factorisation (scipy's splu)",
        SparseLUOptions,
        paper=("Li, ACM TOMS 31, 302 (2005)", "https://doi.org/10.1145/1089014.1089017"),
    ),
    "cg": Builtin(
        "qlsbench.solvers.classical:CG",
        "Conjugate gradients; applies to Hermitian positive definite matrices",
        KrylovOptions,
        paper=("Hestenes & Stiefel, J. Res. NBS 49, 409 (1952)", "https://doi.org/10.6028/jres.049.044"),
    ),
    "minres": Builtin(
        "qlsbench.solvers.classical:MINRES",
        "Minimum residual; applies to Hermitian (possibly indefinite) matrices",
        KrylovOptions,
        paper=("Paige & Saunders, SIAM J. Numer. Anal. 12, 617 (1975)", "https://doi.org/10.1137/0712047"),
    ),
    "gmres": Builtin(
        "qlsbench.solvers.classical:GMRES",
        "Restarted GMRES for general matrices",
        GMRESOptions,
        paper=("Saad & Schultz, SIAM J. Sci. Stat. Comput. 7, 856 (1986)", "https://doi.org/10.1137/0907058"),
    ),
    "bicgstab": Builtin(
        "qlsbench.solvers.classical:BiCGSTAB",
        "Stabilised biconjugate gradients for general matrices",
        KrylovOptions,
        paper=("van der Vorst, SIAM J. Sci. Stat. Comput. 13, 631 (1992)", "https://doi.org/10.1137/0913035"),
    ),
    "vqls-global": Builtin(
        "qlsbench.solvers.vqls:VQLSGlobal",
        "VQLS with the global cost C_G: exact, on Aer circuits, sampled or on a noisy device",
        VQLSOptions,
        "quantum",
        variational=True,
        paper=_VQLS_PAPER,
    ),
    "vqls-local": Builtin(
        "qlsbench.solvers.vqls:VQLSLocal",
        "VQLS with the local cost C_L (trainable where the global cost plateaus)",
        VQLSOptions,
        "quantum",
        variational=True,
        paper=_VQLS_PAPER,
    ),
    "vnls": Builtin(
        "qlsbench.solvers.vnls:VNLS",
        "Variational neural linear solver: a neural quantum state trained by SR on NetKet",
        VNLSOptions,
        "vnls",
        variational=True,
        paper=("De et al., arXiv:2504.08141 (2025)", "https://arxiv.org/abs/2504.08141"),
    ),
    "hhl": Builtin(
        "qlsbench.solvers.hhl:HHL",
        "HHL on Aer circuits, with classical iterative refinement (refine=k)",
        HHLOptions,
        "quantum",
        paper=("Harrow, Hassidim & Lloyd, PRL 103, 150502 (2009)", "https://doi.org/10.1103/PhysRevLett.103.150502"),
    ),
    "qsvt": Builtin(
        "qlsbench.solvers.qsvt:QSVT",
        "QSVT on Aer circuits: LCU block encoding, odd polynomial for 1/x (pyqsp phases), post-selection",
        QSVTOptions,
        "qsvt",
        paper=("Gilyen, Su, Low & Wiebe, STOC 2019, 193", "https://doi.org/10.1145/3313276.3316366"),
    ),
    "oracle": Builtin(
        "qlsbench.solvers.oracle:Oracle",
        "The exact solution perturbed to a set fidelity or residual: solver accuracy -> physics error",
        OracleOptions,
    ),
    # whether it is variational is the program's it runs, which the registry cannot see
    "external": Builtin(
        "qlsbench.solvers.external:External",
        "A solver in its own environment or language, through request and response files",
        ExternalOptions,
        variational=None,
    ),
    "null-b": Builtin(
        "qlsbench.solvers.nulls:NullB",
        "Control: returns b, scaled by least squares; what not solving scores",
        control=True,
    ),
    "null-random": Builtin(
        "qlsbench.solvers.nulls:NullRandom",
        "Control: a seeded random unit vector, scaled by least squares",
        control=True,
    ),
}

#: The null solvers, in the order pages list them.
CONTROLS: tuple[str, ...] = tuple(name for name, b in BUILTINS.items() if b.control)


def is_control(name: str) -> bool:
    """Whether ``name`` is a built-in null solver (:attr:`Builtin.control`)."""
    builtin = BUILTINS.get(name)
    return builtin is not None and builtin.control


def is_variational(name: str) -> bool | None:
    """Whether solver ``name`` is variational: the one definition, for every solver name.

    A built-in's :attr:`Builtin.variational`; a plug-in's or ``module:Class``'s
    class attribute ``variational`` (``False`` when it declares none). ``None``
    when the registry cannot tell: ``external`` (the program it runs decides),
    or a name that no longer resolves (a results file of a plug-in since
    uninstalled); a caller with results in hand then reads their rows
    (:func:`qlsbench.bench.ranking.solver_kinds`).
    """
    return _declared(name, "variational", False)


def paper_of(name: str) -> tuple[str, str] | None:
    """The paper solver ``name`` comes from, as (short citation, URL): a built-in's :attr:`Builtin.paper`, a
    plug-in's class attribute ``paper``; ``None`` when none is declared or the name does not resolve."""
    return _declared(name, "paper", None)


def _declared(name: str, attribute: str, default: Any) -> Any:
    """A built-in's field ``attribute``, else the attribute the plug-in's class declares (``default`` when it
    declares none); ``None`` when ``name`` is no solver that can be found and imported here."""
    if name in BUILTINS:
        return getattr(BUILTINS[name], attribute)
    if not isinstance(name, str) or not (":" in name or name in _plugins()):
        return None
    try:
        factory = _factory(name)
    except QlsbenchError:
        return None
    return getattr(factory, attribute, default)


#: The packages each install extra brings that a solver of it cannot run without (``pyproject.toml``).
EXTRA_PACKAGES = {
    "quantum": ("qiskit", "qiskit_aer"),
    "qsvt": ("qiskit", "qiskit_aer", "pyqsp"),
    "vnls": ("netket", "jax"),
}


def _check_extra(name: str) -> None:
    """One line when built-in ``name`` needs an extra whose packages are not installed (found, not imported)."""
    extra = BUILTINS[name].extra
    missing = [pkg for pkg in EXTRA_PACKAGES.get(extra or "", ()) if importlib.util.find_spec(pkg) is None]
    if missing:
        raise InputError(
            f"solver {name!r} needs the {extra} extra: pip install 'qlsbench[{extra}]' "
            f"({', '.join(missing)} not installed)"
        )


def _plugins() -> dict[str, Any]:
    """Entry points of the plug-in group; built-in names cannot be shadowed."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in BUILTINS}


def available() -> list[str]:
    """Names of all solvers: built-ins, then plug-ins, each sorted."""
    return sorted(BUILTINS) + sorted(_plugins())


def _close_matches(word: str, choices) -> str:
    """`` (did you mean 'x'?)`` for the choices close to ``word`` (difflib), else nothing."""
    matches = difflib.get_close_matches(word, list(choices), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(map(repr, matches))}?)" if matches else ""


def _import_reference(name: str) -> Callable[..., Solver]:
    """The object named ``module:attribute``, with a one-line error naming what is missing."""
    module, _, attr = name.partition(":")
    if not module or not attr:
        raise InputError(f"solver {name!r}: a module reference needs the form module:Class")
    try:
        obj = importlib.import_module(module)
    except Exception as exc:  # ImportError, or the module's own error while importing
        raise InputError(f"solver {name!r}: cannot import module {module!r} ({type(exc).__name__}: {exc})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            public = [a for a in dir(obj) if not a.startswith("_")]
            raise InputError(
                f"solver {name!r}: module {module!r} has no attribute {attr!r}{_close_matches(part, public)}"
            )
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError(f"solver {name!r}: {attr!r} is not a class or factory")
    return obj


def _factory(name: str) -> Callable[..., Solver]:
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"a solver name must be a non-empty string, got {name!r}")
    if name in BUILTINS:
        _check_extra(name)
        module, attr = BUILTINS[name].solver.split(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except ImportError as exc:  # an optional dependency (Qiskit, NetKet) is not installed
            raise InputError(f"solver {name!r}: cannot import {module} ({exc})") from None
    if ":" in name:
        return _import_reference(name)
    plugins = _plugins()
    if name in plugins:
        try:
            return plugins[name].load()
        except Exception as exc:  # a broken plug-in must not read as "unknown solver"
            raise InputError(f"solver plug-in {name!r} ({plugins[name].value}) failed to load: {exc}") from None
    names = available()
    raise UnknownSolverNameError(f"unknown solver {name!r}; available: {', '.join(names)}{_close_matches(name, names)}")


# ---------------------------------------------------------------- options against the constructor's signature


def _keyword_parameters(factory: Callable) -> tuple[dict[str, inspect.Parameter], bool] | None:
    """The options ``factory`` takes by keyword, and whether it takes any others (``**kwargs``).

    Annotations are evaluated (``from __future__ import annotations`` makes
    them strings); when one does not evaluate, all stay strings and are
    ignored, so the defaults alone give the types. ``None`` when the factory
    has no signature to read (some built-in callables): the call decides.
    """
    try:
        sig = inspect.signature(factory, eval_str=True)
    except (TypeError, ValueError):
        return None
    except Exception:  # an annotation naming something its module does not define
        try:
            sig = inspect.signature(factory)
        except (TypeError, ValueError):
            return None
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    named = {p.name: p for p in sig.parameters.values() if p.kind in keyword}
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
    return named, open_ended


def _option_types(param: inspect.Parameter) -> tuple[type, ...] | None:
    """Types option ``param`` accepts (:func:`qlsbench.options.value_types`): its annotation's, else its
    default's; an annotation left unevaluated (a string) says nothing."""
    annotation = param.empty if isinstance(param.annotation, str) else param.annotation
    return value_types(annotation, param.default, param.empty)


def _numbers_read(factory: Callable, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with each text value that ``float()`` reads (YAML 1.1 leaves ``1e-8`` as text) made the number
    it spells, where the option takes a number and not text: the one reading of numbers
    (:func:`~qlsbench.checks.number_text`) on this path too."""
    from qlsbench.checks import number_text

    found = _keyword_parameters(factory)
    if found is None:
        return options
    named, _ = found
    out = dict(options)
    for key, value in options.items():
        allowed = _option_types(named[key]) if key in named else None
        if isinstance(value, str) and allowed and str not in allowed and ({int, float, complex} & set(allowed)):
            number = number_text(value)
            if isinstance(number, float) and number.is_integer() and int in allowed and float not in allowed:
                number = int(number)  # "1e3" for a count: a whole number spelt as a float
            if not isinstance(number, str):
                out[key] = number
    return out


def _check_options(name: str, factory: Callable, options: dict[str, Any]) -> None:
    """Refuse options ``factory`` does not take, lacks, or takes of another type, before calling it."""
    found = _keyword_parameters(factory)
    if found is None:
        return
    named, open_ended = found
    unknown = [] if open_ended else sorted(set(options) - set(named))
    if unknown:
        accepted = [p for p in named if not p.startswith("_")]
        hint = _close_matches(unknown[0], accepted) if len(unknown) == 1 else ""
        raise InputError(
            f"solver {name!r}: unknown option(s) {', '.join(map(repr, unknown))}; "
            f"accepted: {', '.join(accepted) or 'none'}{hint}"
        )
    missing = [p for p, param in named.items() if param.default is param.empty and p not in options]
    if missing:
        raise InputError(f"solver {name!r}: required option(s) {', '.join(map(repr, missing))} not given")
    for key, value in options.items():
        check_value_type(value, _option_types(named[key]) if key in named else None, f"solver {name!r}: option {key!r}")


def get(name: str, **options: Any) -> Solver:
    """Construct the solver registered under ``name`` (or named ``module:Class``) with ``options``.

    Option names and types are checked against the constructor's signature
    first (annotations, else defaults; ``**kwargs`` takes anything), then
    the constructor itself judges the values.

    Raises
    ------
    UnknownSolverError
        If no solver has that name (the message lists those that exist).
    InputError
        If an option is unknown to that solver, of the wrong type or has an
        invalid value, or the solver cannot be built.
    """
    factory = _factory(name)
    options = _numbers_read(factory, options)
    _check_options(name, factory, options)
    try:
        solver = factory(**options)
    except (TypeError, ValueError) as exc:
        raise InputError(f"solver {name!r}: invalid options {options}: {exc}") from None
    except Exception as exc:  # a plug-in's constructor may fail any way; it is still one line about that solver
        raise InputError(
            f"solver {name!r}: cannot be built with options {options} ({type(exc).__name__}: {exc})"
        ) from None
    missing = _missing_members(solver)
    if missing:
        what = getattr(factory, "__qualname__", type(factory).__name__)
        raise InputError(
            f"solver {name!r}: {what} is not a solver: it has no {' and no '.join(missing)} (a solver "
            "has a name, an options mapping and solve(system, *, seed) returning a SolveResult)"
        )
    return solver


def _missing_members(solver: Any) -> list[str]:
    """What ``solver`` lacks of the :class:`Solver` contract, by name (empty when it fits)."""
    missing = []
    if not isinstance(getattr(solver, "name", None), str) or not solver.name:
        missing.append("'name' (a non-empty str)")
    try:
        options = solver.options
    except AttributeError:
        options = None
    except Exception as exc:  # a property that raises
        options = exc
    if not isinstance(options, dict):
        missing.append(
            "'options' (a dict)"
            if not isinstance(options, Exception)
            else f"working 'options' ({type(options).__name__}: {options})"
        )
    solve = getattr(solver, "solve", None)
    if not callable(solve):
        missing.append("'solve' method")
    else:
        params: Mapping[str, inspect.Parameter]
        try:
            params = inspect.signature(solve).parameters
        except (TypeError, ValueError):
            params = {}
        takes_seed = "seed" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        if params and not takes_seed:
            missing.append("'seed' keyword in solve(system, *, seed)")
    return missing


def check_solver(name: str, options: dict[str, Any], where: str = "") -> Solver:
    """Refuse a solver that cannot run as configured, in one line, before anything is solved.

    Resolves ``name`` (built-in, entry point or ``module:Class``), checks the
    option names and types against the constructor's signature and builds
    the solver once, so the constructor's own checks of values run too.
    Nothing is solved and nothing is written.

    Parameters
    ----------
    name : str
        Solver name as a user wrote it.
    options : dict
        Its options.
    where : str
        Where the solver was named (``"config.yaml: solvers[2]"``), put
        before the message.

    Returns
    -------
    Solver
        The solver built, for a caller that has work for it before solving
        (:func:`qlsbench.bench._runner.run_solver` calls its ``prepare``).

    Raises
    ------
    InputError
        Naming the solver and the option at fault. An unknown name raises
        :class:`UnknownSolverNameError`, which is both an ``InputError`` and
        an :class:`~qlsbench.errors.UnknownSolverError`, listing the solvers
        that exist and the close matches.
    """
    try:
        if not isinstance(options, dict):
            raise InputError(
                f"solver {name!r}: options must be a mapping of names to values, got {type(options).__name__}"
            )
        for key in options:  # a config can give 1: x; keyword arguments cannot
            if not isinstance(key, str):
                raise InputError(f"solver {name!r}: option names are text, got {type(key).__name__} {key!r}")
        return get(name, **options)
    except QlsbenchError as exc:
        if where:
            raise type(exc)(f"{where}: {exc}") from None
        raise


def describe(name: str) -> str:
    """One line on solver ``name``: a built-in's summary, else the first line of its docstring (or nothing)."""
    if name in BUILTINS:
        return BUILTINS[name].summary
    doc = (_factory(name).__doc__ or "").strip().splitlines()
    return doc[0] if doc else ""


@dataclass(frozen=True)
class SolverOption:
    """One option of a solver, as ``qlsbench solvers NAME`` lists it.

    Attributes
    ----------
    name : str
        The keyword (``--option name=value``).
    type : str
        Its annotation as written (``"int | None"``), or its default's type; ``""`` when neither says.
    default : object
        Its default; :data:`dataclasses.MISSING` when it must be given.
    help : str
        Its one-line meaning (``""`` when the solver gives none).
    """

    name: str
    type: str
    default: Any
    help: str


def options_of(name: str) -> list[SolverOption]:
    """The options solver ``name`` takes, in declaration order.

    A built-in's come from its options record without importing the solver;
    a plug-in's or ``module:Class``'s from its dataclass fields (with the
    ``help`` of :func:`qlsbench.options.option` where it declares one), else
    from its constructor's keyword parameters.

    Raises
    ------
    UnknownSolverError, InputError
        As :func:`get`, for a name that is no solver or a solver that does not import.
    """
    if name in BUILTINS:
        record = BUILTINS[name].options
        return [] if record is None else _fields(record)
    factory = _factory(name)
    if dataclasses.is_dataclass(factory):
        return _fields(factory)
    found = _keyword_parameters(factory)
    if found is None:
        return []
    return [
        SolverOption(
            p.name,
            _type_name(p.annotation, p.default),
            p.default if p.default is not p.empty else dataclasses.MISSING,
            "",
        )
        for p in found[0].values()
        if not p.name.startswith("_")
    ]


def _fields(record: type) -> list[SolverOption]:
    """The constructor fields of a dataclass, with the help line of their :class:`~qlsbench.options.OptionSpec`."""
    out = []
    for f in dataclasses.fields(record):
        if not f.init or f.name.startswith("_"):
            continue
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        spec = f.metadata.get(SPEC)
        out.append(SolverOption(f.name, _type_name(f.type, default), default, spec.help if spec else ""))
    return out


def _type_name(annotation: Any, default: Any) -> str:
    """An annotation as a user reads it (``int | None``), else the default's type, else ``""``."""
    if isinstance(annotation, str):
        return annotation
    if annotation not in (None, inspect.Parameter.empty):
        return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")
    if default not in (None, inspect.Parameter.empty, dataclasses.MISSING):
        return type(default).__name__
    return ""
