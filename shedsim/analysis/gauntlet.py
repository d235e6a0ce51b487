"""A gauntlet: one candidate against each of several opponents, head to head on paired deals
(the schedule of :mod:`shedsim.analysis.sprt`: each deal under every rotation of the seats,
the candidate in one seat, the opponent in all the others), as fastchess's gauntlet mode
plays one engine against a list.

Per opponent: the games played, the candidate's mean score (the share of the other seats it
finished ahead of, ties half; :func:`shedsim.analysis.sprt.half_points`) with its 95% t
interval over units (a deal's rotations are one unit), the same on the logistic Elo scale
(:func:`shedsim.analysis.sprt.score_to_elo`), the games each side forfeited (a bot's faults,
docs/reference/bots.md#faults) and, with an SPRT, its decision (the GSPRT of
:class:`shedsim.analysis.sprt.Sequential`, which may stop early). The total pools every
opponent's units: its score is the mean unit score over the whole gauntlet.

Opponent ``i`` plays on strategy stream ``i`` with the same deal keys: every opponent meets
the same deals, so the rows differ by the opponent, not by the cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shedsim.analysis import sprt as S


class GauntletError(ValueError):
    """A gauntlet option that cannot be used; the message names it."""


@dataclass
class Row:
    """One opponent's (or the total's) line: ``games``, ``score``/``lo``/``hi`` (the
    candidate's mean unit score and 95% interval, in [0, 1]), ``elo``/``elo_lo``/``elo_hi``,
    ``forfeits`` (games the candidate forfeited), ``opponent_forfeits``, ``decision``
    (``H0``, ``H1``, ``none``; None without an SPRT) and ``llr``."""

    opponent: str
    games: int
    score: float
    lo: float
    hi: float
    elo: float
    elo_lo: float
    elo_hi: float
    forfeits: int = 0
    opponent_forfeits: int = 0
    unfinished: int = 0
    decision: str | None = None
    llr: float | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Result:
    """The gauntlet's rows (one per opponent, in the order given) and the total."""

    candidate: str
    rules: str
    players: int
    seed: int
    rows: list[Row] = field(default_factory=list)
    total: Row | None = None

    def table(self):
        """``gauntlet.csv``: one row per opponent, then the total (a pandas DataFrame with
        the fields of :class:`Row`)."""
        import pandas as pd

        return pd.DataFrame([r.to_json() for r in [*self.rows, self.total]])


DEFINITIONS = {
    "score": "the candidate's mean score per deal: the share of the other seats it finished "
    "ahead of, ties half "
    "(a deal's rotations are one unit), with its 95% Student t interval over deals",
    "Elo": "the score on the logistic Elo scale: elo = -400 log10(1 / score - 1)",
    "forfeits": (
        "games the candidate (forfeits) and its opponent (opponent_forfeits) forfeited (a "
        "bot's faults)"
    ),
    "decision": (
        "with --sprt: the GSPRT's decision against that opponent (H1, H0, or none at --games)"
    ),
}
"""The terms of the table, as run.json states them."""


def play_batch(match: Any, u0: int, u1: int) -> dict[str, np.ndarray]:
    """Units (deals) ``u0..u1-1`` of ``match`` (:func:`shedsim.analysis.sprt.open_match`: the
    candidate is X) on paired deals, per unit (int64[n] each): ``codes`` (the score code,
    category ``code / (K - 1)``), ``unfinished`` games, the games the candidate forfeited
    (``forfeits``) and the opponent's forfeited seats (``opponent_forfeits``). Raises
    :class:`shedsim.runs.simulate.SimulationError`."""
    unit = match.spec.players
    sched, rec = match.played(u0 * unit, u1 * unit, True)
    codes = S.unit_codes(S.half_points(rec["places"], sched["x_seat"]), unit).astype(np.int64)
    per_unit = {
        "codes": codes,
        "unfinished": rec["unfinished"].astype(np.int64).reshape(-1, unit).sum(axis=1),
    }
    mine = theirs = np.zeros(len(sched["x_seat"]), np.int64)
    if "forfeit" in rec:
        f = rec["forfeit"] > 0
        mine = f[np.arange(len(f)), sched["x_seat"]].astype(np.int64)
        theirs = f.sum(axis=1).astype(np.int64) - mine
    per_unit["forfeits"] = mine.reshape(-1, unit).sum(axis=1)
    per_unit["opponent_forfeits"] = theirs.reshape(-1, unit).sum(axis=1)
    return per_unit


class Tally:
    """The units of one opponent (or of all of them) summed: category counts (int64[K],
    ``K = 2 (players - 1) players + 1``), games, unfinished games and forfeits."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.counts = np.zeros(2 * (players - 1) * players + 1, np.int64)
        self.games = self.unfinished = self.forfeits = self.opponent_forfeits = 0

    def add(self, batch: dict[str, np.ndarray], take: int) -> None:
        """The first ``take`` units of a batch (:func:`play_batch`'s arrays)."""
        self.counts += np.bincount(batch["codes"][:take], minlength=len(self.counts)).astype(
            np.int64
        )
        self.games += take * self.players
        self.unfinished += int(batch["unfinished"][:take].sum())
        self.forfeits += int(batch["forfeits"][:take].sum())
        self.opponent_forfeits += int(batch["opponent_forfeits"][:take].sum())

    def merge(self, other: Tally) -> None:
        self.counts += other.counts
        self.games += other.games
        self.unfinished += other.unfinished
        self.forfeits += other.forfeits
        self.opponent_forfeits += other.opponent_forfeits

    def row(self, label: str, decision: str | None = None, llr: float | None = None) -> Row:
        """The table's row (:class:`Row`): the score and its 95% t interval over units, as Elo
        too."""
        score, lo, hi = S.interval(self.counts)
        return Row(
            label,
            self.games,
            score,
            lo,
            hi,
            float(S.score_to_elo(score)),
            float(S.score_to_elo(lo)),
            float(S.score_to_elo(hi)),
            self.forfeits,
            self.opponent_forfeits,
            self.unfinished,
            decision,
            llr,
        )
