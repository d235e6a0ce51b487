"""``shedsim train``: the typer command (registered in :mod:`shedsim.cli`): options ->
self-play (:mod:`shedsim.analysis.learn.selfplay`) -> the fit
(:mod:`shedsim.analysis.learn.train`) -> the weights and the run's files written."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import choice_help, fail, load_rules

TEACHER_OVERRIDES = ":iterations=50,value=0"
"""What the default self-play player, the strongest (:func:`shedsim.plugins.choice`), plays
with: an eighth of its search budget (eight times the games in the time) and no learned
value, so the data do not depend on the weights they train."""


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
                "search and parameters (default: the strongest, "
            )
            + choice_help("strongest")
            + f", with {TEACHER_OVERRIDES[1:]}).",
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-g", min=1, help="Self-play games (2 players).")
    ] = 20_000,
    every: Annotated[
        int,
        typer.Option(
            "--every", min=1, help="Keep one in this many decisions with a choice as a position."
        ),
    ] = 8,
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
            help="Fit to the positions of an earlier run's data.npz instead of playing.",
        ),
    ] = None,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Folder of the run's files: data.npz, loss.csv, loss.png, run.json, the weights.",
        ),
    ] = Path("reports/train"),
    weights: Annotated[
        Optional[Path],
        typer.Option(
            "--weights",
            help=(
                "Where the weights go (default: OUT/value_2p.npz). The search reads "
                "shedsim/kernel/value_2p.npz: `make train` writes there."
            ),
        ),
    ] = None,
) -> None:
    """Train the learned value of the search (ismcts's and champion's `value` parameter).

    Plays --games 2-player self-play games with --teacher in both seats (compiled, on
    --workers processes; the same seed gives the same games for any number of workers), keeps
    one in --every decisions with a choice (the features of the position, the outcome of the
    game for the seat to move), and fits a one-hidden-layer perceptron (scikit-learn: pip
    install -e '.[learn]') to say whether the seat to move wins. One game in five is held out;
    the epoch with the lowest held-out log loss is kept. The run's positions (data.npz), loss
    curve (loss.csv, loss.png) and options (run.json) are written to --out.
    """
    import json

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from shedsim.analysis.learn import selfplay as S
    from shedsim.analysis.learn import train as T
    from shedsim.plugins import PluginError, choice, discover, parse_spec
    from strategies.ismcts import PARAMS as SEARCH_PARAMS

    import os

    seed = 0 if seed is None else seed
    workers = workers or os.cpu_count() or 1
    try:
        T.require_sklearn()
    except RuntimeError as e:
        fail(str(e))
    rs = load_rules(rules, house, rules_file)
    try:
        rules_array = rs.compile(2)
    except Exception as e:  # noqa: BLE001 - the rule set's own message names the field
        fail(f"--rules: {e}")
    teacher = teacher or choice("strongest")[0] + TEACHER_OVERRIDES
    try:
        name, overrides = parse_spec(teacher)
        strat = discover().require(name)
        if not strat.compiled or list(strat.params) != list(SEARCH_PARAMS):
            raise PluginError(
                f"{name} is not ismcts's search (its parameters differ); self-play plays "
                "ismcts's search with the teacher's parameters"
            )
        params = strat.params_array(overrides)
    except PluginError as e:
        fail(f"--teacher: {e}")
    console = Console(stderr=True)
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        if data is None:
            task = bar.add_task("self-play games", total=games)
            x, meta = S.self_play(
                rules_array, params, games, seed, every, workers,
                progress=lambda done: bar.update(task, completed=done),
            )  # fmt: skip
        else:
            try:
                import numpy as np

                with np.load(data) as z:
                    x, meta = z["x"], z["meta"]
                    played = json.loads(str(z["about"])) if "about" in z.files else {}
            except (OSError, KeyError, ValueError, json.JSONDecodeError) as e:
                fail(f"--data {data}: not a training run's data.npz ({e})")
        task = bar.add_task("epochs", total=epochs)
        try:
            result = T.fit(
                x, meta, rules_array, hidden, epochs, seed, l2,
                progress=lambda epoch, row: bar.update(task, completed=epoch),
            )  # fmt: skip
        except ValueError as e:
            fail(str(e))
    if data is None:
        played = {"teacher": teacher, "games": games, "every": every}
    about = {
        "rules": rs.name,
        **{k: played.get(k) for k in ("teacher", "games", "every")},
        "data": str(data) if data is not None else None,
        "hidden": hidden,
        "l2": l2,
        "epochs": epochs,
        "seed": seed,
    }
    T.write_run(out, x, meta, result, about)
    target = weights or out / "value_2p.npz"
    T.write_weights(target, result.weights)
    s = result.summary
    typer.echo(
        f"{s['positions']:,} positions of {s['games']:,} finished games "
        f"({s['positions_held_out']:,} held out); epoch {s['epoch_kept']} kept: held-out log "
        f"loss {s['held_out_loss']:.4f} (a constant guess: {s['held_out_loss_constant']:.4f}), "
        f"accuracy {s['held_out_accuracy']:.1%}"
    )
    typer.echo(f"weights: {target}; data, loss curve and options: {out}/")
