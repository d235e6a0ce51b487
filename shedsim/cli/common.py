"""What the command modules share: option types, ``fail`` (exit 2 with a message), rules and
players from options, the progress bar and the peak-memory figure. It imports no command
module, so the command modules and :mod:`shedsim.cli` import it without a cycle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Preset: duel, nines, family, palace, shithead; or a rules .toml file.")]
HouseOpt = Annotated[Optional[list[str]], typer.Option("--house", "-H", help="House toggle, repeatable: low7, skip8, reverse:K, pickup:always, ... (`shedsim rules list`).")]
RulesFileOpt = Annotated[Optional[Path], typer.Option("--rules-file", help="A rules TOML file (preset = \"...\" plus overrides); overrides --rules.")]
StrategyPathOpt = Annotated[Optional[list[Path]], typer.Option("--strategy-path", help="Extra directory of strategy plugins, repeatable.")]


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` to stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


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
    """Peak resident memory of this (main) process in MiB (:func:`shedsim.runs.execute.peak_rss_mb`)."""
    from shedsim.runs.execute import peak_rss_mb as peak
    return peak()


def progress_bar(console, strategies: list[str] | None = None, stall_after: float | None = None,
                 stop_hint: str | None = None):
    """The progress bar of every run (:func:`shedsim.runs.execute.progress_bar`)."""
    from shedsim.runs.execute import KEEPS_CHUNKS
    from shedsim.runs.execute import progress_bar as bar
    return bar(console, strategies, stall_after, KEEPS_CHUNKS if stop_hint is None else stop_hint)
