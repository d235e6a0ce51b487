"""``tune`` as a :class:`shedsim.runs.study.StorelessStudy`: its run store is the optuna
study (SQLite in ``out`` by default; running the same study again resumes it), so the
driver's own store is not used. The options (each None when not given), their checks
before ``out`` is touched, the trials and the confirmation played on the study's workers,
run.json and the reports. The search is :mod:`shedsim.analysis.tune`'s."""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from shedsim.analysis import tune as TU
from shedsim.analysis import tune_results as TR
from shedsim.runs.study import StorelessStudy, study_errors

DEFAULTS = {
    "rules": "shithead",
    "players": 2,
    "budget": 50,
    "games": 4000,
    "seed": 0,
    "sampler": "tpe",
    "confirm_games": 20_000,
    "study_name": TU.STUDY_NAME,
}
"""The value of each option not given (the strategy's and the field's: the built-in
strategies' traits, roles ``tunable`` and ``reference``)."""


class TuneStudy(StorelessStudy):
    """Tune a strategy's integer parameters against a field (:mod:`shedsim.analysis.tune`);
    every option None when not given (:data:`DEFAULTS`). A first signal lets the trial in
    progress finish (``soft``); the confirmation stops at the first."""

    command = "tune"
    outputs = ("best.toml", "trials.csv", "history.png", "importance.png", "run.json")
    soft = True
    resumes = True

    def __init__(
        self,
        strategy: str | None = None,
        field: str | Sequence[str] | None = None,
        rules: str | None = None,
        house: Sequence[str] | None = None,
        rules_file: str | Path | None = None,
        players: int | None = None,
        budget: int | None = None,
        games: int | None = None,
        seed: int | None = None,
        param: Sequence[str] | None = None,
        sampler: str | None = None,
        confirm_games: int | None = None,
        storage: str | None = None,
        study_name: str | None = None,
        strategy_path: Sequence[str | Path] | None = None,
    ) -> None:
        given = {
            "rules": rules,
            "players": players,
            "budget": budget,
            "games": games,
            "seed": seed,
            "sampler": sampler,
            "confirm_games": confirm_games,
            "study_name": study_name,
        }
        self.o = {k: DEFAULTS[k] if v is None else v for k, v in given.items()}
        self.strategy, self.field, self.house, self.rules_file = strategy, field, house, rules_file
        self.param, self.storage = tuple(param or []), storage
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.players = self.o["players"]
        self.stage, self.url, self.kept = "trials", None, 0
        self.play_s = 0.0

    def check(self, out: Path | None) -> None:
        from shedsim.analysis.tournament_run import build_rules
        from shedsim.plugins import PluginError, choice, parse_spec
        from shedsim.rules.ruleset import RulesError
        from shedsim.runs.limits import game_bytes, memory_problem

        with study_errors(RulesError):
            rs = build_rules(self.o["rules"], self.house, self.rules_file)
        with study_errors(TU.TuneError):
            try:
                strategy = choice("tunable")[0] if self.strategy is None else self.strategy
                parse_spec(strategy)
            except PluginError as e:
                raise TU.TuneError(f"--strategy: {e}") from None
            if self.field is None:
                try:
                    entries = (choice("reference")[0], strategy)
                except PluginError as e:
                    raise TU.TuneError(f"--field: {e}") from None
            else:
                items = self.field.split(",") if isinstance(self.field, str) else self.field
                entries = tuple(x.strip() for x in items if x.strip())
            self.spec = TU.TuneSpec(
                strategy,
                entries,
                rs,
                self.players,
                self.o["games"],
                self.o["seed"],
                self.param,
                self.o["sampler"],
                self.paths,
            )
            if self.o["budget"] < 1:
                raise TU.TuneError(f"--budget: at least 1 trial, got {self.o['budget']}")
            for opt, n in (
                ("--games", self.o["games"]),
                ("--confirm-games", self.o["confirm_games"]),
            ):
                problem = memory_problem(
                    opt, n, "games", game_bytes(self.players), "at once (one kernel call per match)"
                )
                if problem:  # one kernel call holds them all
                    raise TU.TuneError(problem)
        self.chunk_games = max(self.o["games"], self.o["confirm_games"])
        self.out = out

    def _storage(self, stack: contextlib.ExitStack) -> str:
        """The study's URL: ``storage``, else SQLite in ``out`` (without ``out``: in a
        temporary directory removed at the end)."""
        if self.storage:
            return self.storage
        where = (
            self.out
            if self.out is not None
            else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        )
        return f"sqlite:///{(where / 'study.db').resolve()}"

    def play(self, session: Any, pool: Any) -> dict[str, Any]:
        with contextlib.ExitStack() as stack:
            self.url = self._storage(stack)
            with study_errors(TU.TuneError):
                study = TU.open_study(self.spec, self.url, self.o["study_name"])
            t0 = time.perf_counter()
            try:
                self._trials(session, pool, study)
                self.play_s = time.perf_counter() - t0
                return self._confirm(session, pool, study)
            except KeyboardInterrupt:
                self.kept = len(TU.completed(study))  # (read before a temporary storage is removed)
                raise

    def _trials(self, session: Any, pool: Any, study: Any) -> None:
        from shedsim.analysis.sprt import SPRTError

        spec, budget = self.spec, self.o["budget"]
        before = len(TU.completed(study))
        stop = lambda: session.got_signal is not None  # noqa: E731
        with study_errors(TU.TuneError, SPRTError):
            if session.quiet or session.console is None:
                TU.run_trials(spec, study, budget, should_stop=stop, url=self.url, pool=pool)
            else:
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    Progress,
                    TextColumn,
                    TimeElapsedColumn,
                )

                session.console.print(
                    f"tune {spec.name} against {', '.join(spec.field)}: {spec.rules_name}, "
                    f"{spec.players} players, "
                    f"{spec.games:,} games per trial and entry; {before} of {budget} trials "
                    "done; tuning "
                    f"{', '.join(p.name for p in spec.space)}",
                    highlight=False,
                    markup=False,
                )
                with Progress(
                    TextColumn("[bold]trials"),
                    BarColumn(bar_width=20),
                    MofNCompleteColumn(),
                    TextColumn("{task.fields[info]}"),
                    TimeElapsedColumn(),
                    console=session.console,
                ) as bar:
                    task = bar.add_task(
                        "trials", total=budget, completed=min(before, budget), info=""
                    )
                    TU.run_trials(
                        spec,
                        study,
                        budget,
                        lambda n, v, best: bar.update(
                            task, completed=min(n, budget), info=f"last {v:.4f}  best {best:.4f}"
                        ),
                        stop,
                        self.url,
                        pool=pool,
                    )
        if session.got_signal is not None:
            raise KeyboardInterrupt

    def _confirm(self, session: Any, pool: Any, study: Any) -> dict[str, Any]:
        from shedsim.analysis.sprt import SPRTError

        spec = self.spec
        done = TU.completed(study)
        best_t = max(done, key=lambda t: (t.value, -t.number))
        best = {p.name: int(best_t.params[p.name]) for p in spec.space}
        start_t = next(
            (
                t
                for t in done
                if all(t.params.get(p.name) == spec.start[p.name] for p in spec.space)
            ),
            None,
        )
        conf = None
        if self.o["confirm_games"] > 0:
            session.say(
                f"confirming the best trial ({best_t.number}) on fresh deals ...", highlight=False
            )
            self.stage = "confirm"
            session.soft = (
                False  # the confirmation stops at the first signal (one since the trials, too)
            )
            if session.got_signal is not None:
                raise KeyboardInterrupt
            with study_errors(SPRTError):
                conf = TR.confirm(spec, best, self.o["confirm_games"], pool)
        return {
            "done": done,
            "best_t": best_t,
            "best": best,
            "conf": conf,
            "start_score": float(start_t.value) if start_t is not None else float("nan"),
            "table": TR.trials_table(study, spec),
            "importance": TR.importances(study),
        }

    def stopped(self, session: Any) -> str:
        if self.stage == "confirm":
            return " during the confirmation: the study is kept; run the same command again"
        return (
            f": {self.kept} completed trials are kept in {self.url}; run the same command "
            "again to resume"
        )

    def headline(self, r: dict[str, Any]) -> list[str]:
        """The findings in words: the best trial, its spec, and the confirmation."""
        spec, best_t, conf = self.spec, r["best_t"], r["conf"]
        out = [
            f"best of {len(r['done'])} trials (trial {best_t.number}): score "
            f"{best_t.value:.4f} in-sample, "
            f"starting parameters {r['start_score']:.4f}",
            f"best spec: {TU.format_spec(spec.name, {**spec.start, **r['best']})}",
        ]
        if conf is not None:
            e, elo_lo, elo_hi = conf.h2h_elo
            out += [
                "fresh deals, head to head against the starting parameters: score "
                f"{conf.h2h_score:.4f} "
                f"[{conf.h2h_lo:.4f}, {conf.h2h_hi:.4f}], Elo {e:+.1f} [{elo_lo:+.1f}, "
                f"{elo_hi:+.1f}] "
                f"({conf.games:,} games)",
                f"fresh deals, gain against the field: {conf.gain:+.4f} [{conf.gain_lo:+.4f}, "
                f"{conf.gain_hi:+.4f}] (best {conf.field_best:.4f}, start {conf.field_start:.4f})",
            ]
        return out

    def info(self, session: Any, r: dict[str, Any]) -> dict[str, Any]:
        from shedsim.runs.runinfo import command_line

        spec, best_t, conf = self.spec, r["best_t"], r["conf"]
        return session.info(
            "shedsim tune",
            {
                **spec.key(),
                "budget": self.o["budget"],
                "storage": self.url,
                "study_name": self.o["study_name"],
                "confirm_games": self.o["confirm_games"],
                "strategy_paths": list(self.paths),
            },
            spec.seed,
            play_s=self.play_s,
            argv=command_line(),
            title=(
                f"Tuning {spec.name} against {', '.join(spec.field)} ({spec.rules_name}, "
                f"{spec.players} players)"
            ),
            headline=self.headline(r),
            definitions=TU.DEFINITIONS,
            result={
                "trials": len(r["done"]),
                "best_trial": best_t.number,
                "best_score": best_t.value,
                "start_score": r["start_score"],
                "best_params": r["best"],
                "best_spec": TU.format_spec(spec.name, {**spec.start, **r["best"]}),
                "importance": r["importance"],
                "confirm": None
                if conf is None
                else {**conf.__dict__, "h2h_elo": list(conf.h2h_elo)},
            },
        )

    def write(self, job: Any, r: dict[str, Any], out: Path, plots: bool) -> list[str]:
        from shedsim.output.csvs import write_csv
        from shedsim.base import atomic

        spec, out = self.spec, Path(out)
        atomic.write_text(
            out / "best.toml",
            TR.best_toml(
                spec,
                r["best"],
                r["best_t"].number,
                float(r["best_t"].value),
                r["start_score"],
                len(r["done"]),
                r["conf"],
            ),
        )
        write_csv(r["table"], out / "trials.csv")
        if not plots:
            return ["best.toml", "trials.csv"]
        sub = (
            f"{spec.name} vs {', '.join(spec.field)}; {spec.rules_name}, {spec.players} players, "
            f"{spec.games:,} games per trial"
        )
        TU.plot_history(r["table"], r["start_score"], out / "history.png", sub)
        TU.plot_importance(r["importance"], out / "importance.png", sub)
        return ["best.toml", "trials.csv", "history.png", "importance.png"]

    def write_failed(self, message: str) -> str:
        return message.replace("(no file was written)", "(no file was written; the study is kept)")
