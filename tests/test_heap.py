"""The heap thresholds of a process that plays games (shedsim.base.heap)."""

import platform

from shedsim.base import heap


def test_keep_freed_memory_once_and_where_glibc_is():
    first = heap.keep_freed_memory()
    assert heap.keep_freed_memory() is first  # set once: the first answer again
    # on glibc mallopt takes both thresholds; elsewhere the call does nothing
    assert first is (platform.system() == "Linux" and platform.libc_ver()[0] == "glibc")


def test_playing_games_sets_it():
    from shedsim.kernel.build import kernel_module
    from shedsim.plugins import discover

    kernel_module([s for s in discover().values() if s.compiled])
    assert heap._done is not None
