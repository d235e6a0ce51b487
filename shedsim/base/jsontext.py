"""Parsing JSON that comes from outside shedsim: the files a user names (game records, a
run directory's run.json and spec.json) and the answers of bots.

:func:`loads` turns every way such text can fail to parse into :class:`JSONProblem`,
whose text the callers put after the name of the file (or the bot): text that is not
JSON, bytes that are not UTF-8, a number :mod:`json` refuses to convert (an integer of
more digits than Python converts), and arrays or objects nested deeper than :mod:`json`
can follow. Its decoder recurses once per level of nesting and gives up with
:class:`RecursionError`, which is not a :class:`ValueError` (how many levels it takes
depends on the stack already in use), so ``except ValueError`` alone lets such a file
through as a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TOO_DEEP = "arrays or objects nested too deeply to read"
""":attr:`JSONProblem.reason` for nesting deeper than :mod:`json` can follow."""


class JSONProblem(ValueError):
    """JSON text that cannot be parsed. ``reason`` says why in a few words (the
    decoder's message, or :data:`TOO_DEEP`); the text is ``not valid JSON (reason)``,
    without the name of the file."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"not valid JSON ({reason})")
        self.reason = reason


def loads(text: str | bytes | bytearray) -> Any:
    """:func:`json.loads` of ``text`` (a str, or bytes in UTF-8, -16 or -32, as
    :func:`json.loads` detects them): the parsed value, of any JSON type. Raises
    :class:`JSONProblem`, never :class:`RecursionError`."""
    try:
        return json.loads(text)
    except UnicodeDecodeError as e:
        raise JSONProblem(f"not UTF-8 text: {e.reason} at byte {e.start}") from None
    except json.JSONDecodeError as e:
        raise JSONProblem(str(e)) from None
    except ValueError as e:  # an integer past Python's limit on the digits it converts
        raise JSONProblem(str(e)) from None
    except RecursionError:
        raise JSONProblem(TOO_DEEP) from None


def load_file(path: str | Path) -> Any:
    """The parsed JSON file at ``path`` (UTF-8, as shedsim writes its files): the value,
    of any JSON type (the caller checks it). Raises :class:`OSError` for a file that
    cannot be read (:class:`FileNotFoundError` for a missing one) and :class:`JSONProblem`
    for one that is not UTF-8 or not JSON :func:`loads` can read."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JSONProblem(f"not UTF-8 text: {e.reason} at byte {e.start}") from None
    return loads(text)
