"""Run one solver configuration over a dataset and store one row per solve.

Every finished solve is journaled at once (one small Parquet file per solve
beside the results file), so a run that is killed resumes where it stopped:
solves already in the journal are not repeated. The results file itself is
written once, atomically, when every solve is done, and the journal removed.

A solve in this process (no time limit) is announced in the journal before it
starts. When the process dies during it, the mark stays without a result. That
is not held against the solver: the runner itself may have been killed (``kill
-9``, the OOM killer, a lost cluster node). The rerun solves it again, in a
child process, so a solver that does take its process down (``os.abort``, a
segfault) is seen to by the live runner: a ``crashed`` row naming how its
process ended, and the run goes on. A rerun after a killed runner so writes the
rows an uninterrupted run writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from qlsbench.bench._fault_report import fault_report
from qlsbench.bench._isolation import IsolatedSolver, call_solver
from qlsbench.bench._results import (
    RESULTS_SCHEMA_VERSION,
    RESULTS_VERSION_KEY,
    jsonable,
    read_results,
    result_row,
    results_table,
)
from qlsbench.bench._shards import assign, differing, merge, run_facts, spec_facts
from qlsbench.checks import COUNT, TIME_LIMIT
from qlsbench.data import (
    atomic_write_table,
    dataset_hash,
    dataset_name,
    load_dataset,
    to_system,
)
from qlsbench.data._writer import remove_stale_temporaries
from qlsbench.errors import InputError, refused_write
from qlsbench.solvers import SolveResult, Status, get
from qlsbench.solvers.base import can_start, prepare
from qlsbench.solvers.registry import check_solver


@dataclass(frozen=True)
class SolverSpec:
    """A solver name, its options and the label it carries on the leaderboard."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
            object.__setattr__(self, "label", f"{self.name}[{opts}]" if opts else self.name)

    @property
    def options_json(self) -> str:
        """The options as JSON with sorted keys: what a row records and a journal key hashes."""
        return json.dumps(self.options, sort_keys=True, default=jsonable)


