"""JSON nested deeper than :mod:`json` can follow (it gives up with RecursionError, which
is not a ValueError) in anything shedsim reads from a user: each reader refuses it as it
refuses any JSON it cannot read, naming the file (a bot's answer forfeits its game),
never with a RecursionError. The commands' exit codes are checked in test_game_records,
test_ratings, test_bot_host and test_hostile_runs."""

from __future__ import annotations

import pytest

from shedsim.analysis import ratings as RT
from shedsim.analysis import records
from shedsim.base import jsontext
from shedsim.bot import protocol as P
from shedsim.runs.store import RunStore, StoreError

DEEP = "[" * 5000 + "]" * 5000


def test_the_helper_turns_deep_nesting_and_bad_text_into_json_problem(tmp_path):
    f = tmp_path / "x.json"
    cases = [
        (DEEP.encode(), jsontext.TOO_DEEP),
        (b'{"a": ' + DEEP.encode() + b"}", jsontext.TOO_DEEP),
        (b"{not json", "Expecting property name"),
        (b"1" * 5000, "integer string conversion"),
    ]
    for text, reason in [*cases, (b'{"a": "\xff"}', "not UTF-8 text")]:
        f.write_bytes(text)
        reads = [(jsontext.load_file, f)]
        if reason != "not UTF-8 text":  # json.loads tells a str from bytes' encodings itself
            reads += [(jsontext.loads, text), (jsontext.loads, text.decode())]
        for read, arg in reads:
            with pytest.raises(jsontext.JSONProblem) as ei:
                read(arg)
            assert reason in ei.value.reason and str(ei.value).startswith("not valid JSON (")
    f.write_bytes(b'{"a": [1, 2.5, null]}')
    assert jsontext.loads(f.read_bytes()) == jsontext.load_file(f) == {"a": [1, 2.5, None]}


def _record(tmp_path):
    p = tmp_path / "game.jsonl"
    p.write_text('{"record": "shedsim-game", "x": ' + DEEP + "}\n")
    return (
        lambda: records.read(p),
        records.RecordError,
        f"{p} line 1: not JSON ({jsontext.TOO_DEEP})",
    )


def _ratings_run(tmp_path):
    (tmp_path / "run.json").write_text('{"command": "shedsim tournament", "spec": ' + DEEP + "}")
    (tmp_path / "head_to_head.csv").write_text("a,b\n")
    return (
        lambda: RT._read_run(tmp_path),
        RT.RatingsError,
        f"{str(tmp_path / 'run.json')!r} is not valid JSON ({jsontext.TOO_DEEP})",
    )


def _store_without_spec(tmp_path):
    # no spec.json: the message tells what the directory holds, from its run.json
    (tmp_path / "run.json").write_text('{"command": "shedsim tournament", "x": ' + DEEP + "}")
    return lambda: RunStore(tmp_path).read_spec(), StoreError, "holds no spec.json"


@pytest.mark.parametrize("make", [_record, _ratings_run, _store_without_spec])
def test_a_file_nested_too_deeply_is_refused_naming_it(tmp_path, make):
    read, error, named = make(tmp_path)
    with pytest.raises(error) as ei:
        read()
    assert named in str(ei.value)


def test_a_bot_answer_nested_too_deeply_is_an_invalid_answer():
    for line in (DEEP, '{"type": "move", "move": ' + DEEP + "}"):
        with pytest.raises(P.Fault) as ei:
            P.read_answer(line.encode() + b"\n", "move")
        assert ei.value.kind == "invalid" and jsontext.TOO_DEEP in str(ei.value)


def test_resume_of_a_directory_whose_run_json_is_nested_too_deeply(tmp_path):
    """No spec.json, and a run.json json cannot read: not a run to resume (exit 2)."""
    from typer.testing import CliRunner

    from shedsim.cli import app

    (tmp_path / "run.json").write_text('{"command": "shedsim tournament", "x": ' + DEEP + "}")
    for command, said in (("tournament", "holds no spec.json"), ("tune", "holds no tune study")):
        r = CliRunner().invoke(app, [command, "--resume", str(tmp_path), "--quiet"])
        assert r.exit_code == 2 and said in r.output, (command, r.output)
        assert not isinstance(r.exception, RecursionError), command
