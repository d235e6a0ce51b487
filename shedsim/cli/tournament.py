"""``shedsim tournament``: the typer command (registered in :mod:`shedsim.cli`).

Only typer and the standard library are imported here at module level, so ``shedsim
--help`` stays fast; numpy, numba, pandas, matplotlib and the statistics libraries are
imported inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import BotOpt, TimePerGameOpt, TimePerMoveOpt, choice_help

_P_RUN = "What to play"
_P_OUT = "Output and execution"


def tournament(
    rules: Annotated[Optional[str], typer.Option("--rules", "-r", rich_help_panel=_P_RUN, help="Preset: duel, nines, family, palace, shithead (default: shithead).")] = None,
    house: Annotated[Optional[list[str]], typer.Option("--house", "-H", rich_help_panel=_P_RUN, help="House toggle, repeatable (`shedsim rules list`).")] = None,
    rules_file: Annotated[Optional[Path], typer.Option("--rules-file", rich_help_panel=_P_RUN, help="A rules TOML file; overrides --rules.")] = None,
    players: Annotated[Optional[int], typer.Option("--players", "-p", rich_help_panel=_P_RUN, help="Seats per table (default: 4).")] = None,
    strategies: Annotated[Optional[str], typer.Option("--strategies", "-S", rich_help_panel=_P_RUN, help="Comma-separated entries: NAME, NAME:param=v, or LABEL=SPEC, or @ROLE for the built-in strategies a role selects by their traits (@default, @ladder, ...; `shedsim strategies` lists them); a strategy named twice gets NAME#2 (A/A test) (default: " + choice_help("default") + ").")] = None,
    games: Annotated[Optional[int], typer.Option("--games", "-g", min=1, rich_help_panel=_P_RUN, help="Games to play, rounded up to whole blocks (every table x every rotation x rounds) (default: 200000).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", "-s", min=0, rich_help_panel=_P_RUN, help="Run seed (default: 0).")] = None,
    rounds: Annotated[Optional[int], typer.Option("--rounds", min=1, max=10, rich_help_panel=_P_RUN, help="Rounds per match (1-10), scored by summed places as palace does; >1 adds matches.csv (default: 1).")] = None,
    seat_orders: Annotated[Optional[str], typer.Option("--seat-orders", rich_help_panel=_P_RUN, help="all: every table in every cyclic seating order (who plays after whom); sorted: one order per table (default: all).")] = None,
    strategy_path: Annotated[Optional[list[Path]], typer.Option("--strategy-path", rich_help_panel=_P_RUN, help="Extra directory of strategy plugins, repeatable.")] = None,
    bot: BotOpt = None,
    time_per_move: TimePerMoveOpt = 1000,
    time_per_game: TimePerGameOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", rich_help_panel=_P_OUT, help="Output directory (default: reports/latest).")] = None,
    resume: Annotated[Optional[Path], typer.Option("--resume", rich_help_panel=_P_OUT, help="Continue the interrupted run in this directory (plays only its missing chunks).")] = None,
    force: Annotated[bool, typer.Option("--force", rich_help_panel=_P_OUT, help="Write into a --out directory that holds other files (never replacing one of them).")] = False,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", min=1, rich_help_panel=_P_OUT, help="Worker processes (default and most: the number of CPUs, fewer when the memory cannot hold them).")] = None,
    backend: Annotated[str, typer.Option("--backend", rich_help_panel=_P_OUT, help="loky (local processes), dask (a local dask cluster of --workers processes, or the cluster at --scheduler) or ray (pip install ray). Results do not depend on it.")] = "loky",
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", rich_help_panel=_P_OUT, help="Address of a running cluster for --backend dask (tcp://HOST:8786) or ray (HOST:6379, or auto).")] = None,
    save_games: Annotated[bool, typer.Option("--save-games", rich_help_panel=_P_OUT, help="Also write every game's record as Parquet (DIR/games/NNNNN.parquet, one file per chunk).")] = False,
    no_plots: Annotated[bool, typer.Option("--no-plots", rich_help_panel=_P_OUT, help="Skip the PNG charts (a run started with it stays without them on --resume).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", rich_help_panel=_P_OUT, help="No progress bar and no table (errors and interruptions are still reported).")] = False,
    chunk_size: Annotated[Optional[int], typer.Option("--chunk-size", min=1, rich_help_panel=_P_OUT, help="Games per chunk of work, rounded to whole blocks (default: about games/16, at most 20000).")] = None,
    stop_after: Annotated[Optional[int], typer.Option("--stop-after", min=0, hidden=True, help="Testing: play at most N chunks, then stop as if interrupted.")] = None,
) -> None:
    """Play a fair tournament between strategies and write its statistics and charts.

    Every table of --players seats drawn from the entries, in every seating order, under every rotation, with paired deals (one shuffled deal replayed under each rotation).

    Writes summary.csv, head_to_head.csv, seats.csv, lengths.csv (and matches.csv with --rounds > 1), PNG charts and run.json into --out, and prints the ranking. Ctrl-C keeps every finished chunk and writes partial results; --resume DIR continues (also after a killed run).

    --out must be a new or empty directory or one holding an earlier shedsim run (replaced); a directory in use by another run is refused.

    Exit codes: 0 done; 1 a strategy or worker failed; 2 bad options or input, or a directory in use or holding other files (nothing is written); 3 a file could not be written (disk full: finished chunks are kept, --resume DIR continues); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).

    With no options: shithead, 4 players, 200,000 games, into reports/latest/, with the default field: <<default>>.
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim.analysis import tournament as T
    from shedsim.cli.common import bot_entries, fail, load_rules, with_bots
    from shedsim.rules.ruleset import RulesError
    from shedsim.runs import simulate
    from shedsim.runs.execute import RunError, Session
    from shedsim.runs.simulate import BackendError

    paths = tuple(str(p) for p in strategy_path or [])
    try:
        simulate.check_backend(backend, scheduler)
    except (ValueError, BackendError) as e:
        fail(str(e))
    spec = None
    try:
        if resume is not None:
            root = resume
            if out is not None and out.resolve() != resume.resolve():
                fail(f"--out {str(out)!r} and --resume {str(resume)!r} differ: a resumed run writes into its own directory")
        else:
            root = out if out is not None else Path(T.DEFAULT_OUT)
            rs = load_rules(rules or T.DEFAULT_RULES, house, rules_file)
            n_players = T.DEFAULT_PLAYERS if players is None else players
            rs.check_players(n_players)
            entries = (T.parse_entries(strategies) if strategies is not None
                       else [(n, n) for n in T.default_strategies(paths)])
            entries = with_bots(entries, bot_entries(bot))
            rules_input = {"rules": rules or T.DEFAULT_RULES, "house": list(house or []),
                           "rules_file": str(rules_file.resolve()) if rules_file else None}
            spec = T.plan(rs, n_players, entries, T.DEFAULT_GAMES if games is None else games,
                          seed=0 if seed is None else seed, rounds=1 if rounds is None else rounds,
                          chunk_size=chunk_size, strategy_paths=paths, rules_input=rules_input,
                          save_games=save_games, seat_orders=seat_orders or "all",
                          bot_time=(time_per_move, time_per_game))
    except (T.TournamentError, RulesError) as e:
        fail(str(e))

    from rich.console import Console
    err = Console(stderr=True)
    say = (lambda *a, **k: None) if quiet else err.print
    store = T.Store(root)
    session = Session("tournament", store, resume=resume is not None, outputs=T.OUTPUTS, force=force,
                      quiet=quiet, console=err, plots=not no_plots)
    with session:
        try:
            fresh_over_run = resume is None and store.chunks.is_dir() and any(store.chunks.glob("*.npz"))
            session.open()
            if resume is not None:
                if bot:  # the stored run's entries hold its bots (spec.json)
                    fail("--resume: --bot cannot be given with --resume: the stored run's bots play on")
                spec = T.spec_from_store(store, paths if strategy_path else None)
                _check_resume_options(spec, rules, house, rules_file, players, strategies, games, seed, rounds,
                                      chunk_size, save_games, seat_orders, load_rules)
                store.done_chunks(spec, strict=True)  # a damaged or foreign chunk file: refuse, change nothing
        except RunError as e:
            fail(e.message, e.code)
        except (T.TournamentError, RulesError) as e:
            fail(str(e))
        job = T.TournamentJob(spec)

        nt = len(spec.tables)
        n_comb = len(T.tournament_tables(len(spec.entries), spec.players))
        tables_txt = (f"{nt} table(s): {n_comb} combination(s) in every seating order" if spec.seat_orders == "all"
                      else f"{nt} table(s), one seating order each")
        if seat_orders in (None, "all") and spec.seat_orders != "all":
            say(f"[yellow]note:[/] every seating order would need over {T.MAX_ARRANGED_TABLES:,} tables; "
                f"playing one order per table (--seat-orders sorted)")
        blk = (f"{spec.match_block:,} games ({tables_txt}, x {spec.players} rotations"
               + (f" x {spec.rounds} rounds)" if spec.rounds > 1 else ")"))
        if spec.games != spec.games_requested:
            say(f"[yellow]note:[/] --games {spec.games_requested:,} rounded up to {spec.games:,}: whole blocks of "
                f"{blk}, so every table and rotation is played equally often")
        else:
            say(f"{spec.games:,} games = {spec.games // spec.match_block:,} whole blocks of {blk}, paired deals")
        degenerate = T.degenerate_note(T.degenerate_pairs(spec), spec.players)
        if degenerate:
            say(f"[yellow]note:[/] {degenerate}", highlight=False)
        if fresh_over_run:
            say(f"[yellow]note:[/] replacing the earlier run in {str(root)!r} (use --resume to continue a run instead)")
        if resume is not None:
            say(f"resuming {str(root)!r}: {len(store.done_chunks(spec))} of {spec.n_chunks} chunks already done")

        try:
            outcome, workers = session.run(job, workers, backend, scheduler, stop_after)
        except RunError as e:
            fail(e.message, e.code)

        with session.deferred():  # a signal now only stops after the reports are written
            try:
                total = store.load_total(spec, outcome.done)
            except OSError as e:
                fail(f"cannot read the run store {str(root)!r}: {e}", 3)
            res = T.analyse(spec, total)
        games_done = int(total["games"])
        info = session.run_info(
            job, outcome, workers, backend, spec=spec.to_json(),
            games_requested=spec.games_requested, games=spec.games, games_in_results=games_done,
            rounded_games=spec.games != spec.games_requested,
            unfinished_games=res.info["unfinished"], unfinished_share=res.info["unfinished_share"],
            ends=res.info["ends"], end_shares=res.info["end_shares"], lengths=res.info["lengths"],
            rating_fit=res.info["rating_fit"], degenerate=res.info["degenerate"],
            notes=[degenerate] if degenerate else [], definitions=DEFINITIONS, headline=T.headline(spec, res))
        try:
            files = session.write_reports(job, outcome, lambda: T.write_outputs(spec, res, Path(root),
                                                                                plots=session.plots), info)
        except RunError as e:
            fail(e.message, e.code)

    if not quiet:
        _print_table(spec, res, complete=outcome.complete)
        rate = f"{outcome.played_now / outcome.play_s:,.0f} games/s" if outcome.play_s > 0 and outcome.played_now else "-"
        typer.echo(f"{games_done:,} games ({T.describe_ends(res.info['ends'], spec.rules)}); played "
                   f"{outcome.played_now:,} now in {outcome.play_s:.1f} s ({rate}); wall {session.wall_s:.1f} s")
        typer.echo(f"wrote {', '.join(files + ['run.json'])} to {str(root)}")
    if outcome.interrupted:
        typer.echo(session.stop_message(job, outcome, games_done), err=True)
        raise typer.Exit(session.exit_code(outcome))



