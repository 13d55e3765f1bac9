"""``python -m qlsbench.bench.advantage``: run the advantage map's sweep, family by family, resumably.

    python -m qlsbench.bench.advantage --out docs/advantage                    # the small sweep, every family
    python -m qlsbench.bench.advantage --sweep full --families dem_c-mu0       # one family's full axis
    python -m qlsbench.bench.advantage --families poisson-2d --sizes 8 16 512  # sizes of your own

Then ``qlsbench figure advantage docs/advantage/*.parquet --out docs/advantage.md`` draws the page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qlsbench.bench.advantage._growth import AXES, check_sizes
from qlsbench.bench.advantage._sweep import sweep
from qlsbench.errors import QlsbenchError
from qlsbench.estimates import HARDWARE_MODELS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qlsbench.bench.advantage", description=__doc__.split("\n")[0])
    parser.add_argument("--families", nargs="+", default=list(AXES), metavar="FAMILY", help=", ".join(AXES))
    parser.add_argument("--sweep", choices=("small", "full"), default="small", help="the axis' sizes (default small)")
    parser.add_argument("--sizes", nargs="+", type=int, default=None, help="these sizes instead (one family)")
    parser.add_argument("--models", nargs="+", default=list(HARDWARE_MODELS), help=", ".join(HARDWARE_MODELS))
    parser.add_argument("--out", type=Path, default=Path("docs/advantage"), help="folder of the tables")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    try:
        if args.sizes is not None and len(args.families) != 1:
            raise QlsbenchError("--sizes needs exactly one family in --families")
        plan = {  # every family's sizes checked before any work; the models by the first sweep, before its work
            family: check_sizes(family, args.sizes or getattr(AXES.get(family), args.sweep, ()))
            for family in args.families
        }
        for family, sizes in plan.items():
            sweep(family, sizes, args.out, args.models, progress=not args.quiet)
    except QlsbenchError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
