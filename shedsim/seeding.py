"""Seeds and the counter-based random streams shared by both engines
(docs/reference/rules.md#ruling-game-rng).

Every random choice of a game comes from two splitmix64 streams derived from
``(run seed, index)``: the **deal** stream (shuffle, random starts) and the **strategy**
stream (strategies' coin flips; a plugin from outside ``strategies/`` draws from its seat's
own stream instead, keyed from the game's by :func:`seat_key`). Keys are computed from the run seed
with
:class:`numpy.random.SeedSequence` and a splitmix64 finaliser of the game or deal index,
so a game's cards do not depend on how a run is chunked or how many workers play it.

splitmix64 is Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014 (the constants of Vigna's public-domain C version). The compiled kernel has
the same generator in :mod:`shedsim.kernel.rng`; the test suite checks they agree.
"""

from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB


def mix64(z: int) -> int:
    """The splitmix64 output function of a 64-bit integer (Python ints, wrapped to 64 bits)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * M1) & MASK64
    z = ((z ^ (z >> 27)) * M2) & MASK64
    return z ^ (z >> 31)


class SplitMix64:
    """A splitmix64 stream in plain Python; ``state`` is the 64-bit counter."""

    def __init__(self, key: int) -> None:
        self.state = int(key) & MASK64

    def next(self) -> int:
        """The next 64-bit output (as a Python int)."""
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """A draw in ``0..n-1`` from the top 32 bits (``n`` < 2**32; bias below 2**-25)."""
        return ((self.next() >> 32) * n) >> 32


SEAT_SALT = 0xD1B54A32D192ED03
"""An odd 64-bit constant (the multiplier of Roberts' R2 low-discrepancy sequence) that
sets the seats' own streams apart from the game's strategy stream."""


def seat_key(strategy_key: int, seat: int) -> int:
    """The key of seat ``seat``'s own strategy stream in a game whose strategy stream has
    key ``strategy_key``: ``mix64((strategy_key ^ SEAT_SALT) + GOLDEN * (seat + 1))``. The
    seats of shedsim's own strategies share the game's stream; a plugin from outside
    ``strategies/`` draws from its seat's own, so that nothing it draws or writes reaches
    another seat's draws (:class:`shedsim.rules.engine.GameStreams`, and
    :func:`shedsim.kernel.rng.seat_key` in the kernel)."""
    return mix64(((int(strategy_key) ^ SEAT_SALT) + GOLDEN * (int(seat) + 1)) & MASK64)


def shuffle(deck: list[int], rng: SplitMix64) -> None:
    """Fisher-Yates shuffle in place, drawing ``below(i + 1)`` for i = n-1 .. 1."""
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]


def root_keys(seed: int) -> tuple[int, int]:
    """The (deal, strategy) root keys of a run seed, from ``SeedSequence(seed)``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    state = np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint64)
    return int(state[0]), int(state[1])


def index_keys(root: int, index: np.ndarray) -> np.ndarray:
    """``uint64[n]`` keys ``mix64(root + GOLDEN * (index + 1))`` for ``index`` (``int64[n]``)."""
    idx = np.asarray(index, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(root) + (idx + np.uint64(1)) * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(M2)
        z = z ^ (z >> np.uint64(31))
    return z


def game_keys(
    seed: int, index: np.ndarray, deal_index: np.ndarray | None = None, stream: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(deal keys, strategy keys), ``uint64[n]`` each, for games ``index`` of run ``seed``.

    ``deal_index`` (default: ``index``) selects the deal: games sharing a deal index get
    the same cards (paired deals) but their own strategy streams. ``stream`` > 0 gives
    independent strategy streams over the same deals (the strategy root key then comes
    from ``SeedSequence([seed, stream])``): compare-rules plays each variant on its own
    stream, so two variants share their deals and nothing else.
    """
    deal_root, strat_root = root_keys(seed)
    if stream:
        if isinstance(stream, bool) or not isinstance(stream, (int, np.integer)) or stream < 0:
            raise ValueError(f"stream must be a non-negative integer, got {stream!r}")
        strat_root = int(
            np.random.SeedSequence([int(seed), int(stream)]).generate_state(2, dtype=np.uint64)[1]
        )
    index = np.asarray(index, dtype=np.int64)
    deals = index if deal_index is None else np.asarray(deal_index, dtype=np.int64)
    return index_keys(deal_root, deals), index_keys(strat_root, index)
