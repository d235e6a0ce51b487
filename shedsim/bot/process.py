"""A bot's process: started, greeted, asked, timed and stopped (docs/reference/bots.md).

:class:`BotProcess` starts ``COMMAND`` (split as a shell splits words, run without a
shell, from the current directory, in a session of its own so that a kill reaches any
process it started), reads its standard output line by line with a deadline (a
non-blocking pipe, :func:`select.poll` waiting up to the deadline; a line never waits on
a bot that stays silent) and its standard error all the time on a thread of its own into
a :class:`StderrSink`, so a chatty bot never blocks. Writes to its standard input never
block either: the pipe is non-blocking and a bot that stops reading is a ``timeout``.

The lines a bot writes are read in the order written; chatter
(:func:`shedsim.bot.protocol.is_chatter`) is set aside wherever it comes, and each other
line answers the next request, so which line answers which request never depends on when
a line arrived.

Every failure while a game is played raises :class:`shedsim.bot.protocol.Fault` with its
kind (``timeout``, ``invalid``, ``illegal``, ``crash``); :func:`check_bot`, run before any
game, raises :class:`BotStartError` for a bot that cannot start or greet.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from typing import Any

from shedsim.bot import protocol as P
from shedsim.bot.protocol import (
    Fault,
    check_hello,
    dumps,
    hello_message,
    read_answer,
    split_command,
)

MAX_LINE = 1 << 20
"""The longest answer line read (bytes); a longer one is ``invalid``."""
STDERR_KEEP = 256 * 1024
"""Bytes of a process's standard error kept for the log (the rest is read and counted)."""
UNASKED_KEEP = 100
"""Chatter lines kept per process for the log (the rest are counted)."""
CHATTER_LINE = 1000
"""Bytes of one chatter line kept (the rest of the line is dropped)."""


class BotStartError(RuntimeError):
    """A bot that could not start or did not answer ``hello`` with protocol 1 within
    :data:`shedsim.bot.protocol.HELLO_S` seconds; the message names the bot and what it
    printed."""


