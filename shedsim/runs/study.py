"""Studies and the one driver that runs them.

A :class:`Study` says what to play (its :class:`shedsim.runs.execute.Job`: the plan of
chunks, how each is reduced to small arrays), how the stored chunks are analysed and what
is reported; :func:`run_study` runs any study with one set of execution options
(:class:`RunOptions`), doing the whole :class:`shedsim.runs.execute.Session` protocol once::

    run_study(study, options)
      -> check the backend; --out and --resume agree
      -> plan (a fresh run: every option checked before any file is made)
      -> open the directory (--out safety, its lock) or the scratch directory (no --out)
      -> resume: rebuild the stored run, the one rule for options given beside it
         (:func:`check_resume`), every stored chunk checked
      -> the study's notes, play (signals, progress, workers, cluster)
      -> aggregate and analyse the stored chunks (signals deferred)
      -> run.json and the reports, all or none
      -> a StudyRun: the study's result, the outcome, the files, the exit code

A study that keeps no run store (``tips``, ``tune``: :class:`StorelessStudy`) goes through
the same steps where they apply: the options checked first, ``--out`` checked before
anything is played, one worker pool (or cluster) for the whole study, signals, and the
reports written all or none.

Every problem is raised as :class:`StudyError`: ``field`` names the parameter (``games``,
``players``, ``resume``; the command line shows it as ``--games``...), ``code`` the exit
status (1 a strategy or worker failed; 2 bad input or a busy or foreign directory; 3 a file
could not be written; 130/143 interrupted, :class:`StudyInterrupted`).
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterator

from shedsim.runs.pool import InProcess, Pool, split_range  # noqa: F401 (re-exported)

MARK = "\x1f"
"""Brackets a parameter's name inside a :class:`StudyError` message (``MARK + "seed" +
MARK``): shown as ``seed`` in Python, as the command line's flag (``--seed``) there."""
_LEAD = re.compile(r"^--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?=[:\s,/]|$)")


def marked(field_name: str) -> str:
    """``field_name`` marked for :meth:`StudyError.text` (see :data:`MARK`)."""
    return f"{MARK}{field_name}{MARK}"


class StudyError(Exception):
    """A study that could not run or finish. ``field``: the parameter at fault, by its
    Python name (``games``, ``rules_file``, ``resume``), or None; ``message``: the rest of
    the sentence (it may mark other parameters, :func:`marked`); ``code``: the exit status
    (1 a strategy or worker failed, 2 bad input, 3 a file could not be written, 130 or 143
    interrupted). ``str(e)`` names parameters as Python does; :meth:`text` as a caller
    wants (the command line: flags)."""

    def __init__(self, message: str, code: int = 2, field: str | None = None) -> None:
        if field is None:
            m = _LEAD.match(message)
            if m:
                field, message = m.group(1).replace("-", "_"), message[m.end() :]
        elif message and message[0] not in ": ,/":
            message = ": " + message
        self.field, self.message, self.code = field, message, code
        super().__init__(self.text())

    def text(self, flag: Callable[[str], str] = lambda f: f) -> str:
        """The message with every parameter named by ``flag(name)`` (default: its name)."""
        body = re.sub(f"{MARK}([a-z_0-9]+){MARK}", lambda m: flag(m.group(1)), self.message)
        return (flag(self.field) if self.field else "") + body if self.field else body.lstrip(": ")


class StudyInterrupted(StudyError):
    """The study was stopped (Ctrl-C: code 130; SIGTERM: 143; ``stop_after``: 130) before
    it could write its reports; the message says what was kept and how to go on."""


def as_study_error(e: BaseException, code: int = 2) -> StudyError:
    """``e`` (an option error of the layers below, whose text starts with the flag it
    names, e.g. ``--games: at least 4``) as a :class:`StudyError` with that field."""
    if isinstance(e, StudyError):
        return e
    return StudyError(str(getattr(e, "message", None) or e), getattr(e, "code", code))


@contextlib.contextmanager
def study_errors(*kinds: type[BaseException], code: int = 2) -> Iterator[None]:
    """Inside, an exception of ``kinds`` is raised again as a :class:`StudyError`
    (:func:`as_study_error`, exit ``code``)."""
    try:
        yield
    except kinds as e:  # noqa: B030 - the kinds are given by the caller
        raise as_study_error(e, code) from None


