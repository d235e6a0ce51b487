"""The run store: one directory per run of any command that plays games.

Layout (every file written atomically, :mod:`shedsim.runs.atomic`)::

    DIR/spec.json          what the run plays (the command's spec; "command", except a
                           tournament's), whether its reports draw charts ("plots") and a
                           sha256 "checksum" of its canonical JSON: an edited spec.json is
                           refused on --resume
    DIR/chunks/NNNNN.npz   one finished chunk: the command's counters (int arrays) plus
                           "_key" (the spec's key) and "_chunk" (its number)
    DIR/.shedsim.lock      the lock (filelock: an flock(2) lock, released by the kernel when
                           the process dies, so a killed run never blocks the next one)
    DIR/.shedsim.pid       the pid of the run holding the lock (only read to name it)

plus the command's reports (CSVs, charts, run.json), replaced as a whole at the end.

Safety of ``--out`` (:meth:`RunStore.check_out`): a run writes only into a missing or
empty directory or one that already holds a shedsim run store; any other directory is
refused unless ``--force``, and even then the run refuses to start when a file it would
write already exists there without shedsim's mark, so no file it did not create is touched
(the same rule as for a single output file: :func:`shedsim.runs.atomic.replace_problem`). ``/`` and
the home
directory are refused outright.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from shedsim.base import atomic, jsontext

SPEC = "spec.json"
CHUNKS = "chunks"
LOCK = ".shedsim.lock"
PID = ".shedsim.pid"
CHECKSUM = "checksum"
STORE_FILES = (SPEC, CHUNKS, LOCK, PID)
"""What every run store holds (besides the command's reports)."""


def unreadable(e: Exception) -> str:
    """Why a chunk file could not be read, in words (not numpy's own advice, which for a
    file that is no archive suggests loading it with pickles allowed)."""
    import zipfile

    if isinstance(e, OSError) and not isinstance(e, zipfile.BadZipFile):
        return f"it cannot be read: {e.strerror or e}"
    if isinstance(e, EOFError):
        return "it is cut short"
    if isinstance(e, (zipfile.BadZipFile, ValueError)):
        return "it is not a NumPy .npz archive"
    return f"{type(e).__name__}"


class StoreError(ValueError):
    """A run directory that cannot be used (busy, foreign, damaged, edited, unwritable).
    The message names the option (``--out``/``--resume``), the path and the fix; the
    command line turns it into exit code 2."""


def canonical(d: dict[str, Any]) -> bytes:
    """The canonical JSON bytes of ``d`` (sorted keys, no spaces), without its checksum."""
    return json.dumps(
        {k: v for k, v in d.items() if k != CHECKSUM}, sort_keys=True, separators=(",", ":")
    ).encode()


def spec_checksum(d: dict[str, Any]) -> str:
    """sha256 (hex) of :func:`canonical` ``(d)``: what ``spec.json``'s ``checksum`` holds."""
    return hashlib.sha256(canonical(d)).hexdigest()


MAX_CHUNKS = 200_000
"""The most chunks one run may hold: its plan (one entry per chunk) and its run store (one
file per chunk) stay small. 200,000 chunks of the default 20,000 games are 4 billion games."""


def plan_size_problem(n_chunks: int, games: int, chunk_games: int) -> str | None:
    """Why a plan of ``n_chunks`` chunks of ``chunk_games`` games (``games`` in all) is too
    big for one run, or None when it is not (at most :data:`MAX_CHUNKS` chunks). Checked
    before the plan is built, so a mistyped ``--games 1000000000000`` is refused at once
    instead of filling the memory."""
    if n_chunks <= MAX_CHUNKS:
        return None
    return (
        f"--games: {games:,} games would take {n_chunks:,} chunks of {chunk_games:,} games; "
        "one run holds "
        f"at most {MAX_CHUNKS:,} chunks ({MAX_CHUNKS * chunk_games:,} games at this chunk size). "
        f"Play fewer games, raise --chunk-size where the command has it, or split the study into "
        f"runs with different --seed values"
    )


def room_problem(root: Path | str, n_chunks: int, chunk_bytes: int) -> str | None:
    """Whether the file system under ``root`` can hold ``n_chunks`` chunk files of about
    ``chunk_bytes`` bytes each (plus 10% and 1 MB to spare): None, or a sentence with the
    estimate and the free space (:func:`shutil.disk_usage`)."""
    import shutil

    need = int(n_chunks * chunk_bytes * 1.1) + (1 << 20)
    probe = Path(root)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = shutil.disk_usage(probe).free
    except OSError:
        return None
    if need <= free:
        return None
    return (
        f"the run store would need about {_size(need)} for {n_chunks:,} chunk files, but only "
        f"{_size(free)} is free under {str(probe)!r}: free some space, choose another --out or "
        "play fewer games"
    )


def _size(n: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n}"


RUN_COMMANDS = ("tournament", "compare-rules", "swaps", "sprt", "gauntlet")
"""The commands that keep a run store (and resume with ``shedsim COMMAND --resume DIR``)."""


def spec_command(d: dict[str, Any]) -> str | None:
    """The command whose run store holds the spec.json content ``d``: its ``command`` field
    (a tournament's spec.json has none: "tournament"); None when it names no command of
    :data:`RUN_COMMANDS`."""
    c = d.get("command", "tournament")
    return c if c in RUN_COMMANDS else None


def with_article(name: str) -> str:
    """``name`` with its article as it is read aloud ("an sprt run", "a swaps run")."""
    return f"an {name}" if name == "sprt" else f"a {name}"


def _read_pid(root: Path) -> str:
    try:
        pid = (root / PID).read_text().strip()
    except OSError:
        return "unknown"
    return pid if pid.isdigit() else "unknown"


def array_problem(
    arrays: dict[str, np.ndarray], template: dict[str, np.ndarray], ragged: Iterable[str] = ()
) -> str | None:
    """How ``arrays`` differ from ``template`` (a command's zeroed chunk arrays), or None:
    every array of ``template`` must be there with its dtype and shape, except that a name
    in ``ragged`` need only be 1-D of the same kind of dtype (its length, and a text
    column's width, vary from chunk to chunk). The check :meth:`RunStore.check_chunk` makes
    on ``--resume``, and :func:`shedsim.runs.execute.play` before it stores a chunk."""
    ragged = set(ragged)
    for k, v in template.items():
        if k not in arrays:
            return f"missing {k}"
        a = arrays[k]
        if (
            (a.dtype.kind != v.dtype.kind or a.ndim != 1)
            if k in ragged
            else (a.dtype != v.dtype or a.shape != v.shape)
        ):
            return f"{k}: {a.dtype}{list(a.shape)}, expected {v.dtype}{list(v.shape)}"
    return None


class RunStore:
    """A run's directory (see the module docstring). ``Error`` is the exception raised
    (a command may give a subclass of :class:`StoreError`); ``what`` names the kind of run
    in messages ("tournament", "compare-rules run")."""

    Error: type[Exception] = StoreError
    what = "run"

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.chunks = self.root / CHUNKS

    # ------------------------------------------------------------ --out safety
    @classmethod
    def check_writable(cls, root: Path | str, create: bool = True, option: str = "--out") -> None:
        """Prove a file can be written in ``root`` (creating it first when ``create``);
        raises :attr:`Error` naming ``option``, the directory and the reason (a read-only
        directory is caught by :func:`os.access` before anything is written)."""
        root = Path(root)
        try:
            if root.exists() and not root.is_dir():
                raise cls.Error(f"{option}: {str(root)!r} exists and is not a directory")
            if create:
                root.mkdir(parents=True, exist_ok=True)
            elif not root.is_dir():
                raise cls.Error(f"{option}: {str(root)!r} is not a directory")
            if not os.access(root, os.W_OK | os.X_OK):
                raise cls.Error(
                    f"{option}: cannot write to {str(root)!r}: the directory is read-only "
                    f"(permission denied)"
                )
            fd, tmp = tempfile.mkstemp(dir=root, prefix=".write-test-", suffix=".tmp")
            os.close(fd)
            os.unlink(tmp)
        except StoreError:
            raise
        except cls.Error:
            raise
        except OSError as e:
            raise cls.Error(f"{option}: cannot write to {str(root)!r}: {e.strerror or e}") from None

    @staticmethod
    def holds_run(root: Path | str) -> bool:
        """Whether ``root`` holds a shedsim run: a ``spec.json`` that is a JSON object with
        ``format`` and ``key`` (a run store), a ``run.json`` whose ``command`` starts with
        ``shedsim`` (the reports of any command, also from versions without a run store),
        or (a run killed before writing either) nothing but the store's own lock, pid and
        temporary files."""
        root = Path(root)
        for name, ok in (
            (SPEC, lambda d: "format" in d and "key" in d),
            ("run.json", lambda d: str(d.get("command") or "").startswith("shedsim")),
        ):
            try:
                d = jsontext.load_file(root / name)
                if isinstance(d, dict) and ok(d):
                    return True
            except (OSError, jsontext.JSONProblem):
                pass
        try:
            names = [p.name for p in root.iterdir()]
        except OSError:
            return False
        return bool(names) and all(
            n in (LOCK, PID) or (n.startswith(".") and n.endswith(".tmp")) for n in names
        )

    @staticmethod
    def held_command(root: Path | str) -> str | None:
        """The command whose run ``root`` holds: its spec.json's (:func:`spec_command`), else
        the one its run.json names (``shedsim tips ...``: ``tips``); None when neither says."""
        root = Path(root)
        for name in (SPEC, "run.json"):
            try:
                d = jsontext.load_file(root / name)
            except (OSError, jsontext.JSONProblem):
                continue
            if not isinstance(d, dict):
                continue
            if name == SPEC and "format" in d and "key" in d:
                return spec_command(d)
            words = str(d.get("command") or "").split()
            if len(words) >= 2 and words[0] == "shedsim":
                return words[1]
        return None

    @classmethod
    def check_out(
        cls,
        root: Path | str,
        outputs: Iterable[str],
        force: bool = False,
        option: str = "--out",
        force_option: str | None = "--force",
        command: str | None = None,
    ) -> None:
        """Refuse an output directory the run must not write into (raises :attr:`Error`):

        * ``/`` or the user's home directory, always;
        * a path that exists and is not a directory;
        * a directory holding the run of another command than ``command`` (the name of the
          command writing, :meth:`held_command`), always (also with ``force``): its chunks
          and reports would be left beside the new run's;
        * a non-empty directory that holds no shedsim run (:meth:`holds_run`), unless
          ``force``; with ``force``, still refused when one of ``outputs`` (the names the
          run writes: reports, ``spec.json``, ``chunks``, ...) already exists there and is
          not a file shedsim wrote (:func:`shedsim.runs.atomic.written_by_shedsim`).

        A missing or empty directory, or one holding a run store, is accepted (the earlier
        run there is replaced). ``force_option``: the command's option that gives ``force``,
        named in the messages; None for a command without one, which always writes beside
        other files (as ``force``) and still never replaces one."""
        root = Path(root)
        res = root.expanduser().resolve()
        if res == Path(res.anchor) or res == Path.home().resolve():
            raise cls.Error(
                f"{option}: refusing to write a run into {str(root)!r} "
                f"({'the root directory' if res == Path(res.anchor) else 'your home directory'}); "
                f"name a directory for this run, e.g. {option} reports/run1"
            )
        if not root.exists():
            return
        cls.check_writable(root, create=False, option=option)
        try:
            names = sorted(p.name for p in root.iterdir())
        except OSError as e:
            raise cls.Error(f"{option}: cannot read {str(root)!r}: {e.strerror or e}") from None
        held = cls.held_command(root) if names and command is not None else None
        if held is not None and held != command:
            go_on = (
                f"; continue it with: shedsim {held} --resume {str(root)}"
                if held in RUN_COMMANDS or held == "tune"
                else ""
            )
            raise cls.Error(
                f"{option}: {str(root)!r} holds {with_article(held)} run; shedsim {command} never "
                f"writes over another command's run: choose a new or empty directory{go_on}"
            )
        if not names or cls.holds_run(root):
            return
        mine = set(outputs) | set(STORE_FILES)
        clash = [n for n in names if n in mine and not atomic.written_by_shedsim(root / n)]
        shown = lambda ns: ", ".join(ns[:6]) + (f" and {len(ns) - 6} more" if len(ns) > 6 else "")  # noqa: E731
        if not force and force_option is not None:
            raise cls.Error(
                f"{option}: {str(root)!r} is not empty and holds no shedsim run ({shown(names)}); "
                f"choose a new or empty directory, or add {force_option} to write beside these "
                "files "
                f"(none of them is changed)"
            )
        if clash:
            rule = (
                f"{force_option} never replaces a file shedsim did not write"
                if force_option is not None
                else "shedsim never replaces a file it did not write"
            )
            raise cls.Error(
                f"{option}: {str(root)!r} already holds {shown(clash)}, which this run would "
                "write; "
                f"{rule}: move them or choose another directory"
            )

    # ------------------------------------------------------------ the lock
    @contextlib.contextmanager
    def lock(self, option: str = "--out") -> Iterator[None]:
        """Hold the directory's lock for the duration (creating the directory): a second
        run into it raises :attr:`Error` at once, naming the holder's pid. The lock is an
        flock(2) lock (the ``filelock`` library): the kernel drops it when its process
        dies, even by SIGKILL; the pid file is only read to name the holder."""
        from filelock import FileLock, Timeout

        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise self.Error(
                f"{option}: cannot create {str(self.root)!r}: {e.strerror or e}"
            ) from None
        fl = FileLock(str(self.root / LOCK), timeout=0)
        try:
            fl.acquire(timeout=0)
        except Timeout:
            raise self.Error(
                f"{option}: {str(self.root)!r} is in use by another shedsim run (pid "
                f"{_read_pid(self.root)}); wait for it to finish, or stop it first"
            ) from None
        except OSError as e:
            raise self.Error(
                f"{option}: cannot lock {str(self.root)!r}: {e.strerror or e}"
            ) from None
        pid = self.root / PID
        try:
            try:
                pid.write_text(f"{os.getpid()}\n")
            except OSError:
                pass  # only used to name the holder
            yield
        finally:
            with contextlib.suppress(OSError):
                pid.unlink()
            fl.release()

    # ------------------------------------------------------------ spec.json
    def spec_path(self) -> Path:
        return self.root / SPEC

    def write_spec(self, d: dict[str, Any]) -> None:
        """Write ``d`` as spec.json with its :func:`spec_checksum` (atomically)."""
        d = {k: v for k, v in d.items() if k != CHECKSUM}
        d[CHECKSUM] = spec_checksum(d)
        atomic.write_text(self.spec_path(), json.dumps(d, indent=2, sort_keys=True) + "\n")

    def read_spec(self, option: str = "--resume") -> dict[str, Any]:
        """The stored spec.json as a dict; raises :attr:`Error` when the directory holds
        none, or one that is not valid JSON or not a shedsim spec (no ``format`` and
        ``key``). The checksum is checked separately (:meth:`verify_checksum`), after the
        command has read the fields, so the message names the most telling fault."""
        p = self.spec_path()
        if not self.root.is_dir():
            raise self.Error(f"{option}: {str(self.root)!r} is not a directory")
        try:
            d = jsontext.load_file(p)
        except FileNotFoundError:
            raise self.Error(
                f"{option}: {str(self.root)!r} holds no spec.json "
                f"(not a {self.what} directory{self._reports_of()})"
            ) from None
        except OSError as e:
            raise self.Error(f"{option}: cannot read {str(p)!r}: {e.strerror or e}") from None
        except jsontext.JSONProblem as e:
            raise self.Error(
                f"{option}: {str(p)!r} is not valid JSON ({e.reason}); "
                f"not a shedsim {self.what} directory"
            ) from None
        if not isinstance(d, dict) or "format" not in d or "key" not in d:
            raise self.Error(
                f"{option}: {str(p)!r} is not a shedsim {self.what} spec "
                f'(no "format" and "key" fields); not a shedsim {self.what} directory'
            )
        return d

    def check_command(self, d: dict[str, Any], fmt: int, option: str = "--resume") -> None:
        """Raise :attr:`Error` unless ``d`` (as read from spec.json) is the spec of a run of
        this store's command (:attr:`what`, :func:`spec_command`) in format ``fmt``. A run of
        another command is named, with the command that continues it; another format is
        one written by another version of shedsim."""
        other = spec_command(d)
        where = str(self.root)
        if other is None:
            raise self.Error(
                f"{option}: {str(self.spec_path())!r} is not a shedsim {self.what} spec (command "
                f"{d.get('command')!r}); not a shedsim {self.what} directory"
            )
        if other != self.what:
            raise self.Error(
                f"{option}: {where!r} is not {with_article(self.what)} run: it holds "
                f"{with_article(other)} run, which shedsim {other} reads; continue it with: "
                f"shedsim {other} --resume {where}"
            )
        if d.get("format") != fmt:
            raise self.Error(
                f"{option}: {str(self.spec_path())!r} has format {d.get('format')!r}, this shedsim "
                f"writes format {fmt}: the run was started by another version of shedsim; "
                "finish it "
                f"with that version, or start a new run"
            )

    def _reports_of(self) -> str:
        """What a directory without spec.json holds, when its run.json names the command
        that wrote it (``; it holds the reports of shedsim tune, ...``), or a tune study
        stopped before its reports (its ``study.db`` alone), else ``""``."""
        go_on = f"continues with: shedsim tune --resume {str(self.root)}"
        tune = f"; it holds the reports of shedsim tune, whose study {go_on}"
        try:
            d = jsontext.load_file(self.root / "run.json")
        except (OSError, jsontext.JSONProblem):
            if (self.root / "study.db").is_file():  # tune stopped before its first reports
                return f"; it holds the study of shedsim tune, which {go_on}"
            return ""
        cmd = str(d.get("command") or "").split() if isinstance(d, dict) else []
        if len(cmd) < 2 or cmd[0] != "shedsim":
            return ""
        name = cmd[1]
        if name in RUN_COMMANDS:  # its run store was removed (as make report removes the example's)
            return (
                f"; it holds the reports of shedsim {name}, without their run store: nothing "
                "is left to resume"
            )
        if name == "tune":
            return tune
        return (
            f"; it holds the reports of shedsim {name}, which keeps no run store: run that "
            "command again"
        )

    def verify_checksum(self, d: dict[str, Any], option: str = "--resume") -> None:
        """Raise :attr:`Error` unless ``d`` (as read from spec.json) carries the checksum
        of its content: spec.json was edited (games, chunks, save_games...) or written by a
        shedsim without checksums."""
        got = d.get(CHECKSUM)
        if not isinstance(got, str):
            raise self.Error(
                f"{option}: {str(self.spec_path())!r} has no checksum (written by an older "
                f"shedsim, or edited); start a new run"
            )
        if got != spec_checksum(d):
            raise self.Error(
                f"{option}: {str(self.spec_path())!r} was edited after the run started (its "
                f"checksum no longer matches its content); results would not match the chunks "
                f"already played: restore the file or start a new run"
            )

    # ------------------------------------------------------------ chunks
    def prepare(self, extra_dirs: Iterable[Path] = ()) -> None:
        """Create the chunk folder (and ``extra_dirs``) and remove temporary files a
        killed run left."""
        self.chunks.mkdir(parents=True, exist_ok=True)
        for d in (self.root, self.chunks, *extra_dirs):
            d.mkdir(parents=True, exist_ok=True)
            atomic.remove_stale(d)

    def clear_chunks(self, extra: Iterable[tuple[Path, str]] = ()) -> None:
        """Remove the chunk files (and ``(folder, glob)`` files of ``extra``) of an earlier
        run in this directory: only files of the store's own names."""
        for d, pat in ((self.chunks, "[0-9][0-9][0-9][0-9][0-9].npz"), *extra):
            if d.is_dir():
                for f in d.glob(pat):
                    f.unlink()

    def chunk_path(self, i: int) -> Path:
        return self.chunks / f"{i:05d}.npz"

    def save_chunk(self, key: str, i: int, arrays: dict[str, np.ndarray]) -> None:
        """Store chunk ``i``'s arrays as ``chunks/NNNNN.npz`` (temp file, fsync,
        os.replace) with the spec's ``key`` and the chunk number."""
        arrays = dict(arrays)
        arrays["_key"] = np.array(key)
        arrays["_chunk"] = np.int64(i)
        atomic.write_with(self.chunk_path(i), lambda f: np.savez(f, **arrays))

    def load_chunk(self, i: int, names: Iterable[str] | None = None) -> dict[str, np.ndarray]:
        """The arrays of chunk file ``i`` (``names`` only, or all but ``_key``/``_chunk``)."""
        with np.load(self.chunk_path(i), allow_pickle=False) as z:
            keep = [k for k in z.files if not k.startswith("_")] if names is None else list(names)
            return {k: z[k] for k in keep}

    def check_chunk(
        self,
        key: str,
        i: int,
        template: dict[str, np.ndarray],
        ragged: Iterable[str] = (),
        option: str = "--resume",
    ) -> dict[str, np.ndarray]:
        """Read chunk file ``i`` whole and check it against ``template`` (every array with
        its dtype and shape; names in ``ragged`` need only be 1-D of the same kind of dtype:
        their length, and a text column's width, vary), this run's ``key`` and
        its own number. Returns the arrays; raises :attr:`Error` naming the file."""
        p = self.chunk_path(i)
        try:
            with np.load(p, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except Exception as e:  # noqa: BLE001 - zipfile.BadZipFile, EOFError, OSError, ValueError, ...
            raise self.Error(
                f"{option}: chunk file {str(p)!r} is damaged ({unreadable(e)}); "
                f"delete it to play that chunk again"
            ) from None
        missing = [k for k in (*template, "_key", "_chunk") if k not in arrays]
        if missing:
            raise self.Error(
                f"{option}: chunk file {str(p)!r} is damaged or not a shedsim chunk "
                f"(missing {', '.join(missing[:5])}); delete it to play that chunk again"
            )
        if str(arrays["_key"]) != key:
            raise self.Error(
                f"{option}: chunk file {str(p)!r} belongs to another run (key "
                f"{str(arrays['_key'])[:16]!r}, this run's spec.json has {key!r}): "
                f"the directory mixes two runs; start a new run"
            )
        if arrays["_chunk"].shape != () or int(arrays["_chunk"]) != i:
            raise self.Error(
                f"{option}: chunk file {str(p)!r} holds chunk {arrays['_chunk'].tolist()!r}, "
                f"not {i}; "
                f"delete it to play that chunk again"
            )
        problem = array_problem(arrays, template, ragged)
        if problem:
            raise self.Error(
                f"{option}: chunk file {str(p)!r} is damaged ({problem}); "
                f"delete it to play that chunk again"
            )
        return arrays

    def chunk_is_done(self, key: str, i: int) -> bool:
        """Whether chunk file ``i`` exists, opens and carries ``key`` and its number (a
        damaged or foreign file counts as not done)."""
        p = self.chunk_path(i)
        if not p.exists():
            return False
        try:
            with np.load(p) as z:
                return str(z["_key"]) == key and int(z["_chunk"]) == i
        except Exception:  # noqa: BLE001 - a damaged file is not a finished chunk
            return False

    def stored_chunks(
        self,
        key: str,
        n_chunks: int,
        strict: bool = False,
        check: Callable[[int], Any] | None = None,
        also: Callable[[int, bool], bool] | None = None,
    ) -> list[int]:
        """Chunk numbers (of ``range(n_chunks)``) stored for ``key``. ``strict``
        (``--resume``): every chunk file present is checked by ``check(i)`` (which raises
        :attr:`Error`); otherwise a damaged or foreign file counts as not done. ``also(i,
        strict)``: a command's extra condition (e.g. its games file exists)."""
        done = []
        for i in range(n_chunks):
            if not self.chunk_path(i).exists():
                continue
            if strict and check is not None:
                check(i)
            elif not self.chunk_is_done(key, i):
                continue
            if also is not None and not also(i, strict):
                continue
            done.append(i)
        return done
