"""``shedsim gauntlet``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.gauntlet` -> the table printed. The games and statistics live in
:mod:`shedsim.analysis.gauntlet` and :mod:`shedsim.analysis.gauntlet_run`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

import shedsim.cli.options as O

_P_RUN = O.P_RUN
PlayersOpt = O.players_option("Seats: the candidate takes one, the opponent all the others", 2)
OutOpt = O.out_option(None, " (gauntlet.csv: the table; gauntlet.png, run.json)")


def gauntlet(
    ctx: typer.Context,
    candidate: Annotated[
        Optional[str],
        typer.Option(
            "--candidate",
            "-c",
            rich_help_panel=_P_RUN,
            help=(
                "The strategy measured: NAME, NAME:param=v, or the LABEL of a --bot (required, "
                "unless --resume)."
            ),
        ),
    ] = None,
    opponents: Annotated[
        Optional[str],
        typer.Option(
            "--opponents",
            rich_help_panel=_P_RUN,
            help=(
                "Comma-separated opponents, each met on its own: NAME, NAME:param=v, "
                "LABEL=SPEC, or the LABEL of a --bot (required, unless --resume)."
            ),
        ),
    ] = None,
    rules: O.OptionalRulesOpt = None,
    house: O.HouseOpt = None,
    rules_file: O.RulesFileOpt = None,
    players: PlayersOpt = None,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-g",
            min=1,
            rich_help_panel=_P_RUN,
            help=(
                "Games per opponent (whole deals, each under every rotation of the seats); "
                "with --sprt, the most (default: 2000)."
            ),
        ),
    ] = None,
    seed: Annotated[
        Optional[int],
        typer.Option(
            "--seed",
            "-s",
            min=0,
            rich_help_panel=_P_RUN,
            help="Run seed: every opponent meets the same deals (default: 0).",
        ),
    ] = None,
    sprt: Annotated[
        Optional[str],
        typer.Option(
            "--sprt",
            metavar="ELO0,ELO1",
            rich_help_panel=_P_RUN,
            help=(
                "Also run an SPRT per opponent (H0: candidate - opponent = ELO0 Elo against "
                "H1: = ELO1), stopping that opponent's games at its decision."
            ),
        ),
    ] = None,
    alpha: Annotated[
        Optional[float],
        typer.Option(
            "--alpha",
            rich_help_panel=_P_RUN,
            help="With --sprt: the chance of accepting H1 when H0 holds (default: 0.05).",
        ),
    ] = None,
    beta: Annotated[
        Optional[float],
        typer.Option(
            "--beta",
            rich_help_panel=_P_RUN,
            help="With --sprt: the chance of accepting H0 when H1 holds (default: 0.05).",
        ),
    ] = None,
    batch: Annotated[
        Optional[int],
        typer.Option(
            "--batch",
            min=1,
            max=1_000_000,
            rich_help_panel=_P_RUN,
            help=(
                "Games per kernel call and per stored batch (progress step, and the work a "
                "worker takes); the result does not depend on it (default: 2000, or 32 when "
                "a strategy is slow, a search per decision)."
            ),
        ),
    ] = None,
    csv: Annotated[
        Optional[Path],
        typer.Option(
            "--csv",
            rich_help_panel=O.P_OUT,
            help="Also write the table (gauntlet.csv's content) to this new CSV file.",
        ),
    ] = None,
    strategy_path: O.StrategyPathOpt = None,
    bot: O.BotOpt = None,
    time_per_move: O.TimePerMoveOpt = 1000,
    time_per_game: O.TimePerGameOpt = None,
    out: OutOpt = None,
    resume: O.ResumeOpt = None,
    force: O.ForceOpt = False,
    workers: O.WorkersOpt = None,
    backend: O.BackendOpt = "loky",
    scheduler: O.SchedulerOpt = None,
    no_plots: O.NoPlotsOpt = False,
    quiet: O.quiet_option("No progress bar or notes (the table is still printed).") = False,
    stop_after: O.StopAfterOpt = None,
    deals: O.DealsOpt = None,
) -> None:
    """Play one candidate against each opponent in turn, head to head on paired deals.

    One table row per opponent: games, the candidate's score (share of the other seats it finished ahead of, ties half) with its 95% interval, the same as Elo, the games each side forfeited (bots) and, with --sprt, the SPRT's decision and LLR; then the total over every opponent. Every opponent meets the same deals.

    With --deals FILE every opponent meets exactly the deals of that file, each under every rotation (not with --games); --resume refuses another file, or one whose content changed.

    Exit codes: 0 done; 1 a strategy failed; 2 bad options, or an --out directory in use or holding other files (nothing is written); 3 a file could not be written; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).

    With --out the batches are stored as they finish (DIR/chunks): after Ctrl-C, SIGTERM or a crash, shedsim gauntlet --resume DIR plays on from there, to the same gauntlet.csv.

    Examples: shedsim gauntlet --candidate heuristic --opponents greedy,random,aggressive --games 4000 --sprt 0,10;  shedsim gauntlet -c expert --opponents greedy,heuristic --out reports/gauntlet;  shedsim gauntlet --resume reports/gauntlet
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim import api
    from shedsim.cli.common import bot_entries, bot_spec, fail

    O.refuse_bot_time(ctx, bot, resume)
    if bot and resume is not None:
        fail(
            "--resume: --bot cannot be given with --resume: the stored gauntlet decides its players"
        )
    # --candidate LABEL / an opponent LABEL of a --bot LABEL=COMMAND: that bot
    bots = bot_entries(bot, strategy_path)
    cand = bot_spec(candidate, bots) if candidate is not None else None
    entries = _entries(opponents, bots) if opponents is not None else None
    test = None
    if sprt is not None:
        try:
            e0, e1 = (float(x) for x in sprt.split(","))
            test = (e0, e1)
        except ValueError:
            fail(f"--sprt: write ELO0,ELO1 (two numbers), got {sprt!r}")
    if csv is not None and (
        csv.exists() or not csv.parent.is_dir()
    ):  # never replaces a file of yours
        fail(
            f"--csv {str(csv)!r}: "
            + (
                "the file exists (give a new name)"
                if csv.exists()
                else "its directory does not exist"
            )
        )
    timed = (
        resume is None or time_per_move != 1000 or time_per_game is not None
    )  # given beside --resume?
    r = O.call(
        api.gauntlet,
        candidate=cand,
        opponents=entries,
        rules=rules,
        house=house,
        rules_file=rules_file,
        players=players,
        games=games,
        seed=seed,
        sprt=test,
        alpha=alpha,
        beta=beta,
        batch=batch,
        strategy_path=O.paths_of(strategy_path),
        bot_time=(time_per_move, time_per_game) if timed else None,
        deals=deals,
        options=O.run_options(
            out, resume, force, workers, backend, scheduler, quiet, no_plots, stop_after
        ),
    )
    _print_table(r.result, r.run.job, r.result.rows[0].decision is not None)
    if csv is not None:
        _write_csv(r.table, csv)
    if r.out is not None and not quiet:
        typer.echo(f"wrote {', '.join(r.files)}, run.json to {str(r.out)}", err=True)


