"""``shedsim train``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.train` (self-play and the fit: :mod:`shedsim.analysis.learn`) -> the
figures printed."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import choice_help, fail, load_rules


class _Terminated(Exception):
    """SIGTERM during a run: it stops as Ctrl-C does, with exit code 143."""


_OVERRIDES = "iterations=50,value=0"  # shedsim.analysis.learn.run.TEACHER_OVERRIDES, in words


def train(
    rules: O.RulesOpt = "shithead",
    house: O.HouseOpt = None,
    rules_file: O.RulesFileOpt = None,
    teacher: Annotated[
        Optional[str],
        typer.Option(
            "--teacher",
            help=(
                "The player of both seats in self-play, NAME:param=v: a strategy with ismcts's "
                "search and parameters, value=0 unless given (default: the strongest, "
            )
            + choice_help("strongest")
            + f", with {_OVERRIDES}).",
        ),
    ] = None,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-g",
            min=1,
            help="Self-play games, 2 players (default: 20000, a long run; try 200 first).",
        ),
    ] = None,
    every: Annotated[
        Optional[int],
        typer.Option(
            "--every",
            min=1,
            help="Keep one in this many decisions with a choice as a position (default: 8).",
        ),
    ] = None,
    hidden: Annotated[int, typer.Option("--hidden", min=1, help="Hidden units of the model.")] = 32,
    l2: Annotated[
        float, typer.Option("--l2", min=0.0, help="L2 penalty of the fit (scikit-learn's alpha).")
    ] = 0.1,
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="Passes over the data.")] = 30,
    seed: O.SeedOpt = None,
    workers: O.WorkersOpt = None,
    data: Annotated[
        Optional[Path],
        typer.Option(
            "--data",
            exists=True,
            dir_okay=False,
            help=(
                "Fit to the positions of an earlier run's data.npz instead of playing (played "
                "under the same rules; --games, --every and --teacher are then refused)."
            ),
        ),
    ] = None,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help=(
                "Folder of the run's files: data.npz, loss.csv, loss.png, run.json and the "
                "weights; new, empty or an earlier training run's."
            ),
        ),
    ] = Path("reports/train"),
    weights: Annotated[
        Optional[Path],
        typer.Option(
            "--weights",
            help=(
                "Where the weights go (default: OUT/value_2p.npz). The search reads "
                "shedsim/kernel/value_2p.npz of its installation: `make train` writes there "
                "in a clone."
            ),
        ),
    ] = None,
) -> None:
    """Train the learned value of the search (ismcts's and champion's `value` parameter).

    Plays --games 2-player self-play games with --teacher in both seats (compiled, on
    --workers processes; the same seed gives the same games for any number of workers), keeps
    one in --every decisions with a choice (the features of the position, the outcome of the
    game for the seat to move), and fits a one-hidden-layer perceptron (scikit-learn, the learn
    extra: pip install -e '.\\[learn]') to say whether the seat to move wins. One game in five
    is held out; the epoch with the lowest held-out log loss is kept. The run's positions
    (data.npz), loss curve (loss.csv, loss.png), options (run.json) and weights are written to
    --out, all or nothing. Ctrl-C stops it and writes nothing.
    """
    import os

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    import shedsim.api as api
    from shedsim.output.console import out_console

    rs = load_rules(rules, house, rules_file)

    def terminated(*_):
        raise _Terminated

    console = out_console(stderr=True)
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    tasks: dict[str, int] = {}
    before = signal.signal(signal.SIGTERM, terminated)
    try:
        with Progress(*columns, console=console, transient=True) as bar:

            def progress(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = bar.add_task(stage, total=total)
                bar.update(tasks[stage], completed=done)

            r = O.call(
                api.train, rules=rs, teacher=teacher, games=games, every=every, hidden=hidden,
                l2=l2, epochs=epochs, seed=0 if seed is None else seed,
                workers=workers or os.cpu_count() or 1, data=data, out=out, weights=weights,
                progress=progress,
            )  # fmt: skip
    except (KeyboardInterrupt, _Terminated) as e:
        fail("interrupted: nothing written", 143 if isinstance(e, _Terminated) else 130)
    finally:
        signal.signal(signal.SIGTERM, before)
    s = r.summary
    typer.echo(
        f"{s['positions']:,} positions of {s['games']:,} finished games, "
        f"{s['positions_held_out']:,} of them held out; epoch {s['epoch_kept']} kept: held-out "
        f"log loss {s['held_out_loss']:.4f} (a constant guess: "
        f"{s['held_out_loss_constant']:.4f}), accuracy {s['held_out_accuracy']:.1%}"
    )
    if not r.beats_constant:
        typer.echo(
            "warning: the model does not beat a constant guess on the held-out games: play "
            "more games (--games)",
            err=True,
        )
    typer.echo(f"weights: {r.weights}; data, loss curve and options: {out}/")
