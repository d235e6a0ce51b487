"""Naming the strategy that crashed a process: replay its game with a flight recorder.

numba does not check array bounds, so a compiled plugin can kill the process that plays
it (a segmentation fault). Whoever saw a process die with a known game (the kernel's
forked child, :mod:`shedsim.base.isolate`; a dead worker, :mod:`shedsim.runs.crash`)
calls :func:`record_game`: it plays that game on the reference engine
(:func:`shedsim.rules.engine.play_game`) in a forked child that writes down the strategy,
seat, move and position before each decision, so the last record names the decision that
crashed. Same deal and strategy keys, same game, so the crash repeats.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any
from collections.abc import Sequence

from shedsim.base.isolate import ChildTimeout, beat_word, crash_words, timed, watch


def record_game(
    rules: Any,
    players: Sequence[Any],
    deal_key: int,
    strategy_key: int,
    dealer: int,
    deck: Sequence[int] | None = None,
) -> tuple[str | None, int]:
    """Play one game on the reference engine in a forked child that writes down each
    decision before making it. ``players``: one reference-engine player per seat
    (:meth:`shedsim.plugins.Strategy.player`); ``deal_key``/``strategy_key``/``dealer``:
    the game's keys and dealer seat (:func:`shedsim.seeding.game_keys`); ``deck``: a given
    deal (:func:`shedsim.rules.engine.deal`), None for the shuffle of ``deal_key``.

    Returns ``(where, status)``: ``where`` is the last record (``strategy 'NAME' at seat
    S, choosing move M; the position: ...`` or ``..., in the swap phase``) when the child
    died, else None; ``status`` the child's exit status (0: the game played through or
    raised, which is no crash; ``-N``: killed by signal N). ``(None, 0)`` where ``fork``
    is unavailable. A plugin decision that runs past ``SHEDSIM_DECISION_TIMEOUT`` seconds
    is stopped (the child killed) and named as ``where``, with status 0."""
    from shedsim.base.isolate import decision_timeout
    from shedsim.rules.engine import play_game

    if not hasattr(os, "fork"):
        return None, 0
    beat = beat_word()
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    with tempfile.TemporaryDirectory(prefix="shedsim-crash-") as d:
        log = os.path.join(d, "calls")

        def child() -> None:
            import faulthandler

            faulthandler.disable()  # the parent reports the crash in words
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

            def record(text: str) -> None:
                os.write(fd, text.encode() + b"\x1e")

            try:
                seats = [Recorded(p, s, record, beat) for s, p in enumerate(players)]
                play_game(rules, seats, int(deal_key), int(strategy_key), int(dealer), deck=deck)
            except BaseException:  # noqa: BLE001 - only a crash is looked for here
                pass
            os._exit(0)

        proc = ctx.Process(target=child, daemon=True)
        proc.start()
        stuck = None
        try:
            watch(
                lambda pause: (proc.join(pause), proc.exitcode is not None)[1],
                lambda: (proc.kill(), proc.join()),
                beat=(beat, 0),
                beat_s=decision_timeout(),
            )
        except ChildTimeout as e:
            stuck = e
        finally:
            if proc.exitcode is None:  # Ctrl-C here: the child goes too
                proc.kill()
                proc.join()
        try:
            with open(log, "rb") as f:
                records = [r for r in f.read().decode(errors="replace").split("\x1e") if r]
        except OSError:
            records = []
    if stuck is not None:
        who, sep, position = (records[-1] if records else "before any strategy decision").partition(
            "; the position:\n"
        )
        return f"{who} (replayed: {stuck}){sep}{position}", 0
    code = proc.exitcode if proc.exitcode is not None else 1
    if code == 0:
        return None, 0
    return (records[-1] if records else "before any strategy decision"), code


def crash_message(
    code: int, where: str | None, head: str, seats: Sequence[str], command: str | None
) -> str:
    """The message for a process killed while playing a game: how it died (``code``: its
    exit status, :func:`shedsim.base.isolate.crash_words`), during which decision
    (``where`` from :func:`record_game`; None: not repeated on the reference engine, so
    the strategies at the table ``seats`` are listed), the game (``head``: run seed, game,
    deal, dealer) and the ``shedsim trace`` command that replays it (``command``, if any)."""
    if where is None:
        where = (
            "a decision of one of the strategies at the table ("
            + ", ".join(f"seat {i} {s!r}" for i, s in enumerate(seats))
            + ")"
        )
    return (
        f"the process playing the games crashed ({crash_words(code)}) during {where}\n[{head}]"
        + (f"\nreplay it move by move: {command}" if command else "")
    )


class Recorded:
    """A reference-engine player that calls ``record(text)`` before each decision (see
    :func:`record_game`; ``record`` None records nothing); otherwise it is ``player``.
    ``beat`` (``int64[1]`` in shared memory, :func:`shedsim.base.isolate.beat_word`), when
    given, is odd while a decision of a plugin from outside ``strategies/`` runs, so that
    the parent of the forked child playing the game times it
    (:func:`shedsim.base.isolate.watch`)."""

    def __init__(self, player: Any, seat: int, record: Any, beat: Any = None) -> None:
        self.player, self.seat, self.record, self.name = player, seat, record, player.name
        self.beat = beat if self.outside else None

    @property
    def deterministic(self) -> bool:
        return bool(getattr(self.player, "deterministic", False))

    @property
    def outside(self) -> bool:
        """Whether the wrapped player is a plugin from outside ``strategies/`` (it is lent
        its seat's own random stream: :class:`shedsim.rules.engine.GameStreams`)."""
        return bool(getattr(self.player, "outside", False))

    @property
    def params(self):
        """The wrapped player's parameters (the engine checks that no decision writes into them)."""
        return getattr(self.player, "params", None)

    def see_deal(self, state, seat: int, strategy_key: int = 0) -> None:
        """Told to the wrapped player when it takes the readable State
        (:mod:`shedsim.bot.inprocess`)."""
        if getattr(self.player, "see_deal", None) is not None:
            self.player.see_deal(state, seat, strategy_key)

    def swap(self, visible, seat, players, rules_array, rng):
        if self.record:
            self.record(f"strategy {self.name!r} at seat {self.seat}, in the swap phase")
        return timed(self.beat, lambda: self.player.swap(visible, seat, players, rules_array, rng))

    def move(self, state, obs, rules_array, rng, legal):
        if self.record:
            self.record(
                f"strategy {self.name!r} at seat {self.seat}, choosing move {state.moves + 1}; the "
                f"position:\n{state.describe()}"
            )
        return timed(self.beat, lambda: self.player.move(state, obs, rules_array, rng, legal))
