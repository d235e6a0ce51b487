"""What a run's bots leave in its directory: ``chunks/NNNNN.bots.json`` per chunk and
``DIR/bots.log`` (docs/reference/bots.md#log).

A chunk played with bot seats (:class:`shedsim.bot.table.ChunkBots`) is saved as
``chunks/NNNNN.bots.json`` (the spec's key, the forfeits per strategy and kind, the first
fault of each kind per strategy, each process's standard error, the lines written unasked,
the ``hello`` answers) before the chunk's own file, which marks the chunk done
(:func:`shedsim.runs.execute.play`); so a resumed run's earlier chunks keep theirs, and the
forfeits counted are those of the chunks stored. ``bots.log`` is written again from them
after every chunk: first, per strategy and kind, the first fault of the run (the lowest game
index) with the game, the seat, the message sent and what came back; then each chunk's
standard error by process. Each line a bot wrote is shown up to :data:`LINE_CHARS`
characters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shedsim.base import jsontext
from shedsim.bot.protocol import FAULTS

LOG = "bots.log"
"""The run's bot log, in the run directory."""
SUFFIX = ".bots.json"
"""The name's end of a chunk's bot file in ``chunks/``."""
LINE_CHARS = 1000
"""The most characters ``bots.log`` shows of one line a bot wrote (its answer, its chatter,
a line of its standard error); the rest of the line is left out, with a note."""


def cap(line: str, n: int = LINE_CHARS) -> str:
    """``line`` cut to ``n`` characters, with a note of how many were left out."""
    if len(line) <= n:
        return line
    return f"{line[:n]} [{len(line) - n:,} more characters not shown]"


def chunk_file(root: Path | str, k: int) -> Path:
    return Path(root) / "chunks" / f"{k:05d}{SUFFIX}"


def save_chunk(root: Path | str, key: str, k: int, report: Any) -> None:
    """Write chunk ``k``'s bot file (``report``: a :class:`shedsim.bot.table.ChunkBots`) for
    the run of spec key ``key``, then ``bots.log`` again. Raises
    :class:`shedsim.base.atomic.WriteError`."""
    from shedsim.base import atomic

    d = {"key": key, "chunk": k, **report.to_json()}
    atomic.write_text(chunk_file(root, k), json.dumps(d, sort_keys=True) + "\n")
    write_log(root, key)


def load(root: Path | str, key: str, chunks: list[int] | None = None) -> list[dict[str, Any]]:
    """The bot files of the run of spec key ``key`` in ``root`` (of ``chunks`` only, when
    given), in chunk order; files of another run or that do not read are left out."""
    out = []
    d = Path(root) / "chunks"
    if not d.is_dir():
        return out
    want = None if chunks is None else set(chunks)
    for f in sorted(d.glob(f"[0-9][0-9][0-9][0-9][0-9]{SUFFIX}")):
        try:
            x = jsontext.load_file(f)
        except (OSError, jsontext.JSONProblem):
            continue
        if isinstance(x, dict) and x.get("key") == key and (want is None or x.get("chunk") in want):
            out.append(x)
    return out


def clear(root: Path | str) -> None:
    """Remove an earlier run's bot files and log (a fresh run into the same directory)."""
    d = Path(root) / "chunks"
    if d.is_dir():
        for f in d.glob(f"[0-9][0-9][0-9][0-9][0-9]{SUFFIX}"):
            f.unlink()
    log = Path(root) / LOG
    if log.is_file():
        log.unlink()


def forfeits(files: list[dict[str, Any]], labels: list[str]) -> dict[str, dict[str, int]]:
    """Games forfeited per strategy (``labels``, every one listed) and kind (:data:`FAULTS`)."""
    out = {lab: {k: 0 for k in FAULTS} for lab in labels}
    for x in files:
        for lab, kinds in (x.get("forfeits") or {}).items():
            for kind, n in kinds.items():
                if lab in out and kind in out[lab]:
                    out[lab][kind] += int(n)
    return out


def first_faults(files: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per strategy and kind, the run's first fault (lowest game index), by strategy then
    kind in :data:`FAULTS` order."""
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for x in files:
        for f in x.get("faults") or []:
            k = (f["label"], f["kind"])
            if k not in best or f["game"] < best[k]["game"]:
                best[k] = f
    return [
        best[k]
        for k in sorted(best, key=lambda k: (k[0], FAULTS.index(k[1]) if k[1] in FAULTS else 99))
    ]


def summary(
    root: Path | str, key: str, labels: list[str] | None = None, chunks: list[int] | None = None
) -> dict[str, Any]:
    """run.json's ``bots``: ``forfeits`` per strategy (``labels``; default: every bot that
    played) and kind, ``forfeited_games`` per strategy, ``first_faults``
    (:func:`first_faults`, without the long fields), ``hello`` (what each bot said it is)
    and ``decisions`` (answers read), over the stored ``chunks`` (default: all)."""
    files = load(root, key, chunks)
    hello: dict[str, Any] = {}
    for x in files:
        for lab, h in (x.get("hello") or {}).items():
            hello.setdefault(lab, h)
    ff = forfeits(files, sorted(hello) if labels is None else labels)
    return {
        "forfeits": ff,
        "forfeited_games": {lab: sum(v.values()) for lab, v in ff.items()},
        "first_faults": [
            {k: f[k] for k in ("label", "kind", "game", "seat", "message")}
            for f in first_faults(files)
        ],
        "hello": hello,
        "decisions": sum(int(x.get("decisions", 0)) for x in files),
        "log": LOG,
    }


def log_text(files: list[dict[str, Any]]) -> str:
    """``bots.log``'s text (module docstring)."""
    lines = [
        "# shedsim bots.log: the first fault per strategy and kind, then each bot process's "
        "standard error",
        "",
    ]
    ff = first_faults(files)
    if not ff:
        lines.append("no faults")
    for f in ff:
        lines += [
            f"fault: {f['label']} {f['kind']} in game {f['game']} at seat {f['seat']}: "
            f"{f['message']}",
            f"  sent: {f['sent']}",
            f"  got:  {'(nothing)' if f['got'] is None else cap(f['got'])}",
        ]
    for x in files:
        for who, lines_ in (x.get("unasked") or {}).items():
            lines.append(
                f"unasked lines from {who} (chunk {x['chunk']}), ignored: "
                + " | ".join(cap(u, 200) for u in lines_)
            )
    for x in files:
        for who, text in (x.get("stderr") or {}).items():
            lines += ["", f"## standard error of {who}, chunk {x['chunk']}"]
            lines += [cap(t) for t in text.rstrip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def write_log(root: Path | str, key: str) -> None:
    """Write ``bots.log`` from the run's bot files (atomically)."""
    from shedsim.base import atomic

    atomic.write_text(Path(root) / LOG, log_text(load(root, key)))
