"""Python warnings told as one plain sentence.

Libraries warn through Python's :mod:`warnings` (numpy on an empty mean, matplotlib on an
empty chart, joblib when its temporary folder cannot be used, numba on a slow path); by
default the user sees the file, line and source of the warning call, which says nothing
to someone running a simulation. :func:`plain_warnings` replaces that display, in the
main process and in every worker, with ``note: <sentence> (from <library>)`` on stderr,
each distinct message once. The known cases are said in the project's words.
"""

from __future__ import annotations

import sys
import warnings

_KNOWN = (
    # (text in the library's message, what the user is told)
    (
        "leaked folder",
        "a worker pool was stopped before it could remove its temporary folders; "
        "they are removed at the next start or can be deleted from the temporary directory",
    ),
    (
        "leaked semaphore",
        "a worker pool was stopped before it could release its locks; nothing else is affected",
    ),
    (
        "No space left on device",
        "the disk holding the temporary folder is full, so workers pass data "
        "through memory instead; free some space if the run slows down",
    ),
    ("Mean of empty slice", "a statistic was asked of no games, so it is left empty"),
    (
        "invalid value encountered",
        "a statistic divided by zero (no games of that kind), so it is left empty",
    ),
    ("No artists with labels", "a chart has nothing to label (no games in it)"),
    ("Attempting to set identical", "a chart has a single value, so its axis is widened around it"),
)

_SEEN: set[str] = set()


def sentence(message: str, category: type[Warning], module: str | None = None) -> str:
    """The line shown for a warning: the project's words for a known case, else the
    library's message as a sentence, naming the library (``module``'s top package)."""
    text = " ".join(str(message).split())
    said = next((words for key, words in _KNOWN if key.lower() in text.lower()), None)
    if said is None:
        said = text[:1].upper() + text[1:] if text else category.__name__
    if not said.endswith((".", "!", "?")):
        said += "."
    origin = (module or "").split(".")[0]
    return f"note: {said}" + (f" (from {origin})" if origin and origin != "shedsim" else "")


def _show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ARG001
    module = next(
        (name for name, m in list(sys.modules.items()) if getattr(m, "__file__", None) == filename),
        None,
    )
    if module is None:
        parts = str(filename).replace("\\", "/").split("/site-packages/")
        module = parts[1].split("/")[0] if len(parts) > 1 else None
    text = sentence(str(message), category, module)
    if text in _SEEN:
        return
    _SEEN.add(text)
    out = file if file is not None else sys.stderr
    try:
        out.write(text + "\n")
    except (OSError, ValueError):  # stderr closed or full: nothing to tell it with
        pass


def plain_warnings() -> None:
    """Show every Python warning of this process as one plain sentence (see the module
    docstring). Idempotent."""
    warnings.showwarning = _show
