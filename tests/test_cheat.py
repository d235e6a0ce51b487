"""ismcts_cheat, the measuring tool that sees the hidden cards: its search starts from the
true position, its kernel games are legal, and nothing but ``sprt`` and ``bench`` seats it
(every other command, default, selection and the reference engine refuse it, exit 2)."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

import strategies.ismcts as I
import strategies.ismcts_cheat as C
from shedsim import layout as L
from shedsim import seeding
from shedsim.cli import app
from shedsim.kernel import core
from shedsim.plugin_meta import PluginError
from shedsim.plugins import ROLES, candidates, compiled_strategy, discover, select
from shedsim.rules import engine
from shedsim.rules.ruleset import build, preset

from differential import kernel_for_builtins

CHEAT = "ismcts_cheat"
BUILTIN = discover([])
REFUSAL = "ismcts_cheat sees the hidden cards: a measuring tool, only for sprt and bench"
ENV = {"COLUMNS": "220", "NO_COLOR": "1", "TERM": "dumb"}
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], env=ENV)


def _position(seed=3, moves=6):
    """A 2-player shithead position after ``moves`` greedy moves, dealt by the kernel's core:
    the mover's observation and the kernel's private state (int64[O_SIZE], int64[P_SIZE])."""
    ra = preset("shithead").compile(2)
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    core.deal(ra, pub, priv, np.array([seed], np.uint64), 0)
    pub[L.O_SEAT] = core.start_seat(ra, pub, priv, np.array([seed + 1], np.uint64))
    from shedsim.kernel.policies import greedy_move

    for _ in range(moves):
        core.prepare(pub, priv)
        core.apply(ra, pub, priv, greedy_move(pub, ra))
    core.prepare(pub, priv)
    return pub, priv, ra


def _root(obs, ra, seen, seed=9, iterations=200):
    moves = np.zeros(160, np.int64)
    visits = np.zeros(160, np.int64)
    value = np.zeros(160, np.float64)
    rng = np.array([seed], np.uint64)
    stats = np.zeros(2, np.int64)
    if seen is None:
        m = I.search(obs, ra, iterations, 0.7, 0, 400, rng, moves, visits, value, stats)
    else:
        m = I.search(obs, ra, iterations, 0.7, 0, 400, rng, moves, visits, value, stats, 0, seen)
    return m, visits, value


def _other_deal(obs, priv, ra):
    """``priv`` with the other seat's hidden hand cards exchanged with the stock's: the same
    observation, other hidden cards."""
    other = 1 - obs[L.O_SEAT]
    alt = priv.copy()
    size = ra[L.R_DECK_SIZE]
    stock = [int(alt[L.P_DECK + size - obs[L.O_STOCK_N] + i]) for i in range(obs[L.O_STOCK_N])]
    hand = alt[L.P_HANDS + other] - obs[L.O_KNOWN + other]
    cards = [r for r in range(2, 15) for _ in range((int(hand) >> (4 * (r - 2))) & 15)]
    assert len(stock) >= len(cards) > 0 and sorted(stock[: len(cards)]) != sorted(cards)
    new_hand = obs[L.O_KNOWN + other]
    for i, r in enumerate(stock[: len(cards)]):
        new_hand += np.int64(1) << (4 * (r - 2))
        alt[L.P_DECK + size - obs[L.O_STOCK_N] + i] = cards[i]
    alt[L.P_HANDS + other] = new_hand
    return alt


def test_the_search_that_sees_starts_from_the_true_cards():
    """With ``seen`` the root statistics follow the hidden cards (two deals behind one
    observation differ) and repeat for the same ones; without it they are the same for
    both deals (the search only sees the observation). ``seen`` is only read."""
    obs, priv, ra = _position()
    alt = _other_deal(obs, priv, ra)
    kept = priv.copy()
    a = _root(obs, ra, priv)
    assert np.array_equal(priv, kept)
    assert np.array_equal(a[1], _root(obs, ra, priv)[1])
    b = _root(obs, ra, alt)
    assert not np.array_equal(a[2], b[2])
    c, d = _root(obs, ra, None), _root(obs, ra, None)
    assert np.array_equal(c[1], d[1]) and np.array_equal(c[2], d[2])


def test_the_true_state_is_the_game_s():
    obs, priv, _ = _position()
    pub = np.zeros(L.O_SIZE, np.int64)
    mine = np.full(L.P_SIZE, 7, np.int64)
    I.true_state(obs, priv, pub, mine)
    assert np.array_equal(pub, obs)
    assert np.array_equal(mine[: L.P_LOOP], priv[: L.P_LOOP]) and not mine[L.P_LOOP :].any()


def test_its_kernel_games_are_legal_on_the_reference_engine():
    """The kernel's games of ismcts_cheat (move_seeing, given the game's private state)
    replayed move by move on the reference engine from the same deal: every move legal,
    the same places."""
    known, k = kernel_for_builtins()
    rules = build("shithead", [])
    ra = rules.compile(2)
    ids = np.array([k.ids[CHEAT], k.ids["greedy"]], np.int64)
    params = np.stack(
        [known[CHEAT].params_array({"iterations": 20}), known["greedy"].params_array()]
    )
    n = 4
    dk, sk = seeding.game_keys(7, np.arange(n))
    seating = np.array([[0, 1], [1, 0]] * (n // 2), np.int64)
    rec = k.play(ra, ids, params, seating, dk, sk, np.arange(n) % 2, trace_moves=rules.max_moves)
    for g in range(n):
        # ismcts's swap is the cheat's (greedy-high): it stands in for the deal's swaps
        seated = [known["ismcts" if e == 0 else "greedy"].player() for e in seating[g]]
        state, _ = engine.new_game(rules, seated, int(dk[g]), int(sk[g]), g % 2, ra)
        for code in rec["trace"][g, : rec["moves"][g]].tolist():
            assert code in [m.code for m in engine.legal_moves(state)], (g, code)
            engine.apply_move(state, engine.Move.from_code(code))
        assert state.finished or state.unfinished
        places = [state.place_of(s) for s in range(2)]
        assert places == rec["places"][g].tolist() or rec["unfinished"][g]


# ------------------------------------------------------------------ refused elsewhere
def test_it_is_listed_as_cheating():
    s = BUILTIN[CHEAT]
    assert s.traits.cheating and s.compiled and not s.inline and s.variant_of is None
    assert not any(t.traits.cheating for n, t in BUILTIN.items() if n != CHEAT)
    out = invoke("strategies").output
    assert "CHEATS: it sees the hidden cards" in out and "ismcts_cheat: CHEATS" in out


@pytest.mark.parametrize("role", sorted(ROLES))
def test_no_default_or_selection_picks_it(role):
    assert CHEAT not in select(BUILTIN, role)
    assert CHEAT not in {s.name for s in candidates(BUILTIN)}


def test_commands_other_than_sprt_and_bench_refuse_it_by_name():
    for command in ("a tournament", "compare-rules", "tips", "tune", "hint", "gauntlet"):
        with pytest.raises(PluginError, match=f"^{REFUSAL} \\({command} cannot seat it\\)$"):
            compiled_strategy(BUILTIN, CHEAT, command)
    for command in ("sprt", "bench"):
        assert compiled_strategy(BUILTIN, CHEAT, command).name == CHEAT


def test_the_reference_engine_cannot_play_it():
    with pytest.raises(PluginError, match="the reference engine .* cannot play it"):
        BUILTIN[CHEAT].player()


SCENARIO = "tests/scenarios/core_last_player_is_loser.toml"


@pytest.mark.parametrize(
    "args,option",
    [
        (("tournament", "--strategies", f"{CHEAT},greedy", "--games", 4), "--strategies"),
        (("tournament", "--strategies", f"{CHEAT}:iterations=5,greedy"), "--strategies"),
        (
            ("compare-rules", "-r", "shithead", "-r", "duel", "-p", 2, "--strategies", CHEAT),
            "--strategies",
        ),
        (("tips", "--base", CHEAT, "--games", 4), "--base"),
        (("tune", "--strategy", CHEAT, "--budget", 1), "--strategy"),
        (("gauntlet", "--candidate", CHEAT, "--opponents", "greedy"), "--candidate"),
        (("gauntlet", "--candidate", "greedy", "--opponents", f"random,{CHEAT}"), "--opponents"),
        (("swaps", "--strategy", CHEAT, "--games", 10), "--strategy/--swap-policy"),
        (("hint", SCENARIO, "--policy", CHEAT), "--policy"),
        (("play", "--opponents", CHEAT, "--moves", "q"), "--opponents"),
        (("play", "--hint-policy", CHEAT, "--moves", "q"), "--hint-policy"),
        (("trace", "--players", 2, "--strategies", f"{CHEAT},greedy"), "--strategies"),
        (
            ("sprt", "--a", CHEAT, "--b", "first", "--bot", "first=python3 examples/bots/first.py"),
            "--a",
        ),
        (("bench", "--strategy", CHEAT, "--games", 4, "--reference"), "--strategy"),
        (
            (
                "bench",
                "--bot",
                "first=python3 examples/bots/first.py",
                "--strategy",
                CHEAT,
                "--bot-games",
                2,
            ),
            "--strategy",
        ),
    ],
)
def test_every_other_use_exits_2_saying_why(args, option, tmp_path):
    r = invoke(*args, "--out", tmp_path / "o") if args[0] in ("tournament",) else invoke(*args)
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    err = r.stderr if hasattr(r, "stderr") else r.output
    assert f"{option}: {REFUSAL}" in err, err
    assert "Traceback" not in r.output
    assert not (tmp_path / "o").exists()


def test_sprt_and_bench_seat_it(tmp_path):
    r = invoke(
        "sprt", "--a", f"{CHEAT}:iterations=5", "--b", "ismcts:iterations=5", "--max-games", 4,
        "--min-games", 0, "--quiet", "--no-plots", "--out", tmp_path / "s",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    r = invoke("bench", "--strategy", f"{CHEAT}:iterations=5", "--games", 4, "--players", 2)
    assert r.exit_code == 0, r.output


def test_a_plugin_from_elsewhere_cannot_declare_it(tmp_path):
    (tmp_path / "peek.py").write_text(
        'NAME = "peek"\nDESCRIPTION = "claims to see"\nDETERMINISTIC = True\n'
        'TRAITS = {"cheating": True}\n'
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return 0\n"
    )
    known = discover([tmp_path])
    assert "peek" not in known
    assert "is for shedsim's own measuring tools" in known.why_missing("peek")


def test_its_move_without_the_hidden_cards_is_illegal():
    """``move`` (the plugin interface without ``priv``) is never the cheat's decision: it
    returns -1, which no engine accepts, so a path that forgot ``priv`` fails loudly."""
    obs, _, ra = _position()
    assert C.move(obs, ra, BUILTIN[CHEAT].params_array(), np.array([1], np.uint64)) == -1
