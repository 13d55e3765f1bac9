"""Write ``dem_c_grown.parquet``: the advantage map's largest DEM-C system (the frictionless pile of 15,000
spheres, its largest min-map Newton subsystem: ``qlsbench.bench.advantage.grown("dem_c-mu0", 15000)``), unpadded,
for the asv suite's kappa and classical solves at 2^15 unknowns.

The pile takes hours to settle (1,200 steps; about 7 s a step once it has), so the build saves itself to
``--state`` every 5 minutes and resumes there; the advantage sweep's own dataset of that size
(``qlsbench advantage --datasets``) is the same system and is copied when given.

    python benchmarks/data/make_dem_c_grown.py [--from DATASET] [--state FOLDER]
"""

import argparse
import shutil
from pathlib import Path

OUT = Path(__file__).with_name("dem_c_grown.parquet")
SPHERES = 15000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", type=Path, help="the sweep's dataset of this size, to copy")
    parser.add_argument("--state", type=Path, default=Path(".growth-state"), help="where the build saves itself")
    args = parser.parse_args()
    if args.source is not None:
        shutil.copyfile(args.source, OUT)
    else:
        from qlsbench.bench.advantage import grown
        from qlsbench.data import write_systems

        system = grown("dem_c-mu0", SPHERES, state=args.state)
        system.meta.pop("earlier_seconds", None)
        write_systems([system], OUT, metadata={"generator": "benchmarks/data/make_dem_c_grown.py"})
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
