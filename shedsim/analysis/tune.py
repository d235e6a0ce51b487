"""Tuning a strategy's integer parameters against a field of opponents (optuna).

**What a trial is.** The candidate (the strategy with the trial's parameters) meets each
field entry head to head on paired deals, exactly as :mod:`shedsim.analysis.sprt` plays them (at
P players the candidate takes one seat, the field entry the other P - 1; each deal is
played under every rotation). Its *score* against an entry is the mean share of the other
seats it finished ahead of (ties 1/2, :func:`shedsim.analysis.sprt.half_points`); the trial's value
is the mean over the field. Every trial plays the **same deals** (the run seed and deal
indices ``0 .. games - 1``: common random numbers), so two trials differ by their
parameters, not by their cards.

**The search.** optuna's TPE sampler (seeded with the run seed; ``random`` as a
baseline) proposes integers in each parameter's range (the plugin's ``PARAM_SPACE``, or
``--param NAME=LO:HI``, which then names every parameter tuned). The first trial is the starting
parameters. Parameters fixed in
the strategy spec (``heuristic:search=0``) are not tuned. The study lives in an optuna
storage (SQLite in the output directory by default), so an interrupted run resumes where
it stopped and several processes can work on one study; ``budget`` counts completed
trials, whoever ran them.

**The confirmation.** The best trial's value is the maximum of many noisy estimates, so
it overstates the gain (the winner's curse). The best parameters are therefore played
again on fresh deals (a seed the search never used), against the starting parameters
head to head and against the field beside the starting parameters on the same deals;
both gains come with 95% Student t intervals over deals.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

import numpy as np

from shedsim.output.charts.tune import plot_history, plot_importance  # noqa: F401 - re-exported
from shedsim.rules.ruleset import RuleSet

CONFIRM_SEED_OFFSET = 1_000_003
"""The confirmation plays deals of seed ``seed + CONFIRM_SEED_OFFSET``, never seen in the search."""
STUDY_NAME = "shedsim-tune"
OPTIONS_ATTR = "shedsim_options"
"""The study's user attribute holding the options of the latest run on it (``--resume``)."""
SAMPLERS = ("tpe", "random")

DEFINITIONS = {
    "score": "mean share of the other seats the candidate finished ahead of (ties 1/2), over "
    "paired "
    "deals and the field entries; 0.5 = as strong as the field",
    "in-sample": "measured on the deals every trial played (seed --seed): the best of many "
    "trials is "
    "biased upwards (winner's curse)",
    "fresh deals": (
        f"deals of seed --seed + {CONFIRM_SEED_OFFSET:,}, never played during the search"
    ),
    "head to head": "best parameters (X) against the starting parameters (Y) on fresh paired "
    "deals: X's "
    "score with a 95% t interval over deals, and its logistic Elo",
    "gain vs field": "score of the best parameters minus score of the starting parameters "
    "against the "
    "field, on the same fresh deals: 95% t interval over deals",
    "importance": "how much each parameter explains of the trial scores: optuna.importance."
    "get_param_importances with its default evaluator (sums to 1)",
}


class TuneError(ValueError):
    """Bad tuning options (the message names the option) or a storage holding another run."""


@dataclass(frozen=True)
class Param:
    """One tuned parameter: integers ``lo..hi``, sampled on a log scale when ``log``."""

    name: str
    lo: int
    hi: int
    log: bool = False


def parse_param(text: str) -> Param:
    """Read ``NAME=LO:HI`` or ``NAME=LO:HI:log`` (integers that fit int64). Raises
    :class:`TuneError` naming ``--param``."""
    name, eq, rng = text.partition("=")
    parts = rng.split(":")
    try:
        if not eq or len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "log"):
            raise ValueError
        lo, hi = int(parts[0]), int(parts[1])
    except ValueError:
        raise TuneError(
            f"--param {text!r}: write NAME=LO:HI or NAME=LO:HI:log (integers)"
        ) from None
    if lo > hi:
        raise TuneError(f"--param {text!r}: LO must not exceed HI")
    if not -(2**63) <= lo <= hi < 2**63:  # a trial's values go to the kernel as int64 parameters
        raise TuneError(
            f"--param {text!r}: LO and HI must lie between {-(2**63):,} and {2**63 - 1:,} "
            f"(64-bit integers)"
        )
    if len(parts) == 3 and lo < 1:
        raise TuneError(f"--param {text!r}: a log range needs LO >= 1")
    return Param(name.strip(), lo, hi, len(parts) == 3)


