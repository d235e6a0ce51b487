"""``shedsim sprt``: the typer command (registered in :mod:`shedsim.cli`).

Only typer and the standard library are imported at module level, so ``shedsim --help``
stays fast; numpy, numba, pandas and matplotlib are imported inside the command. The
statistics live in :mod:`shedsim.analysis.sprt`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import BotOpt

_P_RUN = "What to play"
_P_TEST = "The test"
_P_OUT = "Output"
OUTPUTS = ("sprt.csv", "llr.png", "pairing.csv", "pairing.png", "run.json")
"""Every file sprt may write into --out."""


def sprt(
    ctx: typer.Context,
    a: Annotated[Optional[str], typer.Option("--a", rich_help_panel=_P_RUN, help="Strategy X, the candidate: NAME or NAME:param=v (required, unless --resume).")] = None,
    b: Annotated[Optional[str], typer.Option("--b", rich_help_panel=_P_RUN, help="Strategy Y, the baseline (required, unless --resume; may equal --a: an A/A test).")] = None,
    rules: Annotated[str, typer.Option("--rules", "-r", rich_help_panel=_P_RUN, help="Preset: duel, nines, family, palace, shithead; or a rules .toml file.")] = "shithead",
    house: Annotated[Optional[list[str]], typer.Option("--house", "-H", rich_help_panel=_P_RUN, help="House toggle, repeatable (`shedsim rules list`).")] = None,
    rules_file: Annotated[Optional[Path], typer.Option("--rules-file", rich_help_panel=_P_RUN, help="A rules TOML file; overrides --rules.")] = None,
    players: Annotated[int, typer.Option("--players", "-p", rich_help_panel=_P_RUN, help="Seats: X takes one, Y all the others.")] = 2,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, rich_help_panel=_P_RUN, help="Run seed.")] = 0,
    unpaired: Annotated[bool, typer.Option("--unpaired", rich_help_panel=_P_RUN, help="A fresh deal for every game (trinomial model) instead of each deal under every rotation.")] = False,
    strategy_path: Annotated[Optional[list[Path]], typer.Option("--strategy-path", rich_help_panel=_P_RUN, help="Extra directory of strategy plugins, repeatable.")] = None,
    bot: BotOpt = None,
    elo0: Annotated[float, typer.Option("--elo0", rich_help_panel=_P_TEST, help="H0: X - Y = elo0 logistic Elo.")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", rich_help_panel=_P_TEST, help="H1: X - Y = elo1 logistic Elo (above --elo0).")] = 5.0,
    alpha: Annotated[float, typer.Option("--alpha", rich_help_panel=_P_TEST, help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", rich_help_panel=_P_TEST, help="Chance of accepting H0 when H1 holds.")] = 0.05,
    max_games: Annotated[int, typer.Option("--max-games", rich_help_panel=_P_TEST, help="Stop without a decision after this many games.")] = 200_000,
    min_games: Annotated[int, typer.Option("--min-games", rich_help_panel=_P_TEST, help="No decision before this many games (the normal approximation needs a few dozen pairs).")] = 100,
    llr: Annotated[str, typer.Option("--llr", rich_help_panel=_P_TEST, help="The log-likelihood ratio: normal = the normal approximation (fishtest LLR_alt2, the default); mle = the exact ratio of the maximum-likelihood pentanomial/trinomial distributions (fishtest LLR_logistic).")] = "normal",
    batch: Annotated[int, typer.Option("--batch", min=1, max=1_000_000, rich_help_panel=_P_TEST, help="Games per kernel call and per stored batch (progress step); the result does not depend on it. With --compare-pairing the default is 20000.")] = 2000,
    compare_pairing: Annotated[bool, typer.Option("--compare-pairing", rich_help_panel=_P_TEST, help="Instead of the SPRT: play --games games paired and as many unpaired, and compare the 95% interval widths of the score.")] = False,
    games: Annotated[Optional[int], typer.Option("--games", "-g", rich_help_panel=_P_TEST, help="Games per design with --compare-pairing (default: 20000).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", rich_help_panel=_P_OUT, help="Also write sprt.csv (LLR path), llr.png and run.json here (with --compare-pairing: pairing.csv, pairing.png, run.json); a new or empty directory, or one holding an earlier shedsim run.")] = None,
    resume: Annotated[Optional[Path], typer.Option("--resume", rich_help_panel=_P_OUT, help="Continue an interrupted SPRT from its --out directory (give it alone): the finished batches are kept, the rest is played, and the decision, games, LLR path and sprt.csv are those of an uninterrupted run.")] = None,
    no_plots: Annotated[bool, typer.Option("--no-plots", rich_help_panel=_P_OUT, help="Skip the chart (llr.png / pairing.png; a run started with it stays without it on --resume).")] = False,
    force: Annotated[bool, typer.Option("--force", rich_help_panel=_P_OUT, help="Write into an --out directory that holds other files (never replacing one of them).")] = False,
    stop_after: Annotated[Optional[int], typer.Option("--stop-after", min=0, hidden=True, help="Testing: play at most N batches, then stop as if interrupted.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", rich_help_panel=_P_OUT, help="No progress bar (the result is still printed).")] = False,
) -> None:
    """Is strategy X stronger than Y? Play them head to head on paired deals until a sequential probability ratio test decides.

    Each deal is played under every rotation (at 2 players: twice, seats swapped), so deal luck cancels. X scores 1 for finishing ahead of Y, 0 behind, 1/2 when neither finished; the pair scores (0, 1/4, ..., 1: fishtest's pentanomial model) feed a GSPRT with the normal approximation of the log-likelihood ratio (fishtest LLR_alt2; --llr mle: the exact ratio, fishtest LLR_logistic), Elo bounds on the logistic scale (score = 1 / (1 + 10^(-elo/400))), Wald's bounds ln(beta/(1-alpha)) and ln((1-beta)/alpha). The LLR is checked after every pair; the test stops at the first crossing (no overshoot correction).

    Prints the decision (H1: X stronger by at least --elo1; H0: not; or no decision at --max-games), the score with its 95% interval, the Elo difference, games used and the LLR.

    --compare-pairing measures what pairing buys: the score's 95% interval width with --games games on paired deals against as many games on fresh deals.

    Exit codes: 0 decided, or no decision at --max-games (the output says which); 1 a strategy failed; 2 bad options, or an --out directory in use or holding other files (nothing is written); 3 a file could not be written; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).

    With --out the batches are stored as they finish (DIR/chunks): after Ctrl-C, SIGTERM or a crash, shedsim sprt --resume DIR plays on from there.

    Examples: shedsim sprt --a greedy --b random;  shedsim sprt --a expert --b greedy --elo1 10 --out reports/sprt;  shedsim sprt --resume reports/sprt;  shedsim sprt --a greedy --b expert --compare-pairing --games 20000
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim.analysis import sprt as S
    from shedsim.analysis import sprt_run as R
    from shedsim.cli.common import bot_entries, bot_spec, fail, given_on_command_line, load_rules
    from shedsim.rules.ruleset import RulesError
    from shedsim.runs.execute import RunError, Session, done_chunks

    paths = tuple(str(p) for p in strategy_path or [])
    bots = bot_entries(bot)  # --a LABEL / --b LABEL of a --bot LABEL=COMMAND: that bot
    a, b = bot_spec(a, bots), bot_spec(b, bots)
    if resume is not None:
        given = given_on_command_line(ctx, (
            "a", "b", "rules", "house", "rules_file", "players", "seed", "unpaired", "strategy_path", "bot",
            "elo0", "elo1", "alpha", "beta", "max_games", "min_games", "llr", "batch",
            "compare_pairing", "games", "out"))
        if given:
            fail(f"--resume: {', '.join('--' + n.replace('_', '-') for n in given)} cannot be given with --resume: "
                 f"the stored test decides them (give --resume DIR alone to continue it)")
        out = resume
    else:
        if a is None or b is None:
            fail("--a and --b name the two strategies (required; or --resume DIR to continue a stored test)")
        rs = load_rules(rules, house, rules_file)
        paired = not unpaired
        if compare_pairing:
            if unpaired:
                fail("--unpaired and --compare-pairing: --compare-pairing plays both designs itself")
            n_games = 20_000 if games is None else games
        elif games is not None:
            fail("--games is for --compare-pairing; the SPRT plays until it decides or reaches --max-games")
        try:
            if compare_pairing:
                if n_games < 2 * players or n_games > 100_000_000:
                    raise S.SPRTError(f"--games: between {2 * players} and 100,000,000, got {n_games}")
            else:
                S.check_options(players, elo0, elo1, alpha, beta, max_games, min_games, batch, paired)
                if llr not in S.LLR_METHODS:
                    raise S.SPRTError(f"--llr: one of {', '.join(S.LLR_METHODS)}, got {llr!r}")
            S.open_match(a, b, rs, players, seed, paths)  # strategies, players, seed; loads the kernel
        except S.SPRTError as e:
            fail(str(e))

    import tempfile

    from rich.console import Console
    err = Console(stderr=True)
    scratch = tempfile.TemporaryDirectory(prefix="shedsim-sprt-") if out is None else None
    store = R.SprtStore(out if out is not None else scratch.name)
    if resume is None:  # the plan is checked before the directory is touched
        ri = {"rules": rules, "house": list(house or []),
              "rules_file": str(rules_file.resolve()) if rules_file else None}
        try:
            if compare_pairing:
                by_user = bool(given_on_command_line(ctx, ("batch",)))
                job = R.PairingJob(a, b, rs, players, seed, n_games, paths, ri, store,
                                   batch if by_user else R.PAIRING_BATCH)
            else:
                job = R.SprtJob(a, b, rs, players, seed, {
                    "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "max_games": max_games,
                    "min_games": min_games, "paired": paired, "batch": batch, "llr": llr}, paths, ri, store)
        except S.SPRTError as e:
            if scratch is not None:
                scratch.cleanup()
            fail(str(e))
    session = Session("sprt", store, resume=resume is not None, outputs=OUTPUTS, force=force, quiet=quiet,
                      console=err, resume_hint=f"shedsim sprt --resume {str(out)}" if out is not None else "",
                      scratch=out is None, plots=not no_plots)
    try:
        with session:
            try:
                session.open()  # --out safety and the directory's lock
                if resume is not None:
                    job = R.job_from_store(store, paths if strategy_path else None)
                    done_chunks(job, store, strict=True)  # a damaged or foreign batch file: refuse, change nothing
            except RunError as e:
                fail(e.message, e.code)
            except (S.SPRTError, RulesError) as e:
                fail(str(e))
            if isinstance(job, R.PairingJob):
                _compare(job, out, quiet, err, session, stop_after)
            else:
                _run(job, out, quiet, err, session, stop_after)
    finally:
        if scratch is not None:
            scratch.cleanup()


