"""Dataset commands, built from the family table: ``ising``, ``simulate``, ``checkpoints``, ``pinned``,
``trajectory`` (and a plug-in family's own); and ``info``.

Each family names the command that builds it (:mod:`qlsbench.families`), and
its options record says how its options are spelt, checked and defaulted, so
a command here is its families' options as flags, ``--out`` and ``--quiet``;
a family that shares a command with others (``simulate``) is chosen by
``--scene`` and ``--integrator``. The family table is imported only when one
of these commands runs: it brings the physics.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from qlsbench.cli.base import Command
from qlsbench.cli.options import add_options, given_options
from qlsbench.errors import InputError
from qlsbench.families import command_lines
from qlsbench.text import plural

#: The commands that build datasets, with their one line of help, in the order ``qlsbench --help`` lists them:
#: the built-in ones (:data:`qlsbench.families.COMMAND_HELP`), then those of plug-in families.
DATASET_COMMANDS = command_lines()


def _arguments_for(command: str, s) -> None:
    """``qlsbench <command>``: every option of its families, the family selector where there is a choice, --out."""
    from qlsbench.families import commands

    families = commands()[command]
    merged = add_options(s, [f.options for f in families], [f.name for f in families])
    integrators = [f.integrator for f in families if f.integrator]
    if integrators:
        s.add_argument(
            "--integrator",
            choices=integrators,
            default=None,
            help="sphere integrator: "
            + ", ".join(f"{f.integrator} (family {f.name})" for f in families if f.integrator),
        )
    kinds = {f.out_kind for f in families}
    s.add_argument(
        "--out",
        required=True,
        help="output "
        + ("folder" if kinds == {"folder"} else ".parquet file" if kinds == {"file"} else "folder or .parquet file"),
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    writes = [("out", "--out", kinds.pop() if len(kinds) == 1 else "any")]
    writes += [(n, sp.spelling(n), sp.path) for n, (sp, _) in merged.items() if sp.path in ("file", "folder", "any")]
    reads = [n for n, (sp, _) in merged.items() if sp.path == "read"]
    s.set_defaults(func=partial(run_family_command, command, merged), writes=writes, reads=reads)


def _takes(family, name: str) -> bool:
    return bool(family.integrator) if name == "integrator" else name in family.options.specs()


def run_family_command(command: str, merged: dict, args) -> None:
    """Pick the family, check its options, build the dataset and print what the family reports."""
    from qlsbench.families import commands, select

    family = select(command, getattr(args, "scene", None), getattr(args, "integrator", None))
    given = given_options(args, merged)
    foreign = [
        name for name in [*given, "integrator"] if getattr(args, name, None) is not None and not _takes(family, name)
    ]
    if foreign:
        flags = [merged[n][0].spelling(n) if n in merged else f"--{n}" for n in foreign]
        owners = [f.name for f in commands()[command] if _takes(f, foreign[0])]
        scene = getattr(args, "scene", None) or family.options.specs()["scene"][1]
        raise InputError(
            f"{', '.join(flags)} only appl{'ies' if len(flags) == 1 else 'y'} to the "
            f"{', '.join(owners)} famil{'y' if len(owners) == 1 else 'ies'}, not to --scene {scene} "
            f"(family {family.name})"
        )
    options = family.options.from_mapping(given)
    facts = family.build(options, Path(args.out), not args.quiet)
    for line in family.report(facts):
        print(line, file=sys.stderr if line.startswith("warning:") else sys.stdout)


def cmd_info(args) -> None:
    from qlsbench.data import dataset_files, dataset_hash, load_dataset
    from qlsbench.data._schema import SCHEMA_VERSION

    df = load_dataset(args.dataset)
    files = dataset_files(args.dataset)
    print(
        f"dataset   {args.dataset}  ({plural(len(files), 'file')}, schema v{SCHEMA_VERSION}, "
        f"hash {dataset_hash(args.dataset)})"
    )
    print(f"systems   {len(df)}")
    summary = df.groupby(["family", "scene"]).agg(
        systems=("system_id", "size"),
        dim_min=("dim", "min"),
        dim_max=("dim", "max"),
        nnz_max=("nnz", "max"),
        cond_min=("cond", "min"),
        cond_max=("cond", "max"),
        symmetric=("symmetric", "all"),
    )
    print(summary.to_string())


def _arguments_info(s) -> None:
    s.add_argument("dataset", help="dataset file or folder")
    s.set_defaults(func=cmd_info)


def cmd_export(args) -> None:
    if "mtx" in args.format:
        from qlsbench.data._matrix_market import export_matrix_market

        written = export_matrix_market(args.dataset, args.out)
        systems = sum(1 for path in written if path.suffix == ".json")
        print(f"{plural(systems, 'system')} as Matrix Market (A, b, x_ref) with metadata -> {args.out}")
    if "fclib" in args.format:
        from qlsbench.bench.board.contacts import export_contact_problems

        written = export_contact_problems(args.dataset, args.out, progress=not args.quiet)
        print(
            f"{plural(len(written), 'contact problem')} of the pinned DEM-C systems' steps as FCLIB (global form, "
            f"rebuilt from board.yaml's sources; fclib.json says which reran to the pinned bytes) -> {args.out}"
        )
    if "qasm" in args.format and "hhl" in args.circuits:
        from qlsbench.solvers.qasm import MAX_QASM_QUBITS, export_hhl_qasm

        written = export_hhl_qasm(
            args.dataset, args.out, clock=args.clock, version=args.qasm_version, device=args.device
        )
        print(
            f"{plural(len(written) // 2, 'HHL circuit')} (systems up to {MAX_QASM_QUBITS} qubits, {args.clock} "
            f"clock qubits) in CX + U and routed to {args.device} (.hhl.device.qasm, the chip's qubit numbering) as "
            f"OpenQASM {args.qasm_version} -> {args.out}"
        )
    if "qasm" in args.format and "qsvt" in args.circuits:
        from qlsbench.solvers.qasm import MAX_QSVT_QASM_QUBITS, export_qsvt_qasm

        written = export_qsvt_qasm(
            args.dataset, args.out, epsilon=args.epsilon, version=args.qasm_version, device=args.device
        )
        print(
            f"{plural(len(written) // 2, 'QSVT circuit')} (systems up to {MAX_QSVT_QASM_QUBITS} qubits, the "
            f"degree for epsilon {args.epsilon:g}) in CX + U and routed to {args.device} (.qsvt.device.qasm, the "
            f"chip's qubit numbering) as OpenQASM {args.qasm_version} -> {args.out}"
        )
    if "qasm" in args.format and "vqls" in args.circuits:
        from qlsbench.solvers.qasm import MAX_VQLS_QASM_QUBITS, export_vqls_qasm

        written = export_vqls_qasm(
            args.dataset,
            args.out,
            cost=args.vqls_cost,
            layers=args.layers,
            device=args.device,
            version=args.qasm_version,
        )
        print(
            f"vqls-{args.vqls_cost} trained on {plural(len(written), 'system')} (up to {MAX_VQLS_QASM_QUBITS} "
            f"qubits): the ansatz and one cost evaluation's Hadamard tests, as built, in CX + U and routed to "
            f"{args.device} (the chip's qubit numbering), as OpenQASM {args.qasm_version} -> "
            f"{args.out}/<name>.vqls-{args.vqls_cost}/"
        )


def _arguments_export(s) -> None:
    from qlsbench.checks import Real, Whole
    from qlsbench.solvers.devices import DEFAULT_DEVICE, DEVICES

    s.add_argument("dataset", help="dataset file or folder (e.g. the pinned set: qlsbench/pinned/systems)")
    s.add_argument(
        "--out",
        required=True,
        help="output folder: <name>.mtx, .b.mtx, .x_ref.mtx and .json per system; "
        "<name>.hhl.qasm and <name>.hhl.device.qasm with --format qasm",
    )
    s.add_argument(
        "--format",
        nargs="+",
        choices=["mtx", "qasm", "fclib"],
        default=["mtx"],
        help="mtx: Matrix Market; qasm: each small system's circuits in OpenQASM (--circuits); fclib: the "
        "contact problem of each pinned DEM-C system's step, <name>.fclib.hdf5, FCLIB's global form "
        "(default: mtx)",
    )
    s.add_argument(
        "--circuits",
        nargs="+",
        choices=["hhl", "qsvt", "vqls"],
        default=["hhl"],
        help="which solvers' circuits --format qasm writes: <name>.hhl.qasm and <name>.qsvt.qasm (CX + "
        "U) with their .device.qasm (routed to --device), <name>.vqls-<cost>/ (the ansatz at trained "
        "angles and one cost evaluation's Hadamard tests, three levels each, with index.json; "
        "default: hhl)",
    )
    s.add_argument(
        "--qasm-version",
        type=int,
        choices=[2, 3],
        default=3,
        help="OpenQASM version of the circuits: 3, or 2 for tools that read only 2, in the gates of "
        "qelib1.inc and gates the file defines (default 3)",
    )
    s.add_argument(
        "--vqls-cost",
        choices=["local", "global"],
        default="local",
        help="the VQLS cost whose circuits --circuits vqls writes (default local)",
    )
    s.add_argument(
        "--layers",
        type=Whole(0, 16).parse,
        default=4,
        help="ansatz layers of the VQLS circuits (default 4, the solvers' own default)",
    )
    s.add_argument(
        "--device",
        choices=tuple(sorted(DEVICES)),
        default=DEFAULT_DEVICE,
        help=f"the device the circuits' device level is routed to, written in its qubit numbering "
        f"(default {DEFAULT_DEVICE})",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar (--format fclib reruns simulations)")
    s.add_argument("--clock", type=Whole(2, 8).parse, default=4, help="clock qubits of the HHL circuits (default 4)")
    s.add_argument(
        "--epsilon",
        type=Real(0.0, 0.5, open_low=True).parse,
        default=0.1,
        help="target error of the QSVT circuits' polynomial, which sets their degree (default 0.1)",
    )
    s.set_defaults(func=cmd_export, writes=[("out", "--out", "folder")], reads=["dataset"])


#: This module's commands, in the order ``qlsbench --help`` lists them: the dataset commands, then ``info`` and
#: ``export``.
COMMANDS = tuple(Command(name, line, partial(_arguments_for, name)) for name, line in DATASET_COMMANDS.items()) + (
    Command("info", "summarise a dataset", _arguments_info),
    Command(
        "export",
        "write a dataset's systems in the formats other tools read: Matrix Market, their circuits in "
        "OpenQASM, the pinned DEM-C steps in FCLIB",
        _arguments_export,
    ),
)

__all__ = ["COMMANDS", "DATASET_COMMANDS", "run_family_command"]