DEFINITIONS = {
    "games": "seat-games: a strategy seated twice at one table plays two seat-games in that game",
    "win": "place 1 (first out); possible in an unfinished game if it happened before the game was stopped",
    "loss": "last place (the Idiot); nobody loses an unfinished game under stalemate:share (the default)",
    "unfinished": "the game was stopped before one player was left: a proven loop (the whole position repeated, "
                  "every seat still in deterministic), stalled (stall:N moves without a burn, anyone going out "
                  "or a draw) or the move cap; under stalemate:share (the default) seats still in share the "
                  "remaining places (each gets their mean) for mean place, head to head (two such seats tie) and "
                  "match totals; under stalemate:most_cards they are placed by cards held, most = last = loser",
    "ends": "games by how they ended: finished (one player left), stalled, loop (proven loop), cap (move cap); "
            "summary.csv's stalled, loops and capped columns count seat-games (shown when a game stalled or looped)",
    "intervals": "95%; the rotations of one deal share its cards, so every interval counts a deal as one "
                 "cluster (cluster-robust variance, Cochran 1977 sec. 6.9), with the table combinations as strata; "
                 "where every deal gives the same value the value is exact and the interval has zero width",
    "win_rate, loss_rate": "Wilson interval at the effective number of games (games / design effect, the "
                           "design effect being the cluster-robust variance over the binomial one); per strategy, "
                           "per seat (seats.csv) and per match",
    "mean_place": "1 = first out; t interval with the cluster-robust standard error over deals",
    "rating": "Plackett-Luce log-strength of the finishing orders on the Elo scale (mean 0); interval = +-1.96 se, "
              "the cluster-robust (sandwich) standard error over deals",
    "degenerate": "pairs of entries that are the same deterministic strategy and meet only at tables of copies of "
                  "it: every rotation replays the same game, their share is exactly 0.5 and the comparison cannot "
                  "fail",
    "head_to_head": "share of comparisons (both at the same table) in which a finished ahead of b, ties counted half; "
                    "interval and p-value (H0: share = 0.5) cluster-robust over deals (the rotations of one deal "
                    "are one cluster); p_holm = Holm-corrected over all pairs",
    "matches": "with rounds K > 1: the K games of one table and rotation on K consecutive deals of that table; "
               "summed places, lowest total wins, tied totals share the mean rank",
}


