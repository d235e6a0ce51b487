"""What the command modules share: option types, the command group class (help without
``<bool>`` after flags), ``fail`` (exit 2 with a message), rules and players from options,
the progress bar and the peak-memory figure. It imports no command
module, so the command modules and :mod:`shedsim.cli` import it without a cycle."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperCommand, TyperGroup

RulesOpt = Annotated[
    str,
    typer.Option(
        "--rules",
        "-r",
        help="Preset: duel, nines, family, palace, shithead; or a rules .toml file.",
    ),
]
HouseOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--house",
        "-H",
        help=(
            "House toggle, repeatable: low7, skip8, reverse:K, pickup:always, ... (`shedsim "
            "rules list`)."
        ),
    ),
]
RulesFileOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--rules-file", help='A rules TOML file (preset = "..." plus overrides); overrides --rules.'
    ),
]
StrategyPathOpt = Annotated[
    Optional[list[Path]],
    typer.Option("--strategy-path", help="Extra directory of strategy plugins, repeatable."),
]
P_BOTS = "Bots (a program in any language)"
"""The help panel of the bot options, apart from the options every run has."""
BotOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--bot",
        rich_help_panel=P_BOTS,
        metavar="LABEL=COMMAND",
        help=(
            "A bot: a program in any language that speaks the bot protocol on standard input "
            "and output (docs/reference/bots.md), started from the current directory (on "
            "--resume too: relative paths are found from there), COMMAND split into words as "
            "a shell does (no shell); then LABEL, which may not be a strategy's name, is an "
            "entry like any other. Repeatable."
        ),
    ),
]
TimePerMoveOpt = Annotated[
    int,
    typer.Option(
        "--time-per-move",
        rich_help_panel=P_BOTS,
        metavar="MS",
        help=(
            "With --bot: milliseconds a bot has for each answer (its swap's too); a later "
            "answer forfeits the game."
        ),
    ),
]
TimePerGameOpt = Annotated[
    Optional[int],
    typer.Option(
        "--time-per-game",
        rich_help_panel=P_BOTS,
        metavar="MS",
        help=(
            "With --bot: milliseconds a bot has for all its answers in one game (default: no "
            "such budget)."
        ),
    ),
]


def with_bots(entries: list[tuple[str, str]], bots: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``entries`` (``(label, spec)``) with the ``--bot`` entries: an entry named by a bot's
    label (``--strategies mine`` with ``--bot mine=...``) becomes that bot; the other bots
    are added at the end. A bot label that another entry already holds exits 2."""
    out = list(entries)
    for label, spec in bots:
        at = [i for i, (lab, sp) in enumerate(out) if lab == label]
        if at and out[at[0]][1] != label:
            fail(f"--bot {label}: the label {label!r} is already the entry {out[at[0]][1]!r}")
        if at:
            out[at[0]] = (label, spec)
        else:
            out.append((label, spec))
    return out


def bot_spec(spec: str | None, bots: list[tuple[str, str]]) -> str | None:
    """A strategy option's value (``--a``, ``--b``, one of ``--opponents``), or the bot of
    that label (``bot:COMMAND``) when ``--bot`` gave one."""
    return dict(bots).get(spec.strip(), spec) if spec is not None else None


def bot_entries(values: list[str] | None, strategy_path=None) -> list[tuple[str, str]]:
    """The ``--bot LABEL=COMMAND`` options as entries ``(label, "bot:COMMAND")``; a bad one
    exits 2 naming it (:func:`shedsim.bot.protocol.parse_bot_options`), and so does a label
    that is the name of a strategy (a built-in one, or a plugin of ``$SHEDSIM_STRATEGY_PATH``
    or ``strategy_path``, the ``--strategy-path`` directories): the label would stand for
    the bot where the strategy is meant."""
    from shedsim.bot.protocol import BotSpecError, parse_bot_options

    try:
        bots = parse_bot_options(values)
    except BotSpecError as e:
        fail(str(e))
        raise  # pragma: no cover - fail exits
    if bots:
        from shedsim.plugins import PluginError, discover

        names: set[str] = set()
        for extra in ([str(p) for p in strategy_path or []], None):
            try:
                names = set(discover(extra))
                break
            except PluginError:  # a bad strategy path is refused where strategies are read
                continue
        for label, spec in bots:
            if label in names:
                fail(
                    f"--bot {label}={spec[len('bot:') :]}: the label {label!r} is the name of a "
                    f"strategy; give the bot a label of its own (e.g. --bot my-{label}=...)"
                )
    return bots


_CHOICE = re.compile(r"<<([a-z:-]+)>>")


def choice_help(role: str) -> str:
    """A mark in an option's help (or a command's docstring) that :class:`ChoiceHelp`
    replaces, when the help is shown, with the default the traits select: the names and
    the rule, e.g. ``greedy: the built-in strategy that is fast, ...``. ``role`` is a key
    of :func:`shedsim.plugins.choices_text` or ``tips-base``."""
    return f"<<{role}>>"


def choices_text() -> dict[str, str]:
    """Every text :func:`choice_help` marks stand for (loads the built-in plugins)."""
    from shedsim.analysis.hint import BUDGETS
    from shedsim.analysis.tips import default_base_text
    from shedsim.plugins import choices_text as texts

    out = {**texts(), "tips-base": default_base_text()}
    out["budgets"] = "; ".join(f"{n} for {c} ones ({out['cost:' + c]})" for c, n in BUDGETS.items())
    return out


