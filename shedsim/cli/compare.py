"""``shedsim compare-rules``: the typer command (registered in :mod:`shedsim.cli`).

Only typer and the standard library are imported at module level, so ``shedsim --help``
stays fast; the simulation, statistics and plotting libraries are imported inside the
command. The work is done by :mod:`shedsim.analysis.compare`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import BotOpt, choice_help

_P_RUN = "What to compare"
_P_OUT = "Output and execution"


def compare_rules(
    rules: Annotated[Optional[list[str]], typer.Option("--rules", "-r", rich_help_panel=_P_RUN, help="Rule variant, repeatable: a preset (duel, nines, family, palace, shithead) or a rules .toml file, optionally with +toggle parts (shithead+skip8, palace+pickup:never). The first variant that allows --players is the baseline; a variant given twice gets #2 (an A/A comparison).")] = None,
    house: Annotated[Optional[list[str]], typer.Option("--house", "-H", rich_help_panel=_P_RUN, help="House toggle applied to every variant, repeatable (`shedsim rules list`).")] = None,
    each_toggle: Annotated[bool, typer.Option("--each-toggle", rich_help_panel=_P_RUN, help="With one --rules X: compare X with X+T for every house toggle T that changes X at --players (every flag toggle; invisible:3/8/9, reverse:K and stall:0; the pick-up and stalemate modes other than X's; the integer toggles such as hand_size one below and above; max_moves left out: `shedsim rules list` lists them all). Skipped toggles are listed with the reason.")] = False,
    players: Annotated[Optional[int], typer.Option("--players", "-p", rich_help_panel=_P_RUN, help="Seats per table; variants that do not allow it are skipped with a note (default: 4).")] = None,
    strategies: Annotated[Optional[str], typer.Option("--strategies", "-S", rich_help_panel=_P_RUN, help="Comma-separated entries seated at every variant's tables: NAME, NAME:param=v, LABEL=SPEC or @ROLE (as the tournament's --strategies) (default: " + choice_help("compare") + ").")] = None,
    games: Annotated[Optional[int], typer.Option("--games", "-g", min=1, rich_help_panel=_P_RUN, help="Games per variant, rounded up to whole blocks (every table x every rotation) (default: 100000).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", "-s", min=0, rich_help_panel=_P_RUN, help="Run seed: the same seed gives the same deals in every variant (default: 0).")] = None,
    strategy_path: Annotated[Optional[list[Path]], typer.Option("--strategy-path", rich_help_panel=_P_RUN, help="Extra directory of strategy plugins, repeatable.")] = None,
    bot: BotOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", rich_help_panel=_P_OUT, help="Output directory (default: reports/compare).")] = None,
    resume: Annotated[Optional[Path], typer.Option("--resume", rich_help_panel=_P_OUT, help="Continue the interrupted comparison in this directory (plays only its missing chunks).")] = None,
    force: Annotated[bool, typer.Option("--force", rich_help_panel=_P_OUT, help="Write into a --out directory that holds other files (never replacing one of them).")] = False,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", min=1, rich_help_panel=_P_OUT, help="Worker processes (default and most: the number of CPUs, fewer when the memory cannot hold them). Results do not depend on it.")] = None,
    backend: Annotated[str, typer.Option("--backend", rich_help_panel=_P_OUT, help="loky (local processes), dask (a local dask cluster, or the cluster at --scheduler) or ray. Results do not depend on it.")] = "loky",
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", rich_help_panel=_P_OUT, help="Address of a running cluster for --backend dask (tcp://HOST:8786) or ray (HOST:6379).")] = None,
    no_plots: Annotated[bool, typer.Option("--no-plots", rich_help_panel=_P_OUT, help="Skip the PNG charts (a run started with it stays without them on --resume).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", rich_help_panel=_P_OUT, help="No progress bar, notes or tables (errors are still reported).")] = False,
    stop_after: Annotated[Optional[int], typer.Option("--stop-after", min=0, hidden=True, help="Testing: play at most N chunks, then stop as if interrupted.")] = None,
) -> None:
    """Compare rule variants: game length, unfinished games, pick-ups, burns, the starting player's fairness and each strategy's skill edge over random (random's loss rate minus the strategy's: positive = better than random), each variant against the first (the baseline).

    Every variant plays the same strategies on the same schedule and seed: game g has the same seating and dealer in every variant and, when the variants deal alike (same decks, hand_size, table_size), the same cards, with independent strategy randomness ("paired" variants). Statistics use the deal (its N rotations) as the unit: intervals are 95%, tests are Wilcoxon / paired t on per-deal differences (paired) or Mann-Whitney within tables / Welch t on per-deal values (unpaired), with the schedule's tables as strata, Holm-corrected over all comparisons.

    Writes variants.csv, effects.csv, lengths.csv, forest.png, lengths.png and run.json into --out and prints the variants and the significant effects.

    Examples: shedsim compare-rules -r shithead -r shithead+pickup:always -r shithead+skip8 --games 50000; shedsim compare-rules -r duel -r shithead -r palace -p 2; shedsim compare-rules -r shithead --each-toggle -o reports/toggles.

    Ctrl-C (or SIGTERM) keeps every finished chunk and writes the results of the deals finished in every variant; --resume DIR continues (also after a killed run) to the same files as an uninterrupted run. --out must be a new or empty directory or one holding an earlier shedsim run.

    Exit codes: 0 done; 1 a strategy or worker failed; 2 bad options or input, or a directory in use or holding other files (nothing is written); 3 a file could not be written (finished chunks are kept); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim.analysis import compare as C
    from shedsim.analysis import compare_run as R
    from shedsim.analysis import tournament as T
    from shedsim.cli.common import bot_entries, fail, with_bots
    from shedsim.runs import simulate
    from shedsim.runs.execute import RunError, Session

    paths = tuple(str(p) for p in strategy_path or [])
    try:
        simulate.check_backend(backend, scheduler)
    except (ValueError, simulate.BackendError) as e:
        fail(str(e))
    spec = None
    if resume is not None:
        root = resume
        if out is not None and out.resolve() != resume.resolve():
            fail(f"--out {str(out)!r} and --resume {str(resume)!r} differ: a resumed run writes into its own directory")
        given = [o for o, v in (("--rules", rules), ("--house", house), ("--each-toggle", each_toggle),
                                ("--players", players), ("--strategies", strategies), ("--games", games),
                                ("--seed", seed), ("--strategy-path", strategy_path), ("--bot", bot)) if v]
        if given:
            fail(f"--resume: {', '.join(given)} cannot be given with --resume: the stored run decides them "
                 f"(give --resume DIR alone to continue it)")
    else:
        root = Path(C.DEFAULT_OUT) if out is None else out
        n_players = C.DEFAULT_PLAYERS if players is None else players
        try:
            entries = T.parse_entries("@compare" if strategies is None else strategies)
            entries = with_bots(entries, bot_entries(bot))
            spec = R.plan(list(rules or []), list(house or []), n_players, each_toggle, entries,
                          C.DEFAULT_GAMES if games is None else games, seed=0 if seed is None else seed,
                          strategy_paths=paths)
        except (C.CompareError, T.TournamentError) as e:
            fail(str(e))

    from rich.console import Console
    err = Console(stderr=True)
    say = (lambda *a, **k: None) if quiet else err.print
    store = R.CompareStore(root)
    session = Session("compare-rules", store, resume=resume is not None, outputs=R.OUTPUTS, force=force,
                      quiet=quiet, console=err, plots=not no_plots)
    with session:
        try:
            session.open()
            if resume is not None:
                spec = R.spec_from_store(store, paths if strategy_path else None)
            job = R.CompareJob(spec)
            if resume is not None:
                from shedsim.runs.execute import done_chunks
                done_chunks(job, store, strict=True)  # a damaged or foreign chunk file: refuse, change nothing
        except RunError as e:
            fail(e.message, e.code)
        except C.CompareError as e:
            fail(str(e))
        plan = spec.plan
        for s in plan.skipped:
            say(f"[yellow]note:[/] skipped {s['variant']}: {s['reason']}")
        base = plan.variants[0]
        say(f"baseline {base.label}; {len(plan.variants)} variants at {spec.players} players; "
            + ", ".join(f"{v.label} ({'paired' if C.deal_alike(base.rules, v.rules) else 'unpaired'})"
                        for v in plan.variants[1:]))
        if spec.games != spec.games_requested:
            say(f"[yellow]note:[/] --games {spec.games_requested:,} rounded up to {spec.games:,} per variant: whole "
                f"blocks of {spec.block:,} games (every table x every rotation)")

        try:
            outcome, workers = session.run(job, workers, backend, scheduler, stop_after)
        except RunError as e:
            fail(e.message, e.code)

        with session.deferred():  # a signal now only stops after the reports are written
            try:
                tallies = job.tallies(store, outcome.done)
            except OSError as e:
                fail(f"cannot read the run store {str(root)!r}: {e}", 3)
            res = None if tallies is None else R.analyse(job, tallies, outcome.play_s, outcome.played_now)
        if res is None:
            fail(f"interrupted before any deal was finished in every variant: no results to write; "
                 f"{len(outcome.done)} of {job.n_chunks} chunks are kept in {str(root)}; continue with: "
                 f"shedsim compare-rules --resume {str(root)}", session.exit_code(outcome))
        games_done = int(tallies[0].done.sum()) * spec.players
        from shedsim.runs.execute import command_line
        extra = C.run_info(res, {"argv": command_line(), "each_toggle": spec.each_toggle})
        for k in ("play_s", "games_per_s"):  # this session's; run_info gives them over all sessions
            extra.pop(k, None)
        info = session.run_info(job, outcome, workers, backend, command=extra.pop("command"),
                                store_spec=job.spec_json, games_in_results=games_done, **extra)
        try:
            files = session.write_reports(job, outcome, lambda: R.write_outputs(res, root, plots=session.plots), info)
        except RunError as e:
            fail(e.message, e.code)

    if not quiet:
        _print_tables(res)
        typer.echo(f"{spec.games:,} games per variant x {len(plan.variants)} variants in {res.info['play_s']:.1f} s "
                   f"({res.info['games_per_s'] or 0:,.0f} games/s); wrote {', '.join(files + ['run.json'])} "
                   f"to {str(root)}")
    if outcome.interrupted:
        typer.echo(session.stop_message(job, outcome, games_done), err=True)
        raise typer.Exit(session.exit_code(outcome))


