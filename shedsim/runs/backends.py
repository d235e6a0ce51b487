"""Where a run's calls are played: the backends (``loky`` on this machine, a ``dask`` or
``ray`` cluster, :data:`BACKENDS`), loky's workers as threads where the calls allow it
(:func:`on_threads`), checked before anything is played (:func:`check_backend`)
and opened once per command (:func:`backend_config`: one cluster, reused by nested calls),
and the worker processes that die with the command (:func:`die_with_parent`). The calls
themselves: :func:`shedsim.runs.simulate.run_calls` (which re-exports every name here).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any


BACKENDS = ("loky", "dask", "ray")


CLUSTER_BACKENDS = ("dask", "ray")


class BackendError(RuntimeError):
    """A backend that cannot be used: its package is missing, ``--scheduler`` was given to
    a backend without one, or the scheduler cannot be reached. The message names the
    option and the fix."""


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """Check, before any work, that ``backend`` is known, that its package imports, and
    that ``scheduler`` is only given to a cluster backend. Raises :class:`BackendError`
    (``ValueError`` for an unknown name)."""
    if backend not in BACKENDS:
        raise ValueError(f"--backend: one of {', '.join(BACKENDS)}; got {backend!r}")
    if scheduler is not None and backend not in CLUSTER_BACKENDS:
        raise BackendError(
            f"--scheduler needs a cluster backend (--backend dask or --backend ray); "
            f"the {backend} backend runs local processes"
        )
    if scheduler is not None and not scheduler.strip():
        raise BackendError("--scheduler: empty address (e.g. tcp://HOST:8786 for dask)")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError as e:
            raise BackendError(
                f"--backend dask needs dask.distributed ({e}): pip install 'dask[distributed]'"
            ) from None
    elif backend == "ray":
        try:
            import ray  # noqa: F401
            from ray.util.joblib import register_ray  # noqa: F401
        except ImportError as e:
            raise BackendError(f"--backend ray needs ray ({e}): pip install ray") from None


ACTIVE: list[tuple[str, int, str | None, int]] = []
"""The open :func:`backend_config` contexts (backend, workers, scheduler, slots): a nested
call with the same backend and scheduler reuses the open one (one cluster per command)."""


def _dask_slots(client) -> int:
    try:
        info = client.scheduler_info()
        return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))
    except Exception:  # noqa: BLE001
        return 1


@contextlib.contextmanager
def backend_config(backend: str = "loky", workers: int = 1, scheduler: str | None = None):
    """joblib's ``parallel_config`` for ``backend``, starting what it needs; yields the
    number of parallel slots (loky and ray: ``workers``; dask: the cluster's threads).

    ``loky``: local processes. ``dask``: connects to ``scheduler`` (a dask scheduler
    address such as ``tcp://HOST:8786``; the connection timeout is dask's
    ``distributed.comm.timeouts.connect``, 30 s by default) or starts a ``LocalCluster``
    of ``workers`` single-threaded processes, closed on exit. ``ray``:
    ``ray.init(address=scheduler)`` (needs ``pip install ray``). Entered again inside
    itself with the same backend and scheduler, it reuses the open cluster. Local workers
    are capped at what the CPUs and the memory hold (:func:`shedsim.runs.limits.cap_workers`,
    with a warning). Raises :class:`BackendError` (see :func:`check_backend`, and an
    unreachable scheduler).
    """
    from joblib import parallel_config

    from shedsim.runs.limits import cap_workers

    check_backend(backend, scheduler)
    workers = cap_workers(workers, scheduler)  # never more local workers than CPUs or memory hold
    for b, w, sch, slots in ACTIVE:
        if b == backend and sch == scheduler and (backend != "loky" or w == workers):
            yield slots
            return
    if backend == "loky":
        # loky turns on faulthandler in its workers, which prints a raw traceback when a
        # compiled plugin crashes one; the run names the strategy itself (runs.crash)
        os.environ.setdefault("PYTHONFAULTHANDLER", "")
        ACTIVE.append((backend, workers, scheduler, workers))
        try:
            with parallel_config(
                backend="loky", n_jobs=workers, initializer=die_with_parent, initargs=(os.getpid(),)
            ):
                yield workers
        finally:
            ACTIVE.pop()
        return
    if backend == "dask":
        from dask.distributed import Client, LocalCluster

        cluster = None
        if scheduler:
            try:
                client = Client(scheduler)
            except (OSError, ValueError, TypeError) as e:
                raise BackendError(
                    f"--scheduler: cannot connect to the dask scheduler at {scheduler!r}: {e}"
                ) from None
        else:
            cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            client = Client(cluster)
        slots = _dask_slots(client)
        ACTIVE.append((backend, workers, scheduler, slots))
        try:
            with parallel_config(backend="dask", n_jobs=-1):
                yield slots
        finally:
            ACTIVE.pop()
            client.close()
            if cluster is not None:
                cluster.close()
        return
    import ray
    from ray.util.joblib import register_ray

    try:
        ray.init(address=scheduler, ignore_reinit_error=True, include_dashboard=False)
    except (ConnectionError, OSError, ValueError, RuntimeError) as e:
        raise BackendError(
            f"--scheduler: cannot connect to the ray cluster at {scheduler!r}: {e}"
        ) from None
    register_ray()
    ACTIVE.append((backend, workers, scheduler, workers))
    try:
        with parallel_config(backend="ray", n_jobs=workers):
            yield workers
    finally:
        ACTIVE.pop()
        ray.shutdown()


def die_with_parent(parent: int | None = None) -> None:
    """Make this worker process exit when the process that started it dies, even by
    SIGKILL (workers must not outlive a killed run). On Linux the kernel sends
    it SIGKILL (``prctl(PR_SET_PDEATHSIG)``; it works while a compiled strategy holds the
    interpreter); elsewhere a daemon thread checks the parent once a second and exits
    between chunks. Also shows its Python warnings as plain sentences
    (:func:`shedsim.base.notices.plain_warnings`). ``parent``: the pid of the process that started
    this one (default:
    the current parent); if it is already gone, exit now. Called at the start of every
    loky worker."""
    import ctypes
    import signal
    import sys
    import threading
    import time
    from shedsim.base.notices import plain_warnings

    plain_warnings()  # a worker's warnings reach the user's terminal too
    parent = os.getppid() if parent is None else parent
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # it died before the call above
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="shedsim-parent-watch", daemon=True).start()


# ------------------------------------------------------------------ local workers as threads
THREADS_ENV = "SHEDSIM_WORKER_THREADS"
"""Set to ``0`` (or ``false``, ``no``, ``off``), local workers are always processes
(:func:`on_threads` is never true)."""
OFF = ("0", "false", "no", "off")


def plays_on_threads(spec) -> bool:
    """Whether the chunks of ``spec`` (a :class:`shedsim.runs.simulate.RunSpec`) may be
    played on threads of this process: no bot, and every entry one of shedsim's own
    strategies (``strategies/``: trusted code, compiled into game loops that release the
    GIL, so threads play chunks side by side as processes would, with the same results).
    A plugin from outside ``strategies/`` (played in a forked child, which a process with
    running threads must not make: :meth:`shedsim.kernel.build.Kernel.play`) or a bot (the
    reference engine, in Python) keeps worker processes."""
    from shedsim.bot.protocol import is_bot
    from shedsim.plugins import discover, parse_spec

    known = discover(list(spec.strategy_paths))
    for e in spec.entries:
        if is_bot(e):
            return False
        s = known.get(parse_spec(e)[0])
        if s is None or s.outside or not s.compiled:
            return False
    return True


def on_threads(calls: list[tuple[Any, tuple]], chunk_fn: Any) -> bool:
    """Whether local ``calls`` (``(fn, args)``) run on threads of this process rather than
    loky's worker processes: every call ``chunk_fn`` (a chunk of games,
    :func:`shedsim.runs.simulate.play_chunk`, its spec first) of a spec that
    :func:`plays_on_threads`. Threads start at once and share one loaded kernel; any other
    call (a sequential test's units, a search's positions) runs on processes, and so does
    every call while :data:`THREADS_ENV` is off (``0``)."""
    if os.environ.get(THREADS_ENV, "1").strip().lower() in OFF or not calls:
        return False
    if any(fn is not chunk_fn for fn, _ in calls):
        return False
    specs = {id(args[0]): args[0] for _, args in calls}
    return all(plays_on_threads(s) for s in specs.values())


def run_on_threads(calls: list[tuple[Any, tuple]], workers: int, on_result: Any) -> None:
    """``fn(*args)`` for each ``(fn, args)`` of ``calls`` on ``workers`` threads of this
    process, one call at a time per thread; ``on_result(k, value)`` is called in order.
    The pool's threads are daemons: a ``KeyboardInterrupt`` returns at once (the calls in
    flight are dropped, as a stopped worker's are) and the process does not wait for them.
    """
    from multiprocessing.pool import ThreadPool

    pool = ThreadPool(workers)
    try:
        for k, r in enumerate(pool.imap(_call, calls)):
            if on_result:
                on_result(k, r)
    finally:
        pool.terminate()


def _call(call: tuple[Any, tuple]) -> Any:
    fn, args = call
    return fn(*args)