@dataclass(frozen=True)
class RunOptions:
    """How a study runs; none of these changes its results.

    ``out``: the directory of its run store and reports (None: nothing is written; a study
    with a run store plays into a scratch directory removed at the end). ``resume``: the
    directory of an interrupted run to continue (its stored options decide the results;
    see :func:`check_resume`). ``force``: write into an ``out`` that holds other files
    (never replacing one). ``workers``: worker processes (None: one per CPU; at most the
    CPUs and what the memory holds). ``backend``: ``loky`` (local processes), ``dask`` or
    ``ray``; ``scheduler``: the address of a running dask or ray cluster. ``quiet``: no
    progress bar, notes or tables. ``no_plots``: no charts. ``stop_after``: testing only,
    play at most that many chunks and stop as if interrupted. ``console``: a rich console
    for the progress and the notes (default: standard error)."""

    out: Path | None = None
    resume: Path | None = None
    force: bool = False
    workers: int | None = None
    backend: str = "loky"
    scheduler: str | None = None
    quiet: bool = True
    no_plots: bool = False
    stop_after: int | None = None
    console: Any = None

    @classmethod
    def of(cls, options: RunOptions | None = None, **changes: Any) -> RunOptions:
        """``options`` (default: the defaults) with ``changes`` (the same names; ``out`` and
        ``resume`` may be strings). Raises :class:`StudyError` naming an unknown one."""
        known = cls.__dataclass_fields__
        bad = [k for k in changes if k not in known]
        if bad:
            raise StudyError(f"not an execution option (one of {', '.join(known)})", field=bad[0])
        for k in ("out", "resume"):
            if changes.get(k) is not None:
                changes[k] = Path(changes[k])
        return replace(options or cls(), **changes)

    def with_default_out(self, default: str | Path | None) -> RunOptions:
        """These options with ``out = default`` when neither ``out`` nor ``resume`` is given
        (the command line's default directory; the Python API writes nothing by default)."""
        if self.out is None and self.resume is None and default is not None:
            return replace(self, out=Path(default))
        return self


# ------------------------------------------------------------------ options given beside resume
@dataclass
class Check:
    """One option that decides results, as given beside ``resume`` and as the stored run
    has it. ``given`` None: not given (nothing to check). ``same(given, stored)`` decides
    (default ``==``); ``shown``: what the message says after the name (default: both values;
    ``""`` for none). ``label``: the name(s) shown, marked (default: ``field``)."""

    field: str
    given: Any
    stored: Any
    same: Callable[[Any, Any], bool] | None = None
    shown: str | None = None
    label: str | None = None


def _short(v: Any) -> str:
    text = ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
    return text if len(text) <= 40 else text[:37] + "..."


def resume_conflicts(checks: list[Check]) -> list[str]:
    """The options of ``checks`` given and unlike the stored run's, one phrase each
    (``seed (6 vs stored 0)``, parameters marked)."""
    bad = []
    for c in checks:
        if c.given is None or (c.same or (lambda a, b: a == b))(c.given, c.stored):
            continue
        shown = f" ({_short(c.given)} vs stored {_short(c.stored)})" if c.shown is None else c.shown
        bad.append((c.label or marked(c.field)) + shown)
    return bad


def check_resume(checks: list[Check]) -> None:
    """The one rule for options given beside ``resume``: every option that decides the
    results must equal the stored run's value, or the run is refused naming each that
    differs (:class:`StudyError`, field ``resume``, exit 2, nothing changed). Execution
    options (:class:`RunOptions`) may differ."""
    bad = resume_conflicts(checks)
    if bad:
        raise StudyError(
            "these options differ from the stored run: "
            + "; ".join(bad)
            + " (give --resume DIR alone to continue it)",
            field="resume",
        )


