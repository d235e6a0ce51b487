"""A :class:`shedsim.bot.client.Bot` as a plain-Python strategy plugin: the same bot class
in-process as over the pipe (docs/reference/strategies.md#readable-state).

A plugin module that defines ``BOT``, an instance of :class:`~shedsim.bot.client.Bot`,
instead of ``choose_swap``/``choose_move``, is played by the reference engine with the very
messages a bot process gets (:mod:`shedsim.bot.protocol`: the ``game`` message, ``swap``
with the position as dealt, ``move`` with the position and the legal moves in the
protocol's order), answered by :func:`shedsim.bot.client.answer`, the function the pipe's
loop calls, and checked as a bot process's answers are. So its decisions are the bot's own,
whichever way it plays. The ``game`` message's ``seed`` is the seat's own stream key
(:func:`shedsim.seeding.seat_key`), as a bot process is told.
"""

from __future__ import annotations

from typing import Any

from shedsim.bot import protocol as P


class ReadableDecisions:
    """The swap and move of one seat's ``bot``; :meth:`see_deal` is told the position as
    dealt before the swap phase (:func:`shedsim.rules.engine.new_game`)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.dealt = None
        self.game: dict[str, Any] | None = None

    def see_deal(self, state, seat: int, strategy_key: int = 0) -> None:
        from shedsim.seeding import seat_key
        self.dealt = state.copy()
        n = len(state.seats)
        self.game = P.game_message(0, seat, n, P.rules_object(state.rules, n),
                                   seat_key(strategy_key, seat) & ((1 << 53) - 1))
        self.bot.new_game(self.game)

    def swap(self, seat: int) -> list[int]:
        """The face-up ranks the bot chooses (checked as a bot process's answer; a bad answer
        raises :class:`shedsim.bot.protocol.Fault`)."""
        from shedsim.bot.client import answer
        if self.dealt is None:
            raise P.Fault("protocol", "a readable-state strategy must be told the deal before its swap")
        dealt = self.dealt.seats[seat]
        msg = {"type": "swap", "seat": seat, "hand": P.names(dealt.hand), "face_up": P.names(dealt.face_up),
               "state": P.state_view(self.dealt, seat, swap=True), "clock": None}
        return P.check_swap(answer(self.bot, msg, self.game) or {}, dealt.hand + dealt.face_up, len(dealt.face_up))

    def move(self, state, legal: list) -> Any:
        """The move (one of ``legal``, the engine's :class:`~shedsim.rules.engine.Move` list)
        the bot chooses in ``state``; a bad answer raises :class:`shedsim.bot.protocol.Fault`."""
        from shedsim.bot.client import answer
        order = P.protocol_order(legal)
        texts = [str(legal[k]) for k in order]
        seat = state.to_move
        msg = {"type": "move", "seat": seat, "legal": texts, "state": P.state_view(state, seat), "clock": None}
        return legal[order[P.check_move(answer(self.bot, msg, self.game) or {}, texts)]]
