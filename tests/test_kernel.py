"""The compiled kernel: RNG, observations, plugins, errors, caching, reproducibility."""

import json
import shlex
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from shedsim import layout as L, plugins, seeding
from shedsim.rules import engine
from shedsim.kernel import core
from shedsim.kernel.rng import rng_below, rng_next
from shedsim.rules.ruleset import build, preset
from shedsim.runs.simulate import RunSpec, SimulationError, play_chunk, run_chunks


def test_rng_matches_python_stream():
    for key in (0, 1, 2**63 + 12345, 987654321):
        py = seeding.SplitMix64(key)
        nb = np.array([key], np.uint64)
        for n in (2, 3, 52, 104, 1000):
            assert int(rng_below(nb, n)) == py.below(n)
        assert int(rng_next(nb)) == py.next()


def test_seat_streams_match_python_and_differ_from_the_game_stream():
    """A plugin from outside strategies/ draws from its seat's own stream: the kernel and the
    reference engine key it alike, and no two seats', nor the game's, start alike."""
    from shedsim.kernel.rng import seat_key

    for key in (0, 1, 2**63 + 12345, 987654321):
        keys = [seeding.seat_key(key, s) for s in range(L.MAX_PLAYERS)]
        assert keys == [int(seat_key(np.uint64(key), s)) for s in range(L.MAX_PLAYERS)]
        assert len(set(keys + [key])) == L.MAX_PLAYERS + 1


def test_game_keys_do_not_depend_on_chunking():
    a = seeding.game_keys(5, np.arange(0, 100))
    b = seeding.game_keys(5, np.arange(40, 60))
    assert np.array_equal(a[0][40:60], b[0]) and np.array_equal(a[1][40:60], b[1])
    assert not np.array_equal(a[0], a[1])  # deal and strategy streams differ


def _step_both(rules, names, players, seed, games):
    """Step the kernel's core and the reference engine together; yield both observations."""
    known = plugins.discover()
    ra = rules.compile(players)
    dk, sk = seeding.game_keys(seed, np.arange(games))
    for g in range(games):
        seated = [known[names[(g + s) % len(names)]].player() for s in range(players)]
        state, srng_ref = engine.new_game(rules, seated, int(dk[g]), int(sk[g]), g % players, ra)
        pub = np.zeros(L.O_SIZE, np.int64)
        priv = np.zeros(L.P_SIZE, np.int64)
        drng = np.array([dk[g]], np.uint64)
        srng = np.array([sk[g]], np.uint64)
        core.deal(ra, pub, priv, drng, g % players)
        for s in range(players):
            vis = priv[L.P_HANDS + s] + pub[L.O_FACE_UP + s]
            up = seated[s].swap(int(vis), s, players, ra, srng)
            pub[L.O_FACE_UP + s] = up
            priv[L.P_HANDS + s] = vis - up
        pub[L.O_SEAT] = core.start_seat(ra, pub, priv, drng)
        while not (state.finished or state.unfinished):
            core.prepare(pub, priv)
            obs = engine.public_array(state)
            yield state, obs, pub.copy()
            legal = engine.legal_moves(state)
            move = seated[state.to_move].move(state, obs, ra, srng_ref, legal)
            assert core.is_legal(ra, pub, priv, move.code)
            engine.apply_move(state, move)
            core.apply(ra, pub, priv, move.code)


@pytest.mark.parametrize(
    "name,players,toggles",
    [
        ("shithead", 4, []),
        ("nines", 3, ["skip8"]),
        ("duel", 2, ["low7"]),
        ("palace", 5, ["reverse:K"]),
    ],
)
def test_kernel_observation_equals_reference_observation(name, players, toggles):
    rules = build(name, [*toggles, "max_moves:300"])
    steps = 0
    voids = 0  # observations that show a void (O_VOID: a forced pick-up, the stock empty)
    for _, ref_obs, kernel_obs in _step_both(
        rules, ["greedy", "random", "heuristic"], players, 11, 6
    ):
        assert np.array_equal(ref_obs, kernel_obs), np.nonzero(ref_obs != kernel_obs)
        steps += 1
        voids += bool(ref_obs[L.O_VOID : L.O_VOID + L.MAX_PLAYERS].any())
    assert steps > 50
    assert (voids > 0) == (rules.pickup == "never"), voids  # voluntary pick-ups show none


