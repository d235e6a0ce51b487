"""The ground layer: plain-Python helpers that every layer above may use and that import
nothing of shedsim (``tests/test_imports.py`` checks it).

* :mod:`shedsim.base.isolate`: calling a plugin's compiled code in a forked child process,
  so that a crash or a decision that never ends is named (no numba in it: it takes the
  compiled function as an argument).
* :mod:`shedsim.base.atomic`: atomic file writes (temporary file, fsync, rename) and
  shedsim's mark on the files it writes.
* :mod:`shedsim.base.notices`: Python warnings told as one plain sentence.
* :mod:`shedsim.base.heap`: glibc's heap thresholds raised in a process that plays games,
  so that the freed memory of one chunk's records serves the next (no fresh pages to fault in).
* :mod:`shedsim.base.jsontext`: parsing JSON from outside shedsim (files a user names, bot
  answers) with every way it can fail, deep nesting included, as one exception.
"""
