"""The greedy rollouts that judge a search's moves (``heuristic``'s end-game look-ahead and
``mc``): the rollout that makes the candidate move itself and stops once the mover's place
is known, and the scoring that plays a repeated sample once, give the places of a plain
rollout to the end, which these tests write out independently."""

import numpy as np
import pytest
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import apply, prepare
from shedsim.kernel.nb import legal_moves
from shedsim.kernel.policies import (
    determinise,
    determinise_into,
    greedy_move,
    KEPT_SAMPLES,
    greedy_rollout,
    rollout_places,
)
from shedsim.kernel.probe import sample_positions
from shedsim.plugins import discover
from shedsim.rules.ruleset import build


@njit(cache=False)
def _plain_place(rules, pub, priv, seat, first, cap):
    """The place of ``seat`` after ``first`` and greedy play for every seat to the end of the
    game (at most ``cap`` moves after ``first``), one general engine step at a time."""
    apply(rules, pub, priv, first)
    for _ in range(cap):
        if pub[L.O_IN] == 0:
            break
        prepare(pub, priv)
        apply(rules, pub, priv, greedy_move(pub, rules))
    if pub[L.O_PLACE + seat] != 0:
        return float(pub[L.O_PLACE + seat])
    players = rules[L.R_PLAYERS]
    return (players - pub[L.O_IN] + 1 + players) / 2.0


@njit(cache=False)
def _plain_scores(obs, rules, seed, moves, n, reps, cap, scores):
    """Every sample rolled out, each move by :func:`_plain_place`: what the scores are."""
    rng = np.array([seed], np.uint64)
    base_pub = np.empty(L.O_SIZE, np.int64)
    base_priv = np.empty(L.P_SIZE, np.int64)
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.empty(L.P_SIZE, np.int64)
    for _ in range(reps):
        if not determinise(obs, rules, rng, base_pub, base_priv):
            return False
        for c in range(n):
            pub[:] = base_pub
            priv[:] = base_priv
            scores[c] += _plain_place(rules, pub, priv, obs[L.O_SEAT], moves[c], cap)
    return True


def _positions(preset, players, n, stock_empty):
    rules = build(preset, [], None).compile(players)
    obs = sample_positions(rules, 4 * n, 1, np.uint64(20261204 + players))
    keep = obs[obs[:, L.O_STOCK_N] == 0] if stock_empty else obs
    return rules, keep[:n]


@pytest.mark.parametrize(
    "preset,players,stock_empty",
    [("shithead", 2, True), ("shithead", 4, True), ("nines", 3, False), ("palace", 4, False)],
)
def test_rollout_from_a_move_gives_the_place_of_a_plain_rollout(preset, players, stock_empty):
    rules, obs = _positions(preset, players, 150, stock_empty)
    assert len(obs) == 150
    moves = np.empty(160, np.int64)
    pub, priv = np.empty(L.O_SIZE, np.int64), np.empty(L.P_SIZE, np.int64)
    base_pub, base_priv = pub.copy(), priv.copy()
    rng = np.array([5], np.uint64)
    early = 0
    for o in obs:
        assert determinise(o, rules, rng, base_pub, base_priv)
        for m in moves[: legal_moves(o, rules, moves)]:
            pub[:], priv[:] = base_pub, base_priv
            want = _plain_place(rules, pub, priv, o[L.O_SEAT], m, 400)
            full_moves = pub[L.O_MOVES]
            pub[:], priv[:] = base_pub, base_priv
            got = greedy_rollout(rules, pub, priv, o[L.O_SEAT], 400, m)
            assert got == want
            early += pub[L.O_MOVES] < full_moves
    # at 3 and 4 players the mover often goes out before the end: those rollouts stop there
    assert (early > 0) == (players > 2)


@pytest.mark.parametrize("players", [2, 4])
def test_the_choice_is_that_of_every_sample_played_out(players):
    """Repeated samples are not played again and moves out of reach are dropped, yet the
    move chosen is the one with the lowest total over every sample played out (the first
    of equal totals); a move's score is its total until it is out of reach or chosen."""
    rules, obs = _positions("shithead", players, 200, True)
    moves = np.empty(160, np.int64)
    reps, spared = 8, 0
    for o in obs:
        n = legal_moves(o, rules, moves)
        want, got = np.zeros(n), np.zeros(n)
        assert _plain_scores(o, rules, 11, moves, n, reps, 400, want)
        stats = np.zeros(2, np.int64)
        rng = np.array([11], np.uint64)
        best = rollout_places(o, rules, rng, moves, n, reps, 400, False, got, stats)
        assert best == int(np.argmin(want))
        assert np.all(got <= want)
        assert stats[1] <= reps * n
        spared += stats[1] < reps * n
    assert spared > len(obs) // 4