def _run(job, out, quiet: bool, err, session, stop_after: int | None = None) -> None:
    """Play the SPRT of ``job`` on the run machinery, print the decision and (with ``out``)
    write sprt.csv, llr.png and run.json."""
    from shedsim.analysis import sprt as S
    from shedsim.cli.common import fail
    from shedsim.runs.execute import RunError

    a, b, players, t = job.a, job.b, job.players, job.test
    paired = t["paired"]
    rules_txt = job.rules.name + (" + " + ", ".join(job.rules.house) if job.rules.house else "")
    degenerate = S.degenerate_note(a, b, players, job.paths, paired=paired)
    if degenerate and not quiet:
        err.print(f"[yellow]note:[/] {degenerate}", highlight=False)
    design = "paired deals" + (" (pentanomial: pairs of games)" if players == 2 else " (each deal under every rotation)") \
        if paired else "unpaired deals (one per game)"
    if not quiet:
        err.print(f"SPRT {a} vs {b}: {rules_txt}, {players} players, {design}; H0 elo {t['elo0']:g}, "
                  f"H1 elo {t['elo1']:g}, alpha {t['alpha']:g}, beta {t['beta']:g}, at most {t['max_games']:,} games",
                  highlight=False, markup=False)
    try:
        outcome, workers = session.run(job, 1, "loky", None, stop_after)
    except RunError as e:
        fail(e.message, e.code)
    if outcome.interrupted:
        how = "terminated (SIGTERM)" if outcome.stopped_by == "SIGTERM" else "interrupted"
        so_far = ""
        if job.seq.units:
            p = job.seq.progress()
            so_far = f" after {p.games:,} games (score {p.score:.4f}, LLR {p.llr:+.2f})"
        if out is None:
            fail(f"{how}{so_far}: no decision; nothing written", session.exit_code(outcome))
        fail(f"{how}{so_far}: no decision yet; {len(outcome.done)} of {job.n_chunks} batches finished and kept in "
             f"{str(out)}; the reports need the test's end, so none was written; continue with: "
             f"shedsim sprt --resume {str(out)}", session.exit_code(outcome))
    with session.deferred():
        try:
            res = job.result()
        except S.SPRTError as e:
            fail(str(e))

    unit = res.unit_name
    n_units = f"{res.units:,} {unit}" if unit != "games" else ""
    lines = [
        res.decision_text(),
        f"  games   {res.games:,}" + (f" ({n_units})" if n_units else "")
        + f"; {res.unfinished:,} unfinished (stalled, proven loops or the move cap)",
        f"  LLR     {res.llr:+.3f}  (bounds {res.lower:+.3f}, {res.upper:+.3f}; "
        + ("normal approximation" if res.llr_method == "normal" else "exact maximum likelihood") + ")",
        f"  score   {res.score:.4f}  [{res.lo:.4f}, {res.hi:.4f}]  (95%, t interval over {unit})",
        f"  Elo     {_elo(res.elo)}  [{_elo(res.elo_lo)}, {_elo(res.elo_hi)}]  (logistic, X - Y)",
    ]
    typer.echo("\n".join(lines))
    if out is None:
        return
    headline = [
        res.decision_text() + f" (LLR {res.llr:+.2f}, bounds {res.lower:+.2f}/{res.upper:+.2f}, {res.games:,} games)",
        f"score of {a} against {b}: {res.score:.4f} [{res.lo:.4f}, {res.hi:.4f}] (95%)",
        f"Elo difference: {_elo(res.elo)} [{_elo(res.elo_lo)}, {_elo(res.elo_hi)}] (95%)",
    ]
    info = session.run_info(
        job, outcome, workers, "loky", command="shedsim sprt", argv=_argv(),
        title=f"SPRT {a} vs {b} ({rules_txt}, {players} players, {'paired' if paired else 'unpaired'} deals): "
              f"{res.decision}",
        result=res.to_json(), definitions=S.DEFINITIONS, headline=headline, notes=[degenerate] if degenerate else [])
    _write_set(job, outcome, out, "sprt", res.path_table(), None if not session.plots else (lambda path: S.plot_llr(res, path)),
               "llr.png", info, quiet, session)


