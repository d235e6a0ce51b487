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


def _params(iterations=300, explore=70, playout=0, cap=400, reward=0):
    a = np.zeros(8, np.int64)
    a[:5] = [iterations, explore, playout, cap, reward]
    return a


def _placed(places):
    pub = np.zeros(L.O_SIZE, np.int64)
    pub[L.O_PLAYERS] = len(places)
    for s, p in enumerate(places):
        pub[L.O_PLACE + s] = p
    return pub


def test_the_rewards_by_place_and_by_not_being_last():
    """Worked by hand, 4 players: places 2, 4, 1, 3 give (4 - place) / 3 by place, and 1
    for all but the last by not being last; with seats 1 and 3 still in at the cap, they
    share places 3 and 4 (mean 3.5: reward 1/6) or the one last place (1/2 each)."""
    out = np.zeros(4)
    I.rewards(_placed([2, 4, 1, 3]), out, I.REWARD_PLACE)
    assert out == pytest.approx([2 / 3, 0, 1, 1 / 3])
    I.rewards(_placed([2, 4, 1, 3]), out, I.REWARD_NOT_LAST)
    assert out.tolist() == [1, 0, 1, 1]
    I.rewards(_placed([2, 0, 1, 0]), out, I.REWARD_PLACE)
    assert out == pytest.approx([2 / 3, 1 / 6, 1, 1 / 6])
    I.rewards(_placed([2, 0, 1, 0]), out, I.REWARD_NOT_LAST)
    assert out.tolist() == [1, 0.5, 1, 0.5]
    # going out first: only the first place; seats still in share it while nobody is out
    I.rewards(_placed([2, 0, 1, 0]), out, I.REWARD_FIRST)
    assert out.tolist() == [0, 0, 1, 0]
    I.rewards(_placed([0, 0, 0, 0]), out, I.REWARD_FIRST)
    assert out.tolist() == [0.25] * 4


def test_at_two_players_not_being_last_is_the_place_reward():
    """At 2 players going out first is not being last: reward=1 searches as reward=0 does,
    the same decisions from the same stream, and 4 players tell them apart."""
    from shedsim.rules.ruleset import preset
    from shedsim.runs.simulate import RunSpec, play_chunk

    def records(players, reward):
        name = f"ismcts:iterations=30,reward={reward}"
        field = (name, "greedy")
        spec = RunSpec(preset("shithead"), players, field, field, seed=3, games=6)
        return play_chunk(spec, 0, 6).records

    a, b = records(2, 0), records(2, 1)
    assert all((a[k] == b[k]).all() for k in ("places", "moves", "trace"))
    a, b = records(4, 0), records(4, 1)
    assert not all((a[k] == b[k]).all() for k in ("places", "moves"))


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
    assert list(known["ismcts"].params) == [
        "iterations",
        "explore",
        "playout",
        "cap",
        "reward",
        "infer",
        "stop",
        "value",
        "valued_iterations",
        "solve",
    ]
    assert "ismcts" not in default_strategies()


def _search(obs, ra, iterations, seed, stop_early):
    moves = np.zeros(160, np.int64)
    visits = np.zeros(160, np.int64)
    value = np.zeros(160)
    stats = np.zeros(2, np.int64)
    rng = np.array([seed], np.uint64)
    m = I.search(
        obs,
        ra,
        iterations,
        0.7,
        I.PLAYOUT_GREEDY,
        400,
        rng,
        moves,
        visits,
        value,
        stats,
        stop_early=stop_early,
    )
    return m, int(stats[1])


def test_the_early_stop_returns_the_full_searchs_move(tmp_path):
    """The early stop ends a search only once the most visited root move cannot be
    overtaken: from the same stream it returns the move the whole budget returns, on the
    scenarios and on positions from self-play, and it does stop early on some."""
    from shedsim.kernel.probe import sample_positions
    from shedsim.rules.ruleset import preset

    cases = [_obs(tmp_path, t) for t in (FOURTH_NINE, OPEN_3P)]
    for players in (2, 4):
        ra = preset("shithead").compile(players)
        cases += [(o, ra) for o in sample_positions(ra, 12, 7, np.uint64(11 + players))]
    saved = 0
    for k, (obs, ra) in enumerate(cases):
        full, n_full = _search(obs, ra, 200, k, False)
        early, n_early = _search(obs, ra, 200, k, True)
        assert early == full, k
        assert n_full == 200 and n_early <= 200
        saved += 200 - n_early
    assert saved > 0
