"""A :class:`shedsim.bot.client.Bot` as a plain-Python strategy plugin: the same bot class
in-process as over the pipe (docs/reference/strategies.md#readable-state)::

    from shedsim.bot.example import Greedy
    from shedsim.bot.inprocess import readable

    NAME = "pygreedy"
    DESCRIPTION = "The example bot, in-process."
    DETERMINISTIC = True
    choose_swap, choose_move = readable(Greedy())

:func:`readable` gives decisions that take the engine's position
(:class:`shedsim.rules.engine.GameState`; :class:`shedsim.plugins.EnginePlayer` passes it
to functions marked ``takes_state``) and ask the bot with the very messages a bot process
gets (:mod:`shedsim.bot.protocol`: ``swap`` with the position as dealt, ``move`` with the
position and the legal moves in the protocol's order, after the ``game`` message), answered
by :func:`shedsim.bot.client.answer`, the function the pipe's loop calls, and checked as a
bot process's answers are. The ``game`` message's ``seed`` is the seat's own stream key
(:func:`shedsim.seeding.seat_key`), as a bot process is told.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from shedsim.bot import protocol as P


class AnswerError(ValueError):
    """A bot's answer that a bot process would forfeit its game for (the fault in words)."""


def _game(state, seat: int, strategy_key: int) -> dict[str, Any]:
    from shedsim.seeding import seat_key

    n = len(state.seats)
    return P.game_message(
        0, seat, n, P.rules_object(state.rules, n), seat_key(strategy_key, seat) & ((1 << 53) - 1)
    )


def readable(bot: Any) -> tuple[Callable, Callable]:
    """``(choose_swap, choose_move)`` of a plugin that plays ``bot`` (a
    :class:`shedsim.bot.client.Bot`): ``choose_swap(dealt, strategy_key, seat)`` returns the
    face-up ranks (ints), ``choose_move(state, legal)`` the index of the chosen move in
    ``legal``. A wrong answer raises :class:`AnswerError`."""
    from shedsim.bot.client import answer

    games: dict[int, dict[str, Any]] = {}

    def choose_swap(dealt, strategy_key: int, seat: int) -> list[int]:
        games[seat] = g = _game(dealt, seat, strategy_key)
        bot.new_game(g)
        me = dealt.seats[seat]
        msg = P.swap_message(dealt, seat, None)
        try:
            return P.check_swap(answer(bot, msg, g) or {}, me.hand + me.face_up, len(me.face_up))
        except P.Fault as f:
            raise AnswerError(f"its bot's swap: {f} ({f.kind})") from None

    def choose_move(state, legal: list) -> int:
        seat = state.to_move
        msg, order, texts = P.move_message(state, seat, legal, None)
        try:
            return order[P.check_move(answer(bot, msg, games.get(seat)) or {}, texts)]
        except P.Fault as f:
            raise AnswerError(f"its bot's move: {f} ({f.kind})") from None

    choose_swap.takes_state = choose_move.takes_state = True
    return choose_swap, choose_move
