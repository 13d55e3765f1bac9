"""Dataset commands: ``ising``, ``simulate``, ``trajectory``, ``checkpoints`` and ``info``."""

from __future__ import annotations

import sys

from qlsbench.cli.types import COUNT, NON_NEGATIVE, POSITIVE, SEED, real, whole
from qlsbench.errors import InputError
from qlsbench.physics.scene import MAX_SPHERES
from qlsbench.problems.ising import MAX_QUBITS as ISING_MAX_QUBITS


#: ``qlsbench simulate`` options that only DEM-C scenes take, with their DEM-C defaults.
DEM_C_ONLY = {"n_spheres": 32, "packing": 0.2, "s": 8, "regularization": 0.0, "snapshots": None, "snapshot_count": 4,
              "integrator": "dem_c", "restitution": 0.0}


def _scene_params(pairs: list[str]) -> dict:
    """``--param key=value`` pairs as a dict, values parsed as YAML scalars (numbers stay numbers)."""
    import yaml

    params = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--param {pair!r}: expected KEY=VALUE")
        params[key.strip().replace("-", "_")] = yaml.safe_load(value)
    return params


def cmd_simulate_penalty(args) -> None:
    from qlsbench.generate import simulate_penalty_dataset

    given = [f"--{k.replace('_', '-')}" for k in DEM_C_ONLY if getattr(args, k) is not None]
    if given:
        raise InputError(f"{', '.join(given)} only apply to DEM-C scenes, not to --scene {args.scene}")
    params = _scene_params(args.param)
    if args.mu is not None:
        params["mu"] = args.mu
    meta = simulate_penalty_dataset(args.out, scene=args.scene, steps=args.steps, h=args.h, every=args.every,
                                    kappa_cap=args.kappa_cap, max_systems=args.max_systems,
                                    progress=not args.quiet, **params)
    print(f"{meta['scene_label']}: {meta['steps']} steps of h={meta['h']:g} at {meta['steps_per_second']:.1f} "
          f"steps/s, Newton {meta['newton_iterations_mean']:.2f} it/step (max {meta['newton_iterations_max']}), "
          f"{meta['exported']} of {meta['captured']} systems exported ({meta['non_symmetric']} non-symmetric), "
          f"cond {meta['cond_min']} .. {meta['cond_max']} -> {args.out}")
    if meta["steps_not_converged"]:
        print(f"warning: Newton did not reach its tolerance in {meta['steps_not_converged']} of "
              f"{meta['steps']} steps", file=sys.stderr)


def cmd_ising(args) -> None:
    from qlsbench.data import write_systems
    from qlsbench.problems import ising_inspired

    systems = [ising_inspired(n, kappa=args.kappa, J=args.J) for n in args.n]
    path = write_systems(systems, args.out)
    print(f"wrote {len(systems)} Ising systems (kappa={args.kappa:g}, n={args.n}) to {path}")


def _parser_ising(sub) -> None:
    s = sub.add_parser("ising", help="write Ising-inspired VQLS systems to a Parquet dataset")
    s.add_argument("--n", type=whole(1, ISING_MAX_QUBITS), nargs="+", required=True, help="numbers of qubits")
    s.add_argument("--kappa", type=real(1.0, open_low=True), default=10.0, help="condition number (> 1)")
    s.add_argument("--J", type=real(), default=0.1, help="ZZ coupling")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.set_defaults(func=cmd_ising, writes=[("out", "--out", "file")])


def cmd_simulate(args) -> None:
    from qlsbench.physics.penalty import PENALTY_SCENES

    if args.scene in PENALTY_SCENES:
        return cmd_simulate_penalty(args)
    if args.param:
        raise InputError(f"--param applies to penalty scenes ({', '.join(PENALTY_SCENES)}), not to {args.scene}")
    for key, default in DEM_C_ONLY.items():
        if getattr(args, key) is None:
            setattr(args, key, default)
    args.mu = 0.0 if args.mu is None else args.mu
    args.h = 1e-3 if args.h is None else args.h
    from qlsbench.generate import simulate_dataset

    meta = simulate_dataset(args.out, scene=args.scene, n_spheres=args.n_spheres, packing=args.packing,
                            mu=args.mu, steps=args.steps,
                            seed=args.seed, h=args.h, s=args.s, every=args.every, kappa_cap=args.kappa_cap,
                            max_systems=args.max_systems, regularization=args.regularization,
                            snapshots=args.snapshots, snapshot_count=args.snapshot_count,
                            integrator=args.integrator, restitution=args.restitution, progress=not args.quiet)
    how = f" cd_lagrange e={meta['restitution']:g}" if args.integrator == "cd_lagrange" else ""
    print(f"{meta['scene']} N={meta['n_spheres']} mu={meta['mu']:g}{how}: {meta['steps']} steps at "
          f"{meta['steps_per_second']:.1f} steps/s, Newton {meta['newton_iterations_mean']:.1f} it/step "
          f"(max {meta['newton_iterations_max']}), {meta['exported']} of {meta['captured']} subsystems exported "
          f"({meta['dropped_kappa']} over the kappa cap), cond {meta['cond_min']} .. {meta['cond_max']} -> {args.out}")
    if args.snapshots:
        print(f"sphere snapshots at steps {meta['snapshot_steps']} -> {meta['snapshots']}")
    if meta["steps_solved_by_proximal"]:
        print(f"{meta['steps_solved_by_proximal']} of {meta['steps']} steps were solved by the proximal min-map "
              f"fallback (plain Newton stalled on an LCP above 1200 unknowns)")
    if meta["steps_not_converged"]:
        print(f"warning: the contact LCP of {meta['steps_not_converged']} of {meta['steps']} steps was not solved to "
              f"tolerance (min-map Newton stalled and its fallback, Lemke up to 1200 unknowns or the proximal "
              f"min-map Newton above, did not reach it either); those steps used the closer of the two iterates",
              file=sys.stderr)