def _print_tables(res) -> None:
    """The variants and the significant effects as rich tables on stdout."""
    import math
    import sys

    from rich.console import Console
    from rich.table import Table

    from shedsim.analysis import compare as C
    console = Console() if sys.stdout.isatty() else Console(width=160)
    v = res.variants
    labels = res.info["labels"]
    ref = res.info["reference_strategy"]
    edges = [lab for lab in labels if lab != ref]
    def pct(x, lo, hi):
        return "-" if math.isnan(x) else f"{100 * x:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"

    def name(r):
        return r["variant"] + (" (baseline)" if r["baseline"] else "" if r["paired"] else " (unpaired)")

    rows = v.to_dict("records")
    n = res.info["players"]
    each = len(rows) > 0 and v["deals"].nunique() == 1  # the same deals in every variant: said once, in the title
    t = Table(title=f"Game length: {C.title(res)}" + (f", {rows[0]['deals']:,} deals per variant" if each else "")
                    + f"\n{C.subtitle(res)}",
              caption=f"\\[lo, hi] = 95% intervals over deals; a round is {n} moves; unfinished = stopped: stalled, proven loop or move cap")
    ends = "stalled" in v.columns
    for col in ("variant", *(() if each else ("deals",)), "mean moves", "mean rounds", "median moves",
                "95th pct moves", "unfinished", *(("stalled / loops / cap",) if ends else ())):
        t.add_column(col, justify="left" if col == "variant" else "right")
    for r in rows:
        t.add_row(name(r), *(() if each else (f"{r['deals']:,}",)),
                  f"{r['mean_moves']:.1f} [{r['mean_moves_lo']:.1f}, {r['mean_moves_hi']:.1f}]",
                  f"{r['mean_rounds']:.1f} [{r['mean_rounds_lo']:.1f}, {r['mean_rounds_hi']:.1f}]",
                  f"{r['median_moves']:.0f} [{r['median_moves_lo']:.0f}, {r['median_moves_hi']:.0f}]",
                  f"{r['p95_moves']:.0f} [{r['p95_moves_lo']:.0f}, {r['p95_moves_hi']:.0f}]",
                  pct(r["unfinished_rate"], r["unfinished_lo"], r["unfinished_hi"]),
                  *((f"{r['stalled']:,} / {r['loops']:,} / {r['capped']:,}",) if ends else ()))
    console.print(t)
    t = Table(title="Play and fairness",
              caption=f"starter loss: the starting seat's loss rate, against its fair share (1/{n} of the games with a "
                      f"loser), Holm p over the variants; favoured = loses less often than that; "
                      f"edge: skill edge over {ref}, {ref}'s loss rate minus the strategy's, percentage points "
                      f"(positive = the strategy does better than {ref})")
    for col in ("variant", "pick-ups/game", "burns/game", "starter loss", "fair share", "starter", "p (Holm)",
                *[f"edge {g}" for g in edges]):
        t.add_column(col, justify="left" if col == "variant" else "right")
    for r in rows:
        t.add_row(name(r),
                  f"{r['pickups_per_game']:.2f} [{r['pickups_per_game_lo']:.2f}, {r['pickups_per_game_hi']:.2f}]",
                  f"{r['burns_per_game']:.2f} [{r['burns_per_game_lo']:.2f}, {r['burns_per_game_hi']:.2f}]",
                  pct(r["starter_loss_rate"], r["starter_loss_lo"], r["starter_loss_hi"]),
                  f"{100 * r['starter_fair_rate']:.2f}%", r["starter_verdict"], C.format_p(r["starter_loss_p_holm"]),
                  *[f"{100 * r[f'skill_edge[{g}]']:+.1f} [{100 * r[f'skill_edge_lo[{g}]']:+.1f}, "
                    f"{100 * r[f'skill_edge_hi[{g}]']:+.1f}]" for g in edges])
    console.print(t)
    e = res.effects
    sig = e[e["significant"] | e["significant_rank"] | e["significant_median"]]
    if sig.empty:
        console.print(f"No significant difference from the baseline {res.info['baseline']} "
                      f"({len(e)} comparisons, Holm-corrected 5%).")
        for line in res.headline():
            console.print(f"- {line}", highlight=False)
        return
    s = Table(title=f"Significant effects vs {res.info['baseline']} ({len(sig)} of {len(e)} comparisons "
                    f"significant by any of their tests, Holm-corrected 5% over every test)",
              caption="p (Holm): the effect's test; typical: the median test (game length) and the rank test, "
                      "each with its direction and Holm p")
    for col in ("variant", "metric", "baseline", "variant value", "effect [95% interval]", "test", "p (Holm)",
                "typical"):
        s.add_column(col, justify="left" if col in ("variant", "metric", "test", "typical") else "right")

    def val(metric, x):
        if metric == "mean_moves":
            return f"{x:.1f}"
        if metric.endswith("_rate") or metric.startswith("skill_edge["):
            return f"{100 * x:.2f}%"
        return f"{x:.3f}"

    def typical(r):
        up, down = ("longer", "shorter") if r["metric"] == "mean_moves" else ("higher", "lower")
        out = []
        if r["p_median"] == r["p_median"]:
            way = up if r["median_shift"] > 0 else down if r["median_shift"] < 0 else "same"
            out.append(f"median {r['median_baseline']:.0f} -> {r['median_variant']:.0f}: {way} "
                       f"(p {C.format_p(r['p_median_holm'])})")
        if r["p_rank"] == r["p_rank"]:
            way = up if r["rank_direction"] > 0 else down if r["rank_direction"] < 0 else "same"
            out.append(f"rank test: {way} (p {C.format_p(r['p_rank_holm'])})")
        return "; ".join(out) or "-"

    for r in sig.to_dict("records"):
        s.add_row(r["variant"], C.metric_title(r["metric"]), val(r["metric"], r["baseline_value"]),
                  val(r["metric"], r["variant_value"]), C.format_effect(r["metric"], r["effect"], r["lo"], r["hi"]),
                  r["test"].split(" (")[0], C.format_p(r["p_holm"]), typical(r))
    console.print(s)
    console.print("Findings:")
    for line in res.headline():
        console.print(f"- {line}", highlight=False)
