"""Write ``dem_c_large.parquet``: real DEM-C Newton subsystems of 10, 11 and 12 qubits for the Pauli benchmarks.

A sedimentation of 1000 frictionless spheres (packing 0.35, h = 2 ms, 1200
steps, seed 0) captures every 50th step's Newton subsystems; the one with the
most non-zeros of each qubit count >= 10 is exported (padded, normalised,
with its condition number). About 5 minutes on 2 cores; deterministic, so a
rerun gives the same bytes.

    python benchmarks/data/make_dem_c_large.py
"""

from pathlib import Path

from qlsbench.data import write_systems
from qlsbench.physics import StepOptions, SubsystemRecorder, build_scene, export_systems, simulate

OUT = Path(__file__).with_name("dem_c_large.parquet")
MIN_QUBITS = 10


def main() -> None:
    scene = build_scene("sedimentation", n_spheres=1000, packing=0.35, seed=0)
    recorder = SubsystemRecorder(every=50)
    simulate(scene, 1200, StepOptions(h=2e-3), capture=recorder, progress=True)
    largest: dict[int, tuple] = {}  # by qubit count: the largest subsystem's record
    for record in recorder.records:
        n = (record[0].shape[0] - 1).bit_length()  # qubits after padding
        if n >= MIN_QUBITS and (n not in largest or record[0].nnz > largest[n][0].nnz):
            largest[n] = record
    kept = SubsystemRecorder()
    kept.records = [largest[n] for n in sorted(largest)]
    systems, stats = export_systems(kept, seed=0, scene="sedimentation-n1000-mu0")
    write_systems(systems, OUT, metadata={"generator": "benchmarks/data/make_dem_c_large.py", **stats})
    print(f"wrote {len(systems)} systems to {OUT}: {stats}")


if __name__ == "__main__":
    main()