class ChoiceHelp(TyperCommand):
    """A command whose help names defaults derived from the plugins' traits: the marks of
    :func:`choice_help` are filled in only when the help is shown, so a command that runs
    (and ``shedsim --help``) does not load the plugins for its help."""

    def format_help(self, ctx, formatter) -> None:
        texts: dict[str, str] | None = None

        def fill(text: str | None) -> str | None:
            nonlocal texts
            if not text or not _CHOICE.search(text):
                return text
            texts = texts if texts is not None else choices_text()
            return _CHOICE.sub(lambda m: texts.get(m.group(1), m.group(0)), text)

        self.help = fill(self.help)
        for p in self.params:
            p.help = fill(getattr(p, "help", None))
        return super().format_help(ctx, formatter)


class CommandGroup(TyperGroup):
    """The command group of ``shedsim`` and of its groups (``rules``, ``scenario``): as
    typer's, except that a flag's help row shows no type (typer prints ``<bool>`` after every
    flag, which takes no value; an option with a value keeps its ``<int>``, ``<path>``...),
    and that a command's help is read as paragraphs (:func:`unwrapped`)."""

    def get_command(self, ctx, cmd_name):
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            _untyped_flags(cmd, ctx)
            cmd.help = unwrapped(cmd.help)
        return cmd

    def format_help(self, ctx, formatter) -> None:
        _untyped_flags(self, ctx)
        super().format_help(ctx, formatter)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # the reader of the output left (shedsim ... | head)
            from shedsim.output.console import EXIT_PIPE, output_gone

            output_gone()
            raise typer.Exit(EXIT_PIPE) from None
        except OSError as e:  # a write no command catches: its output (> /dev/full, a full disk)
            import errno

            if e.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # only a write fails so
                raise
            from shedsim.output.console import output_gone

            output_gone()
            fail(f"cannot write the output: {e.strerror or e} (standard output or a file)", 3)


def unwrapped(text: str | None) -> str | None:
    """A docstring as paragraphs of one line each: the line breaks inside a paragraph (where
    the source was wrapped) become spaces, so the terminal wraps the text at its own width
    (typer keeps every line break of a command's help after the first paragraph). A
    paragraph that starts with ``\\b`` (click's mark for text kept as written) is left alone."""
    if not text:
        return text
    import inspect

    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines())
        for p in paragraphs
    )


def _untyped_flags(cmd, ctx) -> None:
    """Give every flag of ``cmd`` (``--help`` included) an empty metavar, which typer's help
    shows in place of the type; parsing and error messages name flags by their options."""
    for p in [*cmd.params, cmd.get_help_option(ctx)]:
        if p is not None and getattr(p, "is_flag", False) and p.metavar is None:
            p.metavar = ""


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` to stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def given_on_command_line(ctx: typer.Context, names: tuple[str, ...]) -> list[str]:
    """The parameters among ``names`` (Python names, e.g. ``"max_games"``) the user typed on
    the command line (not defaults or environment). Compared by the source's name: typer
    ships its own copy of click, whose ``ParameterSource`` is not ``click.core``'s."""
    out = []
    for n in names:
        src = ctx.get_parameter_source(n)
        if src is not None and getattr(src, "name", None) == "COMMANDLINE":
            out.append(n)
    return out


def refuse_bot_time(ctx: typer.Context, bot: list[str] | None, resume: Path | None = None) -> None:
    """Exit 2 when ``--time-per-move`` or ``--time-per-game`` is typed without ``--bot`` (and
    without ``--resume``, whose stored run may hold bots): a time control with no bot to
    time would be ignored."""
    if bot or resume is not None:
        return
    given = given_on_command_line(ctx, ("time_per_move", "time_per_game"))
    if given:
        flag = "--" + given[0].replace("_", "-")
        fail(f"{flag}: only with --bot LABEL=COMMAND (it times a bot's answers; no bot is given)")


def load_rules(rules: str, house: list[str] | None, rules_file: Path | None):
    """Build a RuleSet from CLI options, exiting 2 with the field named on error."""
    from shedsim.rules.ruleset import RulesError, build

    try:
        return build(rules, house or [], rules_file)
    except RulesError as e:
        fail(str(e))


def load_players(names: list[str], strategy_path: list[Path] | None):
    """Resolve strategy specs (``NAME`` or ``NAME:param=value``) to reference-engine players."""
    from shedsim.plugins import PluginError, discover, parse_spec

    try:
        known = discover([str(p) for p in strategy_path or []])
        players = []
        for spec in names:
            name, overrides = parse_spec(spec)
            players.append(known.require(name).player(spec, overrides))
        return players
    except PluginError as e:
        fail(str(e))


def peak_rss_mb() -> float | None:
    """Peak resident memory of this (main) process in MiB
    (:func:`shedsim.runs.execute.peak_rss_mb`).
    """
    from shedsim.runs.execute import peak_rss_mb as peak

    return peak()


def progress_bar(
    console,
    strategies: list[str] | None = None,
    stall_after: float | None = None,
    stop_hint: str | None = None,
):
    """The progress bar of every run (:func:`shedsim.runs.execute.progress_bar`)."""
    from shedsim.runs.execute import KEEPS_CHUNKS
    from shedsim.runs.execute import progress_bar as bar

    return bar(console, strategies, stall_after, KEEPS_CHUNKS if stop_hint is None else stop_hint)