class Journal:
    """Finished solves of one results file, kept until the file is written, and the solve under way.

    Each solve is a one-row Parquet file named by the hash of everything that
    determines it (solver, options, dataset content, system, repeat, seed,
    time limit), written atomically, so an entry is either whole or absent
    and a changed configuration never picks up another's rows.

    A solve run in this process is announced first by a mark ``<key>.started``,
    written through to disk, and the mark removed once its row is in. A mark
    without a row is a solve during which the process died.

    Parameters
    ----------
    out : path
        The results file this journal belongs to; the journal is the hidden
        folder ``.<name>.journal`` beside it.
    """

    def __init__(self, out: str | os.PathLike) -> None:
        out = Path(out)
        self.folder = out.parent / f".{out.name}.journal"
        self.current: Path | None = None  # the mark of the solve under way, if any

    @staticmethod
    def key(*parts: Any) -> str:
        """Hash of the parts that determine a solve."""
        return hashlib.sha256(json.dumps(parts, default=jsonable).encode()).hexdigest()[:24]

    def load(self) -> dict[str, dict]:
        """Rows already finished, by key; unreadable entries (another schema) are ignored and redone.

        Temporary files of entries whose writer was killed are removed here,
        once, rather than at every entry written.
        """
        remove_stale_temporaries(self.folder, every_target=True)
        done = {}
        for path in sorted(self.folder.glob("*.parquet")) if self.folder.is_dir() else []:
            try:
                table = pq.read_table(path)
            except (pa.ArrowException, OSError):
                continue
            if (table.schema.metadata or {}).get(RESULTS_VERSION_KEY) == RESULTS_SCHEMA_VERSION.encode():
                done[path.stem] = table.to_pylist()[0]
        return done

    def died(self) -> set[str]:
        """Keys of solves an earlier run started in its own process and never finished."""
        if not self.folder.is_dir():
            return set()
        return {path.name.removesuffix(".started") for path in self.folder.glob("*.started")}

    def start(self, key: str, **facts: Any) -> None:
        """Mark solve ``key`` as under way, durably: the mark must outlive a process that dies next."""
        self.current = path = self.folder / f"{key}.started"  # first, so a stop while writing it removes it
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            try:
                os.write(fd, json.dumps({**facts, "pid": os.getpid()}, default=jsonable).encode())
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:  # a full disk or a read-only place: one line naming the mark, and no mark left
            self.abandon()
            raise (refused_write(exc, path) or exc) from None
        _fsync_folder(self.folder)

    def abandon(self) -> None:
        """Remove the mark of the solve under way: it was stopped, not crashed, and is done again next run."""
        if self.current is not None:
            self.current.unlink(missing_ok=True)
            self.current = None

    def add(self, key: str, row: dict) -> None:
        """Record one finished solve (and drop its mark)."""
        atomic_write_table(results_table([row]), self.folder / f"{key}.parquet", sweep=False)
        (self.folder / f"{key}.started").unlink(missing_ok=True)
        self.current = None

    def clear(self) -> None:
        """Remove the journal once the results file holds every row."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def remove_if_empty(self) -> None:
        """Remove the journal of a run that stopped before it finished any solve (nothing to resume)."""
        try:
            self.folder.rmdir()
        except OSError:  # absent, or it holds finished solves: a rerun resumes from them
            pass


def _fsync_folder(folder: Path) -> None:
    """Make a new entry of ``folder`` durable (POSIX; elsewhere the file's own fsync is what there is)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: Signals that end a process politely: a scheduler or a user stopping the run, not the solver crashing.
_POLITE_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _polite_kills_abandon_the_mark(journal: Journal):
    """While solving in this process, let SIGTERM and SIGHUP remove the solve's mark, then end as they would.

    Left in place, the mark would make the rerun blame the solver for a job
    scheduler's stop. Only signals left at their default (terminate) are
    taken over, and only in the main thread, where Python runs handlers.
    """
    taken = {}
    if threading.current_thread() is threading.main_thread():

        def handler(signum, frame):
            journal.abandon()
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)  # die of the signal as the default action would

        for sig in _POLITE_SIGNALS:
            if signal.getsignal(sig) is signal.SIG_DFL:
                taken[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, previous in taken.items():
            signal.signal(sig, previous)


def _skip_reason(system, max_qubits: int | None) -> str | None:
    n = system.meta.get("n_qubits")
    if max_qubits is not None and n is not None and n > max_qubits:
        return f"skipped: {n} qubits, over max_qubits={max_qubits} configured for this solver"
    return None


@dataclass
class _Run:
    """What every solve of one :func:`run_solver` call shares."""

    spec: SolverSpec
    name: str
    dhash: str
    time_limit: float | None
    max_qubits: int | None
    journal: Journal
    died: set[str]  # journal keys of solves an earlier run started in its own process and never finished
    solver: Any = None  # the solver, when solves run in this process
    isolated: IsolatedSolver | None = None  # the worker, when they run in a child process
    crashed: set[str] = field(default_factory=set)  # systems whose solve took the process down
    retry: IsolatedSolver | None = None  # the child process that retries where a dead runner left off
    sequence: bool = False  # each solve starts from the previous one's state (run_solver's ``sequence``)


def run_solver(
    spec: SolverSpec,
    dataset: str | os.PathLike,
    out: str | os.PathLike,
    *,
    repeats: int = 1,
    seed: int = 0,
    time_limit: float | None = None,
    max_qubits: int | None = None,
    name: str | None = None,
    progress: bool = True,
    shard: tuple[int, int] | None = None,
    sequence: bool = False,
    first_repeat: int = 0,
) -> pd.DataFrame:
    """Run one solver configuration on every system of a dataset.

    Each (system, repeat) gives a row, failures included: an exception in the
    solver or a non-finite solution is an ``error`` row, an overrun of
    ``time_limit`` a ``timeout`` row, a system the solver does not take a
    ``skipped`` row with the reason. Finished solves are journaled, so
    calling this again after an interruption repeats none of them; the
    results file is written once at the end, atomically.

    The solver gets a private copy of each system; metrics are computed on
    the stored one. Without a time limit, a solve during which this process
    died (the solver's doing, or a kill of the runner) is solved again on the
    next call, with the system's later repeats, in a child process: a row
    like an uninterrupted run's, or ``crashed`` naming how the child ended.

    Parameters
    ----------
    spec : SolverSpec
        Solver name, options and label.
    dataset : path
        Dataset file or folder.
    out : path
        Results ``.parquet`` file to write.
    repeats : int
        Solves per system; repeat ``r`` uses seed ``seed + r``.
    seed : int
        Base seed.
    time_limit : float or None
        Seconds per solve. When set, solves run in a child process that is
        killed on overrun; when ``None`` they run in this process.
    max_qubits : int or None
        Systems of more qubits get a ``skipped`` row without being attempted.
    name : str or None
        Dataset name recorded in the rows; default :func:`dataset_name` of the path.
    progress : bool
        Show a progress bar.
    shard : (int, int), optional
        ``(i, k)``: solve only shard ``i`` of ``k`` (:mod:`qlsbench.bench._shards`); the rows of every
        shard, merged, equal an unsharded run's.
    sequence : bool
        Solve the systems in the order the simulation met them (by ``step``, then ``newton_iter``), each
        repeat's chain starting every solve from the previous one's ``state`` (a warm start:
        :func:`~qlsbench.solvers.base.can_start`). Each row's resources say ``started_from``. A resumed
        sequence starts cold at its first unfinished solve. Runs in this process: no ``time_limit``, no
        ``shard``.
    first_repeat : int
        Solve only repeats ``first_repeat .. repeats - 1`` (seeds ``seed + r`` as always): the new seeds of
        a run whose earlier ones are done (:func:`add_repeats`).

    Returns
    -------
    pandas.DataFrame
        The rows written.

    Raises
    ------
    InputError
        For bad arguments, an unknown solver or options it does not take,
        before anything is read, solved or written.
    """
    COUNT.check(repeats, "repeats")
    if not (isinstance(first_repeat, int) and 0 <= first_repeat < repeats):
        raise InputError(f"first_repeat must be an integer in [0, repeats) = [0, {repeats}), got {first_repeat!r}")
    if time_limit is not None:
        TIME_LIMIT.check(time_limit, "time_limit (seconds)")
    if max_qubits is not None:
        COUNT.check(max_qubits, "max_qubits")
    built = check_solver(spec.name, spec.options)  # name, option names and types, values: before any output exists
    # Work a solver has to do once before its first solve (the external solver building its environment), here in
    # this process, before any solve's time limit runs.
    prepare(built)
    if sequence:
        _check_sequence(time_limit, shard)
    # Every row is checked (hash, shapes) before the first solve, so bad data stops the run at once.
    records = load_dataset(dataset)
    if shard is not None:
        owner = assign(records["system_id"].tolist(), records["dim"].tolist(), shard[1])
        records = records[records["system_id"].map(owner) == shard[0]]
    if sequence and {"step", "newton_iter"} <= set(records.columns):
        records = records.sort_values(["step", "newton_iter"], kind="stable")
    systems = [to_system(record) for _, record in records.iterrows()]
    journal = Journal(out)
    run = _Run(
        spec,
        name or dataset_name(dataset),
        dataset_hash(dataset),
        time_limit,
        max_qubits,
        journal,
        died=journal.died(),
        sequence=sequence,
    )
    done = journal.load()
    rows = []
    guard: contextlib.AbstractContextManager[Any]
    if time_limit is None:
        run.solver = get(spec.name, **spec.options)
        if sequence and not can_start(run.solver):
            raise InputError(f"--sequence: solver {spec.name!r} cannot start from an earlier solve (no start_from)")
        guard = contextlib.ExitStack()
        guard.enter_context(_polite_kills_abandon_the_mark(journal))
        guard.enter_context(fault_report(spec.label, Path(out).with_name(f"{Path(out).name}.fault.txt")))
    else:
        run.isolated = IsolatedSolver(spec.name, spec.options, time_limit)
        guard = contextlib.nullcontext()
    try:
        with (
            tqdm(
                total=len(systems) * (repeats - first_repeat),
                desc=f"{spec.label} on {run.name}",
                disable=not progress,
                unit="solve",
            ) as bar,
            guard,
        ):
            # A sequence runs each repeat's chain through the systems in order; otherwise a system's repeats
            # are solved together, as always.
            wanted = range(first_repeat, repeats)
            order = (
                [(system, r) for r in wanted for system in systems]
                if sequence
                else [(system, r) for system in systems for r in wanted]
            )
            state = None
            for i, (system, r) in enumerate(order):
                s = seed + r
                key = Journal.key(
                    spec.label,
                    spec.name,
                    spec.options_json,
                    run.dhash,
                    system.system_id,
                    r,
                    s,
                    time_limit,
                    max_qubits,
                    *(("sequence",) if sequence else ()),
                )
                if sequence and i % len(systems) == 0:
                    state = None  # a new chain starts cold
                if key not in done:
                    try:
                        done[key], state = _solve_row(run, system, r, s, key, start=state)
                        state = state if sequence else None
                        journal.add(key, done[key])
                    except BaseException:  # KeyboardInterrupt and the like: not a crash, done again next run
                        journal.abandon()
                        raise
                else:
                    state = None  # journaled on an earlier run: its state is gone, the next solve starts cold
                rows.append(done[key])
                bar.update()
    except BaseException:
        journal.remove_if_empty()
        raise
    finally:
        for worker in (run.isolated, run.retry):
            if worker is not None:
                worker.close()
    table = results_table(rows)
    atomic_write_table(table, out)
    journal.clear()
    return pd.DataFrame(rows) if rows else table.to_pandas()  # an empty shard still has the columns


def add_repeats(
    spec: SolverSpec,
    dataset: str | os.PathLike,
    out: str | os.PathLike,
    *,
    repeats: int,
    seed: int = 0,
    sequence: bool = False,
    **run,
) -> pd.DataFrame:
    """Bring the finished results file ``out`` up to ``repeats`` repeats, solving only the new ones.

    Raising a run's seeds from 3 to 5 solves seeds 3 and 4 and keeps the
    rows of 0-2 as they are: the new repeats go to a part file beside
    ``out`` (resumable like any run), which is then merged with ``out`` by
    :func:`~qlsbench.bench._shards.merge`, so the parts must be of one solve
    (solver, options, seed, time limit, dataset) or nothing is written.
    A ``sequence`` run takes sequence repeats (each new repeat one more
    chain through the systems), a plain run plain ones; the other way round
    is refused. ``run`` takes :func:`run_solver`'s other keywords.

    Returns
    -------
    pandas.DataFrame
        Every row of ``out`` afterwards.
    """
    out = Path(out)
    earlier = read_results(out)
    # Refused before solving: a part of another solve would only fail at the merge, its solves spent.
    mismatch = differing(spec_facts(spec, dataset_hash(dataset), seed, run.get("time_limit")), run_facts(earlier, out))
    if mismatch:
        raise InputError(f"{out}: not a run of this solve to add repeats to: {mismatch}")
    if _is_sequence(earlier) != sequence:
        mode = (
            "a sequence run (each solve from the previous one): add to it with --sequence"
            if not sequence
            else "a run of systems solved one by one, not a sequence: add to it without --sequence"
        )
        raise InputError(f"{out}: {mode}")
    have = sorted(int(r) for r in earlier["repeat"].unique())
    if have != list(range(len(have))):
        raise InputError(f"{out}: its repeats are {have}, not 0..k-1: not a run to add repeats to")
    if len(have) >= repeats:
        return earlier
    part = out.with_name(f"{out.stem}.repeats-{len(have)}-{repeats - 1}.parquet")
    if not part.exists():  # a part finished before an interruption is merged, not solved again
        run_solver(spec, dataset, part, repeats=repeats, seed=seed, first_repeat=len(have), sequence=sequence, **run)
    rows = merge(dataset, [out, part], out)
    part.unlink()
    return rows


def _is_sequence(rows: pd.DataFrame) -> bool:
    """Whether results ``rows`` are a sequence run's: each of its rows says how the solve started."""
    return bool(len(rows)) and all(isinstance(r, str) and '"started_from"' in r for r in rows["resources"])


#: Message of a ``crashed`` row: the solver took its own process down when retried in one.
CRASHED = (
    "the solver took its process down ({why}); the run before died during this system's solves too, so "
    "they were retried in a child process"
)


def _check_sequence(time_limit: float | None, shard) -> None:
    """A sequence passes each solve's state to the next, in this process, over the whole run."""
    if time_limit is not None:
        raise InputError("--sequence passes each solve's state to the next in this process: drop --time-limit")
    if shard is not None:
        raise InputError("--sequence solves a run's systems in order: a shard would break the chain; drop --shard")


def _retry(run: _Run, system, seed: int) -> tuple[SolveResult, float]:
    """Solve in :attr:`_Run.retry`'s child process; its death is a ``crashed`` row naming how it ended."""
    if run.retry is None:
        run.retry = IsolatedSolver(run.spec.name, run.spec.options, None)
    result, wall = run.retry.solve(system, seed)
    died = result.resources.get("died") if isinstance(result.resources, dict) else None
    if died is not None:
        result = SolveResult(None, Status.CRASHED, CRASHED.format(why=died), resources=result.resources)
    return result, wall


def _solve_row(run: _Run, system, repeat: int, seed: int, key: str, start=None) -> tuple[dict, Any]:
    """One solve (or a configured skip, or a crash an earlier run left behind) as a results row, and its state."""
    reason = _skip_reason(system, run.max_qubits)
    if reason is not None:
        result, wall = SolveResult(None, Status.SKIPPED, reason), 0.0
    elif run.isolated is not None:
        result, wall = run.isolated.solve(system, seed)
    elif key in run.died or system.system_id in run.crashed:
        # The process died during this system's solves last time: the runner's fault or the solver's, which a
        # retry in a child process tells apart without risking this one.
        run.crashed.add(system.system_id)
        result, wall = _retry(run, system, seed)
    else:
        run.journal.start(key, system_id=system.system_id, repeat=repeat, seed=seed)
        result, wall = call_solver(run.solver, system, seed, start)
        if run.sequence and isinstance(result.resources, dict):  # every row of a sequence says how it started
            result.resources.setdefault("started_from", "cold")
    row = result_row(run.spec, run.name, run.dhash, system, repeat, seed, result, wall, run.time_limit)
    return row, result.state
