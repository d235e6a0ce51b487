"""``shedsim sprt``: the typer command (registered in :mod:`shedsim.cli`).

Only typer and the standard library are imported at module level, so ``shedsim --help``
stays fast; numpy, numba, pandas and matplotlib are imported inside the command. The
statistics live in :mod:`shedsim.analysis.sprt`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

_P_RUN = "What to play"
_P_TEST = "The test"
_P_OUT = "Output"
OUTPUTS = ("sprt.csv", "llr.png", "pairing.csv", "pairing.png", "run.json")
"""Every file sprt may write into --out."""


def sprt(
    a: Annotated[str, typer.Option("--a", rich_help_panel=_P_RUN, help="Strategy X, the candidate: NAME or NAME:param=v (required).")],
    b: Annotated[str, typer.Option("--b", rich_help_panel=_P_RUN, help="Strategy Y, the baseline (required; may equal --a: an A/A test).")],
    rules: Annotated[str, typer.Option("--rules", "-r", rich_help_panel=_P_RUN, help="Preset: duel, nines, family, palace, shithead; or a rules .toml file.")] = "shithead",
    house: Annotated[Optional[list[str]], typer.Option("--house", "-H", rich_help_panel=_P_RUN, help="House toggle, repeatable (`shedsim rules list`).")] = None,
    rules_file: Annotated[Optional[Path], typer.Option("--rules-file", rich_help_panel=_P_RUN, help="A rules TOML file; overrides --rules.")] = None,
    players: Annotated[int, typer.Option("--players", "-p", rich_help_panel=_P_RUN, help="Seats: X takes one, Y all the others.")] = 2,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, rich_help_panel=_P_RUN, help="Run seed.")] = 0,
    unpaired: Annotated[bool, typer.Option("--unpaired", rich_help_panel=_P_RUN, help="A fresh deal for every game (trinomial model) instead of each deal under every rotation.")] = False,
    strategy_path: Annotated[Optional[list[Path]], typer.Option("--strategy-path", rich_help_panel=_P_RUN, help="Extra directory of strategy plugins, repeatable.")] = None,
    elo0: Annotated[float, typer.Option("--elo0", rich_help_panel=_P_TEST, help="H0: X - Y = elo0 logistic Elo.")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", rich_help_panel=_P_TEST, help="H1: X - Y = elo1 logistic Elo (above --elo0).")] = 5.0,
    alpha: Annotated[float, typer.Option("--alpha", rich_help_panel=_P_TEST, help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", rich_help_panel=_P_TEST, help="Chance of accepting H0 when H1 holds.")] = 0.05,
    max_games: Annotated[int, typer.Option("--max-games", rich_help_panel=_P_TEST, help="Stop without a decision after this many games.")] = 200_000,
    min_games: Annotated[int, typer.Option("--min-games", rich_help_panel=_P_TEST, help="No decision before this many games (the normal approximation needs a few dozen pairs).")] = 100,
    llr: Annotated[str, typer.Option("--llr", rich_help_panel=_P_TEST, help="The log-likelihood ratio: normal = the normal approximation (fishtest LLR_alt2, the default); mle = the exact ratio of the maximum-likelihood pentanomial/trinomial distributions (fishtest LLR_logistic).")] = "normal",
    batch: Annotated[int, typer.Option("--batch", min=1, max=1_000_000, rich_help_panel=_P_TEST, help="Games per kernel call (progress step); the result does not depend on it.")] = 2000,
    compare_pairing: Annotated[bool, typer.Option("--compare-pairing", rich_help_panel=_P_TEST, help="Instead of the SPRT: play --games games paired and as many unpaired, and compare the 95% interval widths of the score.")] = False,
    games: Annotated[Optional[int], typer.Option("--games", "-g", rich_help_panel=_P_TEST, help="Games per design with --compare-pairing (default: 20000).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", rich_help_panel=_P_OUT, help="Also write sprt.csv (LLR path), llr.png and run.json here (with --compare-pairing: pairing.csv, pairing.png, run.json); a new or empty directory, or one holding an earlier shedsim run.")] = None,
    force: Annotated[bool, typer.Option("--force", rich_help_panel=_P_OUT, help="Write into an --out directory that holds other files (never replacing one of them).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", rich_help_panel=_P_OUT, help="No progress bar (the result is still printed).")] = False,
) -> None:
    """Is strategy X stronger than Y? Play them head to head on paired deals until a sequential probability ratio test decides.

    Each deal is played under every rotation (at 2 players: twice, seats swapped), so deal luck cancels. X scores 1 for finishing ahead of Y, 0 behind, 1/2 when neither finished; the pair scores (0, 1/4, ..., 1: fishtest's pentanomial model) feed a GSPRT with the normal approximation of the log-likelihood ratio (fishtest LLR_alt2; --llr mle: the exact ratio, fishtest LLR_logistic), Elo bounds on the logistic scale (score = 1 / (1 + 10^(-elo/400))), Wald's bounds ln(beta/(1-alpha)) and ln((1-beta)/alpha). The LLR is checked after every pair; the test stops at the first crossing (no overshoot correction).

    Prints the decision (H1: X stronger by at least --elo1; H0: not; or no decision at --max-games), the score with its 95% interval, the Elo difference, games used and the LLR.

    --compare-pairing measures what pairing buys: the score's 95% interval width with --games games on paired deals against as many games on fresh deals.

    Exit codes: 0 decided, or no decision at --max-games (the output says which); 1 a strategy failed; 2 bad options, or an --out directory in use or holding other files (nothing is written); 3 a file could not be written; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).

    Examples: shedsim sprt --a greedy --b random;  shedsim sprt --a expert --b greedy --elo1 10 --out reports/sprt;  shedsim sprt --a greedy --b expert --compare-pairing --games 20000
    """  # noqa: E501 (typer shows each paragraph as one line)
    import sys
    import time

    from shedsim.cli.common import fail, load_rules
    from shedsim.analysis import sprt as S
    from shedsim.runs.simulate import SimulationError
    from shedsim.runs.execute import RunError, Session, versions
    from shedsim.runs.store import RunStore

    t0 = time.perf_counter()
    paths = tuple(str(p) for p in strategy_path or [])
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

    from rich.console import Console
    err = Console(stderr=True)
    session = Session("sprt", None if out is None else RunStore(out), outputs=OUTPUTS, force=force, quiet=quiet,
                      console=err)
    with session:
        if out is not None:
            try:
                session.open()  # --out safety and the directory's lock
            except RunError as e:
                fail(e.message, e.code)
        rules_txt = rs.name + (" + " + ", ".join(rs.house) if rs.house else "")
        spec = {"a": a, "b": b, "rules": rules, "house": list(house or []),
                "rules_file": str(rules_file.resolve()) if rules_file else None, "rules_name": rules_txt,
                "players": players, "seed": seed, "strategy_paths": list(paths)}
        argv = "shedsim " + " ".join(sys.argv[1:]) if sys.argv and sys.argv[0].endswith("shedsim") else None

        degenerate = S.degenerate_note(a, b, players, paths, paired=paired or compare_pairing)
        if degenerate and not quiet:
            err.print(f"[yellow]note:[/] {degenerate}", highlight=False)
        if compare_pairing:
            _compare(a, b, rs, players, n_games, seed, paths, out, quiet, err, spec, argv, rules_txt, t0, session)
            return

        progress = None if quiet else _progress(err)
        state: dict = {}

        def on_batch(p) -> None:
            state["p"] = p
            if progress is not None:
                progress.update(task, completed=p.games,
                                info=f"score {p.score:.4f} LLR {p.llr:+.2f} [{p.lower:+.2f},{p.upper:+.2f}]")

        design = "paired deals" + (" (pentanomial: pairs of games)" if players == 2 else " (each deal under every rotation)") \
            if paired else "unpaired deals (one per game)"
        if not quiet:
            err.print(f"SPRT {a} vs {b}: {rules_txt}, {players} players, {design}; H0 elo {elo0:g}, H1 elo {elo1:g}, "
                      f"alpha {alpha:g}, beta {beta:g}, at most {max_games:,} games", highlight=False, markup=False)
        try:
            if progress is not None:
                with progress:
                    task = progress.add_task("games", total=max_games, info="")
                    res = S.run_sprt(a, b, rs, players, elo0, elo1, alpha, beta, seed, max_games, paired, batch,
                                     min_games, paths, on_batch, llr=llr)
            else:
                res = S.run_sprt(a, b, rs, players, elo0, elo1, alpha, beta, seed, max_games, paired, batch,
                                 min_games, paths, on_batch, llr=llr)
        except S.SPRTError as e:
            fail(str(e))
        except SimulationError as e:
            fail(str(e), 1)
        except KeyboardInterrupt:
            p = state.get("p")
            how, code = (("terminated (SIGTERM)", 143) if session.got_signal == "SIGTERM" else ("interrupted", 130))
            fail(how + (f" after {p.games:,} games (score {p.score:.4f}, LLR {p.llr:+.2f}): no decision; "
                        f"nothing written" if p else ": nothing written"), code)

        wall = time.perf_counter() - t0
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

        if out is not None:
            headline = [
                res.decision_text() + f" (LLR {res.llr:+.2f}, bounds {res.lower:+.2f}/{res.upper:+.2f}, "
                                      f"{res.games:,} games)",
                f"score of {a} against {b}: {res.score:.4f} [{res.lo:.4f}, {res.hi:.4f}] (95%)",
                f"Elo difference: {_elo(res.elo)} [{_elo(res.elo_lo)}, {_elo(res.elo_hi)}] (95%)",
            ]
            spec.update({"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "max_games": max_games,
                         "min_games": min_games, "paired": paired, "batch": batch, "llr": llr})
            info = {"command": "shedsim sprt", "argv": argv,
                    "title": f"SPRT {a} vs {b} ({rules_txt}, {players} players, "
                             f"{'paired' if paired else 'unpaired'} deals): {res.decision}",
                    "spec": spec, "seed": seed, "result": res.to_json(), "definitions": S.DEFINITIONS,
                    "headline": headline, "notes": [degenerate] if degenerate else [], "versions": versions(), "wall_s": round(wall, 3)}
            _write_set(out, "sprt", res.path_table(), lambda path: S.plot_llr(res, path), "llr.png", info, quiet,
                       session)


def _compare(a, b, rs, players, n_games, seed, paths, out, quiet, err, spec, argv, rules_txt, t0, session) -> None:
    """``--compare-pairing``: run :func:`shedsim.analysis.sprt.pairing_gain`, print and write it."""
    import time

    from shedsim.cli.common import fail
    from shedsim.analysis import sprt as S
    from shedsim.runs.simulate import SimulationError
    from shedsim.analysis.tournament import versions
    total = n_games // players * players
    progress = None if quiet else _progress(err)
    try:
        if progress is not None:
            with progress:
                task = progress.add_task("games (paired, then unpaired)", total=2 * total, info="")
                gain = S.pairing_gain(a, b, rs, players, n_games, seed, strategy_paths=paths,
                                      on_batch=lambda done: progress.update(task, completed=done))
        else:
            gain = S.pairing_gain(a, b, rs, players, n_games, seed, strategy_paths=paths)
    except S.SPRTError as e:
        fail(str(e))
    except SimulationError as e:
        fail(str(e), 1)
    except KeyboardInterrupt:
        fail(("terminated (SIGTERM)" if session.got_signal == "SIGTERM" else "interrupted") + ": nothing written",
             143 if session.got_signal == "SIGTERM" else 130)
    p, u = gain.paired, gain.unpaired
    unit = "pairs" if players == 2 else "deals"
    typer.echo(f"Pairing gain, {a} vs {b}: {rules_txt}, {players} players, {p.games:,} games per design (seed {seed})")
    typer.echo(f"  paired    score {p.score:.4f}  [{p.lo:.4f}, {p.hi:.4f}]  width {p.width:.4f}  "
               f"(t over {p.units:,} {unit})")
    typer.echo(f"  unpaired  score {u.score:.4f}  [{u.lo:.4f}, {u.hi:.4f}]  width {u.width:.4f}  "
               f"(t over {u.units:,} games)")
    verdict = ("pairing helps" if gain.ratio > 1 else "pairing does not help here")
    typer.echo(f"  width ratio unpaired / paired = {gain.ratio:.3f}: {verdict}; unpaired deals need "
               f"{gain.variance_ratio:.2f}x as many games for the same precision")
    if out is not None:
        spec.update({"games": n_games, "games_per_design": p.games})
        info = {"command": "shedsim sprt --compare-pairing", "argv": argv,
                "title": f"Paired vs unpaired deals: {a} vs {b} ({rules_txt}, {players} players, "
                         f"{p.games:,} games each)",
                "spec": spec, "seed": seed,
                "result": {"paired": p.__dict__ | {"width": p.width}, "unpaired": u.__dict__ | {"width": u.width},
                           "ratio": gain.ratio, "variance_ratio": gain.variance_ratio},
                "definitions": S.DEFINITIONS,
                "headline": [f"paired deals: score {p.score:.4f} [{p.lo:.4f}, {p.hi:.4f}], width {p.width:.4f}",
                             f"unpaired deals: score {u.score:.4f} [{u.lo:.4f}, {u.hi:.4f}], width {u.width:.4f}",
                             f"width ratio {gain.ratio:.3f} (unpaired needs {gain.variance_ratio:.2f}x the games)"],
                "versions": versions(), "wall_s": round(time.perf_counter() - t0, 3)}
        _write_set(out, "pairing", gain.table(), lambda path: S.plot_pairing(gain, path), "pairing.png", info,
                   quiet, session)


def _write_set(out, name: str, table, plot, chart: str, info: dict, quiet: bool, session) -> None:
    """Write ``NAME.csv``, the chart and ``run.json`` into ``out``, all or none (exit 3);
    signals wait until the set is written."""
    from shedsim.runs import atomic
    from shedsim.cli.common import fail
    from shedsim.analysis.tournament import write_csv, write_run_json
    try:
        with session.deferred(), atomic.batch():
            write_csv(table, out / f"{name}.csv")
            plot(out / chart)
            write_run_json(out, info, [f"{name}.csv", chart])
    except OSError as e:
        fail(f"{e} (no file was written)", 3)
    if not quiet:
        typer.echo(f"wrote {name}.csv, {chart}, run.json to {str(out)}")


def _elo(x: float) -> str:
    import math
    if not math.isfinite(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x + 0.0:+.1f}".replace("-0.0", "+0.0")  # no "-0.0" from a rounding sign


def _progress(console):
    """A rich progress bar over --max-games with the running score and LLR."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(bar_width=12), MofNCompleteColumn(),
                    TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=console)
