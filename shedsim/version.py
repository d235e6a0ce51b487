"""The installed version of shedsim (the package metadata, from ``pyproject.toml``)."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__: str = _version("shedsim")
    """What ``shedsim --version`` prints and ``run.json`` records."""
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"
