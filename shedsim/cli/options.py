"""The options every command that plays games shares, declared once (typer ``Annotated``
types), the one place a study's error is shown with the command line's flags, and the
call from a command to the Python API.

**Execution options** (:class:`shedsim.runs.study.RunOptions`: how a study runs, never what
it finds): ``--out``, ``--resume``, ``--force``, ``--workers``, ``--backend``,
``--scheduler``, ``--quiet``, ``--no-plots`` and the hidden ``--stop-after``; accepted by
``tournament``, ``compare-rules``, ``swaps``, ``sprt``, ``gauntlet``, ``tips`` and ``tune``
(``bench``:
``--backend`` and ``--scheduler``). Given beside ``--resume`` they may differ from the
stored run's.

**What to play**: the rules (``--rules``, ``--house``, ``--rules-file``), ``--seed``,
``--players``, and the strategy-taking options (below).

**Strategy-taking options**: every option that seats a player (``--strategies``,
``--strategy``, ``--a``/``--b``, ``--opponents``, ``--field``, ``--swap-policy``) takes
strategy specs (``NAME``, ``NAME:param=v``, ``LABEL=SPEC``, ``@ROLE``), found among the
built-in strategies and the ``--strategy-path`` directories (:data:`StrategyPathOpt`). A
new kind of player (a bot command, ``--bot LABEL=COMMAND``) is declared in that section,
once, and given to each of those commands.

Only typer and the standard library are imported here (``shedsim --help`` stays fast).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional
from collections.abc import Callable

import typer

P_RUN = "What to play"
P_OUT = "Output and execution"

DealsOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--deals",
        rich_help_panel=P_RUN,
        help="Play the deals of this deal-set file (`shedsim deals export`; "
        "docs/reference/deals.md), each under "
        "every rotation of the seats, instead of deals shuffled from --seed.",
    ),
]

# ------------------------------------------------------------------ execution options


EARLIER_RUN = "an earlier run of this command (replaced)"
"""What ``--out`` does with a directory holding an earlier run of the same command; another
command's run is always refused (docs/how-to/resume.md#out)."""


def out_option(default: str | None, what: str = "", earlier: str = EARLIER_RUN) -> Any:
    """The ``--out`` type of a command whose default directory is ``default`` (None: write
    nothing unless given); ``what`` says what is written there, ``earlier`` what becomes of
    an earlier run of the command there (default :data:`EARLIER_RUN`)."""
    where = f" (default: {default})" if default else " (default: none, nothing is written)"
    return Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            rich_help_panel=P_OUT,
            help=(
                f"Output directory{what}: new, empty, or one holding {earlier}; another "
                f"command's run is refused{where}."
            ),
        ),
    ]


ResumeOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--resume",
        rich_help_panel=P_OUT,
        help="Continue the interrupted run in this directory (plays only its missing chunks). "
        "Options that decide "
        "the results may be given only with their stored values; execution options may differ.",
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        rich_help_panel=P_OUT,
        help="Write into a --out directory that holds other files (never replacing one of them).",
    ),
]
KeptBesideForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        hidden=True,
        help="Accepted and not needed: this command writes beside other files in --out "
        "(never replacing one of them).",
    ),
]
"""--force of a command that keeps no run store (tips, tune): it writes beside the files of
an --out directory anyway, so the option changes nothing and its help is not listed."""
WorkersOpt = Annotated[
    Optional[int],
    typer.Option(
        "--workers",
        "-w",
        min=1,
        rich_help_panel=P_OUT,
        help="Workers, chunks played at once (default and most: the number of CPUs, fewer "
        "when the memory cannot hold them). "
        "Results do not depend on it.",
    ),
]
BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        rich_help_panel=P_OUT,
        help="loky (this machine: worker processes, or threads of this process for the chunks "
        "of games of shedsim's own strategies in tournament, compare-rules and bench), dask "
        "(a local dask cluster of --workers processes, or the cluster at --scheduler) or ray "
        "(pip install ray). Results do not depend on it.",
    ),
]
SchedulerOpt = Annotated[
    Optional[str],
    typer.Option(
        "--scheduler",
        rich_help_panel=P_OUT,
        help=(
            "Address of a running cluster for --backend dask (tcp://HOST:8786) or ray "
            "(HOST:6379, or auto)."
        ),
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        rich_help_panel=P_OUT,
        help="No progress bar, notes or tables (errors and interruptions are still reported).",
    ),
]
NoPlotsOpt = Annotated[
    bool,
    typer.Option(
        "--no-plots",
        rich_help_panel=P_OUT,
        help="Skip the PNG charts (a run started with it stays without them on --resume).",
    ),
]
StopAfterOpt = Annotated[
    Optional[int],
    typer.Option(
        "--stop-after",
        min=0,
        hidden=True,
        help="Testing: play at most N chunks, then stop as if interrupted.",
    ),
]

