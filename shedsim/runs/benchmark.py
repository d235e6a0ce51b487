"""Benchmark figures of the compiled kernel: the ``make bench`` table and search rates.

:func:`bench_table` times the kernel (every seat one strategy, ``schedule="same"``) at
each player count and number of worker processes, the median of ``repeats`` runs, and,
when the calibration kernel is found, times it in the same run, interleaved run for run,
for the ratio column. The calibration kernel is a single-rule numba kernel kept outside
the project (``../shared/calib/sh_nb_fast.py``: shithead rules, greedy play, no plugins);
nothing here needs it: without it the ratio column is left out. Its 2-worker figure uses
its own ``simulate_par`` on 2 numba threads.

:func:`search_rates` times a search strategy's decisions outside the game loop, on
positions from greedy self-play (:func:`shedsim.kernel.probe.sample_positions`), where its
work can be counted: a strategy that defines ``move_stats(obs, rules, params, rng, stats)``
(its move, counting; ``mc``) adds its rollout moves to ``stats[0]`` and its rollouts to
``stats[1]``;
those moves per second are the whole search's (determinisations, tree and playouts:
``search_moves_per_s``). A
strategy that also defines ``playout_stats`` gets its playout loop timed alone
(:func:`playout_loop_rate`), the figure to set beside the kernel's own moves per second.

All times are wall-clock seconds (``time.perf_counter``); on a shared machine compare
ratios measured side by side, not absolute figures from different runs.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CALIB_ENV = "SHEDSIM_CALIB"
CALIB_FILE = "sh_nb_fast.py"


class CalibrationError(ValueError):
    """The calibration directory given does not hold a usable calibration kernel."""


def find_calibration(path: str | os.PathLike | None = None) -> Path | None:
    """The directory of the calibration kernel: ``path`` if given (raises
    :class:`CalibrationError` if it lacks ``sh_nb_fast.py``), else ``$SHEDSIM_CALIB``, else
    ``../shared/calib`` from the current directory; None when not found."""
    if path is not None:
        d = Path(path)
        if not (d / CALIB_FILE).is_file():
            raise CalibrationError(f"--calib: no {CALIB_FILE} in {d}")
        return d
    for cand in (os.environ.get(CALIB_ENV), "../shared/calib"):
        if cand and (Path(cand) / CALIB_FILE).is_file():
            return Path(cand)
    return None


def load_calibration(directory: Path):
    """Import ``sh_nb_fast.py`` from ``directory`` (its numba functions compile on first
    use). Raises :class:`CalibrationError` if it lacks ``simulate``/``simulate_par``."""
    spec = importlib.util.spec_from_file_location("sh_nb_fast", Path(directory) / CALIB_FILE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sh_nb_fast"] = mod  # numba's cache of it refers to the module by name
    spec.loader.exec_module(mod)
    if not (hasattr(mod, "simulate") and hasattr(mod, "simulate_par")):
        raise CalibrationError(f"{directory / CALIB_FILE} has no simulate/simulate_par")
    return mod


CALIB_GAME_BYTES = 32
"""Bytes per game the calibration kernel's results take (its six per-game arrays, and the
moves as int64 here), rounded up: it returns every game's figures at once."""


@dataclass
class Timing:
    """One timed run: ``games`` played in ``wall_s`` seconds, ``moves`` in all."""

    games: int
    moves: int
    wall_s: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.wall_s

    @property
    def ns_per_move(self) -> float:
        """Wall-clock nanoseconds per move (with N workers, N moves run at once)."""
        return self.wall_s * 1e9 / max(self.moves, 1)


def decisions_per_s(moves: int, games: int, players: int, wall_s: float, workers: int) -> float:
    """Decisions per second per worker of games played with one strategy at every seat:
    its ``moves`` (one decision each) and the ``games * players`` swap decisions (one per
    seat and game), over the ``wall_s`` seconds of play on ``workers`` processes; the
    engine's own work (deal, moves applied, checks) is in the time, so it is the rate a
    strategy decides at in play, comparable across strategies of every kind."""
    return (moves + games * players) / (max(wall_s, 1e-12) * max(workers, 1))


