"""``shedsim swaps``: the typer command (registered in :mod:`shedsim.cli`); the study
itself is :mod:`shedsim.analysis.swaps`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import choice_help

_P_RUN = "What to play"
_P_OUT = "Output and execution"


def swaps(
    ctx: typer.Context,
    rules: Annotated[str, typer.Option("--rules", "-r", rich_help_panel=_P_RUN, help="Preset (duel, nines, family, palace, shithead) or a rules TOML file.")] = "shithead",
    house: Annotated[Optional[list[str]], typer.Option("--house", "-H", rich_help_panel=_P_RUN, help="House toggle, repeatable (`shedsim rules list`).")] = None,
    players: Annotated[int, typer.Option("--players", "-p", rich_help_panel=_P_RUN, help="Seats per table.")] = 3,
    strategy: Annotated[Optional[str], typer.Option("--strategy", "-S", rich_help_panel=_P_RUN, help="The play policy S (NAME or NAME:param=v): every seat plays it; its swap is the one studied in (a) and (d) (default: the reference opponent, " + choice_help("reference") + ").")] = None,
    games: Annotated[int, typer.Option("--games", "-g", min=1, rich_help_panel=_P_RUN, help="Games for (a)+(b) and again for (c) (rounded up to whole tournament blocks in (c)).")] = 100_000,
    swap_policy: Annotated[Optional[list[str]], typer.Option("--swap-policy", rich_help_panel=_P_RUN, help="Another strategy whose swap joins the policy comparison (c), repeatable (LABEL=NAME to name it).")] = None,
    deals: Annotated[int, typer.Option("--deals", min=0, rich_help_panel=_P_RUN, help="Sample deals for the regret study (d); 0 skips it.")] = 200,
    rollouts: Annotated[int, typer.Option("--rollouts", min=2, rich_help_panel=_P_RUN, help="Games per face-up choice per deal in (d).")] = 200,
    seat: Annotated[int, typer.Option("--seat", min=0, rich_help_panel=_P_RUN, help="The seat whose choices (d) evaluates.")] = 0,
    min_games: Annotated[int, typer.Option("--min-games", min=1, rich_help_panel=_P_RUN, help="Seat-games a face-up multiset needs to enter the value table (b).")] = 200,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, rich_help_panel=_P_RUN, help="Run seed.")] = 0,
    strategy_path: Annotated[Optional[list[Path]], typer.Option("--strategy-path", rich_help_panel=_P_RUN, help="Extra directory of strategy plugins, repeatable.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", rich_help_panel=_P_OUT, help="Output directory: new, empty, or one holding an earlier shedsim run.")] = Path("reports/swaps"),
    force: Annotated[bool, typer.Option("--force", rich_help_panel=_P_OUT, help="Write into a --out directory that holds other files (never replacing one of them).")] = False,
    resume: Annotated[Optional[Path], typer.Option("--resume", rich_help_panel=_P_OUT, help="Continue the interrupted study in this directory (plays only its missing chunks).")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", min=1, rich_help_panel=_P_OUT, help="Worker processes (default and most: the number of CPUs, fewer when the memory cannot hold them). Results do not depend on it.")] = None,
    no_plots: Annotated[bool, typer.Option("--no-plots", rich_help_panel=_P_OUT, help="Skip the PNG charts (a run started with it stays without them on --resume).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", rich_help_panel=_P_OUT, help="No progress bar and no tables.")] = False,
    stop_after: Annotated[Optional[int], typer.Option("--stop-after", min=0, hidden=True, help="Testing: play at most N chunks, then stop as if interrupted.")] = None,
) -> None:
    """Study the swap phase: which cards belong face up.

    (a) what --strategy puts face up against what it was dealt, by rank; (b) a face-up value table: loss rate and mean place by face-up rank multiset, every seat playing --strategy but keeping its face-up cards as dealt; (c) swap policies head to head with the play policy held fixed (no swap, then each face-up rule the built-in strategies declare: <<swaps>>; and each --swap-policy), paired deals; (d) for --deals sample deals, every distinct face-up choice of one seat scored by --rollouts re-deals of what it cannot see, how often the strategy's choice is the best, and its mean regret in places.

    Writes by_rank.csv, face_up_values.csv, policies.csv, policies_head_to_head.csv, regret.csv, their PNG charts and run.json into --out.

    Example: shedsim swaps --rules shithead --players 3 --strategy greedy --games 200000

    Ctrl-C (or SIGTERM) keeps every finished chunk (the reports need the whole study, so none is written); --resume DIR continues, also after a killed run, to the same files as an uninterrupted run.

    Exit codes: 0 done; 1 a strategy failed; 2 bad options, or a --out directory in use or holding other files (nothing is written); 3 a file could not be written; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).
    """  # noqa: E501
    import json
    import json
    import time

    from shedsim.analysis import swaps as SW
    from shedsim.analysis import swaps_run as R
    from shedsim.analysis import tournament as T
    from shedsim.cli.common import fail, given_on_command_line, load_rules
    from shedsim.rules.ruleset import RulesError
    from shedsim.runs import atomic
    from shedsim.runs.execute import RunError, Session

    t0 = time.perf_counter()
    paths = tuple(str(p) for p in strategy_path or [])
    if resume is not None:
        given = given_on_command_line(ctx, (
            "rules", "house", "players", "strategy", "games", "swap_policy", "deals", "rollouts",
            "seat", "min_games", "seed", "strategy_path", "out"))
        if given:
            fail(f"--resume: {', '.join('--' + n.replace('_', '-') for n in given)} cannot be given with --resume: "
                 f"the stored study decides them (give --resume DIR alone to continue it)")
        out = resume
        spec, rules_input = None, None
    else:
        rs = load_rules(rules, house, None)
        try:
            policies = list(SW.default_policies())
            strategy = SW.default_strategy() if strategy is None else strategy
            for item in swap_policy or []:
                eq, colon = item.find("="), item.find(":")
                if eq > 0 and (colon < 0 or eq < colon):  # LABEL=SPEC (a spec's own "=" follows its ":")
                    policies.append((item[:eq].strip(), item[eq + 1:].strip()))
                else:
                    policies.append((item.strip(), item.strip()))
            spec = SW.StudySpec(rs, players, strategy, games=games, seed=seed, policies=tuple(policies), deals=deals,
                                rollouts=rollouts, seat=seat, min_games=min_games, strategy_paths=paths)
            SW.check(spec)
        except (SW.SwapStudyError, RulesError, T.TournamentError) as e:
            fail(str(e))
        rules_input = {"rules": rules, "house": list(house or [])}

    from rich.console import Console
    err = Console(stderr=True)
    store = R.SwapsStore(out)
    session = Session("swaps", store, resume=resume is not None, outputs=R.OUTPUTS, force=force, quiet=quiet,
                      console=err, plots=not no_plots)
    with session:
        try:
            session.open()  # --out safety and the directory's lock
            if resume is not None:
                spec, rules_input = R.spec_from_store(store, paths if strategy_path else None)
            job = R.SwapsJob(spec, rules_input)
            if resume is not None:
                from shedsim.runs.execute import done_chunks
                done_chunks(job, store, strict=True)  # a damaged or foreign chunk file: refuse, change nothing
        except RunError as e:
            fail(e.message, e.code)
        except (SW.SwapStudyError, RulesError) as e:
            fail(str(e))
        try:
            outcome, workers = session.run(job, workers, "loky", None, stop_after)
        except RunError as e:
            fail(e.message, e.code)
        if outcome.interrupted:
            how = "terminated (SIGTERM)" if outcome.stopped_by == "SIGTERM" else "interrupted"
            fail(f"{how}: {len(outcome.done)} of {job.n_chunks} chunks finished and kept in {str(out)}; the reports "
                 f"need the whole study, so none was written; continue with: shedsim swaps --resume {str(out)}",
                 session.exit_code(outcome))
        with session.deferred():
            res = job.results(store)
        rs = spec.rules
        policies = spec.policies
        headline = SW.headline(spec, res)
        info = session.run_info(
            job, outcome, workers, "loky", command="shedsim swaps",
            title=f"Swap-phase study: {rs.name}, {spec.players} players, {spec.strategy}",
            rules=rs.name, house=list(rs.house), players=spec.players, strategy=spec.strategy, games=spec.games,
            policy_games=int(res.policies.info["games"]), deals=spec.deals, rollouts=spec.rollouts,
            seat=spec.seat, min_games=spec.min_games,
            swap_policies={lab: (src or "keep as dealt") for lab, src in policies},
            face_up_multisets={"seen": len(res.values_all), "in_table": len(res.values)},
            regret=res.regret_summary, headline=headline, definitions=SW.DEFINITIONS)
        info["wall_s"] = round(time.perf_counter() - t0, 2)
        with session.deferred():  # the outputs are written as one set
            try:
                files = R.write_outputs(spec, res, out, plots=session.plots, info=info)
            except atomic.WriteError as e:
                fail(f"{e} (no report was written or changed; the chunks are kept in {str(out)}: "
                     f"shedsim swaps --resume {str(out)} writes them)", 3)
    if not quiet:
        from rich.table import Table
        tab = Table(title="Swap policies (play policy fixed)")
        for c in ("policy", "loss rate [95%]", "mean place", "rating (Elo)"):
            tab.add_column(c)
        for _, r in res.policies.summary.iterrows():
            tab.add_row(str(r["strategy"]), f"{r['loss_rate']:.1%} [{r['loss_lo']:.1%}, {r['loss_hi']:.1%}]",
                        f"{r['mean_place']:.3f}", f"{r['rating']:+.0f}")
        Console().print(tab)
        for h in headline:
            Console().print(f"- {h}")
        err.print(f"wrote {len(files)} files to {json.dumps(str(out))} in {time.perf_counter() - t0:.1f} s")
