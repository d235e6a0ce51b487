"""The command modules are thin and alike: every command that plays games takes the same
execution options (declared once, :mod:`shedsim.cli.options`), and no function of
:mod:`shedsim.cli` has a body longer than :data:`MAX_BODY` lines (options -> one call -> print;
the work lives below the command line)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import typer.main

from shedsim.cli import app

ROOT = Path(__file__).resolve().parent.parent
MAX_BODY = 60
"""The most lines of a function body in ``shedsim/cli/`` (signature and docstring aside)."""

EXECUTION = {"--out", "--resume", "--force", "--workers", "--backend", "--scheduler", "--quiet"}
"""The execution options of every command that plays games into a directory."""
PLAYS = {
    "tournament": True,
    "compare-rules": True,
    "swaps": True,
    "sprt": True,
    "gauntlet": True,
    "tips": True,
    "tune": True,
}
"""Command -> whether it writes charts (then it takes --no-plots)."""


def options_of(command: str) -> set[str]:
    click = typer.main.get_command(app).commands[command]
    return {o for p in click.params for o in getattr(p, "opts", []) if o.startswith("--")}


@pytest.mark.parametrize("command", list(PLAYS))
def test_every_command_that_plays_games_takes_the_execution_options(command):
    want = EXECUTION | ({"--no-plots"} if PLAYS[command] else set())
    assert want - options_of(command) == set()


def test_bench_takes_the_execution_options_that_mean_something_there():
    """bench writes nothing and cannot resume: it takes the workers, the backend, the scheduler."""
    assert {"--workers", "--backend", "--scheduler"} <= options_of("bench")


def body_lengths(root: Path = ROOT / "shedsim" / "cli") -> dict[str, int]:
    """``file:function`` -> the lines of its body, its docstring aside (:mod:`ast`)."""
    out = {}
    for f in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = node.body
            if (
                isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body = body[1:]
            if body:
                out[f"{f.relative_to(root.parent.parent)}:{node.name}"] = (
                    body[-1].end_lineno - body[0].lineno + 1
                )
    return out


def test_no_command_function_is_longer_than_the_limit():
    long = {k: n for k, n in body_lengths().items() if n > MAX_BODY}
    assert long == {}


def test_the_length_check_finds_a_long_function(tmp_path):
    (tmp_path / "shedsim" / "cli").mkdir(parents=True)
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_BODY + 1))
    (tmp_path / "shedsim" / "cli" / "c.py").write_text(
        f'def f():\n    """Doc."""\n{body}\n\n\ndef g():\n    pass\n'
    )
    assert body_lengths(tmp_path / "shedsim" / "cli") == {
        "shedsim/cli/c.py:f": MAX_BODY + 1,
        "shedsim/cli/c.py:g": 1,
    }


def test_tips_refuses_resume_naming_it_and_tune_resume_continues_its_study(tmp_path):
    """tips keeps no run store: --resume is refused (exit 2, the option named, nothing
    written); tune --resume DIR continues the study kept in DIR."""
    import pandas as pd
    from typer.testing import CliRunner

    runner = CliRunner()
    r = runner.invoke(app, ["tips", "--resume", str(tmp_path / "t"), "--games", "10"])
    assert r.exit_code == 2 and "--resume: shedsim tips keeps no run store" in r.output, r.output
    assert not (tmp_path / "t").exists()
    d = tmp_path / "tune"
    opts = ["--games", "100", "--confirm-games", "100", "--param", "track=0:50", "--quiet"]
    assert runner.invoke(app, ["tune", "--out", str(d), "--budget", "1", *opts]).exit_code == 0
    r = runner.invoke(app, ["tune", "--resume", str(d), "--budget", "2", *opts])
    assert r.exit_code == 0, r.output
    assert len(pd.read_csv(d / "trials.csv")) == 2
    other = ["--games", "100", "--confirm-games", "100", "--param", "track=0:40", "--quiet"]
    r = runner.invoke(app, ["tune", "--resume", str(d), "--budget", "2", *other])
    assert r.exit_code == 2 and "--param (track=0:40 vs stored track=0:50)" in r.output, r.output


def _leaf_commands(cmd, path=()):
    """(the words that name it, the click command) of every command under ``cmd``."""
    if hasattr(cmd, "list_commands"):  # a group (typer's own click: no click.Group)
        ctx = cmd.context_class(cmd)
        for name in cmd.list_commands(ctx):
            yield from _leaf_commands(cmd.get_command(ctx, name), (*path, name))
    else:
        yield path, cmd


def test_no_help_lists_an_option_its_command_refuses_outright(tmp_path):
    """Every option a command's --help lists is one it can take: --resume, which a command
    that keeps no run store refuses whatever else is given, is listed only by commands
    that resume (a missing directory is then refused as such, not the option)."""
    from typer.testing import CliRunner

    runner = CliRunner()
    seen = []
    for path, cmd in _leaf_commands(typer.main.get_command(app)):
        listed = {o for p in cmd.params if not getattr(p, "hidden", False) for o in p.opts}
        if "--resume" not in listed:
            continue
        seen.append(path)
        r = runner.invoke(app, [*path, "--resume", str(tmp_path / "none")])
        assert r.exit_code != 0 and "keeps no run store" not in r.output, (path, r.output)
        assert not (tmp_path / "none").exists()
    assert ("tournament",) in seen and ("tune",) in seen and ("tips",) not in seen