def time_kernel(spec, workers: int = 1) -> Timing:
    """Play the run ``spec`` (a :class:`shedsim.runs.simulate.RunSpec`) on ``workers`` loky
    processes, timing play alone (the kernel is loaded in every worker first)."""
    from shedsim.runs.simulate import run_tasks, warm_workers

    warm_workers(spec, workers)
    moves = 0

    def tally(
        _k: int, r
    ) -> None:  # a chunk's moves are summed and its records dropped as it arrives
        nonlocal moves
        moves += int(r.records["moves"].sum())
        r.records.clear()

    t = time.perf_counter()
    run_tasks(
        [(spec, c) for c in range(spec.n_chunks())],
        workers=workers,
        on_result=tally,
        keep=("moves",),
    )
    wall = time.perf_counter() - t
    return Timing(spec.games, moves, wall)


def time_calibration(mod, players: int, games: int, workers: int = 1, seed: int = 2) -> Timing:
    """Time the calibration kernel: ``simulate`` on 1 worker, ``simulate_par`` on
    ``workers`` numba threads otherwise (compiled beforehand on a few games)."""
    import numba

    fn = mod.simulate if workers <= 1 else mod.simulate_par
    if workers > 1:
        numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))
    fn(1000, players, 1)
    t = time.perf_counter()
    res = fn(games, players, seed)
    wall = time.perf_counter() - t
    return Timing(games, int(np.asarray(res[1], dtype=np.int64).sum()), wall)


