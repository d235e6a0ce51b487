"""``shedsim sprt``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.sprt` -> the decision (or the pairing gain) printed.

Only typer and the standard library are imported at module level, so ``shedsim --help``
stays fast; numpy, numba, pandas and matplotlib are imported inside the command. The
statistics live in :mod:`shedsim.analysis.sprt`.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

import shedsim.cli.options as O

_P_RUN = O.P_RUN
_P_TEST = "The test"
PlayersOpt = O.players_option("Seats: X takes one, Y all the others", 2)
OutOpt = O.out_option(
    None,
    " (sprt.csv: the LLR path, llr.png and run.json; with --compare-pairing: pairing.csv, "
    "pairing.png, run.json)",
)


def sprt(
    a: Annotated[
        Optional[str],
        typer.Option(
            "--a",
            rich_help_panel=_P_RUN,
            help="Strategy X, the candidate: NAME or NAME:param=v (required, unless --resume).",
        ),
    ] = None,
    b: Annotated[
        Optional[str],
        typer.Option(
            "--b",
            rich_help_panel=_P_RUN,
            help=(
                "Strategy Y, the baseline (required, unless --resume; may equal --a: an A/A test)."
            ),
        ),
    ] = None,
    rules: O.OptionalRulesOpt = None,
    house: O.HouseOpt = None,
    rules_file: O.RulesFileOpt = None,
    players: PlayersOpt = None,
    seed: O.SeedOpt = None,
    unpaired: Annotated[
        bool,
        typer.Option(
            "--unpaired",
            rich_help_panel=_P_RUN,
            help=(
                "A fresh deal for every game (trinomial model) instead of each deal under "
                "every rotation."
            ),
        ),
    ] = False,
    strategy_path: O.StrategyPathOpt = None,
    bot: O.BotOpt = None,
    elo0: Annotated[
        Optional[float],
        typer.Option(
            "--elo0", rich_help_panel=_P_TEST, help="H0: X - Y = elo0 logistic Elo (default: 0)."
        ),
    ] = None,
    elo1: Annotated[
        Optional[float],
        typer.Option(
            "--elo1",
            rich_help_panel=_P_TEST,
            help="H1: X - Y = elo1 logistic Elo, above --elo0 (default: 5).",
        ),
    ] = None,
    alpha: Annotated[
        Optional[float],
        typer.Option(
            "--alpha",
            rich_help_panel=_P_TEST,
            help="Chance of accepting H1 when H0 holds (default: 0.05).",
        ),
    ] = None,
    beta: Annotated[
        Optional[float],
        typer.Option(
            "--beta",
            rich_help_panel=_P_TEST,
            help="Chance of accepting H0 when H1 holds (default: 0.05).",
        ),
    ] = None,
    max_games: Annotated[
        Optional[int],
        typer.Option(
            "--max-games",
            rich_help_panel=_P_TEST,
            help="Stop without a decision after this many games (default: 200000).",
        ),
    ] = None,
    min_games: Annotated[
        Optional[int],
        typer.Option(
            "--min-games",
            rich_help_panel=_P_TEST,
            help=(
                "No decision before this many games (the normal approximation needs a few "
                "dozen pairs) (default: 100)."
            ),
        ),
    ] = None,
    llr: Annotated[
        Optional[str],
        typer.Option(
            "--llr",
            rich_help_panel=_P_TEST,
            help=(
                "The log-likelihood ratio: normal = the normal approximation (fishtest "
                "LLR_alt2, the default); mle = the exact ratio of the maximum-likelihood "
                "pentanomial/trinomial distributions (fishtest LLR_logistic)."
            ),
        ),
    ] = None,
    batch: Annotated[
        Optional[int],
        typer.Option(
            "--batch",
            min=1,
            max=1_000_000,
            rich_help_panel=_P_TEST,
            help=(
                "Games per kernel call and per stored batch (progress step, and the work a "
                "worker takes); the result does not depend on it (default: 2000, or 32 when "
                "either strategy is slow, a search per decision; with --control-variate at most "
                "200; with --compare-pairing 20000)."
            ),
        ),
    ] = None,
    control_variate: Annotated[
        Optional[bool],
        typer.Option(
            "--control-variate/--no-control-variate",
            rich_help_panel=_P_TEST,
            help=(
                "Test the pair scores less each game's luck: at every face-down card turned "
                "over and the last stock draws, the card's effect on the chance of winning, "
                "valued by greedy rollouts (AIVAT), is taken out; the mean is unchanged, the "
                "variance smaller. 2 players, --llr normal, strategies that do not see "
                "hidden cards. Default: on where it can be used and a search strategy is "
                "seated (a game's rollouts cost more than a cheap game: fewer games save "
                "time only where games are dear), off otherwise."
            ),
        ),
    ] = None,
    compare_pairing: Annotated[
        bool,
        typer.Option(
            "--compare-pairing",
            rich_help_panel=_P_TEST,
            help=(
                "Instead of the SPRT: play --games games paired and as many unpaired, and "
                "compare the 95% interval widths of the score."
            ),
        ),
    ] = False,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-g",
            rich_help_panel=_P_TEST,
            help="Games per design with --compare-pairing (default: 20000).",
        ),
    ] = None,
    out: OutOpt = None,
    resume: O.ResumeOpt = None,
    force: O.ForceOpt = False,
    workers: O.WorkersOpt = None,
    backend: O.BackendOpt = "loky",
    scheduler: O.SchedulerOpt = None,
    no_plots: O.NoPlotsOpt = False,
    quiet: O.quiet_option("No progress bar or notes (the result is still printed).") = False,
    stop_after: O.StopAfterOpt = None,
    deals: O.DealsOpt = None,
) -> None:
    """Is strategy X stronger than Y? Play them head to head on paired deals until a sequential probability ratio test decides.

    Each deal is played under every rotation (at 2 players: twice, seats swapped), so deal luck cancels. X scores 1 for finishing ahead of Y, 0 behind, 1/2 when neither finished; the pair scores (0, 1/4, ..., 1: fishtest's pentanomial model) feed a GSPRT with the normal approximation of the log-likelihood ratio (fishtest LLR_alt2; --llr mle: the exact ratio, fishtest LLR_logistic), Elo bounds on the logistic scale (score = 1 / (1 + 10^(-elo/400))), Wald's bounds ln(beta/(1-alpha)) and ln((1-beta)/alpha). The LLR is checked after every pair; the test stops at the first crossing (no overshoot correction).

    Prints the decision (H1: X stronger by at least --elo1; H0: not; or no decision at --max-games), the score with its 95% interval, the Elo difference, games used and the LLR.

    --compare-pairing measures what pairing buys: the score's 95% interval width with --games games on paired deals against as many games on fresh deals.

    Exit codes: 0 decided, or no decision at --max-games (the output says which); 1 a strategy failed; 2 bad options, or an --out directory in use or holding other files (nothing is written); 3 a file could not be written; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).

    With --out the batches are stored as they finish (DIR/chunks): after Ctrl-C, SIGTERM or a crash, shedsim sprt --resume DIR plays on from there.

    Examples: shedsim sprt --a greedy --b random;  shedsim sprt --a expert --b greedy --elo1 10 --out reports/sprt;  shedsim sprt --resume reports/sprt;  shedsim sprt --a greedy --b expert --compare-pairing --games 20000
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim import api
    from shedsim.cli.common import bot_entries, bot_spec

    if bot and resume is not None:
        from shedsim.cli.common import fail

        fail("--resume: --bot cannot be given with --resume: the stored test decides its players")
    # --a LABEL / --b LABEL of a --bot LABEL=COMMAND: that bot
    bots = bot_entries(bot, strategy_path)
    a, b = bot_spec(a, bots), bot_spec(b, bots)
    r = O.call(
        api.sprt,
        a=a,
        b=b,
        rules=rules,
        house=house,
        rules_file=rules_file,
        players=players,
        seed=seed,
        unpaired=unpaired,
        compare_pairing=compare_pairing,
        games=games,
        strategy_path=O.paths_of(strategy_path),
        elo0=elo0,
        elo1=elo1,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        min_games=min_games,
        llr=llr,
        batch=batch,
        deals=deals,
        control_variate=control_variate,
        options=O.run_options(
            out, resume, force, workers, backend, scheduler, quiet, no_plots, stop_after
        ),
    )
    typer.echo(
        "\n".join(
            _pairing_lines(r) if r.pairing is not None else _decision_lines(r.result, _played(r))
        )
    )
    if r.out is not None and not quiet:
        typer.echo(f"wrote {', '.join(r.files)}, run.json to {str(r.out)}")


