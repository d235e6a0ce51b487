"""Every scenario file in tests/scenarios/ runs through the same code as
``shedsim scenario run``; invalid/ files are refused (exit 2) and failing/ files fail (exit 1)."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.cli import app
from shedsim.rules.scenario import ScenarioError, run_scenario

HERE = Path(__file__).parent / "scenarios"
VALID = sorted(HERE.glob("*.toml"))
INVALID = sorted((HERE / "invalid").glob("*.toml"))
FAILING = sorted((HERE / "failing").glob("*.toml"))


def test_there_are_many_scenarios():
    assert len(VALID) >= 60 and len(INVALID) >= 5 and len(FAILING) >= 2


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_scenario_holds(path):
    failures = run_scenario(path)
    assert failures == [], "\n".join(str(f) for f in failures)


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_scenario_refused(path):
    with pytest.raises(ScenarioError):
        run_scenario(path)
    result = CliRunner().invoke(app, ["scenario", "run", str(path)])
    assert result.exit_code == 2


@pytest.mark.parametrize("path", FAILING, ids=[p.stem for p in FAILING])
def test_failing_scenario_reports_expected_and_actual(path):
    assert run_scenario(path), "a deliberately wrong expectation must fail"
    result = CliRunner().invoke(app, ["scenario", "run", str(path)])
    assert result.exit_code == 1
    assert "expected" in result.output and "actual" in result.output


def test_cli_runs_all_valid_scenarios():
    result = CliRunner().invoke(app, ["scenario", "run", "-q", *map(str, VALID)])
    assert result.exit_code == 0, result.output
    assert f"{len(VALID)} passed, 0 failed" in result.output
