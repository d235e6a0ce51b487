"""Same seed -> the same CSV bytes: small runs of every command that plays games, checked
against the checksums in ``tests/golden/checksums.json`` (recorded by ``tools/golden.py``
from main at 2a23a65, before the commands moved onto :mod:`shedsim.runs.execute`).

A change meant to alter an output regenerates the file: ``.venv/bin/python tools/golden.py``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("golden", ROOT / "tools" / "golden.py")
golden = importlib.util.module_from_spec(spec)
spec.loader.exec_module(golden)
WANT = json.loads(golden.GOLDEN.read_text())


def test_every_run_has_a_recording():
    assert set(WANT) == set(golden.RUNS)


@pytest.mark.parametrize("name", sorted(golden.RUNS))
def test_csvs_equal_the_recorded_ones(name):
    got = golden.checksums(name, golden.RUNS[name])
    assert got == WANT[name], (
        "the CSVs differ from tests/golden/checksums.json; if the change is meant, "
        "regenerate with: .venv/bin/python tools/golden.py"
    )
