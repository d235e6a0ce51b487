"""``tune`` as a :class:`shedsim.runs.study.StorelessStudy`: its run store is the optuna
study (SQLite in ``out`` by default; running the same study again resumes it, and so does
``resume``, with the options stored in the study), so the driver's own store is not used.
The options (each None when not given), their checks before ``out`` is touched, the
trials and the confirmation played on the study's workers, run.json and the reports. The
search is :mod:`shedsim.analysis.tune`'s."""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from shedsim.analysis import tune as TU
from shedsim.analysis import tune_results as TR
from shedsim.runs.study import Check, StorelessStudy, StudyError, check_resume, marked
from shedsim.runs.study import study_errors
from shedsim.stats.sprt import elo_text

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


def json_of(d: dict[str, Any]) -> Any:
    """``d`` as JSON gives it back (tuples as lists): how the study stores it."""
    import json

    return json.loads(json.dumps(d))


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
        self.given = given
        self.o = {k: DEFAULTS[k] if v is None else v for k, v in given.items()}
        self.strategy, self.field, self.house, self.rules_file = strategy, field, house, rules_file
        self.param, self.storage = tuple(param or []), storage
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.players = self.o["players"]
        self.stage, self.url, self.kept = "trials", None, 0
        self.play_s = 0.0
        self.stored_rules: dict[str, Any] | None = None
        self.out: Path | None = None

    def resume_from(self, root: Path) -> None:
        """Take the options stored in the study kept in ``root`` (``root/study.db``; with
        ``storage``, there; else the storage its run.json names), refusing (:class:`StudyError`,
        field ``resume``) an option given here that decides the results and differs from
        the stored one. ``budget`` and ``confirm_games`` given here replace the stored ones."""
        from shedsim.runs.store import RunStore

        held = RunStore.held_command(root) if root.is_dir() else None
        if held is not None and held != "tune":
            raise StudyError(
                f"{str(root)!r} holds a shedsim {held} run, not a tune study; continue it with: "
                f"shedsim {held} --resume {root}",
                field="resume",
            )
        url = self.storage or self._kept_url(root)
        with study_errors(TU.TuneError):
            stored, name = TU.stored_options(url, self.given["study_name"])
            checks = self._resume_checks(stored)
        check_resume(checks)
        try:
            self.strategy, self.field = str(stored["strategy"]), tuple(stored["field"])
            self.house, self.rules_file = list(stored["house"]), stored["rules_file"]
            for k in ("rules", "players", "games", "seed", "sampler"):
                self.o[k] = stored[k]
            for k in ("budget", "confirm_games"):
                self.o[k] = stored[k] if self.given[k] is None else self.given[k]
            self.param, self.paths = tuple(stored["param"]), tuple(stored["strategy_paths"])
            self.stored_rules = dict(stored["ruleset"])
        except (KeyError, TypeError, ValueError) as e:
            raise StudyError(
                f"the options stored in the study {name!r} in {url} are damaged ({e!r})",
                field="resume",
            ) from None
        self.players, self.o["study_name"] = self.o["players"], name
        if self.storage is None and url != self._sqlite(root):
            self.storage = url  # named by run.json

    @staticmethod
    def _sqlite(root: Path) -> str:
        return f"sqlite:///{(root / 'study.db').resolve()}"

    def _kept_url(self, root: Path) -> str:
        """The storage of the study kept in ``root``: its study.db, else the ``storage`` of
        its run.json (a run given ``storage``). Raises :class:`StudyError` (``resume``)."""
        from shedsim.base import jsontext

        if (root / "study.db").is_file():
            return self._sqlite(root)
        try:
            info = jsontext.load_file(root / "run.json")
            url = info["spec"]["storage"] if str(info.get("command")) == "shedsim tune" else None
        except (OSError, jsontext.JSONProblem, AttributeError, KeyError, TypeError):
            url = None  # AttributeError: a run.json that holds no object
        if isinstance(url, str) and url:
            return url
        if not root.is_dir():
            raise StudyError(f"{str(root)!r} is not a directory", field="resume")
        raise StudyError(
            f"{str(root)!r} holds no tune study (study.db); a study kept elsewhere is resumed "
            f"with --resume DIR {marked('storage')} URL",
            field="resume",
        )

    def _resume_checks(self, stored: dict[str, Any]) -> list[Check]:
        """The options given beside ``resume`` against the ``stored`` ones."""
        from shedsim.analysis.tournament_run import build_rules
        from shedsim.rules.ruleset import RulesError

        g = self.given
        rules = None
        if g["rules"] is not None or self.house or self.rules_file is not None:
            with study_errors(RulesError):
                rules = build_rules(
                    g["rules"] or stored.get("rules"), self.house, self.rules_file
                ).to_dict()
        field = None
        if self.field is not None:
            items = self.field.split(",") if isinstance(self.field, str) else self.field
            field = [x.strip() for x in items if x.strip()]
        spaces = lambda ps: [TU.parse_param(x) for x in ps]  # noqa: E731
        if self.param:
            spaces(self.param)  # a bad --param is named as such
        return [
            Check("strategy", self.strategy, stored.get("strategy")),
            Check("field", field, stored.get("field")),
            Check(
                "rules",
                rules,
                stored.get("ruleset"),
                shown="",
                label="/".join(marked(f) for f in ("rules", "house", "rules_file")),
            ),
            Check("players", g["players"], stored.get("players")),
            Check("games", g["games"], stored.get("games")),
            Check("seed", g["seed"], stored.get("seed")),
            Check(
                "param",
                list(self.param) or None,
                stored.get("param"),
                same=lambda a, b: spaces(a) == spaces(b),
                shown=f" ({','.join(self.param)} vs stored "
                f"{','.join(stored.get('param') or []) or 'the whole PARAM_SPACE'})",
            ),
            Check("sampler", g["sampler"], stored.get("sampler")),
            Check("strategy_path", list(self.paths) or None, stored.get("strategy_paths")),
        ]

    def options(self) -> dict[str, Any]:
        """The options of this run as stored in the study (:func:`resume_from` reads them)."""
        return {
            "strategy": self.spec.strategy,
            "field": list(self.spec.field),
            "rules": self.o["rules"],
            "house": list(self.house or []),
            "rules_file": None if self.rules_file is None else str(Path(self.rules_file).resolve()),
            "ruleset": self.rs.to_dict(),
            "players": self.players,
            "budget": self.o["budget"],
            "games": int(self.o["games"]),
            "seed": int(self.o["seed"]),
            "param": list(self.param),
            "sampler": self.o["sampler"],
            "confirm_games": self.o["confirm_games"],
            "strategy_paths": list(self.paths),
        }

    def check(self, out: Path | None) -> None:
        from shedsim.analysis.tournament_run import build_rules
        from shedsim.plugins import PluginError, choice, parse_spec
        from shedsim.rules.ruleset import RulesError
        from shedsim.runs.limits import game_bytes, memory_problem

        with study_errors(RulesError):
            rs = self.rs = build_rules(self.o["rules"], self.house, self.rules_file)
        if self.stored_rules is not None and json_of(rs.to_dict()) != json_of(self.stored_rules):
            raise StudyError(
                "the rule set differs from the one the run started with (the rules file or a "
                "preset changed); start a new run",
                field="resume",
            )
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
                study = TU.open_study(
                    self.spec, self.url, self.o["study_name"], options=self.options()
                )
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

    def go_on(self) -> str:
        """How to continue the kept study, in words (the command that resumes it)."""
        import shlex

        if self.out is None:
            return "call tune again with the same options to resume"
        cmd = ["shedsim", "tune", "--resume", str(self.out)]
        if self.storage:
            cmd += ["--storage", self.storage]
        if self.o["study_name"] != TU.STUDY_NAME:
            cmd += ["--study-name", self.o["study_name"]]
        return f"continue with: {shlex.join(cmd)} (or run the same command again)"

    def stopped(self, session: Any) -> str:
        if self.out is None and self.storage is None:
            return f": nothing kept (the {self.kept} completed trials were in a temporary study)"
        if self.stage == "confirm":
            return f" during the confirmation: the study is kept; {self.go_on()}"
        return f": {self.kept} completed trials are kept in {self.url}; {self.go_on()}"

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
                f"[{conf.h2h_lo:.4f}, {conf.h2h_hi:.4f}], Elo {elo_text(e)} [{elo_text(elo_lo)}, "
                f"{elo_text(elo_hi)}] "
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
