"""The ``shedsim`` command line (typer).

Heavy imports (numba, pandas, matplotlib) happen inside the commands that need them, so
``shedsim --help`` answers at once. Bad input exits with code 2 and a message naming the
field; a failed scenario expectation exits 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(
    help="shedsim: Monte Carlo strategy analysis for Shithead / Idiot / Palace / Karma.\n\n"
         "Rule sets: duel, nines, family, palace, shithead (see `shedsim rules list`), plus "
         "house toggles with --house. Strategies are plugins (see `shedsim strategies`).",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
rules_app = typer.Typer(help="List and inspect rule sets and house toggles.", no_args_is_help=True)
scenario_app = typer.Typer(help="Run and show scenario files (positions + moves + expectations).",
                           no_args_is_help=True)
app.add_typer(rules_app, name="rules")
app.add_typer(scenario_app, name="scenario")

from .cli_common import (HouseOpt, RulesFileOpt, RulesOpt, StrategyPathOpt, fail,  # noqa: E402,F401
                         load_players, load_rules)


# ------------------------------------------------------------------ rules
@rules_app.command("list")
def rules_list() -> None:
    """List the presets and every house toggle."""
    from rich.console import Console
    from rich.table import Table

    from .rules import PRESETS, TOGGLES, preset
    console = Console()
    t = Table(title="Rule sets (--rules)")
    for col in ("name", "players", "reset / burn / other roles", "voluntary pick-up", "gamble", "who starts", "scoring"):
        t.add_column(col)
    for name in PRESETS:
        rs = preset(name)
        roles = rs.describe_roles()
        other = "; ".join(f"{k}: {v}" for k, v in roles.items() if k not in ("reset", "burn") and v != "-")
        t.add_row(name, f"{rs.min_players}-{rs.max_players}", f"{roles['reset']} / {roles['burn']} / {other}",
                  rs.pickup, "yes" if rs.deck_gamble else "no", rs.start, rs.scoring)
    console.print(t)
    h = Table(title="House toggles (--house, repeatable; all compose)")
    h.add_column("toggle")
    h.add_column("effect")
    for k, v in TOGGLES.items():
        h.add_row(k, v)
    console.print(h)


@rules_app.command("show")
def rules_show(
    name: Annotated[str, typer.Argument(help="Preset name or rules .toml file.")] = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
) -> None:
    """Show a rule set's settings and its can-play table (rows: effective top; columns: rank)."""
    from rich.console import Console
    from rich.table import Table

    from .cards import RANKS, rank_name
    rs = load_rules(name, house, rules_file)
    console = Console()
    s = Table(title=f"Rule set {rs.name}" + (f" + {', '.join(rs.house)}" if rs.house else ""), show_header=False)
    s.add_column("setting")
    s.add_column("value")
    s.add_row("players", f"{rs.min_players}-{rs.max_players}")
    for k, v in rs.describe_roles().items():
        s.add_row(k, v)
    for k in ("pickup", "deck_gamble", "start", "burn_passes", "mix_last_hand", "decks", "hand_size",
              "table_size", "burn_run", "max_moves", "scoring"):
        s.add_row(k.replace("_", " "), str(getattr(rs, k)))
        if k == "max_moves":
            groups: dict[int, list[int]] = {}
            for p in range(rs.min_players, rs.max_players + 1):
                groups.setdefault(rs.stall_moves(p), []).append(p)
            s.add_row("stall (no-progress moves)", "off" if rs.stall == 0 else "; ".join(
                f"{n} ({ps[0]}{'' if len(ps) == 1 else f'-{ps[-1]}'} players)" for n, ps in groups.items()))
            s.add_row("stalemate (stopped games)", rs.stalemate)
    console.print(s)
    t = Table(title="can play: row = effective top of the pile, column = rank played (x = legal)")
    t.add_column("top \\ rank")
    for r in RANKS:
        t.add_column(rank_name(r), justify="center")
    for top in (0, *RANKS):
        if top in rs.invisible:
            continue
        t.add_row(rank_name(top), *("x" if rs.can_play(top, r) else "." for r in RANKS))
    console.print(t)
    if rs.invisible:
        console.print(f"(invisible ranks {', '.join(rank_name(r) for r in sorted(rs.invisible))} are never the effective top)")