def search_space(strategy, fixed: dict[str, int], params: list[str] | None = None) -> list[Param]:
    """The parameters to tune: ``params`` (``NAME=LO:HI[:log]``) when given, else the
    plugin's ``PARAM_SPACE`` (``{name: (lo, hi[, "log"])}``, checked against the ranges
    when the plugin loaded); less the ones ``fixed`` in the spec. Raises :class:`TuneError`
    for an unknown name, a ``--param`` range outside the parameter's declared range
    (``PARAM_RANGES``), a starting value outside its range, or nothing to tune."""
    from shedsim.plugin_meta import range_text

    space: dict[str, Param] = {}
    if not params:
        for name, rng in strategy.param_space.items():
            space[name] = Param(name, int(rng[0]), int(rng[1]), len(rng) > 2 and rng[2] == "log")
    for text in params or []:
        p = parse_param(text)
        if p.name not in strategy.params:
            known = ", ".join(strategy.params) or "none"
            raise TuneError(
                f"--param {text!r}: strategy {strategy.name!r} has no parameter {p.name!r}; "
                f"parameters: {known}"
            )
        lo, hi = strategy.ranges[p.name]
        if not lo <= p.lo <= p.hi <= hi:
            raise TuneError(
                f"--param {text!r}: strategy {strategy.name!r}: parameter {p.name} accepts "
                f"{range_text((lo, hi))}, so {p.lo}:{p.hi} is outside its range"
            )
        space[p.name] = p
    start = {**strategy.params, **fixed}
    out = []
    for name in strategy.params:
        if name in space and name not in fixed:
            p = space[name]
            if not p.lo <= start[name] <= p.hi:
                raise TuneError(
                    f"--param {name}: the starting value {start[name]} lies outside {p.lo}:{p.hi}"
                )
            out.append(p)
    if not out:
        raise TuneError(
            f"nothing to tune: strategy {strategy.name!r} declares no PARAM_SPACE for its free "
            f"parameters; give ranges with --param NAME=LO:HI"
        )
    return out


def format_spec(name: str, values: dict[str, int]) -> str:
    """``NAME:p=v,...`` (every parameter given, in order): a spec every command accepts."""
    return name + (":" + ",".join(f"{k}={int(v)}" for k, v in values.items()) if values else "")


