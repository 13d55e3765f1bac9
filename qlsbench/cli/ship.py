"""Shipping a run: ``ship`` copies a workflow run's results, with their hashes, into the folder a page is generated
from."""

from __future__ import annotations

from qlsbench.cli.base import Command
from qlsbench.text import plural


def cmd_ship(args) -> None:
    from qlsbench.bench._shipped import collect

    manifest = collect(
        args.run,
        args.out,
        config=args.config,
        logs=args.log,
        figure_datasets=args.figure_dataset,
        snapshots=args.snapshots,
        add=args.add,
    )
    part = manifest["collections"][-1]
    print(
        f"{plural(len(part['files']), 'file')} from {args.run}, {part['wall_minutes']:.1f} min of wall clock over "
        f"{plural(len(part['invocations']), 'invocation')}; {plural(len(manifest['files']), 'file')} in "
        f"{plural(len(manifest['collections']), 'collection')} -> {args.out}"
    )


def _arguments_ship(s) -> None:
    from qlsbench.report.reproduction.paper import FIG3_LABEL, FIG5_DATASETS

    s.add_argument("run", help="the folder the workflow ran in (results/ and datasets/ inside)")
    s.add_argument("--config", required=True, help="the run's configuration file (hashed into the manifest)")
    s.add_argument(
        "--log",
        nargs="*",
        default=[],
        help="Snakemake logs of the run (wall and job times; default: the run's "
        ".snakemake/log/*.snakemake.log that finished a job)",
    )
    s.add_argument(
        "--figure-dataset",
        nargs="*",
        default=list(FIG5_DATASETS),
        help="family/scene whose Pauli and truncation studies are shipped (default: fig. 5's runs)",
    )
    s.add_argument("--snapshots", nargs="*", default=[FIG3_LABEL], help="labels whose snapshot files are shipped")
    s.add_argument(
        "--add",
        action="store_true",
        help="extend an earlier collection in --out with this run's files "
        "(a run split over sessions: same config, same dataset bytes)",
    )
    s.add_argument("--out", required=True, help="the shipped folder (replaced as a whole, or extended with --add)")
    s.set_defaults(func=cmd_ship, writes=[("out", "--out", "folder")], reads=["run", "config", "log"])


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command(
        "ship",
        "copy a workflow run's results into a small folder with their hashes, for a page generated "
        "from them (qlsbench figure reproduction)",
        _arguments_ship,
    ),
)

__all__ = ["COMMANDS"]