def _entries(opponents: str, bots: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``--opponents`` as ``(label, spec)`` pairs, an opponent named by a --bot's label that bot."""
    from shedsim.analysis.tournament import TournamentError, parse_entries
    from shedsim.cli.common import bot_spec, fail

    try:
        return [(lab, bot_spec(sp, bots)) for lab, sp in parse_entries(opponents)]
    except TournamentError as e:
        fail(str(e).replace("--strategies", "--opponents"))


def _print_table(res, job, with_sprt: bool) -> None:
    """The gauntlet's table: a row per opponent, then the total."""

    from rich.table import Table

    from shedsim.output.console import out_console
    from shedsim.stats.sprt import elo_text

    t = Table(
        title=f"Gauntlet: {res.candidate} ({res.rules}, {res.players} players, seed {res.seed})",
        caption="score: share of the other seats finished ahead of (ties half), 95% t interval "
        "over deals; "
        "Elo: the same on the logistic scale",
    )
    cols = ["opponent", "games", "score", "Elo", "forfeits"] + (
        ["SPRT", "LLR"] if with_sprt else []
    )
    for c in cols:
        t.add_column(c, justify="left" if c == "opponent" else "right")

    for r in [*res.rows, res.total]:
        cells = [
            r.opponent,
            f"{r.games:,}",
            f"{r.score:.4f} [{r.lo:.4f}, {r.hi:.4f}]",
            f"{elo_text(r.elo)} [{elo_text(r.elo_lo)}, {elo_text(r.elo_hi)}]",
            f"{r.forfeits:,} / {r.opponent_forfeits:,}",
        ]
        if with_sprt:
            cells += [r.decision or "", "" if r.llr is None else f"{r.llr:+.2f}"]
        t.add_row(*cells, end_section=r is res.rows[-1])
    out_console().print(t)


def _write_csv(table, csv: Path) -> None:
    """The table (gauntlet.csv's content) as a new CSV file, atomically."""
    from shedsim.cli.common import fail
    from shedsim.output.csvs import write_csv
    from shedsim.runs.atomic import WriteError

    try:
        write_csv(table, csv)
    except (OSError, WriteError) as e:
        fail(f"--csv: {e}", 3)
    typer.echo(f"wrote {csv}", err=True)
