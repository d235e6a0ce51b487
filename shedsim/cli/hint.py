"""``shedsim hint``: the typer command (registered in :mod:`shedsim.cli`); the engine is
:func:`shedsim.analysis.hint.rank_moves`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import choice_help


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` to stderr and exit with ``code`` (2: bad file or options)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def hint(
    file: Annotated[
        Path,
        typer.Argument(
            help=(
                "A scenario TOML file (the format of tests/scenarios/); the position is the "
                "one after its moves."
            )
        ),
    ],
    seat: Annotated[
        Optional[int],
        typer.Option(
            "--seat",
            help=(
                "The seat to advise (default: the seat to move; another seat is advised as if "
                "it were its turn)."
            ),
        ),
    ] = None,
    policy: Annotated[
        Optional[str],
        typer.Option(
            "--policy",
            help=(
                "With --playouts: the compiled strategy that finishes every sampled game for "
                "every seat (NAME or NAME:param=v; giving it asks for playouts). Default: "
            )
            + choice_help("policy")
            + (
                ", the strongest playout policy that answers in seconds. Also greedy "
                "(fastest, weaker), mc:rollouts=8, ismcts:iterations=40 (search at every "
                "decision: slow), any plugin. With --search: the strategy whose search ranks "
                "the moves (one with a root_search, e.g. champion:explore=100; its iterations "
                "are --iterations)."
            ),
        ),
    ] = None,
    budget: Annotated[
        Optional[int],
        typer.Option(
            "--budget",
            "-b",
            min=1,
            help=(
                "The most samples (re-deals of the unseen cards) per move. Default, by the "
                "policy's cost class (its TRAITS): "
            )
            + choice_help("budgets")
            + ".",
        ),
    ] = None,
    batch: Annotated[
        int,
        typer.Option(
            "--batch",
            min=1,
            help="Samples per round of the race (the early-stop check runs after each).",
        ),
    ] = 100,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            "-s",
            min=0,
            help="Seed of the re-deals and the policy's coin flips (same seed, same figures).",
        ),
    ] = 0,
    cap: Annotated[
        int,
        typer.Option(
            "--cap",
            min=1,
            max=10_000_000,
            help=(
                "The most moves of a playout after the candidate move (seats still in then "
                "share the places left; at most 10,000,000, the longest move cap of a rule "
                "set)."
            ),
        ),
    ] = 400,
    objective: Annotated[
        Optional[str],
        typer.Option(
            "--objective",
            help=(
                "What the ranking follows: lose (P(lose), lower first), place (expected place) "
                "or first (P(first), higher first). Default: what the rule set's scoring "
                "rewards: lose for duel, family and shithead (only losing counts), place for "
                "nines and palace."
            ),
        ),
    ] = None,
    solve_limit: Annotated[
        int,
        typer.Option(
            "--solve-limit",
            min=0,
            help=(
                "The most positions the exact search of an end game (two seats in, the stock "
                "empty, no face-down card) may enumerate before the moves are ranked by "
                "playouts instead; 0 never solves."
            ),
        ),
    ] = 20_000,
    search: Annotated[
        Optional[bool],
        typer.Option(
            "--search/--playouts",
            help=(
                "--search ranks the moves by the strongest player's own search: its tree "
                "search from the seat's view (default "
            )
            + choice_help("strongest")
            + (
                "), the move it would play first, with its estimates per move (no interval), "
                "in about a second (--batch and --cap are the playouts' and not used). "
                "--playouts ranks them by playouts of --policy, with 95% intervals. Default: "
                "--search, unless --policy or --budget is given (--iterations asks for the "
                "search)."
            ),
        ),
    ] = None,
    iterations: Annotated[
        Optional[int],
        typer.Option(
            "--iterations",
            min=1,
            max=10_000_000,
            help="Iterations of --search (default 200,000; each a fresh deal of the unseen cards).",
        ),
    ] = None,
    why: Annotated[
        bool,
        typer.Option(
            "--why",
            help=(
                "Say why the top move beats the runner-up: from what happened in the "
                "playouts, or how the search shared its iterations between them."
            ),
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print one JSON object (moves best first) instead of the table."
        ),
    ] = False,
    strategy_path: Annotated[
        Optional[list[Path]],
        typer.Option("--strategy-path", help="Extra directory of strategy plugins, repeatable."),
    ] = None,
) -> None:
    """Which move is best here? Rank every legal move of a position, by the strongest player's search or by playouts.

    Uses only what the seat can see. By default (--search) the strongest player, champion, searches the position as it would to choose its move: a tree search in which every iteration deals the cards the seat has not seen afresh (other hands, face-down cards, the stock, and cards the file leaves out; the ranks a forced pick-up showed a hand lacks are kept out of it). Moves are ranked by the search's visits: the first is the move it would play. Per move: its expected place, P(lose) and P(first) as the search estimated them, without interval, and its visits.

    With --playouts (or --policy, or --budget) each sample re-deals those cards into the places the seat cannot see, plays each legal move and finishes the game with --policy for every seat; every move is played on the same samples (common random numbers). Per move: expected place (1 = first out), P(lose) (last place) and P(first), each with a 95% interval. Moves are raced: a move clearly worse than the best in the ranking's figure (paired difference, 95% with a union bound) stops being played; the run stops early once one move is left, or when the moves left tie in every sample, else at --budget samples per move. The output says which.

    Either way moves are ranked by the rule set's objective (--objective): P(lose) where only losing is scored (duel, family, shithead), expected place where places are (nines, palace).

    An end game of perfect information (two seats still in, the stock empty, no face-down card) is solved exactly instead when the seat knows the other hand (the file lists the burned cards with burned_cards, or that hand's cards as known): a winning move is ranked first and the output says "solved: play 7x2 wins against every reply"; a lost position ranks the moves that hold out longest first. Too big for --solve-limit, it is ranked as otherwise, with a note.

    Exit codes: 0 done; 1 the policy (a plugin) crashed, failed or made no decision within SHEDSIM_DECISION_TIMEOUT seconds (10 by default; named); 2 bad file or options (the message names the field); 130 interrupted (Ctrl-C).

    Examples: shedsim hint docs/examples/hint_fourth_seven.toml --why --policy mc:rollouts=8;  shedsim hint pos.toml --policy greedy --budget 20000;  shedsim hint pos.toml --seat 2 --json;  shedsim hint pos.toml --iterations 1000000
    """  # noqa: E501
    from shedsim.analysis.hint import HintError, PolicyCrash, rank_moves
    from shedsim.rules.scenario import ScenarioError, load_scenario, play_moves

    try:
        sc = load_scenario(file)
        state, _ = play_moves(sc)
    except ScenarioError as e:
        fail(str(e))
    paths = tuple(str(p) for p in strategy_path or [])
    if iterations is not None and search is False:
        fail("--iterations: only with --search (the playouts' count is --budget)")
    run = dict(
        why=why, objective=objective, solve_limit=solve_limit, search=search, iterations=iterations
    )
    try:
        if as_json:
            res = rank_moves(state, seat, policy, budget, seed, batch, cap, paths, **run)
        else:
            from rich.progress import Progress

            with Progress(transient=True) as bar:
                task = bar.add_task("samples per move", total=None)
                res = rank_moves(
                    state,
                    seat,
                    policy,
                    budget,
                    seed,
                    batch,
                    cap,
                    paths,
                    **run,
                    progress=lambda d, t: bar.update(task, completed=d, total=t),
                )
    except HintError as e:
        fail(str(e))
    except PolicyCrash as e:
        fail(str(e), 1)
    except (
        KeyboardInterrupt
    ):  # a plugin policy's playouts run in a child, which is stopped with them
        fail("interrupted: no hint computed", 130)
    if as_json:
        out = {"position": str(file), "to_move": state.to_move, **res.to_json()}
        typer.echo(json.dumps(out, indent=2))
        return
    from shedsim.output.console import hint_table, out_console

    console = out_console()
    console.print(hint_table(res, state.to_move, file))
    if res.note:
        console.print(res.note, highlight=False)
    console.print(f"{res.stop_text()} ({res.seconds:.1f} s)", highlight=False)
    if res.why:
        console.print(f"why: {res.why}", highlight=False)