def _check_resume_options(spec, rules, house, rules_file, players, strategies, games, seed, rounds, chunk_size,
                          save_games, seat_orders, load_rules) -> None:
    """Options given with --resume must agree with the stored run (exit 2 naming them)."""
    from shedsim.cli.common import fail
    from shedsim.analysis import tournament as T
    bad = []
    if rules is not None or house or rules_file is not None:
        rs = load_rules(rules or spec.rules_input.get("rules", "shithead"), house, rules_file)
        if rs.to_dict() != spec.rules.to_dict():
            bad.append("--rules/--house/--rules-file")
    if players is not None and players != spec.players:
        bad.append(f"--players ({players} vs stored {spec.players})")
    if strategies is not None:
        try:
            ent = T.parse_entries(strategies)
        except T.TournamentError as e:
            fail(str(e))
        if [s for _, s in ent] != list(spec.entries) or [lab for lab, _ in ent] != list(spec.labels):
            bad.append("--strategies")
    if games is not None and games not in (spec.games_requested, spec.games):
        bad.append(f"--games ({games} vs stored {spec.games_requested})")
    if seed is not None and seed != spec.seed:
        bad.append(f"--seed ({seed} vs stored {spec.seed})")
    if rounds is not None and rounds != spec.rounds:
        bad.append(f"--rounds ({rounds} vs stored {spec.rounds})")
    if chunk_size is not None and chunk_size != spec.chunk_size:
        bad.append(f"--chunk-size ({chunk_size} vs stored {spec.chunk_size})")
    if seat_orders is not None and seat_orders != spec.seat_orders:
        bad.append(f"--seat-orders ({seat_orders} vs stored {spec.seat_orders})")
    if save_games and not spec.save_games:
        bad.append("--save-games (the run started without it)")
    if bad:
        fail("--resume: these options differ from the stored run: " + "; ".join(bad)
             + " (give --resume DIR alone to continue it)")



