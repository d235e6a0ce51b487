"""splitmix64 in numba: the same stream as :class:`shedsim.seeding.SplitMix64`.

A stream is a ``uint64[1]`` array holding its counter; every draw advances it in place.
"""

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit(cache=True, inline="always")
def rng_next(rng):
    """The next 64-bit output of the stream ``rng`` (``uint64[1]``), as ``uint64``."""
    z = rng[0] + GOLDEN
    rng[0] = z
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def rng_below(rng, n):
    """A draw in ``0..n-1`` (``int64``), from the top 32 bits of :func:`rng_next`."""
    return np.int64(((rng_next(rng) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def mix(counter):
    """The splitmix64 output for a counter value (``uint64``): ``rng_next`` without the
    array, for loops that keep the counter in a local variable (the shuffle)."""
    z = (counter ^ (counter >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def below(z, n):
    """A draw in ``0..n-1`` (``int64``) from the output ``z`` of :func:`mix`, as
    :func:`rng_below` makes it from :func:`rng_next`."""
    return np.int64(((z >> _S32) * np.uint64(n)) >> _S32)


SEAT_SALT = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True, inline="always")
def seat_key(key, seat):
    """The key (``uint64``) of seat ``seat``'s own strategy stream in a game whose strategy
    stream has key ``key``: ``mix((key ^ SEAT_SALT) + GOLDEN * (seat + 1))``, as
    :func:`shedsim.seeding.seat_key` (a plugin from outside ``strategies/`` draws from it:
    :func:`shedsim.kernel.core.lend_stream`)."""
    return mix((np.uint64(key) ^ SEAT_SALT) + GOLDEN * np.uint64(seat + 1))