class StderrSink:
    """Where the standard error of bot processes goes: per process (its label and a
    number), the bytes kept (up to :data:`STDERR_KEEP`) and how many more were dropped.
    Thread-safe (each process's reader thread writes here)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: dict[str, bytearray] = {}
        self.dropped: dict[str, int] = {}
        self.order: list[str] = []

    def add(self, who: str, data: bytes) -> None:
        with self.lock:
            if who not in self.kept:
                self.kept[who] = bytearray()
                self.dropped[who] = 0
                self.order.append(who)
            buf = self.kept[who]
            room = max(0, STDERR_KEEP - len(buf))
            buf += data[:room]
            self.dropped[who] += max(0, len(data) - room)

    def text(self) -> dict[str, str]:
        """Each process's standard error as text (undecodable bytes escaped), with a last
        line saying how many bytes were not kept; processes that wrote nothing left out."""
        with self.lock:
            out = {}
            for who in self.order:
                t = self.kept[who].decode("utf-8", "backslashreplace")
                if self.dropped[who]:
                    t += f"\n[{self.dropped[who]:,} more bytes of standard error not kept]\n"
                if t:
                    out[who] = t
            return out


def _short(data: bytes | str, n: int = 300) -> str:
    s = data.decode("utf-8", "backslashreplace") if isinstance(data, bytes) else data
    s = s.rstrip("\n")
    return repr(s if len(s) <= n else s[:n] + "...")


class BotProcess:
    """One bot process. ``label``: the entry's label (names it in messages); ``who``: its
    name in the log (e.g. ``mybot (its seat 2 at a table)``); ``sink``: where its standard
    error goes; ``cwd``: the directory it is started in (default: the current one)."""

    def __init__(self, label: str, command: str, who: str, sink: StderrSink, cwd: str = "") -> None:
        self.label, self.command, self.who, self.sink, self.cwd = label, command, who, sink, cwd
        self.proc: subprocess.Popen | None = None
        self.hello: dict[str, Any] | None = None
        self._buf = b""
        self._closed = False
        self._poll: Any = None
        self._out = -1
        self._thread: threading.Thread | None = None
        self.unasked: list[bytes] = []
        """The chatter it wrote (:func:`shedsim.bot.protocol.is_chatter`), the first
        :data:`UNASKED_KEEP` lines, each cut to :data:`CHATTER_LINE` bytes."""
        self.unasked_n = 0
        """How many chatter lines it wrote in all."""
        self._since: list[bytes] = []
        self.ended = ""
        """How it ended when its start failed (``exited with status 3``), else empty."""
        self.starts = 0
        self.last_sent: dict[str, Any] | None = None
        self.last_line: bytes | None = None

    # -------------------------------------------------------------- life
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self._closed

    def start(self, version: str, timeout_s: float | None = None) -> dict[str, Any]:
        """Start the process and greet it (within ``timeout_s``, default
        :data:`shedsim.bot.protocol.HELLO_S`); returns its ``hello`` answer. Raises
        :class:`Fault`: ``crash`` (it cannot start, or exits or closes its output before
        answering), ``timeout``, ``invalid``, ``illegal`` (a hello that is not protocol 1)."""
        self.stop()
        words = split_command(self.command)
        env = dict(
            os.environ, PYTHONUNBUFFERED="1"
        )  # a Python bot's print() then reaches us at once
        try:
            self.proc = subprocess.Popen(
                words,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=self.cwd or os.getcwd(),
                env=env,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as e:
            self.proc = None
            raise Fault("crash", f"cannot start {words[0]!r}: {e.strerror or e}") from None
        self.starts += 1
        self._buf, self._closed, self.unasked, self.unasked_n = b"", False, [], 0
        self._since, self.ended = [], ""
        os.set_blocking(self.proc.stdin.fileno(), False)
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._out, False)  # a look at what it wrote never waits
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        err = self.proc.stderr

        def read_stderr() -> None:
            fd = err.fileno()
            while True:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                self.sink.add(self.who, data)

        self._thread = threading.Thread(
            target=read_stderr, name=f"shedsim-bot-stderr-{self.who}", daemon=True
        )
        self._thread.start()
        try:
            obj = self.ask(
                hello_message(version), "hello", P.HELLO_S if timeout_s is None else timeout_s
            )
            why = check_hello(obj)
            if why:
                raise Fault("illegal", f"its hello is not accepted: {why}")
        except Fault:  # a process that did not greet is never asked anything more
            self.ended = self.exit_words()
            self.stop()
            raise
        self.hello = obj
        return obj

    def say_bye(self, timeout_s: float | None = None) -> None:
        """Send ``bye`` and close the bot's input (it has ``timeout_s``, default
        :data:`shedsim.bot.protocol.BYE_S` as it is when called, to exit; :meth:`stop` then
        kills it if it has not)."""
        if timeout_s is None:
            timeout_s = P.BYE_S
        if self.proc is None or self.proc.poll() is not None or self.proc.stdin.closed:
            return
        try:
            self.send({"type": "bye"}, timeout_s)
        except Fault:
            pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def stop(self, grace_s: float = 0.0) -> int | None:
        """End the process: with ``grace_s``, send ``bye`` (:meth:`say_bye`) and wait that
        long for it to exit; then kill it (and every process of its session). Returns its
        exit status (None when there was none)."""
        p = self.proc
        if p is None:
            return None
        if grace_s > 0 and p.poll() is None:
            self.say_bye(grace_s)
            try:
                p.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                p.kill()
        code = p.wait()
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass
        if self._thread is not None:
            self._thread.join(1.0)
        try:
            p.stderr.close()
        except OSError:
            pass
        self.proc, self._poll, self._thread = None, None, None
        return code

    def exit_words(self) -> str:
        """How the process ended, in words (``exited with status 3``, ``killed by signal 9``),
        or ``still running``."""
        code = None if self.proc is None else self.proc.poll()
        if code is None:
            return "still running"
        return f"killed by signal {-code}" if code < 0 else f"exited with status {code}"

    # -------------------------------------------------------------- talk
    def send(self, message: dict[str, Any], timeout_s: float) -> None:
        """Write one message. Raises :class:`Fault`: ``crash`` (its input is closed),
        ``timeout`` (it has not read its input for ``timeout_s``)."""
        self._write(dumps(message), time.monotonic() + timeout_s)

    def _write(self, data: bytes, deadline: float) -> None:
        if self.proc.stdin.closed:
            raise Fault("crash", "its input is closed")
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            except OSError:  # BrokenPipeError: it closed its input or exited
                raise Fault("crash", f"its input is closed ({self.exit_words()})") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fault("timeout", "it stopped reading its input")
            p = select.poll()
            p.register(fd, select.POLLOUT | select.POLLERR)
            p.poll(left * 1000)

    def ask(self, message: dict[str, Any], expected: str, timeout_s: float) -> dict[str, Any]:
        """Send ``message`` and read the answer of type ``expected`` within ``timeout_s``
        seconds (from before the message is written): the next line the bot wrote that is
        not chatter and answers something (:func:`shedsim.bot.protocol.read_answer`),
        whenever it wrote it; chatter and JSON objects that answer nothing are set aside
        (:attr:`unasked`). Raises :class:`Fault`."""
        deadline = time.monotonic() + timeout_s
        self.last_sent = message
        self.last_line = None
        self._write(dumps(message), deadline)
        while True:
            line = self._readline(deadline, timeout_s)
            self.last_line = line
            obj = read_answer(line, expected)
            if obj is not None:
                self._since = []
                return obj
            self._chatter(line)  # a JSON object that answers nothing: written unasked

    def collect(self) -> None:
        """Set aside the chatter already in the pipe, without waiting (for the log, before
        the process ends); a line that is not chatter is kept for the next request."""
        keep: list[bytes] = []
        while self._fill(0):
            pass
        while True:
            i = self._buf.find(b"\n")
            if i < 0:
                break
            line, self._buf = self._buf[:i], self._buf[i + 1 :]
            if P.is_chatter(line):
                self._chatter(line)
            else:
                keep.append(line)
        self._buf = b"".join(x + b"\n" for x in keep) + self._buf

    def _fill(self, timeout_ms: float) -> bool:
        """Read what the bot wrote, waiting at most ``timeout_ms`` (with 0, what is in the
        pipe is read at once, one non-blocking read and no poll); False when nothing came."""
        if self._closed:
            return False
        if timeout_ms > 0 and not self._poll.poll(timeout_ms):
            return False
        try:
            data = os.read(self._out, 65536)
        except BlockingIOError:  # nothing there (or woken with nothing to read)
            return False
        except OSError:
            data = b""
        if not data:
            self._closed = True
            return False
        self._buf += data
        return True

    def _chatter(self, line: bytes) -> None:
        self.unasked_n += 1
        if len(self.unasked) < UNASKED_KEEP:
            self.unasked.append(line[:CHATTER_LINE])
        if len(self._since) < 3:
            self._since.append(line[:CHATTER_LINE])

    def _chatter_words(self) -> str:
        """The chatter written since the last answer, in words (for a fault's message)."""
        if not self._since:
            return ""
        shown = ", ".join(_short(x, 100) for x in self._since)
        return (
            f"; since its last answer it wrote only chatter, lines that answer nothing "
            f"(docs/reference/bots.md#chatter): {shown}"
        )

    def _readline(self, deadline: float, timeout_s: float) -> bytes:
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                line, self._buf = self._buf[:i], self._buf[i + 1 :]
                if P.is_chatter(line):
                    self._chatter(line)
                    continue
                return line
            if len(self._buf) > MAX_LINE:
                raise Fault("invalid", f"a line longer than {MAX_LINE:,} bytes", kill=True)
            if self._closed:
                what = f"; it wrote {_short(self._buf)} without a newline" if self._buf else ""
                time.sleep(0.01)  # let the exit status arrive
                raise Fault(
                    "crash",
                    f"it closed its output ({self.exit_words()}){what}{self._chatter_words()}",
                )
            left = deadline - time.monotonic()
            if left <= 0:
                what = f" (it wrote {_short(self._buf)} without a newline)" if self._buf else ""
                raise Fault(
                    "timeout",
                    f"no answer within {timeout_s * 1000:,.0f} ms{what}{self._chatter_words()}",
                )
            self._fill(left * 1000)


def _version() -> str:
    from shedsim.version import __version__

    return __version__


def missing_paths(command: str, cwd: str = "") -> list[str]:
    """The words of ``command`` that look like relative paths (one holding ``/``, or a
    name with an extension such as ``bot.py``; the program itself only when it holds
    ``/``, else it is looked up on ``PATH``) and name nothing in ``cwd`` (default: the
    current directory)."""
    import re

    base = cwd or os.getcwd()
    out = []
    for i, w in enumerate(split_command(command)):
        if not w or w.startswith(("-", "/")) or any(c.isspace() for c in w) or "=" in w:
            continue
        if not ("/" in w or (i > 0 and re.fullmatch(r"[\w.-]+\.[A-Za-z]\w*", w))):
            continue
        if not os.path.exists(os.path.join(base, w)):
            out.append(w)
    return out


def check_bot(label: str, command: str) -> dict[str, Any]:
    """Start the bot of entry ``label`` once, greet it and say ``bye`` (before any game is
    played); returns its ``hello`` answer. Raises :class:`BotStartError` naming the bot,
    the command and what it printed (its answer, its standard error, how it ended)."""
    sink = StderrSink()
    bot = BotProcess(label, command, label, sink)
    try:
        hello = bot.start(_version())
    except Fault as e:
        got = "" if bot.last_line is None else f"; it answered {_short(bot.last_line)}"
        # how it ended, unless the fault's own words say it already
        words = bot.ended if bot.proc is None else bot.exit_words()
        ended = f" ({words})" if words and words not in str(e) else ""
        bot.stop()
        err = sink.text().get(label, "").strip()
        said = f"; its standard error: {_short(err, 600)}" if err else ""
        missing = missing_paths(command)
        if missing:
            raise BotStartError(
                f"bot {label!r} ({command}) could not be started from the current directory "
                f"{os.getcwd()}: {', '.join(map(repr, missing))} "
                f"{'is' if len(missing) == 1 else 'are'} not found there (a relative path in a "
                f"bot's command is resolved against the directory shedsim runs in, when a run "
                f"starts and when it is resumed: docs/reference/bots.md#processes); "
                f"{e}{ended}{got}{said}"
            ) from None
        raise BotStartError(
            f"bot {label!r} ({command}) refused before any game: {e}{ended}{got}{said}. A bot "
            f'answers hello with {{"type": "hello", "name": "...", "protocol": 1}} within '
            f"{P.HELLO_S:g} s (docs/reference/bots.md#hello)"
        ) from None
    bot.stop(P.BYE_S)
    return hello


MAX_MS = 24 * 3600 * 1000
"""The longest ``--time-per-move`` or ``--time-per-game`` accepted (a day, in milliseconds)."""


def check_clock(move_ms: Any, game_ms: Any) -> None:
    """Refuse a time control that cannot be used (:class:`shedsim.bot.protocol.BotSpecError`
    naming the option): whole milliseconds from 1 to :data:`MAX_MS`; ``game_ms`` may be None."""
    from shedsim.bot.protocol import BotSpecError

    for opt, v in (("--time-per-move", move_ms), ("--time-per-game", game_ms)):
        if v is None and opt == "--time-per-game":
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_MS:
            raise BotSpecError(f"{opt}: milliseconds from 1 to {MAX_MS:,} (a day), got {v!r}")


def check_bots(
    entries: list[tuple[str, str]], move_ms: int = 1000, game_ms: int | None = None
) -> dict[str, Any]:
    """Before any game: check the time control (:func:`check_clock`) and start every bot
    entry (``(label, "bot:COMMAND")``; other entries are left alone) once, greeted and sent
    away (:func:`check_bot`). Returns each bot's ``hello`` by label. Raises
    :class:`shedsim.bot.protocol.BotSpecError` or :class:`BotStartError`."""
    from shedsim.bot.protocol import command_of, is_bot

    check_clock(move_ms, game_ms)
    out = {}
    for label, spec in entries:
        if is_bot(spec):
            split_command(command_of(spec))
            out[label] = check_bot(label, command_of(spec))
    return out
