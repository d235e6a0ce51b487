"""How a Python strategy plugin plays on the reference engine (:mod:`shedsim.rules.engine`):
what it sees (:class:`Observation`, the public arrays and the mover's own hand; :class:`RulesView`;
its random stream :class:`StreamRandom`) and the adapter that asks it for each move
(:class:`EnginePlayer`, under :func:`decision_guard`'s time limit). The registry of plugins is
:mod:`shedsim.plugins`, which re-exports every name here.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any

import numpy as np

from shedsim import layout as L
from shedsim.base.isolate import decision_timeout
from shedsim.rules.cards import pack, unpack
from shedsim.seeding import SplitMix64


class StreamRandom:
    """A random stream (a ``uint64[1]`` array: the seat's own, see :mod:`shedsim.plugins`) for
    plain-Python strategies."""

    def __init__(self, state: np.ndarray) -> None:
        self._state = state

    def below(self, n: int) -> int:
        """A uniform draw in ``0..n-1``; advances the stream like the kernel does."""
        sm = SplitMix64(int(self._state[0]))
        v = sm.below(n)
        self._state[0] = np.uint64(sm.state)
        return v

    def choice(self, seq):
        """A uniform element of a non-empty sequence."""
        return seq[self.below(len(seq))]


class Observation:
    """A read-only view of the observation array for plain-Python strategies.

    Everything here is public, except :attr:`hand`, which is the mover's own hand.
    Multisets are returned as sorted lists of ranks.
    """

    def __init__(self, obs: np.ndarray, rules_array: np.ndarray) -> None:
        self.array = obs
        self.rules_array = rules_array

    def _get(self, i: int) -> int:
        return int(self.array[i])

    @property
    def seat(self) -> int:
        return self._get(L.O_SEAT)

    @property
    def players(self) -> int:
        return self._get(L.O_PLAYERS)

    @property
    def stage(self) -> int:
        return self._get(L.O_STAGE)

    @property
    def hand(self) -> list[int]:
        return unpack(self._get(L.O_HAND))

    @property
    def top(self) -> int:
        return self._get(L.O_TOP)

    @property
    def pile(self) -> list[int]:
        return unpack(self._get(L.O_PILE))

    @property
    def pile_size(self) -> int:
        return self._get(L.O_PILE_N)

    @property
    def burned(self) -> list[int]:
        return unpack(self._get(L.O_BURNED))

    @property
    def stock_size(self) -> int:
        return self._get(L.O_STOCK_N)

    @property
    def direction(self) -> int:
        return self._get(L.O_DIRECTION)

    def face_up(self, seat: int) -> list[int]:
        return unpack(self._get(L.O_FACE_UP + seat))

    def hand_size(self, seat: int) -> int:
        return self._get(L.O_HAND_N + seat)

    def face_down_size(self, seat: int) -> int:
        return self._get(L.O_FACE_DOWN_N + seat)

    def place(self, seat: int) -> int:
        return self._get(L.O_PLACE + seat)

    def known_hand(self, seat: int) -> list[int]:
        """Cards everyone saw ``seat`` pick up and not play since."""
        return unpack(self._get(L.O_KNOWN + seat))


class RulesView:
    """The compiled rules as plain-Python strategies see them."""

    def __init__(self, rules_array: np.ndarray) -> None:
        self.array = rules_array

    def can_play(self, top: int, rank: int) -> bool:
        """Whether ``rank`` may go on effective top ``top`` (0 = empty pile)."""
        return bool((int(self.array[L.R_PLAYABLE + top]) >> (4 * (rank - 2))) & 15)

    def is_special(self, rank: int) -> bool:
        """Whether ``rank`` has any role (reset, burn, invisible, magic, low, skip, reverse)."""
        return not int(self.array[L.R_FLAGS + rank]) & L.F_ORDINARY

    @property
    def hand_size(self) -> int:
        return int(self.array[L.R_HAND_SIZE])

    @property
    def table_size(self) -> int:
        return int(self.array[L.R_TABLE_SIZE])

    @property
    def players(self) -> int:
        return int(self.array[L.R_PLAYERS])


class DecisionTimeout(Exception):
    """A plain-Python strategy took longer than the per-decision limit."""


@contextlib.contextmanager
def decision_guard(seconds: float):
    """Raise :class:`DecisionTimeout` in the block after ``seconds`` of wall time.

    Uses ``SIGALRM`` (POSIX, main thread only); elsewhere it does nothing. Compiled
    strategies cannot be interrupted this way and need no guard for the kernel: a
    compiled loop that never returns is stopped with Ctrl-C.
    """
    usable = (
        seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def _expired(signum, frame):
        raise DecisionTimeout(f"no decision after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _short_repr(v: Any) -> str:
    """``repr(v)`` with its type, cut to 80 characters: ``None (NoneType)``."""
    r = repr(v)
    return (r if len(r) <= 80 else r[:77] + "...") + f" ({type(v).__name__})"


class EnginePlayer:
    """Adapter between a plugin and :mod:`shedsim.rules.engine` (the ``Player`` protocol).

    Plain-Python decisions run under :func:`decision_guard`, so a plugin that loops
    forever stops the game with an error instead of hanging the run. With ``isolated``
    (set it for a compiled plugin from outside ``strategies/``, :attr:`Strategy.outside`,
    where this process must survive it: ``shedsim play``'s bots), each compiled decision
    runs in a forked child (:func:`shedsim.base.isolate.call`; same decision, the random
    stream and arrays advance as here), and one that crashes the child raises
    :class:`shedsim.base.isolate.ProcessCrash` (one that raises there:
    :class:`~shedsim.base.isolate.ChildRaised`; one still deciding after
    :func:`decision_timeout` seconds is killed: :class:`~shedsim.base.isolate.ChildTimeout`).
    """

    def __init__(self, strategy: Any, label: str, params: np.ndarray) -> None:
        self.strategy = strategy
        self.name = label
        self.params = params
        self.isolated = False
        # plain-Python decisions that take the engine's position (shedsim.bot.inprocess.readable)
        self.takes_state = bool(
            getattr(getattr(strategy.module, "choose_move", None), "takes_state", False)
        )
        self.dealt: tuple | None = None

    def see_deal(self, state, seat: int, strategy_key: int = 0) -> None:
        """The position as dealt, kept for decisions that take the engine's position."""
        if self.takes_state:
            self.dealt = (state.copy(), strategy_key)

    def _compiled(self, fn, *args) -> int:
        if not self.isolated:
            return int(fn(*args))
        from shedsim.base.isolate import ChildRaised, ProcessCrash, call

        value, error, code = call(fn, *args, timeout_s=decision_timeout())  # raises ChildTimeout
        if code != 0:
            raise ProcessCrash(code)
        if error is not None:
            raise ChildRaised(error)
        return int(value)

    @property
    def deterministic(self) -> bool:
        """The plugin's ``DETERMINISTIC`` (the engine's loop check relies on it)."""
        return self.strategy.deterministic

    @property
    def outside(self) -> bool:
        """Whether the plugin comes from outside ``strategies/`` (:attr:`Strategy.outside`):
        the engine lends it its seat's own random stream
        (:class:`shedsim.rules.engine.GameStreams`), as the kernel does."""
        return self.strategy.outside

    def swap(
        self, visible: int, seat: int, players: int, rules_array: np.ndarray, rng: np.ndarray
    ) -> int:
        mod = self.strategy.module
        if self.strategy.compiled:
            return self._compiled(
                mod.swap,
                np.int64(visible),
                np.int64(seat),
                np.int64(players),
                rules_array,
                self.params,
                rng,
            )
        from shedsim.rules.engine import PluginReturnError

        view = RulesView(rules_array)
        with decision_guard(decision_timeout()):
            chosen = (
                mod.choose_swap(*self.dealt, seat)
                if self.takes_state and self.dealt
                else mod.choose_swap(unpack(visible), seat, players, view, StreamRandom(rng))
            )
        ok = isinstance(chosen, (list, tuple)) and all(
            isinstance(r, (int, np.integer)) and not isinstance(r, bool) and 2 <= r <= 14
            for r in chosen
        )
        if not ok:
            raise PluginReturnError(
                f"choose_swap must return a list of {view.table_size} card ranks (whole "
                "numbers 2-14, taken "
                "from the visible cards it was given) to put face up; it returned "
                f"{_short_repr(chosen)}"
            )
        return pack([int(r) for r in chosen])

    def move(self, state, obs: np.ndarray, rules_array: np.ndarray, rng: np.ndarray, legal):
        from shedsim.rules.engine import Move, MoveSyntaxError

        mod = self.strategy.module
        if self.strategy.compiled:
            code = self._compiled(mod.move, obs, rules_array, self.params, rng)
            try:
                return Move.from_code(code)
            except MoveSyntaxError:
                return Move("invalid", rank=code)
        from shedsim.rules.engine import PluginReturnError

        with decision_guard(decision_timeout()):
            index = (
                mod.choose_move(state, list(legal))
                if self.takes_state
                else mod.choose_move(Observation(obs, rules_array), list(legal), StreamRandom(rng))
            )
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise PluginReturnError(
                "choose_move must return the index of the chosen move in its list of legal "
                "moves (a whole "
                f"number from 0 to {len(legal) - 1}); it returned {_short_repr(index)}"
            )
        if (
            isinstance(index, bool)
            or not isinstance(index, (int, np.integer))
            or not 0 <= index < len(legal)
        ):
            return Move(
                "invalid", rank=-1 if not isinstance(index, (int, np.integer)) else int(index)
            )
        return legal[int(index)]
