"""Atomic file writes: every file shedsim writes (reports, charts, run store) goes to a
temporary file in the same directory, is flushed and fsync'ed, then :func:`os.replace`'d
into place, so a reader (or a run killed at any moment, or a full disk) never leaves a
half-written file under the final name: the target is either the old file, the new one,
or absent. A failure removes the temporary file and raises :class:`WriteError`, which
names the target file.

Ownership: shedsim never replaces a file it did not write. :func:`replace_problem` checks a
file named on its own by the user (a report page, its summary, a screenshot) for shedsim's
mark (:func:`written_by_shedsim`); a run directory's files are shedsim's when the directory
holds a run (:meth:`shedsim.runs.store.RunStore.check_out`, which uses the same marks for a
file it would replace in a directory that holds none).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from pathlib import Path
from typing import Any
from collections.abc import Callable

TMP_GLOB = ".*.tmp"
"""How the temporary files are named (``.NAME.XXXX.tmp``); :func:`remove_stale` cleans them."""


class WriteError(OSError):
    """Writing a file failed (disk full, I/O error, no permission). ``filename`` is the
    target file; ``str()`` reads ``cannot write PATH: REASON``."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


def _write(f, data: bytes, path: Path) -> None:
    """Write ``data`` (all of it) to the open temporary file ``f`` for ``path``. Every
    byte shedsim writes to disk passes here (the disk-full tests replace it)."""
    f.write(data)


def _fsync_dir(d: Path) -> None:
    """Make the rename itself durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_BATCHES: list[list[tuple[str, Path]]] = []


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _default_mode()
"""Permissions of written files: what ``open()`` would give (0666 less the umask)."""


def write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file, fsync, :func:`os.replace`).
    Inside :func:`batch`, the replace waits for the end of the batch."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise WriteError(e.errno, e.strerror or str(e), str(path)) from None
    try:
        os.fchmod(fd, _MODE)  # mkstemp makes 0600 files; outputs are meant to be shared
        with os.fdopen(fd, "wb") as f:
            _write(f, data, path)
            f.flush()
            os.fsync(f.fileno())
        if _BATCHES:
            _BATCHES[-1].append((tmp, path))
            return
        os.replace(tmp, path)
    except BaseException as e:
        _unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, WriteError):
            raise WriteError(e.errno, e.strerror or str(e), str(path)) from None
        raise
    _fsync_dir(path.parent)


@contextlib.contextmanager
def batch():
    """Write a set of files all or nothing: inside, each write goes to its temporary file
    only; on leaving normally every file is :func:`os.replace`'d into place; on an error
    (a full disk while writing the fifth report) every temporary file is removed and no
    target file changes."""
    pending: list[tuple[str, Path]] = []
    _BATCHES.append(pending)
    try:
        yield
    except BaseException:
        _BATCHES.pop()
        for tmp, _ in pending:
            _unlink(tmp)
        raise
    _BATCHES.pop()
    dirs = set()
    for k, (tmp, path) in enumerate(pending):
        try:
            os.replace(tmp, path)
        except OSError as e:
            for t, _ in pending[k:]:
                _unlink(t)
            raise WriteError(e.errno, e.strerror or str(e), str(path)) from None
        dirs.add(path.parent)
    for d in dirs:
        _fsync_dir(d)


def write_text(path: Path | str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes(path, text.encode())


def write_with(path: Path | str, writer: Callable[[Any], None]) -> None:
    """Call ``writer(fileobj)`` on an in-memory buffer, then write the bytes to ``path``
    atomically (for writers such as ``numpy.savez``, ``savefig``, ``pyarrow.parquet``)."""
    buf = io.BytesIO()
    writer(buf)
    write_bytes(path, buf.getvalue())


# ------------------------------------------------------------------ ownership
# shedsim never replaces a file it did not write. A run directory is shedsim's when it holds
# a run (:meth:`shedsim.runs.store.RunStore.holds_run`: its spec.json or run.json); a file
# named by the user on its own (the report's --out and --md, a screenshot) is shedsim's when
# it carries one of these marks near its start.
MARK_HTML = '<meta name="generator" content="shedsim report">'
"""The mark of a report page (in its ``<head>``)."""
MARK_MD = "<!-- generator: shedsim report -->"
"""The mark of a report's Markdown summary (its first line; Markdown viewers hide it)."""
PNG_SOFTWARE = "shedsim"
"""The ``Software`` text of every PNG shedsim writes (charts, screenshots): no version, so the
same input gives the same bytes."""

