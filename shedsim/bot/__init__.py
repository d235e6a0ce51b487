"""Bots: strategies in any language, as processes that speak the bot protocol
(docs/reference/bots.md): one JSON object a line on standard input and output.

* :mod:`shedsim.bot.protocol`: the messages and the checks of the answers, as data;
* :mod:`shedsim.bot.process`: a bot's process (start, ``hello``, questions with a deadline,
  its standard error read all the time, ``bye``);
* :mod:`shedsim.bot.table`: games with bot seats on the reference engine, for a chunk of a
  run (the kernel's records, plus forfeits);
* :mod:`shedsim.bot.client`: writing a bot in Python (:class:`Bot`, :class:`State`, :func:`run`;
  standard library only), :mod:`shedsim.bot.example` a whole one.
"""

from shedsim.bot.client import Bot, SeatState, State, run

__all__ = ["Bot", "SeatState", "State", "run"]