def bench_table(
    rules,
    strategy: str | None = None,
    games: int = 1_000_000,
    players=(2, 4),
    workers=(1, 2),
    repeats: int = 3,
    calib: Path | None = None,
    seed: int = 0,
    strategy_paths=(),
    chunk_size: int = 50_000,
    progress=None,
) -> list[dict]:
    """Rows ``{players, workers, games_per_s, ns_per_move, moves_per_game,
    decisions_per_s_per_worker}`` (medians of ``repeats`` runs of ``games`` games; the
    decisions as :func:`decisions_per_s` counts them), plus ``calib_games_per_s`` and
    ``ratio`` (kernel / calibration games per second, the median of the run-for-run ratios)
    when ``calib``
    (a directory, :func:`find_calibration`) is given. The calibration kernel plays
    shithead with greedy play only: the ratio compares like with like only for those.
    ``strategy`` defaults to the reference opponent (:func:`shedsim.plugins.select`).
    ``progress(text)`` is called before each cell. Worker counts above the CPUs this
    process may use are played with that many (:func:`shedsim.runs.limits.usable_cpus`)
    and shown so. Raises :class:`shedsim.runs.limits.LimitError` naming ``--games``
    when the calibration kernel's per-game results of ``games`` games do not fit in memory."""
    from shedsim.runs.limits import LimitError, memory_problem, usable_cpus
    from shedsim.runs.simulate import RunSpec

    if strategy is None:
        from shedsim.plugins import choice

        strategy = choice("reference")[0]
    if calib is not None and (
        problem := memory_problem(
            "--games", games, "games", CALIB_GAME_BYTES, "at once in the calibration kernel"
        )
    ):
        raise LimitError(problem)
    mod = load_calibration(calib) if calib is not None else None
    rows = []
    workers = sorted({min(int(w), usable_cpus()) for w in workers})
    for p in players:
        for w in workers:
            if progress:
                progress(f"{p} players, {w} worker(s)")
            spec = RunSpec(
                rules,
                p,
                (strategy,),
                (strategy,),
                seed=seed,
                games=games,
                schedule="same",
                strategy_paths=tuple(strategy_paths),
                chunk_size=min(chunk_size, max(1, -(-games // w))),
            )
            ours, theirs = [], []
            for _ in range(repeats):
                ours.append(time_kernel(spec, w))
                if mod is not None:
                    theirs.append(time_calibration(mod, p, games, w))
            row = {
                "players": p,
                "workers": w,
                "games_per_s": statistics.median(t.games_per_s for t in ours),
                "ns_per_move": statistics.median(t.ns_per_move for t in ours),
                "moves_per_game": ours[0].moves / ours[0].games,
                "decisions_per_s_per_worker": statistics.median(
                    decisions_per_s(t.moves, t.games, p, t.wall_s, w) for t in ours
                ),
            }
            if mod is not None:
                row["calib_games_per_s"] = statistics.median(t.games_per_s for t in theirs)
                row["calib_ns_per_move"] = statistics.median(t.ns_per_move for t in theirs)
                row["ratio"] = statistics.median(
                    a.games_per_s / b.games_per_s for a, b in zip(ours, theirs)
                )
            rows.append(row)
    return rows


def render_table(rows: list[dict], title: str):
    """The rows of :func:`bench_table` as a rich table (ratio columns only if measured)."""
    from rich.table import Table

    calib = bool(rows) and "ratio" in rows[0]
    t = Table(title=title)
    for c in (
        "players",
        "workers",
        "games/s",
        "ns per move (wall)",
        "moves per game",
        "decisions/s per worker",
    ):
        t.add_column(c, justify="right")
    if calib:
        t.add_column("calib games/s", justify="right")
        t.add_column("ratio", justify="right")
    for r in rows:
        cells = [
            str(r["players"]),
            str(r["workers"]),
            f"{r['games_per_s']:,.0f}",
            f"{r['ns_per_move']:.1f}",
            f"{r['moves_per_game']:.1f}",
            f"{r['decisions_per_s_per_worker']:,.0f}",
        ]
        if calib:
            cells += [f"{r['calib_games_per_s']:,.0f}", f"{r['ratio']:.2f}x"]
        t.add_row(*cells)
    return t


class SearchCrash(RuntimeError):
    """A search plugin from outside ``strategies/`` crashed the process timing its search
    (or raised there): the message names the strategy, the function, the position and
    the seed (:func:`search_rates`)."""


def warm_up() -> None:
    """Compile (or load from numba's cache) the sampler of the positions a search strategy
    is timed on (:func:`shedsim.kernel.probe.sample_positions`; ``shedsim compile`` calls
    it)."""
    from shedsim.kernel.probe import sample_positions
    from shedsim.rules.ruleset import build

    sample_positions(build("shithead").compile(2), 1, 7, np.uint64(1))


def search_rates(
    strategy, rules_array: np.ndarray, params: np.ndarray, positions: int = 200, seed: int = 0
) -> dict | None:
    """Decisions per second and search moves per second of a search strategy
    (``strategy``: a :class:`shedsim.plugins.Strategy` whose module defines ``move_stats``),
    timed on ``positions`` positions from greedy self-play, one decision each; None for a
    strategy without ``move_stats``. The first decision (compilation) is not timed.

    Returns ``{search_positions, decisions_per_s, search_moves_per_s (every move of the
    search: determinisations, tree and playouts, per second), rollouts_per_decision,
    search_moves_per_rollout}`` and, when the module defines ``playout_stats``,
    ``playout_loop_moves_per_s`` (:func:`playout_loop_rate`). The strategy decides on
    copies of ``rules_array`` and ``params``.

    A plugin from outside ``strategies/`` (:attr:`~shedsim.plugins.Strategy.outside`) is
    timed in a forked child (:func:`shedsim.base.isolate.run_forked`: numba checks no
    bounds), so a crash there raises :class:`SearchCrash` naming it instead of killing
    this process."""
    search = getattr(strategy.module, "move_stats", None)
    if search is None:
        return None
    loop = getattr(strategy.module, "playout_stats", None)
    from shedsim.kernel.probe import sample_positions

    obs = sample_positions(
        rules_array, positions + 1, 7, np.uint64(0x9E3779B97F4A7C15 * (seed + 1) % (1 << 64))
    )
    rules_copy, params_copy = rules_array.copy(), params.copy()
    from shedsim.base import isolate

    forked = strategy.outside and isolate.can_fork()
    # figures: [positions, wall s, search moves, rollouts, playout loop moves/s]; where: [function,
    # position]
    figures = isolate.shared_like(np.full(5, np.nan)) if forked else np.full(5, np.nan)
    where = isolate.shared_like(np.zeros(2, np.int64)) if forked else np.zeros(2, np.int64)
    beat = isolate.beat_word() if forked else None  # odd while a decision runs: timed by the parent

    def measure() -> None:
        rng = np.array([seed], np.uint64)
        stats = np.zeros(2, np.int64)
        where[0] = 1
        isolate.timed(beat, lambda: search(obs[0], rules_copy, params_copy, rng, stats))
        stats[:] = 0
        t = time.perf_counter()
        for i in range(1, len(obs)):
            where[1] = i
            isolate.timed(beat, lambda: search(obs[i], rules_copy, params_copy, rng, stats))  # noqa: B023 - called at once
        figures[:4] = (len(obs) - 1, time.perf_counter() - t, stats[0], stats[1])
        if loop is not None:
            where[0] = 2
            figures[4] = playout_loop_rate(
                loop, obs, rules_copy, params_copy, seed, at=where[1:], beat=beat
            )

    if forked:
        for fn in (search,) + ((loop,) if loop is not None else ()):
            isolate.load_in_parent(
                fn,
                (obs[0], rules_copy, params_copy, np.zeros(1, np.uint64))
                + (
                    (np.zeros(2, np.int64),)
                    if fn is search
                    else (np.int64(1), True, np.zeros(2, np.int64))
                ),
            )
        from shedsim.base.isolate import decision_timeout

        try:
            _, error, code = isolate.run_forked(measure, beat=(beat, 0), beat_s=decision_timeout())
        except isolate.ChildTimeout as e:
            error, code, stuck = None, 0, str(e)
        else:
            stuck = None
        if code != 0 or error is not None or stuck is not None:
            what = (
                f"crashed the process timing its search ({isolate.crash_words(code)})"
                if code
                else f"raised {error}"
                if error is not None
                else f"timing its search: {stuck}"
            )
            fn = "move_stats" if where[0] == 1 else "playout_stats"
            raise SearchCrash(
                f"strategy {strategy.name!r} {what} in {fn}, on position {int(where[1])} of "
                f"{len(obs) - 1} (positions from greedy self-play, --seed {seed}; position 0 "
                f"only compiles). The games themselves were played before this: check its "
                f"{fn}"
            )
    else:
        measure()
    n, wall, moves, rollouts = (
        int(figures[0]),
        float(figures[1]),
        float(figures[2]),
        float(figures[3]),
    )
    out = {
        "search_positions": n,
        "decisions_per_s": n / wall,
        "search_moves_per_s": moves / wall,
        "rollouts_per_decision": rollouts / max(n, 1),
        "search_moves_per_rollout": moves / max(rollouts, 1),
    }
    if loop is not None:
        out["playout_loop_moves_per_s"] = float(figures[4])
    return out


def playout_loop_rate(
    loop,
    obs: np.ndarray,
    rules_array: np.ndarray,
    params: np.ndarray,
    seed: int = 0,
    reps: int = 50,
    repeats: int = 3,
    at: np.ndarray | None = None,
    beat: np.ndarray | None = None,
) -> float:
    """Moves per second of a search strategy's playout loop alone, without its search:
    ``loop`` is the module's ``playout_stats(obs, rules, params, rng, reps, play, stats)``
    (``reps`` determinisations of one observation, each played out when ``play``), run
    over the observations ``obs`` (``int64[N, O_SIZE]``; the first only compiles) once
    without and once with the playouts, from the same strategy stream; the playouts'
    time is the difference (the best of ``repeats`` of each, seconds by
    ``time.perf_counter``). Returns playout moves per second. ``at`` (int64[1]), when
    given, holds the index of the observation in play (a crash report names it); ``beat``
    (:func:`shedsim.base.isolate.beat_word`) is odd while a call of ``loop`` runs (the
    parent of a forked child times it, :func:`shedsim.base.isolate.watch`)."""
    from shedsim.base import isolate

    def timed(play: bool) -> tuple[float, int]:
        best = float("inf")
        for _ in range(repeats):
            rng = np.array([seed], np.uint64)
            stats = np.zeros(2, np.int64)
            t = time.perf_counter()
            for i in range(1, len(obs)):
                if at is not None:
                    at[0] = i
                isolate.timed(
                    beat,
                    lambda: loop(obs[i], rules_array, params, rng, reps, play, stats),  # noqa: B023
                )
            best = min(best, time.perf_counter() - t)
        return best, int(stats[0])

    if at is not None:
        at[0] = 0
    isolate.timed(
        beat,
        lambda: loop(
            obs[0], rules_array, params, np.array([seed], np.uint64), 1, True, np.zeros(2, np.int64)
        ),
    )
    alone, _ = timed(False)
    both, moves = timed(True)
    return moves / max(both - alone, 1e-9)