# ------------------------------------------------------------------ scenarios
@scenario_app.command("run")
def scenario_run(
    files: Annotated[list[Path], typer.Argument(help="Scenario TOML files.")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print failures only.")] = False,
) -> None:
    """Play each scenario's moves and check its expectations.

    Exit 0 when every expectation holds, 1 when one fails (printing expected and actual),
    2 when a file cannot be read or played (the field is named).
    """
    from .scenario import ScenarioError, run_scenario
    failed = 0
    invalid = 0
    for f in files:
        try:
            failures = run_scenario(f)
        except ScenarioError as e:
            typer.echo(f"error: {e}", err=True)
            invalid += 1
            continue
        if failures:
            failed += 1
            typer.echo(f"FAIL {f}")
            for x in failures:
                typer.echo(f"  {x.key}: expected {x.expected}, actual {x.actual}")
        elif not quiet:
            typer.echo(f"ok   {f}")
    total = len(files)
    typer.echo(f"{total - failed - invalid} passed, {failed} failed" + (f", {invalid} invalid" if invalid else ""))
    if invalid:
        raise typer.Exit(2)
    if failed:
        raise typer.Exit(1)


@scenario_app.command("show")
def scenario_show(file: Annotated[Path, typer.Argument(help="A scenario TOML file.")]) -> None:
    """Print a scenario's position, its legal moves, and the position after its moves."""
    from .scenario import ScenarioError, show_scenario
    try:
        typer.echo(show_scenario(file))
    except ScenarioError as e:
        fail(str(e))


# ------------------------------------------------------------------ trace
@app.command("trace")
def trace(
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Number of seats.")] = 2,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Run seed; the game is game 0 of this seed.", min=0)] = 0,
    game: Annotated[int, typer.Option("--game", help="Game index within the seed (the dealer is game % players).", min=0)] = 0,
    strategies: Annotated[str, typer.Option("--strategies", help="Comma-separated strategies, seated in turn.")] = "greedy,random",
    strategy_path: StrategyPathOpt = None,
) -> None:
    """Play one game on the reference engine and print it move by move."""
    import numpy as np

    from .engine import StrategyError, play_game
    from .rules import RulesError
    from .seeding import game_keys
    rs = load_rules(rules, house, rules_file)
    try:
        rs.check_players(players)
    except RulesError as e:
        fail(str(e))
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    if not names:
        fail("--strategies: name at least one strategy")
    seated = load_players([names[i % len(names)] for i in range(players)], strategy_path)
    dk, sk = game_keys(seed, np.array([game]))
    try:
        result = play_game(rs, seated, int(dk[0]), int(sk[0]), dealer=game % players, trace=True)
    except StrategyError as e:
        fail(str(e))
    typer.echo(f"rules {rs.name}{' + ' + ', '.join(rs.house) if rs.house else ''}; seed {seed} game {game}")
    for line in result.trace:
        typer.echo(line)


@app.command("strategies")
def strategies_cmd(strategy_path: StrategyPathOpt = None) -> None:
    """List the strategy plugins found (built-in, $SHEDSIM_STRATEGY_PATH, --strategy-path)."""
    from rich.console import Console
    from rich.table import Table

    from .plugins import PluginError, discover
    try:
        found = discover([str(p) for p in strategy_path or []])
    except PluginError as e:
        fail(str(e))
    t = Table(title="Strategies")
    for c in ("name", "kind", "deterministic", "parameters", "description", "file"):
        t.add_column(c)
    for s in found.values():
        params = ", ".join(f"{k}={v}" for k, v in s.params.items()) or "-"
        t.add_row(s.name, s.kind, "yes" if s.deterministic else "no", params, s.description, str(s.path))
    Console().print(t)


