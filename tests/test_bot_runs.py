"""Bots in real runs: a chunk that seats a bot plays those games on the reference engine in
the worker (same deals, keys and seats as the kernel's chunk), the kernel's records come
back for every game, and a deterministic bot gives byte-identical results for any number
of workers, on loky and dask, and after --resume. The bots are tests/bots.py's."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bots
from shedsim.analysis import tournament as T
from shedsim.bot import log as bot_log
from shedsim.rules.ruleset import build
from shedsim.runs.simulate import RunSpec, play_chunk, schedule_games


def _spec(
    tmp_path,
    games=40,
    chunk=10,
    bot="first",
    players=2,
    entries=(("greedy", "greedy"), ("random", "random")),
):
    return T.plan(
        build("shithead"),
        players,
        [*entries, ("b", "bot:" + bots.command(tmp_path, bot))],
        games,
        seed=7,
        chunk_size=chunk,
    )


def test_a_chunk_with_bot_seats_returns_the_kernels_records_for_every_game(tmp_path):
    rules = build("shithead")
    bot = "bot:" + bots.command(tmp_path, "first")
    with_bot = RunSpec(
        rules, 2, ("greedy", "random", bot), ("greedy", "random", "b"), seed=3, games=12
    )
    kernel = RunSpec(
        rules, 2, ("greedy", "random", "greedy"), ("greedy", "random", "b"), seed=3, games=12
    )
    a, k = play_chunk(with_bot, 0, 12), play_chunk(kernel, 0, 12)
    seated = (schedule_games(with_bot, 0, 12)["seating"] == 2).any(axis=1)
    assert seated.any() and not seated.all()
    for name, v in k.records.items():
        if name == "trace":
            continue
        assert a.records[name].dtype == v.dtype and a.records[name].shape == v.shape, name
        assert np.array_equal(a.records[name][~seated], v[~seated]), (
            name
        )  # the kernel's games, unchanged
    assert a.records["forfeit"].shape == (12, 2) and not a.records["forfeit"].any()
    assert a.bots.hello["b"]["name"] == "first" and a.bots.decisions > 0
    assert k.bots is None


def _played(spec, root, workers=1, backend="loky", stop_after=None, resume=False):
    store = T.Store(root)
    out = T.run(spec, store, workers=workers, backend=backend, stop_after=stop_after, resume=resume)
    return store, out


def _chunks(root):
    out = {}
    for f in sorted((root / "chunks").glob("*.npz")):
        with np.load(f) as z:
            out[f.name] = {k: z[k].tobytes() for k in z.files}
    return out


def test_a_deterministic_bot_gives_the_same_results_for_any_workers_and_after_resume(tmp_path):
    spec = _spec(tmp_path)
    one, o1 = _played(spec, tmp_path / "one", workers=1)
    two, _ = _played(spec, tmp_path / "two", workers=2)
    assert len(o1.done) == spec.n_chunks == 4
    assert _chunks(tmp_path / "one") == _chunks(tmp_path / "two")
    # stopped after one chunk, then resumed: the same chunks, and the bots' files of every chunk
    part, o = _played(spec, tmp_path / "resumed", stop_after=1)
    assert o.interrupted and len(o.done) == 1
    _, o = _played(spec, tmp_path / "resumed", resume=True)
    assert o.complete and _chunks(tmp_path / "resumed") == _chunks(tmp_path / "one")
    files = bot_log.load(tmp_path / "resumed", spec.key())
    assert [f["chunk"] for f in files] == [0, 1, 2, 3]
    assert (tmp_path / "resumed" / "bots.log").read_text().startswith("# shedsim bots.log")
    res = T.analyse(spec, one.load_total(spec, o1.done))
    assert int(res.summary["games"].sum()) == spec.games * spec.players


def test_games_with_bots_play_on_a_dask_cluster_with_the_same_results(tmp_path):
    pytest.importorskip("dask.distributed")
    spec = _spec(tmp_path, games=20, chunk=10)
    _played(spec, tmp_path / "loky", workers=1)
    _played(spec, tmp_path / "dask", workers=2, backend="dask")
    assert _chunks(tmp_path / "dask") == _chunks(tmp_path / "loky")


def test_the_spec_of_a_run_with_bots_holds_its_time_control_and_resume_refuses_another(tmp_path):
    spec = T.plan(
        build("shithead"),
        2,
        [("greedy", "greedy"), ("b", "bot:" + bots.command(tmp_path, "first"))],
        4,
        bot_time=(250, 5000),
    )
    d = spec.to_json()
    assert d["bot_time"] == [250, 5000] and d["entries"][1].startswith("bot:")
    other = T.plan(
        build("shithead"),
        2,
        [("greedy", "greedy"), ("b", "bot:" + bots.command(tmp_path, "first"))],
        4,
    )
    assert other.key() != spec.key()
    plain = T.plan(build("shithead"), 2, [("greedy", "greedy"), ("random", "random")], 4)
    assert "bot_time" not in plain.to_json()  # a run without bots: spec.json as before
    with pytest.raises(T.TournamentError, match="--time-per-move"):
        T.plan(
            build("shithead"),
            2,
            [("greedy", "greedy"), ("b", "bot:" + bots.command(tmp_path, "first"))],
            4,
            bot_time=(0, None),
        )
    json.dumps(d)


def test_hostile_bots_forfeit_their_games_counted_by_kind_and_the_run_finishes(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("LATE_S", "0.4")
    entries = [("greedy", "greedy")] + [
        (b, "bot:" + bots.command(tmp_path, b)) for b in ("late", "garbage", "illegal", "dies")
    ]
    spec = T.plan(build("shithead"), 2, entries, 20, seed=3, chunk_size=10, bot_time=(200, None))
    store, out = _played(spec, tmp_path / "run")
    assert out.complete
    res = T.analyse(spec, store.load_total(spec, out.done))
    s = res.summary.set_index("strategy")
    kinds = {"late": "timeout", "garbage": "invalid", "illegal": "illegal", "dies": "crash"}
    for bot, kind in kinds.items():
        # each hostile bot forfeits (at its 3rd move, before any game is over) by its own kind only
        assert s.loc[bot, f"forfeits_{kind}"] == s.loc[bot, "forfeits"] > 0
        assert s.loc[bot, [f"forfeits_{k}" for k in kinds.values() if k != kind]].sum() == 0
    assert s.loc["greedy", "forfeits"] == 0 and s.loc["greedy", "games"] > 0
    # every table seats a hostile bot, so every game is forfeited, by one seat (the first to fail)
    assert res.info["ends"]["forfeit"] == int(s["forfeits"].sum()) == spec.games
    log = (tmp_path / "run" / "bots.log").read_text()
    for bot, kind in kinds.items():
        assert f"fault: {bot} {kind} in game" in log
    summ = bot_log.summary(tmp_path / "run", spec.key())
    assert {b: summ["forfeits"][b][k] for b, k in kinds.items()} == {
        b: int(s.loc[b, "forfeits"]) for b in kinds
    }


def test_seats_still_in_after_a_forfeit_share_the_places_between():
    # 4 seats: seat 0 went out first, seat 3 forfeited (last); seats 1 and 2 share places 2 and 3
    eff2 = T.effective_places2(np.array([[1, 0, 0, 4], [2, 1, 0, 4], [0, 0, 0, 0]]))
    assert eff2[0].tolist() == [2, 5, 5, 8]  # 2.5 each (the rule's own stop would give them 3.5)
    assert eff2[1].tolist() == [4, 2, 6, 8]  # one seat in: place 3
    assert eff2[2].tolist() == [5, 5, 5, 5]  # stopped by its rules, nobody out: all share 1..4


def test_chatter_is_ignored_wherever_it_comes_for_any_workers(tmp_path):
    """The ``chatter`` bot writes its lines a moment after ``game`` and ``result`` (when
    shedsim has sent the next request) and before each answer: none is read as an answer."""
    spec = _spec(tmp_path, bot="chatter")
    _, o1 = _played(spec, tmp_path / "one", workers=1)
    _, o2 = _played(spec, tmp_path / "two", workers=2)
    assert o1.complete and o2.complete
    assert _chunks(tmp_path / "one") == _chunks(tmp_path / "two")
    for root in ("one", "two"):
        summ = bot_log.summary(tmp_path / root, spec.key())
        assert summ["forfeited_games"] == {"b": 0}
        log = (tmp_path / root / "bots.log").read_text()
        assert "no faults" in log and "a new game!" in log and "thinking..." in log
    # the same games as the bot that only answers (the chunks' keys name the bots' commands)
    _played(_spec(tmp_path, bot="first"), tmp_path / "first", workers=2)

    def games(root):
        return {f: {k: v for k, v in z.items() if k != "_key"} for f, z in _chunks(root).items()}

    assert games(tmp_path / "first") == games(tmp_path / "one")


def test_a_json_note_before_the_answer_is_chatter_and_the_answer_after_it_counts(tmp_path):
    spec = _spec(tmp_path, games=20, bot="note")
    store, out = _played(spec, tmp_path / "run", workers=2)
    s = T.analyse(spec, store.load_total(spec, out.done)).summary.set_index("strategy")
    assert s.loc["b", "forfeits"] == 0 and s.loc["b", "games"] > 0
    log = (tmp_path / "run" / "bots.log").read_text()
    assert '{"note":"hi"}' in log.replace(" ", "") and "no faults" in log


def test_a_bot_that_forfeits_by_an_illegal_move_gets_the_result_and_plays_on(tmp_path):
    spec = _spec(tmp_path, games=20, bot="tells")
    _played(spec, tmp_path / "run", workers=1)
    files = bot_log.load(tmp_path / "run", spec.key())
    assert files
    for x in files:
        err = x["stderr"]["b"]
        forfeited = x["forfeits"]["b"]["illegal"]
        assert forfeited > 0 and err.count("hello from") == 1  # never started again
        assert err.count(" forfeit\n") == forfeited