def test_more_different_samples_than_are_kept_give_the_same_choice():
    rules, obs = _positions("shithead", 4, 20, True)
    moves = np.empty(160, np.int64)
    reps = KEPT_SAMPLES + 10
    for o in obs:
        n = legal_moves(o, rules, moves)
        want = np.zeros(n)
        assert _plain_scores(o, rules, 9, moves, n, reps, 400, want)
        best = rollout_places(
            o, rules, np.array([9], np.uint64), moves, n, reps, 400, False, np.zeros(n),
            np.zeros(2, np.int64),
        )  # fmt: skip
        assert best == int(np.argmin(want))


@pytest.mark.parametrize("reps", [1, 3, 16, KEPT_SAMPLES + 30])
def test_a_sample_drawn_again_is_not_played_again(reps):
    """One hidden card (the other seat's last face-down card) leaves few samples to draw."""
    rules, obs = _positions("shithead", 2, 400, True)
    moves = np.empty(160, np.int64)
    pool = np.empty(L.MAX_DECK, np.int64)
    pub, priv = np.empty(L.O_SIZE, np.int64), np.empty(L.P_SIZE, np.int64)
    few = [
        o
        for o in obs
        if determinise_into(o, rules, np.array([1], np.uint64), pub, priv, pool) == 1
        and legal_moves(o, rules, moves) >= 2
    ]
    assert few
    for o in few:
        n = legal_moves(o, rules, moves)
        want = np.zeros(n)
        assert _plain_scores(o, rules, 4, moves, n, reps, 400, want)
        stats = np.zeros(2, np.int64)
        best = rollout_places(
            o, rules, np.array([4], np.uint64), moves, n, reps, 400, False, np.zeros(n), stats
        )
        assert best == int(np.argmin(want))
        assert stats[1] <= n  # one hidden card: every sample is the same state


def test_a_sample_is_its_hidden_cards_in_order():
    """Two samples whose ``pool[:m]`` agree are the same state (what the scoring compares)."""
    rules, obs = _positions("shithead", 2, 50, True)
    pool = np.empty(L.MAX_DECK, np.int64)
    pub, priv = np.empty(L.O_SIZE, np.int64), np.empty(L.P_SIZE, np.int64)
    seen: dict[tuple, tuple] = {}
    for i, o in enumerate(obs):
        rng = np.array([3], np.uint64)
        for _ in range(30):
            m = determinise_into(o, rules, rng, pub, priv, pool)
            assert m >= 0
            key = (i, *pool[:m])
            state = (*pub, *priv)
            assert seen.setdefault(key, state) == state
    assert len(seen) < 50 * 30  # some samples were drawn twice


def test_scores_fail_where_the_position_lists_only_some_cards():
    rules, obs = _positions("shithead", 2, 50, True)
    o = next(x for x in obs if x[L.O_BURNED_N] > 0).copy()
    o[L.O_BURNED] = 0  # the burned cards are no longer accounted for
    o[L.O_BURNED_N] = 0
    moves = np.empty(160, np.int64)
    n = legal_moves(o, rules, moves)
    stats = np.zeros(2, np.int64)
    args = (o, rules, np.array([1], np.uint64), moves, n, 4, 400)
    assert rollout_places(*args, False, np.zeros(n), stats) == -1
    assert stats[1] == 0
    assert rollout_places(*args, True, np.zeros(n), stats) >= 0  # unseen cards as a subset
    assert stats[1] > 0


def test_heuristic_move_stats_is_its_move_and_counts_the_search():
    h = discover()["heuristic"]
    rules, obs = _positions("shithead", 2, 100, True)
    params = h.params_array()
    searched = 0
    for o in obs:
        stats = np.zeros(2, np.int64)
        rng = np.array([1], np.uint64)
        a = h.module.move_stats(o, rules, params, rng, stats)
        assert a == h.module.move(o, rules, params, np.array([1], np.uint64))
        searched += stats[1] > 0
    assert searched > 0