def _argv() -> str | None:
    from shedsim.runs.execute import command_line
    return command_line()


def _compare(job, out, quiet: bool, err, session, stop_after: int | None = None) -> None:
    """``--compare-pairing`` on the run machinery (:class:`shedsim.analysis.sprt_run.PairingJob`):
    play, print and (with ``out``) write pairing.csv, pairing.png and run.json."""
    from shedsim.analysis import sprt as S
    from shedsim.cli.common import fail
    from shedsim.runs.execute import RunError

    a, b, players = job.a, job.b, job.players
    rules_txt = job.rules.name + (" + " + ", ".join(job.rules.house) if job.rules.house else "")
    degenerate = S.degenerate_note(a, b, players, job.paths, paired=True)
    if degenerate and not quiet:
        err.print(f"[yellow]note:[/] {degenerate}", highlight=False)
    try:
        outcome, workers = session.run(job, 1, "loky", None, stop_after)
    except RunError as e:
        fail(e.message, e.code)
    if outcome.interrupted:
        how = "terminated (SIGTERM)" if outcome.stopped_by == "SIGTERM" else "interrupted"
        if out is None:
            fail(f"{how}: nothing written", session.exit_code(outcome))
        fail(f"{how}: {len(outcome.done)} of {job.n_chunks} batches finished and kept in {str(out)}; the reports "
             f"need both designs whole, so none was written; continue with: shedsim sprt --resume {str(out)}",
             session.exit_code(outcome))
    with session.deferred():
        gain = job.result()
    p, u = gain.paired, gain.unpaired
    unit = "pairs" if players == 2 else "deals"
    typer.echo(f"Pairing gain, {a} vs {b}: {rules_txt}, {players} players, {p.games:,} games per design "
               f"(seed {job.seed})")
    typer.echo(f"  paired    score {p.score:.4f}  [{p.lo:.4f}, {p.hi:.4f}]  width {p.width:.4f}  "
               f"(t over {p.units:,} {unit})")
    typer.echo(f"  unpaired  score {u.score:.4f}  [{u.lo:.4f}, {u.hi:.4f}]  width {u.width:.4f}  "
               f"(t over {u.units:,} games)")
    verdict = gain.verdict()
    typer.echo(f"  width ratio unpaired / paired = {gain.ratio:.3f}: {verdict}; unpaired deals need "
               f"{gain.variance_ratio:.2f}x as many games for the same precision")
    if out is None:
        return
    info = session.run_info(
        job, outcome, workers, "loky", command="shedsim sprt --compare-pairing", argv=_argv(),
        title=f"Paired vs unpaired deals: {a} vs {b} ({rules_txt}, {players} players, {p.games:,} games each)",
        result={"paired": p.__dict__ | {"width": p.width}, "unpaired": u.__dict__ | {"width": u.width},
                "ratio": gain.ratio, "variance_ratio": gain.variance_ratio},
        definitions=S.DEFINITIONS,
        headline=[f"paired deals: score {p.score:.4f} [{p.lo:.4f}, {p.hi:.4f}], width {p.width:.4f}",
                  f"unpaired deals: score {u.score:.4f} [{u.lo:.4f}, {u.hi:.4f}], width {u.width:.4f}",
                  f"width ratio {gain.ratio:.3f} (unpaired needs {gain.variance_ratio:.2f}x the games): "
                  f"{gain.verdict()}"],
        notes=[degenerate] if degenerate else [])
    _write_set(job, outcome, out, "pairing", gain.table(),
               None if not session.plots else (lambda path: S.plot_pairing(gain, path)), "pairing.png", info, quiet, session)


def _write_set(job, outcome, out, name: str, table, plot, chart: str, info: dict, quiet: bool, session) -> None:
    """Write ``NAME.csv``, the chart (unless ``plot`` is None) and ``run.json`` into ``out``,
    all or none (:meth:`shedsim.runs.execute.Session.write_reports`; exit 3)."""
    from shedsim.analysis.tournament import write_csv
    from shedsim.cli.common import fail
    from shedsim.runs.execute import RunError

    def write() -> list[str]:
        write_csv(table, out / f"{name}.csv")
        if plot is None:
            return [f"{name}.csv"]
        plot(out / chart)
        return [f"{name}.csv", chart]

    try:
        files = session.write_reports(job, outcome, write, info)
    except RunError as e:
        fail(e.message, e.code)
    if not quiet:
        typer.echo(f"wrote {', '.join(files)}, run.json to {str(out)}")


def _elo(x: float) -> str:
    import math
    if not math.isfinite(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x + 0.0:+.1f}".replace("-0.0", "+0.0")  # no "-0.0" from a rounding sign
