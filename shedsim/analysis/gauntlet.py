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
from collections.abc import Callable

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


def _row(label: str, counts: np.ndarray, games: int, forfeits: int, opp_forfeits: int, unfinished: int,
         decision: str | None = None, llr: float | None = None) -> Row:
    score, lo, hi = S._interval(counts)
    return Row(label, games, score, lo, hi, float(S.score_to_elo(score)), float(S.score_to_elo(lo)),
               float(S.score_to_elo(hi)), forfeits, opp_forfeits, unfinished, decision, llr)


def run_gauntlet(candidate: str, opponents: list[tuple[str, str]], rules, players: int = 2, games: int = 2000,
                 seed: int = 0, sprt: tuple[float, float] | None = None, alpha: float = 0.05, beta: float = 0.05,
                 batch: int = 2000, strategy_paths: tuple[str, ...] = (),
                 on_row: Callable[[Row], None] | None = None,
                 bot_time: tuple[int, int | None] = (1000, None), deals: tuple = ()) -> Result:
    """Play ``candidate`` (a strategy spec, or ``bot:COMMAND``) against each of
    ``opponents`` (``(label, spec)``), ``games`` games each (whole deals: rounded down to a
    multiple of ``players``, at least one deal), or with ``sprt = (elo0, elo1)`` until that
    opponent's GSPRT decides (at most ``games``). ``on_row`` is called after each opponent;
    ``bot_time``: a bot's milliseconds per move and per game (``--time-per-move``, ``--time-per-game``);
    ``deals``: a deal set's deals (:mod:`shedsim.rules.deals`) played instead of shuffled ones.
    Raises :class:`GauntletError` naming ``--games`` or ``--opponents``,
    :class:`shedsim.analysis.sprt.SPRTError` (strategies, players, seed, the test's
    options), :class:`shedsim.rules.RulesError` and
    :class:`shedsim.runs.simulate.SimulationError`."""
    import dataclasses

    from shedsim.seeding import game_keys
    if not opponents:
        raise GauntletError("--opponents: name at least one opponent")
    if isinstance(games, bool) or not isinstance(games, int) or games < players:
        raise GauntletError(f"--games: at least {players} (one deal under every rotation), got {games!r}")
    rs = S._rules(rules)
    unit = players
    n_units = games // unit
    per_batch = max(1, -(-int(batch) // unit))
    out = Result(candidate, S.rules_name(rs), players, int(seed))
    total = None
    tot_games = tot_f = tot_of = tot_unf = 0
    for i, (label, spec) in enumerate(opponents):
        match = S.open_match(candidate, spec, rs, players, seed, strategy_paths, bot_time)
        match.spec = dataclasses.replace(match.spec, stream=i, deals=deals)  # opponent i's own strategy randomness
        seq = None
        if sprt is not None:
            seq = S.Sequential(players, sprt[0], sprt[1], alpha, beta, n_units * unit, True,
                               min_games=min(100, n_units * unit), batch=batch)
        counts = None
        played = forfeits = opp_forfeits = unfinished = 0
        for u0 in range(0, n_units, per_batch):
            u1 = min(n_units, u0 + per_batch)
            sched = S.schedule(players, u0 * unit, u1 * unit, True)
            dk, sk = game_keys(match.spec.seed, sched["index"], sched["deal"], match.spec.stream)
            rec = match.records(sched, dk, sk)
            codes = S._unit_codes(S.half_points(rec["places"], sched["x_seat"]), unit).astype(np.int64)
            unf = rec["unfinished"].astype(np.int64).reshape(-1, unit).sum(axis=1)
            take = len(codes)
            if seq is not None:
                before = seq.units
                seq.feed(codes, unf)
                take = seq.units - before
            k = 2 * (players - 1) * unit + 1
            c = np.bincount(codes[:take], minlength=k).astype(np.int64)
            counts = c if counts is None else counts + c
            g = take * unit
            played += g
            unfinished += int(unf[:take].sum())
            if "forfeit" in rec:
                f = rec["forfeit"][:g] > 0
                xs = sched["x_seat"][:g]
                mine = f[np.arange(g), xs]
                forfeits += int(mine.sum())
                opp_forfeits += int(f.sum() - mine.sum())
            if seq is not None and seq.finished:
                break
        llr = float(seq.result(candidate, spec, out.rules, seed).llr) if seq is not None else None
        row = _row(label, counts, played, forfeits, opp_forfeits, unfinished,
                   None if seq is None else seq.decision, llr)
        out.rows.append(row)
        total = counts if total is None else total + counts
        tot_games, tot_f, tot_of, tot_unf = tot_games + played, tot_f + forfeits, tot_of + opp_forfeits, tot_unf + unfinished
        if on_row is not None:
            on_row(row)
    out.total = _row("total", total, tot_games, tot_f, tot_of, tot_unf)
    return out
