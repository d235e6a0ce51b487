"""``shedsim tips``: the typer command (registered in :mod:`shedsim.cli`). The measurement
lives in :mod:`shedsim.analysis.tips`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import BotOpt

from shedsim.cli.common import choice_help

_P_RUN = "What to play"
_P_OUT = "Output"
PRESETS = ("duel", "nines", "family", "palace", "shithead")
TIPS_OUTPUTS = ("tips.csv", "forest.png", "run.json")
"""What tips writes into --out: a file of these names that shedsim did not write is never replaced."""


def tips(
    rules: Annotated[Optional[list[str]], typer.Option("--rules", "-r", rich_help_panel=_P_RUN, help="Rule set (preset or rules .toml file), repeatable; default: every preset.")] = None,
    house: Annotated[Optional[list[str]], typer.Option("--house", "-H", rich_help_panel=_P_RUN, help="House toggle for every rule set, repeatable.")] = None,
    players: Annotated[Optional[list[int]], typer.Option("--players", "-p", rich_help_panel=_P_RUN, help="Player count, repeatable; default: 2 and 4 (counts a rule set does not allow are skipped).")] = None,
    tip: Annotated[Optional[list[str]], typer.Option("--tip", "-t", rich_help_panel=_P_RUN, help="Only this tip, repeatable (default: every tip).")] = None,
    games: Annotated[int, typer.Option("--games", "-g", rich_help_panel=_P_RUN, help="Games per variant (follow, ignore) and cell, whole deals.")] = 40_000,
    base: Annotated[Optional[str], typer.Option("--base", rich_help_panel=_P_RUN, help="The tested player before a tip is switched: a spec of a strategy with every tip's parameter (default: " + choice_help("tips-base") + ").")] = None,
    opponents: Annotated[Optional[str], typer.Option("--opponents", rich_help_panel=_P_RUN, help="Strategy of the other seats (default: the reference opponent, " + choice_help("reference") + ").")] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, rich_help_panel=_P_RUN, help="Run seed (the deals).")] = 0,
    strategy_path: Annotated[Optional[list[Path]], typer.Option("--strategy-path", rich_help_panel=_P_RUN, help="Extra directory of strategy plugins, repeatable.")] = None,
    bot: BotOpt = None,
    out: Annotated[Path, typer.Option("--out", "-o", rich_help_panel=_P_OUT, help="Output directory. A file there that shedsim did not write is never replaced.")] = Path("reports/tips"),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", rich_help_panel=_P_OUT, help="No progress bar.")] = False,
) -> None:
    """Do the beginner tips work? Each tip followed against ignored, everything else equal.

    Every tip of the rule pages is a parameter of the heuristic strategy: save the 10s for a big pile, pick up a small pile rather than spend a special, strong cards face up, pairs together, watch the high cards, block a player about to go out, complete four of a kind, pass the problem on with a 9, take a small pile of specials. For each tip, in each rule set where it applies and at each player count, --base is played with the tip's parameter switched on and off, in one seat against --opponents, on the same paired deals (each deal under every rotation).

    Reports the effect (follow - ignore) on the loss rate and the mean place with 95% t intervals over deals and paired t tests, Holm-corrected over every row, and a verdict by what each rule set scores (the loss rate in duel, family and shithead, the mean place in nines and palace): helps, hurts, no practical effect (below 1 percentage point of loss rate or 0.02 places) or no clear effect (more games would tell); then a summary per tip.

    Writes tips.csv, forest.png and run.json (read by shedsim report).

    Exit codes: 0 done; 1 a strategy failed; 2 bad options; 3 a file could not be written; 130 interrupted (Ctrl-C), 143 terminated (SIGTERM): nothing written.

    Examples: shedsim tips;  shedsim tips --rules shithead --players 4 --games 100000;  shedsim tips --tip pass_on_nine --rules nines
    """  # noqa: E501 (typer shows each paragraph as one line)
    import time

    from shedsim.analysis import tips as TP
    from shedsim.analysis.tournament import Store, TournamentError
    from shedsim.rules.ruleset import RulesError, build
    from shedsim.runs.execute import RunError, Session, command_line
    from shedsim.runs.simulate import SimulationError

    paths = tuple(str(p) for p in strategy_path or [])
    names = list(rules or PRESETS)
    counts = sorted(set(players or [2, 4]))
    try:
        rule_sets = [build(r, house or [], None) for r in names]
    except RulesError as e:
        fail(f"--rules: {e}")
    try:
        chosen = TP.select(list(tip or []))
        base = TP.default_base() if base is None else base
        opponents = TP.default_opponents() if opponents is None else opponents
        from shedsim.cli.common import bot_entries, bot_spec
        opponents = bot_spec(opponents, bot_entries(bot))  # --opponents LABEL of a --bot LABEL=COMMAND
        TP.check_players(base, opponents, chosen, paths)  # before --out is made
        if any(p < 2 for p in counts):
            raise TP.TipsError(f"--players: at least 2, got {min(counts)}")
        from shedsim.runs.limits import game_bytes, memory_problem
        seats = min(max(counts), max(rs.max_players for rs in rule_sets))  # the largest table played
        problem = memory_problem("--games", games, "games", game_bytes(seats),
                                 "at once (each variant of a cell is one kernel call)")
        if problem:
            raise TP.TipsError(problem)
        Store.check_out(out, TIPS_OUTPUTS, force_option=None)  # never replaces a file of yours
        Store.check_writable(out)
    except (TP.TipsError, TournamentError) as e:
        fail(str(e))

    from rich.console import Console
    err = Console(stderr=True)
    session = Session("tips", None, quiet=quiet, console=err)  # SIGINT and SIGTERM: stop, write nothing
    with session:
        progress = None
        if not quiet:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
            progress = Progress(TextColumn("[bold]tips x rules x players"), BarColumn(bar_width=20),
                                MofNCompleteColumn(), TimeElapsedColumn(), console=err)
        t_play = time.perf_counter()
        try:
            if progress is not None:
                with progress:
                    task = progress.add_task("cells", total=None)
                    table, skipped = TP.run_tips(rule_sets, counts, chosen, games, base, opponents, seed, paths,
                                                 lambda d, n: progress.update(task, completed=d, total=n))
            else:
                table, skipped = TP.run_tips(rule_sets, counts, chosen, games, base, opponents, seed, paths)
            session.finishing()  # a signal from now on lets the reports be written
        except TP.TipsError as e:
            fail(str(e))
        except SimulationError as e:
            fail(str(e), 1)
        except KeyboardInterrupt:
            fail(("terminated (SIGTERM)" if session.got_signal == "SIGTERM" else "interrupted") + ": nothing written",
                 session.signal_code())
        play_s = time.perf_counter() - t_play
        if not len(table):
            fail("no tip applies to the rule sets and player counts chosen: " + "; ".join(skipped))

        heads = TP.headline(table)
        info = session.info(
            "shedsim tips", {"rules": names, "house": list(house or []), "players": counts,
                             "tips": [t.key for t in chosen], "games": games, "base": base, "opponents": opponents,
                             "seed": seed, "strategy_paths": list(paths)}, seed,
            play_s=play_s, argv=command_line(),
            title=f"Do the beginner tips work? ({base} against {opponents}; {', '.join(names)}; "
                  f"{', '.join(map(str, counts))} players)",
            headline=heads, skipped=skipped, definitions=TP.DEFINITIONS,
            tips={t.key: {"advice": t.advice, "param": t.param, "follow": t.follow, "ignore": t.ignore,
                          "applies": t.where} for t in chosen})
        from shedsim.analysis.tournament import write_csv
        sub = f"{base} vs {opponents}; {games:,} games per variant and cell; seed {seed}"

        def write() -> list[str]:
            write_csv(table, out / "tips.csv")
            TP.plot_forest(table, out / "forest.png", sub)
            return ["tips.csv", "forest.png"]

        try:
            session.write_files(out, write, info)
        except RunError as e:
            fail(e.message, e.code)
    typer.echo("\n".join(heads))
    if not quiet:
        typer.echo(f"wrote tips.csv, forest.png, run.json to {out}")


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` to stderr and exit with ``code`` (as :func:`shedsim.cli.fail`)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)
