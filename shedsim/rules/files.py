"""Reading the TOML files shedsim takes: rules files, scenario files (and the positions of
``hint`` and ``play``, which are scenario files).

:func:`read_toml` turns every way a file can be unreadable into :class:`FileProblem`,
whose text the loaders put after the file's name: a file that cannot be read, is not
UTF-8, is not TOML, or nests arrays or inline tables deeper than :mod:`tomllib` can
follow (it recurses once per level and gives up with :class:`RecursionError` a few
hundred levels down, how many depends on the stack already in use).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


class FileProblem(ValueError):
    """A TOML file that cannot be read; the text says why (without the file's name)."""


def read_toml(path: str | Path) -> dict[str, Any]:
    """The parsed TOML file at ``path``. Raises :class:`FileProblem`."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise FileProblem(f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise FileProblem(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    return parse_toml(text)


def parse_toml(text: str) -> dict[str, Any]:
    """:func:`tomllib.loads` of ``text``, raising :class:`FileProblem` for text that is not
    TOML and for nesting too deep to parse (naming the first line at which it is)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FileProblem(f"not valid TOML: {e}") from None
    except RecursionError:
        pass
    line = _first_line_too_deep(text)
    raise FileProblem(f"arrays or inline tables nested too deeply to read (line {line})")


def _first_line_too_deep(text: str) -> int:
    """The 1-based line at which parsing ``text`` runs out of recursion: the fewest leading
    lines whose parsing raises :class:`RecursionError` (the parser reads in order, so
    every longer prefix raises it too). Binary search over the lines."""
    lines = text.splitlines(keepends=True)
    lo, hi = 1, len(lines)
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            tomllib.loads("".join(lines[:mid]))
            deep = False
        except RecursionError:
            deep = True
        except tomllib.TOMLDecodeError:
            deep = False
        if deep:
            hi = mid
        else:
            lo = mid + 1
    return lo