@dataclass
class TuneSpec:
    """What to tune. ``strategy`` is the starting spec (``NAME`` or ``NAME:p=v``: fixed
    parameters are not tuned); ``field`` the opponents' specs; ``games`` per field entry
    and trial (rounded down to whole deals of ``players`` games)."""

    strategy: str
    field: tuple[str, ...]
    rules: RuleSet
    players: int = 2
    games: int = 4000
    seed: int = 0
    params: tuple[str, ...] = ()
    sampler: str = "tpe"
    strategy_paths: tuple[str, ...] = ()
    name: str = field(init=False, default="")
    start: dict[str, int] = field(init=False, default_factory=dict)
    space: list[Param] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        from shedsim.plugins import PluginError, compiled_strategy, discover, parse_spec
        from shedsim.analysis.sprt import SPRTError, rules_name

        if self.sampler not in SAMPLERS:
            raise TuneError(f"--sampler: one of {', '.join(SAMPLERS)}; got {self.sampler!r}")
        if (
            isinstance(self.games, bool)
            or not isinstance(self.games, (int, np.integer))
            or self.games < 2 * self.players
        ):
            raise TuneError(
                f"--games: at least {2 * self.players} (two deals under every rotation), got "
                f"{self.games!r}"
            )
        if not self.field:
            raise TuneError("--field: name at least one opponent")
        try:
            self.rules.check_players(self.players)
        except ValueError as e:
            raise TuneError(f"--players: {e}") from None
        try:
            known = discover(list(self.strategy_paths))
        except PluginError as e:
            raise TuneError(f"--strategy-path: {e}") from None
        option = "--strategy"
        try:
            s = compiled_strategy(known, self.strategy, "tune")
            option = "--field"
            for f in self.field:
                if not f.startswith("bot:"):  # a bot (--bot): open_match starts and greets it
                    compiled_strategy(known, f, "tune")
        except PluginError as e:
            raise TuneError(f"{option}: {e}") from None
        except SPRTError as e:  # pragma: no cover - compiled_strategy raises PluginError
            raise TuneError(str(e)) from None
        name, fixed = parse_spec(self.strategy)
        self.name = name
        self.start = {**s.params, **fixed}
        self.space = search_space(s, fixed, list(self.params))
        self.rules_name = rules_name(self.rules)

    @property
    def start_spec(self) -> str:
        return format_spec(self.name, self.start)

    def key(self) -> dict[str, Any]:
        """Everything that defines the study (the budget excepted), for the resume check."""
        return {
            "strategy": self.strategy,
            "start": self.start,
            "field": list(self.field),
            "rules": self.rules_name,
            "players": self.players,
            "games": int(self.games),
            "seed": int(self.seed),
            "sampler": self.sampler,
            "space": [[p.name, p.lo, p.hi, p.log] for p in self.space],
        }


def field_scores(
    start_spec: str,
    opponent: str,
    rules: RuleSet,
    players: int,
    seed: int,
    strategy_paths: tuple[str, ...],
    candidate: str,
    values: np.ndarray,
    start: int,
    stop: int,
) -> np.ndarray:
    """float64[deals]: per deal of games ``start .. stop-1`` (whole deals), the share of the
    other seats the candidate (the strategy with parameter ``values``, int64[params], named
    ``candidate`` in a failure) finished ahead of against ``opponent``. Module level
    (picklable): a piece of a trial played in a worker; the match is loaded once per process.
    Raises :class:`shedsim.runs.simulate.SimulationError`."""
    from dataclasses import replace

    from shedsim.analysis.matches import cached_match

    m = cached_match(start_spec, opponent, rules, players, seed, strategy_paths, owner="tune")
    m.params[0, :] = 0
    m.params[0, : len(values)] = values
    m.spec = replace(
        m.spec, entries=(candidate,) + m.spec.entries[1:]
    )  # a failure names the candidate
    h, _ = m.play(start, stop, True)
    return h.reshape(-1, players).sum(axis=1) / (2.0 * (players - 1) * players)


def head_to_head_scores(
    a: str,
    b: str,
    rules: RuleSet,
    players: int,
    seed: int,
    strategy_paths: tuple[str, ...],
    start: int,
    stop: int,
) -> np.ndarray:
    """float64[deals]: per deal of games ``start .. stop-1``, the share of the other seats
    ``a`` finished ahead of against ``b`` (module level: played in a worker). Raises
    :class:`shedsim.runs.simulate.SimulationError`."""
    from shedsim.analysis.matches import cached_match

    h, _ = cached_match(a, b, rules, players, seed, strategy_paths).play(start, stop, True)
    return h.reshape(-1, players).sum(axis=1) / (2.0 * (players - 1) * players)