def test_observation_hides_hidden_cards():
    """Permuting everything a seat may not see leaves its observation unchanged."""
    rules = preset("shithead")
    known = plugins.discover()
    seated = [known["greedy"].player()] * 3
    state, _ = engine.new_game(rules, seated, 123, 456, 0)
    for _ in range(5):
        engine.apply_move(state, engine.legal_moves(state)[0])
    me = state.to_move
    before = engine.public_array(state)
    other = state.copy()
    others = [s for s in range(3) if s != me]
    a, b = others
    # swap hidden cards between the other hands, the stock and every face-down row
    pool = (
        other.seats[a].hand
        + other.seats[b].hand
        + other.stock
        + sum((s.face_down for s in other.seats), [])
    )
    pool = pool[::-1]
    sizes = [len(other.seats[a].hand), len(other.seats[b].hand), len(other.stock)] + [
        len(s.face_down) for s in other.seats
    ]
    parts = []
    i = 0
    for n in sizes:
        parts.append(pool[i : i + n])
        i += n
    other.seats[a].hand, other.seats[b].hand, other.stock = (
        sorted(parts[0]),
        sorted(parts[1]),
        parts[2],
    )
    for s, fd in zip(other.seats, parts[3:]):
        s.face_down = fd
    assert other.seats[a].hand != state.seats[a].hand or other.stock != state.stock
    assert np.array_equal(engine.public_array(other), before)
    obs = plugins.Observation(before, rules.compile(3))
    assert not any(hasattr(obs, k) for k in ("state", "seats", "stock", "face_down"))


def _write_plugin(tmp_path, name, body):
    d = tmp_path / "plugins"
    d.mkdir(exist_ok=True)
    (d / f"{name}.py").write_text(textwrap.dedent(body))
    return d


def test_failing_plugins_stop_the_run_naming_plugin_seed_and_position(hostile_plugins):
    """Each misbehaving plugin (an illegal move, an exception, a code that is no move, each
    from its fourth move on) stops its run with a message naming it, the seed and the
    position, ending with the command that replays the game."""
    from typer.testing import CliRunner
    from shedsim.cli import app

    d = hostile_plugins
    for name in ("cheater", "raiser", "nonmove"):
        spec = RunSpec(
            preset("shithead"),
            2,
            (name, "greedy"),
            (name, "greedy"),
            seed=42,
            games=10,
            strategy_paths=(str(d),),
        )
        with pytest.raises(SimulationError) as err:
            play_chunk(spec, 0, 10)
        msg = str(err.value)
        assert name in msg and "seed 42" in msg and "pile" in msg and "seat" in msg, (name, msg)
        # the message ends with the command that replays the game; it fails the same way
        cmd = msg.splitlines()[-1].split("replay it move by move: ", 1)[1]
        assert f"--game {err.value.game}" in cmd and "--seed 42" in cmd, (name, cmd)
        r = CliRunner().invoke(app, shlex.split(cmd)[1:])
        assert r.exit_code == 1 and name in r.output and f"game {err.value.game}" in msg, (
            name,
            r.output,
        )
        # the trace tells the game up to the failure, then the error
        assert "   3. seat " in r.output and "the game stops here" in r.output, (name, r.output)


