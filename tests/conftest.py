import sys
from pathlib import Path

# tests/differential.py is shared by the tests and `make differential`.
sys.path.insert(0, str(Path(__file__).parent))


import pytest  # noqa: E402


@pytest.fixture
def plain_python_plugins(tmp_path):
    """A plugin directory holding ``pyplayer``, a plain-Python strategy (reference engine
    only), which every command that runs on the compiled kernel must refuse."""
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "pyplayer.py").write_text(
        'NAME = "pyplayer"\nDESCRIPTION = "first legal move"\nDETERMINISTIC = True\n'
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return 0\n")
    return d
