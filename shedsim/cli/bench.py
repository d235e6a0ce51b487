"""`shedsim bench`: the kernel's speed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import (BotOpt, HouseOpt, RulesFileOpt, RulesOpt, StrategyPathOpt,  # noqa: F401
                                TimePerMoveOpt, bot_entries, choice_help, fail, load_players, load_rules)


def bench(
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats at the table.")] = 2,
    strategy: Annotated[Optional[str], typer.Option("--strategy", help="Strategy played by every seat (NAME or NAME:param=v; default: the reference opponent, " + choice_help("reference") + ").")] = None,
    games: Annotated[int, typer.Option("--games", "-g", help="Games to play.", min=1)] = 1_000_000,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Worker processes (loky, or the local dask cluster); at most the CPUs and what the memory holds.", min=1)] = 1,
    backend: Annotated[str, typer.Option("--backend", help="loky (local processes), dask (a local dask cluster of --workers processes, or the cluster at --scheduler) or ray (pip install ray).")] = "loky",
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="Address of a running cluster for --backend dask (tcp://HOST:8786) or ray.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed.", min=0)] = 0,
    chunk_size: Annotated[int, typer.Option("--chunk-size", help="Games per chunk of work (at most what the memory holds).", min=1)] = 50_000,
    reference: Annotated[bool, typer.Option("--reference", help="Also time the reference engine on the first --reference-games games and print the ratio.")] = False,
    reference_games: Annotated[int, typer.Option("--reference-games", help="Games timed on the reference engine with --reference.", min=1)] = 500,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
    strategy_path: StrategyPathOpt = None,
    table_mode: Annotated[bool, typer.Option("--table", help="Print one table instead: games/s and ns per move at 2 and 4 players, 1 and 2 workers (median of 3 runs of --games games each; what make bench prints).")] = False,
    calib: Annotated[Optional[Path], typer.Option("--calib", help="With --table: the calibration kernel's directory (holding sh_nb_fast.py; default $SHEDSIM_CALIB or ../shared/calib when present), timed in the same run for a ratio column.")] = None,
    bot: BotOpt = None,
    bot_games: Annotated[int, typer.Option("--bot-games", help="With --bot: games with the bot at every seat, in one process.", min=1)] = 200,
    time_per_move: TimePerMoveOpt = 1000,
) -> None:
    """Measure the compiled kernel: games/s, ns per move, moves per game, kernel load time.

    A search strategy (one whose module defines move_stats(), such as mc and ismcts) also gets its
    decisions per second and the moves per second of its whole search (determinisations,
    tree and playouts), timed on positions from greedy self-play, and, when the module
    defines playout_stats(), the moves per second of its playout loop alone; both beside
    the kernel's own moves per second with the reference opponent (<<reference>>).

    With --bot LABEL=COMMAND: the bot's decisions per second through the pipe instead, over --bot-games games with the bot at every seat (one process per seat) on one worker, beside the seconds the reference engine alone takes for the same deals with --strategy at every seat (the engine's share).

    Timing starts after the kernel is loaded in every worker, so games/s measures play
    alone; the load (or first compile) time is printed separately. With --backend dask
    or ray the cluster is started (or connected to) before timing; "workers" reports its
    worker slots.
    """
    import contextlib
    import dataclasses
    import json
    import time

    import numpy as np

    from shedsim.plugins import PluginError, choice, discover, parse_spec
    from shedsim.rules.engine import StrategyError
    from shedsim.rules.ruleset import RulesError
    from shedsim.runs.simulate import (BackendError, RunSpec, SimulationError, backend_config, check_backend, run_tasks,
                           warm_workers)
    try:
        check_backend(backend, scheduler)
    except (ValueError, BackendError) as e:
        fail(str(e))
    rs = load_rules(rules, house, rules_file)
    try:
        rs.check_players(players)
    except RulesError as e:
        fail(str(e))
    try:
        known = discover([str(p) for p in strategy_path or []])
    except PluginError as e:
        fail(f"--strategy-path: {e}")
    if bot:
        return _bench_bot(rs, players, bot_entries(bot), strategy, bot_games, seed, time_per_move, as_json)
    try:
        base = choice("reference")[0]  # the kernel's own moves/s beside a search strategy's
        strategy = base if strategy is None else strategy
        name, overrides = parse_spec(strategy)
        known.require(name)
        if not known[name].compiled:
            raise PluginError(f"strategy {name!r} is plain Python: the kernel runs numba strategies only")
        known[name].params_array(overrides)
    except PluginError as e:
        fail(f"--strategy: {e}")
    paths = tuple(str(p) for p in strategy_path or [])
    from shedsim.runs.limits import LimitError, memory_problem, plan_workers
    from shedsim.runs.store import plan_size_problem
    too_big = plan_size_problem(-(-games // chunk_size), games, chunk_size)
    if too_big:
        fail(too_big)
    if reference and (problem := memory_problem("--reference-games", min(games, reference_games), "games", 24)):
        fail(problem)  # the reference games' keys (two uint64 and the index per game) are made at once
    try:  # at most the CPUs and what the memory holds (a cluster at --scheduler decides its own)
        workers, note = plan_workers(workers, scheduler, min(chunk_size, games), max(players, 4) if table_mode else players)
    except LimitError as e:
        fail(str(e))
    if table_mode:
        from shedsim.runs.benchmark import CalibrationError, bench_table, find_calibration, render_table
        try:
            cdir = find_calibration(calib)
            rows = bench_table(rs, strategy, games, calib=cdir, seed=seed, strategy_paths=paths, chunk_size=chunk_size,
                               progress=None if as_json else (lambda m: typer.echo(f"timing {m} ...", err=True)))
        except (CalibrationError, SimulationError, LimitError) as e:
            fail(str(e))
        if as_json:
            typer.echo(json.dumps({"rules": rs.name, "strategy": strategy, "games": games, "calibration": str(cdir) if cdir else None, "rows": rows}))
        else:
            from rich.console import Console
            Console().print(render_table(rows, f"bench: {rs.name}, {strategy}, {games:,} games per run, median of 3"
                                         + (f"; calibration kernel: {cdir}" if cdir else "")))
        return
    if note:
        typer.echo(f"note: {note}", err=True)
    spec = RunSpec(rs, players, (strategy,), (strategy,), seed=seed, games=games, schedule="same",
                   strategy_paths=paths, chunk_size=min(chunk_size, max(1, -(-games // workers))))
    from shedsim.kernel.build import cache_dir
    had_cache = any(cache_dir().glob("**/*.nbi"))
    t = time.perf_counter()
    try:
        with contextlib.ExitStack() as cluster:
            warm_workers(spec, 1)  # in this process: the kernel's load (or compile) time
            load_s = time.perf_counter() - t
            if backend != "loky":  # one cluster for warming and timing (run_tasks reuses it)
                workers = cluster.enter_context(backend_config(backend, workers, scheduler))
                spec = dataclasses.replace(spec, chunk_size=min(chunk_size, max(1, -(-games // workers))))
            if workers > 1 or backend != "loky":
                warm_workers(spec, workers, backend, scheduler)
            from shedsim.layout import END_NAMES
            moves = unfinished = 0
            ends = np.zeros(len(END_NAMES), np.int64)

            def tally(_k: int, r) -> None:  # each chunk's records are summed and dropped as they arrive
                nonlocal moves, unfinished
                moves += int(r.records["moves"].sum())
                unfinished += int(r.records["unfinished"].sum())
                ends[:] += np.bincount(r.records["end"], minlength=len(END_NAMES))
                r.records.clear()

            t0 = time.perf_counter()
            run_tasks([(spec, c) for c in range(spec.n_chunks())], workers=workers, backend=backend, on_result=tally,
                      keep=("moves", "unfinished", "end"), scheduler=scheduler)
            wall = time.perf_counter() - t0
    except BackendError as e:
        fail(str(e))
    except SimulationError as e:
        fail(str(e), 1)
    out = {
        "rules": rs.name, "house": list(rs.house), "players": players, "strategy": strategy,
        "games": games, "workers": workers, "backend": backend, "seed": seed, "wall_s": round(wall, 4),
        "games_per_s": round(games / wall, 1), "ns_per_move": round(wall * 1e9 / max(moves, 1), 2),
        "ns_per_move_per_worker": round(wall * workers * 1e9 / max(moves, 1), 2),
        "moves_per_game": round(moves / games, 2), "unfinished": unfinished,
        "ends": {name: int(c) for name, c in zip(END_NAMES, ends)},
        "kernel_load_s": round(load_s, 3), "kernel_cache": "hit" if had_cache and load_s < 5 else "compiled",
    }
    if reference:
        from shedsim.kernel import isolate
        from shedsim.rules.engine import play_game
        from shedsim.seeding import game_keys
        n_ref = min(games, reference_games)
        player = known[name].player(strategy, overrides)
        dk, sk = game_keys(seed, np.arange(n_ref))
        # a plugin from outside strategies/ is timed in a forked child: a crash there is named,
        # and a decision past the decision limit stopped (by the beat word)
        forked = known[name].outside and isolate.can_fork()
        at = isolate.shared_like(np.zeros(2)) if forked else np.zeros(2)  # [game in play, seconds]
        beat = isolate.beat_word() if forked else None
        from shedsim.runs.recorder import Recorded
        seated = [Recorded(player, s, None, beat) for s in range(players)] if forked else [player] * players

        def time_reference() -> None:
            t1 = time.perf_counter()
            for g in range(n_ref):
                at[0] = g
                play_game(rs, seated, int(dk[g]), int(sk[g]), g % players)
            at[1] = time.perf_counter() - t1

        try:
            error, code = None, 0
            if forked:
                from shedsim.kernel.isolate import decision_timeout
                _, error, code = isolate.run_forked(time_reference, beat=(beat, 0), beat_s=decision_timeout())
            else:
                time_reference()
        except StrategyError as e:
            error = str(e)
        except isolate.ChildTimeout as e:
            error = f"strategy {strategy!r} on the reference engine: {e}"
        if code != 0 or error is not None:
            from shedsim.runs.simulate import replay_command
            g = int(at[0])
            what = (f"strategy {strategy!r} crashed the process timing the reference engine "
                    f"({isolate.crash_words(code)})" if code else error)
            command = replay_command(spec, g, ["--rules-file", str(rules_file)] if rules_file else None)
            fail(f"--reference: {what}\n[run seed {seed}, game {g}]"
                 + (f"\nreplay it move by move: {command}" if command else ""), 1)
        ref_s = float(at[1])
        out["reference_games"] = n_ref
        out["reference_games_per_s"] = round(n_ref / ref_s, 2)
        out["speedup_vs_reference"] = round(out["games_per_s"] / (n_ref / ref_s), 1)
    from shedsim.runs.benchmark import SearchCrash, search_rates
    try:
        rates = search_rates(known[name], rs.compile(players), known[name].params_array(overrides), seed=seed)
    except SearchCrash as e:
        fail(str(e), 1)
    if rates is not None:  # a search strategy: its playout loop beside the kernel's own moves/s (reference)
        out.update({k: round(float(v), 1) for k, v in rates.items()})
        from shedsim.runs.benchmark import time_kernel
        g = time_kernel(RunSpec(rs, players, (base,), (base,), seed=seed, games=100_000, schedule="same"))
        out["kernel_greedy_moves_per_s"] = round(g.moves / g.wall_s, 1)
        out["search_vs_kernel"] = round(rates["search_moves_per_s"] / (g.moves / g.wall_s), 3)
        if "playout_loop_moves_per_s" in rates:
            out["playout_loop_vs_kernel"] = round(rates["playout_loop_moves_per_s"] / (g.moves / g.wall_s), 3)
    if as_json:
        typer.echo(json.dumps(out))
        return
    from rich.console import Console
    from rich.table import Table
    table = Table(title=f"bench: {rs.name}, {players} players, {strategy}, {games:,} games, {workers} worker(s)"
                        + (f" ({backend})" if backend != "loky" else ""),
                  show_header=False)
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("games/s", f"{out['games_per_s']:,.0f}")
    table.add_row("ns per move (wall)", f"{out['ns_per_move']:.1f}")
    table.add_row("ns per move per worker", f"{out['ns_per_move_per_worker']:.1f}")
    table.add_row("moves per game", f"{out['moves_per_game']:.1f}")
    table.add_row("unfinished games (stalled / proven loops / move cap)",
                  f"{unfinished:,} ({ends[1]:,} / {ends[2]:,} / {ends[3]:,})")
    table.add_row("wall time of play (s)", f"{wall:.2f}")
    table.add_row("kernel load / compile (s)", f"{load_s:.2f} ({out['kernel_cache']})")
    if rates is not None:
        table.add_row("decisions/s (search alone)", f"{out['decisions_per_s']:,.0f}")
        table.add_row("search moves/s (playouts and tree, all its work)", f"{out['search_moves_per_s']:,.0f}")
        if "playout_loop_moves_per_s" in out:
            table.add_row("playout loop moves/s (playouts alone)", f"{out['playout_loop_moves_per_s']:,.0f}")
        table.add_row(f"kernel moves/s ({base})", f"{out['kernel_greedy_moves_per_s']:,.0f}")
        table.add_row("search / kernel moves/s", f"{out['search_vs_kernel']:.2f}")
        if "playout_loop_vs_kernel" in out:
            table.add_row("playout loop / kernel moves/s", f"{out['playout_loop_vs_kernel']:.2f}")
    if reference:
        table.add_row("reference engine games/s", f"{out['reference_games_per_s']:,.1f} (first {out['reference_games']} games)")
        table.add_row("kernel / reference", f"{out['speedup_vs_reference']:,.0f}x")
    Console().print(table)


def _bench_bot(rs, players: int, bots: list[tuple[str, str]], strategy: str | None, games: int, seed: int,
               move_ms: int, as_json: bool) -> None:
    """``bench --bot``: each bot's decisions per second through the pipe (:mod:`shedsim.bot.bench`)."""
    import json

    from shedsim.bot.bench import bot_rate
    from shedsim.bot.process import BotStartError
    from shedsim.bot.protocol import BotSpecError
    from shedsim.plugins import choice
    from shedsim.runs.simulate import SimulationError
    opponent = strategy or choice("reference")[0]
    rows = []
    for label, spec in bots:
        try:
            rows.append(bot_rate(rs, players, label, spec, games, seed, opponent, move_ms))
        except (BotSpecError, BotStartError) as e:
            fail(str(e))
        except SimulationError as e:
            fail(str(e), 1)
    if as_json:
        typer.echo(json.dumps({"rules": rs.name, "players": players, "rows": rows}))
        return
    for r in rows:
        typer.echo(f"{r['label']}: {r['decisions_per_s']:,.0f} decisions/s through the pipe ({r['decisions']:,} "
                   f"decisions in {r['games']:,} games, the bot at every seat, {r['wall_s']:.2f} s; "
                   f"{r['games_per_s']:,.1f} games/s); the reference engine alone ({r['opponent']} at every "
                   f"seat): {r['engine_s']:.2f} s "
                   f"(the pipe and the bot: {100 * r['pipe_share']:.0f}% of the time); start and hello "
                   f"{r['start_s']:.2f} s; forfeits {r['forfeits']}")