class Evaluator:
    """Plays parameter sets of the strategy against every field entry on the deals of one
    seed (the same deals for every call: common random numbers), on ``pool``'s workers
    (:class:`shedsim.runs.pool.Pool`; default: this process): each entry's deals in pieces,
    at least one per worker; the scores are the same for any number of workers."""

    def __init__(self, spec: TuneSpec, seed: int, pool=None) -> None:
        from shedsim.analysis.matches import cached_match
        from shedsim.runs.pool import InProcess

        self.spec, self.seed = spec, seed
        self.pool = InProcess() if pool is None else pool
        for f in spec.field:  # the options and strategies are checked (and the kernel loaded) here
            cached_match(
                spec.start_spec,
                f,
                spec.rules,
                spec.players,
                seed,
                spec.strategy_paths,
                owner="tune",
            )
        self.names = list(spec.start)

    def per_deal(self, values: dict[str, int], games: int) -> np.ndarray:
        """float64[deals]: per deal, the candidate's score averaged over the field
        (``values`` completes the starting parameters). ``games`` is rounded down to
        whole deals. Raises :class:`shedsim.runs.simulate.SimulationError`."""
        from shedsim.runs.pool import split_range

        p, spec = self.spec.players, self.spec
        full = {**spec.start, **values}
        vec = np.array([full[n] for n in self.names], np.int64)
        n = games // p * p
        candidate = format_spec(spec.name, full)
        pieces = split_range(0, n, self.pool.slots, p)
        got = self.pool.map(
            [
                (
                    field_scores,
                    (
                        spec.start_spec,
                        f,
                        spec.rules,
                        p,
                        self.seed,
                        spec.strategy_paths,
                        candidate,
                        vec,
                        a,
                        b,
                    ),
                )
                for f in spec.field
                for a, b in pieces
            ]
        )
        total = np.zeros(n // p)
        for i in range(len(spec.field)):
            total += np.concatenate(got[i * len(pieces) : (i + 1) * len(pieces)])
        return total / len(spec.field)


OWNER_ATTR = "shedsim_owner"
"""The user attribute a trial gets when it starts: ``{"host": ..., "lock": TOKEN}``, the host
and the owner lock (:func:`owner_lock`) of the process running it."""


def lock_dir(storage: str) -> Path:
    """The folder of the locks that guard the optuna storage ``storage`` (a URL): beside
    the database file for SQLite (``study.db`` -> ``study.db.locks/``), else a folder in
    the temporary directory named by a hash of the URL (so processes of one machine that
    share a database server agree on it). Raises :class:`TuneError` naming ``--storage``
    for a URL that cannot be read."""
    import hashlib
    import tempfile

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        u = make_url(storage)
    except (ArgumentError, ValueError) as e:
        raise TuneError(f"--storage {storage!r}: not a database URL ({e})") from None
    if u.get_backend_name() == "sqlite" and u.database not in (None, "", ":memory:"):
        db = Path(u.database).resolve()
        return db.with_name(db.name + ".locks")
    return (
        Path(tempfile.gettempdir())
        / f"shedsim-optuna-{hashlib.sha256(storage.encode()).hexdigest()[:16]}.locks"
    )


def _lock(storage: str, name: str, timeout: float = -1):
    """A :class:`filelock.FileLock` named ``name`` in :func:`lock_dir` (created)."""
    from filelock import FileLock

    d = lock_dir(storage)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise TuneError(
            f"--storage {storage!r}: cannot create the lock folder {str(d)!r}: {e.strerror or e}"
        ) from None
    return FileLock(str(d / name), timeout=timeout)


def open_storage(storage: str):
    """The optuna storage at ``storage`` (an :class:`optuna.storages.RDBStorage`), its
    tables created once: under a lock (filelock, in :func:`lock_dir`), so processes that
    open one new storage at the same time do not create optuna's schema twice (SQLAlchemy
    would fail with "table ... already exists"). Raises :class:`TuneError` naming
    ``--storage``."""
    with _lock(storage, "create.lock"):
        return _rdb(storage)


def _rdb(storage: str):
    """:class:`optuna.storages.RDBStorage` ``(storage)``, for a caller holding the create lock."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        return optuna.storages.RDBStorage(storage)
    except Exception as e:  # noqa: BLE001 - bad URLs raise many kinds (ArgumentError, ImportError, ...)
        raise TuneError(
            f"--storage {storage!r}: cannot open the study: {type(e).__name__}: {e}"
        ) from None


def owner_lock(storage: str):
    """A new owner lock for this process's trials in ``storage``: a
    :class:`filelock.FileLock` (an flock(2) lock: the kernel drops it when the process
    dies, even by SIGKILL) and its token, which each trial the process runs records in
    :data:`OWNER_ATTR`. While it is held, the trials are known to be alive."""
    import uuid

    token = uuid.uuid4().hex
    return _lock(storage, f"owner-{token}.lock", timeout=0), token


def fail_dead_trials(storage, study_id: int, url: str) -> list[int]:
    """Mark failed the trials of the study ``study_id`` left ``RUNNING`` by a process of
    this host that has died (killed by SIGKILL, or its machine rebooted): those whose
    owner lock (:func:`owner_lock`) is free. Trials of a live process, of another host, or
    without an owner are left alone. The lock files of dead owners are removed. Returns
    the numbers of the trials marked failed."""
    import socket

    import optuna
    from filelock import Timeout

    host = socket.gethostname()
    failed = []
    for t in storage.get_all_trials(
        study_id, deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)
    ):
        owner = t.user_attrs.get(OWNER_ATTR)
        if (
            not isinstance(owner, dict)
            or owner.get("host") != host
            or not str(owner.get("lock", "")).isalnum()
        ):
            continue
        lock = _lock(url, f"owner-{owner['lock']}.lock", timeout=0)
        try:
            lock.acquire()
        except Timeout:
            continue  # its process is still running it
        try:
            tid = storage.get_trial_id_from_study_id_trial_number(study_id, t.number)
            storage.set_trial_user_attr(tid, "shedsim_failed", "its process died while running it")
            storage.set_trial_state_values(tid, optuna.trial.TrialState.FAIL)
            failed.append(t.number)
        finally:
            lock.release()
            with contextlib.suppress(OSError):
                Path(lock.lock_file).unlink()
    for f in lock_dir(url).glob(
        "owner-*.lock"
    ):  # the owner locks of processes killed between two trials
        lock = _lock(url, f.name, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            continue
        lock.release()
        with contextlib.suppress(OSError):
            f.unlink()
    return failed


def open_study(
    spec: TuneSpec, storage: str, study_name: str = STUDY_NAME, options: dict | None = None
):
    """Create or load the optuna study at ``storage`` (a URL). Refuses (:class:`TuneError`)
    a stored study of another tuning run (another strategy, field, rules, players, games,
    seed, sampler or search space). ``options`` (a JSON-able dict: the command's options)
    are stored in the study (:data:`OPTIONS_ATTR`, replacing those of an earlier run on it)
    for :func:`stored_options`. The first trial of a new study is the starting
    parameters. The storage's tables and the study are created (or loaded) under the lock
    of :func:`open_storage`: several processes may start on one new storage at once, and
    the starting parameters are queued once. Trials that a killed process of this host
    left ``RUNNING`` are marked failed first (:func:`fail_dead_trials`)."""
    import optuna

    sampler = (
        optuna.samplers.TPESampler(seed=spec.seed)
        if spec.sampler == "tpe"
        else optuna.samplers.RandomSampler(seed=spec.seed)
    )
    key = json.loads(json.dumps(spec.key()))
    with _lock(storage, "create.lock"):
        rdb = _rdb(storage)
        try:
            try:
                fail_dead_trials(rdb, rdb.get_study_id_from_name(study_name), storage)
            except KeyError:
                pass  # a new study
            study = optuna.create_study(
                storage=rdb,
                study_name=study_name,
                direction="maximize",
                sampler=sampler,
                load_if_exists=True,
            )
        except Exception as e:  # noqa: BLE001 - a database that cannot be read or written
            raise TuneError(
                f"--storage {storage!r}: cannot open the study: {type(e).__name__}: {e}"
            ) from None
        stored = study.user_attrs.get("shedsim_spec")
        if stored is None:
            study.set_user_attr("shedsim_spec", key)
            study.enqueue_trial({p.name: spec.start[p.name] for p in spec.space})
    if stored is not None and stored != key:
        diff = [k for k in key if stored.get(k) != key[k]]
        raise TuneError(
            f"the study {study_name!r} in {storage} belongs to another tuning run "
            f"({', '.join(diff)} differ): resume it with the same options, or use another "
            f"--out (or --storage/--study-name)"
        )
    if options is not None:
        study.set_user_attr(OPTIONS_ATTR, json.loads(json.dumps(options)))
    return study


def stored_options(storage: str, study_name: str | None = None) -> tuple[dict, str]:
    """The options the latest run stored in a study at ``storage`` (a URL; the storage must
    exist: an SQLite file is created when missing) and the study's name: ``study_name``,
    else the storage's only study, else :data:`STUDY_NAME`. Raises :class:`TuneError`
    naming ``--study-name`` for a study the storage does not hold, ``--resume`` for a study
    stored without its options (started by an older shedsim) and ``--storage`` for a
    storage that cannot be read."""
    rdb = open_storage(storage)
    try:
        names = [s.study_name for s in rdb.get_all_studies()]
    except Exception as e:  # noqa: BLE001 - a database that cannot be read
        raise TuneError(
            f"--storage {storage!r}: cannot read the studies: {type(e).__name__}: {e}"
        ) from None
    if study_name is None:
        study_name = names[0] if len(names) == 1 else STUDY_NAME
    if study_name not in names:
        held = ", ".join(map(repr, names)) if names else "none"
        raise TuneError(f"--study-name: {storage} holds no study {study_name!r} (it holds {held})")
    opts = rdb.get_study_user_attrs(rdb.get_study_id_from_name(study_name)).get(OPTIONS_ATTR)
    if not isinstance(opts, dict):
        raise TuneError(
            f"--resume: the study {study_name!r} in {storage} holds no stored options (started "
            "by an older shedsim): run the tune command that started it again instead"
        )
    return opts, study_name


def completed(study) -> list:
    """The study's completed trials, in order."""
    import optuna

    return [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]


def run_trials(
    spec: TuneSpec,
    study,
    budget: int,
    on_trial: Callable[[int, float, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    url: str | None = None,
    pool=None,
) -> None:
    """Run trials until the study holds ``budget`` completed trials (counting those of
    earlier runs and of other processes). ``on_trial(completed, value, best)`` after each;
    when ``should_stop()`` is true after a trial, no further trial starts (the command's
    Ctrl-C). A KeyboardInterrupt stops the trial in progress (optuna records it as failed;
    it is not counted) and propagates. With ``url`` (the study's storage), the process
    holds an owner lock (:func:`owner_lock`) while it runs trials and each trial records
    it, so that a trial this process leaves ``RUNNING`` when it is killed is marked failed
    by the next :func:`open_study`. ``pool``: the workers that play each trial
    (:class:`Evaluator`). Raises :class:`shedsim.runs.simulate.SimulationError`."""
    import optuna

    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise TuneError(f"--budget: at least 1 trial, got {budget!r}")
    if len(completed(study)) >= budget:
        return
    ev = Evaluator(spec, spec.seed, pool)
    import socket

    owner, token = owner_lock(url) if url else (None, None)
    me = {"host": socket.gethostname(), "lock": token}

    def objective(trial) -> float:
        if owner is not None:
            trial.set_user_attr(OWNER_ATTR, me)
        values = {p.name: trial.suggest_int(p.name, p.lo, p.hi, log=p.log) for p in spec.space}
        return float(ev.per_deal(values, spec.games).mean())

    def callback(study, trial) -> None:
        if on_trial is not None and trial.state == optuna.trial.TrialState.COMPLETE:
            done = completed(study)
            on_trial(len(done), float(trial.value), max(t.value for t in done))
        if should_stop is not None and should_stop():
            study.stop()

    stop = optuna.study.MaxTrialsCallback(budget, states=(optuna.trial.TrialState.COMPLETE,))
    # a trial that raises is raised again here and reported by the command in words: optuna's
    # own log of it (a warning with a traceback) would only repeat it
    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        with owner if owner is not None else contextlib.nullcontext():
            study.optimize(objective, callbacks=[callback, stop], gc_after_trial=False)
    finally:
        optuna.logging.set_verbosity(level)
        if owner is not None:
            with contextlib.suppress(OSError):
                Path(owner.lock_file).unlink()