_MARKS = (
    re.compile(re.escape(MARK_HTML.encode())),
    re.compile(re.escape(MARK_MD.encode())),
    # the whole tEXt chunk: its length, type, keyword and text (so "shedsim-fork" is no mark)
    re.compile(
        re.escape(
            len(b"Software\x00" + PNG_SOFTWARE.encode()).to_bytes(4, "big")
            + b"tEXtSoftware\x00"
            + PNG_SOFTWARE.encode()
        )
    ),
    # reports written before the marks: the page's header line, the summary's third line
    re.compile(rb"generated by shedsim [^<]{0,40} \(<code>shedsim report</code>\)</p></header>"),
    re.compile(
        rb"\A# [^\n]*\n\n\d+ run\(s\); generated by `shedsim report` \(shedsim [^)\n]{0,40}\)\.\n"
    ),
)
_MARK_BYTES = 1 << 16


def written_by_shedsim(path: Path | str) -> bool:
    """Whether the file at ``path`` carries one of shedsim's marks in its first 64 KiB: a
    report page (:data:`MARK_HTML`), a Markdown summary (:data:`MARK_MD`), a PNG whose
    ``Software`` text is :data:`PNG_SOFTWARE`, or a report from before the marks. False
    for a file that cannot be read."""
    try:
        with open(path, "rb") as f:
            head = f.read(_MARK_BYTES)
    except OSError:
        return False
    return any(m.search(head) for m in _MARKS)


def replace_problem(
    path: Path | str, option: str, default_of: str | None = None, also: str | None = None
) -> str | None:
    """Why ``option``'s file ``path`` must not be written, or None when it may be: it does not
    exist yet, or shedsim wrote it (:func:`written_by_shedsim`), so writing replaces an earlier
    output. Refused: an existing file without a mark (the user's own), and anything that is not
    a plain file (a directory, a device). ``default_of``: the option the path was derived from,
    named in the message (``--md`` defaults to ``--out`` with the suffix .md); ``also``: one more
    way out, named in the message (``--no-md``)."""
    p = Path(path)
    if not os.path.lexists(p):
        return None
    named = f"{option}: {str(p)!r}" + (f" (the default, from {default_of})" if default_of else "")
    if p.is_dir():
        return f"{named} is a directory; give a file name"
    if not p.is_file():
        return f"{named} exists and is not a plain file; give another file name"
    if written_by_shedsim(p):
        return None
    return (
        f"{named} already exists and was not written by shedsim; shedsim never replaces a file "
        "it did "
        f"not write: give {option} another file name{', ' + also if also else ''}, or move "
        "that file away"
    )


def mark_png(data: bytes) -> bytes:
    """The PNG ``data`` with its ``Software`` text set to :data:`PNG_SOFTWARE` (re-saved
    losslessly with Pillow, matplotlib's own dependency; the pixels are unchanged)."""
    from PIL import Image, PngImagePlugin

    img = Image.open(io.BytesIO(data))
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", PNG_SOFTWARE)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True, pnginfo=info)
    return out.getvalue()


def remove_stale(d: Path | str) -> None:
    """Remove temporary files left in ``d`` by a process that was killed mid-write."""
    d = Path(d)
    if d.is_dir():
        for f in d.glob(TMP_GLOB):
            try:
                f.unlink()
            except OSError:
                pass