# ------------------------------------------------------------------ studies
class Study:
    """What a command plays, reduces, analyses and reports, for :func:`run_study`.

    A subclass sets :attr:`command` and :attr:`outputs` and implements :meth:`plan`,
    :meth:`store`, :meth:`from_store`, :meth:`analyse`, :meth:`write` and :meth:`result`;
    the other hooks have defaults. Option errors are raised as :class:`StudyError` (or as an
    error of the layer below whose text starts with the flag, turned into one)."""

    command: str = ""
    outputs: tuple[str, ...] = ()
    keeps_store = True
    partial_reports = True
    """Whether an interrupted run writes the results of its finished chunks (a tournament,
    compare-rules); False: nothing until the study is whole (swaps, sprt)."""
    unit = "chunks"
    """What the plan's chunks are called in messages (``batches`` for sprt)."""
    needs = "the whole study"
    """What the reports need, said when an interrupted run writes none."""
    not_yet = ""
    """Said first of what an interrupted run kept (sprt: ``no decision yet; ``)."""
    nothing_kept = "nothing written"
    """What an interrupted run without ``out`` says (its scratch directory is removed)."""

    def plan(self, store: Any) -> Any:
        """A fresh run's :class:`shedsim.runs.execute.Job` in ``store`` (:meth:`store`;
        nothing written yet), every option checked."""
        raise NotImplementedError

    def store(self, root: Path) -> Any:
        """The run store (:class:`shedsim.runs.store.RunStore` subclass) at ``root``."""
        raise NotImplementedError

    def from_store(self, store: Any) -> Any:
        """The job of the run stored in ``store`` (``resume``)."""
        raise NotImplementedError

    def resume_checks(self, job: Any) -> list[Check]:
        """The options that decide results as given and as ``job`` (the stored run) has them."""
        return []

    def notes(self, job: Any, resume: bool) -> list[str]:
        """Lines said (unless quiet) before play: rounding, seating, degenerate pairs..."""
        return []

    def so_far(self, job: Any) -> str:
        """What an interrupted run had found, said in its stop message (``""``: nothing)."""
        return ""

    def analyse(self, job: Any, store: Any, outcome: Any) -> Any:
        """The results of the stored chunks ``outcome.done`` (None: too few to analyse)."""
        raise NotImplementedError

    def run_info(self, job: Any, res: Any, outcome: Any) -> dict[str, Any]:
        """run.json's fields beyond the core ones
        (:meth:`shedsim.runs.execute.Session.run_info`)."""
        return {}

    def write(self, job: Any, res: Any, root: Path, plots: bool) -> list[str]:
        """Write the reports into ``root``; their names (run.json is written after)."""
        raise NotImplementedError

    def games_done(self, job: Any, res: Any) -> int:
        """The games in the results (the stop message of a run stopped early)."""
        return 0

    def in_results(self, job: Any, res: Any) -> str | None:
        """What the partial results of a run stopped early hold, in words (``of the 4,500 games
        per variant finished in every variant``); None: :meth:`games_done` games."""
        return None

    def result(self, run: StudyRun) -> Any:
        """The caller's result object (the Python API's) of a finished :class:`StudyRun`."""
        return run


class StorelessStudy(Study):
    """A study that keeps no run store (tips, tune): :meth:`check` its options,
    :meth:`play` with the pool of workers, then :meth:`run_info` and :meth:`write`."""

    keeps_store = False
    soft = False
    """A first signal is only noted (:attr:`shedsim.runs.execute.Session.soft`)."""
    chunk_games = 0
    """The most games one call of the study plays (the memory check of the workers)."""
    resumes = False
    """Whether ``resume`` continues the study kept in that directory (tune's optuna study,
    with the options stored in it: :meth:`resume_from`); False: ``resume`` is refused."""
    players = 2

    def resume_from(self, root: Path) -> None:
        """Take the options of the study kept in ``root`` (``resume``; only when
        :attr:`resumes`), refusing those given that differ (:class:`StudyError`)."""

    def check(self, out: Path | None) -> None:
        """Check every option before ``out`` (the run's directory, or None) is touched."""

    def play(self, session: Any, pool: Pool) -> Any:
        """Play the study on ``pool``; returns its results. A ``KeyboardInterrupt`` (a
        signal) propagates to :meth:`stopped`."""
        raise NotImplementedError

    def stopped(self, session: Any) -> str:
        """What the stop message says after ``interrupted``: what was kept (``: nothing
        written``)."""
        return ": nothing written"

    def info(self, session: Any, res: Any) -> dict[str, Any]:
        """run.json's content (:meth:`shedsim.runs.execute.Session.info`)."""
        raise NotImplementedError

    def write_failed(self, message: str) -> str:
        """The message of a report that could not be written (what is kept besides)."""
        return message


@dataclass
class StudyRun:
    """What :func:`run_study` did: the study, its job, the analysis (``res``), the play's
    :class:`shedsim.runs.execute.Outcome` (None without a run store), run.json's content,
    the files written into ``out`` (None: nothing written), the workers used, wall seconds
    and, when it stopped early, the line that says what was kept."""

    study: Study
    job: Any
    res: Any
    outcome: Any
    info: dict[str, Any]
    files: list[str]
    out: Path | None
    workers: int
    wall_s: float
    stop_message: str | None = None
    code: int = 0

    @property
    def complete(self) -> bool:
        return self.outcome is None or bool(self.outcome.complete)

    @property
    def exit_code(self) -> int:
        """0 done; 130 interrupted (Ctrl-C, ``stop_after``); 143 terminated (SIGTERM)."""
        return self.code


