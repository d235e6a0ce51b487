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


def test_scenario_nested_too_deeply_is_refused_naming_the_file(tmp_path):
    """A scenario (or hint position) file, or the rules file it names, nesting arrays too
    deeply for tomllib (RecursionError): exit 2 naming the file and the line."""
    deep = "[" * 5000 + "]" * 5000
    seats = '[[seats]]\nhand = ["3"]\n[[seats]]\nhand = ["4"]\n'
    (tmp_path / "deep_rules.toml").write_text(f'preset = "shithead"\nlow = {deep}\n')
    for name, text, needle in (
        ("pile.toml", f'rules = "shithead"\npile = {deep}\n{seats}', "file: "),
        ("expect.toml", f'rules = "shithead"\n{seats}[expect]\nlegal = {deep}\n', "file: "),
        ("rules.toml", f'rules = "deep_rules.toml"\n{seats}', "rules: rules-file: "),
    ):
        line = "line 7" if name == "expect.toml" else "line 2"
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(ScenarioError) as ei:
            run_scenario(p)
        assert (
            needle in str(ei.value)
            and "nested too deeply" in str(ei.value)
            and line in str(ei.value)
        )
        for command in (
            ["scenario", "run", str(p)],
            ["scenario", "show", str(p)],
            ["hint", str(p)],
        ):
            result = CliRunner().invoke(app, command)
            assert result.exit_code == 2 and "nested too deeply" in result.output, (
                command,
                result.output,
            )
            assert not isinstance(result.exception, RecursionError)


def test_a_description_that_is_not_text_is_refused(tmp_path):
    """``description`` is text; any other value (a list, a number, a deep array) was
    silently dropped, now it is refused naming the field."""
    p = tmp_path / "desc.toml"
    p.write_text(
        'rules = "shithead"\ndescription = ["a", "b"]\n[[seats]]\nhand = '
        '["3"]\n[[seats]]\nhand = ["4"]\n'
    )
    with pytest.raises(ScenarioError) as ei:
        run_scenario(p)
    assert ei.value.field == "description"
    assert CliRunner().invoke(app, ["scenario", "run", str(p)]).exit_code == 2


def test_a_missing_rules_key_and_a_file_key_under_a_seat_are_named_plainly(tmp_path):
    seats = '[[seats]]\nhand = ["8", "9"]\n[[seats]]\nhand = ["K"]\n'
    none = tmp_path / "none.toml"
    none.write_text('to_move = 0\npile = ["7"]\n' + seats)
    late = tmp_path / "late.toml"
    late.write_text('rules = "shithead"\n[[seats]]\nhand = ["8"]\npile = ["7"]\n[[seats]]\n')
    one = tmp_path / "one.toml"
    one.write_text('rules = "shithead"\n[[seats]]\nhand = ["8"]\n')
    for path, needle in (
        (none, 'rules: missing: name a preset or a rules TOML file (rules = "shithead")'),
        (late, "seats.0.pile: unknown key; known: face_down, face_up, hand, known, out (pile "
         "is a key of the whole file"),
        (one, "seats: 1 seat, but "),
    ):  # fmt: skip
        with pytest.raises(ScenarioError) as e:
            run_scenario(path)
        assert needle in str(e.value)
        r = CliRunner().invoke(app, ["hint", str(path)])
        assert r.exit_code == 2 and needle in r.output, r.output
