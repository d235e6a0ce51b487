"""Atomic file writes: every file shedsim writes (reports, charts, run store) goes to a
temporary file in the same directory, is flushed and fsync'ed, then :func:`os.replace`'d
into place, so a reader (or a run killed at any moment, or a full disk) never leaves a
half-written file under the final name: the target is either the old file, the new one,
or absent. A failure removes the temporary file and raises :class:`WriteError`, which
names the target file.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

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


def remove_stale(d: Path | str) -> None:
    """Remove temporary files left in ``d`` by a process that was killed mid-write."""
    d = Path(d)
    if d.is_dir():
        for f in d.glob(TMP_GLOB):
            try:
                f.unlink()
            except OSError:
                pass