def _played(r) -> int | None:
    """The games of every stored batch of an sprt run (``r``: :class:`shedsim.api.SprtResult`),
    or None where it keeps no run store."""
    run = getattr(r, "run", None)
    outcome = getattr(run, "outcome", None)
    if outcome is None:
        return None
    return sum(run.job.chunk_games(k) for k in outcome.done)


def _decision_lines(res, played: int | None = None) -> list[str]:
    """The decision, games, LLR, score and Elo of an SPRT result, as printed; ``played``,
    the games of every batch played, when more than the test used (the rest of the batch
    in which it decided, played ahead of the decision, is never used)."""
    from shedsim.stats.sprt import elo_text

    unit = res.unit_name
    n_units = f"{res.units:,} {unit}" if unit != "games" else ""
    ahead = (
        f"; {played:,} played, the {played - res.games:,} after the decision not used"
        if played is not None and played > res.games
        else ""
    )
    return [
        res.decision_text(),
        f"  games   {res.games:,}"
        + (f" ({n_units})" if n_units else "")
        + f"; {res.unfinished:,} unfinished (stalled, proven loops or the move cap)"
        + ahead,
        f"  LLR     {res.llr:+.3f}  (bounds {res.lower:+.3f}, {res.upper:+.3f}; "
        + ("normal approximation" if res.llr_method == "normal" else "exact maximum likelihood")
        + (", on the scores less their luck: control variate" if res.control_variate else "")
        + ")",
        f"  score   {res.score:.4f}  [{res.lo:.4f}, {res.hi:.4f}]  (95%, t interval over {unit}"
        + (", less their luck" if res.control_variate else "")
        + ")",
        f"  Elo     {elo_text(res.elo)}  [{elo_text(res.elo_lo)}, {elo_text(res.elo_hi)}]  "
        "(logistic, X - Y)",
    ]


def _pairing_lines(r) -> list[str]:
    """The two designs' scores, interval widths and their ratio, as printed."""
    from shedsim.analysis.sprt_study import rules_text

    job, gain = r.run.job, r.result
    p, u = gain.paired, gain.unpaired
    unit = "pairs" if job.players == 2 else "deals"
    return [
        f"Pairing gain, {job.a} vs {job.b}: {rules_text(job.rules)}, {job.players} players, "
        f"{p.games:,} games "
        f"per design (seed {job.seed})",
        f"  paired    score {p.score:.4f}  [{p.lo:.4f}, {p.hi:.4f}]  width {p.width:.4f}  (t "
        f"over {p.units:,} {unit})",
        f"  unpaired  score {u.score:.4f}  [{u.lo:.4f}, {u.hi:.4f}]  width {u.width:.4f}  (t "
        f"over {u.units:,} games)",
        f"  width ratio unpaired / paired = {gain.ratio:.3f}: {gain.verdict()}; unpaired deals "
        "need "
        f"{gain.variance_ratio:.2f}x as many games for the same precision",
    ]
