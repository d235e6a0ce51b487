"""Local workers as threads: chunks of shedsim's own strategies play on threads of one
process (their game loops release the GIL) with the same records as on one worker and on
worker processes; a plugin from outside ``strategies/``, a bot, any other call and
``SHEDSIM_WORKER_THREADS=0`` keep processes."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from shedsim.kernel import luck
from shedsim.rules.ruleset import preset
from shedsim.runs import backends as B, simulate as S
from shedsim.runs.simulate import RunSpec, play_chunk

ROOT = Path(__file__).resolve().parent.parent


def _spec(entries=("greedy", "heuristic", "random"), players=4, games=360, **kw) -> RunSpec:
    return RunSpec(preset("shithead"), players, entries, entries, seed=5, games=games,
                   chunk_size=40, **kw)  # fmt: skip


def test_every_game_loop_releases_the_gil():
    _, k, _, _ = S.loaded_kernel(_spec())
    for name in k.loops:
        assert getattr(k.module, name).targetoptions.get("nogil") is True, name
    assert luck.luck.targetoptions.get("nogil") is True


def test_chunks_of_shedsim_strategies_play_on_threads(monkeypatch):
    spec = _spec()
    calls = [(play_chunk, (spec, *spec.chunk_bounds(c), None)) for c in range(spec.n_chunks())]
    assert B.on_threads(calls, play_chunk)
    assert not B.on_threads(
        calls + [(S.code_fingerprint, (spec,))], play_chunk
    )  # another kind of call
    assert not B.on_threads([], play_chunk)
    for off in ("0", "false", " Off "):
        monkeypatch.setenv(S.THREADS_ENV, off)
        assert not B.on_threads(calls, play_chunk)
    monkeypatch.setenv(S.THREADS_ENV, "1")
    assert B.on_threads(calls, play_chunk)


def test_a_bot_or_a_plugin_from_outside_keeps_processes(tmp_path):
    assert not B.plays_on_threads(_spec(("greedy", "bot:python3 -c pass"), players=2))
    src = (ROOT / "strategies" / "random.py").read_text()
    (tmp_path / "mine.py").write_text(src.replace('NAME = "random"', 'NAME = "mine"'))
    outside = _spec(("greedy", "mine"), players=2, strategy_paths=(str(tmp_path),))
    assert not B.plays_on_threads(outside)
    assert B.plays_on_threads(_spec(("greedy", "random"), players=2))


def _records(spec: RunSpec, workers: int) -> list[dict[str, np.ndarray]]:
    return [r.records for r in S.run_chunks(spec, list(range(spec.n_chunks())), workers)]


def test_threads_processes_and_one_worker_give_the_same_records(monkeypatch):
    spec = _spec()
    threads_seen: set[int] = set()
    real = S.play_chunk

    def watched(*args, **kw):
        threads_seen.add(threading.get_ident())
        return real(*args, **kw)

    one = _records(spec, 1)
    monkeypatch.setattr(S, "play_chunk", watched)  # run_tasks and on_threads read this name
    on_threads = _records(spec, 2)
    monkeypatch.setattr(S, "play_chunk", real)
    assert len(threads_seen) == 2 and threading.get_ident() not in threads_seen
    monkeypatch.setenv(S.THREADS_ENV, "0")
    on_processes = _records(spec, 2)
    for got in (on_threads, on_processes):
        assert len(got) == len(one)
        for a, b in zip(one, got):
            assert a.keys() == b.keys() and all(np.array_equal(a[f], b[f]) for f in a)


def test_an_error_in_a_thread_reaches_the_caller():
    def fails(*_args):
        raise RuntimeError("chunk failed")

    with pytest.raises(RuntimeError, match="chunk failed"):
        B.run_on_threads([(fails, ())] * 5, 2, None)
