"""shedsim: Monte Carlo strategy analysis for the shedding card game Shithead / Idiot / Palace.

Layers (data flows one way): rules as data (:mod:`shedsim.rules`), the reference engine
(:mod:`shedsim.rules.engine`), the compiled kernel (:mod:`shedsim.kernel`), strategy plugins
(:mod:`shedsim.plugins`, ``strategies/``), scenario files (:mod:`shedsim.rules.scenario`), the
run driver (:mod:`shedsim.runs.study`), the Python API (:mod:`shedsim.api`, whose functions
are importable from here: ``shedsim.tournament(...)``) and the command line (:mod:`shedsim.cli`).

The API is imported on first use (``shedsim.tournament`` loads :mod:`shedsim.api`), so
``import shedsim`` and ``shedsim --help`` stay fast.
"""

from shedsim.version import __version__  # noqa: F401 (the installed version)

API = (
    "tournament",
    "compare_rules",
    "swaps",
    "sprt",
    "gauntlet",
    "tips",
    "tune",
    "hint",
    "train",
    "Position",
    "RunOptions",
    "StudyError",
)
"""The names of :mod:`shedsim.api` importable from ``shedsim``."""


def __getattr__(name: str):
    if name in API:
        import shedsim.api

        return getattr(shedsim.api, name)
    raise AttributeError(f"module 'shedsim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
