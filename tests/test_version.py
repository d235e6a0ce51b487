"""``shedsim --version`` prints the installed version, from the package metadata (one place:
``pyproject.toml``), and ``shedsim.__version__`` (which ``run.json`` records) is the same."""

from __future__ import annotations

from importlib.metadata import version

from typer.testing import CliRunner

import shedsim
from shedsim.cli import app


def test_version_option_prints_the_package_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"shedsim {version('shedsim')}"


def test_the_module_version_is_the_package_metadata():
    assert shedsim.__version__ == version("shedsim")


def test_commands_still_run_after_the_version_option_was_added():
    result = CliRunner().invoke(app, ["rules", "list"])
    assert result.exit_code == 0, result.output
    assert "shithead" in result.output
