"""``tips`` as a :class:`shedsim.runs.study.StorelessStudy` (it keeps no run store): the
options (each None when not given), their checks before ``out`` is touched, the cells
played on the study's workers, run.json and the reports. The measurement is
:mod:`shedsim.analysis.tips`'s."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from shedsim.analysis import tips as TP
from shedsim.runs.study import StorelessStudy, StudyError, study_errors

PRESETS = ("duel", "nines", "family", "palace", "shithead")
"""The rule sets measured unless ``rules`` is given."""
PLAYERS = (2, 4)
"""The player counts measured unless ``players`` is given."""
GAMES = 40_000
"""Games per variant (follow, ignore) and cell unless ``games`` is given."""


class TipsStudy(StorelessStudy):
    """Do the beginner tips work? (:mod:`shedsim.analysis.tips`); every option None when not
    given (:data:`PRESETS`, :data:`PLAYERS`, every tip, :data:`GAMES`, the default base and
    opponents, seed 0)."""

    command = "tips"
    outputs = ("tips.csv", "forest.png", "run.json")

    def __init__(
        self,
        rules: Sequence[str] | None = None,
        players: Sequence[int] | None = None,
        tip: Sequence[str] | None = None,
        games: int | None = None,
        base: str | None = None,
        opponents: str | None = None,
        seed: int | None = None,
        house: Sequence[str] | None = None,
        strategy_path: Sequence[str | Path] | None = None,
    ) -> None:
        self.names = list(rules or PRESETS)
        self.counts = sorted(set(players or PLAYERS))
        self.tip, self.house = list(tip or []), list(house or [])
        self.games = GAMES if games is None else games
        self.base, self.opponents, self.seed = base, opponents, 0 if seed is None else seed
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.play_s = 0.0

    def check(self, out: Path | None) -> None:
        from shedsim.analysis.tournament import TournamentError
        from shedsim.rules.ruleset import RulesError, build
        from shedsim.runs.limits import game_bytes, memory_problem

        try:
            self.rule_sets = [build(r, self.house, None) for r in self.names]
        except RulesError as e:
            raise StudyError(f"--rules: {e}") from None
        with study_errors(TP.TipsError, TournamentError):
            self.chosen = TP.select(self.tip)
            self.base = TP.default_base() if self.base is None else self.base
            self.opponents = TP.default_opponents() if self.opponents is None else self.opponents
            TP.check_players(
                self.base, self.opponents, self.chosen, self.paths
            )  # before --out is made
            if any(p < 2 for p in self.counts):
                raise TP.TipsError(f"--players: at least 2, got {min(self.counts)}")
            problem = TP.games_problem(self.games, self.counts)  # before a progress bar shows
            if problem:
                raise TP.TipsError(problem)
            self.players = min(
                max(self.counts), max(rs.max_players for rs in self.rule_sets)
            )  # the largest table
            problem = memory_problem(
                "--games",
                self.games,
                "games",
                game_bytes(self.players),
                "at once (each variant of a cell is one kernel call)",
            )
            if problem:
                raise TP.TipsError(problem)
        self.chunk_games = self.games

    def play(self, session: Any, pool: Any) -> tuple[Any, list[str]]:
        t0 = time.perf_counter()
        args = (
            self.rule_sets,
            self.counts,
            self.chosen,
            self.games,
            self.base,
            self.opponents,
            self.seed,
            self.paths,
        )
        with study_errors(TP.TipsError):
            if session.quiet or session.console is None:
                table, skipped = TP.run_tips(*args, pool=pool)
            else:
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    Progress,
                    TextColumn,
                    TimeElapsedColumn,
                )

                with Progress(
                    TextColumn("[bold]tips x rules x players"),
                    BarColumn(bar_width=20),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    console=session.console,
                ) as progress:
                    task = progress.add_task("cells", total=None)
                    table, skipped = TP.run_tips(
                        *args, lambda d, n: progress.update(task, completed=d, total=n), pool=pool
                    )
        self.play_s = time.perf_counter() - t0
        if not len(table):
            raise StudyError(
                "no tip applies to the rule sets and player counts chosen: " + "; ".join(skipped)
            )
        return table, skipped

    def info(self, session: Any, res: tuple[Any, list[str]]) -> dict[str, Any]:
        from shedsim.runs.runinfo import command_line

        table, skipped = res
        return session.info(
            "shedsim tips",
            {
                "rules": self.names,
                "house": self.house,
                "players": self.counts,
                "tips": [t.key for t in self.chosen],
                "games": self.games,
                "base": self.base,
                "opponents": self.opponents,
                "seed": self.seed,
                "strategy_paths": list(self.paths),
            },
            self.seed,
            play_s=self.play_s,
            argv=command_line(),
            title=f"Do the beginner tips work? ({self.base} against {self.opponents}; "
            f"{', '.join(self.names)}; "
            f"{', '.join(map(str, self.counts))} players)",
            headline=TP.headline(table),
            skipped=skipped,
            definitions=TP.DEFINITIONS,
            tips={
                t.key: {
                    "advice": t.advice,
                    "param": t.param,
                    "follow": t.follow,
                    "ignore": t.ignore,
                    "applies": t.where,
                }
                for t in self.chosen
            },
        )

    def write(self, job: Any, res: tuple[Any, list[str]], out: Path, plots: bool) -> list[str]:
        from shedsim.output.csvs import write_csv

        table = res[0]
        write_csv(table, Path(out) / "tips.csv")
        if not plots:
            return ["tips.csv"]
        TP.plot_forest(
            table,
            Path(out) / "forest.png",
            f"{self.base} vs {self.opponents}; {self.games:,} games per variant and cell; seed "
            f"{self.seed}",
        )
        return ["tips.csv", "forest.png"]
