"""A script of ``tools/`` imported as a module for the time of a test (its measurements'
helpers are tested where the scripts live, never copied into the tests)."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1] / "tools"


@contextlib.contextmanager
def tool_module(script: str):
    """``tools/<script>`` loaded as the module ``tools_<stem>``, removed from
    ``sys.modules`` afterwards."""
    path = TOOLS / script
    spec = importlib.util.spec_from_file_location(f"tools_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        del sys.modules[spec.name]
