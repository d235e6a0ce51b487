"""What the command modules share: option types, ``fail`` (exit 2 with a message), rules and
players from options, the progress bar and the peak-memory figure. It imports no command
module, so the command modules and :mod:`shedsim.cli` import it without a cycle."""

from __future__ import annotations

import os
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
    """Peak resident memory of this (main) process in MiB (``resource.getrusage``)."""
    try:
        import resource
        import sys
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(kb / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)
    except (ImportError, OSError):
        return None


STALL_NOTICE_S = 90.0
"""Seconds without a finished chunk after which the progress bar says the run may be stuck
(``SHEDSIM_STALL_NOTICE_S`` overrides it)."""


def stall_notice_s() -> float:
    """:data:`STALL_NOTICE_S`, or ``SHEDSIM_STALL_NOTICE_S`` when it is set to a positive number."""
    try:
        v = float(os.environ.get("SHEDSIM_STALL_NOTICE_S", ""))
    except ValueError:
        return STALL_NOTICE_S
    return v if v > 0 else STALL_NOTICE_S


def stall_message(seconds: float, strategies: list[str] | None) -> str:
    """What the progress bar prints when no chunk has finished for ``seconds``."""
    who = f" Strategies in play: {', '.join(strategies)}." if strategies else ""
    return (f"[yellow]note:[/] no game has finished for {seconds:,.0f} s. A strategy may be stuck in an endless "
            f"loop (a compiled plugin cannot be stopped from inside), or the chunks are just slow.{who} "
            "Press Ctrl-C to stop: every finished chunk is kept, and --resume continues the run.")


def progress_bar(console, strategies: list[str] | None = None, stall_after: float | None = None):
    """A rich progress bar: games done, games/s and ETA from the mean rate of this session
    (chunks arrive in bursts, so rich's windowed speed estimate would jump about).

    While it is shown, a watcher thread prints :func:`stall_message` (naming ``strategies``)
    once whenever no task has advanced for ``stall_after`` seconds (default
    :func:`stall_notice_s`), and again after each further stall once progress resumed."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.text import Text

    def rate(task) -> float | None:
        played = task.completed - task.fields.get("initial", 0)
        return played / task.elapsed if task.elapsed and played > 0 else None

    class GamesPerSecond(ProgressColumn):
        def render(self, task) -> Text:
            r = rate(task)
            return Text("- games/s" if r is None else f"{r:,.0f} games/s", style="cyan")

    class Eta(ProgressColumn):
        def render(self, task) -> Text:
            r = rate(task)
            if task.finished:
                return Text("ETA 0:00:00", style="green")
            if r is None:
                return Text("ETA -:--:--", style="green")
            left = int((task.total - task.completed) / r)
            return Text(f"ETA {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}", style="green")

    limit = stall_notice_s() if stall_after is None else stall_after

    class Watched(Progress):
        def __enter__(self):
            import threading
            self._stop_watch = threading.Event()
            self._watch = threading.Thread(target=self._watcher, name="shedsim-stall-notice", daemon=True)
            out = super().__enter__()
            self._watch.start()
            return out

        def __exit__(self, *exc):
            self._stop_watch.set()
            self._watch.join(timeout=5)
            return super().__exit__(*exc)

        def _watcher(self) -> None:
            import time
            last, since, told = None, time.monotonic(), False
            while not self._stop_watch.wait(min(1.0, limit / 4)):
                done = sum(t.completed for t in self.tasks)
                if self.tasks and all(t.finished for t in self.tasks):
                    return
                if done != last:
                    last, since, told = done, time.monotonic(), False
                elif not told and time.monotonic() - since >= limit:
                    self.console.print(stall_message(time.monotonic() - since, strategies), highlight=False)
                    told = True

    return Watched(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   GamesPerSecond(), TextColumn("elapsed"), TimeElapsedColumn(), Eta(), console=console)