def test_python_plugin_runs_on_reference_engine_and_illegal_index_is_reported(tmp_path):
    d = _write_plugin(
        tmp_path,
        "pyfirst",
        """
        NAME = "pyfirst"
        DESCRIPTION = "first legal move; bad index after move 5"
        DETERMINISTIC = True
        def choose_swap(visible, seat, players, rules, rng):
            return sorted(visible)[-rules.table_size:]
        def choose_move(obs, legal, rng):
            return 99 if obs.array[14] > 5 else 0
    """,
    )
    known = plugins.discover([d])
    assert known["pyfirst"].kind == "python"
    with pytest.raises(engine.StrategyError) as err:
        engine.play_game(
            preset("family"), [known["pyfirst"].player(), known["greedy"].player()], 1, 2
        )
    assert "pyfirst" in str(err.value) and "deal key 1" in str(err.value)


@pytest.mark.parametrize(
    "body,needle",
    [
        ("def broken(:\n", "syntax error"),
        ("NAME = 'x'\n", "DESCRIPTION"),
        ("NAME = 'x'\nDESCRIPTION = 'y'\nDETERMINISTIC = True\n", "define swap() and move()"),
        ("raise RuntimeError('no')\n", "failed to import"),
    ],
)
def test_broken_plugins_are_refused_by_name(tmp_path, body, needle):
    """A broken plugin file is left out with its reason (the others still load); a command
    that names it is refused with that reason; `shedsim strategies` lists it and exits 0,
    and a command that does not use it runs."""
    d = tmp_path / "bad"
    d.mkdir()
    (d / "broken.py").write_text(body)
    known = plugins.discover([d])
    assert "greedy" in known and "broken" not in known
    assert (
        len(known.broken) == 1
        and needle in known.broken[0].reason
        and "broken.py" in known.broken[0].reason
    )
    for name in known.broken[0].names:  # the file's stem, and its NAME when it has one
        with pytest.raises(plugins.PluginError) as err:
            plugins.compiled_strategy(known, name)
        assert "is broken" in str(err.value) and needle in str(err.value)
    with pytest.raises(plugins.PluginError, match="is broken"):
        plugins.resolve(["broken"], [d])
    from typer.testing import CliRunner

    from shedsim.cli import app

    r = CliRunner().invoke(app, ["strategies", "--strategy-path", str(d)])
    assert r.exit_code == 0 and "broken" in r.output and "greedy" in r.output
    r = CliRunner().invoke(
        app,
        [
            "tournament",
            "--strategies",
            "greedy,random",
            "--players",
            "2",
            "--games",
            "40",
            "--no-plots",
            "--quiet",
            "--strategy-path",
            str(d),
            "--out",
            str(tmp_path / "t"),
        ],
    )
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(
        app,
        [
            "tournament",
            "--strategies",
            "greedy,broken",
            "--players",
            "2",
            "--games",
            "40",
            "--no-plots",
            "--quiet",
            "--strategy-path",
            str(d),
            "--out",
            str(tmp_path / "u"),
        ],
    )
    assert r.exit_code == 2 and "is broken" in " ".join(r.output.split())


def test_a_second_plugin_with_a_taken_name_is_left_out(tmp_path):
    d = tmp_path / "dup"
    d.mkdir()
    (d / "greedy2.py").write_text((plugins.builtin_dir() / "greedy.py").read_text())
    known = plugins.discover([d])
    assert known["greedy"].path == plugins.builtin_dir() / "greedy.py"
    assert len(known.broken) == 1 and "already used" in known.broken[0].reason


def test_results_do_not_depend_on_chunks_or_workers():
    spec = RunSpec(
        preset("shithead"),
        3,
        ("greedy", "random", "heuristic"),
        ("greedy", "random", "heuristic"),
        seed=9,
        games=600,
        chunk_size=600,
    )
    whole = play_chunk(spec, 0, 600).records
    small = RunSpec(**{**spec.__dict__, "chunk_size": 70})
    parts = run_chunks(small, list(range(small.n_chunks())), workers=2)
    for key in ("places", "moves", "pickups", "burns", "dealt", "face_up", "start"):
        assert np.array_equal(whole[key], np.concatenate([p.records[key] for p in parts])), key


