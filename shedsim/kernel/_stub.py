"""Placeholder dispatch so :mod:`shedsim.kernel._loop` reads as valid Python; never run."""


def choose_swap(sid, visible, seat, players, rules, params, rng):  # pragma: no cover
    raise RuntimeError("the kernel template is not meant to run; use shedsim.kernel.build")


def choose_move(sid, obs, rules, params, rng, priv):  # pragma: no cover
    raise RuntimeError("the kernel template is not meant to run; use shedsim.kernel.build")


def is_deterministic(sid):  # pragma: no cover
    raise RuntimeError("the kernel template is not meant to run; use shedsim.kernel.build")
