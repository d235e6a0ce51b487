"""The kernel generated from the strategy registry, compiled once and cached by numba.

numba's on-disk cache does not work for a kernel that takes functions as arguments, so
the strategies are compiled *into* the kernel: this module writes a small Python file
holding a dispatch on an integer strategy id (``if sid == 0: return greedy.move(...)``)
followed by the game loop of :mod:`shedsim.kernel._loop`, imports it, and lets numba
cache it next to the file. The file's name carries a hash of every source it depends on
(shedsim's kernel files, each strategy's source, numba's version), so a change to any of
them gives a new file and a fresh compile, never a stale cache.

The cache directory is ``$SHEDSIM_CACHE_DIR`` or ``~/.cache/shedsim``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from shedsim import layout as L
from shedsim.base import isolate
from shedsim.base.heap import keep_freed_memory
from shedsim.plugin_meta import StrategyInfo

_KERNEL_SOURCES = ("_loop.py", "core.py", "nb.py", "rng.py", "policies.py", "endgame.py")
# The templates' line that the generated dispatch replaces (under 100 columns: the formatter
# leaves it whole)
DISPATCH_MARK = (
    "from shedsim.kernel._stub import OUTSIDE, choose_move, choose_swap, is_deterministic"
    "  # DISPATCH"
)
# The template's import of the checked-strategy test, which the generated dispatch defines
CHECKED_MARK = "from shedsim.kernel._stub import is_checked  # DISPATCH"


def cache_dir() -> Path:
    """Where generated kernels (and numba's cache of them) live."""
    d = Path(os.environ.get("SHEDSIM_CACHE_DIR") or Path.home() / ".cache" / "shedsim")
    d.mkdir(parents=True, exist_ok=True)
    return d


def inlinable(s: StrategyInfo) -> bool:
    """Whether a strategy's decisions (``move`` and ``swap``) are inlined into the fast game
    loop (module ``INLINE``, default True). The fast loop runs without numba's reference
    counting, so its strategies must not allocate arrays; one that does sets
    ``INLINE = False`` and runs in the standard loop."""
    return s.inline


def _guarded_swap(name: str, call: str, keep: bool, deco: str) -> list[str]:
    """The swap of a plugin from outside ``strategies/`` (``call``: its compiled swap), lent
    its seat's own stream (see :func:`dispatch_source`)."""
    return [
        "",
        "",
        deco,
        f"def {name}(visible, seat, players, rules, params, rng, streams, priv):",
        "    strategy, deal = lend_stream(streams, priv, seat)",
        f"    up = {call}(visible, seat, players, rules, params, "
        f"streams[{L.S_LENT}:{L.S_LENT + 1}])",
        "    written = stream_written(streams, strategy, deal)",
        "    if written != 0:",
        f"        return np.int64({L.RNG_WRITTEN}) + written",
        *(["    keep_stream(streams, priv, seat)"] if keep else []),
        "    return up",
        "",
    ]


def dispatch_source(strategies: list[StrategyInfo]) -> str:
    lines = [
        "import importlib",
        "from shedsim.plugin_meta import load_module, own_module",
        "from shedsim.kernel.core import keep_stream, lend_stream, obs_saved, obs_unchanged, "
        "stream_written",
        "",
        f"OUTSIDE = {any(s.outside for s in strategies)}  # a plugin from outside strategies/ "
        "is listed",
        "",
        "# Each strategy's decisions are re-jitted with inline='always' so numba inlines them",
        "# into the game loop: a call between compiled functions costs more than a move.",
    ]
    for i, s in enumerate(strategies):
        if not s.outside:  # shedsim's own, checked to be imported from its file
            lines.append(f"_s{i} = own_module({s.module.__name__!r}, {str(s.path)!r})")
        else:
            lines.append(f"_s{i} = load_module({str(s.path)!r}, {s.module.__name__!r})")
        lines.append(f"_swap{i} = _s{i}.swap")
        # A plugin from outside strategies/ decides on the kernel's own observation array:
        # the observation is copied into the kernel's private state before its move and
        # compared after (O_SIZE loads and stores a decision, vectorised; exact: any write
        # within the array is seen). It draws from its seat's own stream, lent to it in
        # streams[S_LENT] (the entries after it, the streams it does not own, are compared
        # after: a write there is named); a DETERMINISTIC plugin's stream is lent afresh
        # each decision (kernel.core.keep_stream). Built-in strategies, tested not to
        # write, skip all of it and share the game's strategy stream (and, is_checked
        # below, the legality check and the comparison of the copies after each game).
        guarded = s.outside
        keep = not s.deterministic
        raw = f"_rawmove{i}"
        if inlinable(s):
            lines.append(f"_swapi{i} = njit(inline='always')(_s{i}.swap.py_func)")
            lines.append(f"{raw} = njit(inline='always')(_s{i}.move.py_func)")
        else:
            lines.append(f"{raw} = _s{i}.move")
        if guarded:
            lines += _guarded_swap(f"_swapg{i}", f"_swap{i}", keep, "@njit(inline='always')")
            if inlinable(s):
                lines += _guarded_swap(f"_swapgi{i}", f"_swapi{i}", keep, "@njit(inline='always')")
            # The standard loop calls the guarded move (_movec), compiled on its own: inlined
            # there, every plugin's guard would be compiled again into the whole loop, whose
            # compile then grows with each plugin, to save a call that costs little beside the
            # guard's copy and comparison of the observation. The fast loop (no reference
            # counting, so no calls that pass arrays) inlines it (_move).
            lines += [
                "",
                "",
                "@njit(cache=True)",
                f"def _movec{i}(obs, rules, params, rng, streams, priv):",
                f"    return _move{i}(obs, rules, params, rng, streams, priv)",
            ]
            lines += [
                "",
                "",
                "@njit(inline='always')",
                f"def _move{i}(obs, rules, params, rng, streams, priv):",
                "    obs_saved(obs, priv)",
                f"    seat = obs[{L.O_SEAT}]",
                "    strategy, deal = lend_stream(streams, priv, seat)",
                f"    m = _rawmove{i}(obs, rules, params, streams[{L.S_LENT}:{L.S_LENT + 1}])",
                "    written = stream_written(streams, strategy, deal)",
                "    if not obs_unchanged(obs, priv):",
                f"        return np.int64({L.OBS_WRITTEN})",
                "    if written != 0:",
                f"        return np.int64({L.RNG_WRITTEN}) + written",
                *(["    keep_stream(streams, priv, seat)"] if keep else []),
                "    return m",
                "",
            ]
        elif s.traits.cheating:
            # a measuring tool that sees the hidden cards (plugin_meta: TRAITS['cheating'],
            # only shedsim's own): its move_seeing reads the game's private state
            lines += [
                "",
                "",
                "@njit(inline='always')",
                f"def _move{i}(obs, rules, params, rng, streams, priv):",
                f"    return _s{i}.move_seeing(obs, priv, rules, params, rng)",
                "",
            ]
        else:
            lines += [
                "",
                "",
                "@njit(inline='always')",
                f"def _move{i}(obs, rules, params, rng, streams, priv):",
                f"    return _rawmove{i}(obs, rules, params, rng)",
                "",
            ]
    for suffix, chosen in (
        ("", list(enumerate(strategies))),
        ("_fast", [(i, s) for i, s in enumerate(strategies) if inlinable(s)]),
    ):
        # the fast loop inlines swaps too (the standard loop calls them: a swap there may allocate)
        swap_name, deco = (
            ("_swapi", "@njit(inline='always')") if suffix else ("_swap", "@njit(cache=True)")
        )
        lines += [
            "",
            "",
            deco,
            f"def choose_swap{suffix}(sid, visible, seat, players, rules, params, rng, "
            "streams, priv):",
        ]
        for i, s in chosen:
            lines.append(f"    if sid == {i}:  # {s.name}")
            if s.outside:
                g = "_swapgi" if suffix else "_swapg"
                lines.append(
                    f"        return {g}{i}(visible, seat, players, rules, params, rng, "
                    "streams, priv)"
                )
            else:
                lines.append(
                    f"        return {swap_name}{i}(visible, seat, players, rules, params, rng)"
                )
        lines += [
            "    return np.int64(-1)",
            "",
            "",
            "@njit(inline='always')",
            f"def choose_move{suffix}(sid, obs, rules, params, rng, streams, priv):",
        ]
        for i, s in chosen:
            call = "_movec" if s.outside and not suffix else "_move"
            lines.append(f"    if sid == {i}:  # {s.name}")
            lines.append(f"        return {call}{i}(obs, rules, params, rng, streams, priv)")
        lines += ["    return np.int64(-1)", ""]
    # One strategy at every seat: the loop again with only that strategy's moves inlined
    # (see _one_variant).
    for i, st in enumerate(strategies):
        if inlinable(st):
            lines += [
                "",
                "@njit(inline='always')",
                f"def choose_move_one{i}(sid, obs, rules, params, rng, streams, priv):  # "
                f"{st.name}",
                f"    return _move{i}(obs, rules, params, rng, streams, priv)",
                "",
            ]
    # Which strategies' decisions the loop checks (see _loop.py): a plugin's, not
    # shedsim's own (trusted by the file's origin, StrategyInfo.outside).
    lines += ["", "@njit(inline='always')", "def is_checked(sid):"]
    for i, s in enumerate(strategies):
        lines.append(f"    if sid == {i}:  # {s.name}")
        lines.append(f"        return {bool(s.outside)}")
    lines += ["    return True", ""]
    for i, st in enumerate(strategies):
        if inlinable(st):
            lines += [
                "",
                "@njit(inline='always')",
                f"def is_checked_one{i}(sid):  # {st.name}",
                f"    return {bool(st.outside)}",
                "",
            ]
    # The loop check (see _loop.py) needs every seat still in to be DETERMINISTIC.
    lines += ["", "@njit(inline='always')", "def is_deterministic(sid):"]
    for i, s in enumerate(strategies):
        lines.append(f"    if sid == {i}:  # {s.name}")
        lines.append(f"        return {bool(s.deterministic)}")
    lines += ["    return False", ""]
    return "\n".join(lines)


_LOOP_DEF = "@njit(cache=True, nogil=True)\ndef play_chunk("


def _fast_variant(loop: str) -> str:
    """The game loop again as ``play_chunk_fast``: no reference counting, and a dispatch
    that holds only the inlinable strategies (see :func:`inlinable`)."""
    if _LOOP_DEF not in loop:
        raise RuntimeError("kernel template lost its play_chunk definition")
    fast = loop.replace(
        _LOOP_DEF, "@njit(cache=True, nogil=True, _nrt=False)\ndef play_chunk_fast("
    )
    return fast.replace("choose_move(", "choose_move_fast(").replace(
        "choose_swap(", "choose_swap_fast("
    )


_MOVE_ON_COPIES = "pub, srules, sparams[ix(e)]"


def _one_variant(fast: str, i: int, trusted: bool) -> str:
    """The fast loop again as ``play_chunk_one{i}``, for chunks where strategy ``i`` holds
    every seat: only its moves are inlined. With every strategy inlined into one loop, the
    larger ones (heuristic's look-ahead) crowd the registers of the whole loop; this copy
    keeps a single-strategy run (benchmarks, rule comparisons) as fast as the strategy
    allows. numba compiles each copy on first use and caches it."""
    one = fast.replace("def play_chunk_fast(", f"def play_chunk_one{i}(")
    one = one.replace("is_checked(", f"is_checked_one{i}(")
    if trusted:
        # shedsim's own strategy reads the kernel's rules and parameters themselves (it is
        # tested not to write them, and the loop compares no copies for it): two arrays
        # fewer held in the loop's registers
        if _MOVE_ON_COPIES not in one:
            raise RuntimeError("kernel template lost its choose_move call on the copies")
        one = one.replace(_MOVE_ON_COPIES, "pub, rules, entry_params[ix(e)]")
    return one.replace("choose_move_fast(", f"choose_move_one{i}(")


def kernel_source(strategies: list[StrategyInfo]) -> str:
    """The generated module's source for these compiled strategies (ids = list order)."""
    template = (Path(__file__).parent / "_loop.py").read_text()
    if DISPATCH_MARK not in template or CHECKED_MARK not in template:
        raise RuntimeError("kernel template lost its dispatch marker")
    template = template.replace(CHECKED_MARK + "\n", "")
    body = template[template.index(_LOOP_DEF) :]
    fast = _fast_variant(body)
    template = template + "\n\n" + fast
    for i, st in enumerate(strategies):
        if inlinable(st):
            template += "\n\n" + _one_variant(fast, i, not st.outside)
    header = (
        "# Generated by shedsim.kernel.build; do not edit. Strategy ids: "
        + ", ".join(f"{i}={s.name}" for i, s in enumerate(strategies))
        + "\n"
    )
    return header + template.replace(DISPATCH_MARK, dispatch_source(strategies))


def fingerprint(strategies: list[StrategyInfo], source: str) -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in _KERNEL_SOURCES:
        p = here / name
        if p.exists():
            h.update(p.read_bytes())
    h.update((here.parent / "layout.py").read_bytes())
    for s in strategies:
        h.update(s.name.encode())
        h.update(s.path.read_bytes())
    h.update(source.encode())
    h.update(numba.__version__.encode())
    h.update(np.__version__.encode())
    return h.hexdigest()[:20]


class KernelError(RuntimeError):
    """A strategy failed inside the kernel. ``game`` is the chunk-relative game index;
    ``kind``: ``"swap"``, ``"move"`` (an impossible swap, an illegal move), ``"obs"``,
    ``"rules"``, ``"params"`` (a write into an array), ``"stream"`` (a plugin wrote into a
    random stream it does not own; ``returned``: which, ``layout.S_*``), ``"raised"`` (an
    exception), ``"crashed"`` (the process playing the games died) or ``"timeout"`` (a
    plugin's decision ran past ``SHEDSIM_DECISION_TIMEOUT``; ``seat``, ``move_number``: the
    decision); see :meth:`Kernel.play`."""

    def __init__(
        self, message: str, game: int, seat: int, kind: str, returned: int, move_number: int
    ):
        super().__init__(message)
        self.game, self.seat, self.kind, self.returned, self.move_number = (
            game,
            seat,
            kind,
            returned,
            move_number,
        )


RECORD_FIELDS = (
    "places",
    "start",
    "moves",
    "pickups",
    "burns",
    "unfinished",
    "end",
    "dealt",
    "face_up",
)
"""Per-game record arrays returned by :meth:`Kernel.play` (plus ``trace`` when asked)."""


@dataclass
class Kernel:
    """A compiled kernel for a fixed list of strategies; ``ids[name]`` is each one's id."""

    strategies: list[StrategyInfo]
    module: object
    path: Path

    @property
    def ids(self) -> dict[str, int]:
        return {s.name: i for i, s in enumerate(self.strategies)}

    @functools.cached_property
    def outside_ids(self) -> frozenset[int]:
        """Ids of the plugins from outside shedsim's own ``strategies/`` (a
        ``--strategy-path`` or ``$SHEDSIM_STRATEGY_PATH`` directory): :meth:`play` plays
        any call with one of them in a forked child (:mod:`shedsim.kernel.isolate`). Found
        once, as the dispatch was generated (its guards are compiled in): resolving each
        plugin's file costs more than a small chunk's games."""
        return frozenset(i for i, s in enumerate(self.strategies) if s.outside)

    @property
    def loops(self) -> list[str]:
        """The names of the kernel's game loops: ``play_chunk`` (the standard loop),
        ``play_chunk_fast`` and one ``play_chunk_one{i}`` per inlinable strategy ``i``."""
        return ["play_chunk", "play_chunk_fast"] + [
            f"play_chunk_one{i}" for i, s in enumerate(self.strategies) if inlinable(s)
        ]

    def loop_name(self, entered: set[int], seated: set[int]) -> str:
        """The game loop that plays a chunk with these strategy ids entered and these ids
        seated (see :attr:`loops`): the standard loop when any entered strategy is not
        inlinable, a strategy's own copy when it holds every seat, else the fast loop."""
        if any(not inlinable(self.strategies[i]) for i in entered):
            return "play_chunk"
        if len(seated) == 1:
            return f"play_chunk_one{next(iter(seated))}"
        return "play_chunk_fast"

    def play(
        self,
        rules_array: np.ndarray,
        entry_ids: np.ndarray,
        entry_params: np.ndarray,
        seating: np.ndarray,
        deal_keys: np.ndarray,
        strategy_keys: np.ndarray,
        dealers: np.ndarray,
        trace_moves: int = 0,
        swap_from: np.ndarray | None = None,
        forced_up: np.ndarray | None = None,
        given_seat: np.ndarray | None = None,
        given_visible: np.ndarray | None = None,
        status: np.ndarray | None = None,
        decks: np.ndarray | None = None,
    ) -> dict[str, np.ndarray]:
        """Play games; returns per-game record arrays (see :mod:`shedsim.kernel._loop`).

        Entry ``e`` is strategy id ``entry_ids[e]`` (int64[E]) with ``entry_params[e]``
        (int64[E, W], W >= the longest PARAMS of the entries); ``seating`` int64[n, players] holds
        entry indices; ``trace_moves``
        > 0 also returns ``trace`` int32[n, trace_moves], the first move codes of each game;
        ``deal_keys``/``strategy_keys``
        uint64[n]; ``dealers`` int64[n]. ``swap_from`` int64[E] (default: each entry its
        own) names the entry whose swap decides entry e's face-up cards, -1 = keep them as
        dealt; ``forced_up`` int64[n, players] (default: none) forces a packed face-up
        multiset for a game and seat where non-zero; ``given_seat``/``given_visible``
        int64[n] (default: none) deal game g conditioned on seat ``given_seat[g]`` (-1:
        an ordinary deal) holding the packed visible cards ``given_visible[g]`` (see
        :mod:`shedsim.kernel._loop`); ``decks`` int64[n, deck size] (default: shuffled deals)
        deals game g the deck ``decks[g]`` in dealing order
        (:func:`shedsim.rules.deals.deck_order`).
        Raises :class:`KernelError` when a strategy returns
        an impossible swap or an illegal move, or writes into the rules or parameters (or, a
        plugin from outside ``strategies/``, into a random stream it does not own), and
        re-raises (with the game index in ``KernelError.game``) when a strategy raises.
        A call that plays a plugin from outside ``strategies/`` (:attr:`outside_ids`) runs
        in a forked child (:mod:`shedsim.kernel.isolate`; same results); when the child
        dies (a segmentation fault: numba checks no bounds) it raises a
        :class:`KernelError` of kind ``"crashed"`` (``game``: the game in progress,
        ``returned``: the exit status, ``-N`` for signal N; ``seat`` -1: unknown); a plugin
        decision still running after :func:`shedsim.kernel.isolate.decision_timeout` seconds
        kills the child: kind ``"timeout"``. Ctrl-C there kills the child too.
        ``status`` (int64[8], e.g. in memory shared with a parent process) receives the
        loop's status words instead of a private array: ``status[0]`` is the game in
        progress, so a process that dies inside a strategy still tells which game it was.
        """
        n = len(deal_keys)
        p = int(rules_array[L.R_PLAYERS])
        rec = {
            "places": np.zeros((n, p), np.int8),
            "start": np.zeros(n, np.int8),
            "moves": np.zeros(n, np.int32),
            "pickups": np.zeros((n, p), np.int16),
            "burns": np.zeros((n, p), np.int16),
            "unfinished": np.zeros(n, np.bool_),
            "end": np.zeros(n, np.int8),
            "dealt": np.zeros((n, p), np.int64),
            "face_up": np.zeros((n, p), np.int64),
            "trace": np.zeros((n, trace_moves), np.int32),
        }
        if status is None:
            status = np.zeros(8, np.int64)
        ids = np.asarray(entry_ids)
        seated = (
            set(ids[np.flatnonzero(np.bincount(seating.ravel(), minlength=len(ids)))].tolist())
            if n
            else set()
        )
        loop = getattr(self.module, self.loop_name(set(ids.tolist()), seated))
        scratch = (
            np.zeros(L.O_SIZE, np.int64),
            np.zeros(L.P_SIZE, np.int64),
            np.zeros(L.S_SIZE, np.uint64),
        )
        seating = np.ascontiguousarray(seating, dtype=np.int64)
        n_entries = len(entry_ids)
        swap_from = (
            np.arange(n_entries, dtype=np.int64)
            if swap_from is None
            else np.ascontiguousarray(swap_from, np.int64)
        )
        # none forced and no conditioned deals: empty arrays (see _loop.py)
        forced_up = (
            np.zeros((0, p), np.int64)
            if forced_up is None
            else np.ascontiguousarray(forced_up, np.int64)
        )
        given_seat = (
            np.zeros(0, np.int64)
            if given_seat is None
            else np.ascontiguousarray(given_seat, np.int64)
        )
        given_visible = (
            np.zeros(len(given_seat), np.int64)
            if given_visible is None
            else np.ascontiguousarray(given_visible, np.int64)
        )
        decks = (
            np.zeros((n, 0), np.int64) if decks is None else np.ascontiguousarray(decks, np.int64)
        )
        if (
            swap_from.shape != (n_entries,)
            or forced_up.shape not in ((n, p), (0, p))
            or given_seat.shape not in ((n,), (0,))
            or given_visible.shape != given_seat.shape
            or decks.shape[0] != n
        ):
            raise ValueError(
                f"swap_from must be int64[{n_entries}], forced_up int64[{n}, {p}], "
                f"given_seat and given_visible int64[{n}], decks int64[{n}, deck size]"
            )
        if decks.shape[1] not in (0, int(rules_array[L.R_DECK_SIZE])):
            raise ValueError(
                f"decks must be int64[{n}, {int(rules_array[L.R_DECK_SIZE])}], got {decks.shape}"
            )
        # the kernel keeps these; strategies get copies (see _loop.py), compared after each game
        rules_array = np.ascontiguousarray(rules_array, np.int64)
        entry_params = np.ascontiguousarray(entry_params, np.int64)
        srules, sparams = rules_array.copy(), entry_params.copy()
        args = [
            rules_array,
            np.ascontiguousarray(entry_ids, np.int64),
            entry_params,
            seating,
            np.ascontiguousarray(deal_keys, np.uint64),
            np.ascontiguousarray(strategy_keys, np.uint64),
            np.ascontiguousarray(dealers, np.int64),
            rec["places"],
            rec["start"],
            rec["moves"],
            rec["pickups"],
            rec["burns"],
            rec["unfinished"],
            rec["end"],
            rec["dealt"],
            rec["face_up"],
            rec["trace"],
            status,
            *scratch,
            swap_from,
            forced_up,
            given_seat,
            given_visible,
            srules,
            sparams,
            decks,
        ]
        if n and self.outside_ids & set(ids.tolist()) and isolate.can_fork():
            # a plugin from outside strategies/ may crash the process (numba checks no
            # bounds) or never decide: play in a forked child, writing into memory shared
            # with this process, each plugin decision timed by the streams' beat word
            pub, streams = scratch[0], scratch[2]
            try:
                done, error, code = isolate.call(
                    loop, *args, beat=(streams, L.S_BEAT), beat_s=isolate.decision_timeout()
                )
            except isolate.ChildTimeout as e:
                raise KernelError(
                    str(e),
                    int(status[0]),
                    int(pub[L.O_SEAT]),
                    "timeout",
                    0,
                    int(pub[L.O_MOVES]) + 1,
                ) from None
            if code != 0:
                raise KernelError(
                    f"the process playing the games died ({isolate.crash_words(code)})",
                    int(status[0]),
                    -1,
                    "crashed",
                    code,
                    0,
                )
            if error is not None:
                g = int(status[0])
                tampered = _tampering(rules_array, srules, entry_params, sparams, g, 0)
                if tampered is not None:
                    raise tampered
                raise KernelError(error, g, -1, "raised", 0, 0)
        else:
            try:
                done = loop(*args)
            except Exception as e:  # a strategy raised inside compiled code
                g = int(status[0])
                tampered = _tampering(rules_array, srules, entry_params, sparams, g, 0)
                if tampered is not None:
                    raise tampered from e
                raise KernelError(f"{type(e).__name__}: {e}", g, -1, "raised", 0, 0) from e
        if done < n:
            g = int(status[0])
            # an illegal decision after a write into the rules is blamed on the write
            tampered = _tampering(rules_array, srules, entry_params, sparams, g, int(status[4]))
            if tampered is not None:
                raise tampered
            kind = "swap" if status[1] == 1 else "move"
            if kind == "move" and int(status[3]) == L.OBS_WRITTEN:
                raise KernelError(
                    "it wrote into the observation array (the game's own state) during its "
                    "decision",
                    g,
                    int(status[2]),
                    "obs",
                    int(status[3]),
                    int(status[4]),
                )
            stream = int(status[3]) - L.RNG_WRITTEN
            if stream in L.STREAM_NAMES:
                raise KernelError(
                    f"it wrote into {L.STREAM_NAMES[stream]} (rng[{stream - L.S_LENT}], past "
                    "its own "
                    f"stream rng[0]) during its {'swap' if kind == 'swap' else 'decision'}",
                    g,
                    int(status[2]),
                    "stream",
                    stream,
                    int(status[4]),
                )
            raise KernelError(
                f"illegal {kind}", g, int(status[2]), kind, int(status[3]), int(status[4])
            )
        return rec


def _tampering(
    rules_array, srules, params, sparams, game: int, move_number: int
) -> KernelError | None:
    """A :class:`KernelError` of kind ``"rules"`` or ``"params"`` when a strategy wrote into
    its copy of the rules or parameters, else None."""
    for kind, kept, given in (("rules", rules_array, srules), ("params", params, sparams)):
        diff = np.flatnonzero(kept.ravel() != given.ravel())
        if len(diff):
            i = int(diff[0])
            if kind == "rules":
                what = (
                    f"the rules array (entry {i}, {L.entry_name('R_', i)}: {kept[i]} became "
                    f"{srules[i]})"
                )
            else:
                e, w = divmod(i, kept.shape[1])
                what = (
                    f"its parameters array (entry {e}, parameter {w}: {kept.ravel()[i]} became "
                    f"{given.ravel()[i]})"
                )
            return KernelError(f"a strategy wrote into {what}", game, -1, kind, i, move_number)
    return None


_LOADED: dict[str, Kernel] = {}
_LOAD_LOCK = threading.Lock()
_BY_FILES: dict[tuple, Kernel] = {}


def kernel_module(strategies: list[StrategyInfo]) -> Kernel:
    """Generate (if needed), import and return the kernel for these compiled strategies.

    The first call compiles (seconds); later processes load numba's cache. Plain-Python
    strategies are not allowed here (they run on the reference engine).
    """
    for s in strategies:
        if not s.compiled:
            raise ValueError(
                f"strategy {s.name!r} is plain Python; the kernel needs numba strategies"
            )
    keep_freed_memory()  # a process that plays games reuses its freed chunk records
    # the same strategy files, unchanged, as an earlier call: its kernel, without
    # generating the source and hashing every file again (a run asks once per chunk)
    files = tuple(
        (s.name, str(s.path), id(s.module), st.st_mtime_ns, st.st_size)
        for s in strategies
        for st in [s.path.stat()]
    )
    if files in _BY_FILES:
        return _BY_FILES[files]
    with _LOAD_LOCK:  # threads of one process playing chunks: one loads, the others wait
        return _load_kernel(strategies, files)


def _load_kernel(strategies: list[StrategyInfo], files: tuple) -> Kernel:
    if files in _BY_FILES:
        return _BY_FILES[files]
    source = kernel_source(strategies)
    key = fingerprint(strategies, source)
    if key in _LOADED:
        _BY_FILES[files] = _LOADED[key]
        return _LOADED[key]
    name = f"shedsim_kernel_{key}"
    path = cache_dir() / f"{name}.py"
    if not path.exists() or path.read_text() != source:
        # Atomic write: concurrent workers never import a half-written file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    if name in sys.modules:
        mod = sys.modules[name]
    else:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    k = Kernel(list(strategies), mod, path)
    _LOADED[key] = k
    _BY_FILES[files] = k
    return k