# ------------------------------------------------------------------ the driver
def _console(o: RunOptions) -> Any:
    if o.console is not None:
        return o.console
    from rich.console import Console

    return Console(stderr=True)


def _check_execution(o: RunOptions) -> None:
    from shedsim.runs.simulate import BackendError, check_backend

    try:
        check_backend(o.backend, o.scheduler)
    except (ValueError, BackendError) as e:
        raise as_study_error(e) from None
    if (
        o.resume is not None
        and o.out is not None
        and Path(o.out).resolve() != Path(o.resume).resolve()
    ):
        raise StudyError(
            f"--out {str(o.out)!r} and --resume {str(o.resume)!r} differ: a resumed run writes "
            "into "
            f"its own directory"
        )


def run_study(study: Study, options: RunOptions | None = None) -> StudyRun:
    """Run ``study`` with ``options`` (:class:`RunOptions`; default: the defaults) through
    the whole run protocol (see the module docstring) and return the :class:`StudyRun`.

    A run stopped early by a signal or ``stop_after`` returns with ``stop_message`` and
    ``exit_code`` 130 or 143 when the study writes partial results (its files then hold
    them); otherwise it raises :class:`StudyInterrupted`. Raises :class:`StudyError` for
    everything else that stops it (bad options, a busy or foreign directory: exit 2,
    nothing written; a strategy or worker that failed: 1; a file that could not be
    written: 3, the finished chunks kept)."""
    o = options or RunOptions()
    _check_execution(o)
    if not study.keeps_store:
        return _run_storeless(study, o)  # type: ignore[arg-type]
    with _directory(o) as (root, scratch):
        store = study.store(root)  # (no file is touched before the plan is checked)
        job = None if o.resume is not None else study.plan(store)
        return _run_in(study, o, job, store, root, scratch)


@contextlib.contextmanager
def _directory(o: RunOptions) -> Iterator[tuple[Path, bool]]:
    """The run's directory and whether it is a scratch one (no ``out``: removed at the end)."""
    if o.resume is not None or o.out is not None:
        yield Path(o.resume if o.resume is not None else o.out), False
        return
    with tempfile.TemporaryDirectory(prefix="shedsim-") as tmp:
        yield Path(tmp) / "run", True


def _run_in(
    study: Study, o: RunOptions, job: Any, store: Any, root: Path, scratch: bool
) -> StudyRun:
    from shedsim.runs.execute import RunError, Session, done_chunks

    resume = o.resume is not None
    console = _console(o)
    session = Session(
        study.command,
        store,
        resume=resume,
        outputs=study.outputs,
        force=o.force,
        quiet=o.quiet,
        console=console,
        plots=not o.no_plots,
        scratch=scratch,
        resume_hint="" if not scratch else f"shedsim {study.command} --resume DIR",
    )
    with session:
        replacing = not resume and store.chunks.is_dir() and any(store.chunks.glob("*.npz"))
        try:
            session.open()
            if resume:
                job = study.from_store(store)
                check_resume(study.resume_checks(job))
                done_chunks(
                    job, store, strict=True
                )  # a damaged or foreign chunk file: refuse, change nothing
        except RunError as e:
            raise as_study_error(e, e.code) from None
        except store.Error as e:
            raise as_study_error(e) from None
        for line in study.notes(job, resume):
            session.say(line, highlight=False)
        if replacing:
            session.say(
                f"[yellow]note:[/] replacing the earlier run in {str(root)!r} (use --resume to "
                "continue a "
                f"run instead)"
            )
        if resume:
            session.say(
                f"resuming {str(root)!r}: {len(done_chunks(job, store))} of {job.n_chunks} "
                f"{study.unit} "
                f"already done"
            )
        try:
            outcome, workers = session.run(job, o.workers, o.backend, o.scheduler, o.stop_after)
        except RunError as e:
            raise as_study_error(e, e.code) from None
        if outcome.interrupted and not study.partial_reports:
            raise _interrupted(study, job, outcome, root, scratch, session)
        with session.deferred():  # a signal now only stops after the reports are written
            try:
                res = study.analyse(job, store, outcome)
            except OSError as e:
                raise StudyError(f"cannot read the run store {str(root)!r}: {e}", 3) from None
        if res is None:  # interrupted before anything could be analysed
            raise _interrupted(study, job, outcome, root, scratch, session)
        info = session.run_info(
            job, outcome, workers, o.backend, **study.run_info(job, res, outcome)
        )
        files = None
        if not scratch:
            try:
                files = session.write_reports(
                    job, outcome, lambda: study.write(job, res, root, session.plots), info
                )
            except RunError as e:
                raise as_study_error(e, e.code) from None
    run = StudyRun(
        study, job, res, outcome, info, files, None if scratch else root, workers, session.wall_s
    )
    if outcome.interrupted:
        run.code = session.exit_code(outcome)
        run.stop_message = (
            session.stop_message(
                job, outcome, study.games_done(job, res), study.in_results(job, res)
            )
            if not scratch
            else (f"{_how(outcome.stopped_by)}: nothing written")
        )
    return run


