"""Dataset commands, built from the family table: ``ising``, ``simulate``, ``checkpoints``, ``trajectory``; and ``info``.

Each family's options record (:mod:`qlsbench.families`) says how its options
are spelt, checked and defaulted, so a command here is its families' options
as flags, ``--out`` and ``--quiet``; a family that shares a command with
others (``simulate``) is chosen by ``--scene`` and ``--integrator``.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from qlsbench.cli.options import add_options, given_options
from qlsbench.errors import InputError
from qlsbench.families import FAMILIES, commands, select


def _parser_for(command: str, families, sub) -> None:
    """``qlsbench <command>``: every option of its families, the family selector where there is a choice, --out."""
    s = sub.add_parser(command, help=families[0].command_help)
    merged = add_options(s, [f.options for f in families], [f.name for f in families])
    integrators = [f.integrator for f in families if f.integrator]
    if integrators:
        s.add_argument("--integrator", choices=integrators, default=None,
                       help="sphere integrator: " + ", ".join(f"{f.integrator} (family {f.name})"
                                                             for f in families if f.integrator))
    kinds = {f.out_kind for f in families}
    s.add_argument("--out", required=True, help="output " + ("folder" if kinds == {"folder"} else ".parquet file"
                                                              if kinds == {"file"} else "folder or .parquet file"))
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    writes = [("out", "--out", kinds.pop() if len(kinds) == 1 else "any")]
    writes += [(n, sp.spelling(n), sp.path) for n, (sp, _) in merged.items() if sp.path in ("file", "folder", "any")]
    reads = [n for n, (sp, _) in merged.items() if sp.path == "read"]
    s.set_defaults(func=partial(run_family_command, command, merged), writes=writes, reads=reads)


def _takes(family, name: str) -> bool:
    return bool(family.integrator) if name == "integrator" else name in family.options.specs()


def run_family_command(command: str, merged: dict, args) -> None:
    """Pick the family, check its options, build the dataset and print what the family reports."""
    family = select(command, getattr(args, "scene", None), getattr(args, "integrator", None))
    given = given_options(args, merged)
    foreign = [name for name in [*given, "integrator"] if getattr(args, name, None) is not None
               and not _takes(family, name)]
    if foreign:
        flags = [merged[n][0].spelling(n) if n in merged else f"--{n}" for n in foreign]
        owners = [f.name for f in commands()[command] if _takes(f, foreign[0])]
        scene = getattr(args, "scene", None) or family.options.specs()["scene"][1]
        raise InputError(f"{', '.join(flags)} only appl{'ies' if len(flags) == 1 else 'y'} to the "
                         f"{', '.join(owners)} famil{'y' if len(owners) == 1 else 'ies'}, not to --scene {scene} "
                         f"(family {family.name})")
    options = family.options.from_mapping(given)
    facts = family.build(options, Path(args.out), not args.quiet)
    for line in family.report(facts):
        print(line, file=sys.stderr if line.startswith("warning:") else sys.stdout)


def cmd_info(args) -> None:
    from qlsbench.data import dataset_files, dataset_hash, load_dataset
    from qlsbench.data.schema import SCHEMA_VERSION

    df = load_dataset(args.dataset)
    files = dataset_files(args.dataset)
    print(f"dataset   {args.dataset}  ({len(files)} file(s), schema v{SCHEMA_VERSION}, hash {dataset_hash(args.dataset)})")
    print(f"systems   {len(df)}")
    summary = df.groupby(["family", "scene"]).agg(
        systems=("system_id", "size"), dim_min=("dim", "min"), dim_max=("dim", "max"),
        nnz_max=("nnz", "max"), cond_min=("cond", "min"), cond_max=("cond", "max"),
        symmetric=("symmetric", "all"))
    print(summary.to_string())


def _parser_info(sub) -> None:
    s = sub.add_parser("info", help="summarise a dataset")
    s.add_argument("dataset", help="dataset file or folder")
    s.set_defaults(func=cmd_info)


#: Parser builders of this module's commands, in the order `qlsbench --help` lists them: one per dataset
#: command of the family table (:data:`qlsbench.families.FAMILIES`), then ``info``.
PARSERS = tuple(partial(_parser_for, command, families) for command, families in commands().items()) + (_parser_info,)

__all__ = ["FAMILIES", "PARSERS", "run_family_command"]
