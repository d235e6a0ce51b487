"""Calling a plugin's compiled code in a forked child process, so that a crash is named.

numba does not check array bounds, so a compiled plugin that indexes outside an array can
kill the process that runs it with a segmentation fault, before anything can name it.
Every call into compiled code that runs a plugin from outside shedsim's own ``strategies/``
(a ``--strategy-path`` or ``$SHEDSIM_STRATEGY_PATH`` plugin) therefore goes through
:func:`call`: it runs in a child made by ``fork`` (cheap: the compiled code is already
loaded and the child shares the parent's pages), with every array argument copied into
memory shared with the parent and copied back afterwards, so the call writes what it
would have written in this process (same results). When the child dies, the parent still
has what the arrays held at that moment (the game loop's ``status[0]``: the game in
progress) and the exit status. The callers:

- :meth:`shedsim.kernel.build.Kernel.play` (every command that plays games on the kernel:
  tournament, compare-rules, sprt, swaps, tips, tune, bench, strategies' checks); the
  caller names the strategy by replaying the game (:func:`shedsim.runs.recorder.record_game`);
- :class:`shedsim.plugins.EnginePlayer` when ``isolated`` (the bots of ``shedsim play``,
  ``shedsim compile``'s warm-up game), raising :class:`ProcessCrash`;
- ``shedsim hint``'s playouts (:func:`shedsim.analysis.hint.rank_moves`).

A plugin's decision may also never end (a stuck search). Every caller gives the child a
time limit per plugin decision, ``SHEDSIM_DECISION_TIMEOUT`` (10 s by default,
:func:`decision_timeout`): a single decision is called with ``timeout_s``;
a child that makes many (a chunk of games, hint's playouts, a replayed game, bench's
timings) keeps a *beat word* in shared memory, odd while a plugin decides, and
:func:`watch` kills the child when one decision runs past the limit, raising
:class:`ChildTimeout`, which the callers name as they name a crash. The parent waits
polling, so Ctrl-C stops it (and the child) at once.

Built-in strategies run in the calling process, with no overhead. Only the compiled
function runs in the child between ``fork`` and ``os._exit``: it takes no lock another
thread of the parent could hold; the child ignores SIGINT and SIGTERM (the parent kills it
when interrupted) and dies with the parent (Linux ``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import ctypes
import faulthandler
import functools
import mmap
import os
import signal
import sys
import warnings
from typing import Any
from collections.abc import Callable

import numpy as np

DECISION_TIMEOUT_ENV = "SHEDSIM_DECISION_TIMEOUT"
DEFAULT_DECISION_TIMEOUT = 10.0
MAX_DECISION_TIMEOUT = 1e9
"""The longest decision limit a timer is set for (seconds, about 31 years; ``setitimer``
overflows beyond the platform's ``time_t``): a longer one means no limit."""


def decision_timeout() -> float:
    """Seconds one plugin decision may take: a plain-Python decision, or a compiled plugin's
    decision run in a forked child (``$SHEDSIM_DECISION_TIMEOUT``, default 10; 0 turns the
    guard off, and so does a limit no timer can hold: ``inf``, or more than
    :data:`MAX_DECISION_TIMEOUT`; a value that is not a number reads as the default)."""
    try:
        seconds = float(os.environ.get(DECISION_TIMEOUT_ENV, DEFAULT_DECISION_TIMEOUT))
    except ValueError:
        return DEFAULT_DECISION_TIMEOUT
    if seconds != seconds:  # nan
        return DEFAULT_DECISION_TIMEOUT
    return 0.0 if seconds > MAX_DECISION_TIMEOUT else seconds


ERROR_BYTES = 4096
"""Room for the text of an exception raised inside the child's loop."""


def can_fork() -> bool:
    """Whether this platform has ``fork`` (Linux, macOS; not Windows)."""
    return hasattr(os, "fork")


def shared_like(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` (same shape and dtype) in anonymous memory that a forked child
    shares with this process."""
    buf = mmap.mmap(-1, max(1, a.nbytes))
    out = np.frombuffer(buf, dtype=a.dtype, count=a.size).reshape(a.shape)
    out[...] = a
    return out


def _shared_arg(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(to pass, caller's array, its shared copy)`` for an array argument of :func:`call`.
    A 1-d view into a 1-d array of at most a page (a plugin's lent random stream, a view of
    the game's streams: :class:`shedsim.rules.engine.GameStreams`) is passed as the same
    view of a shared copy of that array, so that a write past the view's end lands where
    it would in this process, and is seen; any other array is copied alone."""
    base = a.base
    if (
        isinstance(base, np.ndarray)
        and a.ndim == 1
        and base.ndim == 1
        and base.dtype == a.dtype
        and base.flags.c_contiguous
        and a.flags.c_contiguous
        and base.nbytes <= mmap.PAGESIZE
    ):
        off, rest = divmod(a.ctypes.data - base.ctypes.data, a.itemsize)
        if rest == 0 and 0 <= off and off + a.size <= base.size:
            whole = shared_like(base)
            return whole[off : off + a.size], base, whole
    sh = shared_like(a)
    return sh, a, sh


def crash_words(code: int) -> str:
    """A child's exit status (``-N``: killed by signal N) in words: ``signal SIGSEGV: a
    compiled strategy read or wrote outside an array``, ``exit code 3``."""
    if code < 0 and -code in signal.Signals._value2member_map_:
        name = signal.Signals(-code).name
        return f"signal {name}" + (
            ": a compiled strategy read or wrote outside an array"
            if -code in (signal.SIGSEGV, signal.SIGBUS)
            else ""
        )
    return f"exit code {code}"


@functools.cache
def _prctl() -> Any:
    """libc's ``prctl`` on Linux (looked up in the parent: no ``dlopen`` in a forked
    child of a threaded process), else None."""
    if sys.platform.startswith("linux"):
        try:
            return ctypes.CDLL(None).prctl
        except (OSError, AttributeError):
            pass
    return None


def load_in_parent(fn: Any, args: Any) -> None:
    """When ``fn`` is a numba dispatcher, compile it (or load it from numba's disk cache)
    for the types of ``args`` here, before forking: a child's compile or cache load dies
    with the child, and every call would pay it again (0.1-1 s for the game loop)."""
    overloads = getattr(fn, "overloads", None)
    if overloads is None or not hasattr(fn, "compile"):
        return
    try:
        import numba

        sig = tuple(numba.typeof(a) for a in args)
    except (ValueError, TypeError):
        return
    if sig not in overloads:
        fn.compile(sig)


class ProcessCrash(RuntimeError):
    """A plugin's compiled code killed the child process running it (:func:`call`).
    ``code``: the exit status (``-N``: signal N)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"it crashed the process running it ({crash_words(code)})")
        self.code = code


class ChildRaised(RuntimeError):
    """A plugin's compiled code raised an exception in the forked child (:func:`call`);
    the message is the child's ``"TypeName: message"``, so it is shown as it is, not
    wrapped once more (:func:`exception_text`)."""


class ChildTimeout(RuntimeError):
    """The child did not finish within the time it was given (:func:`run_forked`'s
    ``timeout_s``); it was killed. For a plugin's decision: stuck in an endless loop?"""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"it made no decision within {seconds:g} s (SHEDSIM_DECISION_TIMEOUT; 0 turns the "
            f"limit off): stuck in an endless loop?"
        )
        self.seconds = seconds


def exception_text(e: BaseException) -> str:
    """How a failed plugin decision reads in an error message: ``"TypeName: message"``,
    but the message alone for :class:`ChildRaised` (it holds the child's type name),
    :class:`ProcessCrash` (``it crashed the process running it (signal SIGSEGV ...)``)
    and :class:`ChildTimeout`."""
    if isinstance(e, (ChildRaised, ProcessCrash, ChildTimeout)):
        return str(e)
    return f"{type(e).__name__}: {e}"


def call(
    fn: Callable[..., Any],
    *args: Any,
    timeout_s: float | None = None,
    beat: tuple[np.ndarray, int] | None = None,
    beat_s: float | None = None,
) -> tuple[Any, str | None, int]:
    """``fn(*args)`` in a forked child: array arguments are copied into shared memory
    (:func:`shared_like`; a small view with the array it views, :func:`_shared_arg`) and back
    into the caller's arrays afterwards, also after a crash.
    ``fn`` must return an integer (or None).

    Returns ``(value, error, status)``: ``value`` is what ``fn`` returned (None if it did
    not return), ``error`` the text of an exception it raised (``"TypeName: message"``) or
    None, ``status`` 0 when the child finished, ``-N`` when signal N killed it, else its
    exit code. Where ``fork`` is unavailable ``fn`` runs here (exceptions propagate). A
    ``KeyboardInterrupt`` in this process kills the child and propagates; so does
    :class:`ChildTimeout` after ``timeout_s`` seconds (None or 0: no limit), or when one
    decision runs past ``beat_s`` seconds by the beat word ``beat`` = ``(array, index)``,
    ``array`` one of ``args`` (its shared copy is watched: :func:`watch`)."""
    if not can_fork():
        return fn(*args), None, 0
    shared, back = [], []
    watched = None
    for a in args:
        if isinstance(a, np.ndarray):
            passed, mine, copy = _shared_arg(a)
            shared.append(passed)
            back.append((mine, copy))
            if beat is not None and a is beat[0]:
                watched = (passed, beat[1])
        else:
            shared.append(a)
    load_in_parent(fn, shared)
    try:
        return run_forked(lambda: fn(*shared), timeout_s, watched, beat_s)
    finally:
        for mine, copy in back:
            mine[...] = copy


def beat_word() -> np.ndarray:
    """A new ``int64[1]`` beat word (see :func:`watch`) in memory shared with forked children."""
    return shared_like(np.zeros(1, np.int64))


def timed(beat: np.ndarray | None, decide: Callable[[], Any]) -> Any:
    """``decide()`` with the beat word ``beat`` (``int64[1]``, :func:`beat_word`; None: no
    beat) made odd while it runs, so that the parent watching it (:func:`watch`) times it."""
    if beat is None:
        return decide()
    beat[0] += 1
    try:
        return decide()
    finally:
        beat[0] += 1


def watch(
    finished: Callable[[float], bool],
    kill: Callable[[], None],
    timeout_s: float | None = None,
    beat: tuple[np.ndarray, int] | None = None,
    beat_s: float | None = None,
) -> None:
    """Wait for a child: ``finished(pause)`` says (waiting at most ``pause`` seconds) whether
    it is done. ``timeout_s`` (> 0): the child is given that long in all, then ``kill()``
    and :class:`ChildTimeout`. ``beat`` = ``(array, index)``, a word in shared memory that
    the child makes odd while a plugin decides and even when it has decided (the game
    loop's ``streams[S_BEAT]``, :func:`timed`): a decision still running after ``beat_s``
    seconds (> 0) is stopped the same way, while the child may run as long as it needs
    between decisions. Polled with pauses growing to 20 ms (50 ms with only a beat), so a
    ``KeyboardInterrupt`` comes at once; it is the caller's to handle (kill the child)."""
    import time

    start = time.monotonic()
    limit = timeout_s if timeout_s and timeout_s > 0 else None
    per = beat_s if beat is not None and beat_s and beat_s > 0 else None
    cap = 0.02 if limit is not None else 0.05
    last, since = None, start
    pause = 0.0002
    while not finished(pause):
        now = time.monotonic()
        if limit is not None and now - start > limit:
            kill()
            raise ChildTimeout(limit)
        if per is not None:
            value = int(beat[0][beat[1]])
            if value != last:
                last, since = value, now
            elif value & 1 and now - since > per:
                kill()
                raise ChildTimeout(per)
        pause = min(pause * 2, cap)


def _wait(
    pid: int,
    timeout_s: float | None,
    beat: tuple[np.ndarray, int] | None = None,
    beat_s: float | None = None,
) -> int:
    """``os.waitpid`` for ``pid``, its status; with ``timeout_s`` or a ``beat`` (see
    :func:`watch`) polled, and the child killed and :class:`ChildTimeout` raised when it
    runs past them."""
    if not (timeout_s and timeout_s > 0) and not (beat is not None and beat_s and beat_s > 0):
        return os.waitpid(pid, 0)[1]
    import time

    status = []

    def finished(pause: float) -> bool:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status.append(st)
            return True
        time.sleep(pause)
        return False

    def kill() -> None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)

    watch(finished, kill, timeout_s, beat, beat_s)
    return status[0]


def run_forked(
    loop: Callable[[], Any],
    timeout_s: float | None = None,
    beat: tuple[np.ndarray, int] | None = None,
    beat_s: float | None = None,
) -> tuple[Any, str | None, int]:
    """Run ``loop()`` (it writes its results into shared arrays, see :func:`shared_like`)
    in a forked child. Returns ``(value, error, exit status)``: ``value`` is what ``loop``
    returned (an int, passed back in shared memory; None if it did not return), ``error``
    the text of an exception it raised (``"TypeName: message"``) or None, and the exit
    status 0 when the child finished, ``-N`` when signal N killed it, else its exit code.
    A ``KeyboardInterrupt`` in this process kills the child and propagates; with
    ``timeout_s`` (seconds, > 0) a child still running after that is killed and
    :class:`ChildTimeout` raised; so is one whose plugin decision, by the beat word ``beat``
    (in shared memory), runs past ``beat_s`` seconds (:func:`watch`)."""
    ret = shared_like(np.zeros(2, np.int64))  # [finished flag, value]
    err = shared_like(np.zeros(ERROR_BYTES, np.uint8))
    parent = os.getpid()
    prctl = _prctl()
    with warnings.catch_warnings():  # Python 3.12+ warns about fork in a threaded process:
        warnings.simplefilter("ignore", DeprecationWarning)  # the child only runs the loop
        pid = os.fork()
    if pid == 0:  # the child: only the loop, then out
        code = 0
        try:
            faulthandler.disable()  # the parent names the crash in words
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            except ValueError:  # not the main thread
                pass
            if prctl is not None:
                prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG: die with the parent
            if os.getppid() != parent:
                os._exit(1)
            value = loop()
            ret[1] = -1 if value is None else int(value)
            ret[0] = 1
        except BaseException as e:  # noqa: BLE001 - reported by the parent
            text = f"{type(e).__name__}: {e}".encode(errors="replace")[:ERROR_BYTES]
            err[: len(text)] = np.frombuffer(text, np.uint8)
            ret[0] = 2
        finally:
            os._exit(code)
    try:
        st = _wait(pid, timeout_s, beat, beat_s)
    except ChildTimeout:
        raise
    except BaseException:  # Ctrl-C or SIGTERM here: stop the child too
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        raise
    code = -os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)
    if code == 0 and ret[0] == 2:
        return None, bytes(err).rstrip(b"\0").decode(errors="replace"), 0
    if code == 0 and ret[0] != 1:
        code = 1  # it left without finishing (cannot happen but by os._exit elsewhere)
    return (int(ret[1]) if ret[0] == 1 else None), None, code
