"""The ismcts strategy: forced wins found, the tree's bookkeeping, both engines agree, and
it beats greedy."""

import numpy as np
import pytest

from shedsim.analysis import sprt as S
from shedsim import layout as L
from shedsim.rules.engine import public_array
from shedsim.plugins import discover
from shedsim.rules.ruleset import build
from shedsim.rules.scenario import load_scenario, play_moves
import strategies.ismcts as I

from differential import compare

FOURTH_NINE = """
rules = "shithead"
to_move = 0
pile = ["5", "9", "9", "9"]
stock = []
burned = 30

[[seats]]
hand = ["9", "K"]

[[seats]]
hand = ["6"]
"""

# three seats, nothing hidden: 10 (burn, move again) then K takes seat 0 out first;
# K first lets seat 1 out with its A, and seat 0 finishes second
OPEN_3P = """
rules = "shithead"
to_move = 0
pile = ["6"]
stock = []
burned = 40

[[seats]]
hand = ["10", "K"]

[[seats]]
face_up = ["A"]

[[seats]]
face_up = ["3", "4"]
"""


def _obs(tmp_path, text):
    p = tmp_path / "pos.toml"
    p.write_text(text)
    st = play_moves(load_scenario(p))[0]
    return public_array(st), st.rules.compile(st.players)


def _params(iterations=300, explore=70, playout=0, cap=400):
    a = np.zeros(8, np.int64)
    a[:4] = [iterations, explore, playout, cap]
    return a


@pytest.mark.parametrize("text,best", [(FOURTH_NINE, "play 9x1"), (OPEN_3P, "play 10x1")])
def test_finds_the_forced_win(tmp_path, text, best):
    from shedsim.rules.engine import Move

    obs, ra = _obs(tmp_path, text)
    for seed in range(5):
        rng = np.array([seed], np.uint64)
        assert str(Move.from_code(I.move(obs, ra, _params(), rng))) == best


def test_root_statistics(tmp_path):
    obs, ra = _obs(tmp_path, FOURTH_NINE)
    moves = np.zeros(160, np.int64)
    visits = np.zeros(160, np.int64)
    value = np.zeros(160)
    rng = np.array([3], np.uint64)
    stats = np.zeros(2, np.int64)
    m = I.search(obs, ra, 500, 0.7, I.PLAYOUT_GREEDY, 400, rng, moves, visits, value, stats)
    k = int((moves != 0).sum())
    assert k == 2 and visits[:k].sum() == 500  # every iteration passes through one root move
    assert (
        stats[1] == 500 and stats[0] >= 500
    )  # bench's counters: iterations, at least one move each
    nine = int(np.flatnonzero(moves == m)[0])
    assert value[nine] == 1.0  # the forced win: reward 1 in every iteration
    assert visits[nine] > visits[1 - nine]
    other = 1 - nine
    assert 0.4 < value[other] < 0.9  # the K loses about 15 times in 46 (K, A, 2, 10)


def test_aggressive_playouts_and_fallback(tmp_path):
    obs, ra = _obs(tmp_path, FOURTH_NINE)
    rng = np.array([1], np.uint64)
    assert I.move(obs, ra, _params(playout=I.PLAYOUT_AGGRESSIVE, iterations=100), rng) == (
        9 << 8
    ) | (1 << 4)
    bad = obs.copy()
    bad[L.O_HAND_N + 1] = 60  # seat 1 said to hold 60 cards: no deal fits; greedy's move instead
    assert I.move(bad, ra, _params(), rng) > 0


def test_both_engines_agree():
    rules = build("shithead", ["max_moves:300"])
    problems = compare(rules, 3, 3, seed=5, names=("ismcts", "greedy", "heuristic"))
    assert problems == [], "\n".join(problems)


def test_beats_greedy_at_two_players():
    r = S.run_sprt(
        "ismcts:iterations=100",
        "greedy",
        "shithead",
        players=2,
        elo0=0,
        elo1=60,
        seed=1,
        max_games=2000,
        batch=200,
    )
    assert r.decision == "H1", r.decision_text()
    assert r.elo_lo > 0


def test_registered_and_left_out_of_default_tournaments():
    from shedsim.analysis.tournament import default_strategies

    known = discover()
    assert known["ismcts"].compiled and not known["ismcts"].deterministic
    assert list(known["ismcts"].params) == ["iterations", "explore", "playout", "cap"]
    assert "ismcts" not in default_strategies()
