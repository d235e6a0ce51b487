"""shedsim: Monte Carlo strategy analysis for the shedding card game Shithead / Idiot / Palace.

Layers (data flows one way): rules as data (:mod:`shedsim.rules`), the reference engine
(:mod:`shedsim.rules.engine`), the compiled kernel (:mod:`shedsim.kernel`), strategy plugins
(:mod:`shedsim.plugins`, ``strategies/``), scenario files (:mod:`shedsim.rules.scenario`) and the
command line (:mod:`shedsim.cli`).
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__: str = _version("shedsim")
    """The installed version (the package metadata, from ``pyproject.toml``): what
    ``shedsim --version`` prints and ``run.json`` records."""
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"