def _print_table(spec, res, complete: bool) -> None:
    import math
    import sys

    from rich.console import Console
    from rich.table import Table
    s = res.summary
    # a column with one figure on every row says nothing about the strategies: it is said
    # once (the seat-games in the title; the unfinished games in the line under the table)
    per_row = {c: s[c].nunique() > 1 for c in ("games", "unfinished")}
    title = (f"Ranking: {spec.rules.name}, {spec.players} players, {res.info['games']:,} games"
             + ("" if per_row["games"] or s.empty else f", {int(s['games'].iloc[0]):,} seat-games per strategy")
             + ("" if complete else " [PARTIAL: run interrupted]"))
    t = Table(title=title, caption="\\[lo, hi] = 95% intervals, one deal (its rotations) = one cluster (Wilson at the "
                                    "effective size for rates, t for mean place); rating: Plackett-Luce, Elo scale, "
                                    "+- 1.96 cluster-robust se")
    cols = (("#", "right"), ("strategy", "left"), ("games", "right"), ("win rate", "right"),
            ("loss rate", "right"), ("mean place", "right"), ("rating", "right"), ("unfinished", "right"),
            *((("forfeits", "right"),) if "forfeits" in s else ()))
    for col, just in cols:
        if per_row.get(col, True):
            t.add_column(col, justify=just)

    def forfeit_cell(r):  # a run with bots: the games forfeited, and by which kinds of fault
        from shedsim.bot.protocol import FAULTS
        n = getattr(r, "forfeits", 0)
        kinds = [f"{k} {getattr(r, 'forfeits_' + k):,}" for k in FAULTS if getattr(r, "forfeits_" + k, 0)]
        return f"{n:,}" + (f" ({', '.join(kinds)})" if kinds else "")

    def pct(v, lo, hi):
        return "-" if math.isnan(v) else f"{100 * v:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"

    for r in s.itertuples(index=False):
        rating = "-" if math.isnan(r.rating) else f"{r.rating:+.1f} +- {1.96 * r.rating_se:.1f}"
        place = "-" if math.isnan(r.mean_place) else f"{r.mean_place:.3f} [{r.place_lo:.3f}, {r.place_hi:.3f}]"
        cells = {"#": str(r.rank), "strategy": r.strategy, "games": f"{r.games:,}",
                 "win rate": pct(r.win_rate, r.win_lo, r.win_hi), "loss rate": pct(r.loss_rate, r.loss_lo, r.loss_hi),
                 "mean place": place, "rating": rating, "unfinished": f"{r.unfinished:,}",
                 "forfeits": forfeit_cell(r)}
        t.add_row(*(cells[col] for col, _ in cols if per_row.get(col, True)))
    console = Console() if sys.stdout.isatty() else Console(width=150)
    console.print(t)
    if res.matches is not None:
        mt = res.matches
        each = not mt.empty and mt["matches"].nunique() == 1  # every strategy played as many matches
        m = Table(title=f"Match standings ({spec.rounds} rounds, summed places, lowest total wins"
                        + (f"; {int(mt['matches'].iloc[0]):,} matches per strategy)" if each else ")"))
        for col in ("#", "strategy", *(() if each else ("matches",)), "match wins", "mean match place",
                    "mean total places"):
            m.add_column(col, justify="left" if col == "strategy" else "right")
        for r in mt.itertuples(index=False):
            m.add_row(str(r.rank), r.strategy, *(() if each else (f"{r.matches:,}",)),
                      pct(r.match_win_rate, r.match_win_lo, r.match_win_hi),
                      f"{r.mean_match_place:.3f} [{r.match_place_lo:.3f}, {r.match_place_hi:.3f}]",
                      f"{r.mean_total_places:.3f}")
        console.print(m)
