"""``shedsim play``: a game in the terminal against the built-in bots (the game itself is
:class:`shedsim.analysis.play.Game`)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import (
    BotOpt,
    HouseOpt,
    RulesFileOpt,
    RulesOpt,
    StrategyPathOpt,
    bot_entries,
    bot_spec,
    choice_help,
    fail,
    load_rules,
)
from shedsim.runs.limits import INT64_MAX


def play(
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[
        int, typer.Option("--players", "-p", help="Number of seats, yours included.")
    ] = 3,
    opponents: Annotated[
        Optional[str],
        typer.Option(
            "--opponents",
            "-o",
            help="Comma-separated bot strategies (NAME "
            "or NAME:param=v), seated in turn after you and repeated "
            "as needed (`shedsim strategies` lists them). Default: "
            "the strongest player, " + choice_help("strongest") + ", then the "
            "reference opponent, " + choice_help("reference") + ".",
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            "-s",
            min=0,
            help="Seed of the deal and the bots' coin flips (same seed and inputs, same game).",
        ),
    ] = 0,
    game: Annotated[
        int,
        typer.Option(
            "--game",
            "-g",
            min=0,
            max=INT64_MAX,
            help="Game number within the seed (another deal; the dealer is game % players).",
        ),
    ] = 0,
    seat: Annotated[
        int,
        typer.Option(
            "--seat",
            min=0,
            help="Your seat, 0 to players-1 (the dealer of game g is seat g % players).",
        ),
    ] = 0,
    moves: Annotated[
        Optional[str],
        typer.Option(
            "--moves",
            help="Inputs to play first, separated by ';' (the "
            "line quit prints, to go on with a game later).",
        ),
    ] = None,
    hint_policy: Annotated[
        Optional[str],
        typer.Option(
            "--hint-policy",
            help="The policy whose playouts answer "
            "hint and why (as hint's --policy; default: " + choice_help("policy") + ").",
        ),
    ] = None,
    hint_budget: Annotated[
        int,
        typer.Option(
            "--hint-budget", min=10, help="Most samples per move for hint (why uses half)."
        ),
    ] = 1000,
    hint_objective: Annotated[
        Optional[str],
        typer.Option(
            "--hint-objective",
            help="What hint and why rank by "
            "(as hint's --objective: lose, place or first; default: "
            "what the rules score).",
        ),
    ] = None,
    strategy_path: StrategyPathOpt = None,
    bot: BotOpt = None,
    from_file: Annotated[
        Optional[Path],
        typer.Option(
            "--from",
            help="A game record (`shedsim trace --record "
            "FILE`): go on with that game from its position, the other "
            "seats played by the strategies it names.",
        ),
    ] = None,
    move: Annotated[
        Optional[int],
        typer.Option(
            "--move",
            min=0,
            help="With --from: start after this many of the recorded moves (default: all of them).",
        ),
    ] = None,
) -> None:
    """Play a game against the bots in the terminal.

    You see your hand and face-up row, every face-up row, hand size and face-down count, the pile's top cards and size, the stock, and every move the bots make, with the reason for each burn, skip and reverse in words. First choose your face-up cards (a choice's number, 1 = keep the cards as dealt, or the cards, e.g. 'K A 10'); then on each turn type a move's number from the list or the move itself (play 7x1, play 7x2, pickup, flip 2, gamble), or:

    hint: your moves ranked by playouts from what you can see (expected place, P(lose), P(first), 95% intervals; ranked by what the rules score, or --hint-objective); search: your moves ranked by the strongest player's search from what you can see (as shedsim hint ranks them: the move it would play first, its estimates without interval); why: the last bot move explained (the bot's rule and how playouts from what it saw rank the move); table: the table again; help; quit.

    When standard input is not a terminal the same commands are read line by line (for scripts and tests); the game ends with a line starting 'result:' giving every place. Bad input changes nothing: the message says what is wrong and the game goes on (a bad --moves entry stops the command instead, exit 2, naming the entry). quit, the end of input and a bot that fails print the command that continues the game later (--moves).

    Exit codes: 0 game over or quit; 1 input ended before the game did, or a bot failed; 2 bad options.

    --from FILE [--move N] goes on with a recorded game (docs/reference/game-records.md) from its position after N moves: you take --seat, the record's strategies play the other seats; the rules, players and deal come from the record.

    Example: shedsim play --players 3 --opponents heuristic,greedy --seed 7
    """  # noqa: E501
    from shedsim.analysis.play import Game, PlayError
    from shedsim.cli.records import again_from, play_from

    paths = tuple(str(p) for p in strategy_path or [])
    hints, opening = (
        dict(hint_policy=hint_policy, hint_budget=hint_budget, hint_objective=hint_objective),
        None,
    )
    try:
        if from_file is not None:
            g, opening = play_from(
                from_file, move, seat, house, rules_file, strategy_paths=paths, **hints
            )
        else:
            rs = load_rules(rules, house, rules_file)
            opponents, specs, bots = _opponents(opponents, players, bot, strategy_path)
            g = Game(
                rs,
                players,
                specs,
                seed=seed,
                game=game,
                seat=seat,
                strategy_paths=paths,
                labels={spec: label for label, spec in bots},
                **hints,
            )
    except PlayError as e:
        fail(str(e))
    tty = sys.stdin.isatty()
    queued = [m.strip() for m in (moves or "").split(";") if m.strip()]

    def again() -> str:
        if from_file is not None:
            return again_from(from_file, move, seat, house, rules_file, paths, g.inputs, **hints)
        return _again(
            rules,
            house,
            rules_file,
            players,
            opponents,
            seed,
            game,
            seat,
            hint_policy,
            hint_budget,
            hint_objective,
            paths,
            g.inputs,
            bot,
        )

    _say(g.swap_lines() if opening is None else opening)
    _game_loop(g, queued, tty, again)


def _opponents(
    opponents: str | None, players: int, bot, strategy_path
) -> tuple[str, list[str], list]:
    """``--opponents`` as given (the default list cut to the other seats), its specs (a
    ``--bot`` label read as that bot) and the bots; exits 2 when it names more strategies
    than there are other seats."""
    from shedsim.analysis.play import default_opponents

    given = opponents is not None
    if opponents is None:  # as many of the default list as there are other seats
        opponents = ",".join(default_opponents()[: max(players - 1, 1)])
    bots = bot_entries(bot, strategy_path)  # --opponents LABEL of a --bot LABEL=COMMAND
    specs = [bot_spec(s.strip(), bots) for s in _split_specs(opponents)]
    if given and len(specs) > players - 1:
        fail(
            f"--opponents: {len(specs)} strategies for the {players - 1} other "
            f"seat(s) at {players} players (--players); name at most {players - 1}"
        )
    return opponents, specs, bots


def _say(lines) -> None:
    for ln in lines:
        typer.echo(ln)


def _game_loop(g, queued: list[str], tty: bool, again) -> None:
    """Read and play the user's commands until the game is over (``again()``: the command
    that goes on with the game later, printed on quit, at the end of input and when a bot
    fails). Raises typer.Exit on quit (0) and on the end of input or a bot's failure (1)."""
    from shedsim.analysis.play import InputError
    from shedsim.rules.engine import StrategyError

    entries = len(queued)
    while not g.over:
        from_moves = bool(queued)  # a --moves entry, not a typed line
        line = _read_line(g.prompt(), queued, tty)
        if line is None:
            typer.echo(
                f"end of input before the game ended (move {g.state.moves}); nothing is lost: "
                "go on with\n"
                f"  {again()}",
                err=True,
            )
            raise typer.Exit(1)
        if line.strip().lower() in ("quit", "exit", "q"):
            typer.echo(f"quit at move {g.state.moves}; go on with this game later:\n  {again()}")
            raise typer.Exit(0)
        try:
            out = g.handle(line)
        except InputError as e:
            if from_moves:  # a script's mistake: stop at once, naming the entry
                typer.echo(
                    f"error: --moves: entry {entries - len(queued)} ({line!r}): {e}; the entries "
                    f"before it were played, go on from there with\n  {again()}",
                    err=True,
                )
                raise typer.Exit(2) from None
            typer.echo(f"  ! {e}")
            continue
        except (
            StrategyError
        ) as e:  # a bot (or the hint policy) failed: the game cannot go on as it is
            typer.echo(f"error: {e}", err=True)
            typer.echo(
                f"the game stops after {g.state.moves} move(s); nothing is lost: once the "
                "strategy is fixed, "
                f"go on with\n  {again()}",
                err=True,
            )
            raise typer.Exit(1) from None
        _say(out)
        if not g.over and g.swapped and g.state.to_move == g.you and _changed(line):
            _say(g.table_lines())