def _how(stopped_by: str | None) -> str:
    return "terminated (SIGTERM)" if stopped_by == "SIGTERM" else "interrupted"


def _interrupted(
    study: Study, job: Any, outcome: Any, root: Path, scratch: bool, session: Any
) -> StudyInterrupted:
    """The error of a run stopped before its reports could be written: what was kept, and
    how to go on."""
    how, so_far = _how(outcome.stopped_by), study.so_far(job)
    if scratch:
        return StudyInterrupted(f"{how}{so_far}: {study.nothing_kept}", session.exit_code(outcome))
    return StudyInterrupted(
        f"{how}{so_far}: {study.not_yet}{len(outcome.done)} of {job.n_chunks} {study.unit} "
        f"finished and kept in {str(root)}; the reports need {study.needs}, so none was written; "
        f"continue with: shedsim {study.command} --resume {str(root)}",
        session.exit_code(outcome),
    )


def _run_storeless(study: StorelessStudy, o: RunOptions) -> StudyRun:
    from shedsim.runs.execute import RunError, Session
    from shedsim.runs.limits import LimitError, plan_workers
    from shedsim.runs.simulate import BackendError, SimulationError

    if o.resume is not None:
        if not study.resumes:
            raise StudyError(
                f"shedsim {study.command} keeps no run store to resume; run it again",
                field="resume",
            )
        study.resume_from(Path(o.resume))  # its stored options (those given beside: checked)
        o = replace(o, out=o.resume, resume=None)  # the study kept in that directory is continued
    study.check(None if o.out is None else Path(o.out))
    if o.out is not None:
        _check_out(study, Path(o.out))
    console = _console(o)
    try:
        workers, note = plan_workers(o.workers, o.scheduler, study.chunk_games, study.players)
    except LimitError as e:
        raise as_study_error(e) from None
    if note:
        console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    session = Session(
        study.command, None, soft=study.soft, quiet=o.quiet, console=console, plots=not o.no_plots
    )
    with session:
        try:
            with Pool(workers, o.backend, o.scheduler) as pool:
                res = study.play(session, pool)
            session.finishing()  # a signal from now on lets the reports be written
        except KeyboardInterrupt:
            raise StudyInterrupted(
                f"{_how(session.got_signal)}{study.stopped(session)}", session.signal_code()
            ) from None
        except SimulationError as e:
            raise StudyError(str(e), 1) from None
        except BackendError as e:
            raise as_study_error(e) from None
        info = study.info(session, res)
        if info.get("sessions"):  # the workers this session played on
            info["sessions"][-1].update(workers=workers, backend=o.backend)
        files = None
        if o.out is not None:
            try:
                files = session.write_files(
                    o.out, lambda: study.write(None, res, Path(o.out), session.plots), info
                )
            except RunError as e:
                raise StudyError(study.write_failed(e.message), e.code) from None
    return StudyRun(
        study,
        None,
        res,
        None,
        info,
        files,
        None if o.out is None else Path(o.out),
        workers,
        session.wall_s,
    )


def _check_out(study: Study, out: Path) -> None:
    """A storeless study's ``out``: never replacing a file shedsim did not write; made writable."""
    from shedsim.runs.store import RunStore, StoreError

    try:
        RunStore.check_out(out, study.outputs, force_option=None, command=study.command)
        RunStore.check_writable(out)
    except StoreError as e:
        raise as_study_error(e) from None


__all__ = [
    "Check",
    "Pool",
    "RunOptions",
    "StorelessStudy",
    "Study",
    "StudyError",
    "StudyInterrupted",
    "StudyRun",
    "as_study_error",
    "check_resume",
    "marked",
    "run_study",
    "split_range",
    "study_errors",
]
