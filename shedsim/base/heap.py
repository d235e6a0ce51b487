"""The C heap of a process that plays games: freed memory kept for reuse.

A run allocates its per-game records chunk by chunk (several MB a chunk, freed when the
chunk's figures are merged). glibc's ``malloc`` serves blocks that large with ``mmap``
and gives them back to the system on ``free``, so every chunk starts on fresh pages, which
the system zero-fills on first touch: a page fault for each 4 KiB, in the game loop
itself. :func:`keep_freed_memory` raises glibc's mmap threshold and trim threshold
(``mallopt(M_MMAP_THRESHOLD)``, ``mallopt(M_TRIM_THRESHOLD)``, glibc's malloc(3) and
mallopt(3) manual pages) so that those blocks come from the heap and freed ones are reused:
the process keeps up to :data:`TRIM_BYTES` of freed memory instead of returning it.

Elsewhere (macOS, musl, Windows: no glibc ``mallopt``) it does nothing; the results never
depend on it, only the time.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_BYTES = 32 * 2**20
"""Blocks below this come from the heap (glibc's own ceiling for its adaptive threshold)."""
TRIM_BYTES = 128 * 2**20
"""Freed memory at the top of the heap beyond this goes back to the system."""

_done: bool | None = None


def keep_freed_memory() -> bool:
    """Set the thresholds once for this process; True where glibc took them (later calls
    return the first answer)."""
    global _done
    if _done is None:
        _done = False
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
            mallopt = libc.mallopt
        except (OSError, AttributeError):
            return False
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)) and bool(
            mallopt(M_TRIM_THRESHOLD, TRIM_BYTES)
        )
    return _done