def _parser_simulate(sub) -> None:
    s = sub.add_parser("simulate", help="run a simulation (DEM-C or penalty) and write its Newton subsystems")
    s.add_argument("--scene", default="sedimentation",
                   help="sedimentation (DEM-C, family dem_c) or incline-block, cloth-sphere, spheres-incline "
                        "(penalty friction, family penalty)")
    s.add_argument("--n-spheres", type=whole(1, MAX_SPHERES), default=None, help="DEM-C: number of spheres (default 32)")
    s.add_argument("--packing", type=real(0.0, 0.5, open_low=True, open_high=True), default=None,
                   help="DEM-C: sphere volume fraction of the container (default 0.2)")
    s.add_argument("--mu", type=NON_NEGATIVE, default=None, help="friction coefficient (>= 0; DEM-C default 0)")
    s.add_argument("--steps", type=COUNT, default=400)
    s.add_argument("--seed", type=SEED, default=0)
    s.add_argument("--h", type=POSITIVE, default=None, help="time step (> 0; DEM-C default 1e-3, penalty: the scene's)")
    s.add_argument("--s", type=whole(4), default=None, help="DEM-C: friction directions (even, >= 4; default 8)")
    s.add_argument("--integrator", choices=["dem_c", "cd_lagrange"], default=None,
                   help="DEM-C: dem_c (alg. 1, family dem_c) or cd_lagrange (restitution impacts, family cd_lagrange)")
    s.add_argument("--restitution", type=real(0.0, 1.0), default=None,
                   help="DEM-C with --integrator cd_lagrange: Newton's restitution e in [0, 1] (default 0)")
    s.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="penalty scene parameter, e.g. --param angle=30 --param n=3 (see the scene builders)")
    s.add_argument("--every", type=COUNT, default=1, help="keep subsystems of every k-th step")
    s.add_argument("--kappa-cap", type=real(1.0, infinite=True), default=1e12,
                   help="drop systems with a larger condition number (inf keeps every system)")
    s.add_argument("--regularization", type=NON_NEGATIVE, default=None,
                   help="Tikhonov epsilon added to each Newton subsystem (frictional ones are singular without it)")
    s.add_argument("--max-systems", type=COUNT, default=None)
    s.add_argument("--out", required=True, help="dataset folder")
    s.add_argument("--snapshots", metavar="PATH", default=None,
                   help="also write sphere states and contact impulses at evenly spaced steps to this .parquet (fig. 3)")
    s.add_argument("--snapshot-count", type=COUNT, default=None, metavar="K",
                   help="number of snapshot steps, the last step always among them")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate, writes=[("out", "--out", "folder"), ("snapshots", "--snapshots", "file")])


def cmd_trajectory(args) -> None:
    from qlsbench.generate import trajectory_dataset

    path = trajectory_dataset(args.out, scene=args.scene, steps=args.steps, h=args.h, sigmas=args.sigma,
                              seed=args.seed, mode=args.impacts, **_scene_params(args.param))
    print(f"{args.scene}: {args.steps} steps of h={args.h:g}, noise sigma {args.sigma} -> {path}")


def _parser_trajectory(sub) -> None:
    s = sub.add_parser("trajectory", help="write a CD-Lagrange trajectory (clean and noisy columns) to Parquet")
    s.add_argument("--scene", required=True, help="pendulum, bouncing-ball or newtons-cradle")
    s.add_argument("--steps", type=COUNT, required=True)
    s.add_argument("--h", type=POSITIVE, default=0.02, help="time step (the paper: 0.02)")
    s.add_argument("--sigma", type=NON_NEGATIVE, nargs="+", default=[0.2, 0.02], help="noise standard deviations")
    s.add_argument("--seed", type=SEED, default=0, help="seed of the noise")
    s.add_argument("--impacts", choices=["sequential", "simultaneous"], default="sequential",
                   help="how contacts closing in the same step are resolved")
    s.add_argument("--param", action="append", metavar="KEY=VALUE", help="scene parameter, e.g. --param e=0.8")
    s.add_argument("--out", required=True, help="output .parquet file")
    s.set_defaults(func=cmd_trajectory, writes=[("out", "--out", "file")])


def cmd_checkpoints(args) -> None:
    from qlsbench.data.select import write_checkpoints

    print(f"wrote {write_checkpoints(args.dataset, args.out, args.count)}")


def _parser_checkpoints(sub) -> None:
    s = sub.add_parser("checkpoints", help="a sub-dataset of a simulation's systems at a few evenly spaced steps")
    s.add_argument("dataset", help="physics dataset file or folder")
    s.add_argument("--count", type=COUNT, default=4, help="number of steps (first Newton iteration of each)")
    s.add_argument("--out", required=True, help="output folder (or .parquet file)")
    s.set_defaults(func=cmd_checkpoints, writes=[("out", "--out", "any")], reads=["dataset"])


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


#: Parser builders of this module's commands, in the order `qlsbench --help` lists them.

PARSERS = (_parser_ising, _parser_simulate, _parser_trajectory, _parser_checkpoints, _parser_info)
