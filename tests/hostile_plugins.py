"""The hostile compiled plugins the tests share: one directory, at a fixed place in the
kernel cache, so that every test (and every pytest worker) that plays one of them uses one
compiled kernel, and numba's cache of it serves later sessions too.

Each plugin misbehaves in one way (writes into the rules, its parameters, the observation
or a random stream; raises; loops; crashes the process; returns an illegal move or a code
that is no move), or not at all (``honest``: greedy's decisions from outside
``strategies/``). They run in the kernel's standard game loop (``INLINE = False``, as
heuristic: one loop to compile for the whole directory).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

HEAD = """
    import numpy as np
    from numba import njit
    from shedsim import layout as L
    from shedsim.kernel.policies import greedy_move, strongest_face_up
    NAME = "{name}"
    DESCRIPTION = "hostile test plugin"
    DETERMINISTIC = True
    INLINE = False
    PARAMS = {{"depth": 3}}
"""
SWAP = """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
"""
"""The swap of every plugin below that defines none of its own."""
PLUGINS = {
    # from its fourth move on, every rank is playable on every top (for everybody)
    "rulebender": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            for t in range(15):
                rules[L.R_PLAYABLE + t] = 0x7FFF
        return greedy_move(obs, rules)
    """,
    # no rank burns any more, from the swap phase on
    "swapbender": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        rules[L.R_BURN_MASK] = 0
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        return greedy_move(obs, rules)
    """,
    # counts its decisions in its own parameters (results would depend on the chunk size)
    "paramcounter": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        params[0] += 1
        return greedy_move(obs, rules)
    """,
    # from its fourth move on, tells the kernel it has no face-down cards left (the
    # observation is the kernel's own state)
    "obswriter": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            obs[L.O_FACE_DOWN_N + obs[L.O_SEAT]] = 0
        return greedy_move(obs, rules)
    """,
    # tells the kernel it has no face-down cards, and balances the write in another entry
    # so that a weighted sum of the observation (the guard before) does not change
    "stealth": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        a = L.O_FACE_DOWN_N + obs[L.O_SEAT]
        if obs[L.O_MOVES] >= 2 and obs[a] != 0:
            w = np.int64(2 * 23 + 1)  # entry 23's weight, and its inverse mod 2^64 (Newton)
            inv = w
            for _ in range(6):
                inv = inv * (np.int64(2) - w * inv)
            d = -obs[a]
            obs[a] = 0
            obs[23] -= d * np.int64(2 * a + 1) * inv
        return greedy_move(obs, rules)
    """,
    # its swap raises on every path, so numba types its result as none: it cannot go into
    # the kernel, and is listed as broken (before, every run died with a TypingError)
    "swapraiser": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        raise ValueError("no swap")
    @njit(cache=True)
    def move(obs, rules, params, rng):
        return greedy_move(obs, rules)
    """,
    # greedy's decisions, played from outside strategies/ (so in a forked child)
    "honest": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        return greedy_move(obs, rules)
    """,
    # returns four aces from its fourth move on (it holds none): an illegal move
    "cheater": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            return (14 << 8) | (4 << 4)
        return greedy_move(obs, rules)
    """,
    # from its fourth move on returns a code that is no move, -5 (depth 3) or 999999 (depth
    # 4), or (depth 5) never returns, as looper below: hint's tests of a playout policy take
    # each misdeed from this one plugin, whose playouts compile once
    "nonmove": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            if params[0] == 5:
                rng[0] = rng[0] | 1
                while rng[0] != 0:
                    rng[0] = rng[0] * 6364136223846793005 + 1442695040888963407
            return -5 if params[0] == 3 else 999999
        return greedy_move(obs, rules)
    """,
    # plays greedy, but its search (timed by bench) reads far outside an array
    "searchfaulter": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        return greedy_move(obs, rules)
    @njit(cache=True)
    def move_stats(obs, rules, params, rng, stats):
        stats[0] += 1
        stats[1] += 1
        if obs[L.O_MOVES] >= 0:
            return rules[1 << 40]
        return greedy_move(obs, rules)
    @njit(cache=True)
    def playout_stats(obs, rules, params, rng, reps, play, stats):
        return 0
    """,
    # raises an exception inside compiled code from its fourth move on
    "raiser": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            raise ValueError("raiser gives up")
        return greedy_move(obs, rules)
    """,
    # never returns from its fourth move on (a stuck search; the loop writes memory, so
    # the compiler cannot drop it)
    "looper": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            rng[0] = rng[0] | 1
            while rng[0] != 0:
                rng[0] = rng[0] * 6364136223846793005 + 1442695040888963407
        return greedy_move(obs, rules)
    """,
    # plays greedy and writes into its random stream (it says DETERMINISTIC): depth 3, its
    # own rng[0], a counter (a stream that never repeats; before, it was the stream that
    # every other seat drew from, and the one the loop check compared); depth 4, rng[1],
    # past its own (the game's strategy stream); depth 5, rng[2] in the swap phase (the
    # deal stream, which the start rule may draw from)
    "rngwriter": """
    @njit(cache=True)
    def swap(visible, seat, players, rules, params, rng):
        if params[0] == 5:
            rng[2] = np.uint64(0)
        return strongest_face_up(visible, rules[L.R_TABLE_SIZE], rules)
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if params[0] == 4:
            rng[1] = np.uint64(0)
        else:
            rng[0] = rng[0] + np.uint64(1)
        return greedy_move(obs, rules)
    """,
    # reads far outside an array from its fourth move on: a segmentation fault
    "segfaulter": """
    @njit(cache=True)
    def move(obs, rules, params, rng):
        if obs[L.O_MOVES] >= 3:
            return rules[1 << 40]
        return greedy_move(obs, rules)
    """,
}


def write(root: Path) -> Path:
    """The plugins' directory under ``root``: a file is (atomically) rewritten only when its
    text changed, so the generated kernel and numba's caches stay valid."""
    from shedsim.base import atomic

    d = root / "tests" / "hostile_plugins"
    d.mkdir(parents=True, exist_ok=True)
    for name, body in PLUGINS.items():
        own_swap = "def swap(" in body
        text = (
            textwrap.dedent(HEAD.format(name=name))
            + ("" if own_swap else textwrap.dedent(SWAP))
            + textwrap.dedent(body)
        )
        f = d / f"{name}.py"
        if not f.exists() or f.read_text() != text:
            atomic.write_text(f, text)
    return d
