import sys
from pathlib import Path

# tests/differential.py is shared by the tests and `make differential`.
sys.path.insert(0, str(Path(__file__).parent))


import functools  # noqa: E402

import pytest  # noqa: E402
import typer.testing  # noqa: E402

# typer's CliRunner builds the app's click command tree again on every invoke (reading every
# command's signature and annotations), hundreds of times in the suite; shedsim builds it once
# per process, and so does a test worker now: one tree per app, reused (click's commands keep
# no state between invocations but their help text, filled in the same each time).
typer.testing._get_command = functools.cache(typer.testing._get_command)


@pytest.fixture
def plain_python_plugins(tmp_path):
    """A plugin directory holding ``pyplayer``, a plain-Python strategy (reference engine
    only), which every command that runs on the compiled kernel must refuse."""
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "pyplayer.py").write_text(
        'NAME = "pyplayer"\nDESCRIPTION = "first legal move"\nDETERMINISTIC = True\n'
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return 0\n"
    )
    return d


@pytest.fixture(scope="session")
def hostile_plugins():
    """The directory of ``tests/hostile_plugins.py``'s plugins, at a fixed place in the
    kernel cache (one compiled kernel for every test that plays them)."""
    import hostile_plugins as H
    from filelock import FileLock

    from shedsim.kernel.build import cache_dir
    from shedsim.rules.ruleset import preset
    from shedsim.runs.simulate import RunSpec, play_chunk

    (cache_dir() / "tests").mkdir(exist_ok=True)
    with FileLock(
        str(cache_dir() / "tests" / "hostile_plugins.lock")
    ):  # one pytest worker compiles it
        d = H.write(cache_dir())
        play_chunk(
            RunSpec(
                preset("shithead"),
                2,
                ("honest", "greedy"),
                ("honest", "greedy"),
                games=1,
                strategy_paths=(str(d),),
            ),
            0,
            1,
        )
    return d


@pytest.fixture(scope="session")
def every_run(tmp_path_factory):
    """A directory holding one tiny real run of every command the report reads (see
    ``tests/every_command.py``) and ``charts.json``, built once for the whole session: the
    pytest-xdist workers share it (the first builds it under a file lock)."""
    import os

    from filelock import FileLock

    import every_command

    base = tmp_path_factory.getbasetemp()
    # this session's directory: under pytest-xdist, the workers' base directories' parent
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / "every_command_runs"
    with FileLock(str(shared / "every_command_runs.lock")):
        if not (root / "charts.json").is_file():
            root.mkdir(exist_ok=True)
            every_command.build(root)
    return root


@pytest.fixture
def sigint_when_called(monkeypatch):
    """``sigint_when_called(owner, name)``: replace ``owner.name`` (a function or method) by one
    that sends SIGINT to this process, then calls the original: a Ctrl-C that lands exactly
    there (the handler a command installed runs at once, in the main thread)."""
    import os
    import signal

    def patch(owner, name):
        real = getattr(owner, name)

        def interrupted(*a, **k):
            os.kill(os.getpid(), signal.SIGINT)
            return real(*a, **k)

        monkeypatch.setattr(owner, name, interrupted)
        return real

    return patch