def test_unfinished_games_are_counted_not_dropped():
    spec = RunSpec(
        build("shithead", ["max_moves:90"]), 4, ("greedy",), ("greedy",), games=300, schedule="same"
    )
    rec = play_chunk(spec, 0, 300).records
    assert len(rec["moves"]) == 300
    unfinished = rec["unfinished"]
    assert 0 < unfinished.sum() < 300
    assert (rec["moves"][unfinished] == 90).all()
    assert ((rec["places"][unfinished] == 0).sum(axis=1) >= 2).all()
    done = ~unfinished
    assert (np.sort(rec["places"][done], axis=1) == np.arange(1, 5)).all()


def test_bench_json_and_second_process_loads_cached_kernel():
    cmd = [sys.executable, "-m", "shedsim", "bench", "--games", "2000", "--json"]
    first = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    second = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    assert second["kernel_cache"] == "hit"
    for out in (first, second):
        assert out["games"] == 2000 and out["moves_per_game"] > 10 and out["games_per_s"] > 0
    assert first["moves_per_game"] == second["moves_per_game"]  # same seed, same games


_LOOPS_AFTER_COMPILE = """
import json
from functools import partial

import numpy as np

from shedsim.analysis.hint import warm_up
from shedsim.kernel.playouts import playout_module
from shedsim.kernel.probe import sample_positions
from shedsim.plugins import discover
from shedsim.runs.benchmark import warm_up as bench_warm_up
from shedsim.runs.simulate import loaded_kernel, play_chunk
from shedsim.runs.warm import loop_games

out = {}
games = loop_games()
for name, spec in games.items():
    play_chunk(spec, 0, 1)
    out[name] = getattr(loaded_kernel(spec)[1].module, name).stats
for policy in ("heuristic", "greedy"):
    warm_up(policy)
    out["playout " + policy] = playout_module(discover([])[policy]).run_samples.stats
bench_warm_up()
out["sample_positions"] = sample_positions.stats
kernel = loaded_kernel(next(iter(games.values())))[1]
print(json.dumps({"loops": kernel.loops, "stats": {
    k: [sum(v.cache_hits.values()), sum(v.cache_misses.values())] for k, v in out.items()}}))
"""


def test_after_compile_a_new_process_compiles_no_game_loop_or_playout():
    """`shedsim compile` plays every game loop of the built-in kernel (the fast loop of mixed
    fields and each inlinable strategy's own copy too, not only the first), the playouts of
    hint's default and fast policies and bench's position sampler: a process started after it
    loads each from numba's cache (a hit, no miss) instead of compiling it, as each worker of
    the first run that needed one did."""
    subprocess.run([sys.executable, "-m", "shedsim", "compile"], check=True, capture_output=True)
    r = subprocess.run(
        [sys.executable, "-c", _LOOPS_AFTER_COMPILE], check=True, capture_output=True, text=True
    )
    got = json.loads(r.stdout)
    assert {"play_chunk", "play_chunk_fast"} < set(got["loops"]), got
    assert set(got["loops"]) <= set(got["stats"]), got  # every loop was played
    for name, (hits, misses) in got["stats"].items():
        assert hits >= 1 and misses == 0, (name, got)


def test_entry_names_name_the_rules_fields_whose_names_end_in_size():
    """Error messages name the entry a plugin wrote into: R_TABLE_SIZE, R_DECK_SIZE and
    R_HAND_SIZE are entries (only R_SIZE, O_SIZE and P_SIZE are array lengths)."""
    assert L.entry_name("R_", L.R_TABLE_SIZE) == "R_TABLE_SIZE"
    assert L.entry_name("R_", L.R_DECK_SIZE) == "R_DECK_SIZE"
    assert L.entry_name("R_", L.R_PLAYABLE + 5) == "R_PLAYABLE+5"
    assert L.entry_name("O_", L.O_FACE_UP + 1) == "O_FACE_UP+1"
