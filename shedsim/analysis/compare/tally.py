"""What a comparison keeps of each game: per-deal aggregates of one variant
(:class:`Tally`), reduced from each chunk's records as soon as it is played."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from shedsim.layout import END_CAP


@dataclass
class Tally:
    """Per-deal aggregates of one variant: D deals of N games (N = players), E entries.

    ``lengths`` int16[D, N] (int32 when the move cap exceeds 32767): moves of rotation r
    of deal b (unfinished games count the moves made before the stop); ``unfinished``
    bool[D, N]; ``ends`` int8[D, N] (how each game ended, ``layout.END_*``); ``pickups``,
    ``burns`` int32[D]: totals over the deal's N games and all seats; ``starter_lost``
    int8[D]: games of the deal in which the starting seat finished last; ``losses``
    int8[D, E]: the entry's seat-games of the deal that finished last; ``done`` bool[D]:
    deals aggregated so far.
    """

    lengths: np.ndarray
    unfinished: np.ndarray
    pickups: np.ndarray
    burns: np.ndarray
    starter_lost: np.ndarray
    losses: np.ndarray
    done: np.ndarray
    ends: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int8))

    @classmethod
    def empty(cls, deals: int, players: int, entries: int, max_moves: int) -> Tally:
        """Zeroed arrays for ``deals`` deals."""
        ldt = np.int16 if max_moves <= np.iinfo(np.int16).max else np.int32
        return cls(
            np.zeros((deals, players), ldt),
            np.zeros((deals, players), np.bool_),
            np.zeros(deals, np.int32),
            np.zeros(deals, np.int32),
            np.zeros(deals, np.int8),
            np.zeros((deals, entries), np.int8),
            np.zeros(deals, np.bool_),
            np.zeros((deals, players), np.int8),
        )

    def add_chunk(
        self, start: int, stop: int, records: dict[str, np.ndarray], seating: np.ndarray
    ) -> None:
        """Aggregate games ``start..stop-1`` (whole deals: both multiples of N) from the
        kernel's records (``places`` int8[n, N], ``start`` int8[n], ``moves`` int32[n],
        ``unfinished`` bool[n], ``pickups``/``burns`` int16[n, N]) and ``seating``
        int64[n, N] (entry per seat, :func:`shedsim.runs.simulate.schedule_games`)."""
        n_players = self.lengths.shape[1]
        n_entries = self.losses.shape[1]
        if start % n_players or stop % n_players:
            raise ValueError(
                f"chunk {start}..{stop} is not made of whole deals of {n_players} games"
            )
        n = stop - start
        nd = n // n_players
        b0 = start // n_players
        sl = slice(b0, b0 + nd)
        self.lengths[sl] = records["moves"].reshape(nd, n_players)
        self.unfinished[sl] = records["unfinished"].reshape(nd, n_players)
        end = records["end"] if "end" in records else np.where(records["unfinished"], END_CAP, 0)
        self.ends[sl] = end.reshape(nd, n_players)
        self.pickups[sl] = (
            records["pickups"].sum(axis=1, dtype=np.int64).reshape(nd, n_players).sum(axis=1)
        )
        self.burns[sl] = (
            records["burns"].sum(axis=1, dtype=np.int64).reshape(nd, n_players).sum(axis=1)
        )
        lost = (
            records["places"] == n_players
        )  # [n, N]: last place (under stalemate:share nobody in an unfinished game)
        starter = lost[np.arange(n), records["start"].astype(np.int64)]
        self.starter_lost[sl] = starter.reshape(nd, n_players).sum(axis=1)
        local = (np.arange(n) // n_players)[:, None] * n_entries + seating
        self.losses[sl] = np.bincount(local[lost], minlength=nd * n_entries).reshape(nd, n_entries)
        self.done[sl] = True


def seat_games(players: int, n_entries: int, deals: int) -> np.ndarray:
    """``int64[deals, E]``: seat-games of each entry in each deal under the tournament
    schedule (deal b plays table ``b % n_tables`` under all N rotations)."""
    from shedsim.runs.simulate import tournament_tables

    tables = np.array(tournament_tables(n_entries, players), np.int64)
    per_table = np.stack([(tables == e).sum(axis=1) for e in range(n_entries)], axis=1) * players
    return per_table[np.arange(deals) % len(tables)]