def _read_line(prompt: str, queued: list[str], tty: bool) -> str | None:
    """The next command: a queued one (--moves), a typed one (Ctrl-C: quit) or a line of
    standard input, echoed after the prompt; None at the end of input."""
    if queued:
        line = queued.pop(0)
        typer.echo(prompt + line)
        return line
    if tty:
        try:
            return input(prompt)
        except EOFError:
            typer.echo("")
            return None
        except KeyboardInterrupt:
            typer.echo("")
            return "quit"
    raw = sys.stdin.readline()
    if raw == "":
        return None
    typer.echo(prompt + raw.rstrip("\n"))
    return raw.rstrip("\n")


def _again(
    rules,
    house,
    rules_file,
    players,
    opponents,
    seed,
    game,
    seat,
    hint_policy,
    hint_budget,
    hint_objective,
    paths,
    inputs,
    bots=None,
) -> str:
    """The command line that continues this game later (its options and ``--moves``)."""
    args = ["shedsim", "play"]
    if rules_file is not None:
        args += ["--rules-file", str(rules_file)]
    else:
        args += ["--rules", rules]
    for h in house or []:
        args += ["--house", h]
    args += ["--players", str(players), "--opponents", opponents, "--seed", str(seed)]
    if game:
        args += ["--game", str(game)]
    if seat:
        args += ["--seat", str(seat)]
    if hint_policy is not None:
        args += ["--hint-policy", hint_policy]
    if hint_budget != 1000:
        args += ["--hint-budget", str(hint_budget)]
    if hint_objective is not None:
        args += ["--hint-objective", hint_objective]
    for p in paths:
        args += ["--strategy-path", p]
    for b in bots or []:
        args += ["--bot", b]
    if inputs:
        args += ["--moves", ";".join(inputs)]
    return shlex.join(args)


def _changed(line: str) -> bool:
    return line.strip().lower() not in ("hint", "search", "why", "table", "help")


def _split_specs(text: str) -> list[str]:
    """Comma-separated strategy specs, a ``param=v`` piece continuing the spec before it
    (``mc:rollouts=8,cap=200,greedy`` is two specs)."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if out and "=" in piece and ":" not in piece and ":" in out[-1]:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out
