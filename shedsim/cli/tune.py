"""``shedsim tune``: the typer command (registered in :mod:`shedsim.cli`). The search,
the confirmation and the outputs live in :mod:`shedsim.analysis.tune`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import BotOpt

from shedsim.cli.common import choice_help

SAMPLER_SEED_MAX = 2**32 - 1
"""The largest seed optuna's samplers accept (numpy's legacy ``RandomState``)."""
_P_RUN = "What to tune"
_P_SEARCH = "The search"
_P_OUT = "Output"
TUNE_OUTPUTS = ("best.toml", "trials.csv", "history.png", "importance.png", "run.json")
"""The reports tune writes into --out (the study, study.db, is opened there, not replaced): a file of
these names that shedsim did not write is never replaced."""


def tune(
    strategy: Annotated[Optional[str], typer.Option("--strategy", "-S", rich_help_panel=_P_RUN, help="The strategy and its starting parameters: NAME or NAME:param=v (parameters given here stay fixed; default: " + choice_help("tunable") + ").")] = None,
    field: Annotated[Optional[str], typer.Option("--field", "-F", rich_help_panel=_P_RUN, help="Comma-separated opponents (NAME or NAME:param=v); default: the reference opponent, " + choice_help("reference") + ", and the strategy with its starting parameters.")] = None,
    rules: Annotated[str, typer.Option("--rules", "-r", rich_help_panel=_P_RUN, help="Preset: duel, nines, family, palace, shithead; or a rules .toml file.")] = "shithead",
    house: Annotated[Optional[list[str]], typer.Option("--house", "-H", rich_help_panel=_P_RUN, help="House toggle, repeatable (`shedsim rules list`).")] = None,
    rules_file: Annotated[Optional[Path], typer.Option("--rules-file", rich_help_panel=_P_RUN, help="A rules TOML file; overrides --rules.")] = None,
    players: Annotated[int, typer.Option("--players", "-p", rich_help_panel=_P_RUN, help="Seats: the candidate takes one, the field entry the others.")] = 2,
    strategy_path: Annotated[Optional[list[Path]], typer.Option("--strategy-path", rich_help_panel=_P_RUN, help="Extra directory of strategy plugins, repeatable.")] = None,
    bot: BotOpt = None,
    budget: Annotated[int, typer.Option("--budget", "-b", rich_help_panel=_P_SEARCH, help="Completed trials the study should hold (earlier runs and other processes count).")] = 50,
    games: Annotated[int, typer.Option("--games", "-g", rich_help_panel=_P_SEARCH, help="Games per trial and field entry (whole deals; the same deals in every trial).")] = 4000,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, max=SAMPLER_SEED_MAX, rich_help_panel=_P_SEARCH, help="Run seed: the deals of every trial and the sampler's seed (optuna's samplers take 0 to 4294967295).")] = 0,
    param: Annotated[Optional[list[str]], typer.Option("--param", rich_help_panel=_P_SEARCH, help="Tune this parameter in this range, NAME=LO:HI or NAME=LO:HI:log, repeatable, inside the parameter's declared range (`shedsim strategies`); only the parameters named are tuned (default: all in the plugin's PARAM_SPACE).")] = None,
    sampler: Annotated[str, typer.Option("--sampler", rich_help_panel=_P_SEARCH, help="tpe (optuna's Tree-structured Parzen Estimator) or random.")] = "tpe",
    confirm_games: Annotated[int, typer.Option("--confirm-games", min=0, rich_help_panel=_P_SEARCH, help="Games per match of the confirmation on fresh deals (0: skip it).")] = 20_000,
    out: Annotated[Path, typer.Option("--out", "-o", rich_help_panel=_P_OUT, help="Output directory; holds the study (study.db) unless --storage is given. A file there that shedsim did not write is never replaced.")] = Path("reports/tune"),
    storage: Annotated[Optional[str], typer.Option("--storage", rich_help_panel=_P_OUT, help="An optuna storage URL for the study (default: sqlite:///OUT/study.db).")] = None,
    study_name: Annotated[str, typer.Option("--study-name", rich_help_panel=_P_OUT, help="Name of the study in the storage.")] = "shedsim-tune",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", rich_help_panel=_P_OUT, help="No progress bar.")] = False,
) -> None:
    """Tune a strategy's integer parameters against a field of opponents (optuna).

    Each trial plays the candidate parameters head to head against every field entry on paired deals (each deal under every rotation); its score is the share of other seats it finished ahead of, averaged over the field. Every trial plays the same deals (common random numbers), so trials differ by their parameters, not by their cards. optuna's TPE sampler proposes the next parameters; the first trial is the starting parameters.

    The study is stored (SQLite in --out by default): run the same command again to resume after Ctrl-C or a kill (a trial a killed process left running is marked failed), raise --budget to go on, or start the same command in several terminals, also at the same moment, to share the work. A stored study of other options is refused.

    At the end the best parameters are confirmed on fresh deals, against the starting parameters head to head and against the field, with 95% intervals: the in-sample best score overstates the gain (winner's curse).

    Writes best.toml (the parameters and the spec, NAME:param=v,..., accepted by every command), trials.csv, history.png, importance.png and run.json.

    Exit codes: 0 done; 1 a strategy failed; 2 bad options or a study of other options; 3 a file could not be written; 130 interrupted (Ctrl-C finishes the trial in progress, a second Ctrl-C stops at once; the completed trials are kept); 143 terminated (SIGTERM, likewise).

    Examples: shedsim tune --budget 12 --games 4000;  shedsim tune --strategy heuristic:search=0 --players 4 --budget 100;  shedsim tune --param track=0:50 --param block=0:4 --budget 30
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim.analysis import tune as TU
    from shedsim.analysis.tournament import Store, TournamentError
    from shedsim.rules.ruleset import RulesError, build

    paths = tuple(str(p) for p in strategy_path or [])
    try:
        rs = build(rules, house or [], rules_file)
    except RulesError as e:
        fail(str(e))
    try:
        from shedsim.plugins import PluginError, choice, parse_spec
        try:
            strategy = choice("tunable")[0] if strategy is None else strategy
            name, fixed = parse_spec(strategy)
        except PluginError as e:
            raise TU.TuneError(f"--strategy: {e}") from None
        if field is None:
            try:
                entries = (choice("reference")[0], strategy)
            except PluginError as e:
                raise TU.TuneError(f"--field: {e}") from None
        else:
            from shedsim.cli.common import bot_entries, bot_spec
            bots = bot_entries(bot)  # --field LABEL of a --bot LABEL=COMMAND: that bot
            entries = tuple(bot_spec(x.strip(), bots) for x in field.split(",") if x.strip())
        spec = TU.TuneSpec(strategy, entries, rs, players, games, seed, tuple(param or []), sampler, paths)
        if budget < 1:
            raise TU.TuneError(f"--budget: at least 1 trial, got {budget}")
        from shedsim.runs.limits import game_bytes, memory_problem
        for opt, n in (("--games", games), ("--confirm-games", confirm_games)):  # one kernel call holds them all
            problem = memory_problem(opt, n, "games", game_bytes(players), "at once (one kernel call per match)")
            if problem:
                raise TU.TuneError(problem)
        Store.check_out(out, TUNE_OUTPUTS, force_option=None)  # never replaces a file of yours
        Store.check_writable(out)
        url = storage or f"sqlite:///{(out / 'study.db').resolve()}"
        study = TU.open_study(spec, url, study_name)
    except (TU.TuneError, TournamentError) as e:
        fail(str(e))

    from rich.console import Console
    err = Console(stderr=True)
    before = len(TU.completed(study))
    if not quiet:
        tuned = ", ".join(p.name for p in spec.space)
        err.print(f"tune {spec.name} against {', '.join(spec.field)}: {spec.rules_name}, {players} players, "
                  f"{games:,} games per trial and entry; {before} of {budget} trials done; tuning {tuned}",
                  highlight=False, markup=False)
    progress = None
    if not quiet:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        progress = Progress(TextColumn("[bold]trials"), BarColumn(bar_width=20), MofNCompleteColumn(),
                            TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=err)
    # Ctrl-C or SIGTERM lets the trial in progress finish and starts no other (optuna can
    # fail while recording a trial cut short); a second signal stops at once.
    from shedsim.runs.execute import Session
    session = Session("tune", None, soft=True, quiet=quiet, console=err)
    with session:
        _tune(spec, study, budget, url, out, progress, before, quiet, err, session, confirm_games, players, games,
              seed, study_name, paths)


def _tune(spec, study, budget, url, out, progress, before, quiet, err, session, confirm_games, players, games, seed,
          study_name, paths) -> None:
    """The trials, the confirmation and the reports, inside the :class:`shedsim.runs.execute.Session`
    that handles SIGINT and SIGTERM."""
    import time

    from shedsim.analysis import tune as TU
    from shedsim.analysis.sprt import SPRTError
    from shedsim.runs.execute import RunError
    from shedsim.runs.simulate import SimulationError

    def stopped(what: str) -> str:
        return ("terminated (SIGTERM)" if session.got_signal == "SIGTERM" else "interrupted") + what

    t_play = time.perf_counter()
    try:
        if progress is not None:
            with progress:
                task = progress.add_task("trials", total=budget, completed=min(before, budget), info="")
                TU.run_trials(spec, study, budget, lambda n, v, best: progress.update(
                    task, completed=min(n, budget), info=f"last {v:.4f}  best {best:.4f}"),
                    lambda: session.got_signal is not None, url)
        else:
            TU.run_trials(spec, study, budget, should_stop=lambda: session.got_signal is not None, url=url)
        if session.got_signal is not None:
            raise KeyboardInterrupt
    except (TU.TuneError, SPRTError) as e:
        fail(str(e))
    except SimulationError as e:
        fail(str(e), 1)
    except KeyboardInterrupt:
        n = len(TU.completed(study))
        fail(stopped(f": {n} completed trials are kept in {url}; run the same command again to resume"),
             session.signal_code())
    play_s = time.perf_counter() - t_play

    done = TU.completed(study)
    best_t = max(done, key=lambda t: (t.value, -t.number))
    best = {p.name: int(best_t.params[p.name]) for p in spec.space}
    start_t = next((t for t in done if all(t.params.get(p.name) == spec.start[p.name] for p in spec.space)), None)
    start_score = float(start_t.value) if start_t is not None else float("nan")
    conf = None
    if confirm_games > 0:
        if not quiet:
            err.print(f"confirming the best trial ({best_t.number}) on fresh deals ...", highlight=False)
        try:
            session.soft = False  # the confirmation stops at the first signal (one since the trials, too)
            if session.got_signal is not None:
                raise KeyboardInterrupt
            conf = TU.confirm(spec, best, confirm_games)
            session.finishing()  # a signal from now on lets the reports be written
        except SPRTError as e:
            fail(str(e))
        except SimulationError as e:
            fail(str(e), 1)
        except KeyboardInterrupt:
            fail(stopped(" during the confirmation: the study is kept; run the same command again"),
                 session.signal_code())
    session.finishing()  # a signal from now on lets the reports be written

    best_spec = TU.format_spec(spec.name, {**spec.start, **best})
    table = TU.trials_table(study, spec)
    imp = TU.importances(study)
    sub = f"{spec.name} vs {', '.join(spec.field)}; {spec.rules_name}, {players} players, {games:,} games per trial"
    headline = [f"best of {len(done)} trials (trial {best_t.number}): score {best_t.value:.4f} in-sample, "
                f"starting parameters {start_score:.4f}",
                f"best spec: {best_spec}"]
    if conf is not None:
        e, elo_lo, elo_hi = conf.h2h_elo
        headline += [f"fresh deals, head to head against the starting parameters: score {conf.h2h_score:.4f} "
                     f"[{conf.h2h_lo:.4f}, {conf.h2h_hi:.4f}], Elo {e:+.1f} [{elo_lo:+.1f}, {elo_hi:+.1f}] "
                     f"({conf.games:,} games)",
                     f"fresh deals, gain against the field: {conf.gain:+.4f} [{conf.gain_lo:+.4f}, "
                     f"{conf.gain_hi:+.4f}] (best {conf.field_best:.4f}, start {conf.field_start:.4f})"]
    from shedsim.runs.execute import command_line
    info = session.info(
        "shedsim tune", {**spec.key(), "budget": budget, "storage": url, "study_name": study_name,
                         "confirm_games": confirm_games, "strategy_paths": list(paths)}, seed,
        play_s=play_s, argv=command_line(),
        title=f"Tuning {spec.name} against {', '.join(spec.field)} ({spec.rules_name}, {players} players)",
        headline=headline, definitions=TU.DEFINITIONS,
        result={"trials": len(done), "best_trial": best_t.number, "best_score": best_t.value,
                "start_score": start_score, "best_params": best, "best_spec": best_spec, "importance": imp,
                "confirm": None if conf is None else {**conf.__dict__, "h2h_elo": list(conf.h2h_elo)}})
    from shedsim.runs import atomic
    from shedsim.analysis.tournament import write_csv

    def write() -> list[str]:
        atomic.write_text(out / "best.toml", TU.best_toml(spec, best, best_t.number, float(best_t.value),
                                                          start_score, len(done), conf))
        write_csv(table, out / "trials.csv")
        TU.plot_history(table, start_score, out / "history.png", sub)
        TU.plot_importance(imp, out / "importance.png", sub)
        return ["best.toml", "trials.csv", "history.png", "importance.png"]

    try:
        session.write_files(out, write, info)
    except RunError as e:
        fail(e.message.replace("(no file was written)", "(no file was written; the study is kept)"), e.code)
    typer.echo("\n".join(headline))
    if not quiet:
        typer.echo(f"wrote best.toml, trials.csv, history.png, importance.png, run.json to {out}")


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` to stderr and exit with ``code`` (as :func:`shedsim.cli.fail`)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)
