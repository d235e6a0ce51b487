"""Placeholder dispatch so :mod:`shedsim.kernel._loop` reads as valid Python; never run."""

OUTSIDE = False
"""Whether a strategy of the dispatch comes from outside ``strategies/`` (the generated
dispatch sets it; the loop gives each seat its own stream only then)."""


def choose_swap(sid, visible, seat, players, rules, params, rng, streams, priv):  # pragma: no cover
    raise RuntimeError("the kernel template is not meant to run; use shedsim.kernel.build")


def choose_move(sid, obs, rules, params, rng, streams, priv):  # pragma: no cover
    raise RuntimeError("the kernel template is not meant to run; use shedsim.kernel.build")


def is_deterministic(sid):  # pragma: no cover
    raise RuntimeError("the kernel template is not meant to run; use shedsim.kernel.build")


def is_checked(sid):  # pragma: no cover
    raise RuntimeError("the kernel template is not meant to run; use shedsim.kernel.build")
