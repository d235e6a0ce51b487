"""Running many games on the compiled kernel: schedules, chunks, workers.

The flow (DESIGN): a :class:`RunSpec` and a schedule say what every game index means
(deal, dealer, who sits where); work is cut into chunks of consecutive game indices;
each chunk is played by :func:`play_chunk` in whatever process joblib gives it, which
loads the plugins and the cached kernel itself. Every random key comes from
``(run seed, game or deal index)`` (:mod:`shedsim.seeding`), so results are identical
for any chunk size, number of workers or backend.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .rules import RuleSet
from .seeding import game_keys


class SimulationError(RuntimeError):
    """A strategy failed during a run; the message names the plugin, seed, game and position."""


@dataclass(frozen=True)
class RunSpec:
    """What to simulate. ``entries`` are strategy specs (``NAME`` or ``NAME:param=v``),
    ``labels`` their display names (distinct; the same strategy may be entered twice).

    ``schedule`` is ``"same"`` (every seat plays entry 0: benchmarks) or ``"tournament"``
    (balanced tables, every rotation, paired deals: :func:`tournament_tables`).
    """

    rules: RuleSet
    players: int
    entries: tuple[str, ...]
    labels: tuple[str, ...]
    seed: int = 0
    games: int = 1
    schedule: str = "tournament"
    strategy_paths: tuple[str, ...] = ()
    chunk_size: int = 20_000

    def tables(self) -> list[tuple[int, ...]]:
        return tournament_tables(len(self.entries), self.players) if self.schedule == "tournament" else [
            (0,) * self.players]

    def n_chunks(self) -> int:
        return max(1, math.ceil(self.games / self.chunk_size))

    def chunk_bounds(self, i: int) -> tuple[int, int]:
        return i * self.chunk_size, min(self.games, (i + 1) * self.chunk_size)


def tournament_tables(n_entries: int, players: int) -> list[tuple[int, ...]]:
    """Balanced tables of ``players`` seats drawn from ``n_entries`` entries.

    Every combination of distinct entries when there are at least as many entries as seats;
    otherwise every multiset (repeats allowed) that holds at least two different entries
    (a table of one entry compares nothing). Every entry appears equally often.
    """
    if n_entries >= players:
        return list(itertools.combinations(range(n_entries), players))
    if n_entries == 1:
        return [(0,) * players]
    return [t for t in itertools.combinations_with_replacement(range(n_entries), players) if len(set(t)) > 1]


def schedule_games(spec: RunSpec, start: int, stop: int) -> dict[str, np.ndarray]:
    """What games ``start..stop-1`` are: ``index``, ``deal`` (deal index: the N rotations of
    a block share a deal), ``dealer``, ``seating`` (int64[n, players] entry per seat).

    Game g is block b = g // players, rotation r = g % players; block b plays table
    b % n_tables with deal b; seat s holds the table's entry (s + r) % players.
    """
    n = spec.players
    idx = np.arange(start, stop, dtype=np.int64)
    if spec.schedule == "same":
        deal = idx
        seating = np.zeros((len(idx), n), np.int64)
    else:
        tables = np.array(spec.tables(), dtype=np.int64)
        block = idx // n
        rot = idx % n
        deal = block
        t = tables[block % len(tables)]
        cols = (np.arange(n)[None, :] + rot[:, None]) % n
        seating = np.take_along_axis(t, cols, axis=1)
    return {"index": idx, "deal": deal, "dealer": deal % n, "seating": seating}


@dataclass
class ChunkResult:
    """Per-game records of one chunk (see :mod:`shedsim.kernel._loop`) plus its schedule."""

    start: int
    stop: int
    records: dict[str, np.ndarray] = field(default_factory=dict)
    seating: np.ndarray | None = None
    seconds: float = 0.0


def _loaded(spec: RunSpec):
    from .kernel.build import kernel_module
    from .plugins import discover, parse_spec
    known = discover(list(spec.strategy_paths))
    compiled = [s for s in known.values() if s.compiled]
    k = kernel_module(compiled)
    ids, params = [], []
    for e in spec.entries:
        name, overrides = parse_spec(e)
        ids.append(k.ids[name])
        params.append(known[name].params_array(overrides))
    return known, k, np.array(ids, np.int64), np.stack(params)


def play_chunk(spec: RunSpec, start: int, stop: int, keep: tuple[str, ...] | None = None) -> ChunkResult:
    """Play games ``start..stop-1`` of the run on the kernel (in any process). ``keep``
    limits the record fields returned (all by default).

    Raises :class:`SimulationError` naming the strategy, run seed, game index and the
    position (replayed on the reference engine) when a strategy fails.
    """
    import time

    from .kernel.build import KernelError
    t0 = time.perf_counter()
    known, k, ids, params = _loaded(spec)
    sched = schedule_games(spec, start, stop)
    dk, sk = game_keys(spec.seed, sched["index"], sched["deal"])
    ra = spec.rules.compile(spec.players)
    try:
        rec = k.play(ra, ids, params, sched["seating"], dk, sk, sched["dealer"])
    except KernelError as e:
        raise SimulationError(describe_failure(spec, known, sched, dk, sk, e)) from None
    if keep is not None:
        rec = {k: v for k, v in rec.items() if k in keep}
    return ChunkResult(start, stop, rec, sched["seating"] if keep is None else None,
                       time.perf_counter() - t0)


def describe_failure(spec: RunSpec, known, sched, dk, sk, err) -> str:
    """Replay the failing game on the reference engine to name the strategy and position."""
    from .engine import StrategyError, play_game
    from .plugins import parse_spec
    g = err.game
    seating = sched["seating"][g]
    players = []
    for e in seating:
        name, overrides = parse_spec(spec.entries[e])
        players.append(known[name].player(spec.labels[e], overrides))
    head = (f"run seed {spec.seed}, game {int(sched['index'][g])} (deal {int(sched['deal'][g])}, "
            f"dealer seat {int(sched['dealer'][g])})")
    try:
        play_game(spec.rules, players, int(dk[g]), int(sk[g]), int(sched["dealer"][g]))
    except StrategyError as se:
        return f"{se}\n[{head}]"
    except Exception as ex:  # noqa: BLE001
        return f"strategy failed: {type(ex).__name__}: {ex}\n[{head}]"
    seat = err.seat
    who = spec.labels[seating[seat]] if seat >= 0 else "a strategy"
    return f"strategy {who!r} failed in the kernel ({err}) [{head}]"


BACKENDS = ("loky", "dask", "ray")


@contextlib.contextmanager
def backend_config(backend: str = "loky", workers: int = 1, scheduler: str | None = None):
    """joblib's ``parallel_config`` for ``backend``, starting what it needs.

    ``loky``: local processes. ``dask``: connects to ``scheduler`` (a dask scheduler
    address) or starts a ``LocalCluster`` of ``workers`` single-threaded processes.
    ``ray``: ``ray.init(address=scheduler)`` (needs ``pip install ray``). Raises
    ``ValueError`` for an unknown backend and ``ImportError`` naming the missing package.
    """
    from joblib import parallel_config
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")
    if backend == "loky":
        with parallel_config(backend="loky", n_jobs=workers):
            yield
        return
    if backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as e:
            raise ImportError("--backend dask needs dask.distributed: pip install 'dask[distributed]'") from e
        cluster = None
        if scheduler:
            client = Client(scheduler)
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            with parallel_config(backend="dask", n_jobs=-1):
                yield
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        return
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError as e:
        raise ImportError("--backend ray needs ray: pip install ray") from e
    ray.init(address=scheduler, ignore_reinit_error=True, include_dashboard=False)
    register_ray()
    try:
        with parallel_config(backend="ray", n_jobs=workers):
            yield
    finally:
        ray.shutdown()


def run_chunks(spec: RunSpec, chunks: list[int], workers: int = 1, backend: str = "loky",
               on_result: Any = None, keep: tuple[str, ...] | None = None,
               scheduler: str | None = None) -> list[ChunkResult]:
    """Play the given chunk numbers with joblib; results come back in chunk order.

    ``on_result(chunk_number, result)`` is called as each chunk finishes (progress,
    streaming aggregation, the run store). ``backend``/``scheduler``: see
    :func:`backend_config`; the results do not depend on them.
    """
    from joblib import Parallel, delayed
    out: list[ChunkResult] = []
    if workers <= 1 and backend == "loky":
        for c in chunks:
            r = play_chunk(spec, *spec.chunk_bounds(c), keep=keep)
            if on_result:
                on_result(c, r)
            out.append(r)
        return out
    with backend_config(backend, workers, scheduler):
        gen = Parallel(return_as="generator")(
            delayed(play_chunk)(spec, *spec.chunk_bounds(c), keep=keep) for c in chunks)
        for c, r in zip(chunks, gen):
            if on_result:
                on_result(c, r)
            out.append(r)
    return out


def warm_workers(spec: RunSpec, workers: int, backend: str = "loky", scheduler: str | None = None) -> None:
    """Start the worker processes and load the kernel in each (one tiny chunk apiece)."""
    from joblib import Parallel, delayed
    if workers <= 1 and backend == "loky":
        play_chunk(spec, 0, 1, keep=("moves",))
        return
    with backend_config(backend, workers, scheduler):
        Parallel()(delayed(play_chunk)(spec, 0, 1, ("moves",)) for _ in range(workers))