# ------------------------------------------------------------------ what to play
RulesOpt = Annotated[
    str,
    typer.Option(
        "--rules",
        "-r",
        rich_help_panel=P_RUN,
        help="Preset: duel, nines, family, palace, shithead; or a rules .toml file.",
    ),
]
OptionalRulesOpt = Annotated[
    Optional[str],
    typer.Option(
        "--rules",
        "-r",
        rich_help_panel=P_RUN,
        help=(
            "Preset: duel, nines, family, palace, shithead; or a rules .toml file (default: "
            "shithead)."
        ),
    ),
]
HouseOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--house",
        "-H",
        rich_help_panel=P_RUN,
        help=(
            "House toggle, repeatable: low7, skip8, reverse:K, pickup:always, ... (`shedsim "
            "rules list`)."
        ),
    ),
]
RulesFileOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--rules-file",
        rich_help_panel=P_RUN,
        help='A rules TOML file (preset = "..." plus overrides); overrides --rules.',
    ),
]
SeedOpt = Annotated[
    Optional[int],
    typer.Option("--seed", "-s", min=0, rich_help_panel=P_RUN, help="Run seed (default: 0)."),
]


def quiet_option(help: str) -> Any:
    """The ``--quiet`` type of a command that still prints its result (:data:`QuietOpt`
    prints no table either): ``help`` says what it leaves out and what it still prints."""
    return Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            rich_help_panel=P_OUT,
            help=help,
        ),
    ]


def players_option(what: str, default: int | None) -> Any:
    """The ``--players`` type: ``what`` the seats are, with the default said."""
    return Annotated[
        Optional[int],
        typer.Option(
            "--players",
            "-p",
            rich_help_panel=P_RUN,
            help=f"{what}" + (f" (default: {default})." if default is not None else "."),
        ),
    ]


# ------------------------------------------------------------------ strategy-taking options
StrategyPathOpt = Annotated[
    Optional[list[Path]],
    typer.Option(
        "--strategy-path",
        rich_help_panel=P_RUN,
        help="Extra directory of strategy plugins, repeatable.",
    ),
]


from shedsim.cli.common import (  # noqa: E402,F401 - the bot options, declared once
    BotOpt,
    TimePerGameOpt,
    TimePerMoveOpt,
    refuse_bot_time,
)


def bot_entry_specs(
    strategies: str | None, bot: list[str] | None, default: list[str], strategy_path=None
) -> str | list[str] | None:
    """``--strategies`` with the ``--bot`` entries (:func:`shedsim.cli.common.with_bots`):
    ``strategies`` unchanged without a bot; else a list of ``LABEL=SPEC`` entries (the field
    ``default`` when ``--strategies`` is not given), a bad ``--bot`` exits 2 naming it
    (``strategy_path``: the ``--strategy-path`` directories, whose strategies' names no bot
    label may take)."""
    if not bot:
        return strategies
    from shedsim.analysis.tournament import TournamentError, parse_entries
    from shedsim.cli.common import bot_entries, fail, with_bots

    try:
        entries = parse_entries(strategies) if strategies is not None else [(n, n) for n in default]
    except TournamentError as e:
        fail(str(e))
    # an entry without a label of its own (its spec, or the spec and #2, #3, ...) goes back
    # as the bare spec: a spec's ':' and '=' would not read back as a label
    return [
        spec if lab == spec or lab.startswith(f"{spec}#") else f"{lab}={spec}"
        for lab, spec in with_bots(entries, bot_entries(bot, strategy_path))
    ]


def paths_of(strategy_path: list[Path] | None) -> list[str] | None:
    """``--strategy-path`` as the Python API takes it (None when not given)."""
    return None if not strategy_path else [str(p) for p in strategy_path]


# ------------------------------------------------------------------ from the command line to the
# API
def flag(field: str) -> str:
    """The command line's flag of a study parameter (``rules_file`` -> ``--rules-file``)."""
    return "--" + field.replace("_", "-")


def run_options(
    out: Path | None = None,
    resume: Path | None = None,
    force: bool = False,
    workers: int | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    quiet: bool = False,
    no_plots: bool = False,
    stop_after: int | None = None,
    default_out: str | None = None,
) -> Any:
    """The execution options typed (:class:`shedsim.runs.study.RunOptions`), ``--out``
    defaulting to ``default_out`` unless ``--resume`` is given; the progress and the notes
    on the commands' console's standard error (:func:`shedsim.output.console.out_console`)."""
    from shedsim.output.console import out_console
    from shedsim.runs.study import RunOptions

    return RunOptions(
        out=out,
        resume=resume,
        force=force,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        quiet=quiet,
        no_plots=no_plots,
        stop_after=stop_after,
        console=out_console(stderr=True),
    ).with_default_out(default_out)


def call(api: Callable[..., Any], **kw: Any) -> Any:
    """``api(**kw)`` (a :mod:`shedsim.api` function); a :class:`shedsim.runs.study.StudyError`
    is printed as ``error: ...`` with the command line's flags (:func:`flag`) and exits with
    its code (a run stopped early: 130 or 143)."""
    from shedsim.runs.study import StudyError

    try:
        return api(**kw)
    except StudyError as e:
        typer.echo(f"error: {e.text(flag)}", err=True)
        raise typer.Exit(e.code) from None


def finish(result: Any) -> None:
    """After the output: a run stopped early says what was kept and exits 130 or 143."""
    if result.exit_code:
        typer.echo(result.stop_message, err=True)
        raise typer.Exit(result.exit_code)
