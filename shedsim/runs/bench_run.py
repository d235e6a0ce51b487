"""``bench`` below the command line: the options checked, the compiled kernel timed (games/s,
ns per move, moves per game, the kernel's load time), optionally the reference engine and a
search strategy's own rates, and the console table of the measures.

Timing starts after the kernel is loaded in every worker, so games/s measures play alone;
the load (or first compile) time is reported separately. With ``backend`` dask or ray the
cluster is started (or connected to) before timing; ``workers`` is then its worker slots.
Every problem is raised as :class:`shedsim.runs.study.StudyError` naming the option (exit 2;
1 when a strategy fails).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable

import numpy as np

from shedsim.runs.study import StudyError


@dataclass
class BenchPlan:
    """What ``bench`` times, every option checked (:func:`plan_bench`)."""

    rules: Any
    players: int
    strategy: str
    base: str
    plugin: Any
    overrides: dict
    games: int
    workers: int
    note: str | None
    backend: str
    scheduler: str | None
    seed: int
    chunk_size: int
    paths: tuple[str, ...]
    rules_file: Path | None = None


def plan_bench(
    rules: str,
    house: list[str] | None,
    rules_file: Path | None,
    players: int,
    strategy: str | None,
    games: int,
    workers: int,
    backend: str,
    scheduler: str | None,
    seed: int,
    chunk_size: int,
    reference_games: int | None,
    strategy_paths: list[str],
    table_mode: bool = False,
) -> BenchPlan:
    """Check every option of ``bench`` before anything is timed (``reference_games``: the
    games of ``--reference``, or None without it). Raises :class:`StudyError` naming the option."""
    from shedsim.plugins import PluginError, choice, discover, parse_spec
    from shedsim.rules.ruleset import RulesError, build
    from shedsim.runs.limits import LimitError, memory_problem, plan_workers
    from shedsim.runs.simulate import BackendError, check_backend
    from shedsim.runs.store import plan_size_problem

    try:
        check_backend(backend, scheduler)
        rs = build(rules, house or [], rules_file)
        rs.check_players(players)
    except (ValueError, BackendError, RulesError) as e:
        raise StudyError(str(e)) from None
    try:
        known = discover(list(strategy_paths))
    except PluginError as e:
        raise StudyError(f"--strategy-path: {e}") from None
    try:
        base = choice("reference")[0]  # the kernel's own moves/s beside a search strategy's
        strategy = base if strategy is None else strategy
        name, overrides = parse_spec(strategy)
        known.require(name)
        if not known[name].compiled:
            raise PluginError(
                f"strategy {name!r} is plain Python: the kernel runs numba strategies only"
            )
        known[name].params_array(overrides)
        if reference_games is not None and known[name].traits.cheating:
            known[name].player()  # refused: --reference plays it on the reference engine
    except PluginError as e:
        raise StudyError(f"--strategy: {e}") from None
    too_big = plan_size_problem(-(-games // chunk_size), games, chunk_size)
    if too_big:
        raise StudyError(too_big)
    if reference_games is not None and (
        problem := memory_problem("--reference-games", min(games, reference_games), "games", 24)
    ):
        raise StudyError(
            problem
        )  # the reference games' keys (two uint64 and the index per game) are made at once
    try:  # at most the CPUs and what the memory holds (a cluster at --scheduler decides its own)
        workers, note = plan_workers(
            workers, scheduler, min(chunk_size, games), max(players, 4) if table_mode else players
        )
    except LimitError as e:
        raise StudyError(str(e)) from None
    return BenchPlan(
        rs,
        players,
        strategy,
        base,
        known[name],
        overrides,
        games,
        workers,
        note,
        backend,
        scheduler,
        seed,
        chunk_size,
        tuple(strategy_paths),
        rules_file,
    )


def bench_rows(
    plan: BenchPlan, calib: Path | None, progress: Callable[[str], None] | None
) -> dict[str, Any]:
    """``bench --table``: :func:`shedsim.runs.benchmark.bench_table`'s rows and the
    calibration directory used, as ``--json`` prints them. Raises :class:`StudyError`."""
    from shedsim.runs.benchmark import CalibrationError, bench_table, find_calibration
    from shedsim.runs.limits import LimitError
    from shedsim.runs.simulate import SimulationError

    try:
        cdir = find_calibration(calib)
        rows = bench_table(
            plan.rules,
            plan.strategy,
            plan.games,
            calib=cdir,
            seed=plan.seed,
            strategy_paths=plan.paths,
            chunk_size=plan.chunk_size,
            progress=progress,
        )
    except (CalibrationError, SimulationError, LimitError) as e:
        raise StudyError(str(e)) from None
    return {
        "rules": plan.rules.name,
        "strategy": plan.strategy,
        "games": plan.games,
        "calibration": str(cdir) if cdir else None,
        "rows": rows,
    }


def time_play(plan: BenchPlan) -> dict[str, Any]:
    """Time the kernel playing ``plan.games`` games on the workers: the measures ``bench
    --json`` prints (games/s, ns per move, moves per game, the ends, the kernel's load
    time). Raises :class:`StudyError` (1: a strategy or worker failed)."""
    from shedsim.kernel.build import cache_dir
    from shedsim.layout import END_NAMES
    from shedsim.runs.benchmark import decisions_per_s
    from shedsim.runs.simulate import (
        BackendError,
        RunSpec,
        SimulationError,
        backend_config,
        run_tasks,
        warm_workers,
    )

    games, workers, backend = plan.games, plan.workers, plan.backend
    spec = RunSpec(
        plan.rules,
        plan.players,
        (plan.strategy,),
        (plan.strategy,),
        seed=plan.seed,
        games=games,
        schedule="same",
        strategy_paths=plan.paths,
        chunk_size=min(plan.chunk_size, max(1, -(-games // workers))),
    )
    had_cache = any(cache_dir().glob("**/*.nbi"))
    moves = unfinished = 0
    ends = np.zeros(len(END_NAMES), np.int64)

    def tally(_k: int, r) -> None:  # each chunk's records are summed and dropped as they arrive
        nonlocal moves, unfinished
        moves += int(r.records["moves"].sum())
        unfinished += int(r.records["unfinished"].sum())
        ends[:] += np.bincount(r.records["end"], minlength=len(END_NAMES))
        r.records.clear()

    t = time.perf_counter()
    try:
        with contextlib.ExitStack() as cluster:
            warm_workers(spec, 1)  # in this process: the kernel's load (or compile) time
            load_s = time.perf_counter() - t
            if backend != "loky":  # one cluster for warming and timing (run_tasks reuses it)
                workers = cluster.enter_context(backend_config(backend, workers, plan.scheduler))
                spec = dataclasses.replace(
                    spec, chunk_size=min(plan.chunk_size, max(1, -(-games // workers)))
                )
            if workers > 1 or backend != "loky":
                warm_workers(spec, workers, backend, plan.scheduler)
            t0 = time.perf_counter()
            run_tasks(
                [(spec, c) for c in range(spec.n_chunks())],
                workers=workers,
                backend=backend,
                on_result=tally,
                keep=("moves", "unfinished", "end"),
                scheduler=plan.scheduler,
            )
            wall = time.perf_counter() - t0
    except BackendError as e:
        raise StudyError(str(e)) from None
    except SimulationError as e:
        raise StudyError(str(e), 1) from None
    return {
        "rules": plan.rules.name,
        "house": list(plan.rules.house),
        "players": plan.players,
        "strategy": plan.strategy,
        "games": games,
        "workers": workers,
        "backend": backend,
        "seed": plan.seed,
        "wall_s": float(f"{wall:.6g}"),  # 6 significant digits: a fast run keeps its precision
        "games_per_s": round(games / wall, 1),
        "ns_per_move": round(wall * 1e9 / max(moves, 1), 2),
        "ns_per_move_per_worker": round(wall * workers * 1e9 / max(moves, 1), 2),
        "decisions_per_s_per_worker": round(
            decisions_per_s(moves, games, plan.players, wall, workers), 1
        ),
        "moves_per_game": round(moves / games, 2),
        "unfinished": unfinished,
        "ends": {name: int(c) for name, c in zip(END_NAMES, ends)},
        "kernel_load_s": round(load_s, 3),
        "kernel_cache": "hit" if had_cache and load_s < 5 else "compiled",
    }


def time_reference(plan: BenchPlan, reference_games: int, games_per_s: float) -> dict[str, Any]:
    """Time the reference engine on the first ``reference_games`` games (a plugin from
    outside ``strategies/`` in a forked child: a crash there is named, a decision past the
    decision limit stopped): its games/s and the kernel's ``games_per_s`` over it. Raises
    :class:`StudyError` (1: the strategy failed)."""
    from shedsim.base import isolate
    from shedsim.rules.engine import StrategyError, play_game
    from shedsim.runs.recorder import Recorded
    from shedsim.runs.simulate import RunSpec, replay_command
    from shedsim.seeding import game_keys

    rs, players, strategy = plan.rules, plan.players, plan.strategy
    n_ref = min(plan.games, reference_games)
    player = plan.plugin.player(strategy, plan.overrides)
    dk, sk = game_keys(plan.seed, np.arange(n_ref))
    forked = plan.plugin.outside and isolate.can_fork()
    at = isolate.shared_like(np.zeros(2)) if forked else np.zeros(2)  # [game in play, seconds]
    beat = isolate.beat_word() if forked else None
    seated = (
        [Recorded(player, s, None, beat) for s in range(players)] if forked else [player] * players
    )

    def play_all() -> None:
        t1 = time.perf_counter()
        for g in range(n_ref):
            at[0] = g
            play_game(rs, seated, int(dk[g]), int(sk[g]), g % players)
        at[1] = time.perf_counter() - t1

    try:
        error, code = None, 0
        if forked:
            _, error, code = isolate.run_forked(
                play_all, beat=(beat, 0), beat_s=isolate.decision_timeout()
            )
        else:
            play_all()
    except StrategyError as e:
        error = str(e)
    except isolate.ChildTimeout as e:
        error = f"strategy {strategy!r} on the reference engine: {e}"
    if code != 0 or error is not None:
        g = int(at[0])
        what = (
            f"strategy {strategy!r} crashed the process timing the reference engine "
            f"({isolate.crash_words(code)})"
            if code
            else error
        )
        spec = RunSpec(
            rs,
            players,
            (strategy,),
            (strategy,),
            seed=plan.seed,
            games=plan.games,
            schedule="same",
            strategy_paths=plan.paths,
            chunk_size=min(plan.chunk_size, max(1, -(-plan.games // plan.workers))),
        )
        command = replay_command(
            spec, g, ["--rules-file", str(plan.rules_file)] if plan.rules_file else None
        )
        raise StudyError(
            f"--reference: {what}\n[run seed {plan.seed}, game {g}]"
            + (f"\nreplay it move by move: {command}" if command else ""),
            1,
        )
    rate = n_ref / float(at[1])
    return {
        "reference_games": n_ref,
        "reference_games_per_s": round(rate, 2),
        "speedup_vs_reference": round(games_per_s / rate, 1),
    }


def time_search(plan: BenchPlan) -> dict[str, Any]:
    """A search strategy's decisions/s and search (and playout loop) moves/s beside the
    kernel's own moves/s with the reference opponent; ``{}`` for a strategy that does not
    search. Raises :class:`StudyError` (1: the search crashed)."""
    from shedsim.runs.benchmark import SearchCrash, search_rates, time_kernel
    from shedsim.runs.simulate import RunSpec

    rs, players = plan.rules, plan.players
    try:
        rates = search_rates(
            plan.plugin,
            rs.compile(players),
            plan.plugin.params_array(plan.overrides),
            seed=plan.seed,
        )
    except SearchCrash as e:
        raise StudyError(str(e), 1) from None
    if rates is None:
        return {}
    out = {k: round(float(v), 1) for k, v in rates.items()}
    g = time_kernel(
        RunSpec(
            rs, players, (plan.base,), (plan.base,), seed=plan.seed, games=100_000, schedule="same"
        )
    )
    kernel = g.moves / g.wall_s
    out["kernel_greedy_moves_per_s"] = round(kernel, 1)
    out["search_vs_kernel"] = round(rates["search_moves_per_s"] / kernel, 3)
    if "playout_loop_moves_per_s" in rates:
        out["playout_loop_vs_kernel"] = round(rates["playout_loop_moves_per_s"] / kernel, 3)
    return out


def run_bench(plan: BenchPlan, reference_games: int | None) -> dict[str, Any]:
    """Every measure of ``bench`` (:func:`time_play`, with ``reference_games`` the reference
    engine's rate and the kernel's speed-up over it, and a search strategy's rates), as
    ``bench --json`` prints them. Raises :class:`StudyError`."""
    out = time_play(plan)
    if reference_games is not None:
        out.update(time_reference(plan, reference_games, out["games_per_s"]))
    out.update(time_search(plan))
    return out


def render_bench(out: dict[str, Any], base: str) -> Any:
    """The measures of :func:`run_bench` as the console table ``bench`` prints (rich)."""
    from rich.table import Table

    ends = list(out["ends"].values())
    table = Table(
        title=f"bench: {out['rules']}, {out['players']} players, {out['strategy']}, "
        f"{out['games']:,} games, "
        f"{out['workers']} worker(s)"
        + (f" ({out['backend']})" if out["backend"] != "loky" else ""),
        show_header=False,
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    rows = [
        ("games/s", f"{out['games_per_s']:,.0f}"),
        ("ns per move (wall)", f"{out['ns_per_move']:.1f}"),
        ("ns per move per worker", f"{out['ns_per_move_per_worker']:.1f}"),
        (
            "decisions/s per worker (moves and swaps, in play)",
            f"{out['decisions_per_s_per_worker']:,.0f}",
        ),
        ("moves per game", f"{out['moves_per_game']:.1f}"),
        (
            "unfinished games (stalled / proven loops / move cap)",
            f"{out['unfinished']:,} ({ends[1]:,} / {ends[2]:,} / {ends[3]:,})",
        ),
        ("wall time of play (s)", f"{out['wall_s']:.2f}"),
        ("kernel load / compile (s)", f"{out['kernel_load_s']:.2f} ({out['kernel_cache']})"),
    ]
    if "decisions_per_s" in out:
        rows += [
            ("decisions/s (search alone)", f"{out['decisions_per_s']:,.0f}"),
            (
                "search moves/s (playouts and tree, all its work)",
                f"{out['search_moves_per_s']:,.0f}",
            ),
        ]
        if "playout_loop_moves_per_s" in out:
            rows.append(
                ("playout loop moves/s (playouts alone)", f"{out['playout_loop_moves_per_s']:,.0f}")
            )
        rows += [
            (f"kernel moves/s ({base})", f"{out['kernel_greedy_moves_per_s']:,.0f}"),
            ("search / kernel moves/s", f"{out['search_vs_kernel']:.2f}"),
        ]
        if "playout_loop_vs_kernel" in out:
            rows.append(("playout loop / kernel moves/s", f"{out['playout_loop_vs_kernel']:.2f}"))
    if "reference_games" in out:
        rows += [
            (
                "reference engine games/s",
                f"{out['reference_games_per_s']:,.1f} (first {out['reference_games']} games)",
            ),
            ("kernel / reference", f"{out['speedup_vs_reference']:,.0f}x"),
        ]
    for row in rows:
        table.add_row(*row)
    return table


__all__ = [
    "BenchPlan",
    "bench_rows",
    "plan_bench",
    "render_bench",
    "run_bench",
    "time_play",
    "time_reference",
    "time_search",
]
