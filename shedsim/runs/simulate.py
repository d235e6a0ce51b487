"""Running many games on the compiled kernel: schedules, chunks, workers.

The flow (DESIGN): a :class:`RunSpec` and a schedule say what every game index means
(deal, dealer, who sits where); work is cut into chunks of consecutive game indices;
each chunk is played by :func:`play_chunk` in whatever process joblib gives it, which
loads the plugins and the cached kernel itself. Every random key comes from
``(run seed, game or deal index)`` (:mod:`shedsim.seeding`), so results are identical
for any chunk size, number of workers or backend.

A compiled plugin from outside ``strategies/`` that crashes the process (numba checks no
bounds) cannot take a run down: the kernel plays any call holding one in a forked child
(:mod:`shedsim.base.isolate`), and :func:`describe_failure` names the strategy, seat,
move, seed, game and deal, with the ``shedsim trace`` command, by replaying the game with a
flight recorder (:mod:`shedsim.runs.recorder`). A worker that dies anyway is named by
:mod:`shedsim.runs.crash`.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shedsim.rules.ruleset import RuleSet
from shedsim.runs.backends import (  # noqa: F401 - re-exported: where the calls are played
    BACKENDS,
    CLUSTER_BACKENDS,
    THREADS_ENV,
    BackendError,
    backend_config,
    check_backend,
    die_with_parent,
    on_threads,
    plays_on_threads,
    run_on_threads,
)
from shedsim.seeding import game_keys


class SimulationError(RuntimeError):
    """A strategy failed during a run; the message names the plugin, seed, game and position,
    and the ``shedsim trace`` command that replays the game. ``game``: the failing game's
    index in the run (None when unknown)."""

    def __init__(self, message: str, game: int | None = None) -> None:
        super().__init__(message)
        self.game = game


@dataclass(frozen=True)
class RunSpec:
    """What to simulate. ``entries`` are strategy specs (``NAME`` or ``NAME:param=v``),
    ``labels`` their display names (distinct; the same strategy may be entered twice).

    ``schedule`` is ``"same"`` (every seat plays entry 0: benchmarks), ``"tournament"``
    (balanced tables, every rotation, paired deals: :func:`tournament_tables`), or
    ``"head-to-head"`` / ``"head-to-head-unpaired"`` (entry 0 in one seat, entry 1 in the
    others: the games of ``shedsim sprt`` and ``tips``, :func:`head_to_head`; used to
    replay their games, ``shedsim trace --schedule``).
    """

    rules: RuleSet
    players: int
    entries: tuple[str, ...]
    labels: tuple[str, ...]
    seed: int = 0
    games: int = 1
    schedule: str = "tournament"
    strategy_paths: tuple[str, ...] = ()
    chunk_size: int = 20_000
    swap_from: tuple[int, ...] | None = None
    """Per entry, the entry whose swap decides its face-up cards (-1: keep them as dealt);
    None: each entry swaps by its own strategy (see :meth:`shedsim.kernel.build.Kernel.play`)."""
    seated: int = 0
    """How many entries (the first ones) take seats; 0: all. The others only lend their swap
    functions through ``swap_from`` (the swap study's policies)."""
    stream: int = 0
    """Strategy-stream number (:func:`shedsim.seeding.game_keys`): runs with the same seed
    and different streams play the same deals with independent strategy randomness."""
    bot_move_ms: int = 1000
    """Milliseconds a bot entry (``bot:COMMAND``, :mod:`shedsim.bot`) has for each answer."""
    bot_game_ms: int | None = None
    """Milliseconds a bot entry has for all its answers in one game (None: no such budget)."""
    bot_cwd: str = ""
    """The directory bots are started in: the one the command was given in, wherever the
    chunk is played (a dask worker's own may differ); empty: the worker's."""
    deals: tuple = ()
    """A deal set's deals (:class:`shedsim.rules.deals.Deal`, ``--deals FILE``), played instead
    of shuffled ones: see :meth:`decks`. Empty: deals shuffled from the seed."""
    deals_path: str = ""
    """The file :attr:`deals` came from (the ``--deals`` of the replay command), or empty."""
    luck: bool = False
    """Also measure each game's luck (2 players, compiled strategies, shuffled deals: the
    tournament's ``--control-variate``): the records gain ``luck`` (float64[n], seat 0's;
    :func:`shedsim.kernel.luck.play_traced`)."""

    def decks(self, sched: dict[str, np.ndarray]) -> np.ndarray | None:
        """``int64[n, deck size]``: the deck order of each game of ``sched`` (None without
        :attr:`deals`). Deal index d plays deal ``(d // T) % K`` of the K in the set, T the
        number of tables (1 for the head-to-head schedules): a tournament's consecutive blocks
        play one deal at every table under every rotation, a head-to-head block (every
        rotation) one deal."""
        if not self.deals:
            return None
        from shedsim.rules.deals import game_decks

        spread = len(self.tables()) if self.schedule == "tournament" else 1
        return game_decks(self.deals, (sched["deal"] // spread) % len(self.deals), sched["dealer"])

    def tables(self) -> list[tuple[int, ...]]:
        return (
            tournament_tables(self.seated or len(self.entries), self.players)
            if self.schedule == "tournament"
            else [(0,) * self.players]
        )

    def n_chunks(self) -> int:
        return max(1, math.ceil(self.games / self.chunk_size))

    def chunk_bounds(self, i: int) -> tuple[int, int]:
        return i * self.chunk_size, min(self.games, (i + 1) * self.chunk_size)


def tournament_tables(n_entries: int, players: int) -> list[tuple[int, ...]]:
    """Balanced tables of ``players`` seats drawn from ``n_entries`` entries.

    Every combination of distinct entries when there are at least as many entries as seats;
    otherwise every multiset (repeats allowed) that holds at least two different entries
    (a table of one entry compares nothing). Every entry appears equally often.
    """
    if n_entries >= players:
        return list(itertools.combinations(range(n_entries), players))
    if n_entries == 1:
        return [(0,) * players]
    return [
        t
        for t in itertools.combinations_with_replacement(range(n_entries), players)
        if len(set(t)) > 1
    ]


HEAD_TO_HEAD = {"head-to-head": True, "head-to-head-unpaired": False}
"""The head-to-head schedules of :class:`RunSpec` and whether their deals are paired."""


def head_to_head(players: int, start: int, stop: int, paired: bool = True) -> dict[str, np.ndarray]:
    """Games ``start..stop-1`` of a head-to-head run (``shedsim sprt``, ``tips``):
    ``index``, ``deal``, ``dealer`` (int64[n]), ``seating`` (int64[n, players]: entry 0 =
    X in one seat, entry 1 = Y in the others) and ``x_seat`` (int64[n], X's seat).

    Game g is rotation ``r = g % players`` of block ``g // players``; X sits in seat
    ``(-r) % players``; the dealer is seat ``block % players``. ``paired``: the block's
    games share deal ``g // players``; otherwise game g has deal g (no two games share
    cards). At 2 players and paired, identical to :func:`schedule_games` for entries
    (X, Y) and schedule ``"tournament"``.
    """
    idx = np.arange(start, stop, dtype=np.int64)
    block = idx // players
    rot = idx % players
    x_seat = (-rot) % players
    seating = np.ones((len(idx), players), np.int64)
    seating[np.arange(len(idx)), x_seat] = 0
    return {
        "index": idx,
        "deal": block if paired else idx.copy(),
        "dealer": block % players,
        "seating": seating,
        "x_seat": x_seat,
    }


def schedule_games(spec: RunSpec, start: int, stop: int) -> dict[str, np.ndarray]:
    """What games ``start..stop-1`` are: ``index``, ``deal`` (deal index: the N rotations of
    a block share a deal), ``dealer``, ``seating`` (int64[n, players] entry per seat).

    Game g is block b = g // players, rotation r = g % players; block b plays table
    b % n_tables with deal b; seat s holds the table's entry (s + r) % players.
    """
    n = spec.players
    if spec.schedule in HEAD_TO_HEAD:
        return head_to_head(n, start, stop, HEAD_TO_HEAD[spec.schedule])
    idx = np.arange(start, stop, dtype=np.int64)
    if spec.schedule == "same":
        deal = idx
        seating = np.zeros((len(idx), n), np.int64)
    else:
        tables = np.array(spec.tables(), dtype=np.int64)
        block = idx // n
        rot = idx % n
        deal = block
        t = tables[block % len(tables)]
        cols = (np.arange(n)[None, :] + rot[:, None]) % n
        seating = np.take_along_axis(t, cols, axis=1)
    return {"index": idx, "deal": deal, "dealer": deal % n, "seating": seating}


@dataclass
class ChunkResult:
    """Per-game records of one chunk (see :mod:`shedsim.kernel._loop`) plus its schedule."""

    start: int
    stop: int
    records: dict[str, np.ndarray] = field(default_factory=dict)
    seating: np.ndarray | None = None
    seconds: float = 0.0
    bots: Any = None
    """What the chunk's bots left (:class:`shedsim.bot.table.ChunkBots`), None without bots."""


def loaded_kernel(spec: RunSpec):
    """The plugins and compiled kernel ``spec`` plays with: ``(known, kernel module, entry
    ids int64[n_entries], entry params int64[n_entries, width])``. A strategy that is not
    compiled into the kernel raises KeyError (commands check their specs before this).

    Discovering the plugins and fingerprinting the kernel take milliseconds, more than a
    small chunk's games: :func:`shedsim.plugins.discover` and
    :func:`shedsim.kernel.build.kernel_module` keep their results for the process while
    the plugin files (path, modification time, size) stay the same."""
    from shedsim.bot.protocol import is_bot
    from shedsim.kernel.build import kernel_module
    from shedsim.plugins import MAX_PARAMS, discover, parse_spec

    known = discover(list(spec.strategy_paths))
    k = kernel_module([s for s in known.values() if s.compiled])
    ids, params = [], []
    for e in spec.entries:
        if is_bot(
            e
        ):  # a bot plays on the reference engine (shedsim.bot.table): the kernel never seats it
            ids.append(-1)
            params.append(np.zeros(MAX_PARAMS, np.int64))
            continue
        name, overrides = parse_spec(e)
        ids.append(k.ids[name])
        params.append(known[name].params_array(overrides))
    # The kernel copies an entry's parameters before each decision: pass only the columns
    # some entry uses, and at least 8 (the width before strategies could have 16).
    width = max(
        8,
        max(
            (len(known[parse_spec(e)[0]].params) for e in spec.entries if not is_bot(e)), default=0
        ),
    )
    return known, k, np.array(ids, np.int64), np.ascontiguousarray(np.stack(params)[:, :width])


def play_chunk(
    spec: RunSpec,
    start: int,
    stop: int,
    keep: tuple[str, ...] | None = None,
    status: np.ndarray | None = None,
) -> ChunkResult:
    """Play games ``start..stop-1`` of the run on the kernel (in any process). ``keep``
    limits the record fields returned (all by default); ``status``: see
    :meth:`shedsim.kernel.build.Kernel.play` (``status[0]``: the game in progress, from 0).

    Raises :class:`SimulationError` naming the strategy, run seed, game index and the
    position (replayed on the reference engine) when a strategy fails.
    """
    import time

    from shedsim.kernel.build import KernelError

    t0 = time.perf_counter()
    known, k, ids, params = loaded_kernel(spec)
    sched = schedule_games(spec, start, stop)
    dk, sk = game_keys(spec.seed, sched["index"], sched["deal"], spec.stream)
    ra = spec.rules.compile(spec.players)
    # games that seat a bot: the engine plays them
    bot_games = (ids[sched["seating"]] < 0).any(axis=1) if (ids < 0).any() else None
    bots = None
    try:
        swap_from = None if spec.swap_from is None else np.array(spec.swap_from, np.int64)
        if bot_games is not None and bot_games.any():
            rec, bots = play_with_bots(spec, known, k, ids, params, ra, sched, dk, sk, swap_from)
        else:
            rec = (
                play_luck(k, ra, ids, params, sched, dk, sk)
                if spec.luck
                else k.play(
                    ra,
                    ids,
                    params,
                    sched["seating"],
                    dk,
                    sk,
                    sched["dealer"],
                    swap_from=swap_from,
                    status=status,
                    decks=spec.decks(sched),
                )
            )
    except KernelError as e:
        raise SimulationError(
            describe_failure(spec, known, sched, dk, sk, e), int(sched["index"][e.game])
        ) from None
    if keep is not None:
        rec = {k: v for k, v in rec.items() if k in keep or k == "forfeit"}
    return ChunkResult(
        start, stop, rec, sched["seating"] if keep is None else None, time.perf_counter() - t0, bots
    )


LUCK_BATCH = 1000
"""Games traced at once when a run measures luck (:attr:`RunSpec.luck`): the trace takes
``4 * shedsim.kernel.luck.TRACE`` bytes a game."""


def play_luck(k, ra, ids, params, sched, dk, sk) -> dict[str, np.ndarray]:
    """The records of schedule ``sched``'s games with their ``luck``
    (:func:`shedsim.kernel.luck.play_traced`), :data:`LUCK_BATCH` games at a time. Raises
    :class:`shedsim.kernel.build.KernelError` (``game`` within the schedule) and
    :class:`SimulationError` when a replay misses its game's places."""
    from shedsim.kernel.build import KernelError
    from shedsim.kernel.luck import ReplayMismatch, play_traced

    parts = []
    for a in range(0, len(dk), LUCK_BATCH):
        b = min(len(dk), a + LUCK_BATCH)
        try:
            parts.append(
                play_traced(
                    k,
                    ra,
                    ids,
                    params,
                    sched["seating"][a:b],
                    dk[a:b],
                    sk[a:b],
                    sched["dealer"][a:b],
                )  # fmt: skip
            )
        except KernelError as e:
            e.game += a
            raise
        except ReplayMismatch as e:
            raise SimulationError(f"game {int(sched['index'][a])} onwards: {e}") from None
    return {f: np.concatenate([p[f] for p in parts]) for f in parts[0]}


def play_schedule(spec: RunSpec, known, k, ids, params, ra, sched, dk, sk) -> dict[str, np.ndarray]:
    """The records of the games of schedule ``sched`` (keys ``dk``, ``sk``) of ``spec`` (its
    deal set's decks, :meth:`RunSpec.decks`, when it has one): on the kernel ``k``, or with a
    bot (``ids`` -1) by :func:`play_with_bots`. Raises what they raise."""
    if (ids < 0).any():
        return play_with_bots(spec, known, k, ids, params, ra, sched, dk, sk)[0]
    return k.play(
        ra, ids, params, sched["seating"], dk, sk, sched["dealer"], decks=spec.decks(sched)
    )


def play_with_bots(spec: RunSpec, known, k, ids, params, ra, sched, dk, sk, swap_from=None):
    """The games of schedule ``sched`` (deal and strategy keys ``dk``, ``sk``) of a run whose
    entries hold a bot (``ids`` -1, :func:`loaded_kernel`): those that seat a bot on the
    reference engine (:func:`shedsim.bot.table.play_games`: same deals, keys and seats), the
    others on the kernel ``k``. Returns the records of both in the schedule's order (the
    kernel's fields and dtypes, plus ``forfeit`` int8[n, P]) and what the bots left
    (:class:`shedsim.bot.table.ChunkBots`). Raises :class:`SimulationError` when a strategy
    fails on the engine, :class:`shedsim.kernel.build.KernelError` on the kernel (its
    ``game`` in the schedule's numbering)."""
    bot_games = (ids[sched["seating"]] < 0).any(axis=1)
    from shedsim.bot.table import play_games
    from shedsim.rules.engine import StrategyError

    if swap_from is not None:
        raise SimulationError(
            "a bot cannot lend or borrow a swap (the swap study plays compiled strategies only)"
        )
    rows = np.flatnonzero(bot_games)
    try:
        brec, bots = play_games(spec, sched, dk, sk, rows, known)
    except StrategyError as e:
        raise SimulationError(f"{e}\n[run seed {spec.seed}]") from None
    from shedsim.kernel.build import KernelError

    rest = np.flatnonzero(~bot_games)
    try:
        decks = spec.decks(sched)
        krec = (
            k.play(
                ra,
                ids,
                params,
                sched["seating"][rest],
                dk[rest],
                sk[rest],
                sched["dealer"][rest],
                decks=None if decks is None else decks[rest],
            )
            if len(rest)
            else None
        )
    except KernelError as e:
        e.game = int(rest[e.game])  # the chunk's numbering, which describe_failure reads
        raise
    rec = {}
    for name, v in brec.items():
        full = np.zeros((len(bot_games),) + v.shape[1:], v.dtype)
        full[rows] = v
        if krec is not None and name in krec:
            full[rest] = krec[name]
        rec[name] = full
    return rec, bots


def describe_failure(spec: RunSpec, known, sched, dk, sk, err, replay: bool = True) -> str:
    """The message for a strategy that failed in the kernel (``err``, a
    :class:`shedsim.kernel.build.KernelError` in game ``err.game`` of ``sched``, a schedule
    as :func:`schedule_games` gives it, with its keys ``dk``/``sk``): replay the game on the
    reference engine to name the strategy, seat, move and position, with the run seed, game,
    deal and (``replay``: the schedule is ``spec``'s own) the ``shedsim trace`` command
    that replays it. A game that crashed the process (kind ``"crashed"``) is replayed in a
    forked child with a flight recorder (:func:`shedsim.runs.recorder.record_game`)."""
    from shedsim.rules.engine import StrategyError, play_game
    from shedsim.plugins import parse_spec

    g = err.game
    seating = sched["seating"][g]
    players = []
    for e in seating:
        name, overrides = parse_spec(spec.entries[e])
        players.append(known[name].player(spec.labels[e], overrides))
    game = int(sched["index"][g])
    head = (
        f"run seed {spec.seed}, game {game} (deal {int(sched['deal'][g])}, "
        f"dealer seat {int(sched['dealer'][g])})"
    )
    command = replay_command(spec, game) if replay else None
    decks = spec.decks({k: v[g : g + 1] for k, v in sched.items()})
    deck = None if decks is None else decks[0]
    if err.kind == "crashed":
        from shedsim.runs.recorder import crash_message, record_game

        where, code = record_game(
            spec.rules, players, int(dk[g]), int(sk[g]), int(sched["dealer"][g]), deck
        )
        return crash_message(
            code or err.returned, where, head, [spec.labels[e] for e in seating], command
        )
    replay = f"\nreplay it move by move: {command}" if command else ""
    for p in players:  # a plugin's decisions in forked children: a crash in this replay is named
        p.isolated = p.strategy.outside and p.strategy.compiled
    try:
        play_game(spec.rules, players, int(dk[g]), int(sk[g]), int(sched["dealer"][g]), deck=deck)
    except StrategyError as se:
        return f"{se}\n[{head}]{replay}"
    except Exception as ex:  # noqa: BLE001
        return f"strategy failed: {type(ex).__name__}: {ex}\n[{head}]{replay}"
    seat = err.seat
    who = spec.labels[seating[seat]] if seat >= 0 else "a strategy"
    return f"strategy {who!r} failed in the kernel ({err}) [{head}]{replay}"


def rules_options(rules: RuleSet) -> list[str] | None:
    """Command-line options that rebuild ``rules`` (``--rules NAME --house T ...``), or
    None when no preset plus toggles gives it (a rules file with its own settings)."""
    from shedsim.rules.ruleset import RulesError, build

    try:
        if build(rules.name, list(rules.house)).to_dict() == rules.to_dict():
            return ["--rules", rules.name] + [x for h in rules.house for x in ("--house", h)]
    except (RulesError, OSError, ValueError):
        pass
    return None


def replay_command(spec: RunSpec, game: int, rules_args: list[str] | None = None) -> str | None:
    """The ``shedsim trace`` command that replays game ``game`` of the run ``spec`` on the
    reference engine, told move by move (same deal, seats and strategy stream; the game
    numbering of :func:`schedule_games`). ``rules_args`` (e.g. ``["--rules-file", PATH]``)
    replaces the rules options when given. None when the run cannot be written as trace
    options: swap policies lent between seats (the swap study), or rules from a file
    that ``rules_args`` does not name."""
    import re
    import shlex
    from shedsim.bot.protocol import is_bot

    if spec.swap_from is not None or spec.seated or any(is_bot(e) for e in spec.entries):
        return None  # (trace replays strategies only: a bot's moves are not recorded)
    if (spec.schedule == "same") != (len(spec.entries) == 1):
        return None
    rargs = rules_args if rules_args is not None else rules_options(spec.rules)
    if rargs is None:
        return None
    items = []
    for label, entry in zip(spec.labels, spec.entries):
        plain = label == entry or not re.fullmatch(r"[A-Za-z0-9_.#+-]+", label)
        items.append(entry if plain else f"{label}={entry}")
    args = [
        "shedsim",
        "trace",
        *rargs,
        "--players",
        str(spec.players),
        "--strategies",
        ",".join(items),
        "--seed",
        str(spec.seed),
        "--game",
        str(game),
    ]
    if spec.schedule == "tournament" and type(spec).tables is RunSpec.tables and spec.players > 2:
        args += ["--seat-orders", "sorted"]
    if spec.schedule in HEAD_TO_HEAD and (spec.players > 2 or not HEAD_TO_HEAD[spec.schedule]):
        args += ["--schedule", spec.schedule]  # (at 2 players, paired: the tournament's numbering)
    if spec.stream:
        args += ["--stream", str(spec.stream)]
    for p in spec.strategy_paths:
        args += ["--strategy-path", str(p)]
    if spec.deals:  # a deal set's game: trace deals it from the same file (None: no file named)
        if not spec.deals_path:
            return None
        args += ["--deals", spec.deals_path]
    return shlex.join(args)


WORKER_ENV = ("SHEDSIM_DECISION_TIMEOUT",)
"""Settings read from the environment inside a worker: each call carries the caller's
values, since a reused worker process keeps the environment it was started with."""


def _in_env(env: dict[str, str | None], fn: Any, args: tuple) -> Any:
    """``fn(*args)`` with the caller's values of :data:`WORKER_ENV` (None: unset)."""
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    return fn(*args)


def run_calls(
    calls: list[tuple[Any, tuple]],
    workers: int = 1,
    backend: str = "loky",
    on_result: Any = None,
    scheduler: str | None = None,
) -> None:
    """Run ``fn(*args)`` for each ``(fn, args)`` of ``calls`` with joblib (in this process
    when ``workers`` is 1 and the backend loky; on ``workers`` threads of it when the calls
    are chunks of shedsim's own strategies, :func:`shedsim.runs.backends.on_threads`); ``fn``
    must be picklable (a module-level function). ``on_result(k, value)`` is called in order
    as each finishes (``k``: the index in ``calls``); the values are not kept here.
    ``backend``/``scheduler``: see :func:`backend_config`. A ``KeyboardInterrupt`` stops
    the workers and propagates."""
    from joblib import Parallel, delayed

    if workers <= 1 and backend == "loky":
        # a plugin from outside strategies/ that crashes cannot kill this process: the
        # kernel plays every call holding one in a forked child (shedsim.base.isolate)
        for k, (fn, args) in enumerate(calls):
            r = fn(*args)
            if on_result:
                on_result(k, r)
        return
    if backend == "loky" and on_threads(calls, play_chunk):
        from shedsim.runs.limits import cap_workers

        run_on_threads(calls, cap_workers(workers), on_result)
        return
    env = {k: os.environ.get(k) for k in WORKER_ENV}
    with backend_config(backend, workers, scheduler):
        gen = Parallel(return_as="generator")(delayed(_in_env)(env, fn, args) for fn, args in calls)
        try:
            for k, r in enumerate(gen):
                if on_result:
                    on_result(k, r)
        # stopped early (a test that decided, Ctrl-C): the calls in flight are cancelled, as meant
        finally:
            with warnings.catch_warnings():
                warnings.filterwarnings(
                    "ignore", message=r".*tasks which were still being processed"
                )
                gen.close()


def run_tasks(
    tasks: list[tuple[RunSpec, int]],
    workers: int = 1,
    backend: str = "loky",
    on_result: Any = None,
    keep: tuple[str, ...] | None = None,
    scheduler: str | None = None,
) -> None:
    """Play chunk ``c`` of run spec ``s`` for each ``(s, c)`` of ``tasks`` (:func:`run_calls`
    of :func:`play_chunk`; the specs may differ: one per rule variant of a comparison).
    ``on_result(k, ChunkResult)`` is called in task order as each finishes."""
    run_calls(
        [(play_chunk, (s, *s.chunk_bounds(c), keep)) for s, c in tasks],
        workers,
        backend,
        on_result,
        scheduler,
    )


def run_chunks(
    spec: RunSpec,
    chunks: list[int],
    workers: int = 1,
    backend: str = "loky",
    on_result: Any = None,
    keep: tuple[str, ...] | None = None,
    scheduler: str | None = None,
) -> list[ChunkResult]:
    """Play the given chunk numbers of one spec (:func:`run_tasks`); results come back in
    chunk order. ``on_result(chunk_number, result)`` is called as each chunk finishes
    (progress, streaming aggregation)."""
    out: list[ChunkResult] = []

    def got(k: int, r: ChunkResult) -> None:
        if on_result:
            on_result(chunks[k], r)
        out.append(r)

    run_tasks([(spec, c) for c in chunks], workers, backend, got, keep, scheduler)
    return out


def code_fingerprint(spec: RunSpec) -> str:
    """What decides a chunk's games in this process: the shedsim version, the compiled
    kernel's fingerprint (kernel and strategy sources, numba and numpy versions) and the
    sources of the rules, seeding and schedule. Equal on every worker of a cluster, or
    results could depend on where a chunk ran."""
    import hashlib
    from pathlib import Path

    from shedsim.version import __version__

    _, k, _, _ = loaded_kernel(spec)
    h = hashlib.sha256(Path(k.path).stem.encode())
    here = Path(__file__).parent
    for name in ("rules.py", "seeding.py", "simulate.py", "cards.py", "layout.py"):
        p = here / name
        if p.exists():
            h.update(p.read_bytes())
    return f"shedsim {__version__}, code {h.hexdigest()[:16]}"


def _warm(spec: RunSpec) -> str:
    play_chunk(spec, 0, 1, ("moves",))
    return code_fingerprint(spec)


def warm_workers(
    spec: RunSpec, workers: int, backend: str = "loky", scheduler: str | None = None
) -> None:
    """Start the worker processes and load the kernel in each (one tiny chunk apiece; on
    dask, in every worker of the cluster). On a cluster backend, also check that every
    worker runs the same code as this process (:func:`code_fingerprint`); raises
    :class:`BackendError` naming the workers that differ."""
    from joblib import Parallel, delayed

    if backend == "loky" and (workers <= 1 or on_threads([(play_chunk, (spec,))], play_chunk)):
        _warm(spec)  # its chunks play on threads of this process (run_calls)
        return
    with backend_config(backend, workers, scheduler) as slots:
        if backend == "dask":
            from dask.distributed import get_client

            got = get_client().run(_warm, spec)
        else:
            got = dict(enumerate(Parallel()(delayed(_warm)(spec) for _ in range(slots))))
        if backend in CLUSTER_BACKENDS:
            here = code_fingerprint(spec)
            bad = {str(w): fp for w, fp in got.items() if fp != here}
            if bad:
                w, fp = next(iter(bad.items()))
                raise BackendError(
                    f"{len(bad)} of {len(got)} workers run other code than this machine "
                    f"(worker {w}: {fp}; here: {here}): install the same shedsim version and "
                    f"strategies on every machine, and run shedsim compile there"
                )