@app.command("compile")
def compile_cmd(strategy_path: StrategyPathOpt = None) -> None:
    """Compile the kernel and every compiled strategy now (numba caches them on disk, so
    later runs start in well under a second)."""
    import time

    import numpy as np

    from .engine import play_game
    from .plugins import PluginError, discover
    from .rules import build
    from .simulate import RunSpec, play_chunk
    t = time.perf_counter()
    try:
        known = discover([str(p) for p in strategy_path or []])
    except PluginError as e:
        fail(str(e))
    compiled = [s for s in known.values() if s.compiled]
    rules = build("shithead", ["max_moves:50"])
    spec = RunSpec(rules, 2, (compiled[0].name,), (compiled[0].name,), games=1, schedule="same",
                   strategy_paths=tuple(str(p) for p in strategy_path or []))
    play_chunk(spec, 0, 1)  # the fast game loop
    from .kernel.build import inlinable
    for s in compiled:
        if not inlinable(s):  # the standard loop, for strategies that allocate (mc)
            play_chunk(RunSpec(rules, 2, (s.name,), (s.name,), games=1, schedule="same",
                               strategy_paths=spec.strategy_paths), 0, 1)
            break
    for s in compiled:  # the reference engine calls the strategies' own dispatchers
        play_game(rules, [s.player(), s.player()], 1, 2)
    from .hint import warm_up
    warm_up()  # the playout kernel of `shedsim hint` with its default policy
    typer.echo(f"kernel, hint playouts and {len(compiled)} compiled strategies ready in {time.perf_counter() - t:.1f} s "
               f"({', '.join(s.name for s in compiled)})")
    del np


@app.command("bench")
def bench(
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats at the table.")] = 2,
    strategy: Annotated[str, typer.Option("--strategy", help="Strategy played by every seat (NAME or NAME:param=v).")] = "greedy",
    games: Annotated[int, typer.Option("--games", "-g", help="Games to play.", min=1)] = 1_000_000,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Worker processes (loky, or the local dask cluster).", min=1)] = 1,
    backend: Annotated[str, typer.Option("--backend", help="loky (local processes), dask (a local dask cluster of --workers processes, or the cluster at --scheduler) or ray (pip install ray).")] = "loky",
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="Address of a running cluster for --backend dask (tcp://HOST:8786) or ray.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed.", min=0)] = 0,
    chunk_size: Annotated[int, typer.Option("--chunk-size", help="Games per chunk of work.", min=1)] = 50_000,
    reference: Annotated[bool, typer.Option("--reference", help="Also time the reference engine on the first --reference-games games and print the ratio.")] = False,
    reference_games: Annotated[int, typer.Option("--reference-games", help="Games timed on the reference engine with --reference.", min=1)] = 500,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
    strategy_path: StrategyPathOpt = None,
    table_mode: Annotated[bool, typer.Option("--table", help="Print one table instead: games/s and ns per move at 2 and 4 players, 1 and 2 workers (median of 3 runs of --games games each; what make bench prints).")] = False,
    calib: Annotated[Optional[Path], typer.Option("--calib", help="With --table: the calibration kernel's directory (holding sh_nb_fast.py; default $SHEDSIM_CALIB or ../shared/calib when present), timed in the same run for a ratio column.")] = None,
) -> None:
    """Measure the compiled kernel: games/s, ns per move, moves per game, kernel load time.

    A search strategy (one whose module defines move_stats(), such as mc) also gets its
    decisions per second and playout (rollout) moves per second, timed on positions from
    greedy self-play, beside the kernel's own moves per second with greedy.

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

    from .plugins import PluginError, discover, parse_spec
    from .rules import RulesError
    from .simulate import (BackendError, RunSpec, SimulationError, backend_config, check_backend, run_chunks,
                           warm_workers)
    try:
        check_backend(backend, scheduler)
    except (ValueError, BackendError) as e:
        fail(str(e))
    rs = load_rules(rules, house, rules_file)
    try:
        rs.check_players(players)
        name, overrides = parse_spec(strategy)
        known = discover([str(p) for p in strategy_path or []])
        if name not in known:
            raise PluginError(f"unknown strategy {name!r}; known: {', '.join(known)}")
        if not known[name].compiled:
            raise PluginError(f"strategy {name!r} is plain Python: the kernel runs numba strategies only")
        known[name].params_array(overrides)
    except (RulesError, PluginError) as e:
        fail(str(e))
    paths = tuple(str(p) for p in strategy_path or [])
    if table_mode:
        from .benchmark import CalibrationError, bench_table, find_calibration, render_table
        try:
            cdir = find_calibration(calib)
            rows = bench_table(rs, strategy, games, calib=cdir, seed=seed, strategy_paths=paths, chunk_size=chunk_size,
                               progress=None if as_json else (lambda m: typer.echo(f"timing {m} ...", err=True)))
        except (CalibrationError, SimulationError) as e:
            fail(str(e))
        if as_json:
            typer.echo(json.dumps({"rules": rs.name, "strategy": strategy, "games": games, "calibration": str(cdir) if cdir else None, "rows": rows}))
        else:
            from rich.console import Console
            Console().print(render_table(rows, f"bench: {rs.name}, {strategy}, {games:,} games per run, median of 3"
                                         + (f"; calibration kernel: {cdir}" if cdir else "")))
        return
    spec = RunSpec(rs, players, (strategy,), (strategy,), seed=seed, games=games, schedule="same",
                   strategy_paths=paths, chunk_size=min(chunk_size, max(1, -(-games // workers))))
    from .kernel.build import cache_dir
    had_cache = any(cache_dir().glob("**/*.nbi"))
    t = time.perf_counter()
    try:
        with contextlib.ExitStack() as cluster:
            warm_workers(spec, 1)  # in this process: the kernel's load (or compile) time
            load_s = time.perf_counter() - t
            if backend != "loky":  # one cluster for warming and timing (run_chunks reuses it)
                workers = cluster.enter_context(backend_config(backend, workers, scheduler))
                spec = dataclasses.replace(spec, chunk_size=min(chunk_size, max(1, -(-games // workers))))
            if workers > 1 or backend != "loky":
                warm_workers(spec, workers, backend, scheduler)
            t0 = time.perf_counter()
            results = run_chunks(spec, list(range(spec.n_chunks())), workers=workers, backend=backend,
                                 scheduler=scheduler, keep=("moves", "unfinished", "end"))
            wall = time.perf_counter() - t0
    except BackendError as e:
        fail(str(e))
    except SimulationError as e:
        fail(str(e), 1)
    moves = int(sum(int(r.records["moves"].sum()) for r in results))
    unfinished = int(sum(int(r.records["unfinished"].sum()) for r in results))
    from .layout import END_NAMES
    ends = sum(np.bincount(r.records["end"], minlength=len(END_NAMES)) for r in results)
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
        from .engine import play_game
        from .seeding import game_keys
        n_ref = min(games, reference_games)
        player = known[name].player(strategy, overrides)
        dk, sk = game_keys(seed, np.arange(n_ref))
        t1 = time.perf_counter()
        for g in range(n_ref):
            play_game(rs, [player] * players, int(dk[g]), int(sk[g]), g % players)
        ref_s = time.perf_counter() - t1
        out["reference_games"] = n_ref
        out["reference_games_per_s"] = round(n_ref / ref_s, 2)
        out["speedup_vs_reference"] = round(out["games_per_s"] / (n_ref / ref_s), 1)
    from .benchmark import search_rates
    rates = search_rates(known[name], rs.compile(players), known[name].params_array(overrides), seed=seed)
    if rates is not None:  # a search strategy: its playout loop beside the kernel's own moves/s (greedy)
        out.update({k: round(float(v), 1) for k, v in rates.items()})
        from .benchmark import time_kernel
        g = time_kernel(RunSpec(rs, players, ("greedy",), ("greedy",), seed=seed, games=100_000, schedule="same"))
        out["kernel_greedy_moves_per_s"] = round(g.moves / g.wall_s, 1)
        out["playout_vs_kernel"] = round(rates["playout_moves_per_s"] / (g.moves / g.wall_s), 3)
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
        table.add_row("playout moves/s", f"{out['playout_moves_per_s']:,.0f}")
        table.add_row("kernel moves/s (greedy)", f"{out['kernel_greedy_moves_per_s']:,.0f}")
        table.add_row("playout / kernel moves/s", f"{out['playout_vs_kernel']:.2f}")
    if reference:
        table.add_row("reference engine games/s", f"{out['reference_games_per_s']:,.1f} (first {out['reference_games']} games)")
        table.add_row("kernel / reference", f"{out['speedup_vs_reference']:,.0f}x")
    Console().print(table)


from .cli_tournament import tournament  # noqa: E402
app.command("tournament")(tournament)
from .cli_compare import compare_rules  # noqa: E402
app.command("compare-rules")(compare_rules)
from .cli_swaps import swaps  # noqa: E402
app.command("swaps")(swaps)
from .cli_sprt import sprt  # noqa: E402
app.command("sprt")(sprt)
from .cli_report import report  # noqa: E402
app.command("report")(report)
from .cli_tune import tune  # noqa: E402
app.command("tune")(tune)
from .cli_tips import tips  # noqa: E402
app.command("tips")(tips)
from .cli_hint import hint  # noqa: E402
app.command("hint")(hint)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
